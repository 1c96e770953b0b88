/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_SACK_SCOREBOARD_H
#define AI_FABRIC_SACK_SCOREBOARD_H

#include "ns3/ring-queue.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The selective-repeat sender's scoreboard of a queue pair: which PSNs of
 * [una, max) the receiver has selectively acknowledged (SACKed), which are lost, and
 * the order to resend them in.
 *
 * Loss is inferred from transmission order, as IRN and TCP's RACK do, with the
 * reordering tolerance of TCP's duplicate-ACK threshold: every transmission, first or
 * resend, gets the next number of a counter, and a PSN is lost once its latest
 * transmission is neither SACKed nor acknowledged while ReorderTolerance (k)
 * transmissions sent after it are known received (SACKed, or covered by the
 * cumulative acknowledgement), as the receiver NAKs a gap once k packets wait beyond
 * it. A resend that is lost again is caught the same way, as soon as k packets sent
 * after it are SACKed, without waiting for a timeout. Each lost PSN is queued for
 * resend once per detection. A received PSN that was sent more than once counts as
 * received by its first transmission, the earliest that can have arrived (which copy
 * did is unknown, as in Karn's rule): a needless resend, once its original arrives,
 * does not make every packet sent between the two look lost.
 *
 * Pure bookkeeping: dense rings indexed by PSN and by transmission, no allocation
 * per packet (the rings double when full), constant work per transmission and per
 * SACKed PSN on average.
 */
class SackScoreboard
{
  public:
    SackScoreboard();

    /// Start afresh: nothing sent, nothing queued. \param una the first PSN to be sent
    void Reset(uint64_t una);
    /// \param packets transmissions sent after a PSN's latest one that must be known
    ///        received before that PSN counts as lost (at least 1)
    void SetReorderTolerance(uint32_t packets);
    /// \return the reordering tolerance in transmissions
    uint32_t GetReorderTolerance() const;

    /**
     * Record a transmission of a PSN: the first (psn == GetMax(), which grows by one)
     * or a resend (psn in [GetUna(), GetMax())).
     * \param psn the PSN sent
     */
    void OnTransmit(uint64_t psn);
    /**
     * Cumulative acknowledgement: every PSN below una has been received.
     * \param una the new oldest unacknowledged PSN (at most GetMax(); an older one is ignored)
     * \return whether it moved forward
     */
    bool Acknowledge(uint64_t una);
    /**
     * Selective acknowledgement of one PSN.
     * \param psn a PSN received beyond a gap (ignored outside [GetUna(), GetMax()))
     * \return true if it was not known to be received
     */
    bool Sack(uint64_t psn);
    /**
     * Queue for resend, in transmission order, every PSN whose latest transmission is
     * neither SACKed nor acknowledged while ReorderTolerance transmissions sent after
     * it are.
     * \return the PSNs newly queued
     */
    uint32_t DetectLosses();
    /**
     * Queue one PSN for resend, unless it is received or queued already.
     * \param psn the PSN
     * \return true if it was queued
     */
    bool MarkLost(uint64_t psn);
    /// Retransmission timeout: queue every PSN of [una, max) not SACKed, in PSN order.
    /// \return the PSNs queued
    uint32_t MarkAllUnsackedLost();
    /// Forget the queued resends.
    void ClearResends();
    /// \return whether a PSN waits to be resent
    bool HasResend() const;
    /// \return the next PSN to resend, removed from the queue (HasResend() first)
    uint64_t PopResend();

    /// \return the oldest unacknowledged PSN
    uint64_t GetUna() const;
    /// \return one past the highest PSN sent
    uint64_t GetMax() const;
    /// \param psn a PSN \return whether it is in [una, max) and SACKed
    bool IsSacked(uint64_t psn) const;
    /// \return transmissions recorded so far (the number of the latest)
    uint64_t GetTransmissions() const;
    /// \return the number of the latest transmission known received (a PSN sent more
    ///         than once counts by its first; 0: none)
    uint64_t GetDeliveredTransmission() const;

  private:
    /// What is known of one PSN of [una, max).
    struct Slot
    {
        uint64_t firstTx{0}; //!< number of its first transmission
        uint64_t lastTx{0};  //!< number of its latest transmission
        bool sacked{false};  //!< received beyond a gap
        bool queued{false};  //!< waits in m_resend
    };

    /// \param psn a PSN of [una, max) \return its slot
    Slot& At(uint64_t psn);
    /// \param psn a PSN of [una, max) \return its slot
    const Slot& At(uint64_t psn) const;
    /// Double the ring of slots (it is full).
    void Grow();
    /// Remove received PSNs from the front of the resend queue.
    void DropStaleResends();
    /// \param tx a transmission known received (each at most once)
    void RecordDelivered(uint64_t tx);

    std::vector<Slot> m_slots;   //!< ring of slots, PSN & m_mask (a power of two)
    uint64_t m_mask{0};          //!< m_slots.size() - 1
    uint64_t m_una{0};           //!< oldest unacknowledged PSN
    uint64_t m_max{0};           //!< one past the highest PSN sent
    uint64_t m_transmissions{0}; //!< transmissions so far
    uint64_t m_delivered{0};     //!< latest transmission known received (a lower bound)
    uint32_t m_tolerance{1};     //!< ReorderTolerance
    /// the ReorderTolerance latest transmissions known received, a min-heap: its top,
    /// once full, is the latest transmission with that many received from it on
    std::vector<uint64_t> m_latestDelivered;
    /// (transmission number, PSN) of transmissions not yet known received or lost
    RingQueue<std::pair<uint64_t, uint64_t>> m_txOrder;
    RingQueue<uint64_t> m_resend; //!< PSNs to resend, the front one not received
};

} // namespace ns3

#endif /* AI_FABRIC_SACK_SCOREBOARD_H */
