/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cluster-fabric-helper.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ClusterFabricHelper");

ClusterFabricHelper::ClusterFabricHelper()
{
    m_deviceFactory.SetTypeId("ns3::RoceNetDevice");
}

ClusterFabricHelper::~ClusterFabricHelper() = default;

void
ClusterFabricHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    m_deviceFactory.Set(name, value);
}

Ptr<RoceNetDevice>
ClusterFabricHelper::CreateDevice(DataRate rate) const
{
    Ptr<RoceNetDevice> device = m_deviceFactory.Create<RoceNetDevice>();
    device->SetDataRate(rate);
    device->SetAddress(Mac48Address::Allocate());
    return device;
}

void
ClusterFabricHelper::Install(const ClusterDescription& cluster)
{
    const char* name = GetFabricName();
    NS_ABORT_MSG_IF(cluster.leaves == 0, name << ": leaves must be at least 1, got 0");
    NS_ABORT_MSG_IF(cluster.spines == 0, name << ": spines must be at least 1, got 0");
    cluster.Validate();
    NS_ABORT_MSG_IF(m_leaves.GetN() != 0, name << ": Install called twice");
    m_cluster = cluster;
    m_hosts.Create(cluster.GetHosts());
    m_leaves.Create(cluster.leaves);
    m_spines.Create(cluster.spines);
    CreateSwitches();
    // Host links, in host order (host port order on each leaf).
    for (uint32_t h = 0; h < cluster.GetHosts(); ++h)
    {
        Ptr<RoceNetDevice> nic = CreateDevice(cluster.hostLinkRate);
        Ptr<RoceNetDevice> port = CreateDevice(cluster.hostLinkRate);
        nic->SetIpv4Address(cluster.GetHostAddress(h));
        port->SetIpv4Address(cluster.GetHostAddress(h));
        m_hosts.Get(h)->AddDevice(nic);
        m_leaves.Get(cluster.GetLeafOfHost(h))->AddDevice(port);
        Ptr<RoceChannel> channel = CreateObject<RoceChannel>();
        channel->SetDelay(cluster.hostLinkDelay);
        nic->Attach(channel);
        port->Attach(channel);
        m_hostDevs.Add(nic);
        m_leafHostDevs.Add(port);
        AddHostPort(h, port);
    }
    CreateFabricLinks();
}

const ClusterDescription&
ClusterFabricHelper::GetCluster() const
{
    return m_cluster;
}

const NodeContainer&
ClusterFabricHelper::GetHosts() const
{
    return m_hosts;
}

const NodeContainer&
ClusterFabricHelper::GetLeaves() const
{
    return m_leaves;
}

const NodeContainer&
ClusterFabricHelper::GetSpines() const
{
    return m_spines;
}

const NetDeviceContainer&
ClusterFabricHelper::GetHostDevices() const
{
    return m_hostDevs;
}

const NetDeviceContainer&
ClusterFabricHelper::GetLeafHostDevices() const
{
    return m_leafHostDevs;
}

void
ClusterFabricHelper::ScheduleNicSlowdown(uint32_t host, double fraction, Time at)
{
    NS_LOG_FUNCTION(this << host << fraction << at);
    Ptr<RoceNetDevice> nic = GetHostDevice(host);
    NS_ABORT_MSG_IF(!(fraction > 0 && fraction <= 1),
                    GetFabricName() << ": NIC slowdown fraction " << fraction << " of host " << host
                                    << " is not in (0, 1]");
    NS_ABORT_MSG_IF(at.IsStrictlyNegative(),
                    GetFabricName() << ": NIC slowdown of host " << host << " at "
                                    << at.As(Time::US) << " is in the past");
    const DataRate rate(static_cast<uint64_t>(m_cluster.hostLinkRate.GetBitRate() * fraction));
    Simulator::Schedule(at, [nic, rate]() { nic->SetDataRate(rate); });
}

Ptr<RoceNetDevice>
ClusterFabricHelper::GetHostDevice(uint32_t host) const
{
    NS_ABORT_MSG_IF(host >= m_hostDevs.GetN(),
                    GetFabricName()
                        << ": no host " << host << " (" << m_hostDevs.GetN() << " hosts)");
    return DynamicCast<RoceNetDevice>(m_hostDevs.Get(host));
}

void
ClusterFabricHelper::WriteStatsLine(std::ostream& os,
                                    const char* element,
                                    const std::string& index,
                                    const char* counter,
                                    int64_t value)
{
    os << element << "," << index << "," << counter << "," << value << "\n";
}

void
ClusterFabricHelper::EnablePcapInternal(std::string prefix,
                                        Ptr<NetDevice> nd,
                                        bool promiscuous,
                                        bool explicitFilename)
{
    Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(nd);
    if (!dev)
    {
        NS_LOG_INFO("pcap only on Ethernet links; " << nd->GetInstanceTypeId().GetName()
                                                    << " carries cells");
        return;
    }
    PcapHelper pcapHelper;
    const std::string filename =
        explicitFilename ? prefix : pcapHelper.GetFilenameFromDevice(prefix, dev);
    Ptr<PcapFileWrapper> file =
        pcapHelper.CreateFile(filename, std::ios::out, PcapHelper::DLT_EN10MB);
    pcapHelper.HookDefaultSink<RoceNetDevice>(dev,
                                              promiscuous ? "PromiscSniffer" : "Sniffer",
                                              file);
}

void
ClusterFabricHelper::EnableAsciiFabricDevice(Ptr<OutputStreamWrapper> /* stream */,
                                             Ptr<NetDevice> device)
{
    NS_LOG_INFO("no ascii trace for " << device->GetInstanceTypeId().GetName());
}

namespace
{
/// Ascii line for a frame: "+"/"d" time, node, priority, frame.
void
AsciiFrame(Ptr<OutputStreamWrapper> stream,
           char tag,
           uint32_t node,
           Ptr<const Packet> frame,
           uint8_t priority)
{
    *stream->GetStream() << tag << " " << Simulator::Now().GetSeconds() << " node " << node
                         << " prio " << unsigned(priority) << " " << *frame << std::endl;
}
} // namespace

void
ClusterFabricHelper::EnableAsciiInternal(Ptr<OutputStreamWrapper> stream,
                                         std::string prefix,
                                         Ptr<NetDevice> nd,
                                         bool explicitFilename)
{
    if (!stream)
    {
        AsciiTraceHelper asciiTraceHelper;
        const std::string filename =
            explicitFilename ? prefix : asciiTraceHelper.GetFilenameFromDevice(prefix, nd);
        stream = asciiTraceHelper.CreateFileStream(filename);
    }
    Ptr<RoceNetDevice> dev = DynamicCast<RoceNetDevice>(nd);
    if (!dev)
    {
        EnableAsciiFabricDevice(stream, nd);
        return;
    }
    const uint32_t node = nd->GetNode()->GetId();
    dev->TraceConnectWithoutContext(
        "Enqueue",
        MakeBoundCallback(
            +[](Ptr<OutputStreamWrapper> s, uint32_t n, Ptr<const Packet> f, uint8_t p) {
                AsciiFrame(s, '+', n, f, p);
            },
            stream,
            node));
    dev->TraceConnectWithoutContext(
        "Drop",
        MakeBoundCallback(
            +[](Ptr<OutputStreamWrapper> s, uint32_t n, Ptr<const Packet> f, uint8_t p) {
                AsciiFrame(s, 'd', n, f, p);
            },
            stream,
            node));
}

} // namespace ns3
