/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "voq-queue-disc.h"

#include "voq-queue-disc-item.h"

#include "ns3/abort.h"
#include "ns3/ai-fabric-ns3-compat.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/queue.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("VoqQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(VoqQueueDisc);

/**
 * \ingroup ai-fabric
 * The one internal queue of a VoqQueueDisc: a list the VOQs index into, so
 * insertion and removal at any position keep the queue-disc counters right.
 */
class VoqStore : public Queue<QueueDiscItem>
{
  public:
    /// Iterator type.
    typedef std::list<Ptr<QueueDiscItem>>::iterator Position;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::VoqStore")
                                .SetParent<Queue<QueueDiscItem>>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<VoqStore>();
        return tid;
    }

    /**
     * \param item packet \param pos its position, set on success
     * \return false if the store refused it
     */
    bool Insert(Ptr<QueueDiscItem> item, Position& pos)
    {
        return DoEnqueue(GetContainer().end(), item, pos);
    }

    /// \param pos a position \return the packet, removed and counted as dequeued
    Ptr<QueueDiscItem> Take(Position pos)
    {
        return DoDequeue(pos);
    }

    /// \param item packet, appended \return false if the store refused it
    bool Enqueue(Ptr<QueueDiscItem> item) override
    {
        return DoEnqueue(GetContainer().end(), item);
    }

    /// \return the oldest packet, removed and counted as dequeued (null if empty)
    Ptr<QueueDiscItem> Dequeue() override
    {
        return DoDequeue(GetContainer().begin());
    }

    /// \return the oldest packet, removed and counted as dropped (null if empty)
    Ptr<QueueDiscItem> Remove() override
    {
        return DoRemove(GetContainer().begin());
    }

    /// \return the oldest packet, left in place (null if empty)
    Ptr<const QueueDiscItem> Peek() const override
    {
        return DoPeek(GetContainer().begin());
    }
};

NS_OBJECT_ENSURE_REGISTERED(VoqStore);

TypeId
VoqQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::VoqQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("AiFabric")
            .AddConstructor<VoqQueueDisc>()
            .AddAttribute("NumVoqs",
                          "Number of virtual output queues (a leaf sets egress leaves x "
                          "ports x traffic classes itself)",
                          UintegerValue(8),
                          MakeUintegerAccessor(&VoqQueueDisc::m_nVoqs),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("VoqLimit",
                          "Bytes one VOQ may hold: beyond it a packet is dropped "
                          "(BufferFullAction=TailDrop), or the ingress port and class that "
                          "sent it are paused until the VOQ is PfcHysteresis below it "
                          "(Pfc; packets already in flight still enter, the shared buffer "
                          "is the hard limit)",
                          UintegerValue(16 * 1024 * 1024),
                          MakeUintegerAccessor(&VoqQueueDisc::m_voqLimit),
                          MakeUintegerChecker<uint64_t>(1))
            // Jericho-class devices pair tens of MB of on-chip buffer with GB of
            // HBM; 64 MiB keeps memory modest and is far above what any test needs.
            .AddAttribute("BufferSize",
                          "Bytes of ingress buffer shared by all VOQs",
                          UintegerValue(64 * 1024 * 1024),
                          MakeUintegerAccessor(&VoqQueueDisc::m_bufferSize),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("PfcXoff",
                          "Bytes one ingress port and class may hold before it is paused",
                          UintegerValue(4 * 1024 * 1024),
                          MakeUintegerAccessor(&VoqQueueDisc::m_pfcXoff),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("PfcHeadroom",
                          "Bytes of buffer reserved for each ingress port, for what it still "
                          "sends after its pause; the shared pause threshold is BufferSize "
                          "minus every port's headroom (0: none, unless the owner sets each "
                          "port's: ScheduledLeafSwitch sets 2 x rate x link delay + 3 largest "
                          "frames + a PFC frame)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&VoqQueueDisc::m_pfcHeadroom),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("PfcHysteresis",
                          "Bytes below a pause threshold before resuming",
                          UintegerValue(64 * 1024),
                          MakeUintegerAccessor(&VoqQueueDisc::m_pfcHysteresis),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute(
                "BufferFullAction",
                "What to do when the ingress buffer is exhausted",
                EnumValue(VoqQueueDisc::PFC),
                ai_fabric::MakeEnumAccessor(&VoqQueueDisc::m_action),
                MakeEnumChecker(VoqQueueDisc::PFC, "Pfc", VoqQueueDisc::TAIL_DROP, "TailDrop"))
            .AddAttribute("CreditGated",
                          "Dequeue only from VOQs with positive credit (false: round robin "
                          "over all non-empty VOQs, for use as an ordinary queue disc)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&VoqQueueDisc::m_gated),
                          MakeBooleanChecker())
            .AddAttribute("WholePacketCredit",
                          "A VOQ sends its head packet only when its credit covers the whole "
                          "packet (true), or as soon as its credit is positive, going "
                          "negative by the rest (false: lower latency; a first grant can "
                          "release a packet larger than itself, but VOQs served round robin "
                          "do not save up credit and then release together)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&VoqQueueDisc::m_wholePacketCredit),
                          MakeBooleanChecker())
            .AddTraceSource("VoqEnqueue",
                            "A packet entered a VOQ (voq, bytes)",
                            MakeTraceSourceAccessor(&VoqQueueDisc::m_voqEnqueueTrace),
                            "ns3::VoqQueueDisc::VoqTracedCallback")
            .AddTraceSource("VoqDequeue",
                            "A packet left a VOQ with credit (voq, bytes)",
                            MakeTraceSourceAccessor(&VoqQueueDisc::m_voqDequeueTrace),
                            "ns3::VoqQueueDisc::VoqTracedCallback")
            .AddTraceSource("VoqDrop",
                            "A packet was tail-dropped at a VOQ (voq, bytes)",
                            MakeTraceSourceAccessor(&VoqQueueDisc::m_voqDropTrace),
                            "ns3::VoqQueueDisc::VoqTracedCallback")
            .AddTraceSource("Pfc",
                            "PFC pause (true) or resume (false) requested (port, tc, pause)",
                            MakeTraceSourceAccessor(&VoqQueueDisc::m_pfcTrace),
                            "ns3::VoqQueueDisc::PfcTracedCallback");
    return tid;
}

VoqQueueDisc::VoqQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE)
{
    NS_LOG_FUNCTION(this);
}

VoqQueueDisc::~VoqQueueDisc()
{
}

void
VoqQueueDisc::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_pfc = PfcCallback();
    m_groupReady = GroupReadyCallback();
    m_store = nullptr;
    QueueDisc::DoDispose();
}

void
VoqQueueDisc::SetLayout(uint32_t voqs, uint32_t ingressPorts, uint32_t trafficClasses)
{
    NS_LOG_FUNCTION(this << voqs << ingressPorts << trafficClasses);
    NS_ABORT_MSG_IF(voqs == 0, "VoqQueueDisc: NumVoqs must be at least 1, got 0");
    NS_ABORT_MSG_IF(ingressPorts == 0 || trafficClasses == 0,
                    "VoqQueueDisc: ingress ports and traffic classes must be at least 1");
    m_nVoqs = voqs;
    m_nPorts = ingressPorts;
    m_nTcs = trafficClasses;
    m_slot.assign(m_nVoqs, NONE);
    m_voqs.clear();
    m_eligible.assign(m_nTcs, std::deque<uint32_t>());
    m_eligibleEntries = 0;
    m_portTcBytes.assign(m_nPorts * m_nTcs, 0);
    m_paused.assign(m_nPorts * m_nTcs, false);
    m_pauseVoq.assign(m_nPorts * m_nTcs, NONE);
    m_pausedCount = 0;
    m_portHeadroom.assign(m_nPorts, m_pfcHeadroom);
    m_headroomTotal = m_pfcHeadroom * m_nPorts;
    m_layoutSet = true;
}

bool
VoqQueueDisc::CheckConfig()
{
    if (GetNQueueDiscClasses() > 0)
    {
        NS_LOG_ERROR("VoqQueueDisc cannot have classes");
        return false;
    }
    if (GetNInternalQueues() == 0)
    {
        auto store = CreateObject<VoqStore>();
        // Limits are enforced per VOQ and shared by this disc, not by the store.
        store->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, std::numeric_limits<uint32_t>::max()));
        AddInternalQueue(store);
    }
    m_store = DynamicCast<VoqStore>(GetInternalQueue(0));
    if (!m_store)
    {
        NS_LOG_ERROR("VoqQueueDisc manages its own internal queue");
        return false;
    }
    // Credit comes only from an owner that sets the layout (a ScheduledLeafSwitch,
    // or code calling SetLayout and AddCredit); installed alone, a gated disc
    // would hold every packet for ever.
    NS_ABORT_MSG_IF(m_gated && !m_layoutSet,
                    "VoqQueueDisc: CreditGated=true needs a credit source (SetLayout and "
                    "AddCredit, as ScheduledLeafSwitch does); installed alone, e.g. by "
                    "TrafficControlHelper, set CreditGated=false");
    NS_ABORT_MSG_IF(m_action == PFC && m_pfcHysteresis >= m_pfcXoff,
                    "VoqQueueDisc: PfcHysteresis=" << m_pfcHysteresis
                                                   << " must be below PfcXoff=" << m_pfcXoff
                                                   << " (a paused port would never resume)");
    NS_ABORT_MSG_IF(m_action == PFC && m_pfcHysteresis >= m_voqLimit,
                    "VoqQueueDisc: PfcHysteresis=" << m_pfcHysteresis
                                                   << " must be below VoqLimit=" << m_voqLimit
                                                   << " (a paused port would never resume)");
    CheckHeadroom("PfcHeadroom=" + std::to_string(m_pfcHeadroom) + " per ingress port");
    return true;
}

void
VoqQueueDisc::CheckHeadroom(const std::string& what) const
{
    const uint64_t total = m_layoutSet ? m_headroomTotal : m_pfcHeadroom * m_nPorts;
    NS_ABORT_MSG_IF(total >= m_bufferSize,
                    "VoqQueueDisc: " << what << " brings the PFC headroom reserved for " << m_nPorts
                                     << " ingress ports to " << total
                                     << " B, not below BufferSize=" << m_bufferSize);
    NS_ABORT_MSG_IF(m_action == PFC && m_pfcHysteresis >= m_bufferSize - total,
                    "VoqQueueDisc: PfcHysteresis="
                        << m_pfcHysteresis << " must be below BufferSize=" << m_bufferSize
                        << " minus the PFC headroom reserved for " << m_nPorts << " ingress ports ("
                        << total << " B with " << what << "): " << m_bufferSize - total
                        << " (a paused port would never resume)");
}

void
VoqQueueDisc::SetIngressHeadroom(uint32_t port, uint64_t bytes)
{
    NS_LOG_FUNCTION(this << port << bytes);
    NS_ABORT_MSG_IF(port >= m_portHeadroom.size(),
                    "VoqQueueDisc: SetIngressHeadroom for port " << port << " of "
                                                                 << m_portHeadroom.size());
    m_headroomTotal = m_headroomTotal - m_portHeadroom[port] + bytes;
    m_portHeadroom[port] = bytes;
    CheckHeadroom("ingress port " + std::to_string(port) + "'s headroom " + std::to_string(bytes) +
                  " B");
}

uint64_t
VoqQueueDisc::GetIngressHeadroom(uint32_t port) const
{
    return m_portHeadroom.at(port);
}

uint64_t
VoqQueueDisc::GetSharedPauseThreshold() const
{
    return m_bufferSize - m_headroomTotal;
}

void
VoqQueueDisc::InitializeParams()
{
    if (m_slot.size() != m_nVoqs)
    {
        SetLayout(m_nVoqs, m_nPorts, m_nTcs);
    }
}

bool
VoqQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    uint32_t voq = 0;
    uint32_t port = 0;
    uint8_t tc = 0;
    if (const auto* looked = dynamic_cast<const VoqQueueDiscItem*>(PeekPointer(item)))
    {
        // The owning leaf has looked the packet up already.
        voq = looked->GetVoq();
        port = looked->GetIngressPort();
        tc = looked->GetTrafficClass();
    }
    else
    {
        const int32_t cls = Classify(item);
        voq = (cls >= 0 && static_cast<uint32_t>(cls) < m_nVoqs) ? cls : 0;
        tc = voq % m_nTcs;
    }
    NS_ASSERT_MSG(voq < m_slot.size(), "VOQ " << voq << " out of range");
    NS_ASSERT(port < m_nPorts && tc < m_nTcs);
    const uint32_t slot = m_slot[voq];
    const uint32_t size = item->GetSize();
    const bool overVoq = (slot == NONE ? 0 : m_voqs[slot].bytes) + size > m_voqLimit;
    const bool overShared = m_used + size > m_bufferSize;
    // In PFC mode the per-VOQ limit and the pause threshold only pause; the
    // shared buffer is the hard limit (headroom should keep it from being hit).
    if (overShared || (m_action == TAIL_DROP && overVoq))
    {
        NS_LOG_LOGIC("VOQ " << voq << ": packet " << item->GetPacket()->GetUid() << " dropped, "
                            << (overShared ? "shared buffer" : "VOQ limit") << " full");
        m_droppedPackets++;
        m_droppedBytes += size;
        m_voqDropTrace(voq, size);
        DropBeforeEnqueue(item, BUFFER_FULL_DROP);
        return false;
    }
    VoqStore::Position pos;
    if (!m_store->Insert(item, pos))
    {
        return false; // counted by the queue disc through the store's drop trace
    }
    uint32_t node = m_freeNodes;
    if (node == NONE)
    {
        node = static_cast<uint32_t>(m_nodes.size());
        m_nodes.push_back(Node());
    }
    else
    {
        m_freeNodes = m_nodes[node].next;
    }
    m_nodes[node] = {pos, NONE, port};
    // A VOQ gets its state with its first packet (one that was dropped left none).
    Voq& q = slot == NONE ? StateOf(voq) : m_voqs[slot];
    if (q.tail == NONE)
    {
        q.head = node;
    }
    else
    {
        m_nodes[q.tail].next = node;
    }
    q.tail = node;
    q.packets++;
    q.bytes += size;
    q.enqueued += size;
    q.tc = tc;
    m_used += size;
    m_queuedPackets++;
    m_highWater = std::max(m_highWater, m_used);
    m_portTcBytes[port * m_nTcs + tc] += size;
    m_voqEnqueueTrace(voq, size);
    if (m_action == PFC)
    {
        UpdatePfc(port, tc, voq, q.bytes);
    }
    MakeEligible(voq, q);
    return true;
}

void
VoqQueueDisc::UpdatePfc(uint32_t port, uint8_t tc, uint32_t voq, uint64_t voqBytes)
{
    const uint32_t idx = port * m_nTcs + tc;
    const uint64_t bytes = m_portTcBytes[idx];
    const uint64_t sharedXoff = m_bufferSize - m_headroomTotal;
    const bool voqFull = voq != NONE && voqBytes >= m_voqLimit;
    if (voqFull)
    {
        m_pauseVoq[idx] = voq; // the resume waits for this VOQ to drain
    }
    if (!m_paused[idx])
    {
        if (bytes >= m_pfcXoff || m_used >= sharedXoff || voqFull)
        {
            NS_LOG_LOGIC("port " << port << " class " << +tc << ": pause (" << bytes
                                 << " B from it, " << m_used << " B in use"
                                 << (voqFull ? ", VOQ full" : "") << ")");
            m_paused[idx] = true;
            m_pausedCount++;
            m_pauses++;
            m_pfcTrace(port, tc, true);
            if (!m_pfc.IsNull())
            {
                m_pfc(port, tc, true);
            }
        }
    }
    else if (bytes + m_pfcHysteresis < m_pfcXoff && m_used + m_pfcHysteresis < sharedXoff &&
             (m_pauseVoq[idx] == NONE ||
              m_voqs[m_slot[m_pauseVoq[idx]]].bytes + m_pfcHysteresis < m_voqLimit))
    {
        NS_LOG_LOGIC("port " << port << " class " << +tc << ": resume (" << bytes << " B from it, "
                             << m_used << " B in use)");
        m_paused[idx] = false;
        m_pausedCount--;
        m_pauseVoq[idx] = NONE;
        m_pfcTrace(port, tc, false);
        if (!m_pfc.IsNull())
        {
            m_pfc(port, tc, false);
        }
    }
}

void
VoqQueueDisc::RecheckPaused()
{
    for (uint32_t idx = 0; idx < m_paused.size() && m_pausedCount > 0; ++idx)
    {
        if (m_paused[idx])
        {
            UpdatePfc(idx / m_nTcs, static_cast<uint8_t>(idx % m_nTcs));
        }
    }
}

VoqQueueDisc::Voq&
VoqQueueDisc::StateOf(uint32_t voq)
{
    uint32_t& slot = m_slot[voq];
    if (slot == NONE)
    {
        slot = static_cast<uint32_t>(m_voqs.size());
        m_voqs.emplace_back();
    }
    return m_voqs[slot];
}

const VoqQueueDisc::Voq*
VoqQueueDisc::Find(uint32_t voq) const
{
    const uint32_t slot = m_slot.at(voq);
    return slot == NONE ? nullptr : &m_voqs[slot];
}

void
VoqQueueDisc::MakeEligible(uint32_t voq, Voq& q)
{
    if (!q.eligible && q.packets > 0 && HasCredit(q))
    {
        q.eligible = true;
        m_eligible[q.tc].push_back(voq);
        m_eligibleEntries++;
    }
}

bool
VoqQueueDisc::HasCredit(const Voq& q) const
{
    if (!m_gated)
    {
        return true;
    }
    if (m_wholePacketCredit)
    {
        return q.credit >= static_cast<int64_t>((*m_nodes[q.head].pos)->GetSize());
    }
    return q.credit > 0;
}

void
VoqQueueDisc::AddCredit(uint32_t voq, uint64_t bytes)
{
    NS_LOG_FUNCTION(this << voq << bytes);
    NS_ASSERT(voq < m_slot.size());
    Voq& q = StateOf(voq);
    q.credit += static_cast<int64_t>(bytes);
    q.granted += bytes;
    m_creditBalance += static_cast<int64_t>(bytes);
    MakeEligible(voq, q);
}

bool
VoqQueueDisc::HasEligible() const
{
    return m_eligibleEntries != 0;
}

Ptr<QueueDiscItem>
VoqQueueDisc::DoDequeue()
{
    NS_LOG_FUNCTION(this);
    // Classes in strict priority (7 highest), VOQs of a class in turn.
    for (uint32_t cls = m_nTcs; cls-- > 0;)
    {
        std::deque<uint32_t>& eligible = m_eligible[cls];
        while (!eligible.empty())
        {
            const uint32_t voq = eligible.front();
            eligible.pop_front();
            m_eligibleEntries--;
            Voq& q = m_voqs[m_slot[voq]]; // eligible: it has state
            if (q.packets == 0 || !HasCredit(q))
            {
                q.eligible = false;
                continue;
            }
            if (m_groupSize != 0 && !m_groupReady(voq / m_groupSize))
            {
                NS_LOG_LOGIC("VOQ " << voq << " set aside: group " << voq / m_groupSize
                                    << " cannot send");
                m_parked[voq / m_groupSize].push_back(voq);
                continue;
            }
            q.eligible = false;
            const uint32_t node = q.head;
            Ptr<QueueDiscItem> item = m_store->Take(m_nodes[node].pos);
            const uint32_t port = m_nodes[node].port;
            q.head = m_nodes[node].next;
            if (q.head == NONE)
            {
                q.tail = NONE;
            }
            q.packets--;
            m_queuedPackets--;
            m_nodes[node].next = m_freeNodes;
            m_freeNodes = node;
            const uint32_t size = item->GetSize();
            q.bytes -= size;
            q.dequeued += size;
            m_dequeuedBytes += size;
            if (m_gated)
            {
                q.credit -= size;
                m_creditBalance -= size;
            }
            m_used -= size;
            m_portTcBytes[port * m_nTcs + q.tc] -= size;
            m_voqDequeueTrace(voq, size);
            if (m_action == PFC && m_pausedCount > 0)
            {
                if (m_paused[port * m_nTcs + q.tc])
                {
                    UpdatePfc(port, q.tc);
                }
                // A port paused by the shared buffer or by a full VOQ may have nothing
                // queued of its own, so no dequeue of its own would ever resume it:
                // when one of those limits eases, look at every paused port.
                const uint64_t sharedResume = m_bufferSize - m_headroomTotal - m_pfcHysteresis;
                const bool sharedEased = m_used < sharedResume && m_used + size >= sharedResume;
                const bool voqEased = q.bytes + m_pfcHysteresis < m_voqLimit &&
                                      q.bytes + size + m_pfcHysteresis >= m_voqLimit;
                if (sharedEased || voqEased)
                {
                    RecheckPaused();
                }
            }
            MakeEligible(voq, q);
            return item;
        }
    }
    return nullptr;
}

void
VoqQueueDisc::SetPfcCallback(PfcCallback cb)
{
    m_pfc = cb;
}

void
VoqQueueDisc::SetGroups(uint32_t voqsPerGroup, GroupReadyCallback ready)
{
    NS_LOG_FUNCTION(this << voqsPerGroup);
    NS_ABORT_MSG_IF(voqsPerGroup == 0, "VoqQueueDisc: a group holds at least one VOQ");
    m_groupSize = voqsPerGroup;
    m_groupReady = ready;
    m_parked.assign((m_nVoqs + voqsPerGroup - 1) / voqsPerGroup, std::vector<uint32_t>());
}

void
VoqQueueDisc::NotifyGroupReady(uint32_t group)
{
    NS_LOG_FUNCTION(this << group);
    std::vector<uint32_t>& parked = m_parked.at(group);
    // They had reached their turn: they keep it (still marked eligible).
    for (auto it = parked.rbegin(); it != parked.rend(); ++it)
    {
        m_eligible[m_voqs[m_slot[*it]].tc].push_front(*it);
        m_eligibleEntries++;
    }
    parked.clear();
}

uint32_t
VoqQueueDisc::GetNVoqs() const
{
    return m_nVoqs;
}

uint64_t
VoqQueueDisc::GetVoqBytes(uint32_t voq) const
{
    const Voq* q = Find(voq);
    return q ? q->bytes : 0;
}

uint32_t
VoqQueueDisc::GetVoqPackets(uint32_t voq) const
{
    const Voq* q = Find(voq);
    return q ? q->packets : 0;
}

int64_t
VoqQueueDisc::GetVoqCredit(uint32_t voq) const
{
    const Voq* q = Find(voq);
    return q ? q->credit : 0;
}

uint64_t
VoqQueueDisc::GetVoqEnqueuedBytes(uint32_t voq) const
{
    const Voq* q = Find(voq);
    return q ? q->enqueued : 0;
}

uint64_t
VoqQueueDisc::GetVoqDequeuedBytes(uint32_t voq) const
{
    const Voq* q = Find(voq);
    return q ? q->dequeued : 0;
}

uint64_t
VoqQueueDisc::GetVoqGrantedBytes(uint32_t voq) const
{
    const Voq* q = Find(voq);
    return q ? q->granted : 0;
}

uint32_t
VoqQueueDisc::GetAllocatedVoqs() const
{
    return static_cast<uint32_t>(m_voqs.size());
}

uint32_t
VoqQueueDisc::GetVoqTag(uint32_t voq) const
{
    const Voq* q = Find(voq);
    return q ? q->tag : NO_TAG;
}

void
VoqQueueDisc::SetVoqTag(uint32_t voq, uint32_t tag)
{
    NS_LOG_FUNCTION(this << voq << tag);
    NS_ABORT_MSG_IF(voq >= m_slot.size(), "VoqQueueDisc: VOQ " << voq << " out of range");
    StateOf(voq).tag = tag;
}

uint64_t
VoqQueueDisc::GetQueuedBytes() const
{
    return m_used;
}

uint64_t
VoqQueueDisc::GetQueuedPackets() const
{
    return m_queuedPackets;
}

uint64_t
VoqQueueDisc::GetDequeuedBytes() const
{
    return m_dequeuedBytes;
}

int64_t
VoqQueueDisc::GetCreditBalance() const
{
    return m_creditBalance;
}

uint64_t
VoqQueueDisc::GetBufferHighWater() const
{
    return m_highWater;
}

uint64_t
VoqQueueDisc::GetDroppedPackets() const
{
    return m_droppedPackets;
}

uint64_t
VoqQueueDisc::GetDroppedBytes() const
{
    return m_droppedBytes;
}

uint64_t
VoqQueueDisc::GetPauses() const
{
    return m_pauses;
}

bool
VoqQueueDisc::IsPaused(uint32_t port, uint8_t tc) const
{
    return m_paused.at(port * m_nTcs + tc);
}

uint64_t
VoqQueueDisc::GetIngressBytes(uint32_t port, uint8_t tc) const
{
    return m_portTcBytes.at(port * m_nTcs + tc);
}

} // namespace ns3
