/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_UDP_LINE_RATE_SOURCE_H
#define AI_FABRIC_UDP_LINE_RATE_SOURCE_H

#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

class Packet;
class RoceNetDevice;

/**
 * \ingroup ai-fabric
 * \brief A simple traffic source for fabric tests and examples: IPv4/UDP packets
 * of a fixed size from one host NIC to one address, at the NIC's line rate.
 *
 * It feeds the RoceNetDevice through its pull interface, so the host never
 * queues ahead of the wire and honours PFC pauses; it stops after MaxBytes or at
 * Stop(). It is not a transport: nothing is retransmitted.
 */
class UdpLineRateSource : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    UdpLineRateSource();

    /**
     * \param nic the host NIC (its Ipv4Address is the source address)
     * \param destination destination address
     */
    void Setup(Ptr<RoceNetDevice> nic, Ipv4Address destination);
    /**
     * Send through nic to several destinations, one packet to each in turn (an
     * all-to-all of line-rate streams).
     * \param nic the host's NIC
     * \param destinations IPv4 destinations (at least one)
     */
    void Setup(Ptr<RoceNetDevice> nic, const std::vector<Ipv4Address>& destinations);

    /// \param at when to start sending
    void Start(Time at);
    /// \param at when to stop sending
    void Stop(Time at);

    /// \return packets handed to the NIC
    uint64_t GetPacketsSent() const;
    /// \return IPv4 bytes handed to the NIC
    uint64_t GetBytesSent() const;

  protected:
    void DoDispose() override;

  private:
    /// \param destination a flow's destination \return its source port (entropy)
    uint16_t FlowPort(Ipv4Address destination) const;
    /// The NIC asks for the next packet.
    Ptr<Packet> Pull(uint8_t priority);
    /// Begin.
    void DoStart();

    Ptr<RoceNetDevice> m_nic;                    //!< host NIC
    std::vector<Ipv4Address> m_dst;              //!< destinations, in turn
    std::size_t m_next{0};                       //!< the next packet's destination
    uint32_t m_packetSize;                       //!< attribute PacketSize (IPv4 bytes)
    uint8_t m_dscp;                              //!< attribute Dscp
    uint64_t m_maxBytes;                         //!< attribute MaxBytes
    uint16_t m_port;                             //!< attribute DestinationPort
    uint16_t m_sourcePort;                       //!< attribute SourcePort (0: per flow)
    bool m_running{false};                       //!< sending
    EventId m_startEvent;                        //!< pending Start
    EventId m_stopEvent;                         //!< pending Stop
    uint64_t m_packets{0};                       //!< counter
    uint64_t m_bytes{0};                         //!< counter
    TracedCallback<Ptr<const Packet>> m_txTrace; //!< packet handed to the NIC
};

} // namespace ns3

#endif /* AI_FABRIC_UDP_LINE_RATE_SOURCE_H */
