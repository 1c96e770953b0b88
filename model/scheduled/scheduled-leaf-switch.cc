/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "scheduled-leaf-switch.h"

#include "cell-net-device.h"
#include "cell-spine-switch.h"
#include "cell-transmitter.h"
#include "credit-scheduler.h"
#include "egress-reassembly.h"
#include "round-robin-spray.h"
#include "spray-policy.h"
#include "voq-credit-requester.h"
#include "voq-queue-disc-item.h"
#include "voq-queue-disc.h"

#include "ns3/abort.h"
#include "ns3/ai-fabric-ns3-compat.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/queue-item.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ScheduledLeafSwitch");

NS_OBJECT_ENSURE_REGISTERED(ScheduledLeafSwitch);

TypeId
ScheduledLeafSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ScheduledLeafSwitch")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<ScheduledLeafSwitch>()
            // Jericho2/Ramon-class fabrics move variable-size cells of up to 256
            // payload bytes (public Broadcom DNX product briefs).
            .AddAttribute("CellPayload",
                          "Packet bytes carried per cell (at least 1)",
                          UintegerValue(256),
                          MakeUintegerAccessor(&ScheduledLeafSwitch::m_cellPayload),
                          MakeUintegerChecker<uint32_t>())
            // Assumption: a 16-byte cell header (destination, source, sequence,
            // offset, type), in the range of published cell formats.
            .AddAttribute("CellHeader",
                          "Header bytes per cell (below the cell's payload)",
                          UintegerValue(16),
                          MakeUintegerAccessor(&ScheduledLeafSwitch::m_cellHeader),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("CellSize",
                          "Whole cell size, header included; if not 0 it overrides "
                          "CellPayload (CellPayload = CellSize - CellHeader)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&ScheduledLeafSwitch::m_cellSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("VariableLastCell",
                          "The last cell of a packet carries only its remaining bytes "
                          "(false: every cell is padded to CellPayload)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&ScheduledLeafSwitch::m_variableLastCell),
                          MakeBooleanChecker())
            // Assumption: a control cell is a minimum-size 64-byte cell.
            .AddAttribute("ControlCellSize",
                          "Bytes a credit request or grant occupies on a fabric link",
                          UintegerValue(64),
                          MakeUintegerAccessor(&ScheduledLeafSwitch::m_controlCellBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("SprayPolicy",
                          "How cells are spread over the fabric links: the TypeId of a "
                          "SprayPolicy (ns3::RoundRobinSpray, ns3::RandomSpray, "
                          "ns3::LeastLoadedSpray)",
                          TypeIdValue(RoundRobinSpray::GetTypeId()),
                          MakeTypeIdAccessor(&ScheduledLeafSwitch::m_sprayPolicyType),
                          MakeTypeIdChecker())
            // Assumption: a fabric port's transmit FIFO holds a few tens of cells;
            // the backlog beyond stays in the VOQs.
            .AddAttribute("FabricPortQueueLimit",
                          "Bytes of cells a fabric port may queue; a packet's cells wait "
                          "for room, and the VOQs towards a leaf wait while no usable port "
                          "towards it has room (at least two full cells)",
                          UintegerValue(8192),
                          MakeUintegerAccessor(&ScheduledLeafSwitch::m_fabricPortQueueLimit),
                          MakeUintegerChecker<uint64_t>(1))
            // Grants and requests are paced or coalesced: a few fit between data
            // cells.
            .AddAttribute("ControlCellReserve",
                          "Control cells of room data cells leave in each fabric port's "
                          "queue limit, so that limit holds for control cells too",
                          UintegerValue(4),
                          MakeUintegerAccessor(&ScheduledLeafSwitch::m_controlReserveCells),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ReassemblyTimeout",
                          "Time a packet may wait incomplete at the head of its source's "
                          "reorder buffer before it is dropped",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&ScheduledLeafSwitch::m_reassemblyTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("ReorderWindow",
                          "Packets per source leaf the reorder buffer can hold (0: every "
                          "packet that can be on its way at once, as SetSpineQueueLimit "
                          "computes; buffers grow only as far as reordering needs)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&ScheduledLeafSwitch::m_reorderWindow),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("LinkDetectionDelay",
                          "Time from a fabric link failing (or recovering) until the leaf "
                          "stops (or resumes) spraying on it",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&ScheduledLeafSwitch::m_detectionDelay),
                          MakeTimeChecker(Time(0)))
            // Default: every credit travels in its own control cell (ControlCellSize /
            // CreditSize = 6.25% of the granted bytes with the defaults). Batching
            // saves fabric capacity but releases credit in bursts.
            .AddAttribute("GrantBatch",
                          "Credit bytes one grant control cell collects before it is sent (a "
                          "VOQ whose demand is fully granted gets its cell at once); 1: one "
                          "cell per grant",
                          UintegerValue(1),
                          MakeUintegerAccessor(&ScheduledLeafSwitch::m_grantBatch),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RequestInterval",
                          "A VOQ sends at most one credit request per interval (requests "
                          "are cumulative, so later ones cover the bytes in between)",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&ScheduledLeafSwitch::m_requestInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("CreditTimeout",
                          "After a link failure, a VOQ that has waited this long for credit "
                          "asks again (its request or grant may have been lost)",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&ScheduledLeafSwitch::m_creditTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RequestJitter",
                          "Largest random extra delay of a coalesced credit request, and of "
                          "the first request of a VOQ that just became busy",
                          TimeValue(NanoSeconds(200)),
                          MakeTimeAccessor(&ScheduledLeafSwitch::m_requestJitter),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RequestQuantum",
                          "A VOQ sends a credit request at once, whatever RequestInterval "
                          "says, when this many bytes are unreported",
                          UintegerValue(64 * 1024),
                          MakeUintegerAccessor(&ScheduledLeafSwitch::m_requestQuantum),
                          MakeUintegerChecker<uint32_t>(1))
            // Eight traffic classes (VOQs) per egress port, as Jericho-family devices.
            .AddAttribute("NumTrafficClasses",
                          "Traffic classes (VOQs per egress port); class = min(DSCP >> 3, "
                          "NumTrafficClasses - 1)",
                          UintegerValue(8),
                          MakeUintegerAccessor(&ScheduledLeafSwitch::m_nTcs),
                          MakeUintegerChecker<uint32_t>(1, 8))
            .AddAttribute("PfcRefresh",
                          "While a host port is paused and frames still arrive from it, "
                          "repeat the pause at most this often",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&ScheduledLeafSwitch::m_pfcRefresh),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("UnroutableAction",
                          "What to do with a packet for an address outside the cluster",
                          EnumValue(ScheduledLeafSwitch::ABORT),
                          ai_fabric::MakeEnumAccessor(&ScheduledLeafSwitch::m_unroutable),
                          MakeEnumChecker(ScheduledLeafSwitch::ABORT,
                                          "Abort",
                                          ScheduledLeafSwitch::DROP,
                                          "Drop"))
            .AddTraceSource("Offered",
                            "A packet arrived from a host port (port, packet)",
                            MakeTraceSourceAccessor(&ScheduledLeafSwitch::m_offeredTrace),
                            "ns3::ScheduledLeafSwitch::PacketTracedCallback")
            .AddTraceSource("Delivered",
                            "A packet was sent on a host port (port, packet)",
                            MakeTraceSourceAccessor(&ScheduledLeafSwitch::m_deliveredTrace),
                            "ns3::ScheduledLeafSwitch::PacketTracedCallback")
            .AddTraceSource("Drop",
                            "A packet was dropped at this leaf: no route, VOQ buffer full, or "
                            "refused by the host port (port, packet)",
                            MakeTraceSourceAccessor(&ScheduledLeafSwitch::m_dropTrace),
                            "ns3::ScheduledLeafSwitch::PacketTracedCallback")
            .AddTraceSource("ReassemblyDone",
                            "A packet was reassembled (source leaf, packet)",
                            MakeTraceSourceAccessor(&ScheduledLeafSwitch::m_reassemblyDoneTrace),
                            "ns3::ScheduledLeafSwitch::ReassemblyTracedCallback")
            .AddTraceSource(
                "ReassemblyTimeout",
                "A packet was given up at reassembly (source leaf, packet or null if no "
                "cell of it arrived)",
                MakeTraceSourceAccessor(&ScheduledLeafSwitch::m_reassemblyTimeoutTrace),
                "ns3::ScheduledLeafSwitch::ReassemblyTracedCallback")
            .AddTraceSource("CellDiscard",
                            "A data cell was discarded at reassembly (cell, reason: 0 beyond "
                            "the reorder window, 1 late, 2 duplicate)",
                            MakeTraceSourceAccessor(&ScheduledLeafSwitch::m_cellDiscardTrace),
                            "ns3::ScheduledLeafSwitch::CellDiscardTracedCallback");
    return tid;
}

ScheduledLeafSwitch::ScheduledLeafSwitch()
{
    NS_LOG_FUNCTION(this);
    m_rng = CreateObject<UniformRandomVariable>();
}

ScheduledLeafSwitch::~ScheduledLeafSwitch()
{
}

void
ScheduledLeafSwitch::DoDispose()
{
    NS_LOG_FUNCTION(this);
    if (m_egress)
    {
        m_egress->Cancel();
    }
    if (m_requester)
    {
        m_requester->Cancel();
    }
    if (m_tx)
    {
        m_tx->Cancel();
    }
    for (auto& e : m_reachEvents)
    {
        e.Cancel();
    }
    m_hostDevs.clear();
    m_schedulers.clear();
    m_fabric.clear();
    m_fabricSpine.clear();
    m_voq = nullptr;
    m_rng = nullptr;
    if (m_sprayPolicy)
    {
        m_sprayPolicy->Dispose();
        m_sprayPolicy = nullptr;
    }
    Object::DoDispose();
}

void
ScheduledLeafSwitch::Setup(const ClusterDescription& cluster, uint32_t index, Ptr<VoqQueueDisc> voq)
{
    NS_LOG_FUNCTION(this << index << voq);
    NS_ABORT_MSG_IF(cluster.leaves == 0, "ScheduledLeafSwitch: leaves must be at least 1, got 0");
    NS_ABORT_MSG_IF(cluster.spines == 0, "ScheduledLeafSwitch: spines must be at least 1, got 0");
    cluster.Validate();
    NS_ABORT_MSG_IF(index >= cluster.leaves,
                    "ScheduledLeafSwitch: leaf index " << index << " out of range");
    if (m_cellSize != 0)
    {
        NS_ABORT_MSG_IF(m_cellHeader >= m_cellSize,
                        "CellHeader=" << m_cellHeader
                                      << " must be smaller than CellSize=" << m_cellSize);
        m_cellPayload = m_cellSize - m_cellHeader;
    }
    NS_ABORT_MSG_IF(m_cellPayload < 1, "CellPayload must be at least 1 byte, got CellPayload=0");
    // A cell fabric's header is a small fraction of its cell; one as large as the
    // payload is a mistyped value, not a design.
    NS_ABORT_MSG_IF(m_cellHeader >= m_cellPayload,
                    "CellHeader=" << m_cellHeader
                                  << " must be smaller than CellPayload=" << m_cellPayload);
    const uint64_t smallestQueue =
        2 * uint64_t{m_cellPayload + m_cellHeader} + m_controlReserveCells * m_controlCellBytes;
    NS_ABORT_MSG_IF(m_fabricPortQueueLimit < smallestQueue,
                    "FabricPortQueueLimit="
                        << m_fabricPortQueueLimit << " must hold at least two full cells and "
                        << m_controlReserveCells << " control cells (" << smallestQueue << " B)");
    NS_ABORT_MSG_IF(cluster.leaves > std::numeric_limits<uint16_t>::max() ||
                        cluster.hostsPerLeaf > std::numeric_limits<uint16_t>::max(),
                    "ScheduledLeafSwitch: at most 65535 leaves and host ports per leaf");
    m_cluster = cluster;
    m_index = index;
    m_leaves = cluster.leaves;
    m_portsPerLeaf = cluster.hostsPerLeaf;
    m_segmenter = std::make_unique<CellSegmenter>(m_cellPayload, m_cellHeader, m_variableLastCell);
    CreateEgress(m_reorderWindow != 0 ? m_reorderWindow : CellReassembler::MAX_WINDOW);
    m_hosts = cluster.GetHosts();
    const uint32_t voqs = m_leaves * m_portsPerLeaf * m_nTcs;
    m_voq = voq;
    m_voq->SetLayout(voqs, m_portsPerLeaf, m_nTcs);
    m_voq->Initialize();
    m_voq->SetPfcCallback(MakeCallback(&ScheduledLeafSwitch::Pfc, this));
    m_requester =
        std::make_unique<VoqCreditRequester>(m_voq,
                                             VoqCreditRequester::Parameters{m_requestInterval,
                                                                            m_requestJitter,
                                                                            m_requestQuantum,
                                                                            m_creditTimeout},
                                             m_rng,
                                             MakeCallback(&ScheduledLeafSwitch::SendRequest, this));
    m_spineStopped.assign(static_cast<std::size_t>(m_leaves) * cluster.spines, 0);
    ObjectFactory sprayFactory;
    sprayFactory.SetTypeId(m_sprayPolicyType);
    m_sprayPolicy = sprayFactory.Create<SprayPolicy>();
    m_sprayPolicy->Setup(&m_fabric,
                         m_leaves,
                         index,
                         std::max(m_cellPayload + m_cellHeader, m_controlCellBytes));
    m_tx = std::make_unique<CellTransmitter>(&m_fabric,
                                             m_sprayPolicy,
                                             *m_segmenter,
                                             m_leaves,
                                             index,
                                             m_controlReserveCells * m_controlCellBytes,
                                             m_controlCellBytes,
                                             MakeCallback(&ScheduledLeafSwitch::LeafReady, this),
                                             MakeCallback(&ScheduledLeafSwitch::Drain, this));
    // The VOQs towards one egress leaf form a group: they wait while the fabric
    // ports have no room for that leaf.
    m_voq->SetGroups(m_portsPerLeaf * m_nTcs, MakeCallback(&ScheduledLeafSwitch::CanSendTo, this));
}

void
ScheduledLeafSwitch::AddHostPort(Ptr<NetDevice> device,
                                 Ptr<CreditScheduler> scheduler,
                                 DataRate rate)
{
    NS_LOG_FUNCTION(this << device << scheduler << rate);
    NS_ABORT_MSG_IF(!m_segmenter, "ScheduledLeafSwitch: call Setup before AddHostPort");
    const uint32_t port = static_cast<uint32_t>(m_hostDevs.size());
    NS_ABORT_MSG_IF(port >= m_cluster.hostPortsPerLeaf,
                    "ScheduledLeafSwitch: hostPortsPerLeaf=" << m_cluster.hostPortsPerLeaf
                                                             << " host ports are all in use");
    m_hostDevs.push_back(device);
    m_hostPeer.push_back(device->GetBroadcast());
    if (device->GetIfIndex() >= m_ifToPort.size())
    {
        m_ifToPort.resize(device->GetIfIndex() + 1, -1);
    }
    m_ifToPort[device->GetIfIndex()] = static_cast<int32_t>(port);
    m_lastPause.resize(m_lastPause.size() + m_nTcs, std::numeric_limits<int64_t>::min() / 2);
    device->SetReceiveCallback(MakeCallback(&ScheduledLeafSwitch::ReceiveFromHost, this));
    scheduler->Setup(m_leaves, m_nTcs, rate, m_cellPayload);
    scheduler->SetGrantCallback(MakeCallback(&ScheduledLeafSwitch::SendGrant, this).Bind(port));
    if (Ptr<RoceNetDevice> roce = DynamicCast<RoceNetDevice>(device))
    {
        if (m_voq->GetIngressHeadroom(port) == 0)
        {
            // Reserved for what the host still sends after its pause, so that a
            // pause from the shared threshold catching every port at once loses nothing.
            m_voq->SetIngressHeadroom(port, roce->GetPfcHeadroom(m_cluster.hostLinkDelay));
        }
        scheduler->SetQueueBytesCallback(
            MakeCallback(&ScheduledLeafSwitch::HostQueueBytes, this).Bind(port));
    }
    m_schedulers.push_back(scheduler);
}

void
ScheduledLeafSwitch::AddFabricPort(Ptr<CellNetDevice> device, Ptr<CellSpineSwitch> spine)
{
    NS_LOG_FUNCTION(this << device << spine);
    const uint32_t port = static_cast<uint32_t>(m_fabric.size());
    m_fabric.push_back(device);
    m_fabricSpine.push_back(spine);
    device->SetPortIndex(port);
    device->SetQueueLimit(m_fabricPortQueueLimit);
    device->SetCellReceiveCallback(MakeCallback(&ScheduledLeafSwitch::ReceiveCell, this));
    device->AddLinkChangeCallback(MakeCallback(&ScheduledLeafSwitch::LinkChanged, this));
    // A spine in another process of a distributed run indicates by message.
    device->SetIndicationCallback(MakeCallback(&ScheduledLeafSwitch::FlowControl, this));
    if (std::find(m_fabricSpine.begin(), m_fabricSpine.end() - 1, spine) == m_fabricSpine.end() - 1)
    {
        // The first port to this spine: listen to it once.
        spine->AddReachabilityCallback(
            MakeCallback(&ScheduledLeafSwitch::UpdateReachability, this));
        spine->AddFlowControlCallback(m_index,
                                      MakeCallback(&ScheduledLeafSwitch::FlowControl, this));
    }
}

void
ScheduledLeafSwitch::UpdateReachability()
{
    NS_LOG_FUNCTION(this);
    if (Simulator::Now().IsStrictlyPositive())
    {
        m_requester->ArmWatchdog(); // a spine's reach changed: control cells may have been lost
    }
    m_sprayPolicy->Reset();
    for (uint32_t leaf = 0; leaf < m_leaves; ++leaf)
    {
        UpdateLinks(leaf);
    }
}

void
ScheduledLeafSwitch::UpdateLinks(uint32_t dstLeaf)
{
    m_dataLinks.clear();
    m_controlLinks.clear();
    if (dstLeaf != m_index) // local traffic never uses the fabric
    {
        for (uint32_t port = 0; port < m_fabric.size(); ++port)
        {
            const Ptr<CellSpineSwitch>& spine = m_fabricSpine[port];
            if (m_fabric[port]->IsLinkUp() && spine->CanReach(dstLeaf))
            {
                m_controlLinks.push_back(port);
                if (!m_spineStopped[dstLeaf * m_cluster.spines + spine->GetIndex()])
                {
                    m_dataLinks.push_back(port);
                }
            }
        }
    }
    NS_LOG_LOGIC("leaf " << m_index << " -> leaf " << dstLeaf << ": " << m_dataLinks.size()
                         << " fabric ports for data, " << m_controlLinks.size() << " for control");
    m_tx->SetLinks(dstLeaf, m_dataLinks, m_controlLinks);
}

void
ScheduledLeafSwitch::FlowControl(uint32_t spine, uint32_t dstLeaf, bool stop)
{
    NS_LOG_FUNCTION(this << spine << dstLeaf << stop);
    if (dstLeaf == m_index)
    {
        return; // this leaf never sends its own traffic through a spine
    }
    m_spineStopped[dstLeaf * m_cluster.spines + spine] = stop ? 1 : 0;
    UpdateLinks(dstLeaf);
}

bool
ScheduledLeafSwitch::CanSendTo(uint32_t dstLeaf)
{
    return dstLeaf == m_index || m_tx->IsReady(dstLeaf);
}

void
ScheduledLeafSwitch::LeafReady(uint32_t dstLeaf)
{
    NS_LOG_FUNCTION(this << dstLeaf);
    m_voq->NotifyGroupReady(dstLeaf);
}

void
ScheduledLeafSwitch::LinkChanged()
{
    NS_LOG_FUNCTION(this);
    NS_LOG_LOGIC("leaf " << m_index << ": a fabric link changed, spraying follows in "
                         << m_detectionDelay.As(Time::US));
    m_reachEvents.erase(std::remove_if(m_reachEvents.begin(),
                                       m_reachEvents.end(),
                                       [](const EventId& e) { return e.IsExpired(); }),
                        m_reachEvents.end());
    m_reachEvents.push_back(
        Simulator::Schedule(m_detectionDelay, &ScheduledLeafSwitch::UpdateReachability, this));
    m_requester->ArmWatchdog();
}

uint32_t
ScheduledLeafSwitch::GetVoqIndex(uint32_t dstLeaf, uint32_t port, uint8_t tc) const
{
    return (dstLeaf * m_portsPerLeaf + port) * m_nTcs + tc;
}

bool
ScheduledLeafSwitch::ReceiveFromHost(Ptr<NetDevice> device,
                                     Ptr<const Packet> packet,
                                     uint16_t protocol,
                                     const Address& from)
{
    NS_LOG_FUNCTION(this << device << packet << protocol << from);
    const uint32_t ifIndex = device->GetIfIndex();
    const int32_t inPort = ifIndex < m_ifToPort.size() ? m_ifToPort[ifIndex] : -1;
    // Release builds compile asserts out; a frame from an unregistered device
    // would index with -1.
    NS_ABORT_MSG_IF(inPort < 0,
                    "ScheduledLeafSwitch " << m_index << ": frame from device ifIndex=" << ifIndex
                                           << ", not a host port added by AddHostPort");
    const uint32_t size = packet->GetSize();
    m_counters.offeredPackets++;
    m_counters.offeredBytes += size;
    m_offeredTrace(inPort, packet);
    Ipv4Header ip;
    const uint32_t hostIdx = (protocol == RoceNetDevice::IPV4_PROTOCOL && packet->PeekHeader(ip))
                                 ? m_cluster.GetHostIndex(ip.GetDestination())
                                 : m_cluster.GetHosts();
    if (hostIdx >= m_hosts)
    {
        // Only an IPv4 destination outside the cluster is a configuration error;
        // other frames are simply not switched (counted as unroutable).
        NS_ABORT_MSG_IF(m_unroutable == ABORT && protocol == RoceNetDevice::IPV4_PROTOCOL,
                        "ScheduledLeafSwitch " << m_index << ": destination " << ip.GetDestination()
                                               << " has no route (not a host of the cluster "
                                               << m_cluster.hostNetwork << "/"
                                               << m_cluster.hostNetworkPrefixLength
                                               << "); UnroutableAction=Abort");
        NS_LOG_LOGIC("leaf " << m_index << ": packet " << packet->GetUid() << " from port "
                             << inPort << " has no route, dropped");
        m_counters.unroutablePackets++;
        m_counters.unroutableBytes += size;
        m_dropTrace(inPort, packet);
        return true;
    }
    // As ClusterDescription::GetLeafOfHost and GetPortOfHost, without their checks.
    const uint32_t dstLeaf = hostIdx / m_portsPerLeaf;
    const uint32_t dstPort = hostIdx % m_portsPerLeaf;
    const uint8_t tc = static_cast<uint8_t>(std::min<uint32_t>(ip.GetDscp() >> 3, m_nTcs - 1));
    const uint32_t voq = GetVoqIndex(dstLeaf, dstPort, tc);
    // The leaf is the packet's last holder from here on: it travels by reference.
    Ptr<QueueDiscItem> item = Create<VoqQueueDiscItem>(ConstCast<Packet>(packet),
                                                       from,
                                                       protocol,
                                                       voq,
                                                       static_cast<uint32_t>(inPort),
                                                       tc);
    NS_LOG_LOGIC("leaf " << m_index << ": packet " << packet->GetUid() << " (" << size
                         << " B) from port " << inPort << " for leaf " << dstLeaf << " port "
                         << dstPort << " class " << +tc << ": VOQ " << voq);
    if (!m_voq->Enqueue(item))
    {
        NS_LOG_LOGIC("leaf " << m_index << ": VOQ " << voq << " refuses packet " << packet->GetUid()
                             << ", dropped");
        m_counters.voqDropPackets++;
        m_counters.voqDropBytes += size;
        m_dropTrace(inPort, packet);
        return true;
    }
    if (m_voq->IsPaused(inPort, tc))
    {
        // The host is still sending: frames were in flight, or its pause ran out.
        const std::size_t idx = static_cast<std::size_t>(inPort) * m_nTcs + tc;
        const int64_t now = Simulator::Now().GetTimeStep();
        if (now - m_lastPause[idx] >= m_pfcRefresh.GetTimeStep())
        {
            NS_LOG_LOGIC("leaf " << m_index << ": port " << inPort << " class " << +tc
                                 << " still sending while paused, pause repeated");
            Pfc(inPort, tc, true);
        }
    }
    m_requester->Notify(voq);
    if (m_voq->GetVoqCredit(voq) > 0)
    {
        Drain(); // the rest of a credit lets it go at once
    }
    return true;
}

void
ScheduledLeafSwitch::SendRequest(uint32_t voq, uint64_t cumulative, bool refresh)
{
    const uint8_t tc = voq % m_nTcs;
    const uint32_t dstPort = (voq / m_nTcs) % m_portsPerLeaf;
    const uint32_t dstLeaf = voq / m_nTcs / m_portsPerLeaf;
    NS_LOG_FUNCTION(this << voq << cumulative << refresh);
    NS_LOG_LOGIC("leaf " << m_index << ": VOQ " << voq << " asks leaf " << dstLeaf << " port "
                         << dstPort << " class " << +tc << " for cumulative " << cumulative << " B"
                         << (refresh ? " (refresh)" : ""));
    if (dstLeaf == m_index)
    {
        m_schedulers[dstPort]->Request(m_index, tc, cumulative, refresh);
        return;
    }
    FabricCell cell;
    cell.type = FabricCell::CREDIT_REQUEST;
    cell.tc = tc;
    cell.srcLeaf = static_cast<uint16_t>(m_index);
    cell.dstLeaf = static_cast<uint16_t>(dstLeaf);
    cell.dstPort = static_cast<uint16_t>(dstPort);
    cell.wireBytes = m_controlCellBytes;
    cell.bytes = cumulative;
    cell.refresh = refresh;
    SendToFabric(cell);
}

void
ScheduledLeafSwitch::SendGrant(uint32_t port, uint32_t source, uint8_t tc, uint64_t cumulative)
{
    NS_LOG_FUNCTION(this << port << source << +tc << cumulative);
    if (source == m_index)
    {
        HandleGrant(GetVoqIndex(m_index, port, tc), cumulative);
        return;
    }
    // Grants are cumulative, so several credits can travel in one control cell:
    // send when GrantBatch bytes are unsent, or when the VOQ's demand is fully
    // granted (no later grant would carry the rest).
    CreditScheduler& scheduler = *m_schedulers[port];
    if (cumulative - scheduler.GetGrantSent(source, tc) < m_grantBatch &&
        cumulative < scheduler.GetRequestedBytes(source, tc))
    {
        NS_LOG_LOGIC("leaf " << m_index << " port " << port << ": grant to leaf " << source
                             << " class " << +tc << " (cumulative " << cumulative
                             << " B) waits for GrantBatch");
        return;
    }
    NS_LOG_LOGIC("leaf " << m_index << " port " << port << ": grant cell to leaf " << source
                         << " class " << +tc << ", cumulative " << cumulative << " B");
    // One turn of several credits (CreditScheduler::TurnBatch) stands for the turns
    // that would each have sent a cell: it occupies their wire bytes, so batching
    // turns leaves the control traffic's share of the fabric as it was. (A turn of
    // one credit sends less than 2 x max(GrantBatch, CreditSize): one cell.)
    const uint64_t unsent = cumulative - scheduler.GetGrantSent(source, tc);
    const uint64_t cells =
        std::max<uint64_t>(1, unsent / std::max<uint64_t>(m_grantBatch, scheduler.GetCreditSize()));
    scheduler.SetGrantSent(source, tc, cumulative);
    FabricCell cell;
    cell.type = FabricCell::CREDIT_GRANT;
    cell.tc = tc;
    cell.srcLeaf = static_cast<uint16_t>(m_index);
    cell.dstLeaf = static_cast<uint16_t>(source);
    cell.dstPort = static_cast<uint16_t>(port);
    cell.wireBytes = static_cast<uint32_t>(cells * m_controlCellBytes);
    cell.bytes = cumulative;
    SendToFabric(cell);
}

void
ScheduledLeafSwitch::HandleGrant(uint32_t voq, uint64_t cumulative)
{
    NS_LOG_FUNCTION(this << voq << cumulative);
    NS_LOG_LOGIC("leaf " << m_index << ": VOQ " << voq << " granted cumulative " << cumulative
                         << " B");
    m_requester->Grant(voq, cumulative);
    Drain();
}

void
ScheduledLeafSwitch::Drain()
{
    if (m_draining)
    {
        return; // a local grant while draining: the loop below picks it up
    }
    NS_LOG_FUNCTION(this);
    m_draining = true;
    // Most grants only repay a packet sent on earlier credit: nothing is on a
    // turn list, and the queue disc is not asked.
    while (m_voq->HasEligible())
    {
        Ptr<QueueDiscItem> item = m_voq->Dequeue();
        if (!item)
        {
            break;
        }
        const uint32_t voq = StaticCast<VoqQueueDiscItem>(item)->GetVoq();
        const uint8_t tc = voq % m_nTcs;
        const uint32_t dstPort = (voq / m_nTcs) % m_portsPerLeaf;
        const uint32_t dstLeaf = voq / m_nTcs / m_portsPerLeaf;
        NS_LOG_LOGIC("leaf " << m_index << ": VOQ " << voq << " releases packet "
                             << item->GetPacket()->GetUid() << " (" << item->GetSize()
                             << " B) on credit"
                             << (dstLeaf == m_index ? ", local: straight to its host port" : ""));
        if (dstLeaf == m_index)
        {
            m_schedulers[dstPort]->NotifyArrival(m_index, tc, item->GetSize());
            ForwardToHost(dstPort, item->GetPacket());
        }
        else
        {
            m_tx->Send(item->GetPacket(), dstLeaf, dstPort, tc);
        }
    }
    m_draining = false;
}

void
ScheduledLeafSwitch::SendToFabric(const FabricCell& cell)
{
    if (!m_tx->SendControl(cell))
    {
        NS_LOG_LOGIC("leaf " << m_index << ": no fabric link to leaf " << cell.dstLeaf
                             << ", control cell lost");
        m_counters.cellsNoPath++;
    }
}

void
ScheduledLeafSwitch::ReceiveCell(uint32_t port, const FabricCell& cell)
{
    NS_LOG_FUNCTION(this << port << +cell.type << cell.srcLeaf);
    switch (cell.type)
    {
    case FabricCell::DATA:
        NS_LOG_LOGIC("leaf " << m_index << ": cell " << cell.cellIndex << "/" << cell.cellCount
                             << " of packet " << GetUidOrNone(cell.packet) << " (number "
                             << cell.packetId << " from leaf " << cell.srcLeaf
                             << ") on fabric port " << port);
        if (m_egress->Receive(cell))
        {
            m_schedulers[cell.dstPort]->NotifyArrival(cell.srcLeaf, cell.tc, cell.payload);
        }
        break;
    case FabricCell::CREDIT_REQUEST:
        NS_LOG_LOGIC("leaf " << m_index << ": credit request from leaf " << cell.srcLeaf
                             << " for port " << cell.dstPort << " class " << +cell.tc
                             << ", cumulative " << cell.bytes << " B");
        m_schedulers[cell.dstPort]->Request(cell.srcLeaf, cell.tc, cell.bytes, cell.refresh);
        break;
    case FabricCell::CREDIT_GRANT:
        HandleGrant(GetVoqIndex(cell.srcLeaf, cell.dstPort, cell.tc), cell.bytes);
        break;
    case FabricCell::PATH_LOSS:
        NS_LOG_LOGIC("leaf " << m_index << ": path-loss notice " << cell.bytes << " from leaf "
                             << cell.srcLeaf << " (packets up to number " << cell.packetId
                             << ") on fabric port " << port);
        m_egress->ReceivePathLoss(cell);
        break;
    }
}

void
ScheduledLeafSwitch::Reassembled(const CellReassembler::Output& out)
{
    NS_LOG_FUNCTION(this << out.source << out.packetId);
    NS_LOG_LOGIC("leaf " << m_index << ": packet " << GetUidOrNone(out.packet) << " (number "
                         << out.packetId << " from leaf " << out.source << ") reassembled, "
                         << out.bytes << " B to port " << out.port);
    m_reassemblyDoneTrace(out.source, out.packet);
    ForwardToHost(out.port, out.packet);
}

void
ScheduledLeafSwitch::ReassemblyTimedOut(const CellReassembler::Output& lost)
{
    NS_LOG_FUNCTION(this << lost.source << lost.packetId);
    NS_LOG_LOGIC("leaf " << m_index << ": packet " << GetUidOrNone(lost.packet) << " (number "
                         << lost.packetId << ") from leaf " << lost.source
                         << " given up at reassembly");
    m_counters.reassemblyTimeouts++;
    m_counters.reassemblyTimeoutBytes += lost.bytes;
    if (lost.packet)
    {
        // What never arrived of it leaves its port's credit window.
        m_schedulers[lost.port]->NotifyArrival(lost.source,
                                               lost.tc,
                                               lost.packet->GetSize() - lost.bytes);
    }
    m_reassemblyTimeoutTrace(lost.source, lost.packet);
}

void
ScheduledLeafSwitch::CellDiscarded(const FabricCell& cell, CellReassembler::Discard reason)
{
    NS_LOG_FUNCTION(this << cell.srcLeaf << cell.packetId << cell.cellIndex << reason);
    NS_LOG_LOGIC("leaf " << m_index << ": cell " << cell.cellIndex << " of packet "
                         << GetUidOrNone(cell.packet) << " (number " << cell.packetId << ")"
                         << " from leaf " << cell.srcLeaf << " discarded ("
                         << (reason == CellReassembler::BEYOND_WINDOW ? "beyond the reorder window"
                             : reason == CellReassembler::LATE        ? "late"
                                                                      : "duplicate")
                         << ")");
    m_cellDiscardTrace(cell, static_cast<uint32_t>(reason));
}

void
ScheduledLeafSwitch::ForwardToHost(uint32_t port, Ptr<Packet> packet)
{
    NS_LOG_FUNCTION(this << port << packet);
    const uint32_t size = packet->GetSize();
    m_deliveredTrace(port, packet);
    if (!m_hostDevs[port]->Send(packet, m_hostPeer[port], RoceNetDevice::IPV4_PROTOCOL))
    {
        NS_LOG_LOGIC("leaf " << m_index << ": host port " << port << " refuses packet "
                             << packet->GetUid() << ", dropped");
        m_counters.egressDropPackets++;
        m_counters.egressDropBytes += size;
        m_dropTrace(port, packet);
        return;
    }
    NS_LOG_LOGIC("leaf " << m_index << ": packet " << packet->GetUid() << " (" << size
                         << " B) sent on host port " << port);
    m_counters.deliveredPackets++;
    m_counters.deliveredBytes += size;
}

uint64_t
ScheduledLeafSwitch::HostQueueBytes(uint32_t port) const
{
    return StaticCast<RoceNetDevice>(m_hostDevs[port])->GetTotalQueueBytes();
}

void
ScheduledLeafSwitch::Pfc(uint32_t port, uint8_t tc, bool pause)
{
    NS_LOG_FUNCTION(this << port << +tc << pause);
    NS_LOG_LOGIC("leaf " << m_index << ": PFC " << (pause ? "pause" : "resume") << " to host port "
                         << port << " class " << +tc);
    if (pause)
    {
        m_lastPause[static_cast<std::size_t>(port) * m_nTcs + tc] = Simulator::Now().GetTimeStep();
    }
    if (Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(m_hostDevs[port]))
    {
        // Class tc holds priority tc; the last class also every priority above it.
        const uint8_t last = (tc + 1u == m_nTcs) ? RoceNetDevice::NUM_PRIORITIES - 1 : tc;
        for (uint8_t prio = tc; prio <= last; ++prio)
        {
            dev->SendPfc(prio, pause ? 0xffff : 0);
        }
    }
}

void
ScheduledLeafSwitch::Counters::ForEach(
    const std::function<void(const char*, uint64_t)>& visit) const
{
    visit("offeredPackets", offeredPackets);
    visit("offeredBytes", offeredBytes);
    visit("deliveredPackets", deliveredPackets);
    visit("deliveredBytes", deliveredBytes);
    visit("unroutablePackets", unroutablePackets);
    visit("unroutableBytes", unroutableBytes);
    visit("voqDropPackets", voqDropPackets);
    visit("voqDropBytes", voqDropBytes);
    visit("egressDropPackets", egressDropPackets);
    visit("egressDropBytes", egressDropBytes);
    visit("reassemblyTimeouts", reassemblyTimeouts);
    visit("reassemblyTimeoutBytes", reassemblyTimeoutBytes);
    visit("reassemblyNoticeDrops", reassemblyNoticeDrops);
    visit("beyondWindowCells", beyondWindowCells);
    visit("beyondWindowBytes", beyondWindowBytes);
    visit("lateCells", lateCells);
    visit("lateBytes", lateBytes);
    visit("duplicateCells", duplicateCells);
    visit("duplicateBytes", duplicateBytes);
    visit("reassemblyHeldPackets", reassemblyHeldPackets);
    visit("reassemblyHeldBytes", reassemblyHeldBytes);
    visit("dataCellsSent", dataCellsSent);
    visit("requestsSent", requestsSent);
    visit("grantsReceived", grantsReceived);
    visit("cellsNoPath", cellsNoPath);
    visit("transmitPendingPackets", transmitPendingPackets);
    visit("transmitPendingBytes", transmitPendingBytes);
    visit("transmitStalls", transmitStalls);
    visit("requestRefreshes", requestRefreshes);
    visit("pathLossNoticesSent", pathLossNoticesSent);
}

ScheduledLeafSwitch::Counters
ScheduledLeafSwitch::GetCounters() const
{
    Counters c = m_counters;
    c.requestsSent = m_requester->GetRequestsSent();
    c.grantsReceived = m_requester->GetGrantsReceived();
    c.requestRefreshes = m_requester->GetRefreshes();
    c.dataCellsSent = m_tx->GetDataCellsSent();
    c.transmitPendingPackets = m_tx->GetPendingPackets();
    c.transmitPendingBytes = m_tx->GetPendingBytes();
    c.transmitStalls = m_tx->GetStalls();
    c.pathLossNoticesSent = m_tx->GetPathLossNotices();
    const CellReassembler& r = m_egress->GetReassembler();
    const auto beyond = r.GetDiscards(CellReassembler::BEYOND_WINDOW);
    const auto late = r.GetDiscards(CellReassembler::LATE);
    const auto duplicate = r.GetDiscards(CellReassembler::DUPLICATE);
    c.beyondWindowCells = beyond.cells;
    c.beyondWindowBytes = beyond.bytes;
    c.lateCells = late.cells;
    c.lateBytes = late.bytes;
    c.duplicateCells = duplicate.cells;
    c.duplicateBytes = duplicate.bytes;
    c.reassemblyHeldPackets = r.GetPacketsHeld();
    c.reassemblyHeldBytes = r.GetBytesHeld();
    c.reassemblyNoticeDrops = r.GetPacketsGivenUp();
    return c;
}

Ptr<VoqQueueDisc>
ScheduledLeafSwitch::GetVoqQueueDisc() const
{
    return m_voq;
}

Ptr<CreditScheduler>
ScheduledLeafSwitch::GetScheduler(uint32_t port) const
{
    return m_schedulers.at(port);
}

uint32_t
ScheduledLeafSwitch::GetNFabricPorts() const
{
    return static_cast<uint32_t>(m_fabric.size());
}

Ptr<CellNetDevice>
ScheduledLeafSwitch::GetFabricPort(uint32_t port) const
{
    return m_fabric.at(port);
}

uint32_t
ScheduledLeafSwitch::GetNHostPorts() const
{
    return static_cast<uint32_t>(m_hostDevs.size());
}

Ptr<NetDevice>
ScheduledLeafSwitch::GetHostPort(uint32_t port) const
{
    return m_hostDevs.at(port);
}

const CellSegmenter&
ScheduledLeafSwitch::GetSegmenter() const
{
    return *m_segmenter;
}

void
ScheduledLeafSwitch::CreateEgress(uint32_t window)
{
    m_egress = std::make_unique<EgressReassembly>(
        m_leaves,
        window,
        m_reassemblyTimeout,
        MakeCallback(&ScheduledLeafSwitch::Reassembled, this),
        MakeCallback(&ScheduledLeafSwitch::ReassemblyTimedOut, this),
        MakeCallback(&ScheduledLeafSwitch::CellDiscarded, this));
}

void
ScheduledLeafSwitch::SetSpineQueueLimit(uint64_t spineQueueBytes)
{
    NS_LOG_FUNCTION(this << spineQueueBytes);
    if (m_reorderWindow != 0)
    {
        return;
    }
    // Everything one source leaf can have on its way here at once: its fabric
    // ports' queues and the spines' queues towards this leaf, in the smallest
    // packets (an IPv4 and a UDP header, one cell each).
    const uint64_t bytes =
        uint64_t{m_cluster.GetFabricLinksPerLeaf()} * (m_fabricPortQueueLimit + spineQueueBytes);
    const uint64_t smallest = 28 + m_cellHeader;
    const uint64_t window =
        std::min<uint64_t>((bytes + smallest - 1) / smallest, CellReassembler::MAX_WINDOW);
    NS_LOG_LOGIC("leaf " << m_index << ": reorder window " << window << " packets per source");
    CreateEgress(static_cast<uint32_t>(window));
}

uint32_t
ScheduledLeafSwitch::GetReorderWindow() const
{
    return m_egress->GetReassembler().GetWindow();
}

uint64_t
ScheduledLeafSwitch::GetFabricPortQueueLimit() const
{
    return m_fabricPortQueueLimit;
}

uint32_t
ScheduledLeafSwitch::GetControlCellSize() const
{
    return m_controlCellBytes;
}

uint32_t
ScheduledLeafSwitch::GetPacketsNumbered(uint32_t dstLeaf) const
{
    return m_tx->GetPacketsNumbered(dstLeaf);
}

const CellReassembler&
ScheduledLeafSwitch::GetReassembler() const
{
    return m_egress->GetReassembler();
}

uint32_t
ScheduledLeafSwitch::GetIndex() const
{
    return m_index;
}

int64_t
ScheduledLeafSwitch::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    m_rng->SetStream(stream);
    return 1 + m_sprayPolicy->AssignStreams(stream + 1);
}

} // namespace ns3
