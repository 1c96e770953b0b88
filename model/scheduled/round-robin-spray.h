/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_ROUND_ROBIN_SPRAY_H
#define AI_FABRIC_ROUND_ROBIN_SPRAY_H

#include "spray-policy.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Cells go to the usable links in turn, by deficit round robin in bytes.
 *
 * Cells differ in size (short last cells, control cells), and counting cells
 * would load some links more than others whenever the cells per packet and the
 * links share a factor; so each link gets a quantum of the largest cell's bytes
 * per turn, per destination leaf. A link without room for the cell loses its
 * turn (and its deficit). Leaves start their turns at different links, so
 * synchronised first cells from many leaves do not all meet at one spine.
 * Deficits are kept only for the leaves cells were sent to since the last Reset.
 */
class RoundRobinSpray : public SprayPolicy
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RoundRobinSpray();
    ~RoundRobinSpray() override;

    void Setup(const std::vector<Ptr<CellNetDevice>>* ports,
               uint32_t leaves,
               uint32_t leafIndex,
               uint32_t maxCellBytes) override;
    void Reset() override;
    uint32_t Pick(uint32_t dstLeaf,
                  const std::vector<uint32_t>& links,
                  uint32_t wireBytes,
                  uint32_t reserveBytes) override;

  private:
    /// No deficits for a leaf.
    static constexpr uint32_t NONE = 0xffffffff;

    std::vector<uint32_t> m_row;    //!< per destination leaf: its row of m_deficit, or NONE
    std::vector<int64_t> m_deficit; //!< rows of a deficit per fabric port, bytes
    uint32_t m_rows{0};             //!< rows in m_deficit
    std::size_t m_width{0};         //!< fabric ports per row
    std::vector<uint32_t> m_cursor; //!< position in the usable links, per destination leaf
};

} // namespace ns3

#endif /* AI_FABRIC_ROUND_ROBIN_SPRAY_H */
