/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ethernet-switch.h"

#include "ecmp-load-balancing.h"
#include "load-balancing-policy.h"

#include "ns3/abort.h"
#include "ns3/ai-fabric-ns3-compat.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/hash.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EthernetSwitch");
NS_OBJECT_ENSURE_REGISTERED(EthernetSwitch);

namespace
{
/// IP protocol number of UDP.
constexpr uint8_t UDP_PROTOCOL = 17;
/// Bit times of one pause quantum.
constexpr uint64_t BITS_PER_QUANTUM = 512;
/// The policy each value of the deprecated LoadBalancing alias names, by value.
constexpr const char* ALIAS_POLICIES[] = {
    "ns3::EcmpLoadBalancing",
    "ns3::PacketSprayLoadBalancing",
    "ns3::AdaptiveLoadBalancing",
    "ns3::CongestionAwareLoadBalancing",
};
/// Default of the deprecated FlowletTableSize alias (another value is passed on to
/// the policy, as is a FlowletGap other than 0).
constexpr uint32_t ALIAS_FLOWLET_TABLE_SIZE = 4096;
/// Default of the HashBucketsPerPort alias.
constexpr uint32_t ALIAS_BUCKETS_PER_PORT = 64;
} // namespace

TypeId
EthernetSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EthernetSwitch")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<EthernetSwitch>()
            .AddAttribute("LoadBalancingPolicy",
                          "How a packet's egress is chosen among equal-cost ports: the "
                          "TypeId of a LoadBalancingPolicy (ns3::EcmpLoadBalancing, "
                          "ns3::PacketSprayLoadBalancing, ns3::AdaptiveLoadBalancing, "
                          "ns3::CongestionAwareLoadBalancing), created when the first port "
                          "is added; its own attributes are set with Config::SetDefault or "
                          "through GetLoadBalancingPolicy",
                          TypeIdValue(EcmpLoadBalancing::GetTypeId()),
                          MakeTypeIdAccessor(&EthernetSwitch::m_policyType),
                          MakeTypeIdChecker())
            .AddAttribute("LoadBalancing",
                          "Deprecated alias of LoadBalancingPolicy, kept for one release: "
                          "Ecmp, PacketSpray, Adaptive or CongestionAware choose "
                          "ns3::<value>LoadBalancing; any value but Ecmp (the default) "
                          "overrides LoadBalancingPolicy",
                          EnumValue(EthernetSwitch::ECMP),
                          ai_fabric::MakeEnumAccessor(&EthernetSwitch::m_loadBalancing),
                          MakeEnumChecker(EthernetSwitch::ECMP,
                                          "Ecmp",
                                          EthernetSwitch::PACKET_SPRAY,
                                          "PacketSpray",
                                          EthernetSwitch::ADAPTIVE,
                                          "Adaptive",
                                          EthernetSwitch::CONGESTION_AWARE,
                                          "CongestionAware"))
            .AddAttribute("FlowletGap",
                          "Deprecated alias of the policy's FlowletGap "
                          "(ns3::AdaptiveLoadBalancing and ns3::CongestionAwareLoadBalancing "
                          "choose per flowlet: a flow's packets keep the port of its first "
                          "while they come less than this apart; 0: per packet); a value "
                          "other than 0 is passed on to a policy that has the attribute",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&EthernetSwitch::m_flowletGap),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("FlowletTableSize",
                          "Deprecated alias of the policy's FlowletTableSize (flowlet table "
                          "entries; flows are hashed into it, a collision starts a new "
                          "flowlet); a value other than 4096 is passed on to a policy that "
                          "has the attribute",
                          UintegerValue(ALIAS_FLOWLET_TABLE_SIZE),
                          MakeUintegerAccessor(&EthernetSwitch::m_flowletTableSize),
                          MakeUintegerChecker<uint32_t>(1, 1 << 20))
            .AddAttribute("HashBucketsPerPort",
                          "Deprecated alias of ns3::EcmpLoadBalancing's HashBucketsPerPort "
                          "(resilient ECMP: buckets per port, 0 for none); a value other "
                          "than 64 is passed on to a policy that has the attribute",
                          UintegerValue(ALIAS_BUCKETS_PER_PORT),
                          MakeUintegerAccessor(&EthernetSwitch::m_bucketsPerPort),
                          MakeUintegerChecker<uint32_t>(0, 1 << 16))
            .AddAttribute("PfcWatchdog",
                          "PFC watchdog of every port (RoceNetDevice's attribute): a priority "
                          "paused for PfcWatchdogDetectionTime is in a storm, its pauses "
                          "ignored and its frames dropped until pauses stop for "
                          "PfcWatchdogRestorationTime (on, as SONiC's pfcwd)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&EthernetSwitch::m_watchdog),
                          MakeBooleanChecker())
            .AddAttribute("PfcWatchdogDetectionTime",
                          "PFC watchdog: a priority paused this long is in a storm (> 0; "
                          "200 ms, SONiC's pfcwd default)",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&EthernetSwitch::m_watchdogDetection),
                          MakeTimeChecker())
            .AddAttribute("PfcWatchdogRestorationTime",
                          "PFC watchdog: a storm clears after this long without a pause (> 0; "
                          "200 ms, SONiC's default)",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&EthernetSwitch::m_watchdogRestoration),
                          MakeTimeChecker())
            .AddAttribute("EcmpSeed",
                          "Seed of the ECMP hash (mixed with the node id, so switches "
                          "of one tier do not all hash alike, and with a salt drawn from "
                          "the switch's random stream, so that RngRun changes the "
                          "collisions)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&EthernetSwitch::m_ecmpSeed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EcnEnabled",
                          "Mark ECN-capable packets CE on egress queue depth",
                          BooleanValue(true),
                          MakeBooleanAccessor(&EthernetSwitch::m_ecnEnabled),
                          MakeBooleanChecker())
            // Kmin 100 KB, Kmax 400 KB, Pmax 0.2 per 25 Gb/s: the rate-scaled marking
            // of a widely used ns-3 RDMA simulator (reference-protocols, DCQCN).
            .AddAttribute("EcnKmin",
                          "Marking starts above this many bytes in the egress queue, for "
                          "a port of EcnReferenceRate",
                          UintegerValue(100000),
                          MakeUintegerAccessor(&EthernetSwitch::m_ecnKmin),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcnKmax",
                          "Every packet is marked above this many bytes, for a port of "
                          "EcnReferenceRate",
                          UintegerValue(400000),
                          MakeUintegerAccessor(&EthernetSwitch::m_ecnKmax),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcnPmax",
                          "Marking probability at Kmax",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&EthernetSwitch::m_ecnPmax),
                          MakeDoubleChecker<double>())
            .AddAttribute("EcnReferenceRate",
                          "Port rate that EcnKmin and EcnKmax are given for; a port's "
                          "thresholds scale with its rate / this rate",
                          DataRateValue(DataRate("25Gbps")),
                          MakeDataRateAccessor(&EthernetSwitch::m_ecnReferenceRate),
                          MakeDataRateChecker())
            .AddAttribute("PfcPauseQuanta",
                          "Pause time of the PFC frames sent, in quanta of 512 bit times "
                          "(repeated at half this time while congestion lasts; at least two "
                          "largest frames and PFC frames long)",
                          UintegerValue(0xffff),
                          MakeUintegerAccessor(&EthernetSwitch::m_pfcPauseQuanta),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("PfcHeadroom",
                          "Headroom per lossless (port, priority), bytes; 0 computes it "
                          "per port: 2 x rate x link delay + 3 largest frames + a PFC frame",
                          UintegerValue(0),
                          MakeUintegerAccessor(&EthernetSwitch::m_pfcHeadroom),
                          MakeUintegerChecker<uint64_t>())
            // The scheduled fabric's switches use the same default.
            .AddAttribute("LinkDetectionDelay",
                          "Time from a port's link failing (or recovering) until the switch "
                          "stops (or resumes) routing over it",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&EthernetSwitch::m_linkDetectionDelay),
                          MakeTimeChecker(Time(0)))
            // Assumption: a routing withdrawal (BGP) reaches the other leaves and
            // their forwarding tables within a millisecond.
            .AddAttribute("RouteWithdrawDelay",
                          "Time from this switch noticing a port's link go down (or up) "
                          "until the other switches have learnt it (routing convergence): "
                          "RouteAdvertise fires then, and EthernetClosHelper reroutes the "
                          "leaves",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&EthernetSwitch::m_routeWithdrawDelay),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Mmu",
                          "The shared-buffer MMU",
                          PointerValue(),
                          MakePointerAccessor(&EthernetSwitch::m_mmu),
                          MakePointerChecker<SharedBufferMmu>())
            .AddTraceSource("Enqueue",
                            "A packet was buffered: packet, egress port, priority",
                            MakeTraceSourceAccessor(&EthernetSwitch::m_enqueueTrace),
                            "ns3::EthernetSwitch::QueueTracedCallback")
            .AddTraceSource("Dequeue",
                            "A packet left the buffer for the wire: packet, egress port, "
                            "priority",
                            MakeTraceSourceAccessor(&EthernetSwitch::m_dequeueTrace),
                            "ns3::EthernetSwitch::QueueTracedCallback")
            .AddTraceSource("Drop",
                            "A packet was dropped: packet, ingress port, reason",
                            MakeTraceSourceAccessor(&EthernetSwitch::m_dropTrace),
                            "ns3::EthernetSwitch::DropTracedCallback")
            .AddTraceSource("EcnMark",
                            "A packet was marked CE: packet, egress port, queue bytes",
                            MakeTraceSourceAccessor(&EthernetSwitch::m_ecnMarkTrace),
                            "ns3::EthernetSwitch::EcnTracedCallback")
            .AddTraceSource("RouteAdvertise",
                            "The other switches have learnt a port's link state "
                            "(RouteWithdrawDelay after this switch noticed it): port, up",
                            MakeTraceSourceAccessor(&EthernetSwitch::m_advertiseTrace),
                            "ns3::EthernetSwitch::AdvertiseTracedCallback")
            .AddTraceSource("Pfc",
                            "The switch sent PFC: ingress port, priority, pause (true) or "
                            "resume (false)",
                            MakeTraceSourceAccessor(&EthernetSwitch::m_pfcTrace),
                            "ns3::EthernetSwitch::PfcTracedCallback");
    return tid;
}

EthernetSwitch::EthernetSwitch()
    : m_uniform(CreateObject<UniformRandomVariable>()),
      m_hashRng(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

EthernetSwitch::~EthernetSwitch() = default;

void
EthernetSwitch::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (auto& port : m_ports)
    {
        for (auto& event : port.refresh)
        {
            event.Cancel();
        }
        port.linkNotice.Cancel();
        port.advertise.Cancel();
        port.device = nullptr;
        for (auto& queue : port.queues)
        {
            queue.clear();
        }
    }
    m_ports.clear();
    m_mmu = nullptr;
    m_uniform = nullptr;
    m_hashRng = nullptr;
    if (m_policy)
    {
        m_policy->Dispose();
        m_policy = nullptr;
    }
    // Listeners may hold the switch's neighbours (EthernetClosHelper's routing).
    m_advertiseTrace = TracedCallback<uint32_t, bool>();
    Object::DoDispose();
}

void
EthernetSwitch::SetHostAddressing(Ipv4Address hostNetwork, uint32_t hosts)
{
    NS_LOG_FUNCTION(this << hostNetwork << hosts);
    NS_ABORT_MSG_IF(hosts == 0, "EthernetSwitch: hosts must be at least 1, got 0");
    m_hostNetwork = hostNetwork;
    m_hosts = hosts;
    m_routes.assign(hosts, Route{});
}

uint32_t
EthernetSwitch::AddPort(Ptr<RoceNetDevice> device, Time linkDelay)
{
    NS_LOG_FUNCTION(this << device << linkDelay);
    NS_ABORT_MSG_IF(!device, "EthernetSwitch: AddPort needs a device");
    NS_ABORT_MSG_IF(linkDelay.IsStrictlyNegative(),
                    "EthernetSwitch: link delay must not be negative, got " << linkDelay);
    NS_ABORT_MSG_IF(m_ecnKmax < m_ecnKmin,
                    "EthernetSwitch: EcnKmax (" << m_ecnKmax << ") must not be below EcnKmin ("
                                                << m_ecnKmin << ")");
    NS_ABORT_MSG_IF(m_ecnPmax < 0 || m_ecnPmax > 1,
                    "EthernetSwitch: EcnPmax must be in [0, 1], got " << m_ecnPmax);
    NS_ABORT_MSG_IF(m_ecnReferenceRate.GetBitRate() == 0,
                    "EthernetSwitch: EcnReferenceRate must be greater than 0");
    NS_ABORT_MSG_IF(!m_watchdogDetection.IsStrictlyPositive(),
                    "EthernetSwitch: PfcWatchdogDetectionTime " << m_watchdogDetection.As(Time::MS)
                                                                << " must be > 0");
    NS_ABORT_MSG_IF(!m_watchdogRestoration.IsStrictlyPositive(),
                    "EthernetSwitch: PfcWatchdogRestorationTime "
                        << m_watchdogRestoration.As(Time::MS) << " must be > 0");
    device->SetAttribute("PfcWatchdog", BooleanValue(m_watchdog));
    device->SetAttribute("PfcWatchdogDetectionTime", TimeValue(m_watchdogDetection));
    device->SetAttribute("PfcWatchdogRestorationTime", TimeValue(m_watchdogRestoration));
    if (!m_mmu)
    {
        m_mmu = CreateObject<SharedBufferMmu>();
    }
    if (!m_policy)
    {
        CreatePolicy();
    }
    const uint32_t index = static_cast<uint32_t>(m_ports.size());
    NS_ABORT_MSG_IF(!device->GetNode(), "EthernetSwitch: port " << index << " is on no node");
    m_nodeId = device->GetNode()->GetId();
    const uint32_t ifIndex = device->GetIfIndex();
    if (ifIndex >= m_portOfIfIndex.size())
    {
        m_portOfIfIndex.resize(ifIndex + 1, NO_PORT);
    }
    NS_ABORT_MSG_IF(m_portOfIfIndex[ifIndex] != NO_PORT,
                    "EthernetSwitch: interface " << ifIndex << " added twice");
    m_portOfIfIndex[ifIndex] = index;

    const uint64_t rate = device->GetDataRate().GetBitRate();
    const double scale =
        static_cast<double>(rate) / static_cast<double>(m_ecnReferenceRate.GetBitRate());
    Port port;
    port.device = device;
    port.ecnKmin = static_cast<uint64_t>(static_cast<double>(m_ecnKmin) * scale);
    port.ecnKmax = static_cast<uint64_t>(static_cast<double>(m_ecnKmax) * scale);
    const uint64_t maxFrame =
        device->GetMtu() + RoceNetDevice::ETHERNET_HEADER_BYTES + RoceNetDevice::WIRE_EXTRA_BYTES;
    // A pause is repeated at half its time; that half must fit the largest frame and
    // the PFC frame behind it, or repeats would crowd out the data.
    const uint64_t pauseBytes = uint64_t(m_pfcPauseQuanta) * BITS_PER_QUANTUM / 8;
    NS_ABORT_MSG_IF(pauseBytes < 2 * (maxFrame + RoceNetDevice::PFC_FRAME_WIRE_BYTES),
                    "EthernetSwitch: PfcPauseQuanta "
                        << m_pfcPauseQuanta << " is too short for port " << index << " (Mtu "
                        << device->GetMtu() << "): a pause must last at least "
                        << 2 * (maxFrame + RoceNetDevice::PFC_FRAME_WIRE_BYTES) << " byte times");
    port.pauseDuration = device->GetDataRate().CalculateBytesTxTime(pauseBytes);
    const uint64_t headroom =
        m_pfcHeadroom != 0 ? m_pfcHeadroom : device->GetPfcHeadroom(linkDelay);
    m_mmu->AddPort(headroom);
    m_ports.push_back(std::move(port));

    device->SetReceiveCallback(MakeCallback(&EthernetSwitch::Receive, this));
    device->AddLinkChangeCallback(MakeCallback(&EthernetSwitch::LinkChanged, this).Bind(index));
    for (uint8_t p = 0; p < RoceNetDevice::NUM_PRIORITIES; ++p)
    {
        device->SetQueuePullCallback(p, MakeCallback(&EthernetSwitch::Dequeue, this).Bind(index));
    }
    return index;
}

void
EthernetSwitch::SetRoute(uint32_t host, const std::vector<uint32_t>& ports)
{
    NS_LOG_FUNCTION(this << host << ports.size());
    NS_ABORT_MSG_IF(host >= m_hosts,
                    "EthernetSwitch: route for host " << host << " of " << m_hosts
                                                      << " (call SetHostAddressing first)");
    NS_ABORT_MSG_IF(ports.empty(), "EthernetSwitch: route for host " << host << " has no port");
    for (uint32_t p : ports)
    {
        NS_ABORT_MSG_IF(p >= m_ports.size(),
                        "EthernetSwitch: route for host " << host << " names port " << p << " of "
                                                          << m_ports.size());
    }
    m_routes[host].ports = ports;
    UpdateActive(m_routes[host]);
    m_policy->RouteSet(host, m_routes[host].active);
}

void
EthernetSwitch::UpdateActive(Route& route)
{
    route.active.clear();
    for (uint32_t p : route.ports)
    {
        if (m_ports[p].up)
        {
            route.active.push_back(p);
        }
    }
}

void
EthernetSwitch::CreatePolicy()
{
    NS_LOG_FUNCTION(this);
    TypeId type = m_policyType;
    if (m_loadBalancing != ECMP)
    {
        // The deprecated alias, when set, names the policy.
        type = TypeId::LookupByName(ALIAS_POLICIES[m_loadBalancing]);
    }
    NS_ABORT_MSG_IF(!type.IsChildOf(LoadBalancingPolicy::GetTypeId()) || !type.HasConstructor(),
                    "EthernetSwitch: LoadBalancingPolicy "
                        << type.GetName() << " is not a LoadBalancingPolicy that can be created");
    ObjectFactory factory;
    factory.SetTypeId(type);
    m_policy = factory.Create<LoadBalancingPolicy>();
    // The deprecated per-switch aliases of policy attributes, when set.
    if (!m_flowletGap.IsZero())
    {
        m_policy->SetAttributeFailSafe("FlowletGap", TimeValue(m_flowletGap));
    }
    if (m_flowletTableSize != ALIAS_FLOWLET_TABLE_SIZE)
    {
        m_policy->SetAttributeFailSafe("FlowletTableSize", UintegerValue(m_flowletTableSize));
    }
    if (m_bucketsPerPort != ALIAS_BUCKETS_PER_PORT)
    {
        m_policy->SetAttributeFailSafe("HashBucketsPerPort", UintegerValue(m_bucketsPerPort));
    }
    m_policy->Setup(this);
    NS_LOG_LOGIC("load balancing by " << type.GetName());
}

Ptr<LoadBalancingPolicy>
EthernetSwitch::GetLoadBalancingPolicy() const
{
    return m_policy;
}

void
EthernetSwitch::LinkChanged(uint32_t port)
{
    NS_LOG_FUNCTION(this << port);
    Port& p = m_ports[port];
    if (p.device->IsLinkUp())
    {
        // A pause sent while the wire was down was lost: say it again.
        for (uint8_t priority = 0; priority < RoceNetDevice::NUM_PRIORITIES; ++priority)
        {
            if (p.pausing[priority])
            {
                NS_LOG_LOGIC("port " << port << " up again: pause of priority " << +priority
                                     << " repeated");
                p.device->SendPfc(priority, m_pfcPauseQuanta);
            }
        }
    }
    m_ports[port].linkNotice.Cancel();
    m_ports[port].linkNotice =
        Simulator::Schedule(m_linkDetectionDelay, &EthernetSwitch::NoticeLink, this, port);
}

void
EthernetSwitch::NoticeLink(uint32_t port)
{
    NS_LOG_FUNCTION(this << port);
    const bool up = m_ports[port].device->IsLinkUp();
    if (up == m_ports[port].up)
    {
        return;
    }
    NS_LOG_INFO("port " << port << (up ? " up" : " down"));
    m_ports[port].up = up;
    for (uint32_t host = 0; host < m_routes.size(); ++host)
    {
        UpdateActive(m_routes[host]);
        m_policy->LivePortsChanged(host, m_routes[host].active);
    }
    if (!up)
    {
        FlushPort(port);
    }
    m_ports[port].advertise.Cancel();
    m_ports[port].advertise =
        Simulator::Schedule(m_routeWithdrawDelay, &EthernetSwitch::Advertise, this, port);
}

void
EthernetSwitch::FlushPort(uint32_t portIndex)
{
    NS_LOG_FUNCTION(this << portIndex);
    Port& port = m_ports[portIndex];
    for (uint8_t priority = 0; priority < RoceNetDevice::NUM_PRIORITIES; ++priority)
    {
        auto& queue = port.queues[priority];
        while (!queue.empty())
        {
            Entry entry = std::move(queue.front());
            queue.pop_front();
            m_mmu->Release(entry.inPort, portIndex, priority, entry.bytes);
            Drop(entry.packet, entry.inPort, DROP_LINK_DOWN, entry.bytes);
            if (m_ports[entry.inPort].pausing[priority])
            {
                CheckResume(entry.inPort, priority);
            }
        }
    }
}

void
EthernetSwitch::Advertise(uint32_t port)
{
    NS_LOG_FUNCTION(this << port);
    Port& p = m_ports[port];
    if (p.advertisedUp == p.up)
    {
        return;
    }
    p.advertisedUp = p.up;
    NS_LOG_LOGIC("port " << port << (p.up ? " advertised up" : " withdrawn from the routes"));
    m_advertiseTrace(port, p.up);
}

bool
EthernetSwitch::IsPortAdvertised(uint32_t port) const
{
    return CheckedPort(port).advertisedUp;
}

bool
EthernetSwitch::IsPortUp(uint32_t port) const
{
    return CheckedPort(port).up;
}

Time
EthernetSwitch::GetRouteWithdrawDelay() const
{
    return m_routeWithdrawDelay;
}

Time
EthernetSwitch::GetLinkDetectionDelay() const
{
    return m_linkDetectionDelay;
}

const std::vector<uint32_t>&
EthernetSwitch::GetRoute(uint32_t host) const
{
    NS_ABORT_MSG_IF(host >= m_hosts, "EthernetSwitch: no host " << host);
    return m_routes[host].ports;
}

uint32_t
EthernetSwitch::HashFlow(const uint8_t* head) const
{
    // Key: seed, node, source and destination address, protocol, and the UDP ports
    // when the IPv4 header has no options and carries UDP.
    uint8_t key[4 + 4 + 8 + 1 + 4] = {};
    const uint32_t node = m_nodeId;
    for (int i = 0; i < 4; ++i)
    {
        key[i] = static_cast<uint8_t>((m_ecmpSeed ^ m_hashSalt) >> (8 * i));
        key[4 + i] = static_cast<uint8_t>(node >> (8 * i));
    }
    std::copy(head + 12, head + 20, key + 8);
    key[16] = head[9];
    if ((head[0] & 0x0f) == 5 && head[9] == UDP_PROTOCOL)
    {
        std::copy(head + 20, head + 24, key + 17);
    }
    return Hash32(reinterpret_cast<const char*>(key), sizeof(key));
}

void
EthernetSwitch::SetPathView(const std::vector<Ptr<EthernetSwitch>>& spines,
                            const std::vector<uint32_t>& uplinkSpine,
                            const std::vector<std::vector<std::vector<uint32_t>>>& spineDown,
                            uint32_t hostsPerLeaf)
{
    NS_LOG_FUNCTION(this << spines.size() << hostsPerLeaf);
    if (!m_policy)
    {
        CreatePolicy();
    }
    m_policy->SetPathView(spines, uplinkSpine, spineDown, hostsPerLeaf);
}

uint32_t
EthernetSwitch::SelectPort(Ptr<const Packet> packet, uint32_t host)
{
    NS_LOG_FUNCTION(this << packet << host);
    NS_ABORT_MSG_IF(host >= m_hosts || m_routes[host].active.empty(),
                    "EthernetSwitch: no route to host " << host);
    uint8_t head[PARSED_BYTES] = {};
    packet->CopyData(head, sizeof(head));
    return ChoosePort(head, host);
}

uint32_t
EthernetSwitch::ChoosePort(const uint8_t* head, uint32_t host)
{
    if (!m_hashSaltDrawn)
    {
        // The salt follows the run (RngRun) and AssignStreams, so that runs differ in
        // their hash collisions as different deployments would.
        m_hashSalt = m_hashRng->GetInteger(0, UINT32_MAX - 1);
        m_hashSaltDrawn = true;
        NS_LOG_LOGIC("ECMP hash salt " << m_hashSalt);
    }
    const std::vector<uint32_t>& live = m_routes[host].active;
    if (live.size() == 1)
    {
        return live[0];
    }
    return m_policy->Choose(head, host, live);
}

bool
EthernetSwitch::Receive(Ptr<NetDevice> device,
                        Ptr<const Packet> packet,
                        uint16_t protocol,
                        const Address& /* from */)
{
    NS_LOG_FUNCTION(this << device << packet << protocol);
    const uint32_t inPort = m_portOfIfIndex[device->GetIfIndex()];
    const uint32_t bytes = packet->GetSize() + RoceNetDevice::ETHERNET_HEADER_BYTES;
    ++m_counters.receivedPackets;
    m_counters.receivedBytes += bytes;
    if (protocol != RoceNetDevice::IPV4_PROTOCOL || packet->GetSize() < 20)
    {
        Drop(packet, inPort, DROP_NO_ROUTE, bytes);
        return true;
    }
    // The parser reads the IPv4 header and the UDP ports once (missing bytes of a
    // packet shorter than that read as zero).
    uint8_t head[PARSED_BYTES] = {};
    packet->CopyData(head, sizeof(head));
    const uint32_t destination = static_cast<uint32_t>(head[16]) << 24 |
                                 static_cast<uint32_t>(head[17]) << 16 |
                                 static_cast<uint32_t>(head[18]) << 8 | head[19];
    // Host h has address hostNetwork + h + 1; anything else wraps to a large index.
    const uint32_t host = destination - m_hostNetwork.Get() - 1;
    if (host >= m_hosts || m_routes[host].active.empty())
    {
        Drop(packet, inPort, DROP_NO_ROUTE, bytes);
        return true;
    }
    const uint8_t priority = RoceNetDevice::PriorityFromDscp(head[1] >> 2);
    const uint32_t outPort = ChoosePort(head, host);
    switch (m_mmu->Admit(inPort, outPort, priority, bytes))
    {
    case SharedBufferMmu::ADMITTED:
        break;
    case SharedBufferMmu::DROP_EGRESS_LIMIT:
        Drop(packet, inPort, DROP_EGRESS_LIMIT, bytes);
        return true;
    case SharedBufferMmu::DROP_HEADROOM_FULL:
        Drop(packet, inPort, DROP_HEADROOM_FULL, bytes);
        return true;
    case SharedBufferMmu::DROP_BUFFER_FULL:
        Drop(packet, inPort, DROP_BUFFER_FULL, bytes);
        return true;
    }
    // The device hands each received packet to one receive callback, and the
    // channel copied it for this hop: nobody else holds it.
    Port& out = m_ports[outPort];
    out.queues[priority].push_back(Entry{ConstCast<Packet>(packet), inPort, bytes});
    NS_LOG_LOGIC("packet " << packet->GetUid() << " for host " << host << ": in port " << inPort
                           << ", out port " << outPort << ", priority " << +priority << ", "
                           << out.queues[priority].size() << " queued there");
    m_enqueueTrace(packet, outPort, priority);
    if (m_mmu->IsLossless(priority))
    {
        CheckPause(inPort, priority);
    }
    out.device->NotifyTxReady(priority);
    return true;
}

Ptr<Packet>
EthernetSwitch::Dequeue(uint32_t portIndex, uint8_t priority)
{
    NS_LOG_FUNCTION(this << portIndex << +priority);
    Port& port = m_ports[portIndex];
    auto& queue = port.queues[priority];
    if (queue.empty())
    {
        return nullptr;
    }
    Entry entry = std::move(queue.front());
    queue.pop_front();
    const uint64_t queueBytes = m_mmu->GetEgressBytes(portIndex, priority);
    m_mmu->Release(entry.inPort, portIndex, priority, entry.bytes);
    if (m_ecnEnabled && MaybeMarkEcn(entry, port, queueBytes))
    {
        NS_LOG_LOGIC("packet " << entry.packet->GetUid() << " marked CE at port " << portIndex
                               << " priority " << +priority << ", " << queueBytes << " B queued");
        ++m_counters.ecnMarked;
        m_ecnMarkTrace(entry.packet, portIndex, queueBytes);
    }
    ++m_counters.forwardedPackets;
    m_counters.forwardedBytes += entry.bytes;
    ++port.forwardedPackets;
    port.forwardedBytes += entry.bytes;
    m_dequeueTrace(entry.packet, portIndex, priority);
    if (m_ports[entry.inPort].pausing[priority])
    {
        CheckResume(entry.inPort, priority);
    }
    return entry.packet;
}

bool
EthernetSwitch::MaybeMarkEcn(Entry& entry, const Port& port, uint64_t queueBytes)
{
    if (queueBytes <= port.ecnKmin)
    {
        return false;
    }
    double probability = 1.0;
    if (queueBytes < port.ecnKmax)
    {
        probability = m_ecnPmax * static_cast<double>(queueBytes - port.ecnKmin) /
                      static_cast<double>(port.ecnKmax - port.ecnKmin);
    }
    uint8_t head[2];
    entry.packet->CopyData(head, sizeof(head));
    const uint8_t ecn = head[1] & 0x03;
    if (ecn != Ipv4Header::ECN_ECT0 && ecn != Ipv4Header::ECN_ECT1)
    {
        return false;
    }
    if (probability < 1.0 && m_uniform->GetValue() >= probability)
    {
        return false;
    }
    Ipv4Header ip;
    entry.packet->RemoveHeader(ip);
    ip.SetEcn(Ipv4Header::ECN_CE);
    ip.EnableChecksum();
    entry.packet->AddHeader(ip);
    return true;
}

void
EthernetSwitch::Drop(Ptr<const Packet> packet, uint32_t inPort, DropReason reason, uint32_t bytes)
{
    NS_LOG_FUNCTION(this << packet << inPort << reason << bytes);
    if (reason == DROP_NO_ROUTE)
    {
        ++m_counters.noRouteDrops;
        m_counters.noRouteDropBytes += bytes;
    }
    else if (reason == DROP_LINK_DOWN)
    {
        ++m_counters.linkDownDrops;
        m_counters.linkDownDropBytes += bytes;
    }
    else
    {
        ++m_counters.bufferDrops;
        m_counters.bufferDropBytes += bytes;
        if (reason == DROP_HEADROOM_FULL)
        {
            ++m_counters.headroomDrops;
        }
    }
    NS_LOG_LOGIC("packet " << packet->GetUid() << " (" << bytes << " B) from port " << inPort
                           << " dropped, reason " << reason);
    m_dropTrace(packet, inPort, reason);
}

void
EthernetSwitch::CheckPause(uint32_t portIndex, uint8_t priority)
{
    NS_LOG_FUNCTION(this << portIndex << +priority);
    Port& port = m_ports[portIndex];
    if (port.pausing[priority] || !m_mmu->IsOverPauseThreshold(portIndex, priority))
    {
        return;
    }
    NS_LOG_LOGIC("port " << portIndex << " priority " << +priority
                         << ": over the pause threshold, PFC pause");
    port.pausing[priority] = true;
    ++m_counters.pfcPauses;
    m_pfcTrace(portIndex, priority, true);
    SendPause(portIndex, priority);
}

void
EthernetSwitch::RefreshPause(uint32_t portIndex, uint8_t priority)
{
    NS_LOG_FUNCTION(this << portIndex << +priority);
    NS_LOG_LOGIC("port " << portIndex << " priority " << +priority << ": pause refreshed");
    ++m_counters.pfcPauseRefreshes;
    SendPause(portIndex, priority);
}

void
EthernetSwitch::SendPause(uint32_t portIndex, uint8_t priority)
{
    Port& port = m_ports[portIndex];
    port.device->SendPfc(priority, m_pfcPauseQuanta);
    port.refresh[priority] = Simulator::Schedule(port.pauseDuration / 2,
                                                 &EthernetSwitch::RefreshPause,
                                                 this,
                                                 portIndex,
                                                 priority);
}

void
EthernetSwitch::CheckResume(uint32_t portIndex, uint8_t priority)
{
    NS_LOG_FUNCTION(this << portIndex << +priority);
    if (!m_mmu->IsBelowResumeThreshold(portIndex, priority))
    {
        return;
    }
    Port& port = m_ports[portIndex];
    NS_LOG_LOGIC("port " << portIndex << " priority " << +priority
                         << ": below the resume threshold, PFC resume");
    port.pausing[priority] = false;
    port.refresh[priority].Cancel();
    ++m_counters.pfcResumes;
    port.device->SendPfc(priority, 0);
    m_pfcTrace(portIndex, priority, false);
}

uint32_t
EthernetSwitch::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

const EthernetSwitch::Port&
EthernetSwitch::CheckedPort(uint32_t port) const
{
    NS_ABORT_MSG_IF(port >= m_ports.size(),
                    "EthernetSwitch: no port " << port << " (" << m_ports.size() << " ports)");
    return m_ports[port];
}

Ptr<RoceNetDevice>
EthernetSwitch::GetPort(uint32_t port) const
{
    return CheckedPort(port).device;
}

Ptr<SharedBufferMmu>
EthernetSwitch::GetMmu() const
{
    return m_mmu;
}

const EthernetSwitch::Counters&
EthernetSwitch::GetCounters() const
{
    return m_counters;
}

uint64_t
EthernetSwitch::GetPortForwardedPackets(uint32_t port) const
{
    return CheckedPort(port).forwardedPackets;
}

uint64_t
EthernetSwitch::GetPortForwardedBytes(uint32_t port) const
{
    return CheckedPort(port).forwardedBytes;
}

uint32_t
EthernetSwitch::GetQueuePackets(uint32_t port, uint8_t priority) const
{
    NS_ABORT_MSG_IF(port >= m_ports.size() || priority >= RoceNetDevice::NUM_PRIORITIES,
                    "EthernetSwitch: no queue (" << port << ", " << unsigned(priority) << ")");
    return static_cast<uint32_t>(m_ports[port].queues[priority].size());
}

uint64_t
EthernetSwitch::GetPfcHeadroom(uint32_t port) const
{
    CheckedPort(port);
    return m_mmu->GetHeadroom(port);
}

bool
EthernetSwitch::IsPausingUpstream(uint32_t port, uint8_t priority) const
{
    NS_ABORT_MSG_IF(port >= m_ports.size() || priority >= RoceNetDevice::NUM_PRIORITIES,
                    "EthernetSwitch: no queue (" << port << ", " << unsigned(priority) << ")");
    return m_ports[port].pausing[priority];
}

int64_t
EthernetSwitch::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    m_uniform->SetStream(stream);
    m_hashRng->SetStream(stream + 1);
    m_hashSaltDrawn = false;
    return 2 + (m_policy ? m_policy->AssignStreams(stream + 2) : 0);
}

} // namespace ns3
