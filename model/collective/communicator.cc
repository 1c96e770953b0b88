/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "communicator.h"

#include "collective-operation.h"

#include "ns3/abort.h"
#include "ns3/gpu-compute.h"
#include "ns3/log.h"
#include "ns3/rdma-transport.h"
#include "ns3/scale-up-switch.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <unordered_set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Communicator");

NS_OBJECT_ENSURE_REGISTERED(Communicator);

namespace
{
/// Communicator numbers: connection numbers below MAX_CHANNELS (communicator 0) are
/// left to applications that post on the transport directly.
uint32_t g_nextCommunicatorId = 1;

/// RDMA receive completion -> the sender's arrival callback.
void
DeliverRdma(Callback<void> onArrival, const RdmaCompletion&)
{
    onArrival();
}
} // namespace

TypeId
Communicator::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::Communicator")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<Communicator>()
            .AddTraceSource("Send",
                            "Bytes posted from one rank to another: source rank, destination "
                            "rank, bytes, channel, whether over the scale-up domain",
                            MakeTraceSourceAccessor(&Communicator::m_sendTrace),
                            "ns3::Communicator::SendTracedCallback")
            .AddTraceSource("Failed",
                            "A message between two ranks was given up by the RDMA transport "
                            "(its queue pair failed): the communicator failed, with the reason "
                            "(fired once)",
                            MakeTraceSourceAccessor(&Communicator::m_failedTrace),
                            "ns3::Communicator::FailureTracedCallback");
    return tid;
}

Communicator::Communicator()
    : m_id(g_nextCommunicatorId++),
      m_failureCallbacks(std::make_shared<std::vector<FailureCallback>>())
{
    NS_LOG_FUNCTION(this << m_id);
    NS_ABORT_MSG_IF(m_id > std::numeric_limits<uint32_t>::max() / MAX_CHANNELS - 1,
                    "Communicator: more than "
                        << std::numeric_limits<uint32_t>::max() / MAX_CHANNELS << " communicators");
}

Communicator::~Communicator() = default;

void
Communicator::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_members.clear();
    m_inFlight.clear();
    for (auto& c : m_hierarchy.servers)
    {
        c->Dispose();
    }
    for (auto& c : m_hierarchy.rails)
    {
        c->Dispose();
    }
    m_hierarchy = Hierarchy();
    m_failureCallbacks = std::make_shared<std::vector<FailureCallback>>();
    Object::DoDispose();
}

void
Communicator::Setup(const std::vector<Member>& members)
{
    NS_LOG_FUNCTION(this << members.size());
    NS_ABORT_MSG_IF(!m_members.empty(), "Communicator " << m_id << ": Setup called twice");
    NS_ABORT_MSG_IF(members.empty(), "Communicator " << m_id << ": no ranks");
    std::unordered_set<uint32_t> seen;
    for (const auto& m : members)
    {
        NS_ABORT_MSG_IF(!seen.insert(m.gpu).second,
                        "Communicator " << m_id << ": GPU " << m.gpu << " is listed twice");
        NS_ABORT_MSG_IF(!m.transport,
                        "Communicator " << m_id << ": GPU " << m.gpu << " has no RDMA transport");
        NS_ABORT_MSG_IF(!m.scaleUp,
                        "Communicator " << m_id << ": GPU " << m.gpu << " has no scale-up switch");
        NS_ABORT_MSG_IF(!m.compute,
                        "Communicator " << m_id << ": GPU " << m.gpu << " has no GpuCompute");
    }
    m_members = members;
}

uint32_t
Communicator::GetSize() const
{
    return static_cast<uint32_t>(m_members.size());
}

uint32_t
Communicator::GetId() const
{
    return m_id;
}

void
Communicator::CheckRank(uint32_t rank, const char* what) const
{
    NS_ABORT_MSG_IF(rank >= m_members.size(),
                    "Communicator " << m_id << ": " << what << " rank " << rank
                                    << " does not exist (size " << m_members.size() << ")");
}

const Communicator::Member&
Communicator::GetMember(uint32_t rank) const
{
    CheckRank(rank, "member");
    return m_members[rank];
}

Time
Communicator::GetSlowestComputeTime(Time nominal) const
{
    Time slowest;
    for (const Member& m : m_members)
    {
        slowest = std::max(slowest, m.compute->GetComputeTime(nominal));
    }
    return slowest;
}

bool
Communicator::IsSameServer(uint32_t a, uint32_t b) const
{
    return GetMember(a).server == GetMember(b).server;
}

Ptr<Communicator>
Communicator::Split(const std::vector<uint32_t>& ranks) const
{
    NS_LOG_FUNCTION(this << ranks.size());
    std::vector<Member> members;
    members.reserve(ranks.size());
    for (uint32_t r : ranks)
    {
        CheckRank(r, "Split");
        members.push_back(m_members[r]);
    }
    auto sub = CreateObject<Communicator>();
    sub->Setup(members);
    sub->m_failureCallbacks = m_failureCallbacks;
    return sub;
}

const Communicator::Hierarchy&
Communicator::GetHierarchy()
{
    NS_LOG_FUNCTION(this);
    if (!m_hierarchy.servers.empty())
    {
        return m_hierarchy;
    }
    std::vector<uint32_t> serverIndex; // server id -> index in serverRanks
    for (uint32_t r = 0; r < m_members.size(); ++r)
    {
        uint32_t server = m_members[r].server;
        auto it = std::find(serverIndex.begin(), serverIndex.end(), server);
        if (it == serverIndex.end())
        {
            serverIndex.push_back(server);
            m_hierarchy.serverRanks.emplace_back();
            it = serverIndex.end() - 1;
        }
        m_hierarchy.serverRanks[it - serverIndex.begin()].push_back(r);
    }
    const std::size_t perServer = m_hierarchy.serverRanks.front().size();
    for (std::size_t s = 0; s < serverIndex.size(); ++s)
    {
        NS_ABORT_MSG_IF(m_hierarchy.serverRanks[s].size() != perServer,
                        "Communicator " << m_id << ": server " << serverIndex[s] << " holds "
                                        << m_hierarchy.serverRanks[s].size()
                                        << " of its ranks but server " << serverIndex[0]
                                        << " holds " << perServer
                                        << "; servers and rails need the same number");
        m_hierarchy.servers.push_back(Split(m_hierarchy.serverRanks[s]));
    }
    m_hierarchy.railRanks.assign(perServer, {});
    for (std::size_t j = 0; j < perServer; ++j)
    {
        for (const auto& ranks : m_hierarchy.serverRanks)
        {
            m_hierarchy.railRanks[j].push_back(ranks[j]);
        }
        m_hierarchy.rails.push_back(Split(m_hierarchy.railRanks[j]));
    }
    NS_LOG_LOGIC(serverIndex.size() << " servers of " << perServer << " ranks");
    return m_hierarchy;
}

void
Communicator::Send(uint32_t src,
                   uint32_t dst,
                   uint64_t bytes,
                   uint32_t channel,
                   Callback<void> onArrival)
{
    NS_LOG_FUNCTION(this << src << dst << bytes << channel);
    CheckRank(src, "source");
    CheckRank(dst, "destination");
    NS_ABORT_MSG_IF(src == dst,
                    "Communicator " << m_id << ": Send from rank " << src << " to itself");
    NS_ABORT_MSG_IF(bytes == 0, "Communicator " << m_id << ": Send of 0 bytes");
    NS_ABORT_MSG_IF(channel >= MAX_CHANNELS,
                    "Communicator " << m_id << ": channel " << channel << " is not below "
                                    << MAX_CHANNELS);
    const Member& from = m_members[src];
    const Member& to = m_members[dst];
    if (from.server == to.server)
    {
        NS_LOG_LOGIC("rank " << src << " -> " << dst << ": " << bytes << " B over scale-up");
        m_sendTrace(src, dst, bytes, channel, true);
        from.scaleUp->Transfer(from.localGpu, to.localGpu, bytes, onArrival);
        return;
    }
    NS_LOG_LOGIC("rank " << src << " -> " << dst << ": " << bytes << " B over RDMA, channel "
                         << channel);
    m_sendTrace(src, dst, bytes, channel, false);
    from.transport->PostMessage(
        to.transport->GetRank(),
        bytes,
        0,
        RdmaCompletionCallback(),
        MakeBoundCallback(&DeliverRdma, onArrival),
        m_id * MAX_CHANNELS + channel,
        MakeCallback(&Communicator::OnRdmaFailure, this, src, dst, channel));
}

void
Communicator::Hold(Ptr<CollectiveOperation> op)
{
    NS_LOG_FUNCTION(this << op);
    m_inFlight.push_back(op);
}

void
Communicator::Release(Ptr<CollectiveOperation> op)
{
    NS_LOG_FUNCTION(this << op);
    auto it = std::find(m_inFlight.begin(), m_inFlight.end(), op);
    NS_ABORT_MSG_IF(it == m_inFlight.end(),
                    "Communicator " << m_id << ": Release of an operation not held");
    m_inFlight.erase(it);
}

uint32_t
Communicator::GetNInFlight() const
{
    return static_cast<uint32_t>(m_inFlight.size());
}

void
Communicator::AddFailureCallback(FailureCallback cb)
{
    NS_LOG_FUNCTION(this);
    m_failureCallbacks->push_back(cb);
}

bool
Communicator::HasFailed() const
{
    return !m_failure.empty();
}

const std::string&
Communicator::GetFailure() const
{
    return m_failure;
}

void
Communicator::OnRdmaFailure(uint32_t src,
                            uint32_t dst,
                            uint32_t channel,
                            const RdmaCompletion& info)
{
    NS_LOG_FUNCTION(this << src << dst << channel << info.size);
    if (HasFailed())
    {
        NS_LOG_LOGIC("communicator " << m_id << ": another message given up");
        return;
    }
    std::ostringstream reason;
    reason << "communicator " << m_id << ": a message of " << info.size << " B from rank " << src
           << " (GPU " << m_members[src].gpu << ", host " << info.srcRank << ") to rank " << dst
           << " (GPU " << m_members[dst].gpu << ", host " << info.dstRank << ") on channel "
           << channel << " was given up at " << Simulator::Now().As(Time::US)
           << ": its RDMA queue pair failed after RetryLimit retransmission timeouts";
    m_failure = reason.str();
    NS_LOG_LOGIC(m_failure);
    // The operations in flight now never finish, and each holds this communicator:
    // break that cycle when the simulation is destroyed.
    Simulator::ScheduleDestroy(&Communicator::Dispose, Ptr<Communicator>(this));
    m_failedTrace(m_failure);
    // Callbacks may add callbacks: iterate over a copy.
    const std::vector<FailureCallback> callbacks = *m_failureCallbacks;
    for (const FailureCallback& cb : callbacks)
    {
        cb(m_failure);
    }
}

} // namespace ns3
