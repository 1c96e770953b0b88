/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "credit-scheduler.h"

#include "femtosecond-clock.h"

#include "ns3/abort.h"
#include "ns3/ai-fabric-ns3-compat.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CreditScheduler");
NS_OBJECT_ENSURE_REGISTERED(CreditScheduler);

TypeId
CreditScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CreditScheduler")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<CreditScheduler>()
            // Jericho-family credit sizes are configurable up to 1024 B (public
            // Broadcom DNX material); the largest is the default.
            .AddAttribute("CreditSize",
                          "Bytes granted per credit (at least one cell payload)",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&CreditScheduler::m_creditSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("OverGrant",
                          "Credit rate as a multiple of the port rate (at least 1)",
                          DoubleValue(1.05),
                          MakeDoubleAccessor(&CreditScheduler::m_overGrant),
                          MakeDoubleChecker<double>())
            .AddAttribute("SourceQuantum",
                          "Credit bytes a requesting VOQ receives in consecutive grants "
                          "before the turn passes to the next one (deficit round robin "
                          "quantum; at least CreditSize). A VOQ may send a whole packet on "
                          "its first credit and repay the rest, so a quantum of at least the "
                          "largest packet keeps the first grants of many VOQs from letting "
                          "them all overdraw at once",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&CreditScheduler::m_sourceQuantum),
                          MakeUintegerChecker<uint32_t>())
            // A faster, approximate mode: fewer turns (events), each granting
            // several credits; its accuracy is checked against exact turns by the
            // suite ai-fabric-credit-turn-batch.
            .AddAttribute("TurnBatch",
                          "Credits one turn may grant to the VOQ whose turn it is (no more "
                          "than what is left of its SourceQuantum turn and of its demand); "
                          "the next turn comes that many credit times later. 1: a turn per "
                          "credit (exact); more: fewer simulator events, and a VOQ receives "
                          "up to TurnBatch - 1 credits earlier than it would",
                          UintegerValue(1),
                          MakeUintegerAccessor(&CreditScheduler::m_turnBatch),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ClassMode",
                          "How traffic classes share the port",
                          EnumValue(CreditScheduler::STRICT_PRIORITY),
                          ai_fabric::MakeEnumAccessor(&CreditScheduler::m_classMode),
                          MakeEnumChecker(CreditScheduler::STRICT_PRIORITY,
                                          "StrictPriority",
                                          CreditScheduler::WEIGHTED,
                                          "Weighted"))
            .AddAttribute("ClassWeights",
                          "Comma-separated weights of classes 0,1,... (Weighted mode; "
                          "missing classes get 1)",
                          StringValue("1,1,1,1,1,1,1,1"),
                          MakeStringAccessor(&CreditScheduler::m_weightsText),
                          MakeStringChecker())
            .AddAttribute("EgressQueueLimit",
                          "Egress port queue bytes above which no credit is granted (0: the "
                          "port rate x EgressQueueTime)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&CreditScheduler::m_queueLimit),
                          MakeUintegerChecker<uint64_t>())
            // The queue must cover the time from a grant to its data reaching the
            // port (grant and cells each cross the fabric: a few us), or the port
            // idles whenever the limit stops the grants.
            .AddAttribute("EgressQueueTime",
                          "Default egress queue limit, as time at the port rate",
                          TimeValue(MicroSeconds(5)),
                          MakeTimeAccessor(&CreditScheduler::m_queueTime),
                          MakeTimeChecker(Time(0)))
            // The window must cover a grant's round trip (grant cell to the
            // ingress, its data back through the fabric: 4 link delays, the fabric
            // ports' queues and the cells of a packet), or the port idles.
            .AddAttribute("CreditWindow",
                          "Bytes granted and not yet arrived at the egress leaf above which "
                          "no credit is granted (0: the port rate x CreditWindowTime)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&CreditScheduler::m_window),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("CreditWindowTime",
                          "Default credit window, as time at the port rate",
                          TimeValue(MicroSeconds(8)),
                          MakeTimeAccessor(&CreditScheduler::m_windowTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("WindowTimeout",
                          "Granted bytes that have not arrived this long after their grant "
                          "are written off as lost (the credit window no longer counts them)",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&CreditScheduler::m_windowTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddTraceSource("CreditRequest",
                            "A credit request arrived (source, tc, cumulative bytes)",
                            MakeTraceSourceAccessor(&CreditScheduler::m_requestTrace),
                            "ns3::CreditScheduler::CreditTracedCallback")
            .AddTraceSource("CreditGrant",
                            "A grant was sent (source, tc, bytes of this grant)",
                            MakeTraceSourceAccessor(&CreditScheduler::m_grantTrace),
                            "ns3::CreditScheduler::CreditTracedCallback");
    return tid;
}

CreditScheduler::CreditScheduler()
{
    NS_LOG_FUNCTION(this);
}

CreditScheduler::~CreditScheduler()
{
}

void
CreditScheduler::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_tick.Cancel();
    m_windowCheck.Cancel();
    m_grantCb = GrantCallback();
    m_queueBytes = QueueBytesCallback();
    Object::DoDispose();
}

void
CreditScheduler::Setup(uint32_t sources,
                       uint32_t trafficClasses,
                       DataRate portRate,
                       uint32_t minCreditSize)
{
    NS_LOG_FUNCTION(this << sources << trafficClasses << portRate << minCreditSize);
    NS_ABORT_MSG_IF(m_creditSize < minCreditSize,
                    "CreditSize=" << m_creditSize << " is smaller than one cell (CellPayload="
                                  << minCreditSize << ")");
    NS_ABORT_MSG_IF(m_creditSize == 0, "CreditSize must be positive, got CreditSize=0");
    NS_ABORT_MSG_IF(m_sourceQuantum < m_creditSize,
                    "SourceQuantum=" << m_sourceQuantum
                                     << " is smaller than CreditSize=" << m_creditSize);
    NS_ABORT_MSG_IF(!(m_overGrant >= 1.0), "OverGrant=" << m_overGrant << " must be at least 1");
    const uint32_t creditsPerQuantum = (m_sourceQuantum + m_creditSize - 1) / m_creditSize;
    NS_ABORT_MSG_IF(m_turnBatch == 0 || m_turnBatch > creditsPerQuantum,
                    "TurnBatch=" << m_turnBatch << " must be in 1.." << creditsPerQuantum
                                 << " (a turn grants at most the credits of one SourceQuantum="
                                 << m_sourceQuantum << " turn at CreditSize=" << m_creditSize
                                 << ")");
    NS_ABORT_MSG_IF(portRate.GetBitRate() == 0, "CreditScheduler: port rate must be positive");
    NS_ABORT_MSG_IF(sources == 0 || trafficClasses == 0,
                    "CreditScheduler: sources and traffic classes must be at least 1");
    NS_ABORT_MSG_IF(trafficClasses > 64,
                    "CreditScheduler: at most 64 traffic classes, got " << trafficClasses);
    m_sources = sources;
    m_tcs = trafficClasses;
    m_rate = portRate;
    // One turn's time at port rate x over-grant (every turn is one credit long).
    const double rate = static_cast<double>(m_rate.GetBitRate()) * m_overGrant;
    m_turnFs = static_cast<int64_t>(static_cast<double>(m_creditSize) * 8.0 *
                                    static_cast<double>(FEMTOSECONDS_PER_SECOND) / rate);
    if (m_queueLimit == 0)
    {
        m_queueLimit = static_cast<uint64_t>(m_queueTime.GetSeconds() * portRate.GetBitRate() / 8);
    }
    if (m_window == 0)
    {
        m_window = static_cast<uint64_t>(m_windowTime.GetSeconds() * portRate.GetBitRate() / 8);
    }
    NS_ABORT_MSG_IF(m_window != 0 && m_window < m_sourceQuantum,
                    "CreditWindow=" << m_window
                                    << " is smaller than SourceQuantum=" << m_sourceQuantum);
    m_slot.assign(static_cast<std::size_t>(sources) * trafficClasses, NONE);
    m_entries.clear();
    m_active.assign(trafficClasses, ActiveList());
    m_activeClasses = 0;
    m_classDeficit.assign(trafficClasses, 0);
    m_turnBytes.assign(trafficClasses, 0);
    m_weights.assign(trafficClasses, 1);
    std::istringstream in(m_weightsText);
    std::string item;
    for (uint32_t tc = 0; tc < trafficClasses && std::getline(in, item, ','); ++tc)
    {
        std::istringstream num(item);
        int64_t w = -1;
        num >> w;
        NS_ABORT_MSG_IF(num.fail() || w < 1,
                        "ClassWeights=\"" << m_weightsText << "\": weight of class " << tc
                                          << " must be a positive integer, got \"" << item << "\"");
        m_weights[tc] = static_cast<uint64_t>(w);
    }
}

void
CreditScheduler::SetGrantCallback(GrantCallback cb)
{
    m_grantCb = cb;
}

void
CreditScheduler::SetQueueBytesCallback(QueueBytesCallback cb)
{
    m_queueBytes = cb;
}

int64_t
CreditScheduler::GetOutstandingBytes() const
{
    return static_cast<int64_t>(m_grantedTotal) - static_cast<int64_t>(m_arrived);
}

void
CreditScheduler::NotifyArrival(uint32_t source, uint8_t tc, uint64_t bytes)
{
    NS_LOG_FUNCTION(this << source << +tc << bytes);
    NS_ASSERT(source < m_sources && tc < m_tcs);
    EntryOf(source, tc).arrived += bytes;
    m_arrived += bytes;
    if (m_windowStalled && GetOutstandingBytes() < static_cast<int64_t>(m_window))
    {
        NS_LOG_LOGIC("window open again: " << GetOutstandingBytes() << " B outstanding");
        m_windowStalled = false;
        m_windowCheck.Cancel();
        Kick();
    }
}

void
CreditScheduler::RecordGrant(uint64_t bytes)
{
    Age();
    m_recent[m_bucket] += bytes;
}

void
CreditScheduler::Age()
{
    const int64_t now = Simulator::Now().GetTimeStep();
    const int64_t width = std::max<int64_t>(1, m_windowTimeout.GetTimeStep() / AGE_BUCKETS);
    if (now < m_bucketEnd)
    {
        return;
    }
    // Buckets older than WindowTimeout forget their grants.
    const int64_t passed = (now - m_bucketEnd) / width + 1;
    for (int64_t k = 0; k < std::min<int64_t>(passed, AGE_BUCKETS); ++k)
    {
        m_bucket = (m_bucket + 1) % AGE_BUCKETS;
        m_recent[m_bucket] = 0;
    }
    m_bucketEnd += passed * width;
    uint64_t recent = 0;
    for (uint64_t bytes : m_recent)
    {
        recent += bytes;
    }
    // Everything granted before the recent buckets has arrived or was lost.
    const uint64_t old = m_grantedTotal - std::min(m_grantedTotal, recent);
    if (old > m_arrived)
    {
        NS_LOG_LOGIC("writes off " << old - m_arrived << " B granted over "
                                   << m_windowTimeout.As(Time::US) << " ago");
        m_writtenOff += old - m_arrived;
        m_arrived = old;
        // Which VOQ's bytes were lost is not known: none is held to its share
        // for them. (A VOQ without an entry has neither.)
        for (auto& e : m_entries)
        {
            e.arrived = std::max(e.arrived, e.granted);
        }
    }
}

void
CreditScheduler::StallWindow()
{
    m_windowStalls++;
    m_windowStalled = true;
    m_running = false;
    if (!ai_fabric::IsPending(m_windowCheck))
    {
        m_windowCheck =
            Simulator::Schedule(m_windowTimeout / AGE_BUCKETS, &CreditScheduler::CheckWindow, this);
    }
}

void
CreditScheduler::CheckWindow()
{
    NS_LOG_FUNCTION(this);
    if (!m_windowStalled)
    {
        return;
    }
    Age();
    if (GetOutstandingBytes() < static_cast<int64_t>(m_window))
    {
        m_windowStalled = false;
        Kick();
        return;
    }
    m_windowCheck =
        Simulator::Schedule(m_windowTimeout / AGE_BUCKETS, &CreditScheduler::CheckWindow, this);
}

void
CreditScheduler::Request(uint32_t source, uint8_t tc, uint64_t cumulativeBytes, bool refresh)
{
    NS_LOG_FUNCTION(this << source << +tc << cumulativeBytes << refresh);
    NS_ASSERT(source < m_sources && tc < m_tcs);
    m_requestTrace(source, tc, cumulativeBytes);
    Entry& e = EntryOf(source, tc);
    // Cumulative: a stale or reordered request never lowers the demand.
    if (refresh && cumulativeBytes <= e.requested && e.granted >= e.requested && e.granted > 0)
    {
        // A watchdog re-request with nothing new, everything granted: the
        // requester did not get our last grant (lost with a failed link). Repeat
        // it; being cumulative, it adds no credit twice. (A plain request that
        // is merely stale, overtaken on another spine, gets no repeat.)
        NS_LOG_LOGIC("refresh from source " << source << " class " << +tc
                                            << " with everything granted: repeats cumulative "
                                            << e.granted << " B");
        m_refreshes++;
        m_grantCb(source, tc, e.granted);
        return;
    }
    e.requested = std::max(e.requested, cumulativeBytes);
    NS_LOG_LOGIC("source " << source << " class " << +tc << " requests cumulative "
                           << cumulativeBytes << " B, " << e.granted << " B granted so far");
    if (!e.active && e.requested > e.granted)
    {
        e.active = true;
        PushActive(tc, m_slot[tc * m_sources + source]);
        m_activeCount++;
    }
    Kick();
}

void
CreditScheduler::Kick()
{
    if (m_running || m_activeCount == 0 || m_windowStalled)
    {
        return;
    }
    m_running = true;
    const __int128_t nowFs = NowInFemtoSeconds();
    // Pacing never runs ahead: an idle scheduler does not bank turns.
    m_nextFs = std::max(m_nextFs, nowFs);
    if (m_nextFs == nowFs)
    {
        Tick();
    }
    else
    {
        m_tick = Simulator::Schedule(
            std::max(Time(0), FemtoSeconds(static_cast<int64_t>(m_nextFs - NowInFemtoSeconds()))),
            &CreditScheduler::Tick,
            this);
    }
}

CreditScheduler::Entry&
CreditScheduler::EntryOf(uint32_t source, uint8_t tc)
{
    uint32_t& slot = m_slot[tc * m_sources + source];
    if (slot == NONE)
    {
        slot = static_cast<uint32_t>(m_entries.size());
        m_entries.emplace_back();
        m_entries.back().source = source;
    }
    return m_entries[slot];
}

const CreditScheduler::Entry*
CreditScheduler::Find(uint32_t source, uint8_t tc) const
{
    NS_ABORT_MSG_IF(source >= m_sources || tc >= m_tcs,
                    "CreditScheduler: no VOQ (source " << source << ", class " << +tc << ")");
    const uint32_t slot = m_slot[tc * m_sources + source];
    return slot == NONE ? nullptr : &m_entries[slot];
}

void
CreditScheduler::PushActive(uint32_t tc, uint32_t slot)
{
    ActiveList& list = m_active[tc];
    m_entries[slot].next = NONE;
    if (list.tail == NONE)
    {
        list.head = slot;
    }
    else
    {
        m_entries[list.tail].next = slot;
    }
    list.tail = slot;
    list.size++;
    m_activeClasses |= uint64_t{1} << tc;
}

uint32_t
CreditScheduler::PopActive(uint32_t tc)
{
    ActiveList& list = m_active[tc];
    const uint32_t slot = list.head;
    list.head = m_entries[slot].next;
    if (list.head == NONE)
    {
        list.tail = NONE;
        m_activeClasses &= ~(uint64_t{1} << tc);
    }
    list.size--;
    return slot;
}

bool
CreditScheduler::CanGrant(uint32_t tc)
{
    const ActiveList& list = m_active[tc];
    if (list.size == 0)
    {
        return false;
    }
    if (m_window == 0)
    {
        return true;
    }
    // The turn passes over VOQs that hold their share of the window.
    const int64_t share = std::max<int64_t>(m_window / m_activeCount,
                                            static_cast<int64_t>(m_sourceQuantum + m_creditSize));
    for (uint32_t passed = 0, n = list.size; passed < n; ++passed)
    {
        const Entry& head = m_entries[list.head];
        if (static_cast<int64_t>(head.granted - head.arrived) < share)
        {
            return true;
        }
        PushActive(tc, PopActive(tc));
        m_turnBytes[tc] = 0;
    }
    return false;
}

int32_t
CreditScheduler::PickClass()
{
    if (m_classMode == STRICT_PRIORITY)
    {
        // Only classes with requesting VOQs, highest first (an empty class can
        // never be granted).
        for (uint64_t classes = m_activeClasses; classes != 0;)
        {
            const int32_t tc = 63 - __builtin_clzll(classes);
            if (CanGrant(tc))
            {
                return tc;
            }
            classes &= ~(uint64_t{1} << tc);
        }
        return -1;
    }
    // Weighted DRR over classes: a class keeps the turn while its deficit lasts.
    for (uint32_t n = 0; n < 2 * m_tcs + 1; ++n)
    {
        const uint32_t tc = m_classCursor;
        if (!CanGrant(tc))
        {
            m_classDeficit[tc] = m_active[tc].size == 0 ? 0 : m_classDeficit[tc];
        }
        else if (m_classDeficit[tc] > 0)
        {
            return static_cast<int32_t>(tc);
        }
        else
        {
            m_classDeficit[tc] += static_cast<int64_t>(m_weights[tc] * m_creditSize);
            if (m_classDeficit[tc] > 0)
            {
                return static_cast<int32_t>(tc);
            }
        }
        m_classCursor = (m_classCursor + 1) % m_tcs;
    }
    return -1;
}

void
CreditScheduler::Tick()
{
    NS_LOG_FUNCTION(this);
    if (m_activeCount == 0)
    {
        m_running = false;
        return;
    }
    if (m_window != 0)
    {
        Age();
    }
    if (m_window != 0 && GetOutstandingBytes() >= static_cast<int64_t>(m_window))
    {
        // Self-clocking: the next grant waits for granted bytes to arrive.
        NS_LOG_LOGIC("window full: " << GetOutstandingBytes() << " B outstanding");
        StallWindow();
        return;
    }
    uint64_t turnCredits = 1;
    if (!m_queueBytes.IsNull() && m_queueBytes() > m_queueLimit)
    {
        NS_LOG_LOGIC("egress queue above " << m_queueLimit << " B: turn skipped");
        m_skipped++;
    }
    else
    {
        const int32_t tc = PickClass();
        if (tc < 0)
        {
            NS_LOG_LOGIC("every requesting VOQ holds its share of the window ("
                         << GetOutstandingBytes() << " B outstanding of " << m_window << ")");
            StallWindow();
            return;
        }
        const uint32_t slot = m_active[tc].head;
        Entry& e = m_entries[slot];
        const uint32_t source = e.source;
        // Credit comes in whole credits, as in cell fabrics: a VOQ of small packets
        // (ACKs) keeps the rest of a credit and sends its next packets on it,
        // instead of a request and a grant per packet. One credit per turn, or with
        // TurnBatch up to what is left of the head's quantum and of its demand.
        uint64_t credits = 1;
        if (m_turnBatch > 1)
        {
            const uint64_t quantumLeft =
                m_turnBytes[tc] < m_sourceQuantum ? m_sourceQuantum - m_turnBytes[tc] : 0;
            const uint64_t demand = e.requested - e.granted;
            credits = std::min<uint64_t>({m_turnBatch,
                                          std::max<uint64_t>(1, quantumLeft / m_creditSize),
                                          (demand + m_creditSize - 1) / m_creditSize});
            NS_LOG_LOGIC("turn of " << credits << " credits");
        }
        turnCredits = credits;
        const uint64_t grant = credits * m_creditSize;
        e.granted += grant;
        m_grantedTotal += grant;
        RecordGrant(grant);
        m_grants++;
        if (m_classMode == WEIGHTED)
        {
            m_classDeficit[tc] -= static_cast<int64_t>(grant);
            if (m_classDeficit[tc] <= 0)
            {
                m_classCursor = (m_classCursor + 1) % m_tcs;
            }
        }
        // The head source keeps the turn until it has had SourceQuantum bytes.
        m_turnBytes[tc] += grant;
        if (e.granted >= e.requested)
        {
            PopActive(tc);
            m_turnBytes[tc] = 0;
            e.active = false;
            m_activeCount--;
        }
        else if (m_turnBytes[tc] >= m_sourceQuantum)
        {
            PushActive(tc, PopActive(tc));
            m_turnBytes[tc] = 0;
        }
        NS_LOG_LOGIC("grants " << grant << " B to source " << source << " class " << tc
                               << ": cumulative " << e.granted << " B of " << e.requested
                               << " requested, " << GetOutstandingBytes() << " B outstanding");
        m_grantTrace(source, static_cast<uint8_t>(tc), grant);
        m_grantCb(source, static_cast<uint8_t>(tc), e.granted);
    }
    // Next turn after this grant's bytes (a turn skipped counts as one credit) at
    // port rate x over-grant.
    m_nextFs += turnCredits == 1 ? m_turnFs : static_cast<__int128_t>(turnCredits) * m_turnFs;
    if (m_activeCount == 0)
    {
        m_running = false;
        return;
    }
    m_tick = Simulator::Schedule(
        std::max(Time(0), FemtoSeconds(static_cast<int64_t>(m_nextFs - NowInFemtoSeconds()))),
        &CreditScheduler::Tick,
        this);
}

uint64_t
CreditScheduler::GetGrantedBytes() const
{
    return m_grantedTotal;
}

uint64_t
CreditScheduler::GetGrantedBytes(uint32_t source, uint8_t tc) const
{
    const Entry* e = Find(source, tc);
    return e ? e->granted : 0;
}

uint64_t
CreditScheduler::GetRequestedBytes(uint32_t source, uint8_t tc) const
{
    const Entry* e = Find(source, tc);
    return e ? e->requested : 0;
}

uint64_t
CreditScheduler::GetGrantSent(uint32_t source, uint8_t tc) const
{
    const Entry* e = Find(source, tc);
    return e ? e->grantSent : 0;
}

void
CreditScheduler::SetGrantSent(uint32_t source, uint8_t tc, uint64_t cumulative)
{
    NS_LOG_FUNCTION(this << source << +tc << cumulative);
    NS_ABORT_MSG_IF(source >= m_sources || tc >= m_tcs,
                    "CreditScheduler: no VOQ (source " << source << ", class " << +tc << ")");
    EntryOf(source, tc).grantSent = cumulative;
}

uint32_t
CreditScheduler::GetAllocatedEntries() const
{
    return static_cast<uint32_t>(m_entries.size());
}

uint64_t
CreditScheduler::GetGrants() const
{
    return m_grants;
}

uint64_t
CreditScheduler::GetSkippedTurns() const
{
    return m_skipped;
}

uint64_t
CreditScheduler::GetGrantRefreshes() const
{
    return m_refreshes;
}

uint64_t
CreditScheduler::GetEgressQueueLimit() const
{
    return m_queueLimit;
}

uint32_t
CreditScheduler::GetCreditSize() const
{
    return m_creditSize;
}

uint64_t
CreditScheduler::GetCreditWindow() const
{
    return m_window;
}

uint64_t
CreditScheduler::GetWindowStalls() const
{
    return m_windowStalls;
}

uint64_t
CreditScheduler::GetWrittenOffBytes() const
{
    return m_writtenOff;
}

} // namespace ns3
