/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_LEAST_LOADED_SPRAY_H
#define AI_FABRIC_LEAST_LOADED_SPRAY_H

#include "spray-policy.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Each cell goes to the usable link with the smallest backlog; ties go
 * round robin, so an idle fabric still spreads evenly.
 */
class LeastLoadedSpray : public SprayPolicy
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    LeastLoadedSpray();
    ~LeastLoadedSpray() override;

    void Setup(const std::vector<Ptr<CellNetDevice>>* ports,
               uint32_t leaves,
               uint32_t leafIndex,
               uint32_t maxCellBytes) override;
    uint32_t Pick(uint32_t dstLeaf,
                  const std::vector<uint32_t>& links,
                  uint32_t wireBytes,
                  uint32_t reserveBytes) override;

  private:
    std::vector<uint32_t> m_cursor; //!< where ties start, per destination leaf
};

} // namespace ns3

#endif /* AI_FABRIC_LEAST_LOADED_SPRAY_H */
