/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cluster-fabric-helper.h"

#include "ns3/abort.h"
#include "ns3/error-model.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/random-variable-stream.h"
#include "ns3/roce-channel.h"
#include "ns3/simulator.h"

#include <set>

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/roce-remote-channel.h"
#endif

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
    m_roceDevices.push_back(device);
    return device;
}

int64_t
ClusterFabricHelper::AssignErrorModelStreams(int64_t stream, const NetDeviceContainer& others)
{
    NS_LOG_FUNCTION(this << stream);
    int64_t used = 0;
    std::set<const Object*> seen; // one model may serve every device (an attribute default)
    std::vector<Ptr<NetDevice>> devices(m_roceDevices.begin(), m_roceDevices.end());
    devices.insert(devices.end(), others.Begin(), others.End());
    for (const Ptr<NetDevice>& device : devices)
    {
        PointerValue model;
        device->GetAttribute("ReceiveErrorModel", model);
        Ptr<Object> object = model.GetObject();
        if (!object || !seen.insert(PeekPointer(object)).second)
        {
            continue;
        }
        for (TypeId tid = object->GetInstanceTypeId();; tid = tid.GetParent())
        {
            for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
            {
                const TypeId::AttributeInformation info = tid.GetAttribute(i);
                Ptr<AttributeValue> value = info.checker->Create();
                if (!DynamicCast<PointerValue>(value) || !info.accessor->HasGetter() ||
                    !info.accessor->Get(PeekPointer(object), *value))
                {
                    continue;
                }
                auto variable = DynamicCast<RandomVariableStream>(
                    DynamicCast<PointerValue>(value)->GetObject());
                if (variable)
                {
                    NS_LOG_LOGIC(object->GetInstanceTypeId().GetName()
                                 << "::" << info.name << ": stream " << stream + used);
                    variable->SetStream(stream + used);
                    ++used;
                }
            }
            if (tid == tid.GetParent())
            {
                break;
            }
        }
    }
    return used;
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
    CheckPartitions();
    // Hosts, leaves, spines: the node order (and so the node ids) of a sequential run.
    for (uint32_t h = 0; h < cluster.GetHosts(); ++h)
    {
        m_hosts.Create(1, GetPartition(cluster.GetLeafOfHost(h), cluster.leaves));
    }
    for (uint32_t l = 0; l < cluster.leaves; ++l)
    {
        m_leaves.Create(1, GetPartition(l, cluster.leaves));
    }
    for (uint32_t s = 0; s < cluster.spines; ++s)
    {
        m_spines.Create(1, GetPartition(s, cluster.spines));
    }
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
        CreateLink(nic, port, cluster.hostLinkDelay);
        m_hostDevs.Add(nic);
        m_leafHostDevs.Add(port);
        AddHostPort(h, port);
    }
    CreateFabricLinks();
}

void
ClusterFabricHelper::SetPartitions(uint32_t partitions)
{
    NS_LOG_FUNCTION(this << partitions);
    m_partitions = partitions;
}

uint32_t
ClusterFabricHelper::GetPartitions() const
{
    return m_partitions;
}

uint32_t
ClusterFabricHelper::GetPartition(uint32_t index, uint32_t count) const
{
    return static_cast<uint32_t>(uint64_t{index} * m_partitions / count);
}

bool
ClusterFabricHelper::IsLocalHost(uint32_t host) const
{
#ifdef NS3_MPI
    if (m_partitions > 1)
    {
        return GetPartition(m_cluster.GetLeafOfHost(host), m_cluster.leaves) ==
               MpiInterface::GetSystemId();
    }
#endif
    return true;
}

void
ClusterFabricHelper::CheckPartitions() const
{
    const char* name = GetFabricName();
    NS_ABORT_MSG_IF(m_partitions == 0, name << ": Partitions must be at least 1, got 0");
    if (m_partitions == 1)
    {
        return;
    }
#ifdef NS3_MPI
    NS_ABORT_MSG_IF(!MpiInterface::IsEnabled() || MpiInterface::GetSize() != m_partitions,
                    name << ": Partitions " << m_partitions << " needs a run of as many MPI "
                         << "processes (MpiInterface::Enable), but it has "
                         << (MpiInterface::IsEnabled() ? MpiInterface::GetSize() : 1));
    NS_ABORT_MSG_IF(m_partitions > m_cluster.leaves,
                    name << ": Partitions " << m_partitions << " is more than the "
                         << m_cluster.leaves << " leaves");
    NS_ABORT_MSG_IF(!m_cluster.fabricLinkDelay.IsStrictlyPositive(),
                    name << ": Partitions " << m_partitions << " needs a positive "
                         << "fabricLinkDelay (the lookahead between processes), got "
                         << m_cluster.fabricLinkDelay.As(Time::NS));
#else
    NS_ABORT_MSG(name << ": Partitions " << m_partitions << " needs ns-3 built with MPI "
                      << "(an ns-3 source tree configured with --enable-mpi)");
#endif
}

Ptr<RoceChannel>
ClusterFabricHelper::CreateLink(Ptr<RoceNetDevice> a, Ptr<RoceNetDevice> b, Time delay) const
{
    Ptr<RoceChannel> channel;
#ifdef NS3_MPI
    if (a->GetNode()->GetSystemId() != b->GetNode()->GetSystemId())
    {
        channel = CreateObject<RoceRemoteChannel>();
        for (const Ptr<RoceNetDevice>& end : {a, b})
        {
            Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
            receiver->SetReceiveCallback(MakeCallback(&RoceNetDevice::Receive, end));
            end->AggregateObject(receiver);
        }
    }
#endif
    if (!channel)
    {
        channel = CreateObject<RoceChannel>();
    }
    channel->SetDelay(delay);
    a->Attach(channel);
    b->Attach(channel);
    return channel;
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

ClusterFabricHelper::HostLinkErrorDrops
ClusterFabricHelper::GetHostLinkErrorDrops() const
{
    HostLinkErrorDrops drops;
    for (uint32_t h = 0; h < m_hostDevs.GetN(); ++h)
    {
        const auto& nic = DynamicCast<RoceNetDevice>(m_hostDevs.Get(h))->GetCounters();
        drops.hostNicPackets += nic.rxErrorDataDrops;
        drops.hostNicBytes += nic.rxErrorDataDropBytes;
        const auto& port = DynamicCast<RoceNetDevice>(m_leafHostDevs.Get(h))->GetCounters();
        drops.leafHostPortPackets += port.rxErrorDataDrops;
        drops.leafHostPortBytes += port.rxErrorDataDropBytes;
    }
    return drops;
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

void
ClusterFabricHelper::SetHostLinkErrorModel(uint32_t host, Ptr<ErrorModel> em)
{
    NS_LOG_FUNCTION(this << host << em);
    NS_ABORT_MSG_IF(host >= m_leafHostDevs.GetN(),
                    GetFabricName() << ": no host " << host << " (" << m_leafHostDevs.GetN()
                                    << " hosts) for a lossy host link");
    GetHostDevice(host)->SetReceiveErrorModel(em);
    DynamicCast<RoceNetDevice>(m_leafHostDevs.Get(host))->SetReceiveErrorModel(em);
}

} // namespace ns3
