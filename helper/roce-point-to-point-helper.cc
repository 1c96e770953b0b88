/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-point-to-point-helper.h"

#include "ns3/abort.h"
#include "ns3/config.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-net-device.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RocePointToPointHelper");

RocePointToPointHelper::RocePointToPointHelper()
    : m_nextAddress("10.0.0.1")
{
    m_deviceFactory.SetTypeId("ns3::RoceNetDevice");
    m_channelFactory.SetTypeId("ns3::RoceChannel");
}

void
RocePointToPointHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    m_deviceFactory.Set(name, value);
}

void
RocePointToPointHelper::SetChannelAttribute(const std::string& name, const AttributeValue& value)
{
    m_channelFactory.Set(name, value);
}

void
RocePointToPointHelper::SetBaseAddress(Ipv4Address first)
{
    m_nextAddress = first;
}

NetDeviceContainer
RocePointToPointHelper::Install(const NodeContainer& nodes)
{
    NS_ABORT_MSG_IF(nodes.GetN() != 2,
                    "RocePointToPointHelper: a wire needs exactly 2 nodes, got " << nodes.GetN());
    return Install(nodes.Get(0), nodes.Get(1));
}

NetDeviceContainer
RocePointToPointHelper::Install(Ptr<Node> a, Ptr<Node> b)
{
    NetDeviceContainer devices;
    Ptr<RoceChannel> channel = m_channelFactory.Create<RoceChannel>();
    for (Ptr<Node> node : {a, b})
    {
        Ptr<RoceNetDevice> device = m_deviceFactory.Create<RoceNetDevice>();
        device->SetIpv4Address(m_nextAddress);
        m_nextAddress = Ipv4Address(m_nextAddress.Get() + 1);
        node->AddDevice(device);
        device->Attach(channel);
        devices.Add(device);
    }
    return devices;
}

void
RocePointToPointHelper::EnablePcapInternal(std::string prefix,
                                           Ptr<NetDevice> nd,
                                           bool promiscuous,
                                           bool explicitFilename)
{
    Ptr<RoceNetDevice> device = nd->GetObject<RoceNetDevice>();
    if (!device)
    {
        NS_LOG_INFO("not a RoceNetDevice: no pcap");
        return;
    }
    PcapHelper pcapHelper;
    std::string filename =
        explicitFilename ? prefix : pcapHelper.GetFilenameFromDevice(prefix, device);
    Ptr<PcapFileWrapper> file =
        pcapHelper.CreateFile(filename, std::ios::out, PcapHelper::DLT_EN10MB);
    pcapHelper.HookDefaultSink<RoceNetDevice>(device,
                                              promiscuous ? "PromiscSniffer" : "Sniffer",
                                              file);
}

void
RocePointToPointHelper::EnableAsciiInternal(Ptr<OutputStreamWrapper> stream,
                                            std::string prefix,
                                            Ptr<NetDevice> nd,
                                            bool explicitFilename)
{
    Ptr<RoceNetDevice> device = nd->GetObject<RoceNetDevice>();
    if (!device)
    {
        NS_LOG_INFO("not a RoceNetDevice: no ascii trace");
        return;
    }
    Packet::EnablePrinting();
    if (!stream)
    {
        AsciiTraceHelper asciiTraceHelper;
        std::string filename =
            explicitFilename ? prefix : asciiTraceHelper.GetFilenameFromDevice(prefix, device);
        Ptr<OutputStreamWrapper> theStream = asciiTraceHelper.CreateFileStream(filename);
        asciiTraceHelper.HookDefaultEnqueueSinkWithoutContext<RoceNetDevice>(device,
                                                                             "MacTx",
                                                                             theStream);
        asciiTraceHelper.HookDefaultDropSinkWithoutContext<RoceNetDevice>(device,
                                                                          "MacTxDrop",
                                                                          theStream);
        asciiTraceHelper.HookDefaultReceiveSinkWithoutContext<RoceNetDevice>(device,
                                                                             "Rx",
                                                                             theStream);
        return;
    }
    uint32_t nodeid = nd->GetNode()->GetId();
    uint32_t deviceid = nd->GetIfIndex();
    std::ostringstream oss;
    oss << "/NodeList/" << nodeid << "/DeviceList/" << deviceid << "/$ns3::RoceNetDevice/";
    Config::Connect(oss.str() + "MacTx",
                    MakeBoundCallback(&AsciiTraceHelper::DefaultEnqueueSinkWithContext, stream));
    Config::Connect(oss.str() + "MacTxDrop",
                    MakeBoundCallback(&AsciiTraceHelper::DefaultDropSinkWithContext, stream));
    Config::Connect(oss.str() + "Rx",
                    MakeBoundCallback(&AsciiTraceHelper::DefaultReceiveSinkWithContext, stream));
}

} // namespace ns3
