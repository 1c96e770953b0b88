/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ethernet-clos-helper.h"

#include "ns3/abort.h"
#include "ns3/error-model.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/shared-buffer-mmu.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EthernetClosHelper");

EthernetClosHelper::EthernetClosHelper()
{
    m_leafFactory.SetTypeId("ns3::EthernetSwitch");
    m_spineFactory.SetTypeId("ns3::EthernetSwitch");
    m_mmuFactory.SetTypeId("ns3::SharedBufferMmu");
}

void
EthernetClosHelper::SetLeafAttribute(const std::string& name, const AttributeValue& value)
{
    m_leafFactory.Set(name, value);
}

void
EthernetClosHelper::SetSpineAttribute(const std::string& name, const AttributeValue& value)
{
    m_spineFactory.Set(name, value);
}

void
EthernetClosHelper::SetSwitchAttribute(const std::string& name, const AttributeValue& value)
{
    m_leafFactory.Set(name, value);
    m_spineFactory.Set(name, value);
}

void
EthernetClosHelper::SetMmuAttribute(const std::string& name, const AttributeValue& value)
{
    m_mmuFactory.Set(name, value);
}

const char*
EthernetClosHelper::GetFabricName() const
{
    return "EthernetClosHelper";
}

Ptr<EthernetSwitch>
EthernetClosHelper::CreateSwitch(const ObjectFactory& factory) const
{
    Ptr<EthernetSwitch> sw = factory.Create<EthernetSwitch>();
    sw->SetAttribute("Mmu", PointerValue(m_mmuFactory.Create<SharedBufferMmu>()));
    sw->SetHostAddressing(m_cluster.hostNetwork, m_cluster.GetHosts());
    return sw;
}

void
EthernetClosHelper::CreateSwitches()
{
    m_topology->cluster = m_cluster;
    for (uint32_t l = 0; l < m_cluster.leaves; ++l)
    {
        Ptr<EthernetSwitch> leaf = CreateSwitch(m_leafFactory);
        m_leaves.Get(l)->AggregateObject(leaf);
        m_topology->leaves.push_back(leaf);
    }
    for (uint32_t s = 0; s < m_cluster.spines; ++s)
    {
        Ptr<EthernetSwitch> spine = CreateSwitch(m_spineFactory);
        m_spines.Get(s)->AggregateObject(spine);
        m_topology->spines.push_back(spine);
        // When the other switches learn that a spine gained or lost a link, the
        // leaves' routes follow.
        std::shared_ptr<const Topology> topology = m_topology;
        spine->TraceConnectWithoutContext(
            "RouteAdvertise",
            Callback<void, uint32_t, bool>(
                [topology](uint32_t, bool) { UpdateLeafRoutes(topology); }));
    }
}

void
EthernetClosHelper::AddHostPort(uint32_t host, Ptr<RoceNetDevice> port)
{
    Ptr<EthernetSwitch> leaf = m_topology->leaves[m_cluster.GetLeafOfHost(host)];
    const uint32_t index = leaf->AddPort(port, m_cluster.hostLinkDelay);
    leaf->SetRoute(host, {index});
}

void
EthernetClosHelper::CreateFabricLinks()
{
    const uint32_t links = m_cluster.linksPerLeafSpine;
    // spineDown[s][l]: spine s's ports towards leaf l.
    std::vector<std::vector<std::vector<uint32_t>>> spineDown(
        m_cluster.spines,
        std::vector<std::vector<uint32_t>>(m_cluster.leaves));
    std::vector<std::vector<uint32_t>> leafUp(m_cluster.leaves);
    for (uint32_t l = 0; l < m_cluster.leaves; ++l)
    {
        for (uint32_t s = 0; s < m_cluster.spines; ++s)
        {
            for (uint32_t k = 0; k < links; ++k)
            {
                Ptr<RoceNetDevice> leafEnd = CreateDevice(m_cluster.fabricLinkRate);
                Ptr<RoceNetDevice> spineEnd = CreateDevice(m_cluster.fabricLinkRate);
                m_leaves.Get(l)->AddDevice(leafEnd);
                m_spines.Get(s)->AddDevice(spineEnd);
                Ptr<RoceChannel> channel = CreateLink(leafEnd, spineEnd, m_cluster.fabricLinkDelay);
                const uint32_t up =
                    m_topology->leaves[l]->AddPort(leafEnd, m_cluster.fabricLinkDelay);
                leafUp[l].push_back(up);
                m_topology->leafUplinkPorts.push_back(up);
                const uint32_t down =
                    m_topology->spines[s]->AddPort(spineEnd, m_cluster.fabricLinkDelay);
                spineDown[s][l].push_back(down);
                m_topology->spineDownPorts.push_back(down);
                m_fabricDevs.Add(leafEnd);
                m_fabricDevs.Add(spineEnd);
                m_topology->channels.push_back(channel);
            }
        }
    }
    for (uint32_t h = 0; h < m_cluster.GetHosts(); ++h)
    {
        const uint32_t hostLeaf = m_cluster.GetLeafOfHost(h);
        for (uint32_t l = 0; l < m_cluster.leaves; ++l)
        {
            if (l != hostLeaf)
            {
                m_topology->leaves[l]->SetRoute(h, leafUp[l]);
            }
        }
        for (uint32_t s = 0; s < m_cluster.spines; ++s)
        {
            m_topology->spines[s]->SetRoute(h, spineDown[s][hostLeaf]);
        }
    }
    // What each leaf may know of the spines' queues, for its load-balancing policy
    // (CongestionAwareLoadBalancing weighs them; the others ignore the view).
    for (uint32_t l = 0; l < m_cluster.leaves; ++l)
    {
        std::vector<uint32_t> uplinkSpine(m_topology->leaves[l]->GetNPorts(),
                                          std::numeric_limits<uint32_t>::max());
        for (uint32_t s = 0; s < m_cluster.spines; ++s)
        {
            for (uint32_t k = 0; k < links; ++k)
            {
                uplinkSpine[leafUp[l][s * links + k]] = s;
            }
        }
        m_topology->leaves[l]->SetPathView(m_topology->spines,
                                           uplinkSpine,
                                           spineDown,
                                           m_cluster.hostsPerLeaf);
    }
}

Ptr<EthernetSwitch>
EthernetClosHelper::GetLeaf(uint32_t leaf) const
{
    NS_ABORT_MSG_IF(leaf >= m_topology->leaves.size(), "EthernetClosHelper: no leaf " << leaf);
    return m_topology->leaves[leaf];
}

Ptr<EthernetSwitch>
EthernetClosHelper::GetSpine(uint32_t spine) const
{
    NS_ABORT_MSG_IF(spine >= m_topology->spines.size(), "EthernetClosHelper: no spine " << spine);
    return m_topology->spines[spine];
}

const NetDeviceContainer&
EthernetClosHelper::GetFabricDevices() const
{
    return m_fabricDevs;
}

uint32_t
EthernetClosHelper::GetLinkIndex(uint32_t leaf, uint32_t spine, uint32_t link) const
{
    NS_ABORT_MSG_IF(leaf >= m_cluster.leaves || spine >= m_cluster.spines ||
                        link >= m_cluster.linksPerLeafSpine || m_topology->channels.empty(),
                    "EthernetClosHelper: no fabric link (" << leaf << ", " << spine << ", " << link
                                                           << ")");
    return (leaf * m_cluster.spines + spine) * m_cluster.linksPerLeafSpine + link;
}

Ptr<RoceChannel>
EthernetClosHelper::GetFabricChannel(uint32_t leaf, uint32_t spine, uint32_t link) const
{
    return m_topology->channels[GetLinkIndex(leaf, spine, link)];
}

uint32_t
EthernetClosHelper::GetLeafUplinkPort(uint32_t leaf, uint32_t spine, uint32_t link) const
{
    return m_topology->leafUplinkPorts[GetLinkIndex(leaf, spine, link)];
}

void
EthernetClosHelper::SetFabricLinkErrorModel(uint32_t leaf,
                                            uint32_t spine,
                                            uint32_t link,
                                            Ptr<ErrorModel> em)
{
    NS_LOG_FUNCTION(this << leaf << spine << link << em);
    // m_fabricDevs holds each link's leaf end, then its spine end.
    const uint32_t index = GetLinkIndex(leaf, spine, link);
    DynamicCast<RoceNetDevice>(m_fabricDevs.Get(2 * index))->SetReceiveErrorModel(em);
    DynamicCast<RoceNetDevice>(m_fabricDevs.Get(2 * index + 1))->SetReceiveErrorModel(em);
}

void
EthernetClosHelper::ScheduleLinkState(uint32_t leaf,
                                      uint32_t spine,
                                      uint32_t link,
                                      Time at,
                                      bool up)
{
    NS_ABORT_MSG_IF(at.IsStrictlyNegative(),
                    "EthernetClosHelper::ScheduleLinkState: delay " << at << " is negative");
    Simulator::Schedule(at, &RoceChannel::SetUp, GetFabricChannel(leaf, spine, link), up);
}

void
EthernetClosHelper::UpdateLeafRoutes(const std::shared_ptr<const Topology>& topology)
{
    const ClusterDescription& c = topology->cluster;
    const uint32_t links = c.linksPerLeafSpine;
    for (uint32_t dstLeaf = 0; dstLeaf < c.leaves; ++dstLeaf)
    {
        // Spines that advertise a link to the destination leaf.
        std::vector<bool> reaches(c.spines, false);
        for (uint32_t s = 0; s < c.spines; ++s)
        {
            for (uint32_t k = 0; k < links && !reaches[s]; ++k)
            {
                reaches[s] = topology->spines[s]->IsPortAdvertised(
                    topology->spineDownPorts[(dstLeaf * c.spines + s) * links + k]);
            }
        }
        for (uint32_t l = 0; l < c.leaves; ++l)
        {
            if (l == dstLeaf)
            {
                continue;
            }
            std::vector<uint32_t> all;
            std::vector<uint32_t> usable;
            for (uint32_t s = 0; s < c.spines; ++s)
            {
                for (uint32_t k = 0; k < links; ++k)
                {
                    const uint32_t port = topology->leafUplinkPorts[(l * c.spines + s) * links + k];
                    all.push_back(port);
                    if (reaches[s])
                    {
                        usable.push_back(port);
                    }
                }
            }
            for (uint32_t p = 0; p < c.hostsPerLeaf; ++p)
            {
                topology->leaves[l]->SetRoute(dstLeaf * c.hostsPerLeaf + p,
                                              usable.empty() ? all : usable);
            }
        }
    }
}

EthernetClosHelper::Totals
EthernetClosHelper::GetTotals() const
{
    Totals t;
    uint64_t forwarded = 0; // by every switch, on any port
    uint64_t received = 0;  // by every switch, from any port
    auto addSwitch = [&t, &forwarded, &received](const Ptr<EthernetSwitch>& sw) {
        const auto& c = sw->GetCounters();
        forwarded += c.forwardedPackets;
        received += c.receivedPackets;
        t.droppedPackets += c.noRouteDrops + c.bufferDrops + c.linkDownDrops;
        t.bufferDrops += c.bufferDrops;
        t.noRouteDrops += c.noRouteDrops;
        t.linkDownDrops += c.linkDownDrops;
        t.droppedBytes += c.noRouteDropBytes + c.bufferDropBytes + c.linkDownDropBytes;
        t.headroomDrops += c.headroomDrops;
        t.queuedPackets += c.receivedPackets - c.forwardedPackets - c.noRouteDrops - c.bufferDrops -
                           c.linkDownDrops;
        t.queuedBytes += sw->GetMmu()->GetUsedBytes();
        t.ecnMarked += c.ecnMarked;
        t.pfcPauses += c.pfcPauses;
        t.pfcResumes += c.pfcResumes;
        t.bufferHighWater = std::max(t.bufferHighWater, sw->GetMmu()->GetHighWater());
    };
    const uint32_t hostPorts = m_cluster.hostsPerLeaf;
    for (const auto& leaf : m_topology->leaves)
    {
        addSwitch(leaf);
        // Host ports are the leaf's first ports; what leaves them is delivered.
        for (uint32_t p = 0; p < hostPorts; ++p)
        {
            t.deliveredPackets += leaf->GetPortForwardedPackets(p);
            t.deliveredBytes += leaf->GetPortForwardedBytes(p);
        }
    }
    for (const auto& spine : m_topology->spines)
    {
        addSwitch(spine);
    }
    for (const auto& channel : m_topology->channels)
    {
        t.linkLostFrames += channel->GetFramesLost();
        t.linkLostPackets += channel->GetDataFramesLost();
    }
    uint64_t fromHosts = 0; // packets the leaves received from their host ports
    for (uint32_t h = 0; h < m_leafHostDevs.GetN(); ++h)
    {
        const auto& c = DynamicCast<RoceNetDevice>(m_leafHostDevs.Get(h))->GetCounters();
        t.offeredPackets += c.rxFrames;
        t.offeredBytes += c.rxBytes;
        fromHosts += c.rxFrames - c.pfcReceived;
    }
    // The error models: a leaf host port's losses were offered to the fabric, a
    // host NIC's were delivered by it, a fabric port's were forwarded by one switch
    // and never received by the next.
    const HostLinkErrorDrops errors = GetHostLinkErrorDrops();
    t.leafPortErrorDropPackets = errors.leafHostPortPackets;
    t.offeredPackets += errors.leafHostPortPackets;
    t.offeredBytes += errors.leafHostPortBytes;
    t.hostNicErrorDropPackets = errors.hostNicPackets;
    t.deliveredPackets -= errors.hostNicPackets;
    t.deliveredBytes -= errors.hostNicBytes;
    for (uint32_t i = 0; i < m_fabricDevs.GetN(); ++i)
    {
        const auto& c = DynamicCast<RoceNetDevice>(m_fabricDevs.Get(i))->GetCounters();
        t.fabricPortErrorDropPackets += c.rxErrorDataDrops;
    }
    // Between switches: forwarded onto a leaf-spine link (every forward but to a host
    // port), not yet received by the switch at its other end, nor lost on the way.
    const uint64_t intoFabric = forwarded - (t.deliveredPackets + errors.hostNicPackets);
    const uint64_t fromFabric = received - fromHosts;
    t.inTransitPackets = intoFabric - fromFabric - t.fabricPortErrorDropPackets - t.linkLostPackets;
    return t;
}

uint64_t
EthernetClosHelper::Totals::GetDroppedPackets() const
{
    return droppedPackets + linkLostPackets + hostNicErrorDropPackets + leafPortErrorDropPackets +
           fabricPortErrorDropPackets;
}

int64_t
EthernetClosHelper::Totals::GetUnaccountedPackets() const
{
    return static_cast<int64_t>(offeredPackets) -
           static_cast<int64_t>(deliveredPackets + queuedPackets + inTransitPackets +
                                GetDroppedPackets());
}

void
EthernetClosHelper::WriteStats(std::ostream& os) const
{
    os << "element,index,counter,value\n";
    const Totals t = GetTotals();
    WriteStatsLine(os, "fabric", "0", "offeredPackets", t.offeredPackets);
    WriteStatsLine(os, "fabric", "0", "offeredBytes", t.offeredBytes);
    WriteStatsLine(os, "fabric", "0", "deliveredPackets", t.deliveredPackets);
    WriteStatsLine(os, "fabric", "0", "deliveredBytes", t.deliveredBytes);
    WriteStatsLine(os, "fabric", "0", "droppedPackets", t.droppedPackets);
    WriteStatsLine(os, "fabric", "0", "droppedBytes", t.droppedBytes);
    WriteStatsLine(os, "fabric", "0", "headroomDrops", t.headroomDrops);
    WriteStatsLine(os, "fabric", "0", "linkLostFrames", t.linkLostFrames);
    WriteStatsLine(os, "fabric", "0", "linkLostPackets", t.linkLostPackets);
    WriteStatsLine(os, "fabric", "0", "inTransitPackets", t.inTransitPackets);
    WriteStatsLine(os, "fabric", "0", "hostNicErrorDropPackets", t.hostNicErrorDropPackets);
    WriteStatsLine(os, "fabric", "0", "leafPortErrorDropPackets", t.leafPortErrorDropPackets);
    WriteStatsLine(os, "fabric", "0", "fabricPortErrorDropPackets", t.fabricPortErrorDropPackets);
    WriteStatsLine(os, "fabric", "0", "unaccountedPackets", t.GetUnaccountedPackets());
    WriteStatsLine(os, "fabric", "0", "queuedPackets", t.queuedPackets);
    WriteStatsLine(os, "fabric", "0", "queuedBytes", t.queuedBytes);
    WriteStatsLine(os, "fabric", "0", "ecnMarked", t.ecnMarked);
    WriteStatsLine(os, "fabric", "0", "pfcPauses", t.pfcPauses);
    WriteStatsLine(os, "fabric", "0", "pfcResumes", t.pfcResumes);
    WriteStatsLine(os, "fabric", "0", "bufferHighWater", t.bufferHighWater);
    auto writeSwitch = [&os](const char* kind, uint32_t index, const Ptr<EthernetSwitch>& sw) {
        const std::string i = std::to_string(index);
        const auto& c = sw->GetCounters();
        WriteStatsLine(os, kind, i, "receivedPackets", c.receivedPackets);
        WriteStatsLine(os, kind, i, "receivedBytes", c.receivedBytes);
        WriteStatsLine(os, kind, i, "forwardedPackets", c.forwardedPackets);
        WriteStatsLine(os, kind, i, "forwardedBytes", c.forwardedBytes);
        WriteStatsLine(os, kind, i, "noRouteDrops", c.noRouteDrops);
        WriteStatsLine(os, kind, i, "noRouteDropBytes", c.noRouteDropBytes);
        WriteStatsLine(os, kind, i, "bufferDrops", c.bufferDrops);
        WriteStatsLine(os, kind, i, "bufferDropBytes", c.bufferDropBytes);
        WriteStatsLine(os, kind, i, "headroomDrops", c.headroomDrops);
        WriteStatsLine(os, kind, i, "linkDownDrops", c.linkDownDrops);
        WriteStatsLine(os, kind, i, "linkDownDropBytes", c.linkDownDropBytes);
        WriteStatsLine(os, kind, i, "ecnMarked", c.ecnMarked);
        WriteStatsLine(os, kind, i, "pfcPauses", c.pfcPauses);
        WriteStatsLine(os, kind, i, "pfcPauseRefreshes", c.pfcPauseRefreshes);
        WriteStatsLine(os, kind, i, "pfcResumes", c.pfcResumes);
        WriteStatsLine(os, kind, i, "bufferHighWater", sw->GetMmu()->GetHighWater());
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            const std::string ip = i + ":" + std::to_string(p);
            const std::string portKind = std::string(kind) + "Port";
            const auto& d = sw->GetPort(p)->GetCounters();
            WriteStatsLine(os,
                           portKind.c_str(),
                           ip,
                           "forwardedPackets",
                           sw->GetPortForwardedPackets(p));
            WriteStatsLine(os,
                           portKind.c_str(),
                           ip,
                           "forwardedBytes",
                           sw->GetPortForwardedBytes(p));
            WriteStatsLine(os, portKind.c_str(), ip, "pfcSent", d.pfcSent);
            WriteStatsLine(os, portKind.c_str(), ip, "pfcReceived", d.pfcReceived);
        }
    };
    for (uint32_t l = 0; l < m_topology->leaves.size(); ++l)
    {
        writeSwitch("leaf", l, m_topology->leaves[l]);
    }
    for (uint32_t s = 0; s < m_topology->spines.size(); ++s)
    {
        writeSwitch("spine", s, m_topology->spines[s]);
    }
}

int64_t
EthernetClosHelper::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (const auto& sw : m_topology->leaves)
    {
        used += sw->AssignStreams(stream + used);
    }
    for (const auto& sw : m_topology->spines)
    {
        used += sw->AssignStreams(stream + used);
    }
    // Last, so the switches' streams are the same with or without error models.
    used += AssignErrorModelStreams(stream + used);
    return used;
}

} // namespace ns3
