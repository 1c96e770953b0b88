/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_ROCE_POINT_TO_POINT_HELPER_H
#define AI_FABRIC_ROCE_POINT_TO_POINT_HELPER_H

#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/trace-helper.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Builds RoceNetDevice pairs joined by a RoceChannel (for unit tests and small
 * examples), assigns each NIC a RoCE IPv4 address from a base address, and enables
 * pcap (DLT_EN10MB) and ascii traces on them.
 */
class RocePointToPointHelper : public PcapHelperForDevice, public AsciiTraceHelperForDevice
{
  public:
    RocePointToPointHelper();

    /// \param name attribute of ns3::RoceNetDevice \param value its value
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);
    /// \param name attribute of ns3::RoceChannel \param value its value
    void SetChannelAttribute(const std::string& name, const AttributeValue& value);
    /**
     * The next NIC gets this address, the one after it the next address, and so on.
     * \param first the first address (default 10.0.0.1)
     */
    void SetBaseAddress(Ipv4Address first);

    /**
     * Connect two nodes with a wire.
     * \param a first node
     * \param b second node
     * \return the two devices (a's first)
     */
    NetDeviceContainer Install(Ptr<Node> a, Ptr<Node> b);
    /// \param nodes exactly two nodes \return the two devices
    NetDeviceContainer Install(const NodeContainer& nodes);

  private:
    /**
     * Write an Ethernet pcap file of a RoceNetDevice (other devices have none).
     * \param prefix the file name prefix
     * \param nd the device
     * \param promiscuous hook PromiscSniffer rather than Sniffer
     * \param explicitFilename prefix is the whole file name
     */
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;
    /**
     * Trace a RoceNetDevice's MacTx, MacTxDrop and Rx with the default ascii sinks.
     * \param stream the stream, or null to create a file from prefix
     * \param prefix the file name prefix
     * \param nd the device
     * \param explicitFilename prefix is the whole file name
     */
    void EnableAsciiInternal(Ptr<OutputStreamWrapper> stream,
                             std::string prefix,
                             Ptr<NetDevice> nd,
                             bool explicitFilename) override;

    ObjectFactory m_deviceFactory;  //!< device factory
    ObjectFactory m_channelFactory; //!< channel factory
    Ipv4Address m_nextAddress;      //!< next NIC address
};

} // namespace ns3

#endif /* AI_FABRIC_ROCE_POINT_TO_POINT_HELPER_H */
