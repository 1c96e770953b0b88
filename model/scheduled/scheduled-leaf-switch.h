/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_SCHEDULED_LEAF_SWITCH_H
#define AI_FABRIC_SCHEDULED_LEAF_SWITCH_H

#include "cell-reassembler.h"
#include "cell-segmenter.h"
#include "egress-reassembly.h"
#include "fabric-cell.h"

#include "ns3/cluster-description.h"
#include "ns3/event-id.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <functional>
#include <memory>
#include <vector>

namespace ns3
{

class CellSpineSwitch;
class CellTransmitter;
class CreditScheduler;
class SprayPolicy;
class CellNetDevice;
class VoqCreditRequester;
class VoqQueueDisc;

/**
 * \ingroup ai-fabric
 * \brief A leaf of a scheduled fabric, in its ingress and egress roles.
 *
 * Ingress: a packet from a host port (starting with its Ipv4Header) is looked up
 * (destination address -> host index -> egress leaf and port, by arithmetic; traffic
 * class = min(DSCP >> 3, NumTrafficClasses - 1)) and queued in its VOQ of the
 * VoqQueueDisc. The VOQ reports the cumulative bytes it has queued to the egress
 * port's CreditScheduler in credit-request control cells (at most one per
 * RequestInterval, plus a random RequestJitter, unless RequestQuantum bytes are
 * unreported; a VOQ quiet for an interval asks at once). Grants come back as the
 * cumulative bytes granted; the VOQ's credit grows by the difference, so a lost
 * request or grant is repaired by the next one. With credit the VOQ dequeues, the
 * packet is cut into cells (CellPayload + CellHeader, variable or padded last
 * cell) and the cells are sprayed over the fabric links that reach the egress leaf
 * (a link is usable if it is up and its spine reaches that leaf, both as detected
 * after LinkDetectionDelay) by the SprayPolicy (a TypeId: RoundRobinSpray,
 * RandomSpray or LeastLoadedSpray).
 *
 * Egress: cells are reassembled per source leaf (CellReassembler: packets released
 * in order, a packet incomplete at the head for ReassemblyTimeout is dropped and
 * counted) and packets are sent on the host port. Each host port has a
 * CreditScheduler whose grants travel back as control cells (GrantBatch credit
 * bytes per cell).
 *
 * Traffic between two hosts of this leaf is scheduled the same way, with its
 * requests, grants and packets kept inside the leaf.
 *
 * Failures: control cells are lost only with failed links; after any link change
 * a watchdog re-requests for VOQs that waited CreditTimeout for credit, and the
 * scheduler repeats a grant it sees was lost. When the VOQ buffer of a host port
 * and class passes its PFC threshold the leaf sends a PFC pause to that host
 * (repeated every PfcRefresh while frames keep arriving) and a resume once the
 * buffer has drained.
 */
class ScheduledLeafSwitch : public Object
{
  public:
    /// What to do with a packet for an address outside the cluster.
    enum UnroutableAction
    {
        ABORT = 0, //!< stop the simulation: the configuration is wrong
        DROP = 1,  //!< drop, count and trace
    };

    /// Counters, readable from code.
    struct Counters
    {
        uint64_t offeredPackets{0};         //!< from host ports
        uint64_t offeredBytes{0};           //!< from host ports
        uint64_t deliveredPackets{0};       //!< to host ports
        uint64_t deliveredBytes{0};         //!< to host ports
        uint64_t unroutablePackets{0};      //!< no route
        uint64_t unroutableBytes{0};        //!< no route
        uint64_t voqDropPackets{0};         //!< refused by the VOQ buffer
        uint64_t voqDropBytes{0};           //!< refused by the VOQ buffer
        uint64_t egressDropPackets{0};      //!< refused by the host port
        uint64_t egressDropBytes{0};        //!< refused by the host port
        uint64_t reassemblyTimeouts{0};     //!< packets given up at reassembly
        uint64_t reassemblyNoticeDrops{0};  //!< of them, on a path-loss notice (not timed out)
        uint64_t reassemblyTimeoutBytes{0}; //!< payload bytes of them that had arrived
        uint64_t beyondWindowCells{0};      //!< cells discarded: beyond the reorder window
        uint64_t beyondWindowBytes{0};      //!< their payload bytes
        uint64_t lateCells{0};              //!< cells discarded: their packet was given up
        uint64_t lateBytes{0};              //!< their payload bytes
        uint64_t duplicateCells{0};         //!< cells discarded: their packet was complete
        uint64_t duplicateBytes{0};         //!< their payload bytes
        uint64_t reassemblyHeldPackets{0};  //!< packets in reassembly now
        uint64_t reassemblyHeldBytes{0};    //!< payload bytes in reassembly now
        uint64_t dataCellsSent{0};          //!< data cells sprayed
        uint64_t requestsSent{0};           //!< credit requests sent (fabric or local)
        uint64_t grantsReceived{0};         //!< grants received
        uint64_t cellsNoPath{0};            //!< control cells with no link to their leaf (dropped)
        uint64_t transmitPendingPackets{0}; //!< packets partly sent, waiting for room
        uint64_t transmitPendingBytes{0};   //!< their bytes not yet sent
        uint64_t transmitStalls{0};         //!< times a packet waited for room
        uint64_t requestRefreshes{0};       //!< requests repeated by the credit watchdog
        uint64_t pathLossNoticesSent{0};    //!< path-loss notices sent to other leaves

        /**
         * Visit every counter by name (for CSV and JSON output).
         * \param visit called with each name and value
         */
        void ForEach(const std::function<void(const char*, uint64_t)>& visit) const;
    };

    /// TracedCallback signature for packets: (port, packet).
    typedef void (*PacketTracedCallback)(uint32_t port, Ptr<const Packet> packet);
    /// TracedCallback signature for reassembly: (source leaf, packet or null).
    typedef void (*ReassemblyTracedCallback)(uint32_t source, Ptr<const Packet> packet);
    /// TracedCallback signature for cells discarded at reassembly: (cell, reason).
    typedef void (*CellDiscardTracedCallback)(const FabricCell& cell, uint32_t reason);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    ScheduledLeafSwitch();
    ~ScheduledLeafSwitch() override;

    /**
     * Set the cluster and this leaf's index; validates the attributes.
     * \param cluster the cluster description
     * \param index this leaf
     * \param voq the ingress queue disc (configured by the caller's attributes)
     */
    void Setup(const ClusterDescription& cluster, uint32_t index, Ptr<VoqQueueDisc> voq);

    /**
     * Add the next host port (call in host-port order).
     * \param device the leaf's end of the host link (a RoceNetDevice, or any NetDevice)
     * \param scheduler the port's credit scheduler (attributes set by the caller)
     * \param rate the port rate
     */
    void AddHostPort(Ptr<NetDevice> device, Ptr<CreditScheduler> scheduler, DataRate rate);

    /**
     * Add a fabric port.
     * \param device the leaf's end of a leaf-spine link
     * \param spine the spine at the other end
     */
    void AddFabricPort(Ptr<CellNetDevice> device, Ptr<CellSpineSwitch> spine);

    /// Recompute, for every destination leaf, the fabric links that reach it.
    void UpdateReachability();

    /**
     * Size the reorder window, if ReorderWindow is 0, for the spines' queue limit
     * (before the first cell arrives).
     * \param spineQueueBytes a spine's output queue limit
     */
    void SetSpineQueueLimit(uint64_t spineQueueBytes);
    /// \return the reorder window in packets per source leaf
    uint32_t GetReorderWindow() const;
    /// \return FabricPortQueueLimit, bytes
    uint64_t GetFabricPortQueueLimit() const;
    /// \return ControlCellSize, bytes
    uint32_t GetControlCellSize() const;

    /// \return the counters
    Counters GetCounters() const;
    /// \return the ingress VOQ queue disc
    Ptr<VoqQueueDisc> GetVoqQueueDisc() const;
    /// \param port host port \return its credit scheduler
    Ptr<CreditScheduler> GetScheduler(uint32_t port) const;
    /// \return number of fabric ports
    uint32_t GetNFabricPorts() const;
    /// \param port index \return the fabric device
    Ptr<CellNetDevice> GetFabricPort(uint32_t port) const;
    /// \return number of host ports in use
    uint32_t GetNHostPorts() const;
    /// \param port index \return the host-port device
    Ptr<NetDevice> GetHostPort(uint32_t port) const;
    /// \return the segmenter in use
    const CellSegmenter& GetSegmenter() const;
    /// \param dstLeaf a leaf \return packets this leaf has started sending to it (32-bit, wraps)
    uint32_t GetPacketsNumbered(uint32_t dstLeaf) const;
    /// \return the reassembler (egress)
    const CellReassembler& GetReassembler() const;
    /// \return this leaf's index
    uint32_t GetIndex() const;
    /**
     * \param dstLeaf egress leaf \param port egress port \param tc class
     * \return the VOQ index
     */
    uint32_t GetVoqIndex(uint32_t dstLeaf, uint32_t port, uint8_t tc) const;

    /**
     * Assign fixed random streams to the request jitter and the spray policy.
     * \param stream first stream index
     * \return number of streams used
     */
    int64_t AssignStreams(int64_t stream);

  protected:
    /// Cancel the egress, requester, transmitter and reachability events; release the
    /// devices, schedulers, VOQ and spray policy.
    void DoDispose() override;

  private:
    /**
     * A packet from a host port: into its VOQ, or dropped (unroutable, VOQ full).
     * \param device the host port's device
     * \param packet the packet
     * \param protocol its EtherType (only IPv4 is routed)
     * \param from the sender's address
     * \return true: the packet is consumed
     */
    bool ReceiveFromHost(Ptr<NetDevice> device,
                         Ptr<const Packet> packet,
                         uint16_t protocol,
                         const Address& from);
    /// A cell from a fabric port. \param port the fabric port \param cell the cell
    void ReceiveCell(uint32_t port, const FabricCell& cell);
    /**
     * Send a credit request towards a VOQ's egress scheduler.
     * \param voq the VOQ \param cumulative bytes it wants in all
     * \param refresh a watchdog re-request
     */
    void SendRequest(uint32_t voq, uint64_t cumulative, bool refresh);
    /// A grant for a VOQ. \param voq the VOQ \param cumulative bytes granted in all
    void HandleGrant(uint32_t voq, uint64_t cumulative);
    /// Dequeue everything that has credit and send it.
    void Drain();
    /// Put a control cell on a fabric link towards its leaf. \param cell the cell
    void SendToFabric(const FabricCell& cell);
    /// \param dstLeaf a leaf \return true if packets for it may leave the VOQs now
    bool CanSendTo(uint32_t dstLeaf);
    /// The fabric ports have room for a leaf again (Drain follows). \param dstLeaf the leaf
    void LeafReady(uint32_t dstLeaf);
    /// Give the transmitter the links towards a leaf (reach and flow control).
    /// \param dstLeaf the leaf
    void UpdateLinks(uint32_t dstLeaf);
    /**
     * A spine's flow control: stop or go on sending data cells for a leaf there.
     * \param spine the spine \param dstLeaf the leaf \param stop stop, or go on
     */
    void FlowControl(uint32_t spine, uint32_t dstLeaf, bool stop);
    /// Send a packet on a host port. \param port the host port \param packet the packet
    void ForwardToHost(uint32_t port, Ptr<Packet> packet);
    /**
     * Scheduler of a local port granted credit to a source: handled here for this
     * leaf, else sent in a grant cell once GrantBatch bytes (or the whole demand)
     * are unsent.
     * \param port the local host port \param source the source leaf
     * \param tc the traffic class \param cumulative bytes granted in all
     */
    void SendGrant(uint32_t port, uint32_t source, uint8_t tc, uint64_t cumulative);
    /// Build the egress reassembly with a reorder window.
    /// \param window reorder window per source leaf, packets
    void CreateEgress(uint32_t window);
    /// A packet was reassembled: forward it to its host port. \param out the packet
    void Reassembled(const CellReassembler::Output& out);
    /// A packet was given up at reassembly. \param lost the packet
    void ReassemblyTimedOut(const CellReassembler::Output& lost);
    /// A data cell was discarded at reassembly. \param cell the cell \param reason why
    void CellDiscarded(const FabricCell& cell, CellReassembler::Discard reason);
    /// A fabric link changed state.
    void LinkChanged();
    /// Egress queue bytes of a host port. \param port the host port \return the bytes
    uint64_t HostQueueBytes(uint32_t port) const;
    /**
     * PFC request from the VOQ buffer: pause or resume a class's priorities on a
     * host port (the last class also every priority above it).
     * \param port the host port \param tc the traffic class \param pause pause, or resume
     */
    void Pfc(uint32_t port, uint8_t tc, bool pause);

    // Attributes
    uint32_t m_cellPayload;          //!< CellPayload
    uint32_t m_cellHeader;           //!< CellHeader
    uint32_t m_cellSize;             //!< CellSize
    bool m_variableLastCell;         //!< VariableLastCell
    uint32_t m_controlCellBytes;     //!< ControlCellSize
    TypeId m_sprayPolicyType;        //!< SprayPolicy
    Time m_reassemblyTimeout;        //!< ReassemblyTimeout
    uint32_t m_reorderWindow;        //!< ReorderWindow
    uint64_t m_fabricPortQueueLimit; //!< FabricPortQueueLimit
    uint32_t m_controlReserveCells;  //!< ControlCellReserve
    Time m_detectionDelay;           //!< LinkDetectionDelay
    Time m_pfcRefresh;               //!< PfcRefresh
    uint32_t m_grantBatch;           //!< GrantBatch
    Time m_creditTimeout;            //!< CreditTimeout
    Time m_requestJitter;            //!< RequestJitter
    Time m_requestInterval;          //!< RequestInterval
    uint32_t m_requestQuantum;       //!< RequestQuantum
    uint32_t m_nTcs;                 //!< NumTrafficClasses
    UnroutableAction m_unroutable;   //!< UnroutableAction

    // Layout
    uint32_t m_index{0};                             //!< this leaf
    uint32_t m_leaves{0};                            //!< leaves in the fabric
    uint32_t m_portsPerLeaf{0};                      //!< host ports per leaf (VOQ layout)
    ClusterDescription m_cluster;                    //!< the cluster
    uint32_t m_hosts{0};                             //!< hosts in the cluster
    std::vector<Ptr<NetDevice>> m_hostDevs;          //!< host ports
    std::vector<Address> m_hostPeer;                 //!< destination address on each host port
    std::vector<int32_t> m_ifToPort;                 //!< ifIndex -> host port (-1: not a host port)
    std::vector<Ptr<CreditScheduler>> m_schedulers;  //!< per host port
    std::vector<Ptr<CellNetDevice>> m_fabric;        //!< fabric ports
    std::vector<Ptr<CellSpineSwitch>> m_fabricSpine; //!< spine behind each fabric port
    std::vector<uint8_t> m_spineStopped;   //!< per (dst leaf, spine): flow control says stop
    std::vector<uint32_t> m_dataLinks;     //!< scratch
    std::vector<uint32_t> m_controlLinks;  //!< scratch
    Ptr<SprayPolicy> m_sprayPolicy;        //!< spreads cells over the usable links
    std::unique_ptr<CellTransmitter> m_tx; //!< cells onto the fabric ports
    Ptr<VoqQueueDisc> m_voq;               //!< ingress buffer
    std::unique_ptr<VoqCreditRequester> m_requester; //!< credit requests of the VOQs
    std::unique_ptr<CellSegmenter> m_segmenter;      //!< cell arithmetic
    std::unique_ptr<EgressReassembly> m_egress;      //!< egress reassembly
    std::vector<EventId> m_reachEvents;              //!< reachability updates still due
    std::vector<int64_t> m_lastPause;                //!< per (host port, tc): last pause sent
    Ptr<UniformRandomVariable> m_rng;                //!< random spraying, request jitter
    bool m_draining{false};                          //!< Drain in progress
    Counters m_counters;                             //!< counters

    TracedCallback<uint32_t, Ptr<const Packet>> m_offeredTrace;        //!< packet from a host
    TracedCallback<uint32_t, Ptr<const Packet>> m_deliveredTrace;      //!< packet to a host
    TracedCallback<uint32_t, Ptr<const Packet>> m_dropTrace;           //!< packet dropped at leaf
    TracedCallback<uint32_t, Ptr<const Packet>> m_reassemblyDoneTrace; //!< reassembled
    TracedCallback<uint32_t, Ptr<const Packet>> m_reassemblyTimeoutTrace; //!< given up
    TracedCallback<const FabricCell&, uint32_t> m_cellDiscardTrace;       //!< cell thrown away
};

} // namespace ns3

#endif /* AI_FABRIC_SCHEDULED_LEAF_SWITCH_H */
