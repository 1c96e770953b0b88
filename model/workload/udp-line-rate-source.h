/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_UDP_LINE_RATE_SOURCE_H
#define AI_FABRIC_UDP_LINE_RATE_SOURCE_H

#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
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

    /// \param at when to start sending (plus a random offset below StartJitter)
    void Start(Time at);
    /// \param at when to stop sending
    void Stop(Time at);

    /// \return packets handed to the NIC
    uint64_t GetPacketsSent() const;
    /// \return IPv4 bytes handed to the NIC
    uint64_t GetBytesSent() const;

    /**
     * Use a fixed random stream for the start offset and the gaps.
     * \param stream first stream index to use
     * \return the number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

  protected:
    /// Cancel the pending start and stop, release the NIC.
    void DoDispose() override;

  private:
    /// \param destination a flow's destination \return its source port (entropy)
    uint16_t FlowPort(Ipv4Address destination) const;
    /**
     * The NIC asks for the next packet.
     * \param priority the NIC priority it serves (the source's, from Dscp)
     * \return the packet, or null while idle (stopped, done, or in a gap)
     */
    Ptr<Packet> Pull(uint8_t priority);
    /// The idle gap before the next packet is over: tell the NIC.
    void GapOver();
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
    Time m_startJitter;                          //!< attribute StartJitter
    Time m_gapJitter;                            //!< attribute GapJitter
    Ptr<UniformRandomVariable> m_jitter;         //!< draws the start offset and gaps
    EventId m_gapEvent;                          //!< end of the idle gap before a packet
    bool m_gapTaken{false};                      //!< the next packet's gap is over
    bool m_running{false};                       //!< sending
    EventId m_startEvent;                        //!< pending Start
    EventId m_stopEvent;                         //!< pending Stop
    uint64_t m_packets{0};                       //!< counter
    uint64_t m_bytes{0};                         //!< counter
    TracedCallback<Ptr<const Packet>> m_txTrace; //!< packet handed to the NIC
};

} // namespace ns3

#endif /* AI_FABRIC_UDP_LINE_RATE_SOURCE_H */
