/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_RDMA_QUEUE_PAIR_H
#define AI_FABRIC_RDMA_QUEUE_PAIR_H

#include "rdma-congestion-control.h"
#include "sack-scoreboard.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief What a completion callback learns about a message.
 */
struct RdmaCompletion
{
    uint32_t srcRank{0};    //!< sending rank
    uint32_t dstRank{0};    //!< receiving rank
    uint64_t size{0};       //!< message size in bytes
    uint64_t tag{0};        //!< application tag
    uint64_t id{0};         //!< message id (unique per sending transport)
    uint32_t connection{0}; //!< connection (queue pair) it travelled on
    uint32_t parts{1};      //!< parts the message was spread over (EntropyValues)
    uint32_t entropy{0};    //!< a part's queue pair within its connection
    Time postTime;          //!< when the message was posted
    Time doneTime;          //!< when this completion happened
};

/// Completion callback: the sender's (last ACK) or the receiver's (last byte in order).
typedef Callback<void, const RdmaCompletion&> RdmaCompletionCallback;

/**
 * \ingroup ai-fabric
 * \brief One end of a reliable-connection queue pair: go-back-N sender state
 * (segmentation to the path MTU, PSNs, ACK/NAK processing) and receiver state
 * (expected PSN, in-order delivery, duplicate and out-of-order handling), with the
 * receiver's reorder window (out-of-order placement) and, for selective repeat, its
 * selective acknowledgements and the sender's scoreboard (SackScoreboard).
 *
 * Pure bookkeeping, no packets and no events: the RdmaTransport turns segments
 * into frames and owns the timers. PSNs are kept as 64-bit counters; only their low
 * 24 bits travel in the BTH, and incoming PSNs are unwrapped against the expected
 * value (modulo 2^24 comparison).
 */
class RdmaQueuePair
{
  public:
    /// What the sender must put on the wire next.
    struct Segment
    {
        uint64_t psn{0};            //!< 64-bit PSN
        uint32_t payload{0};        //!< payload bytes
        uint8_t opcode{0};          //!< BTH opcode (WRITE First/Middle/Last/Only)
        bool retransmission{false}; //!< this PSN was sent before
        uint64_t messageSize{0};    //!< size of the message (for the RETH)
        uint64_t offset{0};         //!< byte offset of the payload in its message
    };

    /// Outcome of a received data packet.
    enum RxResult
    {
        RX_ACCEPTED,          //!< in order (with any held packets it releases)
        RX_PLACED,            //!< out of order, held within the reorder window
        RX_PLACED_NAK,        //!< held, and NakThreshold packets wait beyond the gap: NAK it
        RX_ACCEPTED_NAK,      //!< in order, and a next gap has NakThreshold packets beyond
        RX_OUT_OF_ORDER_NAK,  //!< PSN gap: send a NAK for the expected PSN
        RX_OUT_OF_ORDER_DROP, //!< PSN gap already NAKed: drop silently
        RX_DUPLICATE,         //!< already received: re-acknowledge
        RX_DUPLICATE_NAK,     //!< already received, NakThreshold held beyond a gap: NAK it
    };

    /// Selective acknowledgement: which PSNs from a base on the receiver holds.
    struct SackInfo
    {
        uint64_t basePsn{0}; //!< 64-bit PSN of bit 0
        uint64_t bitmap{0};  //!< bit i set: PSN basePsn + i received
    };

    /**
     * \param qpn local QP number (dense index in the owning transport)
     * \param localRank rank of the owning transport
     * \param remoteRank rank at the other end
     * \param mtu path MTU: payload bytes per packet
     */
    RdmaQueuePair(uint32_t qpn, uint32_t localRank, uint32_t remoteRank, uint32_t mtu);

    /**
     * Set the first PSNs (before anything is posted): real QPs start at a random PSN.
     * \param sendPsn first PSN this end sends
     * \param expectedPsn first PSN this end expects from the other end
     */
    void SetInitialPsns(uint32_t sendPsn, uint32_t expectedPsn);

    /// \return local QP number
    uint32_t GetQpn() const;
    /// \return remote QP number
    uint32_t GetRemoteQpn() const;
    /// \param qpn remote QP number
    void SetRemoteQpn(uint32_t qpn);
    /// \return local rank
    uint32_t GetLocalRank() const;
    /// \return remote rank
    uint32_t GetRemoteRank() const;
    /// \return payload bytes per packet
    uint32_t GetMtu() const;

    // ---- sender ----

    /**
     * Queue a message for sending.
     * \param info size, tag, id, post time (doneTime ignored)
     * \param onSent called when the last ACK arrives
     */
    void PostSend(const RdmaCompletion& info, RdmaCompletionCallback onSent);
    /// \param windowPackets maximum unacknowledged packets (0 = unlimited)
    /// \return whether a segment may be sent now (data left, window open)
    bool HasSendable(uint64_t windowPackets) const;
    /// \return whether anything is unacknowledged
    bool HasOutstanding() const;
    /// \return the next segment to send; advances the send pointer (HasSendable() first)
    Segment NextSegment();
    /**
     * Process an ACK or a PSN-sequence-error NAK, with its selective acknowledgement.
     *
     * Go-back-N (no NakThreshold): a NAK rewinds to the PSN it names. Selective repeat:
     * the SACKed PSNs are marked on the scoreboard and the PSNs they show lost (with
     * NakThreshold packets sent after them received) are queued for
     * resend, each once per detection; a NAK without SACK names its PSN as lost.
     * \param psn24 BTH PSN (ACK: last PSN received in order; NAK: the expected PSN)
     * \param nak whether it is a NAK
     * \param done receives the messages completed by this ACK (appended)
     * \param sackBase24 the SACK's base PSN (24 bits)
     * \param sackBitmap the SACK's bitmap, bit i for PSN sackBase24 + i (0: no SACK)
     * \return true if the oldest unacknowledged PSN moved forward, a NAK rewound, or
     *         (selective repeat) a PSN not known to be received was SACKed
     */
    bool OnAck(uint32_t psn24,
               bool nak,
               std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>>& done,
               uint32_t sackBase24 = 0,
               uint64_t sackBitmap = 0);
    /// Rewind the send pointer to the oldest unacknowledged PSN.
    void GoBackN();
    /// Retransmission timeout: go-back-N rewinds to the oldest unacknowledged PSN
    /// (GoBackN); selective repeat queues for resend every PSN not SACKed.
    void OnTimeout();
    /// \return oldest unacknowledged PSN
    uint64_t GetSndUna() const;
    /// \return next PSN to send
    uint64_t GetSndNxt() const;
    /// \return one past the highest PSN ever sent
    uint64_t GetSndMax() const;
    /// \return messages posted but not yet acknowledged
    std::size_t GetPendingSends() const;
    /**
     * The queue pair failed: take every message posted and not acknowledged, in
     * posting order, with its callback; nothing is left to send or to resend.
     * \param flushed the messages and their callbacks are appended to it
     */
    void FlushSends(std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>>& flushed);
    /// \return whether this queue pair runs selective repeat (a NakThreshold is set)
    bool IsSelectiveRepeat() const;
    /// \return the selective-repeat sender's scoreboard (empty otherwise)
    const SackScoreboard& GetScoreboard() const;

    // ---- receiver ----

    /**
     * Expect a message from the remote end (posted by the sender's transport when it
     * posts the send, like a receive work request matched in order).
     * \param info size, tag, id, post time
     * \param onReceived called when the last byte arrives in order (may be null)
     */
    void PostReceive(const RdmaCompletion& info, RdmaCompletionCallback onReceived);
    /**
     * Hold up to this many packets beyond a PSN gap (out-of-order placement) instead
     * of dropping them and sending a NAK (go-back-N, 0). Before any data arrives.
     * \param packets the window
     */
    void SetReorderWindow(uint32_t packets);

    /**
     * Selective repeat: the receiver NAKs a gap, with a selective acknowledgement,
     * for every packet that arrives while this many or more are held beyond it (0:
     * never, out-of-order placement alone); the sender deems a PSN lost once this many
     * packets sent after it are acknowledged, and resends only
     * the lost PSNs instead of going back. Before any data.
     * \param packets the threshold (needs a reorder window at least as large)
     */
    void SetNakThreshold(uint32_t packets);

    /**
     * Process a data packet. In order, it and the held packets that follow it are
     * delivered, and every message they finish is appended to completed; beyond a
     * gap it is held if the reorder window has room for it, else dropped (with a
     * NAK the first time, without a window).
     * \param psn24 BTH PSN
     * \param payload payload bytes
     * \param lastOfMessage opcode is WRITE Last or Only
     * \param completed messages finished by this packet, appended in order
     * \return the outcome
     */
    RxResult OnData(uint32_t psn24,
                    uint32_t payload,
                    bool lastOfMessage,
                    std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>>& completed);
    /// \return next expected PSN
    uint64_t GetExpectedPsn() const;
    /// \return packets held beyond a gap now
    uint32_t GetHeldCount() const;
    /**
     * The selective acknowledgement an ACK or NAK sent now carries: the held PSNs
     * among the 64 (SackHeader::BITS) that end at the last data packet received, or
     * that start just after the expected PSN if that is higher.
     * \return the base PSN and the bitmap
     */
    SackInfo GetSack() const;
    /// \return messages completed at the receiver (the MSN)
    uint64_t GetMsn() const;
    /// \return payload bytes delivered in order
    uint64_t GetDeliveredBytes() const;

    /**
     * Unwrap a 24-bit PSN against a 64-bit reference (the nearest value modulo 2^24).
     * \param psn24 the received PSN
     * \param reference expected 64-bit PSN
     * \return the 64-bit PSN (may be below the reference)
     */
    static int64_t Unwrap(uint32_t psn24, uint64_t reference);

    // ---- state owned by the transport (pacing, timers, congestion control) ----
    Time nextSendTime;             //!< pacing: earliest next send
    bool inRing{false};            //!< in the transport's round-robin ring
    EventId rtoEvent;              //!< retransmission timer event
    Time rtoDeadline;              //!< the timer fires at this time
    uint32_t retries{0};           //!< timeouts without progress
    bool failed{false};            //!< retry limit exceeded
    Ptr<RdmaCongestionControl> cc; //!< congestion control (sender side)
    /// (PSN, send time) of first transmissions in flight, when cc->UsesRtt()
    std::deque<std::pair<uint64_t, Time>> sendTimes;
    Time lastCnpSent{Seconds(-1)};  //!< receiver: last CNP sent for this QP
    uint32_t rxSinceAck{0};         //!< receiver: packets since the last ACK
    uint16_t udpSourcePort{0xC000}; //!< flow entropy

  private:
    /// A message being sent.
    struct SendMessage
    {
        RdmaCompletion info;       //!< description
        RdmaCompletionCallback cb; //!< completion
        uint64_t firstPsn{0};      //!< PSN of its first packet
        uint64_t packets{0};       //!< number of packets
    };

    /// A message being received.
    struct RecvMessage
    {
        RdmaCompletion info;       //!< description
        RdmaCompletionCallback cb; //!< completion
        uint64_t received{0};      //!< bytes received in order
    };

    uint32_t m_qpn;          //!< local QP number
    uint32_t m_remoteQpn{0}; //!< remote QP number
    uint32_t m_localRank;    //!< local rank
    uint32_t m_remoteRank;   //!< remote rank
    uint32_t m_mtu;          //!< payload bytes per packet

    std::deque<SendMessage> m_sends; //!< unacknowledged messages, PSN order
    std::size_t m_cursor{0};         //!< index in m_sends of the message holding m_sndNxt
    uint64_t m_nextPsn{0};           //!< PSN for the next posted message
    uint64_t m_sndUna{0};            //!< oldest unacknowledged PSN
    uint64_t m_sndNxt{0};            //!< next PSN to send
    uint64_t m_sndMax{0};            //!< one past the highest PSN sent

    std::deque<RecvMessage> m_recvs; //!< expected messages, in order
    uint64_t m_expected{0};          //!< next expected PSN
    bool m_nakSent{false};           //!< a NAK is outstanding for m_expected (go-back-N)
    uint64_t m_lastRxPsn{0};         //!< PSN of the last data packet received
    uint32_t m_reorderWindow{0};     //!< packets held beyond a gap (0: go-back-N)
    uint32_t m_nakThreshold{0};      //!< held packets before a NAK (0: none)
    uint32_t m_heldCount{0};         //!< packets held now
    SackScoreboard m_scoreboard;     //!< sender: SACKed, lost, to resend (selective repeat)
    /// per PSN slot (PSN mod window + 1): payload + 1 of a held packet (0: none)
    std::vector<uint32_t> m_held;
    std::vector<bool> m_heldLast; //!< per slot: the held packet ends its message
    /// \param m a message being sent \param psn one of its PSNs \return its segment
    Segment BuildSegment(const SendMessage& m, uint64_t psn) const;
    /// \param psn an unacknowledged PSN \return the message holding it
    const SendMessage& FindMessage(uint64_t psn) const;
    /**
     * Deliver one in-order packet to the oldest posted receive.
     * \param payload its payload bytes
     * \param last it ends its message
     * \param completed the message and its callback are appended to it when it ends
     */
    void Deliver(uint32_t payload,
                 bool last,
                 std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>>& completed);
    uint64_t m_msn{0};       //!< messages completed at the receiver
    uint64_t m_delivered{0}; //!< payload bytes delivered in order
};

} // namespace ns3

#endif /* AI_FABRIC_RDMA_QUEUE_PAIR_H */
