/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_SPRAY_POLICY_H
#define AI_FABRIC_SPRAY_POLICY_H

#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace ns3
{

class CellNetDevice;

/**
 * \ingroup ai-fabric
 * \brief How an ingress leaf spreads cells over the fabric links towards a leaf.
 *
 * A scheduled-fabric leaf holds one policy, chosen by its SprayPolicy attribute
 * (a TypeId, as a TCP socket chooses its congestion control). For each cell the
 * leaf passes the usable links towards the cell's destination leaf; the policy
 * returns one of them that has room for the cell (CellNetDevice::HasRoomFor), or
 * NO_PORT if none has. Adding a policy means adding one subclass.
 */
class SprayPolicy : public Object
{
  public:
    /// Returned by Pick when no usable link has room for the cell.
    static constexpr uint32_t NO_PORT = std::numeric_limits<uint32_t>::max();

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    ~SprayPolicy() override;

    /**
     * Bind the policy to its leaf's fabric ports (before the first Pick).
     * \param ports the leaf's fabric ports, by port index (the vector must outlive
     *        the policy's use)
     * \param leaves leaves in the fabric
     * \param leafIndex the leaf that sprays
     * \param maxCellBytes the largest cell (data or control) on a link
     */
    virtual void Setup(const std::vector<Ptr<CellNetDevice>>* ports,
                       uint32_t leaves,
                       uint32_t leafIndex,
                       uint32_t maxCellBytes);

    /// The usable links towards some leaf changed: forget per-link history.
    virtual void Reset();

    /**
     * \param dstLeaf the leaf the cell is going to
     * \param links usable fabric ports towards it (not empty)
     * \param wireBytes the cell's size on a link
     * \param reserveBytes room that must stay free behind it (data cells leave
     *        room for control cells)
     * \return the port to send it on, or NO_PORT if no link in links has room
     */
    virtual uint32_t Pick(uint32_t dstLeaf,
                          const std::vector<uint32_t>& links,
                          uint32_t wireBytes,
                          uint32_t reserveBytes) = 0;

    /**
     * Assign fixed random streams (policies that draw random numbers).
     * \param stream first stream index
     * \return number of streams used
     */
    virtual int64_t AssignStreams(int64_t stream);

  protected:
    /// Release the port view.
    void DoDispose() override;

    /**
     * \param port a fabric port \param wireBytes a cell's size
     * \return true if the port's queue can take the cell
     */
    bool HasRoom(uint32_t port, uint32_t wireBytes) const;

    /**
     * \param links usable ports \param from position to start at
     * \param wireBytes a cell's size
     * \return the first port from position from on (wrapping) with room, or NO_PORT
     */
    uint32_t FirstWithRoom(const std::vector<uint32_t>& links,
                           uint32_t from,
                           uint32_t wireBytes) const;

    const std::vector<Ptr<CellNetDevice>>* m_ports{nullptr}; //!< the leaf's fabric ports
    uint32_t m_leaves{0};                                    //!< leaves in the fabric
    uint32_t m_leafIndex{0};                                 //!< the spraying leaf
    uint32_t m_maxCellBytes{0};                              //!< largest cell on a link
};

} // namespace ns3

#endif /* AI_FABRIC_SPRAY_POLICY_H */
