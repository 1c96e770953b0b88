/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_VOQ_QUEUE_DISC_H
#define AI_FABRIC_VOQ_QUEUE_DISC_H

#include "ns3/callback.h"
#include "ns3/queue-disc.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <list>
#include <string>
#include <vector>

namespace ns3
{

class VoqStore;

/**
 * \ingroup ai-fabric
 * \brief Ingress virtual output queues of a scheduled-fabric leaf, as a QueueDisc.
 *
 * One VOQ per (egress leaf, egress port, traffic class), numbered densely by the
 * owner. Packets are held once, in a single internal queue (so the QueueDisc byte
 * and packet counters and traces work as for any queue disc); each VOQ keeps a
 * FIFO of positions into it. Dequeue is gated by credit: a VOQ sends its head
 * packet when its credit balance covers it (or, with WholePacketCredit=false, as
 * soon as the balance is positive, which then goes negative), so granted bytes =
 * dequeued bytes + balance.
 *
 * Buffer limits: per VOQ (VoqLimit) and shared (BufferSize). When exhausted the
 * queue disc either tail-drops (counted, DropBeforeEnqueue trace) or, by default,
 * asks the owner to send a PFC pause to the ingress port for that traffic class
 * (PfcCallback). Each ingress port has headroom reserved out of BufferSize for
 * what it still sends after its pause (PfcHeadroom, or per port from the owner),
 * so the shared pause threshold is BufferSize minus every port's headroom: when
 * every port is caught by it at once, what they still send fits.
 *
 * Per-VOQ state is allocated when a VOQ first gets a packet or credit: an idle
 * VOQ costs one 32-bit index, and a VOQ that was never used reads as empty, with
 * no credit and nothing ever enqueued, dequeued or granted.
 *
 * Used through TrafficControlHelper with CreditGated=false it is a plain
 * round-robin multi-queue disc (classification by packet filters, else VOQ 0).
 */
class VoqQueueDisc : public QueueDisc
{
  public:
    /// What to do when the ingress buffer is exhausted.
    enum BufferFullAction
    {
        PFC = 0,      //!< pause the sending port and priority (lossless)
        TAIL_DROP = 1 //!< drop the arriving packet (counted and traced)
    };

    /// TracedCallback signature for VOQ events: (voq, bytes).
    typedef void (*VoqTracedCallback)(uint32_t voq, uint32_t bytes);
    /// TracedCallback signature for PFC requests: (port, tc, pause).
    typedef void (*PfcTracedCallback)(uint32_t port, uint8_t tc, bool pause);

    /// Pause (true) or resume (false) an ingress port for a traffic class.
    typedef Callback<void, uint32_t, uint8_t, bool> PfcCallback;
    /// May the VOQs of a group (e.g. those towards one egress leaf) send now?
    typedef Callback<bool, uint32_t> GroupReadyCallback;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    VoqQueueDisc();
    ~VoqQueueDisc() override;

    /**
     * Configure the VOQ and ingress-port layout (before the first packet).
     * \param voqs number of VOQs
     * \param ingressPorts number of ingress ports
     * \param trafficClasses number of traffic classes
     */
    void SetLayout(uint32_t voqs, uint32_t ingressPorts, uint32_t trafficClasses);

    /**
     * Add credit to a VOQ (a grant arrived).
     * \param voq VOQ index
     * \param bytes granted bytes
     */
    void AddCredit(uint32_t voq, uint64_t bytes);

    /**
     * \return true if some VOQ is on a class's turn list, so Dequeue may return a
     *         packet; false: Dequeue would return nothing (and change nothing)
     */
    bool HasEligible() const;

    /// \param cb called to pause or resume an ingress port for a traffic class
    void SetPfcCallback(PfcCallback cb);

    /**
     * Reserve an ingress port's PFC headroom (after SetLayout; replaces the
     * PfcHeadroom attribute's value for that port). Aborts, naming the values, if
     * the headroom of all ports would leave no shared buffer to pause on.
     * \param port ingress port
     * \param bytes what the port may still send after its pause
     */
    void SetIngressHeadroom(uint32_t port, uint64_t bytes);
    /// \param port ingress port \return its reserved PFC headroom, bytes
    uint64_t GetIngressHeadroom(uint32_t port) const;
    /// \return the shared pause threshold: BufferSize minus every port's headroom
    uint64_t GetSharedPauseThreshold() const;

    /**
     * Group the VOQs (VOQ v is in group v / voqsPerGroup) and gate each group: a
     * VOQ whose group is not ready is set aside, keeping its place among the
     * eligible, until NotifyGroupReady.
     * \param voqsPerGroup VOQs per group
     * \param ready asked before a VOQ of a group sends
     */
    void SetGroups(uint32_t voqsPerGroup, GroupReadyCallback ready);

    /// \param group a group that can send again: its set-aside VOQs compete again
    void NotifyGroupReady(uint32_t group);

    /// \return number of VOQs
    uint32_t GetNVoqs() const;
    /// \param voq index \return bytes queued in it
    uint64_t GetVoqBytes(uint32_t voq) const;
    /// \param voq index \return packets queued in it
    uint32_t GetVoqPackets(uint32_t voq) const;
    /// \param voq index \return credit balance (may be negative)
    int64_t GetVoqCredit(uint32_t voq) const;
    /// \param voq index \return bytes ever enqueued in it
    uint64_t GetVoqEnqueuedBytes(uint32_t voq) const;
    /// \param voq index \return bytes ever dequeued from it
    uint64_t GetVoqDequeuedBytes(uint32_t voq) const;
    /// \param voq index \return bytes ever granted to it
    uint64_t GetVoqGrantedBytes(uint32_t voq) const;
    /// \return VOQs that have state: those that ever had a packet, credit or a tag
    uint32_t GetAllocatedVoqs() const;

    /// No tag set.
    static constexpr uint32_t NO_TAG = 0xffffffff;
    /// \param voq index \return the tag set with SetVoqTag, or NO_TAG
    uint32_t GetVoqTag(uint32_t voq) const;
    /**
     * Keep a 32-bit value of the owner's with a VOQ's state (an index into the
     * owner's own per-VOQ state, so the owner needs no per-VOQ index of its own).
     * The VOQ's state is allocated if it had none.
     * \param voq index
     * \param tag the value
     */
    void SetVoqTag(uint32_t voq, uint32_t tag);
    /// \return bytes queued in all VOQs
    uint64_t GetQueuedBytes() const;
    /// \return packets queued in all VOQs
    uint64_t GetQueuedPackets() const;
    /// \return bytes ever dequeued from all VOQs
    uint64_t GetDequeuedBytes() const;
    /// \return credit balance summed over all VOQs (may be negative)
    int64_t GetCreditBalance() const;
    /// \return the largest occupancy of the shared buffer so far, bytes
    uint64_t GetBufferHighWater() const;
    /// \return packets tail-dropped
    uint64_t GetDroppedPackets() const;
    /// \return bytes tail-dropped
    uint64_t GetDroppedBytes() const;
    /// \return PFC pauses requested
    uint64_t GetPauses() const;
    /// \param port ingress port \param tc class \return true while it is paused
    bool IsPaused(uint32_t port, uint8_t tc) const;
    /// \param port ingress port \param tc class \return bytes held from it
    uint64_t GetIngressBytes(uint32_t port, uint8_t tc) const;

    /// Reason string for drops when the buffer is full
    static constexpr const char* BUFFER_FULL_DROP = "Ingress buffer full";

  protected:
    /// Drop the PFC and group-ready callbacks, release the store.
    void DoDispose() override;

  private:
    /**
     * Put a packet in its VOQ (the one a VoqQueueDiscItem names, else the classified
     * one), or drop it if the shared buffer (or, tail-dropping, the VOQ) is full.
     * \param item the packet
     * \return true if it is queued
     */
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    /// \return the head of the next eligible VOQ with credit, classes in strict
    ///         priority and VOQs of a class in turn; null if none
    Ptr<QueueDiscItem> DoDequeue() override;
    /// Create the internal store if none, check the PFC and buffer settings.
    /// \return false if the disc has classes or a foreign internal queue
    bool CheckConfig() override;
    /// Abort, naming what set it, if the PFC headroom leaves no shared buffer to
    /// pause on. \param what the setting, for the message
    void CheckHeadroom(const std::string& what) const;
    /// Lay the VOQs out from the attributes unless SetLayout did.
    void InitializeParams() override;

    /// Per-VOQ state.
    struct Voq
    {
        uint32_t head{NONE};  //!< first packet (index into m_nodes)
        uint32_t tail{NONE};  //!< last packet
        uint32_t packets{0};  //!< queued packets
        uint32_t tag{NO_TAG}; //!< the owner's value (SetVoqTag)
        uint64_t bytes{0};    //!< queued bytes
        int64_t credit{0};    //!< credit balance
        uint64_t enqueued{0}; //!< bytes ever enqueued
        uint64_t dequeued{0}; //!< bytes ever dequeued
        uint64_t granted{0};  //!< bytes ever granted
        uint8_t tc{0};        //!< traffic class of its packets
        bool eligible{false}; //!< in the eligible list
    };

    /// No node.
    static constexpr uint32_t NONE = 0xffffffff;

    /// A queued packet: its place in the store and the next packet of its VOQ.
    /// The nodes of all VOQs share one pool, so an empty VOQ holds none.
    struct Node
    {
        std::list<Ptr<QueueDiscItem>>::iterator pos; //!< position in the store
        uint32_t next;                               //!< next node of the VOQ or NONE
        uint32_t port;                               //!< ingress port
    };

    /// \param voq a VOQ \return its state, allocated on first use
    Voq& StateOf(uint32_t voq);
    /// \param voq a VOQ \return its state, or null if it was never used
    const Voq* Find(uint32_t voq) const;
    /**
     * Put a VOQ on the eligible list if it has packets and credit.
     * \param voq the VOQ
     * \param q its state
     */
    void MakeEligible(uint32_t voq, Voq& q);
    /// \param q a non-empty VOQ \return true if its credit lets its head packet go
    bool HasCredit(const Voq& q) const;
    /**
     * Re-evaluate PFC state of an ingress port and class.
     * \param port ingress port
     * \param tc traffic class
     * \param voq the VOQ a packet from it just entered, or NONE
     * \param voqBytes the bytes that VOQ holds now (with voq only)
     */
    void UpdatePfc(uint32_t port, uint8_t tc, uint32_t voq = NONE, uint64_t voqBytes = 0);
    /// Re-evaluate every paused ingress port and class (a shared limit eased).
    void RecheckPaused();

    Ptr<VoqStore> m_store;                        //!< the single internal queue
    std::vector<uint32_t> m_slot;                 //!< VOQ -> index into m_voqs, or NONE
    std::vector<Voq> m_voqs;                      //!< VOQs that were ever used
    std::vector<Node> m_nodes;                    //!< node pool of all VOQs
    uint32_t m_freeNodes{NONE};                   //!< free list of the pool
    std::vector<std::deque<uint32_t>> m_eligible; //!< per class: VOQs that may send, round robin
    uint32_t m_eligibleEntries{0};                //!< entries on the m_eligible lists
    uint32_t m_groupSize{0};                      //!< VOQs per group (0: no groups)
    GroupReadyCallback m_groupReady;              //!< owner's gate
    std::vector<std::vector<uint32_t>> m_parked;  //!< per group: eligible VOQs set aside
    std::vector<uint64_t> m_portTcBytes;          //!< bytes per (ingress port, tc)
    std::vector<uint64_t> m_portHeadroom;         //!< PFC headroom per ingress port
    uint64_t m_headroomTotal{0};                  //!< their sum
    std::vector<bool> m_paused;                   //!< PFC state per (ingress port, tc)
    std::vector<uint32_t> m_pauseVoq; //!< per (port, tc): VOQ over VoqLimit that paused it
    uint32_t m_pausedCount{0};        //!< (port, tc)s paused now
    uint32_t m_nVoqs;                 //!< attribute NumVoqs
    uint32_t m_nPorts{1};             //!< ingress ports
    uint32_t m_nTcs{8};               //!< traffic classes
    uint64_t m_voqLimit;              //!< attribute VoqLimit
    uint64_t m_bufferSize;            //!< attribute BufferSize
    uint64_t m_pfcXoff;               //!< attribute PfcXoff
    uint64_t m_pfcHeadroom;           //!< attribute PfcHeadroom (per ingress port)
    uint64_t m_pfcHysteresis;         //!< attribute PfcHysteresis
    BufferFullAction m_action;        //!< attribute BufferFullAction
    bool m_wholePacketCredit;         //!< attribute WholePacketCredit
    bool m_gated;                     //!< attribute CreditGated
    bool m_layoutSet{false};          //!< SetLayout was called (by a credit source)
    uint64_t m_used{0};               //!< shared buffer occupancy (bytes queued in all VOQs)
    uint64_t m_highWater{0};          //!< its maximum
    uint64_t m_queuedPackets{0};      //!< packets queued in all VOQs
    uint64_t m_dequeuedBytes{0};      //!< bytes ever dequeued from all VOQs
    int64_t m_creditBalance{0};       //!< credit balance summed over all VOQs
    uint64_t m_droppedPackets{0};     //!< counter
    uint64_t m_droppedBytes{0};       //!< counter
    uint64_t m_pauses{0};             //!< counter
    PfcCallback m_pfc;                //!< owner's PFC hook
    TracedCallback<uint32_t, uint32_t> m_voqEnqueueTrace; //!< (voq, bytes)
    TracedCallback<uint32_t, uint32_t> m_voqDequeueTrace; //!< (voq, bytes)
    TracedCallback<uint32_t, uint32_t> m_voqDropTrace;    //!< (voq, bytes)
    TracedCallback<uint32_t, uint8_t, bool> m_pfcTrace;   //!< (port, tc, pause)
};

} // namespace ns3

#endif /* AI_FABRIC_VOQ_QUEUE_DISC_H */
