/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "scheduled-fabric-helper.h"

#include "ns3/abort.h"
#include "ns3/cell-channel.h"
#include "ns3/cell-net-device.h"
#include "ns3/cell-spine-switch.h"
#include "ns3/credit-scheduler.h"
#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-net-device.h"
#include "ns3/scheduled-leaf-switch.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"
#include "ns3/voq-queue-disc.h"

#ifdef NS3_MPI
#include "ns3/cell-remote-channel.h"
#include "ns3/mpi-receiver.h"
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ScheduledFabricHelper");

void
ScheduledFabricHelper::Totals::ForEach(const std::function<void(const char*, int64_t)>& visit) const
{
    visit("offeredPackets", static_cast<int64_t>(offeredPackets));
    visit("offeredBytes", static_cast<int64_t>(offeredBytes));
    visit("deliveredPackets", static_cast<int64_t>(deliveredPackets));
    visit("deliveredBytes", static_cast<int64_t>(deliveredBytes));
    visit("queuedPackets", static_cast<int64_t>(queuedPackets));
    visit("queuedBytes", static_cast<int64_t>(queuedBytes));
    visit("transmitPendingPackets", static_cast<int64_t>(transmitPendingPackets));
    visit("transmitPendingBytes", static_cast<int64_t>(transmitPendingBytes));
    visit("fabricPackets", static_cast<int64_t>(fabricPackets));
    visit("linkBytes", static_cast<int64_t>(linkBytes));
    visit("reassemblyPackets", static_cast<int64_t>(reassemblyPackets));
    visit("reassemblyBytes", static_cast<int64_t>(reassemblyBytes));
    visit("voqDropPackets", static_cast<int64_t>(voqDropPackets));
    visit("voqDropBytes", static_cast<int64_t>(voqDropBytes));
    visit("egressDropPackets", static_cast<int64_t>(egressDropPackets));
    visit("egressDropBytes", static_cast<int64_t>(egressDropBytes));
    visit("unroutablePackets", static_cast<int64_t>(unroutablePackets));
    visit("unroutableBytes", static_cast<int64_t>(unroutableBytes));
    visit("reassemblyTimeouts", static_cast<int64_t>(reassemblyTimeouts));
    visit("reassemblyTimeoutBytes", static_cast<int64_t>(reassemblyTimeoutBytes));
    visit("reassemblyNoticeDrops", static_cast<int64_t>(reassemblyNoticeDrops));
    visit("linkLostCells", static_cast<int64_t>(linkLostCells));
    visit("linkLostBytes", static_cast<int64_t>(linkLostBytes));
    visit("linkCorruptedCells", static_cast<int64_t>(linkCorruptedCells));
    visit("linkCorruptedBytes", static_cast<int64_t>(linkCorruptedBytes));
    visit("spineDroppedCells", static_cast<int64_t>(spineDroppedCells));
    visit("spineDroppedBytes", static_cast<int64_t>(spineDroppedBytes));
    visit("beyondWindowCells", static_cast<int64_t>(beyondWindowCells));
    visit("beyondWindowBytes", static_cast<int64_t>(beyondWindowBytes));
    visit("lateCells", static_cast<int64_t>(lateCells));
    visit("lateBytes", static_cast<int64_t>(lateBytes));
    visit("duplicateCells", static_cast<int64_t>(duplicateCells));
    visit("duplicateBytes", static_cast<int64_t>(duplicateBytes));
    visit("noPathCells", static_cast<int64_t>(noPathCells));
    visit("hostNicErrorDropPackets", static_cast<int64_t>(hostNicErrorDropPackets));
    visit("hostNicErrorDropBytes", static_cast<int64_t>(hostNicErrorDropBytes));
    visit("leafPortErrorDropPackets", static_cast<int64_t>(leafPortErrorDropPackets));
    visit("leafPortErrorDropBytes", static_cast<int64_t>(leafPortErrorDropBytes));
    visit("dataCells", static_cast<int64_t>(dataCells));
    visit("grantedBytes", static_cast<int64_t>(grantedBytes));
    visit("dequeuedBytes", static_cast<int64_t>(dequeuedBytes));
    visit("waitingCreditBytes", static_cast<int64_t>(waitingCreditBytes));
    visit("windowStalls", static_cast<int64_t>(windowStalls));
    visit("writtenOffBytes", static_cast<int64_t>(writtenOffBytes));
    visit("transmitStalls", static_cast<int64_t>(transmitStalls));
    visit("fabricPortHighWater", static_cast<int64_t>(fabricPortHighWater));
    visit("fabricPortQueueLimit", static_cast<int64_t>(fabricPortQueueLimit));
    visit("spineQueueHighWater", static_cast<int64_t>(spineQueueHighWater));
    visit("spineQueueLimit", static_cast<int64_t>(spineQueueLimit));
    visit("voqPauses", static_cast<int64_t>(voqPauses));
    visit("requestRefreshes", static_cast<int64_t>(requestRefreshes));
    visit("grantRefreshes", static_cast<int64_t>(grantRefreshes));
    visit("droppedPackets", static_cast<int64_t>(GetDroppedPackets()));
    visit("droppedBytes", static_cast<int64_t>(GetDroppedBytes()));
    visit("unaccountedPackets", GetUnaccountedPackets());
    visit("unaccountedBytes", GetUnaccountedBytes());
}

uint64_t
ScheduledFabricHelper::Totals::GetDroppedPackets() const
{
    return voqDropPackets + egressDropPackets + unroutablePackets + reassemblyTimeouts +
           hostNicErrorDropPackets + leafPortErrorDropPackets;
}

uint64_t
ScheduledFabricHelper::Totals::GetDroppedBytes() const
{
    return voqDropBytes + egressDropBytes + unroutableBytes + reassemblyTimeoutBytes +
           linkLostBytes + linkCorruptedBytes + spineDroppedBytes + beyondWindowBytes + lateBytes +
           duplicateBytes + hostNicErrorDropBytes + leafPortErrorDropBytes;
}

int64_t
ScheduledFabricHelper::Totals::GetUnaccountedPackets() const
{
    return static_cast<int64_t>(offeredPackets) -
           static_cast<int64_t>(deliveredPackets + queuedPackets + transmitPendingPackets +
                                fabricPackets + GetDroppedPackets());
}

int64_t
ScheduledFabricHelper::Totals::GetUnaccountedBytes() const
{
    return static_cast<int64_t>(offeredBytes) -
           static_cast<int64_t>(deliveredBytes + queuedBytes + transmitPendingBytes + linkBytes +
                                reassemblyBytes + GetDroppedBytes());
}

ScheduledFabricHelper::ScheduledFabricHelper()
{
    m_leafFactory.SetTypeId("ns3::ScheduledLeafSwitch");
    m_spineFactory.SetTypeId("ns3::CellSpineSwitch");
    m_voqFactory.SetTypeId("ns3::VoqQueueDisc");
    m_schedulerFactory.SetTypeId("ns3::CreditScheduler");
    m_fabricDeviceFactory.SetTypeId("ns3::CellNetDevice");
    m_fabricChannelFactory.SetTypeId("ns3::CellChannel");
}

void
ScheduledFabricHelper::SetFabricChannelType(const std::string& type)
{
    NS_LOG_FUNCTION(this << type);
    TypeId tid;
    NS_ABORT_MSG_IF(
        !TypeId::LookupByNameFailSafe(type, &tid) ||
            !(tid == CellChannel::GetTypeId() || tid.IsChildOf(CellChannel::GetTypeId())),
        "ScheduledFabricHelper: FabricChannelType " << type << " is not a CellChannel");
    m_fabricChannelFactory.SetTypeId(tid);
}

void
ScheduledFabricHelper::SetLeafAttribute(const std::string& name, const AttributeValue& value)
{
    m_leafFactory.Set(name, value);
}

void
ScheduledFabricHelper::SetSpineAttribute(const std::string& name, const AttributeValue& value)
{
    m_spineFactory.Set(name, value);
}

void
ScheduledFabricHelper::SetFabricDeviceAttribute(const std::string& name,
                                                const AttributeValue& value)
{
    m_fabricDeviceFactory.Set(name, value);
}

void
ScheduledFabricHelper::SetVoqAttribute(const std::string& name, const AttributeValue& value)
{
    m_voqFactory.Set(name, value);
}

void
ScheduledFabricHelper::SetSchedulerAttribute(const std::string& name, const AttributeValue& value)
{
    m_schedulerFactory.Set(name, value);
}

const char*
ScheduledFabricHelper::GetFabricName() const
{
    return "ScheduledFabricHelper";
}

void
ScheduledFabricHelper::CreateSwitches()
{
    for (uint32_t s = 0; s < m_cluster.spines; ++s)
    {
        Ptr<CellSpineSwitch> spine = m_spineFactory.Create<CellSpineSwitch>();
        spine->Setup(m_cluster.leaves, s);
        m_spines.Get(s)->AggregateObject(spine);
        m_spineSwitches.push_back(spine);
    }
    for (uint32_t l = 0; l < m_cluster.leaves; ++l)
    {
        Ptr<ScheduledLeafSwitch> leaf = m_leafFactory.Create<ScheduledLeafSwitch>();
        leaf->Setup(m_cluster, l, m_voqFactory.Create<VoqQueueDisc>());
        m_leaves.Get(l)->AggregateObject(leaf);
        m_leafSwitches.push_back(leaf);
    }
}

void
ScheduledFabricHelper::AddHostPort(uint32_t host, Ptr<RoceNetDevice> port)
{
    m_leafSwitches[m_cluster.GetLeafOfHost(host)]->AddHostPort(
        port,
        m_schedulerFactory.Create<CreditScheduler>(),
        m_cluster.hostLinkRate);
}

void
ScheduledFabricHelper::CreateFabricLinks()
{
    // (leaf, spine, parallel link) in that order.
    for (uint32_t l = 0; l < m_cluster.leaves; ++l)
    {
        for (uint32_t s = 0; s < m_cluster.spines; ++s)
        {
            for (uint32_t k = 0; k < m_cluster.linksPerLeafSpine; ++k)
            {
                Ptr<CellNetDevice> leafEnd = m_fabricDeviceFactory.Create<CellNetDevice>();
                Ptr<CellNetDevice> spineEnd = m_fabricDeviceFactory.Create<CellNetDevice>();
                for (auto& dev : {leafEnd, spineEnd})
                {
                    dev->SetAttribute("DataRate", DataRateValue(m_cluster.fabricLinkRate));
                }
                m_leaves.Get(l)->AddDevice(leafEnd);
                m_spines.Get(s)->AddDevice(spineEnd);
                Ptr<CellChannel> channel = CreateChannel(leafEnd, spineEnd);
                channel->SetAttribute("Delay", TimeValue(m_cluster.fabricLinkDelay));
                leafEnd->Attach(channel);
                spineEnd->Attach(channel);
                m_leafSwitches[l]->AddFabricPort(leafEnd, m_spineSwitches[s]);
                m_spineSwitches[s]->AddPort(spineEnd, l);
                m_fabricDevs.Add(leafEnd);
                m_fabricDevs.Add(spineEnd);
                m_channels.push_back(channel);
            }
        }
    }
    // Spines size their flow control for the leaves that feed them.
    Ptr<ScheduledLeafSwitch> leaf0 = m_leafSwitches[0];
    const CellSegmenter& seg = leaf0->GetSegmenter();
    for (auto& spine : m_spineSwitches)
    {
        spine->SetFabric(seg.GetCellPayload() + seg.GetCellHeader(),
                         leaf0->GetControlCellSize(),
                         (m_cluster.leaves - 1) * m_cluster.linksPerLeafSpine,
                         leaf0->GetFabricPortQueueLimit(),
                         m_cluster.fabricLinkRate,
                         m_cluster.fabricLinkDelay);
    }
    for (auto& leaf : m_leafSwitches)
    {
        leaf->SetSpineQueueLimit(m_spineSwitches[0]->GetMaxQueueBytes());
        leaf->UpdateReachability();
    }
}

Ptr<CellChannel>
ScheduledFabricHelper::CreateChannel(Ptr<CellNetDevice> leafEnd, Ptr<CellNetDevice> spineEnd) const
{
    // Nodes are in different processes only in a distributed run (SetPartitions).
    if (leafEnd->GetNode()->GetSystemId() != spineEnd->GetNode()->GetSystemId())
    {
#ifdef NS3_MPI
        for (const Ptr<CellNetDevice>& end : {leafEnd, spineEnd})
        {
            Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
            receiver->SetReceiveCallback(MakeCallback(&CellNetDevice::ReceiveFromProcess, end));
            end->AggregateObject(receiver);
        }
        return CreateObject<CellRemoteChannel>();
#endif
    }
    return m_fabricChannelFactory.Create<CellChannel>();
}

const NetDeviceContainer&
ScheduledFabricHelper::GetFabricDevices() const
{
    return m_fabricDevs;
}

Ptr<ScheduledLeafSwitch>
ScheduledFabricHelper::GetLeaf(uint32_t leaf) const
{
    return m_leafSwitches.at(leaf);
}

Ptr<CellSpineSwitch>
ScheduledFabricHelper::GetSpine(uint32_t spine) const
{
    return m_spineSwitches.at(spine);
}

Ptr<CellChannel>
ScheduledFabricHelper::GetFabricChannel(uint32_t leaf, uint32_t spine, uint32_t link) const
{
    NS_ABORT_MSG_IF(leaf >= m_cluster.leaves || spine >= m_cluster.spines ||
                        link >= m_cluster.linksPerLeafSpine,
                    "ScheduledFabricHelper: no fabric link (" << leaf << ", " << spine << ", "
                                                              << link << ")");
    return m_channels[(leaf * m_cluster.spines + spine) * m_cluster.linksPerLeafSpine + link];
}

void
ScheduledFabricHelper::SetFabricLinkErrorModel(uint32_t leaf,
                                               uint32_t spine,
                                               uint32_t link,
                                               Ptr<ErrorModel> em)
{
    NS_LOG_FUNCTION(this << leaf << spine << link << em);
    Ptr<CellChannel> channel = GetFabricChannel(leaf, spine, link);
    for (std::size_t end = 0; end < channel->GetNDevices(); ++end)
    {
        DynamicCast<CellNetDevice>(channel->GetDevice(end))->SetReceiveErrorModel(em);
    }
}

void
ScheduledFabricHelper::ScheduleLinkState(uint32_t leaf,
                                         uint32_t spine,
                                         uint32_t link,
                                         Time at,
                                         bool up)
{
    NS_ABORT_MSG_IF(at.IsStrictlyNegative(),
                    "ScheduledFabricHelper::ScheduleLinkState: delay " << at << " is negative");
    Simulator::Schedule(at, &CellChannel::SetUp, GetFabricChannel(leaf, spine, link), up);
}

ScheduledFabricHelper::Totals
ScheduledFabricHelper::GetTotals() const
{
    Totals t;
    for (auto& leaf : m_leafSwitches)
    {
        const auto c = leaf->GetCounters();
        t.offeredPackets += c.offeredPackets;
        t.offeredBytes += c.offeredBytes;
        t.deliveredPackets += c.deliveredPackets;
        t.deliveredBytes += c.deliveredBytes;
        t.voqDropPackets += c.voqDropPackets;
        t.voqDropBytes += c.voqDropBytes;
        t.egressDropPackets += c.egressDropPackets;
        t.egressDropBytes += c.egressDropBytes;
        t.unroutablePackets += c.unroutablePackets;
        t.unroutableBytes += c.unroutableBytes;
        t.reassemblyTimeouts += c.reassemblyTimeouts;
        t.reassemblyTimeoutBytes += c.reassemblyTimeoutBytes;
        t.reassemblyNoticeDrops += c.reassemblyNoticeDrops;
        t.beyondWindowCells += c.beyondWindowCells;
        t.beyondWindowBytes += c.beyondWindowBytes;
        t.lateCells += c.lateCells;
        t.lateBytes += c.lateBytes;
        t.duplicateCells += c.duplicateCells;
        t.duplicateBytes += c.duplicateBytes;
        t.reassemblyPackets += c.reassemblyHeldPackets;
        t.reassemblyBytes += c.reassemblyHeldBytes;
        t.transmitPendingPackets += c.transmitPendingPackets;
        t.transmitPendingBytes += c.transmitPendingBytes;
        t.transmitStalls += c.transmitStalls;
        t.noPathCells += c.cellsNoPath;
        t.dataCells += c.dataCellsSent;
        t.requestRefreshes += c.requestRefreshes;
        Ptr<VoqQueueDisc> voq = leaf->GetVoqQueueDisc();
        t.dequeuedBytes += voq->GetDequeuedBytes();
        t.waitingCreditBytes += voq->GetCreditBalance();
        t.queuedBytes += voq->GetQueuedBytes();
        t.queuedPackets += voq->GetQueuedPackets();
        t.voqPauses += voq->GetPauses();
        for (uint32_t p = 0; p < leaf->GetNHostPorts(); ++p)
        {
            Ptr<CreditScheduler> s = leaf->GetScheduler(p);
            t.grantedBytes += s->GetGrantedBytes();
            t.grantRefreshes += s->GetGrantRefreshes();
            t.windowStalls += s->GetWindowStalls();
            t.writtenOffBytes += s->GetWrittenOffBytes();
        }
        for (uint32_t p = 0; p < leaf->GetNFabricPorts(); ++p)
        {
            Ptr<CellNetDevice> port = leaf->GetFabricPort(p);
            t.fabricPortHighWater = std::max(t.fabricPortHighWater, port->GetBacklogHighWater());
            t.fabricPortQueueLimit = t.fabricPortQueueLimit == 0
                                         ? port->GetQueueLimit()
                                         : std::min(t.fabricPortQueueLimit, port->GetQueueLimit());
        }
    }
    // Packets between the two ends: numbered by the ingress, not yet released or
    // given up by the egress, and not still being cut into cells.
    for (auto& ingress : m_leafSwitches)
    {
        for (auto& egress : m_leafSwitches)
        {
            if (ingress != egress)
            {
                t.fabricPackets += static_cast<uint32_t>(
                    ingress->GetPacketsNumbered(egress->GetIndex()) -
                    egress->GetReassembler().GetNextPacketId(ingress->GetIndex()));
            }
        }
    }
    t.fabricPackets -= t.transmitPendingPackets;
    for (auto& spine : m_spineSwitches)
    {
        t.spineDroppedCells += spine->GetCellsDropped();
        t.spineDroppedBytes += spine->GetPayloadDropped();
        t.spineQueueHighWater = std::max(t.spineQueueHighWater, spine->GetQueueHighWater());
        t.spineQueueLimit = t.spineQueueLimit == 0
                                ? spine->GetMaxQueueBytes()
                                : std::min(t.spineQueueLimit, spine->GetMaxQueueBytes());
    }
    for (uint32_t i = 0; i < m_fabricDevs.GetN(); ++i)
    {
        Ptr<CellNetDevice> dev = DynamicCast<CellNetDevice>(m_fabricDevs.Get(i));
        t.linkLostCells += dev->GetCellsLost();
        t.linkLostBytes += dev->GetPayloadLost();
        t.linkCorruptedCells += dev->GetCellsCorrupted();
        t.linkCorruptedBytes += dev->GetPayloadCorrupted();
        t.linkBytes += dev->GetPayloadInFlight();
    }
    // The host links' error models, in IPv4 bytes as the leaves count: a leaf host
    // port's losses were offered to the fabric, a host NIC's were delivered to it.
    const HostLinkErrorDrops errors = GetHostLinkErrorDrops();
    t.hostNicErrorDropPackets = errors.hostNicPackets;
    t.hostNicErrorDropBytes =
        errors.hostNicBytes - errors.hostNicPackets * RoceNetDevice::ETHERNET_HEADER_BYTES;
    t.leafPortErrorDropPackets = errors.leafHostPortPackets;
    t.leafPortErrorDropBytes = errors.leafHostPortBytes -
                               errors.leafHostPortPackets * RoceNetDevice::ETHERNET_HEADER_BYTES;
    t.offeredPackets += t.leafPortErrorDropPackets;
    t.offeredBytes += t.leafPortErrorDropBytes;
    t.deliveredPackets -= t.hostNicErrorDropPackets;
    t.deliveredBytes -= t.hostNicErrorDropBytes;
    return t;
}

double
ScheduledFabricHelper::GetFabricBound(uint32_t packetSize, uint32_t usableLinks) const
{
    NS_ABORT_MSG_IF(m_leafSwitches.empty(), "ScheduledFabricHelper::GetFabricBound before Install");
    NS_ABORT_MSG_IF(packetSize == 0, "ScheduledFabricHelper::GetFabricBound: packet size 0");
    Ptr<ScheduledLeafSwitch> leaf = m_leafSwitches[0];
    UintegerValue control;
    UintegerValue batch;
    TimeValue interval;
    leaf->GetAttribute("ControlCellSize", control);
    leaf->GetAttribute("GrantBatch", batch);
    leaf->GetAttribute("RequestInterval", interval);
    const uint64_t credit = leaf->GetScheduler(0)->GetCreditSize();
    // A grant cell carries at least one credit, and as many as GrantBatch needs.
    const double grantBytes = static_cast<double>(
        std::max<uint64_t>(credit, (batch.Get() + credit - 1) / credit * credit));
    const uint32_t links = usableLinks ? usableLinks : m_cluster.GetFabricLinksPerLeaf();
    const double hosts = m_cluster.hostsPerLeaf;
    const double requestsBps = interval.Get().IsStrictlyPositive()
                                   ? hosts * control.Get() * 8.0 / interval.Get().GetSeconds()
                                   : 0.0;
    const double capacity = links * static_cast<double>(m_cluster.fabricLinkRate.GetBitRate());
    const double wirePerByte =
        static_cast<double>(leaf->GetSegmenter().GetWireBytes(packetSize)) / packetSize;
    return (capacity - requestsBps) / (hosts * (wirePerByte + control.Get() / grantBytes));
}

double
ScheduledFabricHelper::GetIncastBound(uint32_t packetSize, uint32_t usableLinks) const
{
    NS_ABORT_MSG_IF(m_leafSwitches.empty(), "ScheduledFabricHelper::GetIncastBound before Install");
    NS_ABORT_MSG_IF(packetSize == 0, "ScheduledFabricHelper::GetIncastBound: packet size 0");
    const uint32_t links = usableLinks ? usableLinks : m_cluster.GetFabricLinksPerLeaf();
    const double wire =
        static_cast<double>(m_leafSwitches[0]->GetSegmenter().GetWireBytes(packetSize));
    return links * static_cast<double>(m_cluster.fabricLinkRate.GetBitRate()) * packetSize / wire;
}

void
ScheduledFabricHelper::WriteStats(std::ostream& os) const
{
    os << "element,index,counter,value\n";
    auto line =
        [&os](const char* element, const std::string& index, const char* counter, int64_t value) {
            WriteStatsLine(os, element, index, counter, value);
        };
    GetTotals().ForEach(
        [&line](const char* name, int64_t value) { line("fabric", "0", name, value); });
    for (uint32_t l = 0; l < m_leafSwitches.size(); ++l)
    {
        const std::string i = std::to_string(l);
        m_leafSwitches[l]->GetCounters().ForEach(
            [&line, &i](const char* name, uint64_t value) { line("leaf", i, name, value); });
        Ptr<VoqQueueDisc> voq = m_leafSwitches[l]->GetVoqQueueDisc();
        line("leaf", i, "voqBufferHighWater", voq->GetBufferHighWater());
        line("leaf", i, "voqPauses", voq->GetPauses());
        line("leaf", i, "voqBytes", voq->GetNBytes());
        for (uint32_t p = 0; p < m_leafSwitches[l]->GetNHostPorts(); ++p)
        {
            const std::string ip = i + ":" + std::to_string(p);
            Ptr<CreditScheduler> s = m_leafSwitches[l]->GetScheduler(p);
            line("scheduler", ip, "grants", s->GetGrants());
            line("scheduler", ip, "grantedBytes", s->GetGrantedBytes());
            line("scheduler", ip, "skippedTurns", s->GetSkippedTurns());
            line("scheduler", ip, "grantRefreshes", s->GetGrantRefreshes());
            line("scheduler", ip, "windowStalls", s->GetWindowStalls());
            line("scheduler", ip, "writtenOffBytes", s->GetWrittenOffBytes());
        }
        for (uint32_t p = 0; p < m_leafSwitches[l]->GetNFabricPorts(); ++p)
        {
            const std::string ip = i + ":" + std::to_string(p);
            Ptr<CellNetDevice> d = m_leafSwitches[l]->GetFabricPort(p);
            line("leafFabricPort", ip, "cellsSent", d->GetCellsSent());
            line("leafFabricPort", ip, "dataCellsSent", d->GetDataCellsSent());
            line("leafFabricPort", ip, "bytesSent", d->GetBytesSent());
            line("leafFabricPort", ip, "cellsReceived", d->GetCellsReceived());
            line("leafFabricPort", ip, "cellsLost", d->GetCellsLost());
            line("leafFabricPort", ip, "backlogHighWater", d->GetBacklogHighWater());
        }
    }
    for (uint32_t s = 0; s < m_spineSwitches.size(); ++s)
    {
        const std::string i = std::to_string(s);
        Ptr<CellSpineSwitch> spine = m_spineSwitches[s];
        line("spine", i, "cellsForwarded", spine->GetCellsForwarded());
        line("spine", i, "cellsDropped", spine->GetCellsDropped());
        line("spine", i, "queueHighWater", spine->GetQueueHighWater());
        for (uint32_t p = 0; p < spine->GetNPorts(); ++p)
        {
            const std::string ip = i + ":" + std::to_string(p);
            Ptr<CellNetDevice> d = spine->GetPort(p);
            line("spinePort", ip, "cellsSent", d->GetCellsSent());
            line("spinePort", ip, "bytesSent", d->GetBytesSent());
            line("spinePort", ip, "cellsLost", d->GetCellsLost());
            line("spinePort", ip, "backlogHighWater", d->GetBacklogHighWater());
        }
    }
}

int64_t
ScheduledFabricHelper::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (auto& leaf : m_leafSwitches)
    {
        used += leaf->AssignStreams(stream + used);
    }
    // Last, so the switches' streams are the same with or without error models.
    used += AssignErrorModelStreams(stream + used, m_fabricDevs);
    return used;
}

namespace
{
/// Ascii line for a cell.
void
AsciiCell(Ptr<OutputStreamWrapper> stream,
          char tag,
          uint32_t node,
          uint32_t port,
          const FabricCell& cell)
{
    *stream->GetStream() << tag << " " << Simulator::Now().GetSeconds() << " node " << node
                         << " port " << port << " type " << unsigned(cell.type) << " src "
                         << cell.srcLeaf << " dst " << cell.dstLeaf << ":" << cell.dstPort << " tc "
                         << unsigned(cell.tc) << " bytes " << cell.wireBytes;
    if (cell.type == FabricCell::DATA)
    {
        *stream->GetStream() << " pkt " << cell.packetId << " cell " << cell.cellIndex << "/"
                             << cell.cellCount;
    }
    else if (cell.type == FabricCell::PATH_LOSS)
    {
        *stream->GetStream() << " notice " << cell.bytes << " through pkt " << cell.packetId;
    }
    else
    {
        *stream->GetStream() << " cumulative " << cell.bytes;
    }
    *stream->GetStream() << std::endl;
}
} // namespace

void
ScheduledFabricHelper::EnableAsciiFabricDevice(Ptr<OutputStreamWrapper> stream, Ptr<NetDevice> nd)
{
    const uint32_t node = nd->GetNode()->GetId();
    if (Ptr<CellNetDevice> dev = DynamicCast<CellNetDevice>(nd))
    {
        dev->TraceConnectWithoutContext(
            "CellTx",
            MakeBoundCallback(
                +[](Ptr<OutputStreamWrapper> s, uint32_t n, uint32_t port, const FabricCell& c) {
                    AsciiCell(s, '+', n, port, c);
                },
                stream,
                node));
        dev->TraceConnectWithoutContext(
            "CellRx",
            MakeBoundCallback(
                +[](Ptr<OutputStreamWrapper> s, uint32_t n, uint32_t port, const FabricCell& c) {
                    AsciiCell(s, 'r', n, port, c);
                },
                stream,
                node));
        dev->TraceConnectWithoutContext(
            "CellLost",
            MakeBoundCallback(
                +[](Ptr<OutputStreamWrapper> s, uint32_t n, uint32_t port, const FabricCell& c) {
                    AsciiCell(s, 'd', n, port, c);
                },
                stream,
                node));
    }
}

} // namespace ns3
