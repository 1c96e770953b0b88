/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_RDMA_TRANSPORT_H
#define AI_FABRIC_RDMA_TRANSPORT_H

#include "rdma-congestion-control.h"
#include "rdma-loss-recovery.h"
#include "rdma-queue-pair.h"

#include "ns3/buffer.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

class BthHeader;
class Ipv4Header;
class RoceNetDevice;

/**
 * \ingroup ai-fabric
 * \brief The RDMA transport of one host: reliable-connection queue pairs over a
 * RoceNetDevice, RoCEv2 framing built directly (IPv4/UDP 4791/BTH, no Internet
 * stack), coalesced ACKs, NAK and a retransmission timer, loss recovery chosen by
 * TypeId (go-back-N by default; RdmaLossRecovery), congestion control chosen by
 * TypeId (none by default; RdmaCongestionControl), and round-robin service of queue
 * pairs in a pull model.
 *
 * Applications post messages between ranks with PostMessage(); queue pairs are
 * created on first use at both ends and reused. Ranks and addresses are shared by all
 * transports of a job through a RankTable (RdmaHelper fills it).
 *
 * A queue pair that has timed out RetryLimit times in a row without progress fails
 * (QpError), as a RoCE NIC's queue pair goes to its error state: every message
 * posted on it and not acknowledged is given up, and so is every message posted on
 * it later. Each such message is reported once, at its sender, with neither
 * completion: the MessageFailed trace, Stats::messagesFailed and bytesFailed, and
 * the message's own onFailed callback (PostMessage), so that an application
 * waiting for it can stop instead of waiting for ever.
 *
 * Message semantics are RDMA WRITE: the receiver completes a message when its last
 * byte arrives in order, the sender when the ACK of its last packet arrives. No
 * payload bytes are materialised beyond the packet being sent.
 */
class RdmaTransport : public Object
{
  public:
    /// Every transport of a job and its rank -> address mapping.
    struct RankTable
    {
        std::vector<Ptr<RdmaTransport>> transports; //!< transport of each rank
        std::vector<Ipv4Address> addresses;         //!< RoCE address of each rank
    };

    /// Counters (never reset).
    struct Stats
    {
        uint64_t messagesPosted{0};       //!< messages posted here
        uint64_t messagesSent{0};         //!< messages completed at this sender
        uint64_t messagesReceived{0};     //!< messages completed at this receiver
        uint64_t bytesPosted{0};          //!< bytes posted here
        uint64_t bytesDelivered{0};       //!< payload bytes delivered here in order
        uint64_t dataPacketsSent{0};      //!< data packets sent (retransmissions included)
        uint64_t retransmittedPackets{0}; //!< data packets sent more than once
        uint64_t timeouts{0};             //!< retransmission timer expiries
        uint64_t acksSent{0};             //!< ACKs sent
        uint64_t naksSent{0};             //!< NAKs sent
        uint64_t acksReceived{0};         //!< ACKs received
        uint64_t naksReceived{0};         //!< NAKs received
        uint64_t duplicatesReceived{0};   //!< data packets already received (discarded)
        uint64_t outOfOrderDropped{0};    //!< data packets beyond a PSN gap (discarded)
        uint64_t outOfOrderPlaced{0};     //!< data packets beyond a gap held (ReorderWindow)
        uint64_t cnpsSent{0};             //!< CNPs sent
        uint64_t cnpsReceived{0};         //!< CNPs received
        uint64_t ceReceived{0};           //!< data packets received with ECN CE
        uint64_t qpFailures{0};           //!< queue pairs failed after the retry limit
        uint64_t messagesFailed{0};   //!< messages posted here given up: their queue pair failed
        uint64_t bytesFailed{0};      //!< bytes of those messages
        uint64_t malformedDropped{0}; //!< received packets malformed or not ours
    };

    /// TracedCallback signature for MessagePosted, MessageSent, MessageReceived and
    /// MessageFailed.
    typedef void (*CompletionCallback)(const RdmaCompletion& completion);
    /// TracedCallback signature for DataTx, Retransmit, Timeout and NakSent: (queue
    /// pair number, PSN).
    typedef void (*QpPsnCallback)(uint32_t qpn, uint64_t psn);
    /// TracedCallback signature for CnpSent and CnpReceived: (queue pair number).
    typedef void (*QpCallback)(uint32_t qpn);
    /// TracedCallback signature for RateChange: (queue pair number, rate in bit/s).
    typedef void (*QpRateCallback)(uint32_t qpn, double rate);
    /// TracedCallback signature for QpError: (queue pair number, remote rank).
    typedef void (*QpErrorCallback)(uint32_t qpn, uint32_t remote);

    /// \return the TypeId
    static TypeId GetTypeId();

    /**
     * Whether the transport's attribute defaults (RetransmitTimeout, Mtu) can work
     * over host links of a rate: a data packet crosses its sender's and its
     * receiver's host links store-and-forward before its ACK can start back, so a
     * RetransmitTimeout not above two full frames' time would time out every packet.
     * For programs that refuse bad input before they build anything.
     * \param rate the host link rate
     * \return why the rate cannot carry the transport, or "" if it can
     */
    static std::string FindLinkRateProblem(DataRate rate);
    RdmaTransport();
    ~RdmaTransport() override;

    /**
     * Bind to the host NIC: registers the receive callback and the pull source.
     * \param device the NIC
     */
    void SetDevice(Ptr<RoceNetDevice> device);
    /// \return the NIC
    Ptr<RoceNetDevice> GetDevice() const;

    /**
     * Join a job.
     * \param rank this transport's rank
     * \param table the job's table (shared by every transport of the job)
     */
    void SetRankTable(uint32_t rank, std::shared_ptr<RankTable> table);
    /// \return this transport's rank
    uint32_t GetRank() const;
    /// \return the number of ranks of the job
    uint32_t GetNRanks() const;

    /**
     * Post a message to another rank.
     * \param dstRank destination rank (must exist and differ from this rank)
     * \param size bytes (at least 1)
     * \param tag application tag, reported in both completions
     * \param onSent called at the sender when the last ACK arrives (may be null)
     * \param onReceived called at the receiver when the last byte arrives (may be null)
     * \param connection which queue pair to the destination carries the message: each
     *        (destination, connection) pair has its own QP, so its own PSN space, UDP
     *        source port (ECMP entropy), rate and in-order delivery. Messages on one
     *        connection complete in posting order; different connections are independent.
     * \param onFailed called at the sender, instead of onSent, if the message is given
     *        up because a queue pair carrying it failed (may be null); posted on a
     *        queue pair that has failed already, it is called at once, in an event of
     *        its own
     * \return the message id (unique per sending transport)
     */
    uint64_t PostMessage(uint32_t dstRank,
                         uint64_t size,
                         uint64_t tag,
                         RdmaCompletionCallback onSent,
                         RdmaCompletionCallback onReceived = RdmaCompletionCallback(),
                         uint32_t connection = 0,
                         RdmaCompletionCallback onFailed = RdmaCompletionCallback());

    /**
     * Called for every message completed at this receiver (in addition to the
     * per-message callback).
     * \param cb the callback
     */
    void SetReceiveCallback(RdmaCompletionCallback cb);

    /// \param mtu path MTU in payload bytes (256..4096)
    void SetMtu(uint32_t mtu);
    /// \return path MTU in payload bytes
    uint32_t GetMtu() const;

    /// \return the counters
    const Stats& GetStats() const;
    /// \return number of queue pairs
    uint32_t GetNQueuePairs() const;
    /// \param qpn QP number \return the queue pair
    const RdmaQueuePair& GetQueuePair(uint32_t qpn) const;
    /**
     * \param dstRank remote rank
     * \param connection connection number (see PostMessage)
     * \return the QP number to it, or UINT32_MAX if none
     */
    uint32_t FindQueuePair(uint32_t dstRank, uint32_t connection = 0) const;
    /// \param qpn QP number \return its current sending rate (bit/s)
    double GetQpRate(uint32_t qpn) const;
    /// \param qpn QP number \return its congestion control
    Ptr<RdmaCongestionControl> GetQpCongestionControl(uint32_t qpn) const;

    /**
     * Set an attribute of the congestion control every queue pair created from now
     * on gets (the CongestionControl attribute's TypeId), as in
     * SetCongestionControlAttribute("MinRate", DataRateValue(DataRate("1Gbps"))).
     * \param name the attribute \param value its value
     */
    void SetCongestionControlAttribute(const std::string& name, const AttributeValue& value);

    /// RoCEv2 UDP destination port.
    static constexpr uint16_t ROCE_UDP_PORT = 4791;
    /// QP number on the wire = dense index + QPN_BASE (QP 0 and 1 are management QPs).
    static constexpr uint32_t QPN_BASE = 0x100;
    /// Bytes of IPv4 + UDP + BTH + ICRC around every RoCE payload.
    static constexpr uint32_t HEADER_BYTES = 20 + 8 + 12 + 4;
    /// Smallest Mtu (the InfiniBand path MTUs run from 256 to 4096 B)
    static constexpr uint32_t MIN_PATH_MTU = 256;
    static constexpr uint32_t MAX_PATH_MTU = 4096; //!< largest Mtu

  protected:
    /// Remove the events, dispose of the queue pairs, detach from the device and the peer table.
    void DoDispose() override;
    /// Check the attributes (Validate) before anything runs.
    void DoInitialize() override;

  private:
    /**
     * \param dstRank remote rank
     * \param connection connection number (see PostMessage)
     * \param entropy the queue pair's index in the connection
     * \return the QP of a connection to dstRank, creating both ends on first use
     */
    uint32_t GetOrCreateQp(uint32_t dstRank, uint32_t connection, uint32_t entropy = 0);
    /**
     * Create the local end of a QP of a connection to a remote rank.
     * \param remoteRank remote rank
     * \param connection connection number
     * \param entropy the queue pair's index in the connection
     * \return its number
     */
    uint32_t CreateQp(uint32_t remoteRank, uint32_t connection, uint32_t entropy);
    /**
     * \param remoteRank remote rank (below 2^24)
     * \param connection connection number (below 2^24)
     * \param entropy the queue pair's index in the connection (below 2^8)
     * \return the key of a (remote rank, connection, entropy) triple in m_qpByPeer
     */
    static uint64_t PeerKey(uint32_t remoteRank, uint32_t connection, uint32_t entropy = 0);

    /// A message spread over several queue pairs, until its last part completes.
    struct SplitMessage
    {
        uint32_t partsLeft{0};     //!< parts not completed
        uint64_t size{0};          //!< the whole message's bytes
        uint32_t connection{0};    //!< the connection it was posted on
        RdmaCompletionCallback cb; //!< the caller's callback
        // Sender, EntropyChunkPackets: the chunks not posted yet.
        RdmaCompletion info;    //!< the message
        uint64_t packets{0};    //!< its packets
        uint64_t nextPacket{0}; //!< first packet of the next chunk to post
        bool failed{false};     //!< a part's queue pair failed: the message was given up
    };

    /**
     * Post the next chunk of a split message on one of its queue pairs.
     * \param split the message (sender side) \param entropy the queue pair's index
     */
    void PostChunk(SplitMessage& split, uint32_t entropy);
    /**
     * Post packets [firstPacket, endPacket) of a message as one part on one of its
     * connection's queue pairs, with its receive descriptor at the far end.
     * \param part the message (its size is the whole message's)
     * \param entropy the queue pair's index in the connection
     * \param firstPacket first packet \param endPacket one past the last
     * \param onSent sender callback of the part \param onReceived receiver callback
     */
    void PostPart(RdmaCompletion part,
                  uint32_t entropy,
                  uint64_t firstPacket,
                  uint64_t endPacket,
                  RdmaCompletionCallback onSent,
                  RdmaCompletionCallback onReceived);

    /**
     * Count a completed part of a split message.
     * \param splits the side's split messages \param key the message's key
     * \param info the part's completion (becomes the message's when it is the last)
     * \param cb set to the caller's callback when it is the last
     * \return true if the message is complete
     */
    static bool CompletePart(std::unordered_map<uint64_t, SplitMessage>& splits,
                             uint64_t key,
                             RdmaCompletion& info,
                             RdmaCompletionCallback& cb);
    /**
     * Device pull source for the data priority: the next paced segment of the
     * round-robin ring.
     * \param priority the priority the device pulls for
     * \return the frame, or null if it is not the data priority or no QP may send now
     */
    Ptr<Packet> PullData(uint8_t priority);
    /// Put a QP in the round-robin ring if it can send; wake the device. \param qp the QP
    void Activate(RdmaQueuePair& qp);
    /// Wake the device at the earliest pacing time. \param at that time
    void ScheduleWake(Time at);
    /// Pacing wake-up.
    void Wake();
    /**
     * Build the frame of one data segment; AckReq is set on the last packet of a
     * message and wherever ackRequest is true.
     * \param qp the sending QP
     * \param s the segment
     * \param ackRequest ask for an ACK of this packet
     * \return the frame: IPv4, UDP, BTH, RETH on a first packet, payload, ICRC
     */
    Ptr<Packet> BuildData(RdmaQueuePair& qp, const RdmaQueuePair::Segment& s, bool ackRequest);
    /// \param s a segment \return bytes its frame takes on the wire
    static uint64_t GetWireBytes(const RdmaQueuePair::Segment& s);
    /**
     * Add IPv4 + UDP headers (control DSCP, not ECN-capable), then send on the control
     * priority.
     * \param packet BTH onwards, with its ICRC trailer
     * \param qp the QP it belongs to
     */
    void SendControl(Ptr<Packet> packet, const RdmaQueuePair& qp);
    /**
     * Add IPv4 and UDP headers.
     * \param packet BTH onwards
     * \param qp the QP (addresses and UDP source port)
     * \param dscp the IPv4 DSCP
     * \param ecn the IPv4 ECN field
     */
    void AddIpUdp(Ptr<Packet> packet, const RdmaQueuePair& qp, uint8_t dscp, uint8_t ecn);
    /// Send an ACK or a NAK. \param qp the receiving QP \param nak a NAK, not an ACK
    void SendAck(RdmaQueuePair& qp, bool nak);
    /// Send a CNP to the QP's sender. \param qp the receiving QP
    void SendCnp(RdmaQueuePair& qp);
    /**
     * NIC receive callback: checks the frame's headers (ParseHeaders) and hands it to
     * the handler of its BTH opcode (ReceiveAcknowledge, ReceiveCnp, ReceiveWrite);
     * a malformed frame or another opcode is counted and dropped (DropMalformed).
     * \param device the NIC
     * \param packet the frame, from its IPv4 header
     * \param protocol the EtherType (not IPv4 is dropped as malformed)
     * \param from the sender's address (unused)
     * \return true: the packet is consumed, processed or dropped
     */
    bool Receive(Ptr<NetDevice> device,
                 Ptr<const Packet> packet,
                 uint16_t protocol,
                 const Address& from);
    /**
     * Check a received frame's IPv4, UDP and BTH headers and read them: IPv4 with a
     * consistent header and total length, UDP to port 4791, room for the BTH and
     * ICRC, and a destination QP that exists. What follows the BTH is for the
     * opcode's handler to check.
     * \param packet the frame, from its IPv4 header
     * \param protocol its EtherType
     * \param ip set to its IPv4 header
     * \param bth set to its BTH
     * \param afterBth set to the received header bytes after the BTH
     * \param rest set to the bytes after the BTH, ICRC included
     * \return why the frame is malformed, or nullptr if it is not
     */
    const char* ParseHeaders(const Ptr<const Packet>& packet,
                             uint16_t protocol,
                             Ipv4Header& ip,
                             BthHeader& bth,
                             Buffer::Iterator& afterBth,
                             uint32_t& rest);
    /**
     * Requester side: an RC Acknowledge, an ACK or a NAK as its AETH syndrome says,
     * with a SACK after the AETH from a selective-repeat responder holding packets.
     * Advances the queue pair's send window, takes an RTT sample, completes the
     * messages it acknowledges in full and lets the queue pair send (a NAK makes
     * its loss recovery resend). Ignored on a failed queue pair.
     * \param packet the frame, from its IPv4 header
     * \param qp the queue pair it is for
     * \param bth its BTH
     * \param it the received header bytes, at the AETH
     * \param rest the bytes after the BTH, ICRC included (dropped as malformed
     *        unless they are an AETH, or an AETH and a SACK, and the ICRC)
     */
    void ReceiveAcknowledge(const Ptr<const Packet>& packet,
                            RdmaQueuePair& qp,
                            const BthHeader& bth,
                            Buffer::Iterator it,
                            uint32_t rest);
    /**
     * Requester side: a Congestion Notification Packet, passed to the queue pair's
     * congestion control.
     * \param packet the frame, from its IPv4 header
     * \param qp the queue pair it is for
     * \param rest the bytes after the BTH, ICRC included (dropped as malformed
     *        unless they are the 16 reserved bytes and the ICRC)
     */
    void ReceiveCnp(const Ptr<const Packet>& packet, RdmaQueuePair& qp, uint32_t rest);
    /**
     * Responder side: an RDMA WRITE First, Middle, Last or Only data packet. Sends a
     * CNP if it is marked CE (at most one per CnpInterval), places its payload
     * through the queue pair, acknowledges or NAKs as the queue pair's loss recovery
     * says, and completes the messages it finishes.
     * \param packet the frame, from its IPv4 header
     * \param qp the queue pair it is for
     * \param ip its IPv4 header (ECN)
     * \param bth its BTH
     * \param rest the bytes after the BTH, ICRC included (dropped as malformed
     *        unless they are a RETH on First and Only, 1 to MAX_PATH_MTU payload
     *        bytes and the ICRC)
     */
    void ReceiveWrite(const Ptr<const Packet>& packet,
                      RdmaQueuePair& qp,
                      const Ipv4Header& ip,
                      const BthHeader& bth,
                      uint32_t rest);
    /**
     * Count, log and trace a received packet that cannot be processed.
     * \param packet the packet as received (starting with its IPv4 header)
     * \param reason why it is dropped (for the log)
     * \return true (the packet is consumed)
     */
    bool DropMalformed(Ptr<const Packet> packet, const char* reason);
    /// Arm (lazily) the retransmission timer. \param qp the QP
    void ArmTimer(RdmaQueuePair& qp);
    /// Retransmission timer event. \param qpn the QP's number
    void RetransmitTimeout(uint32_t qpn);
    /**
     * Put a queue pair in its error state: count it, fire QpError, and give up every
     * message posted on it and not acknowledged (FailPart).
     * \param qpn the QP's number
     */
    void FailQp(uint32_t qpn);
    /**
     * Give up a part of a message (the whole message if it has one part): the
     * message is reported failed once (MessageFailed, Stats, its onFailed callback).
     * \param part the part, as posted on its queue pair
     */
    void FailPart(RdmaCompletion part);
    /// \param qp a queue pair \return its window in packets (0: none): the smaller of
    ///         MaxBytesInFlight's and its congestion control's
    uint32_t GetWindowPackets(const RdmaQueuePair& qp) const;
    /**
     * A queue pair's congestion control changed its rate.
     * \param qpn the QP's number
     * \param rate its new rate (bit/s)
     */
    void OnRateChange(uint32_t qpn, double rate);
    /// \return a new congestion control of the CongestionControl TypeId and attributes
    Ptr<RdmaCongestionControl> CreateCongestionControl() const;
    /// \return a new loss recovery of the LossRecovery factory (stops if it is not one)
    Ptr<RdmaLossRecovery> CreateLossRecovery() const;
    /// Finish the sender side of completed messages. \param done the messages and callbacks
    void CompleteSends(std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>>& done);
    /**
     * Finish the receiver side of completed messages (of a split message, once its
     * last part is in).
     * \param messages the messages and callbacks, a copy: the callbacks may post,
     *        which reuses m_completedReceives
     */
    void CompleteReceives(std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>> messages);
    /// Check attribute values; stop with a clear message if impossible.
    void Validate() const;

    // attributes
    uint32_t m_mtu;            //!< path MTU: payload bytes per packet
    uint32_t m_ackInterval;    //!< ACK every N in-order packets
    uint32_t m_initialPsn;     //!< first PSN of every QP this transport sends on
    Time m_rto;                //!< retransmission timeout
    Time m_ackRequestInterval; //!< wait for progress before AckReq (0: m_rto / 8)
    uint32_t m_retryLimit;     //!< timeouts without progress before the QP fails
    uint64_t m_windowBytes;    //!< bytes-in-flight window (0 = none)
    uint8_t m_dataDscp;        //!< DSCP of data packets
    uint8_t m_controlDscp;     //!< DSCP of ACK/NAK/CNP
    TypeId m_ccType;           //!< CongestionControl
    Time m_cnpInterval;        //!< minimum gap between CNPs per QP
    /// attributes for every queue pair's congestion control
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_ccAttributes;
    bool m_ccUsesCnp{false};              //!< receivers send CNPs (the control's UsesCnp)
    bool m_ccUsesRtt{false};              //!< keep send times for RTT samples (UsesRtt)
    uint32_t m_entropyValues{1};          //!< EntropyValues: queue pairs per connection
    uint32_t m_entropyChunk{0};           //!< EntropyChunkPackets (0: equal parts)
    ObjectFactory m_lossRecoveryFactory;  //!< LossRecovery
    Ptr<RdmaLossRecovery> m_lossRecovery; //!< the queue pairs' loss recovery, once created
    /// split messages this rank sends, by message id
    std::unordered_map<uint64_t, SplitMessage> m_splitSends;
    /// split messages this rank receives, by (source rank, message id)
    std::unordered_map<uint64_t, SplitMessage> m_splitReceives;
    /// onFailed callbacks of messages posted here, not yet completed, by message id
    std::unordered_map<uint64_t, RdmaCompletionCallback> m_failureCallbacks;

    Ptr<RoceNetDevice> m_device;                       //!< host NIC
    uint32_t m_rank{0};                                //!< rank
    std::shared_ptr<RankTable> m_table;                //!< job table
    std::vector<std::unique_ptr<RdmaQueuePair>> m_qps; //!< QPs, indexed by QP number
    std::unordered_map<uint64_t, uint32_t> m_qpByPeer; //!< (rank, connection) -> QP (per post)
    std::deque<uint32_t> m_ring;                       //!< round robin of QPs that can send
    EventId m_wakeEvent;                               //!< pacing wake-up
    uint64_t m_nextMessageId{0};                       //!< message ids
    uint64_t m_windowPackets{0};                       //!< window in packets
    double m_lineRateBps{0};                           //!< NIC rate
    uint8_t m_dataPriority{3};                         //!< NIC priority of data
    Stats m_stats;                                     //!< counters
    RdmaCompletionCallback m_receiveCallback;          //!< per-transport receive callback

    /// Largest header stack parsed on receive: IPv4 with options 60, UDP 8, BTH 12,
    /// RETH 16.
    static constexpr uint32_t RX_HEADER_BYTES = 60 + 8 + 12 + 16;
    std::array<uint8_t, RX_HEADER_BYTES> m_rxBytes{}; //!< received header bytes
    Buffer m_rxHeaders; //!< the same bytes, for the header classes (reused)
    /// Messages completed by one ACK (reused: no allocation per ACK).
    std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>> m_completedSends;
    /// messages a data packet completed (reused between packets)
    std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>> m_completedReceives;

    TracedCallback<const RdmaCompletion&> m_messagePostedTrace;   //!< message posted
    TracedCallback<const RdmaCompletion&> m_messageSentTrace;     //!< sender completion
    TracedCallback<const RdmaCompletion&> m_messageReceivedTrace; //!< receiver completion
    TracedCallback<const RdmaCompletion&> m_messageFailedTrace;   //!< message given up
    TracedCallback<uint32_t, uint64_t> m_dataTxTrace;             //!< data packet sent: qpn, PSN
    TracedCallback<uint32_t, uint64_t> m_retransmitTrace;         //!< data packet resent: qpn, PSN
    TracedCallback<uint32_t, uint64_t> m_timeoutTrace;            //!< timer expiry: qpn, una
    TracedCallback<uint32_t, uint64_t> m_nakSentTrace;            //!< NAK sent: qpn, expected PSN
    TracedCallback<uint32_t> m_cnpSentTrace;                      //!< CNP sent: local qpn
    TracedCallback<uint32_t> m_cnpReceivedTrace;                  //!< CNP received: qpn
    TracedCallback<uint32_t, double> m_rateTrace;                 //!< QP rate changed: qpn, bit/s
    TracedCallback<uint32_t, uint32_t> m_qpErrorTrace;            //!< QP failed: qpn, remote rank
    TracedCallback<Ptr<const Packet>> m_malformedDropTrace;       //!< malformed packet dropped
};

} // namespace ns3

#endif /* AI_FABRIC_RDMA_TRANSPORT_H */
