/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_ETHERNET_SWITCH_H
#define AI_FABRIC_ETHERNET_SWITCH_H

#include "shared-buffer-mmu.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/ring-queue.h"
#include "ns3/roce-net-device.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <array>
#include <vector>

namespace ns3
{

class LoadBalancingPolicy;
class UniformRandomVariable;

/**
 * \ingroup ai-fabric
 * \brief A store-and-forward, shared-buffer Ethernet switch of the standard Clos
 * (a leaf or a spine), whose ports are RoceNetDevices.
 *
 * - Forwarding: by IPv4 destination to a set of equal-cost egress ports (routes are
 *   dense per destination host). A LoadBalancingPolicy, chosen by the
 *   LoadBalancingPolicy attribute (a TypeId), picks one: EcmpLoadBalancing hashes the
 *   5-tuple (addresses, protocol, UDP ports; RoCEv2 puts per-queue-pair entropy in
 *   the UDP source port) with a per-switch seed, so a flow keeps one path;
 *   PacketSprayLoadBalancing deals packets round robin over the set;
 *   AdaptiveLoadBalancing sends each packet (or flowlet) to the port of the set with
 *   the fewest bytes queued (ties go to the hashed port);
 *   CongestionAwareLoadBalancing also weighs the spine's queue towards the
 *   destination's leaf. The switch creates the policy when its first port is added
 *   and never asks which one it holds (see LoadBalancingPolicy for what it offers).
 * - Deprecated aliases (for one release): the LoadBalancing attribute (Ecmp,
 *   PacketSpray, Adaptive, CongestionAware; EnumValue(EthernetSwitch::PACKET_SPRAY)
 *   and the like) chooses the policy of that name when set to anything other than
 *   Ecmp, overriding LoadBalancingPolicy; FlowletGap, FlowletTableSize and
 *   HashBucketsPerPort, when set to anything other than their defaults, set the
 *   policy's attribute of that name (where the policy has it), overriding the
 *   policy's own default.
 * - Buffering: a SharedBufferMmu admits or drops each packet; queues are per
 *   (egress port, priority), served by the port in strict priority through its pull
 *   model, so the MMU sees every byte leave.
 * - PFC: when an ingress (port, lossless priority) passes its MMU threshold the
 *   switch sends a pause with PfcPauseQuanta on that port, repeats it while the
 *   condition lasts, and sends a resume (quanta 0) when the MMU says so.
 * - ECN: when a packet leaves, if it is ECN-capable it is marked CE with a RED-like
 *   probability on the bytes of its egress queue: 0 up to Kmin, Pmax (q - Kmin) /
 *   (Kmax - Kmin) up to Kmax, 1 above. Thresholds are given for a port of
 *   EcnReferenceRate and scale linearly with each port's rate.
 * - Links: LinkDetectionDelay after a port's link goes down (up), the switch stops
 *   (resumes) routing over it, dropping what it had queued for it, and
 *   RouteWithdrawDelay later it advertises the change (RouteAdvertise), which
 *   EthernetClosHelper uses to reroute the leaves. Pauses still in force are sent
 *   again when a link comes back.
 */
class EthernetSwitch : public Object
{
  public:
    /**
     * Deprecated (kept for one release): values of the LoadBalancing attribute, an
     * alias of LoadBalancingPolicy. Each names a policy; any value but ECMP chooses
     * that policy over LoadBalancingPolicy.
     */
    enum LoadBalancing
    {
        ECMP,             //!< ns3::EcmpLoadBalancing (per-flow hash of the 5-tuple)
        PACKET_SPRAY,     //!< ns3::PacketSprayLoadBalancing (per-packet round robin)
        ADAPTIVE,         //!< ns3::AdaptiveLoadBalancing (least-queued port)
        CONGESTION_AWARE, //!< ns3::CongestionAwareLoadBalancing (own and the spine's queue)
    };

    /// Bytes of an IPv4 + UDP header that the parser reads (the head a policy sees).
    static constexpr uint32_t PARSED_BYTES = 28;

    /// Why a packet was not forwarded.
    enum DropReason
    {
        DROP_NO_ROUTE,      //!< destination unknown or no port towards it
        DROP_EGRESS_LIMIT,  //!< lossy priority over its egress threshold
        DROP_HEADROOM_FULL, //!< lossless priority beyond its PFC headroom
        DROP_BUFFER_FULL,   //!< shared buffer exhausted
        DROP_LINK_DOWN,     //!< queued for a port whose link went down (flushed)
    };

    /// Counters (never reset).
    struct Counters
    {
        uint64_t receivedPackets{0};   //!< packets received on any port
        uint64_t receivedBytes{0};     //!< their frame bytes
        uint64_t forwardedPackets{0};  //!< packets sent out of a port
        uint64_t forwardedBytes{0};    //!< their frame bytes
        uint64_t noRouteDrops{0};      //!< packets without a route
        uint64_t noRouteDropBytes{0};  //!< their frame bytes
        uint64_t bufferDrops{0};       //!< packets refused by the MMU (all reasons)
        uint64_t bufferDropBytes{0};   //!< their frame bytes
        uint64_t headroomDrops{0};     //!< of which lossless packets beyond the headroom
        uint64_t ecnMarked{0};         //!< packets marked CE
        uint64_t pfcPauses{0};         //!< pauses sent because a threshold was crossed
        uint64_t pfcPauseRefreshes{0}; //!< pauses repeated while still congested
        uint64_t pfcResumes{0};        //!< resumes sent
        uint64_t linkDownDrops{0};     //!< packets flushed from ports whose link went down
        uint64_t linkDownDropBytes{0}; //!< their frame bytes
    };

    /// TracedCallback signature for Enqueue and Dequeue: (packet, egress port, priority).
    typedef void (*QueueTracedCallback)(Ptr<const Packet> packet, uint32_t port, uint8_t priority);
    /// TracedCallback signature for Drop: (packet, ingress port, reason).
    typedef void (*DropTracedCallback)(Ptr<const Packet> packet,
                                       uint32_t inPort,
                                       DropReason reason);
    /// TracedCallback signature for EcnMark: (packet, egress port, egress queue bytes).
    typedef void (*EcnTracedCallback)(Ptr<const Packet> packet, uint32_t port, uint64_t bytes);
    /// TracedCallback signature for Pfc: (ingress port, priority, true for a pause).
    typedef void (*PfcTracedCallback)(uint32_t port, uint8_t priority, bool pause);
    /// TracedCallback signature for RouteAdvertise: (port, up).
    typedef void (*AdvertiseTracedCallback)(uint32_t port, bool up);

    /// \return the TypeId
    static TypeId GetTypeId();
    EthernetSwitch();
    ~EthernetSwitch() override;

    /**
     * Size the route table; call once before adding routes.
     * \param hostNetwork first address of the host block (host h is hostNetwork + h + 1)
     * \param hosts number of hosts
     */
    void SetHostAddressing(Ipv4Address hostNetwork, uint32_t hosts);

    /**
     * Add a port. The switch registers itself as the port's receive callback and
     * as its pull source for every priority.
     * \param device the port (attached to its wire, on the switch's node)
     * \param linkDelay propagation delay of its wire (sizes the PFC headroom)
     * \return the port index (dense, from 0)
     */
    uint32_t AddPort(Ptr<RoceNetDevice> device, Time linkDelay);

    /**
     * Route a destination host over a set of equal-cost ports.
     * \param host dense host index
     * \param ports port indices (at least one)
     */
    void SetRoute(uint32_t host, const std::vector<uint32_t>& ports);

    /// \return the number of ports
    uint32_t GetNPorts() const;
    /// \param host dense host index \return its equal-cost ports (empty: no route)
    const std::vector<uint32_t>& GetRoute(uint32_t host) const;
    /// \param port index \return the device
    Ptr<RoceNetDevice> GetPort(uint32_t port) const;
    /// \return the MMU
    Ptr<SharedBufferMmu> GetMmu() const;
    /// \return the counters
    const Counters& GetCounters() const;
    /// \param port index \return packets sent out of that port
    uint64_t GetPortForwardedPackets(uint32_t port) const;
    /// \param port index \return frame bytes sent out of that port
    uint64_t GetPortForwardedBytes(uint32_t port) const;
    /// \param port index \param priority 0..7 \return frames queued there
    uint32_t GetQueuePackets(uint32_t port, uint8_t priority) const;
    /// \param port ingress port \return PFC headroom reserved per lossless priority
    uint64_t GetPfcHeadroom(uint32_t port) const;
    /// \param port index \return whether the switch routes over it (its link is up,
    /// and the switch has noticed)
    bool IsPortUp(uint32_t port) const;
    /// \param port index \return whether the other switches have learnt that the
    /// port is up (its state RouteWithdrawDelay after the switch noticed it)
    bool IsPortAdvertised(uint32_t port) const;
    /// \return how long after losing its last link to a leaf the other leaves stop
    /// sending that leaf's traffic through this switch (RouteWithdrawDelay)
    Time GetRouteWithdrawDelay() const;
    /// \return how long the switch takes to notice a link change (LinkDetectionDelay)
    Time GetLinkDetectionDelay() const;
    /// \param port ingress port \param priority 0..7 \return whether we pause the upstream
    bool IsPausingUpstream(uint32_t port, uint8_t priority) const;

    /**
     * Choose the egress port of a packet to a routed host, as forwarding does (the
     * policy's state moves as it would: a PacketSprayLoadBalancing call advances the
     * host's round-robin cursor).
     * \param packet an IPv4 packet \param host its destination host (routed)
     * \return one of the host's equal-cost ports
     */
    uint32_t SelectPort(Ptr<const Packet> packet, uint32_t host);

    /**
     * What a leaf knows of congestion further along its paths, passed on to its
     * load-balancing policy (CongestionAwareLoadBalancing uses it, the others ignore
     * it): for each of its ports, the spine it leads to (or none), and each spine's
     * ports towards every leaf. Creates the policy if no port was added yet.
     * \param spines the spines \param uplinkSpine per port: the spine, or UINT32_MAX
     * \param spineDown spineDown[s][l]: spine s's ports towards leaf l
     * \param hostsPerLeaf hosts of a leaf (host h is on leaf h / hostsPerLeaf)
     */
    void SetPathView(const std::vector<Ptr<EthernetSwitch>>& spines,
                     const std::vector<uint32_t>& uplinkSpine,
                     const std::vector<std::vector<std::vector<uint32_t>>>& spineDown,
                     uint32_t hostsPerLeaf);

    /// \return the load-balancing policy (null until the first port is added)
    Ptr<LoadBalancingPolicy> GetLoadBalancingPolicy() const;

    /**
     * The 5-tuple hash of a packet (addresses, protocol, and the UDP ports when the
     * IPv4 header has no options and carries UDP) with this switch's seed (EcmpSeed,
     * the node id and the run's salt), for load-balancing policies.
     * \param head the first PARSED_BYTES of an IPv4 packet
     * \return the hash
     */
    uint32_t HashFlow(const uint8_t* head) const;

    /**
     * Bytes queued for a port (all priorities), for load-balancing policies.
     * \param port index (not checked: a policy passes ports of a route)
     * \return the MMU's egress bytes of the port
     */
    uint64_t GetEgressQueueBytes(uint32_t port) const
    {
        return m_mmu->GetEgressPortBytes(port);
    }

    /**
     * Fix the random streams of ECN marking and of the ECMP hash salt, then the
     * policy's (if it exists already).
     * \param stream first stream \return streams used (2 and the policy's)
     */
    int64_t AssignStreams(int64_t stream);

  protected:
    /// Cancel the port events, release the devices, queues, MMU and random streams, and drop the
    /// advertisement listeners.
    void DoDispose() override;

  private:
    /// Create the load-balancing policy from the attributes (once).
    void CreatePolicy();
    /// No port: an interface of the node that is not a switch port.
    static constexpr uint32_t NO_PORT = 0xffffffff;

    /// A buffered packet.
    struct Entry
    {
        Ptr<Packet> packet; //!< IPv4 packet
        uint32_t inPort;    //!< ingress port (for MMU release)
        uint32_t bytes;     //!< frame bytes charged
    };

    /// Equal-cost ports towards one host.
    struct Route
    {
        std::vector<uint32_t> ports;  //!< port indices, as configured
        std::vector<uint32_t> active; //!< those the switch knows to be up
    };

    /// One port.
    struct Port
    {
        Ptr<RoceNetDevice> device;                                          //!< the port
        std::array<RingQueue<Entry>, RoceNetDevice::NUM_PRIORITIES> queues; //!< by priority
        uint64_t ecnKmin{0};                                                //!< scaled Kmin
        uint64_t ecnKmax{0};                                                //!< scaled Kmax
        Time pauseDuration;                                                 //!< of one pause frame
        std::array<bool, RoceNetDevice::NUM_PRIORITIES> pausing{};    //!< we pause the upstream
        std::array<EventId, RoceNetDevice::NUM_PRIORITIES> refresh{}; //!< pause repeats
        uint64_t forwardedPackets{0};                                 //!< sent out
        uint64_t forwardedBytes{0};                                   //!< their bytes
        bool up{true};           //!< the switch routes over it (link up and noticed)
        EventId linkNotice;      //!< the switch notices a link change
        bool advertisedUp{true}; //!< what the routing protocol has told the others
        EventId advertise;       //!< the others learn of a change
    };

    /// \param port index \return the port (stops if there is none)
    const Port& CheckedPort(uint32_t port) const;
    /// A port's link changed state: notice it after LinkDetectionDelay. \param port index
    void LinkChanged(uint32_t port);
    /// Act on a port's link state: route over it or not. \param port index
    void NoticeLink(uint32_t port);
    /// Drop, release and count every packet queued for a port. \param port index
    void FlushPort(uint32_t port);
    /// Tell the routing protocol (the RouteAdvertise trace) a port's state.
    /// \param port index
    void Advertise(uint32_t port);
    /// Recompute a route's usable ports. \param route the route
    void UpdateActive(Route& route);

    /**
     * Receive callback of every port: route, admit to the MMU and queue, or drop.
     * \param device the ingress port's device
     * \param packet the IPv4 packet
     * \param protocol the EtherType (unused)
     * \param from the sender's address (unused)
     * \return true: the packet is consumed, queued or dropped
     */
    bool Receive(Ptr<NetDevice> device,
                 Ptr<const Packet> packet,
                 uint16_t protocol,
                 const Address& from);
    /**
     * Pull callback of every port.
     * \param port index \param priority 0..7
     * \return the next packet of that queue (ECN-marked as it leaves), or null
     */
    Ptr<Packet> Dequeue(uint32_t port, uint8_t priority);
    /**
     * Drop with counting and trace.
     * \param packet the packet \param inPort its ingress port
     * \param reason why \param bytes its frame bytes
     */
    void Drop(Ptr<const Packet> packet, uint32_t inPort, DropReason reason, uint32_t bytes);
    /// Send or repeat a pause when an ingress is over its threshold.
    /// \param port the ingress port \param priority 0..7
    void CheckPause(uint32_t port, uint8_t priority);
    /// Send a pause on a port and schedule its repeat at half its duration.
    /// \param port the ingress port \param priority 0..7
    void SendPause(uint32_t port, uint8_t priority);
    /// Repeat a pause while the ingress stays over its threshold.
    /// \param port the ingress port \param priority 0..7
    void RefreshPause(uint32_t port, uint8_t priority);
    /// Send a resume when an ingress drains below its resume threshold.
    /// \param port the ingress port \param priority 0..7
    void CheckResume(uint32_t port, uint8_t priority);
    /**
     * Mark an ECN-capable packet CE with the RED-like probability.
     * \param entry the packet leaving \param port its egress port (Kmin, Kmax)
     * \param queueBytes the egress queue's bytes as it leaves
     * \return true if marked
     */
    bool MaybeMarkEcn(Entry& entry, const Port& port, uint64_t queueBytes);
    /// \param head the first PARSED_BYTES of an IPv4 packet \param host its routed
    /// destination \return the egress port
    uint32_t ChoosePort(const uint8_t* head, uint32_t host);

    Ipv4Address m_hostNetwork;             //!< host block
    uint32_t m_hosts{0};                   //!< hosts routed
    std::vector<Route> m_routes;           //!< by destination host
    std::vector<Port> m_ports;             //!< by index
    std::vector<uint32_t> m_portOfIfIndex; //!< node interface -> port
    uint32_t m_nodeId{0};                  //!< mixed into the ECMP hash
    TypeId m_policyType;                   //!< LoadBalancingPolicy
    Ptr<LoadBalancingPolicy> m_policy;     //!< chooses among equal-cost ports
    LoadBalancing m_loadBalancing{ECMP};   //!< LoadBalancing (deprecated alias)
    Time m_flowletGap;                     //!< FlowletGap (deprecated alias)
    uint32_t m_flowletTableSize{0};        //!< FlowletTableSize (deprecated alias)
    uint32_t m_bucketsPerPort{0};          //!< HashBucketsPerPort (deprecated alias)
    bool m_watchdog;                       //!< PfcWatchdog of the ports
    Time m_watchdogDetection;              //!< PfcWatchdogDetectionTime of the ports
    Time m_watchdogRestoration;            //!< PfcWatchdogRestorationTime of the ports
    Ptr<SharedBufferMmu> m_mmu;            //!< buffer
    Ptr<UniformRandomVariable> m_uniform;  //!< ECN draws
    Ptr<UniformRandomVariable> m_hashRng;  //!< draws the ECMP hash salt
    uint32_t m_hashSalt{0};                //!< mixed into the ECMP hash with EcmpSeed
    bool m_hashSaltDrawn{false};           //!< m_hashSalt drawn from m_hashRng
    uint32_t m_ecmpSeed{0};                //!< hash seed
    bool m_ecnEnabled{true};               //!< ECN marking on
    uint64_t m_ecnKmin{0};                 //!< Kmin at the reference rate
    uint64_t m_ecnKmax{0};                 //!< Kmax at the reference rate
    double m_ecnPmax{0};                   //!< Pmax
    DataRate m_ecnReferenceRate;           //!< rate the thresholds are given for
    uint16_t m_pfcPauseQuanta{0xffff};     //!< quanta of a pause frame
    uint64_t m_pfcHeadroom{0};             //!< fixed headroom (0: from the link)
    Time m_linkDetectionDelay;             //!< noticing a link change
    Time m_routeWithdrawDelay;             //!< routing convergence after a withdrawal
    Counters m_counters;                   //!< counters

    /// Packet buffered: packet, egress port, priority.
    TracedCallback<Ptr<const Packet>, uint32_t, uint8_t> m_enqueueTrace;
    /// Packet left the buffer for the wire: packet, egress port, priority.
    TracedCallback<Ptr<const Packet>, uint32_t, uint8_t> m_dequeueTrace;
    /// Packet dropped: packet, ingress port, reason.
    TracedCallback<Ptr<const Packet>, uint32_t, DropReason> m_dropTrace;
    /// Packet marked CE: packet, egress port, egress queue bytes.
    TracedCallback<Ptr<const Packet>, uint32_t, uint64_t> m_ecnMarkTrace;
    /// PFC sent by this switch: ingress port, priority, true for a pause, false for a resume.
    TracedCallback<uint32_t, uint8_t, bool> m_pfcTrace;
    /// The others have learnt a port's state: port, up.
    TracedCallback<uint32_t, bool> m_advertiseTrace;
};

} // namespace ns3

#endif /* AI_FABRIC_ETHERNET_SWITCH_H */
