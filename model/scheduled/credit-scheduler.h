/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CREDIT_SCHEDULER_H
#define AI_FABRIC_CREDIT_SCHEDULER_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Egress credit scheduler of one host port of a scheduled-fabric leaf.
 *
 * Ingress VOQs report, in credit-request control cells, the cumulative bytes
 * they have queued for this port; the scheduler hands out credit in grants of at
 * most CreditSize bytes, paced at the port rate x OverGrant, and reports each
 * grant as the cumulative bytes granted to that VOQ (so a lost control cell is
 * repaired by the next one). Requesting VOQs of one traffic class share the
 * grants by deficit round robin with quantum CreditSize; traffic classes are
 * served in strict priority (7 highest) or by weighted DRR. While the port's
 * egress queue holds more than EgressQueueLimit bytes the scheduler skips its
 * turn, so the over-grant cannot grow that queue without bound.
 *
 * Credit is self-clocked by what the fabric delivers: the scheduler stops
 * granting while CreditWindow bytes it granted have not yet arrived at its leaf
 * (NotifyArrival), and resumes as they arrive. When the fabric towards the port
 * carries less than the port rate (a fabric speedup below 1, failed links, a
 * congested ingress), grants slow to what it does carry, and at most
 * CreditWindow bytes for the port are anywhere between the ingress VOQs and the
 * egress leaf. No requesting VOQ holds more than its share of the window
 * (CreditWindow / requesting VOQs, at least a credit): a VOQ that cannot send,
 * its ingress blocked by flow control or a failure, would otherwise keep the
 * window full with credit it cannot use while the others wait. A granted byte has arrived (or been
 * lost with a failed link) within WindowTimeout, far longer than any trip through the fabric: bytes
 * granted longer ago that have not arrived are written off, so losses cannot
 * hold the window shut.
 *
 * TurnBatch above 1 is a faster approximation: a turn grants up to TurnBatch
 * credits at once to the VOQ whose turn it is (never more than is left of its
 * SourceQuantum or of its demand), and the next turn comes as many credit times
 * later, so the credit rate and the round robin's shares are kept while a VOQ
 * may receive a credit up to TurnBatch - 1 credit times early.
 *
 * Per-VOQ state is allocated when a VOQ first requests (or its bytes arrive): a
 * (traffic class, source) that never asked costs one 32-bit index.
 */
class CreditScheduler : public Object
{
  public:
    /// How traffic classes share the port.
    enum ClassMode
    {
        STRICT_PRIORITY = 0, //!< higher class first
        WEIGHTED = 1         //!< weighted deficit round robin (ClassWeights)
    };

    /// Send a grant: (source, tc, cumulative bytes granted to that VOQ).
    typedef Callback<void, uint32_t, uint8_t, uint64_t> GrantCallback;
    /// Bytes waiting in the egress port queue now.
    typedef Callback<uint64_t> QueueBytesCallback;
    /// TracedCallback signature: (source, tc, bytes).
    typedef void (*CreditTracedCallback)(uint32_t source, uint8_t tc, uint64_t bytes);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    CreditScheduler();
    ~CreditScheduler() override;

    /**
     * Set the number of sources and classes and validate the attributes.
     * \param sources ingress leaves that may request
     * \param trafficClasses traffic classes
     * \param portRate the egress port's rate
     * \param minCreditSize smallest credit allowed (one cell's payload)
     */
    void Setup(uint32_t sources,
               uint32_t trafficClasses,
               DataRate portRate,
               uint32_t minCreditSize);

    /// \param cb sends a grant towards its source
    void SetGrantCallback(GrantCallback cb);
    /// \param cb reads the egress queue
    void SetQueueBytesCallback(QueueBytesCallback cb);

    /**
     * Bytes for this port arrived at its leaf (cells from the fabric, a local
     * packet, or a packet given up at reassembly): they leave the window.
     * \param source the ingress leaf they came from
     * \param tc their traffic class
     * \param bytes packet bytes
     */
    void NotifyArrival(uint32_t source, uint8_t tc, uint64_t bytes);

    /**
     * A credit request arrived.
     * \param source ingress leaf
     * \param tc traffic class
     * \param cumulativeBytes bytes that VOQ has queued for this port since the start
     * \param refresh a watchdog re-request: if nothing is new and everything was
     *        granted, the last grant is repeated (it may have been lost)
     */
    void Request(uint32_t source, uint8_t tc, uint64_t cumulativeBytes, bool refresh = false);

    /// \return bytes granted in total
    uint64_t GetGrantedBytes() const;
    /// \param source ingress leaf \param tc class \return bytes granted to that VOQ
    uint64_t GetGrantedBytes(uint32_t source, uint8_t tc) const;
    /// \param source ingress leaf \param tc class \return bytes requested by that VOQ
    uint64_t GetRequestedBytes(uint32_t source, uint8_t tc) const;
    /**
     * \param source ingress leaf
     * \param tc class
     * \return the cumulative grant last sent to that VOQ, as the owner recorded it
     *         with SetGrantSent (0 if none)
     */
    uint64_t GetGrantSent(uint32_t source, uint8_t tc) const;
    /**
     * Record the cumulative grant the owner last sent to a VOQ (grants may be
     * batched: the owner sends only some of those this scheduler hands out).
     * \param source ingress leaf
     * \param tc class
     * \param cumulative cumulative bytes granted that the owner sent
     */
    void SetGrantSent(uint32_t source, uint8_t tc, uint64_t cumulative);
    /// \return (class, source) pairs that have state: those that ever asked or sent
    uint32_t GetAllocatedEntries() const;
    /// \return grants sent
    uint64_t GetGrants() const;
    /// \return turns skipped because the egress queue was above the limit
    uint64_t GetSkippedTurns() const;
    /// \return grants repeated because a requester had evidently lost one
    uint64_t GetGrantRefreshes() const;
    /// \return the egress queue limit in bytes (after Setup)
    uint64_t GetEgressQueueLimit() const;
    /// \return the credit size in bytes
    uint32_t GetCreditSize() const;
    /// \return the credit window in bytes (after Setup; 0: none)
    uint64_t GetCreditWindow() const;
    /// \return bytes granted and not yet arrived (negative when VOQs overdrew)
    int64_t GetOutstandingBytes() const;
    /// \return times the window stopped the grants
    uint64_t GetWindowStalls() const;
    /// \return bytes written off after WindowTimeout
    uint64_t GetWrittenOffBytes() const;

  protected:
    /// Cancel the tick and window-check events, drop the callbacks.
    void DoDispose() override;

  private:
    /// One grant turn.
    void Tick();
    /// Start ticking if idle and there is demand.
    void Kick();
    /// \return a class with a VOQ that may be granted, chosen by the class mode, or -1
    int32_t PickClass();
    /**
     * \param tc a class
     * \return true if a requesting VOQ of it is below its share of the window (it
     *         is then at the head of the class's turn)
     */
    bool CanGrant(uint32_t tc);
    /// Write off what was granted more than WindowTimeout ago and has not arrived.
    void Age();
    /// Stop granting until bytes arrive (or age).
    void StallWindow();
    /// Count granted bytes in the current age bucket. \param bytes the bytes granted
    void RecordGrant(uint64_t bytes);
    /// The window was full: look again now that grants have aged.
    void CheckWindow();

    /// No entry.
    static constexpr uint32_t NONE = 0xffffffff;

    /// Per-VOQ state.
    struct Entry
    {
        uint64_t requested{0}; //!< cumulative bytes requested
        uint64_t granted{0};   //!< cumulative bytes granted
        uint64_t arrived{0};   //!< cumulative bytes arrived (or given up)
        uint64_t grantSent{0}; //!< cumulative grant the owner last sent
        uint32_t source{0};    //!< its ingress leaf
        uint32_t next{NONE};   //!< next entry on its class's round-robin list
        bool active{false};    //!< on its class's round-robin list
    };

    /// A class's round-robin list of requesting VOQs, linked through the entries.
    struct ActiveList
    {
        uint32_t head{NONE}; //!< first entry (the one whose turn it is)
        uint32_t tail{NONE}; //!< last entry
        uint32_t size{0};    //!< entries on the list
    };

    /**
     * \param source ingress leaf
     * \param tc class
     * \return its entry, allocated on first use
     */
    Entry& EntryOf(uint32_t source, uint8_t tc);
    /**
     * \param source ingress leaf
     * \param tc class
     * \return its entry, or null if it has none
     */
    const Entry* Find(uint32_t source, uint8_t tc) const;
    /// \param tc class \param slot an entry: append it to the class's list
    void PushActive(uint32_t tc, uint32_t slot);
    /// \param tc class with a non-empty list \return its first entry, removed
    uint32_t PopActive(uint32_t tc);

    uint32_t m_creditSize;     //!< attribute CreditSize
    double m_overGrant;        //!< attribute OverGrant
    ClassMode m_classMode;     //!< attribute ClassMode
    std::string m_weightsText; //!< attribute ClassWeights
    Time m_queueTime;          //!< attribute EgressQueueTime
    uint64_t m_queueLimit;     //!< attribute EgressQueueLimit
    uint64_t m_window;         //!< attribute CreditWindow
    Time m_windowTime;         //!< attribute CreditWindowTime
    Time m_windowTimeout;      //!< attribute WindowTimeout
    uint64_t m_arrived{0};     //!< bytes arrived (or given up)
    /// Age buckets over WindowTimeout.
    static constexpr uint32_t AGE_BUCKETS = 8;
    uint64_t m_recent[AGE_BUCKETS]{};    //!< bytes granted per age bucket
    uint32_t m_bucket{0};                //!< current age bucket
    int64_t m_bucketEnd{0};              //!< when it ends (time steps)
    bool m_windowStalled{false};         //!< the window stopped the grants
    EventId m_windowCheck;               //!< write-off check
    uint64_t m_windowStalls{0};          //!< counter
    uint64_t m_writtenOff{0};            //!< counter
    uint32_t m_sources{0};               //!< sources
    uint32_t m_tcs{0};                   //!< classes
    DataRate m_rate;                     //!< port rate
    std::vector<uint32_t> m_slot;        //!< per (tc, source): index into m_entries, or NONE
    std::vector<Entry> m_entries;        //!< VOQs that have asked
    std::vector<ActiveList> m_active;    //!< per tc, VOQs with demand
    uint64_t m_activeClasses{0};         //!< bit tc: m_active[tc] is not empty
    std::vector<uint64_t> m_weights;     //!< per tc
    std::vector<int64_t> m_classDeficit; //!< per tc (weighted mode)
    std::vector<uint64_t> m_turnBytes;   //!< per tc, bytes granted to the head source
    uint32_t m_sourceQuantum;            //!< attribute SourceQuantum
    uint32_t m_turnBatch;                //!< attribute TurnBatch
    uint32_t m_classCursor{0};           //!< weighted mode round-robin position
    uint32_t m_activeCount{0};           //!< VOQs with demand
    EventId m_tick;                      //!< next turn
    __int128_t m_nextFs{0};          //!< exact time of the next turn, fs (128 bits: no overflow)
    int64_t m_turnFs{0};             //!< one turn (a credit at port rate x OverGrant), fs
    bool m_running{false};           //!< ticking
    uint64_t m_grantedTotal{0};      //!< counter
    uint64_t m_grants{0};            //!< counter
    uint64_t m_refreshes{0};         //!< counter
    uint64_t m_skipped{0};           //!< counter
    GrantCallback m_grantCb;         //!< to the fabric
    QueueBytesCallback m_queueBytes; //!< egress queue
    TracedCallback<uint32_t, uint8_t, uint64_t> m_requestTrace; //!< request received
    TracedCallback<uint32_t, uint8_t, uint64_t> m_grantTrace;   //!< grant sent (bytes of it)
};

} // namespace ns3

#endif /* AI_FABRIC_CREDIT_SCHEDULER_H */
