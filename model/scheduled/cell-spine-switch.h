/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CELL_SPINE_SWITCH_H
#define AI_FABRIC_CELL_SPINE_SWITCH_H

#include "fabric-cell.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <utility>
#include <vector>

namespace ns3
{

class CellNetDevice;

/**
 * \ingroup ai-fabric
 * \brief A spine of a scheduled fabric: a cell switch with flow control towards
 * the leaves that feed it.
 *
 * Each arriving cell is forwarded towards its destination leaf on one of the
 * spine's healthy links to that leaf (round robin over parallel links); the
 * output queue is that link's FIFO.
 *
 * Flow control: when the queue of a link towards leaf d reaches FlowControlXoff
 * bytes, the spine tells every leaf to stop sending it data cells for d; once
 * every link towards d has drained to FlowControlXon, it tells them to go on. The
 * indication reaches the leaves one link delay and one control cell later (it
 * rides in cell headers, as link-level flow control does in cell fabrics, and
 * takes no link capacity). A leaf sprays the cells for d over the other spines
 * meanwhile, or keeps them in its VOQs. Control cells are not held back.
 *
 * Lossless by construction: after the threshold, at most one fabric-port queue
 * of each leaf (FabricPortQueueLimit), what is on the wire, and what is sent
 * before the indication arrives can still reach the queue, so MaxQueueBytes must
 * be at least FlowControlXoff plus, per feeding link, that much (the default, 0,
 * is exactly that bound; a smaller value is refused). A data cell beyond
 * MaxQueueBytes would be dropped and counted (none is, by that bound), and a cell
 * for a leaf the spine has no healthy link to (in flight when a failure was
 * noticed) is dropped and counted as unroutable.
 *
 * A link failure is noticed after LinkDetectionDelay; leaves are then told which
 * leaves this spine still reaches.
 */
class CellSpineSwitch : public Object
{
  public:
    /// Why a cell was dropped.
    enum DropReason
    {
        QUEUE_FULL = 0, //!< output queue at MaxQueueBytes (never, when flow control holds)
        NO_ROUTE = 1,   //!< no healthy link to the destination leaf
        DROP_REASONS = 2,
    };

    /// Flow control towards a leaf: (spine, destination leaf, stop = true / go = false).
    typedef Callback<void, uint32_t, uint32_t, bool> FlowControlCallback;

    /// TracedCallback signature for queue depth: (output port, bytes queued).
    typedef void (*QueueDepthTracedCallback)(uint32_t port, uint64_t bytes);
    /// TracedCallback signature for drops: (input port, cell).
    typedef void (*CellTracedCallback)(uint32_t port, const FabricCell& cell);
    /// TracedCallback signature for flow control: (destination leaf, stop).
    typedef void (*FlowControlTracedCallback)(uint32_t dstLeaf, bool stop);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    CellSpineSwitch();
    ~CellSpineSwitch() override;

    /**
     * \param leaves number of leaves in the fabric
     * \param index this spine's index
     */
    void Setup(uint32_t leaves, uint32_t index);

    /**
     * Size the flow control for the fabric around the spine, validate it, and
     * derive MaxQueueBytes if it is 0.
     * \param cellBytes bytes of a full cell on a link (CellPayload + CellHeader)
     * \param controlCellBytes bytes of a control cell
     * \param feedingLinks links into this spine that can carry cells for one leaf
     *        (the other leaves' links to it)
     * \param leafQueueLimit a leaf fabric port's queue limit (FabricPortQueueLimit)
     * \param rate fabric link rate
     * \param delay fabric link delay
     */
    void SetFabric(uint32_t cellBytes,
                   uint32_t controlCellBytes,
                   uint32_t feedingLinks,
                   uint64_t leafQueueLimit,
                   DataRate rate,
                   Time delay);

    /**
     * Add a fabric port.
     * \param device the spine's end of a leaf-spine link
     * \param leaf the leaf at the other end
     */
    void AddPort(Ptr<CellNetDevice> device, uint32_t leaf);

    /// \param leaf a leaf \return true if the spine has a healthy link to it (as detected)
    bool CanReach(uint32_t leaf) const;

    /// \param cb called when the reachable set changes (after detection)
    void AddReachabilityCallback(Callback<void> cb);

    /**
     * \param leaf the leaf that listens
     * \param cb called at that leaf with this spine's flow-control indications
     *        (unless the leaf is in another process of a distributed run: it then
     *        hears them as messages on the spine's first link to it)
     */
    void AddFlowControlCallback(uint32_t leaf, FlowControlCallback cb);

    /// \return this spine's index
    uint32_t GetIndex() const;
    /// \return number of ports
    uint32_t GetNPorts() const;
    /// \param port index \return the device
    Ptr<CellNetDevice> GetPort(uint32_t port) const;
    /// \return cells forwarded
    uint64_t GetCellsForwarded() const;
    /// \return cells dropped, for any reason
    uint64_t GetCellsDropped() const;
    /// \param reason a reason \return cells dropped for it
    uint64_t GetCellsDropped(DropReason reason) const;
    /// \return packet bytes carried by the data cells dropped
    uint64_t GetPayloadDropped() const;
    /// \return highest output queue occupancy seen, bytes
    uint64_t GetQueueHighWater() const;
    /// \return the output queue limit in bytes (after SetFabric)
    uint64_t GetMaxQueueBytes() const;
    /// \return stop indications sent (one per destination leaf and episode)
    uint64_t GetFlowControlStops() const;

  protected:
    /// Cancel the recompute and drain-check events, release the ports and callbacks.
    void DoDispose() override;

  private:
    /// A cell arrived on a port. \param port the port \param cell the cell
    void Receive(uint32_t port, const FabricCell& cell);
    /// A link changed state: recompute after the detection delay.
    void LinkChanged();
    /// Recompute healthy links.
    void Recompute();
    /// A port towards a stopped leaf may have drained: look. \param leaf the leaf
    void CheckDrained(uint32_t leaf);
    /// Tell every leaf to stop or go sending data cells for a leaf.
    /// \param leaf the destination leaf \param stop stop, or go on
    void Indicate(uint32_t leaf, bool stop);
    /// \param leaf a leaf \return the port its indications go out on as messages,
    ///         if it is in another process; null if it hears them by callback
    Ptr<CellNetDevice> GetMessagePort(uint32_t leaf) const;
    /// The indication reaches the leaves.
    /// \param leaf the destination leaf \param stop stop, or go on
    void DeliverIndication(uint32_t leaf, bool stop);

    uint32_t m_index{0};                                           //!< spine index
    Time m_detectionDelay;                                         //!< attribute LinkDetectionDelay
    uint64_t m_maxQueue;                                           //!< attribute MaxQueueBytes
    uint64_t m_xoff;                                               //!< attribute FlowControlXoff
    uint64_t m_xon;                                                //!< attribute FlowControlXon
    Time m_indicationDelay;                                        //!< link delay + a control cell
    std::vector<Ptr<CellNetDevice>> m_ports;                       //!< ports
    std::vector<uint32_t> m_portLeaf;                              //!< leaf of each port
    std::vector<std::vector<uint32_t>> m_toLeaf;                   //!< healthy ports per leaf
    std::vector<std::vector<uint32_t>> m_allToLeaf;                //!< every port per leaf
    std::vector<uint32_t> m_rr;                                    //!< round-robin cursor per leaf
    std::vector<uint8_t> m_stopped;                                //!< per leaf: stop indicated
    std::vector<EventId> m_drainCheck;                             //!< per leaf: when to look again
    std::vector<Callback<void>> m_reachCbs;                        //!< listeners
    std::vector<std::pair<uint32_t, FlowControlCallback>> m_fcCbs; //!< (leaf, listener)
    std::vector<EventId> m_recomputeEvents;                        //!< reach updates still due
    uint64_t m_forwarded{0};                                       //!< counter
    uint64_t m_dropped[DROP_REASONS]{};                            //!< counters
    uint64_t m_droppedPayload{0};                                  //!< data cell bytes dropped
    uint64_t m_highWater{0};                                       //!< bytes
    uint64_t m_stops{0};                                           //!< counter
    TracedCallback<uint32_t, uint64_t> m_depthTrace;         //!< output queue depth at each enqueue
    TracedCallback<uint32_t, const FabricCell&> m_dropTrace; //!< drops
    TracedCallback<uint32_t, bool> m_fcTrace;                //!< flow control indications
};

} // namespace ns3

#endif /* AI_FABRIC_CELL_SPINE_SWITCH_H */
