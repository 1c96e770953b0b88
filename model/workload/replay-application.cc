/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "replay-application.h"

#include "ns3/collective-operation.h"
#include "ns3/communicator.h"
#include "ns3/double.h"
#include "ns3/gpu-compute.h"
#include "ns3/log.h"
#include "ns3/pairwise-all-to-all-v.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ReplayApplication");
NS_OBJECT_ENSURE_REGISTERED(ReplayApplication);

TypeId
ReplayApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ReplayApplication")
            .SetParent<TrainingApplication>()
            .SetGroupName("AiFabric")
            .AddConstructor<ReplayApplication>()
            .AddAttribute("GpuFlopRate",
                          "Floating-point operations per second one GPU achieves, for compute "
                          "nodes that record FLOPs and no duration (4e14: an H100's 989 TFLOP/s "
                          "dense BF16 peak at 40% utilisation)",
                          DoubleValue(4e14),
                          MakeDoubleAccessor(&ReplayApplication::m_gpuFlopRate),
                          MakeDoubleChecker<double>())
            .AddAttribute("CommunicationScale",
                          "Every collective's and message's bytes are multiplied by this "
                          "(rounded, at least 1 byte where the file has any), as SimAI's "
                          "comm_scale: a smaller replay of the same pattern",
                          DoubleValue(1),
                          MakeDoubleAccessor(&ReplayApplication::m_communicationScale),
                          MakeDoubleChecker<double>())
            .AddAttribute("ComputeScale",
                          "Every compute node's time is multiplied by this, as SimAI's "
                          "compute_scale",
                          DoubleValue(1),
                          MakeDoubleAccessor(&ReplayApplication::m_computeScale),
                          MakeDoubleChecker<double>())
            .AddAttribute("Channel",
                          "Connection (channel) of the point-to-point messages between "
                          "servers",
                          UintegerValue(0),
                          MakeUintegerAccessor(&ReplayApplication::m_channel),
                          MakeUintegerChecker<uint32_t>(0, Communicator::MAX_CHANNELS - 1));
    return tid;
}

ReplayApplication::ReplayApplication()
{
    NS_LOG_FUNCTION(this);
}

ReplayApplication::~ReplayApplication()
{
    NS_LOG_FUNCTION(this);
}

void
ReplayApplication::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_groups.clear();
    m_graph = nullptr;
    TrainingApplication::DoDispose();
}

void
ReplayApplication::SetGraph(std::shared_ptr<const WorkloadGraph> graph)
{
    NS_LOG_FUNCTION(this);
    m_graph = graph;
}

std::shared_ptr<const WorkloadGraph>
ReplayApplication::GetGraph() const
{
    return m_graph;
}

void
ReplayApplication::DoSetup()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(!m_graph, "ReplayApplication: no graph (SetGraph before SetCommunicator)");
    const WorkloadGraph& g = *m_graph;
    NS_ABORT_MSG_IF(g.depCount.size() != g.GetRanks(),
                    "ReplayApplication: the graph of " << g.source << " is not linked");
    NS_ABORT_MSG_IF(g.GetRanks() != m_comm->GetSize(),
                    "ReplayApplication: " << g.source << " has " << g.GetRanks()
                                          << " ranks, the communicator " << m_comm->GetSize());
    NS_ABORT_MSG_IF(!(m_gpuFlopRate > 0) || !std::isfinite(m_gpuFlopRate),
                    "ReplayApplication: GpuFlopRate " << m_gpuFlopRate
                                                      << " must be above 0 and finite");
    NS_ABORT_MSG_IF(!(m_communicationScale > 0) || !std::isfinite(m_communicationScale),
                    "ReplayApplication: CommunicationScale " << m_communicationScale
                                                             << " must be above 0 and finite");
    NS_ABORT_MSG_IF(!(m_computeScale >= 0) || !std::isfinite(m_computeScale),
                    "ReplayApplication: ComputeScale " << m_computeScale
                                                       << " must not be negative and finite");
    for (const WorkloadGraph::Operation& o : g.operations)
    {
        const WorkloadNode& first = g.nodes[g.groups[o.group][0]][o.member[0]];
        if (first.collective == "AlltoAllv")
        {
            Ptr<CollectiveOperation> probe = CreateOperation("AlltoAllv");
            NS_ABORT_MSG_IF(!DynamicCast<PairwiseAlltoAllv>(probe),
                            "ReplayApplication: " << g.source
                                                  << " has AlltoAllv, but its algorithm "
                                                  << probe->GetInstanceTypeId().GetName()
                                                  << " is not a PairwiseAlltoAllv (it takes no "
                                                     "matrix)");
            break;
        }
    }
    m_groups.clear();
    for (const auto& ranks : g.groups)
    {
        m_groups.push_back(ranks.size() > 1 ? m_comm->Split(ranks) : nullptr);
    }
    m_rankTimes.assign(g.GetRanks(), RankTimes());
    m_traffic.assign(g.trafficNames.size(), TrafficTotals());
}

void
ReplayApplication::DoStartIteration()
{
    NS_LOG_FUNCTION(this << GetIteration());
    const WorkloadGraph& g = *m_graph;
    const uint32_t ranks = g.GetRanks();
    const Time now = Simulator::Now();
    m_nodes.assign(ranks, {});
    m_ranks.assign(ranks, RankState());
    m_operations.assign(g.operations.size(), OperationState());
    m_rankIteration.assign(ranks, RankTimes());
    m_trafficIteration.assign(g.trafficNames.size(), TrafficTotals());
    m_nodesLeft = g.GetNodeCount();
    for (uint32_t r = 0; r < ranks; ++r)
    {
        m_nodes[r].resize(g.nodes[r].size());
        for (uint32_t i = 0; i < g.nodes[r].size(); ++i)
        {
            m_nodes[r][i].waiting = g.depCount[r][i];
        }
        m_ranks[r].lastChange = now;
        m_ranks[r].finish = now;
    }
    if (m_nodesLeft == 0)
    {
        EndIteration();
        return;
    }
    for (uint32_t r = 0; r < ranks; ++r)
    {
        for (uint32_t i = 0; i < g.nodes[r].size(); ++i)
        {
            if (g.depCount[r][i] == 0)
            {
                Start(r, i);
            }
        }
    }
}

void
ReplayApplication::Account(uint32_t rank, bool computing, int communicatingDelta)
{
    RankState& s = m_ranks[rank];
    RankTimes& t = m_rankIteration[rank];
    const Time now = Simulator::Now();
    const Time elapsed = now - s.lastChange;
    if (s.computing)
    {
        t.compute += elapsed;
    }
    if (s.communicating > 0)
    {
        t.communication += elapsed;
        if (!s.computing)
        {
            t.exposed += elapsed;
        }
    }
    s.lastChange = now;
    s.computing = computing;
    s.communicating += communicatingDelta;
}

void
ReplayApplication::Start(uint32_t rank, uint32_t index)
{
    const WorkloadNode& node = m_graph->nodes[rank][index];
    NodeState& state = m_nodes[rank][index];
    NS_LOG_FUNCTION(this << rank << node.id << m_graph->labels[node.label]);
    state.start = Simulator::Now();
    switch (node.kind)
    {
    case WorkloadNode::COMPUTE:
        m_ranks[rank].computeQueue.push_back(index);
        NextCompute(rank);
        return;
    case WorkloadNode::COLLECTIVE: {
        Account(rank, m_ranks[rank].computing, +1);
        const uint32_t op = m_graph->operation[rank][index];
        OperationState& o = m_operations[op];
        o.lastMember = {rank, index};
        const uint32_t members = static_cast<uint32_t>(m_graph->operations[op].member.size());
        NS_LOG_LOGIC("rank " << rank << " reached " << node.collective << " over group "
                             << m_graph->groupNames[node.group] << ": " << o.arrived + 1 << " of "
                             << members);
        if (++o.arrived == members)
        {
            StartOperation(op);
        }
        return;
    }
    case WorkloadNode::SEND: {
        Account(rank, m_ranks[rank].computing, +1);
        const uint64_t bytes = ScaleBytes(node.bytes);
        m_trafficIteration[node.traffic].operations++;
        m_trafficIteration[node.traffic].bytes += bytes;
        if (bytes == 0)
        {
            MessageArrived(rank, index);
            return;
        }
        m_comm->Send(rank,
                     node.peer,
                     bytes,
                     m_channel,
                     MakeCallback(&ReplayApplication::MessageArrived, this, rank, index));
        return;
    }
    case WorkloadNode::NOOP:
        // Through the scheduler: a long chain of such nodes must not nest calls.
        Simulator::ScheduleNow(&ReplayApplication::Finish, this, rank, index);
        return;
    case WorkloadNode::RECV:
        state.reached = true;
        if (state.arrived)
        {
            Finish(rank, index); // the message is here: no time spent receiving
            return;
        }
        Account(rank, m_ranks[rank].computing, +1);
        return;
    }
}

uint64_t
ReplayApplication::ScaleBytes(uint64_t bytes) const
{
    if (bytes == 0 || m_communicationScale == 1)
    {
        return bytes;
    }
    return std::max<uint64_t>(1, std::llround(bytes * m_communicationScale));
}

void
ReplayApplication::NextCompute(uint32_t rank)
{
    RankState& s = m_ranks[rank];
    if (s.computing || s.computeQueue.empty())
    {
        return;
    }
    const uint32_t index = s.computeQueue.front();
    s.computeQueue.pop_front();
    const WorkloadNode& node = m_graph->nodes[rank][index];
    NodeState& state = m_nodes[rank][index];
    if (s.lastCompute != NONE && m_nodes[rank][s.lastCompute].end > state.start)
    {
        // It waited for the GPU rather than for its dependencies.
        state.trigger = {rank, s.lastCompute};
        state.triggered = true;
    }
    state.start = Simulator::Now();
    const Time nominal =
        (node.flops > 0 ? Seconds(node.flops / m_gpuFlopRate) : node.duration) * m_computeScale;
    const Time duration = m_comm->GetMember(rank).compute->GetComputeTime(nominal);
    NS_LOG_LOGIC("rank " << rank << " computes node " << node.id << " for " << duration);
    Account(rank, true, 0);
    Simulator::Schedule(duration, &ReplayApplication::ComputeDone, this, rank, index);
}

void
ReplayApplication::ComputeDone(uint32_t rank, uint32_t index)
{
    NS_LOG_FUNCTION(this << rank << index);
    Account(rank, false, 0);
    m_ranks[rank].lastCompute = index;
    Finish(rank, index);
    NextCompute(rank);
}

void
ReplayApplication::StartOperation(uint32_t op)
{
    NS_LOG_FUNCTION(this << op);
    const WorkloadGraph::Operation& o = m_graph->operations[op];
    const WorkloadNode& node = m_graph->nodes[m_graph->groups[o.group][0]][o.member[0]];
    m_operations[op].start = Simulator::Now();
    m_trafficIteration[node.traffic].operations++;
    Ptr<CollectiveOperation> collective; // AlltoAllv: to take its matrix; others: if bytes move
    uint64_t bytes = ScaleBytes(node.bytes);
    if (node.collective == "AlltoAllv")
    {
        collective = CreateOperation(node.collective);
        // Row m of the matrix is member m's split; S is the largest row sum.
        PairwiseAlltoAllv::Matrix matrix;
        for (uint32_t m = 0; m < o.member.size(); ++m)
        {
            const uint32_t rank = m_graph->groups[o.group][m];
            matrix.push_back(m_graph->nodes[rank][o.member[m]].split);
            for (uint64_t& b : matrix.back())
            {
                b = ScaleBytes(b);
            }
        }
        Ptr<PairwiseAlltoAllv> v = DynamicCast<PairwiseAlltoAllv>(collective);
        v->SetMatrix(matrix);
        bytes = v->GetMatrixBytes();
    }
    if (!m_groups[o.group] || bytes == 0)
    {
        NS_LOG_LOGIC(node.collective << " over group " << m_graph->groupNames[o.group]
                                     << ": nothing to move");
        FinishOperation(op);
        return;
    }
    m_trafficIteration[node.traffic].bytes += bytes;
    if (!collective)
    {
        collective = CreateOperation(node.collective);
    }
    collective->Start(m_groups[o.group],
                      bytes,
                      MakeCallback(&ReplayApplication::OperationDone, this, op));
}

void
ReplayApplication::OperationDone(uint32_t op, const CollectiveResult& /* result */)
{
    NS_LOG_FUNCTION(this << op);
    FinishOperation(op);
}

void
ReplayApplication::FinishOperation(uint32_t op)
{
    const WorkloadGraph::Operation& o = m_graph->operations[op];
    const OperationState& state = m_operations[op];
    const WorkloadNode& first = m_graph->nodes[m_graph->groups[o.group][0]][o.member[0]];
    m_trafficIteration[first.traffic].time += Simulator::Now() - state.start;
    // Every member waited for the last to arrive, and that one for its own trigger.
    const NodeState& lastState = m_nodes[state.lastMember.rank][state.lastMember.index];
    for (uint32_t m = 0; m < o.member.size(); ++m)
    {
        const uint32_t rank = m_graph->groups[o.group][m];
        NodeState& member = m_nodes[rank][o.member[m]];
        member.trigger = lastState.trigger;
        member.triggered = lastState.triggered;
        Account(rank, m_ranks[rank].computing, -1);
        Finish(rank, o.member[m]);
    }
}

void
ReplayApplication::MessageArrived(uint32_t src, uint32_t send)
{
    const WorkloadNode& node = m_graph->nodes[src][send];
    NS_LOG_FUNCTION(this << src << node.peer << node.bytes);
    const NodeState& sendState = m_nodes[src][send];
    m_trafficIteration[node.traffic].time += Simulator::Now() - sendState.start;
    Account(src, m_ranks[src].computing, -1);
    Finish(src, send);
    const uint32_t dst = node.peer;
    const uint32_t recv = m_graph->operation[src][send];
    NodeState& recvState = m_nodes[dst][recv];
    recvState.arrived = true;
    if (recvState.reached)
    {
        // The receive waited for the message: its path goes through the send.
        recvState.trigger = {src, send};
        recvState.triggered = true;
        Account(dst, m_ranks[dst].computing, -1);
        Finish(dst, recv);
    }
}

void
ReplayApplication::Finish(uint32_t rank, uint32_t index)
{
    NodeState& state = m_nodes[rank][index];
    state.end = Simulator::Now();
    RankState& s = m_ranks[rank];
    s.finish = state.end;
    s.last = index;
    m_nodesLeft--;
    for (uint32_t next : m_graph->dependents[rank][index])
    {
        NodeState& n = m_nodes[rank][next];
        if (--n.waiting == 0)
        {
            n.trigger = {rank, index};
            n.triggered = true;
            Start(rank, next);
        }
    }
    if (m_nodesLeft == 0)
    {
        const Time start = GetIterationStart();
        for (uint32_t r = 0; r < m_ranks.size(); ++r)
        {
            Account(r, false, 0);
            RankTimes& t = m_rankTimes[r];
            const RankTimes& it = m_rankIteration[r];
            t.finish += m_ranks[r].finish - start;
            t.compute += it.compute;
            t.communication += it.communication;
            t.exposed += it.exposed;
        }
        for (uint32_t k = 0; k < m_traffic.size(); ++k)
        {
            m_traffic[k].operations += m_trafficIteration[k].operations;
            m_traffic[k].bytes += m_trafficIteration[k].bytes;
            m_traffic[k].time += m_trafficIteration[k].time;
        }
        TraceCriticalPath();
        EndIteration();
    }
}

void
ReplayApplication::TraceCriticalPath()
{
    uint32_t slowest = 0;
    for (uint32_t r = 1; r < m_ranks.size(); ++r)
    {
        if (m_ranks[r].finish > m_ranks[slowest].finish)
        {
            slowest = r;
        }
    }
    CriticalPath path;
    path.rank = slowest;
    path.length = m_ranks[slowest].finish - GetIterationStart();
    WorkloadGraph::NodeRef at{slowest, m_ranks[slowest].last};
    bool more = m_ranks[slowest].last != NONE;
    while (more)
    {
        const NodeState& state = m_nodes[at.rank][at.index];
        const WorkloadNode& node = m_graph->nodes[at.rank][at.index];
        path.nodes++;
        // Its share of the path: from the end of what it waited for last (so the
        // shares add up to the path's length; a member's wait for the others of its
        // collective belongs to the last one's chain).
        const Time from = state.triggered ? m_nodes[state.trigger.rank][state.trigger.index].end
                                          : GetIterationStart();
        const Time span = state.end - from;
        if (node.kind == WorkloadNode::COMPUTE)
        {
            path.compute += span;
        }
        else
        {
            path.communication += span;
        }
        more = state.triggered;
        at = state.trigger;
    }
    m_criticalPath = path;
    m_criticalPathPerIteration.push_back(path.length.GetSeconds() * 1e6);
    m_slowestRankPerIteration.push_back(slowest);
}

const ReplayApplication::RankTimes&
ReplayApplication::GetRankTimes(uint32_t rank) const
{
    return m_rankTimes.at(rank);
}

const ReplayApplication::TrafficTotals&
ReplayApplication::GetTrafficTotals(uint32_t traffic) const
{
    return m_traffic.at(traffic);
}

const ReplayApplication::CriticalPath&
ReplayApplication::GetCriticalPath() const
{
    return m_criticalPath;
}

void
ReplayApplication::AddResults(nlohmann::json& results) const
{
    if (!m_graph)
    {
        return;
    }
    const WorkloadGraph& g = *m_graph;
    const double iterations = std::max<uint32_t>(1, GetIterationsDone());
    const auto us = [iterations](Time t) { return t.GetSeconds() * 1e6 / iterations; };
    nlohmann::json graph;
    graph["source"] = g.source;
    graph["ranks"] = g.GetRanks();
    graph["nodes"] = g.GetNodeCount();
    graph["edges"] = g.GetEdgeCount();
    graph["groups"] = g.groups.size();
    graph["collectiveOperations"] = g.operations.size();
    graph["unmodelled"] = g.unmodelled;
    results["graph"] = graph;
    nlohmann::json ranks = nlohmann::json::array();
    for (uint32_t r = 0; r < m_rankTimes.size(); ++r)
    {
        const RankTimes& t = m_rankTimes[r];
        ranks.push_back({{"rank", r},
                         {"gpu", m_comm->GetMember(r).gpu},
                         {"finish_us", us(t.finish)},
                         {"compute_us", us(t.compute)},
                         {"communication_us", us(t.communication)},
                         {"exposedCommunication_us", us(t.exposed)}});
    }
    results["ranks"] = ranks;
    nlohmann::json traffic = nlohmann::json::object();
    for (uint32_t k = 0; k < m_traffic.size(); ++k)
    {
        traffic[g.trafficNames[k]] = {{"operations", m_traffic[k].operations},
                                      {"bytes", m_traffic[k].bytes},
                                      {"time_us", us(m_traffic[k].time)}};
    }
    results["traffic"] = traffic;
    results["criticalPath"] = {
        {"rank", m_criticalPath.rank},
        {"nodes", m_criticalPath.nodes},
        {"compute_us", m_criticalPath.compute.GetSeconds() * 1e6},
        {"communication_us", m_criticalPath.communication.GetSeconds() * 1e6},
        {"length_us", m_criticalPath.length.GetSeconds() * 1e6}};
    results["perIteration"]["criticalPath_us"] = m_criticalPathPerIteration;
    results["perIteration"]["slowestRank"] = m_slowestRankPerIteration;
}

} // namespace ns3
