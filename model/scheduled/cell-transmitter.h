/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CELL_TRANSMITTER_H
#define AI_FABRIC_CELL_TRANSMITTER_H

#include "cell-segmenter.h"
#include "fabric-cell.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class CellNetDevice;
class SprayPolicy;

/**
 * \ingroup ai-fabric
 * \brief The fabric transmit stage of an ingress leaf: cuts packets into cells and
 * sprays them over the usable links towards their leaf, never above a fabric
 * port's queue limit.
 *
 * Each fabric port queues at most its limit (CellNetDevice::SetQueueLimit) of data
 * cells. A packet whose cells do not all fit waits, partly sent, for room; while
 * it waits (or while no usable link towards its leaf has room), that leaf is *not
 * ready*: the leaf's VOQs for it stay where they are, so the backlog stays in the
 * VOQs at the ingress and never grows in the fabric. One wake-up event serves
 * every waiting leaf: it fires when the first link one of them waits on has
 * drained to half its limit, so cells are added in batches, not one event per
 * cell. Control cells (credit requests and grants) are always sent: on a link with
 * room if one has, else on the least loaded usable link; data cells leave the
 * last bytes of each queue limit to them, so the limit holds for every cell.
 */
class CellTransmitter
{
  public:
    /// A leaf that was not ready is ready again.
    typedef Callback<void, uint32_t> ReadyCallback;
    /// Leaves are ready again: send what can go now.
    typedef Callback<void> DrainCallback;

    /**
     * \param ports the leaf's fabric ports (the vector must outlive this object)
     * \param policy chooses a link per cell
     * \param segmenter cell arithmetic
     * \param leaves leaves in the fabric
     * \param leafIndex the sending leaf
     * \param controlReserve bytes of each port's queue limit data cells leave free
     *        for control cells
     * \param controlCellBytes bytes of a control cell on the wire
     * \param ready called for each waiting leaf that can take packets again
     * \param drain called once after those, so the owner's VOQ scheduler chooses
     *        among all of them (in its class order) what goes first
     */
    CellTransmitter(const std::vector<Ptr<CellNetDevice>>* ports,
                    Ptr<SprayPolicy> policy,
                    const CellSegmenter& segmenter,
                    uint32_t leaves,
                    uint32_t leafIndex,
                    uint32_t controlReserve,
                    uint32_t controlCellBytes,
                    ReadyCallback ready,
                    DrainCallback drain);
    ~CellTransmitter();

    /**
     * Set the usable links towards a leaf.
     * \param dstLeaf the leaf
     * \param dataLinks fabric ports data cells for it may use now (possibly none)
     * \param controlLinks fabric ports its control cells may use (flow control
     *        holds back data cells, not control cells)
     */
    void SetLinks(uint32_t dstLeaf,
                  const std::vector<uint32_t>& dataLinks,
                  const std::vector<uint32_t>& controlLinks);

    /**
     * \param dstLeaf a leaf
     * \return true if a packet for it can start now; if not, the leaf is waited
     *         for and ReadyCallback reports when it can
     */
    bool IsReady(uint32_t dstLeaf);

    /**
     * Cut a packet into cells and send them (as many as fit; the rest follow as
     * room appears). Call only when IsReady(dstLeaf).
     * \param packet the packet
     * \param dstLeaf its egress leaf
     * \param dstPort its egress port
     * \param tc its traffic class
     */
    void Send(Ptr<Packet> packet, uint32_t dstLeaf, uint32_t dstPort, uint8_t tc);

    /**
     * Send a control cell.
     * \param cell the cell
     * \return false if no link towards its leaf is usable (the cell is lost)
     */
    bool SendControl(const FabricCell& cell);

    /// Cancel the wake-up (the owner is being disposed).
    void Cancel();

    /// \return data cells sent
    uint64_t GetDataCellsSent() const;
    /// \return packets partly sent, waiting for room
    uint64_t GetPendingPackets() const;
    /// \return payload bytes of them not yet sent
    uint64_t GetPendingBytes() const;
    /// \return packets sent (every cell of them)
    uint64_t GetPacketsSent() const;
    /// \param dstLeaf a leaf \return packets numbered for it so far
    uint32_t GetPacketsNumbered(uint32_t dstLeaf) const;
    /// \return times a packet had to wait for room
    uint64_t GetStalls() const;
    /// \return wake-up events run
    uint64_t GetWakeups() const;
    /// \return path-loss notices sent (one per destination leaf and path loss)
    uint64_t GetPathLossNotices() const;

  private:
    /// A packet partly sent to one leaf.
    struct Pending
    {
        FabricCell cell;     //!< template of its cells (packet, ids, next index)
        uint32_t size{0};    //!< packet bytes
        bool active{false};  //!< a packet is pending
        bool waiting{false}; //!< on the waiting list
    };

    /**
     * Send the pending cells of a leaf's packet while there is room.
     * \param dstLeaf the leaf
     * \return true if the packet is complete
     */
    bool Continue(uint32_t dstLeaf);
    /// \param dstLeaf a leaf \return true if a usable link towards it has room for a cell
    bool HasRoom(uint32_t dstLeaf) const;
    /// Put a leaf on the waiting list and make sure the wake-up is due in time.
    /// \param dstLeaf the leaf
    void Wait(uint32_t dstLeaf);
    /// \param dstLeaf a waiting leaf \return when a link towards it has drained enough
    Time WakeDelay(uint32_t dstLeaf) const;
    /**
     * Tell a leaf that a path to it was lost: a PATH_LOSS cell behind the data on
     * every link left towards it, naming the last packet wholly sent before (a
     * packet being cut is finished first).
     * \param dstLeaf the leaf
     */
    void NotifyPathLoss(uint32_t dstLeaf);
    /// Schedule the wake-up for the earliest waiting leaf.
    void ScheduleWakeup();
    /// The wake-up: continue pending packets, report leaves that are ready.
    void Wakeup();

    const std::vector<Ptr<CellNetDevice>>* m_ports; //!< fabric ports
    Ptr<SprayPolicy> m_policy;                      //!< link per cell
    CellSegmenter m_segmenter;                      //!< cell arithmetic
    uint32_t m_leafIndex;                           //!< sending leaf
    uint32_t m_controlReserve;                      //!< queue bytes kept for control cells
    uint32_t m_controlCellBytes;                    //!< a control cell's wire bytes
    ReadyCallback m_ready;                          //!< to the owner
    DrainCallback m_drain;                          //!< to the owner
    std::vector<std::vector<uint32_t>> m_links;     //!< data ports per destination leaf
    std::vector<std::vector<uint32_t>> m_control;   //!< control ports per destination leaf
    std::vector<Pending> m_pending;                 //!< per destination leaf
    std::vector<uint32_t> m_nextPacketId;           //!< per destination leaf
    std::vector<uint64_t> m_notices;                //!< path-loss notices per destination leaf
    std::vector<bool> m_noticeDue;                  //!< per leaf: notice waits for a packet's end
    uint64_t m_noticesSent{0};                      //!< counter
    std::vector<uint32_t> m_waiting;                //!< leaves waiting for room
    EventId m_wakeup;                               //!< the one wake-up
    Time m_wakeupAt;                                //!< when it is due
    uint64_t m_dataCells{0};                        //!< counter
    uint64_t m_packets{0};                          //!< counter
    uint64_t m_pendingPackets{0};                   //!< packets partly sent
    uint64_t m_pendingBytes{0};                     //!< their unsent payload bytes
    uint64_t m_stalls{0};                           //!< counter
    uint64_t m_wakeups{0};                          //!< counter
};

} // namespace ns3

#endif /* AI_FABRIC_CELL_TRANSMITTER_H */
