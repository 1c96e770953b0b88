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
#include "ns3/roce-channel.h"
#include "ns3/roce-net-device.h"
#include "ns3/scheduled-leaf-switch.h"
#include "ns3/simulator.h"
#include "ns3/voq-queue-disc.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ScheduledFabricHelper");

uint64_t
ScheduledFabricHelper::Totals::GetDroppedPackets() const
{
    return voqDropPackets + egressDropPackets + unroutablePackets + reassemblyTimeouts;
}

uint64_t
ScheduledFabricHelper::Totals::GetDroppedBytes() const
{
    return voqDropBytes + egressDropBytes + unroutableBytes + reassemblyTimeoutBytes;
}

ScheduledFabricHelper::ScheduledFabricHelper()
{
    m_leafFactory.SetTypeId("ns3::ScheduledLeafSwitch");
    m_spineFactory.SetTypeId("ns3::CellSpineSwitch");
    m_voqFactory.SetTypeId("ns3::VoqQueueDisc");
    m_schedulerFactory.SetTypeId("ns3::CreditScheduler");
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
    const CellSegmenter& seg = m_leafSwitches[0]->GetSegmenter();
    for (auto& spine : m_spineSwitches)
    {
        spine->SetCellSize(seg.GetCellPayload() + seg.GetCellHeader());
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
                Ptr<CellNetDevice> leafEnd = CreateObject<CellNetDevice>();
                Ptr<CellNetDevice> spineEnd = CreateObject<CellNetDevice>();
                Ptr<CellChannel> channel = CreateObject<CellChannel>();
                channel->SetAttribute("Delay", TimeValue(m_cluster.fabricLinkDelay));
                for (auto& dev : {leafEnd, spineEnd})
                {
                    dev->SetAttribute("DataRate", DataRateValue(m_cluster.fabricLinkRate));
                }
                m_leaves.Get(l)->AddDevice(leafEnd);
                m_spines.Get(s)->AddDevice(spineEnd);
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
    for (auto& leaf : m_leafSwitches)
    {
        leaf->UpdateReachability();
    }
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
        const auto& c = leaf->GetCounters();
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
        t.noPathCells += c.cellsNoPath;
        t.dataCells += c.dataCellsSent;
        t.requestRefreshes += c.requestRefreshes;
        Ptr<VoqQueueDisc> voq = leaf->GetVoqQueueDisc();
        for (uint32_t v = 0; v < voq->GetNVoqs(); ++v)
        {
            t.dequeuedBytes += voq->GetVoqDequeuedBytes(v);
            t.waitingCreditBytes += voq->GetVoqCredit(v);
            t.queuedBytes += voq->GetVoqBytes(v);
        }
        t.voqPauses += voq->GetPauses();
        for (uint32_t p = 0; p < leaf->GetNHostPorts(); ++p)
        {
            t.grantedBytes += leaf->GetScheduler(p)->GetGrantedBytes();
            t.grantRefreshes += leaf->GetScheduler(p)->GetGrantRefreshes();
        }
    }
    for (auto& spine : m_spineSwitches)
    {
        t.spineDroppedCells += spine->GetCellsDropped();
        t.spineQueueHighWater = std::max(t.spineQueueHighWater, spine->GetQueueHighWater());
    }
    for (uint32_t i = 0; i < m_fabricDevs.GetN(); ++i)
    {
        t.linkLostCells += DynamicCast<CellNetDevice>(m_fabricDevs.Get(i))->GetCellsLost();
    }
    return t;
}

void
ScheduledFabricHelper::WriteStats(std::ostream& os) const
{
    os << "element,index,counter,value\n";
    auto line =
        [&os](const char* element, const std::string& index, const char* counter, int64_t value) {
            WriteStatsLine(os, element, index, counter, value);
        };
    const Totals t = GetTotals();
    line("fabric", "0", "offeredPackets", t.offeredPackets);
    line("fabric", "0", "offeredBytes", t.offeredBytes);
    line("fabric", "0", "deliveredPackets", t.deliveredPackets);
    line("fabric", "0", "deliveredBytes", t.deliveredBytes);
    line("fabric", "0", "droppedPackets", t.GetDroppedPackets());
    line("fabric", "0", "droppedBytes", t.GetDroppedBytes());
    line("fabric", "0", "linkLostCells", t.linkLostCells);
    line("fabric", "0", "spineDroppedCells", t.spineDroppedCells);
    line("fabric", "0", "grantedBytes", t.grantedBytes);
    line("fabric", "0", "dequeuedBytes", t.dequeuedBytes);
    line("fabric", "0", "waitingCreditBytes", t.waitingCreditBytes);
    line("fabric", "0", "queuedBytes", t.queuedBytes);
    for (uint32_t l = 0; l < m_leafSwitches.size(); ++l)
    {
        const std::string i = std::to_string(l);
        const auto& c = m_leafSwitches[l]->GetCounters();
        line("leaf", i, "offeredPackets", c.offeredPackets);
        line("leaf", i, "offeredBytes", c.offeredBytes);
        line("leaf", i, "deliveredPackets", c.deliveredPackets);
        line("leaf", i, "deliveredBytes", c.deliveredBytes);
        line("leaf", i, "unroutablePackets", c.unroutablePackets);
        line("leaf", i, "unroutableBytes", c.unroutableBytes);
        line("leaf", i, "voqDropPackets", c.voqDropPackets);
        line("leaf", i, "voqDropBytes", c.voqDropBytes);
        line("leaf", i, "egressDropPackets", c.egressDropPackets);
        line("leaf", i, "egressDropBytes", c.egressDropBytes);
        line("leaf", i, "reassemblyTimeouts", c.reassemblyTimeouts);
        line("leaf", i, "reassemblyTimeoutBytes", c.reassemblyTimeoutBytes);
        line("leaf", i, "dataCellsSent", c.dataCellsSent);
        line("leaf", i, "requestsSent", c.requestsSent);
        line("leaf", i, "grantsReceived", c.grantsReceived);
        line("leaf", i, "cellsNoPath", c.cellsNoPath);
        line("leaf", i, "requestRefreshes", c.requestRefreshes);
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
