/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_ROCE_NET_DEVICE_H
#define AI_FABRIC_ROCE_NET_DEVICE_H

#include "fixed-ethernet-header.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ring-queue.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>

namespace ns3
{

class RoceChannel;
class ErrorModel;
class Node;

/**
 * \ingroup ai-fabric
 * \brief A RoCEv2-capable Ethernet NIC port on a full-duplex point-to-point wire.
 *
 * Used both as a host NIC and as the host-facing port of a switch.
 *
 * - Send(packet, dest, 0x0800) takes a packet that starts with its Ipv4Header; the
 *   device adds an EthernetHeader (no FCS in the ns3::Packet, so pcap captures are
 *   plain DLT_EN10MB frames) and queues it in one of eight priority queues. The
 *   priority is DSCP >> 3 of the IPv4 header (DSCP 26 -> 3, DSCP 48 -> 6).
 * - Queues are served in strict priority (7 highest); PFC frames go first of all.
 * - A frame of S bytes (Ethernet header included) takes (max(S, 60) + 4 FCS + 20
 *   preamble and inter-frame gap) x 8 / DataRate on the wire.
 * - Received IEEE 802.1Qbb PFC frames pause a priority for quanta x 512 bit times at
 *   DataRate (0 resumes at once); a frame already on the wire is not interrupted.
 * - The receive callback gets packets starting with their Ipv4Header (protocol
 *   0x0800); PFC frames are consumed by the device.
 * - Pull model: a transport may register a pull callback per priority; when that
 *   priority is free to send (wire idle, not paused, its queue empty) the device
 *   asks it for the next packet, so the transport never queues ahead of the wire.
 */
class RoceNetDevice : public NetDevice
{
  public:
    /// Number of priorities (traffic classes).
    static constexpr uint8_t NUM_PRIORITIES = 8;
    /// Bytes on the wire per frame beyond the ns3::Packet: FCS 4 + preamble and IFG 20.
    static constexpr uint32_t WIRE_EXTRA_BYTES = 24;
    /// Minimum Ethernet frame without FCS.
    static constexpr uint32_t MIN_FRAME_BYTES = 60;
    /// Ethernet header (destination, source, ethertype) the device adds to a packet.
    static constexpr uint32_t ETHERNET_HEADER_BYTES = FixedEthernetHeader::SIZE;
    /// Ethertype of IPv4.
    static constexpr uint16_t IPV4_PROTOCOL = 0x0800;

    /// Asked for the next packet of a priority; returns a packet starting with its
    /// Ipv4Header, or null if it has nothing to send now.
    typedef Callback<Ptr<Packet>, uint8_t> PullCallback;

    /// TracedCallback signature for Enqueue, TxBegin, TxEnd and Drop: (frame,
    /// priority).
    typedef void (*FramePriorityCallback)(Ptr<const Packet> frame, uint8_t priority);
    /// TracedCallback signature for PfcSent and PfcReceived: (priority, quanta).
    typedef void (*PfcCallback)(uint8_t priority, uint16_t quanta);
    /// TracedCallback signature for PfcStorm: (priority, true when a storm is
    /// detected, false when it has cleared).
    typedef void (*PfcStormCallback)(uint8_t priority, bool storm);

    /// \return the TypeId
    static TypeId GetTypeId();
    RoceNetDevice();
    ~RoceNetDevice() override;

    /**
     * \param rate the line rate (zero is an error)
     */
    void SetDataRate(DataRate rate);
    /// \return the line rate
    DataRate GetDataRate() const;

    /**
     * Attach to a channel (each channel takes two devices).
     * \param channel the channel
     * \return true
     */
    bool Attach(Ptr<RoceChannel> channel);

    /// \param em error model applied to every received frame (dropped frames are counted)
    void SetReceiveErrorModel(Ptr<ErrorModel> em);

    /// \param address the RoCE endpoint IPv4 address of the host behind this port
    void SetIpv4Address(Ipv4Address address);
    /// \return the RoCE endpoint IPv4 address
    Ipv4Address GetIpv4Address() const;

    /// \param priority 0..7 \return bytes (Ethernet header included) queued at that priority
    uint64_t GetQueueBytes(uint8_t priority) const;
    /// \return bytes (Ethernet headers included) queued at all priorities
    uint64_t GetTotalQueueBytes() const;
    /// \param priority 0..7 \return frames queued at that priority
    uint32_t GetQueuePackets(uint8_t priority) const;

    /**
     * Send an IEEE 802.1Qbb PFC frame to the peer, ahead of every queued frame.
     * \param priority 0..7
     * \param quanta pause time in quanta of 512 bit times; 0 resumes the peer
     */
    void SendPfc(uint8_t priority, uint16_t quanta);
    /// \param priority 0..7 \return whether the peer has paused our transmission of it
    bool IsPaused(uint8_t priority) const;

    /**
     * Register a packet source for one priority (the pull model). The device asks it
     * for a frame whenever it could send one of that priority.
     * \param priority 0..7
     * \param cb the source
     */
    void SetPullCallback(uint8_t priority, PullCallback cb);
    /**
     * Register a queue as the packet source for one priority: a source that calls
     * NotifyTxReady(priority) whenever it gains a packet, so the device asks it only
     * from then until it has nothing (a switch port's egress queue, which would
     * otherwise be asked for each of the eight priorities at every frame).
     * \param priority 0..7
     * \param cb the source
     */
    void SetQueuePullCallback(uint8_t priority, PullCallback cb);
    /// Tell the device a pull source has something to send (starts the wire if idle).
    void NotifyTxReady();
    /**
     * Tell the device the source of one priority has something to send.
     * \param priority 0..7
     */
    void NotifyTxReady(uint8_t priority);
    /// \return whether a frame is on the wire now
    bool IsTxBusy() const;

    /// \param frameBytes frame size without FCS \return its time on the wire
    Time GetFrameTxTime(uint32_t frameBytes) const;
    /// \param dscp IPv4 DSCP \return the priority used for it (dscp >> 3)
    static uint8_t PriorityFromDscp(uint8_t dscp);
    /// A PFC frame on the wire: a minimum frame, FCS, preamble and gap (84 B).
    static constexpr uint32_t PFC_FRAME_WIRE_BYTES = MIN_FRAME_BYTES + WIRE_EXTRA_BYTES;
    /**
     * What a switch port receiving on this device must still take after it decides
     * to pause its peer: the frame that crossed the threshold, the frame this device
     * is sending ahead of the pause, the frame the peer is sending when the pause
     * arrives, the pause frame's own time, and the wire's contents both ways.
     * \param linkDelay the link's propagation delay
     * \return 2 x ceil(rate x linkDelay / 8) + 3 largest frames + a PFC frame, bytes
     */
    uint64_t GetPfcHeadroom(Time linkDelay) const;

    /// Counters (never reset).
    struct Counters
    {
        uint64_t txFrames{0};     //!< frames sent
        uint64_t txBytes{0};      //!< bytes sent (frames without FCS)
        uint64_t rxFrames{0};     //!< frames received and accepted
        uint64_t rxBytes{0};      //!< bytes received and accepted
        uint64_t queueDrops{0};   //!< frames refused by a full queue or too big for the Mtu
        uint64_t rxErrorDrops{0}; //!< received frames dropped by the error model
        /// of those, frames other than PFC (the packets a fabric carries)
        uint64_t rxErrorDataDrops{0};
        uint64_t rxErrorDataDropBytes{0}; //!< their bytes (Ethernet header included)
        uint64_t rxMalformed{0};          //!< received frames too short for their headers (dropped)
        uint64_t pfcSent{0};              //!< PFC frames sent
        uint64_t pfcReceived{0};          //!< PFC frames received
        uint64_t pfcStorms{0};            //!< PFC storms the watchdog detected
        uint64_t pfcStormDrops{0};        //!< frames dropped while a storm held their priority
    };

    /// \return the counters
    const Counters& GetCounters() const;
    /// \param priority 0..7 \return frames of that priority sent
    uint64_t GetTxFrames(uint8_t priority) const;

    /// Called by the channel when its state changes: runs the link change callbacks.
    void NotifyLinkChange();

    /**
     * Called by the channel when a frame has fully arrived.
     * \param frame the frame
     */
    void Receive(Ptr<Packet> frame);

    // NetDevice
    /// \param index the interface index
    void SetIfIndex(const uint32_t index) override;
    /// \return the interface index
    uint32_t GetIfIndex() const override;
    /// \return the attached RoceChannel (null before Attach)
    Ptr<Channel> GetChannel() const override;
    /// \param address the MAC address (a Mac48Address)
    void SetAddress(Address address) override;
    /// \return the MAC address
    Address GetAddress() const override;
    /// \param mtu the IPv4 MTU, 68..9216 (else an error) \return true
    bool SetMtu(const uint16_t mtu) override;
    /// \return the IPv4 MTU
    uint16_t GetMtu() const override;
    /// \return true if attached to a channel that is up
    bool IsLinkUp() const override;
    /// \param callback called when the channel's state changes (and at Attach)
    void AddLinkChangeCallback(Callback<void> callback) override;
    /// \return true
    bool IsBroadcast() const override;
    /// \return the Ethernet broadcast address
    Address GetBroadcast() const override;
    /// \return false
    bool IsMulticast() const override;
    /// \param multicastGroup an IPv4 group \return its Ethernet multicast address
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    /// \param addr an IPv6 multicast address \return its Ethernet multicast address
    Address GetMulticast(Ipv6Address addr) const override;
    /// \return false
    bool IsBridge() const override;
    /// \return true
    bool IsPointToPoint() const override;
    /**
     * Add the Ethernet header (from this device's address) and queue the packet at
     * the priority of its DSCP.
     * \param packet a packet starting with its Ipv4Header
     * \param dest a Mac48Address, else the peer's MAC address is used
     * \param protocolNumber the ethertype (0x0800 for IPv4)
     * \return false if dropped (over the Mtu or its queue full)
     */
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    /**
     * Send with a given source MAC address.
     * \param packet a packet starting with its Ipv4Header
     * \param source the source Mac48Address
     * \param dest a Mac48Address, else the peer's MAC address is used
     * \param protocolNumber the ethertype (0x0800 for IPv4)
     * \return false if dropped (over the Mtu or its queue full)
     */
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    /// \return the owning node
    Ptr<Node> GetNode() const override;
    /// \param node the owning node
    void SetNode(Ptr<Node> node) override;
    /// \return false
    bool NeedsArp() const override;
    /// \param cb gets every received non-PFC packet, Ethernet header removed
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    /// \param cb also gets every received non-PFC packet, before the receive callback
    void SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb) override;
    /// \return true
    bool SupportsSendFrom() const override;

  protected:
    /// Cancel the pending events, clear the queues and frame on the wire, release the node,
    /// channel and error model, drop the pull sources, callbacks and trace sinks.
    void DoDispose() override;

  private:
    /// Start the next frame if the wire is idle.
    void TryTransmit();
    /// Put a frame on the wire.
    /// \param frame the frame, Ethernet header included \param priority its priority (8 = PFC)
    void TransmitStart(Ptr<Packet> frame, uint8_t priority);
    /// The frame on the wire has been serialised.
    void TransmitComplete();
    /// Add the Ethernet header and queue at the priority of the IPv4 DSCP (0 otherwise).
    /// \param packet the packet \param src source MAC \param dst destination MAC
    /// \param protocol the ethertype \return false if dropped (over the Mtu or its queue full)
    bool Enqueue(Ptr<Packet> packet, Mac48Address src, Mac48Address dst, uint16_t protocol);
    /// Add the Ethernet header to a packet.
    /// \param packet the packet \param src source MAC \param dst destination MAC
    /// \param protocol the ethertype
    void AddEthernet(Ptr<Packet> packet, Mac48Address src, Mac48Address dst, uint16_t protocol);
    /// Handle a received PFC frame body.
    /// \param body the frame without its Ethernet header
    void ReceivePfc(Ptr<Packet> body);
    /// A pause of a priority has expired.
    /// \param priority 0..7
    void PauseExpired(uint8_t priority);
    /// Stop with a message naming a watchdog time that is not positive.
    void CheckWatchdog() const;
    /// The watchdog's detection time since a priority's pause began has passed.
    /// \param priority 0..7
    void WatchdogCheck(uint8_t priority);
    /// A storm may have cleared (no pause for the restoration time).
    /// \param priority 0..7
    void RestorationCheck(uint8_t priority);
    /// Drop every frame of a priority in a storm, queued or from its pull source.
    /// \param priority 0..7
    void DropStorm(uint8_t priority);
    /**
     * Recompute a priority's bit of m_workMask from its queue and pull source.
     * \param priority 0..7
     */
    void UpdateWork(uint8_t priority);
    /**
     * Register a priority's pull source.
     * \param priority 0..7 (checked by the caller)
     * \param cb the source
     * \param isQueue asked only after NotifyTxReady until it has nothing
     */
    void SetPullSource(uint8_t priority, PullCallback cb, bool isQueue);
    /// \return the peer device's MAC address (broadcast if none)
    Mac48Address GetPeerMac() const;
    /// Check a priority argument (stop with a message unless it is in 0..7).
    /// \param priority the argument \param what the method's name, for the message
    static void CheckPriority(uint8_t priority, const char* what);

    /// One priority queue.
    struct PriorityQueue
    {
        RingQueue<Ptr<Packet>> frames; //!< frames, Ethernet header included
        uint64_t bytes{0};             //!< bytes queued
        Time pausedUntil;              //!< paused while Now() < pausedUntil
        EventId resumeEvent;           //!< fires when the pause expires
        PullCallback pull;             //!< optional packet source
        bool pullIsQueue{false};       //!< pull is asked only while pullReady
        bool pullReady{true};          //!< pull may have a frame
        uint64_t txFrames{0};          //!< frames of this priority sent
        Time pausedSince{-1};          //!< start of the current pause (negative: none)
        Time lastPause;                //!< last pause received
        bool storm{false};             //!< the watchdog ignores pauses and drops
        EventId watchdogEvent;         //!< detection or restoration check
    };

    Ptr<Node> m_node;                    //!< node
    Ptr<RoceChannel> m_channel;          //!< attached wire
    uint32_t m_ifIndex{0};               //!< interface index
    Mac48Address m_address;              //!< MAC address
    FixedEthernetHeader m_txHeader;      //!< the Ethernet header of the last frame sent
    Ipv4Address m_ipv4Address;           //!< RoCE endpoint address
    DataRate m_bps;                      //!< line rate
    uint16_t m_mtu{4200};                //!< IPv4 MTU
    uint64_t m_maxQueueBytes{0};         //!< per-priority queue limit
    Ptr<ErrorModel> m_receiveErrorModel; //!< receive loss
    bool m_watchdog{false};              //!< PfcWatchdog
    Time m_watchdogDetection;            //!< PfcWatchdogDetectionTime
    Time m_watchdogRestoration;          //!< PfcWatchdogRestorationTime
    std::array<PriorityQueue, NUM_PRIORITIES> m_queues; //!< the eight queues
    RingQueue<Ptr<Packet>> m_controlQueue;              //!< PFC frames, sent first
    bool m_txBusy{false};                               //!< a frame is on the wire
    Ptr<Packet> m_currentFrame;                         //!< the frame on the wire
    EventId m_txCompleteEvent;                          //!< end of the frame on the wire
    uint8_t m_currentPriority{0};                       //!< its priority (8 = PFC)
    uint64_t m_txRemainder{0};   //!< serialisation remainder (bit x tick / s)
    bool m_inTryTransmit{false}; //!< guards re-entry from pull sources
    /// Bit p: priority p has queued frames or a pull source that may have one
    /// (TryTransmit reads only those priorities' state).
    uint32_t m_workMask{0};
    Counters m_counters;                                 //!< counters
    NetDevice::ReceiveCallback m_rxCallback;             //!< upper layer
    NetDevice::PromiscReceiveCallback m_promiscCallback; //!< promiscuous upper layer
    TracedCallback<> m_linkChangeCallbacks;              //!< link change (the wire's state)

    /// Frame queued: frame (Ethernet header included), priority.
    TracedCallback<Ptr<const Packet>, uint8_t> m_enqueueTrace;
    /// Frame started on the wire: frame, priority (8 for PFC).
    TracedCallback<Ptr<const Packet>, uint8_t> m_txBeginTrace;
    /// Frame finished transmission: frame, priority (8 for PFC).
    TracedCallback<Ptr<const Packet>, uint8_t> m_txEndTrace;
    /// Frame received and accepted: frame (Ethernet header included).
    TracedCallback<Ptr<const Packet>> m_rxTrace;
    /// Frame dropped before the wire (queue full or over Mtu): packet, priority.
    TracedCallback<Ptr<const Packet>, uint8_t> m_dropTrace;
    /// Frame queued or pulled (single-argument form, for ascii traces).
    TracedCallback<Ptr<const Packet>> m_macTxTrace;
    /// Frame dropped before the wire (single-argument form, for ascii traces).
    TracedCallback<Ptr<const Packet>> m_macTxDropTrace;
    /// Received frame dropped by the error model.
    TracedCallback<Ptr<const Packet>> m_rxErrorDropTrace;
    /// Received frame dropped as too short for its Ethernet or PFC header.
    TracedCallback<Ptr<const Packet>> m_rxMalformedTrace;
    /// PFC sent: priority, quanta.
    TracedCallback<uint8_t, uint16_t> m_pfcSentTrace;
    /// PFC received: priority, quanta.
    TracedCallback<uint8_t, uint16_t> m_pfcReceivedTrace;
    /// PFC storm detected (true) or cleared (false): priority.
    TracedCallback<uint8_t, bool> m_pfcStormTrace;
    /// pcap hooks (full frames, Ethernet header included).
    TracedCallback<Ptr<const Packet>> m_snifferTrace;
    /// pcap hooks, promiscuous.
    TracedCallback<Ptr<const Packet>> m_promiscSnifferTrace;
};

} // namespace ns3

#endif /* AI_FABRIC_ROCE_NET_DEVICE_H */
