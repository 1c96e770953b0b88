/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "expert-parallel-application.h"

#include "ns3/abort.h"
#include "ns3/collective-operation.h"
#include "ns3/communicator.h"
#include "ns3/gpu-compute.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/pairwise-all-to-all-v.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"
#include "ns3/workload-graph.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ExpertParallelApplication");

NS_OBJECT_ENSURE_REGISTERED(ExpertParallelApplication);

namespace
{
/// \param counts token counts (not all 0) \return max / mean of them
double
Imbalance(const std::vector<uint64_t>& counts)
{
    uint64_t sum = 0;
    uint64_t max = 0;
    for (uint64_t c : counts)
    {
        sum += c;
        max = std::max(max, c);
    }
    const double mean = static_cast<double>(sum) / static_cast<double>(counts.size());
    return static_cast<double>(max) / mean;
}
} // namespace

TypeId
ExpertParallelApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ExpertParallelApplication")
            .SetParent<TrainingApplication>()
            .SetGroupName("AiFabric")
            .AddConstructor<ExpertParallelApplication>()
            .AddAttribute("Experts",
                          "E: experts of the layer, a multiple of the communicator's ranks "
                          "(rank r holds experts r E/n .. (r+1) E/n - 1)",
                          UintegerValue(64),
                          MakeUintegerAccessor(&ExpertParallelApplication::m_experts),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("TokensPerRank",
                          "Tokens each rank routes per iteration (>= 1)",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&ExpertParallelApplication::m_tokensPerRank),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("TopK",
                          "k: distinct experts each token goes to (1 .. E)",
                          UintegerValue(2),
                          MakeUintegerAccessor(&ExpertParallelApplication::m_topK),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("BytesPerToken",
                          "Bytes of one token sent to one expert (hidden size x bytes per "
                          "element, e.g. 4096 x 2), and of its result sent back (>= 1)",
                          UintegerValue(4096 * 2),
                          MakeUintegerAccessor(&ExpertParallelApplication::m_bytesPerToken),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ComputeTimePerToken",
                          "Expert compute time per token received (>= 0)",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&ExpertParallelApplication::m_computeTimePerToken),
                          MakeTimeChecker())
            .AddAttribute("Gating",
                          "The gate: an ExpertGating TypeId name with its attributes, e.g. "
                          "ns3::ZipfGating[Exponent=1.2] or ns3::HotExpertGating[HotFraction=0.3]",
                          StringValue("ns3::UniformGating"),
                          MakeStringAccessor(&ExpertParallelApplication::m_gatingSpec),
                          MakeStringChecker())
            .AddTraceSource("RoutingDrawn",
                            "An iteration's routing was drawn: its token matrix and tokens per "
                            "expert",
                            MakeTraceSourceAccessor(&ExpertParallelApplication::m_routingTrace),
                            "ns3::ExpertParallelApplication::RoutingTracedCallback")
            .AddTraceSource("DispatchDone",
                            "An iteration's dispatch AlltoAllv completed",
                            MakeTraceSourceAccessor(&ExpertParallelApplication::m_dispatchTrace),
                            "ns3::ExpertParallelApplication::AlltoAllvTracedCallback")
            .AddTraceSource("CombineDone",
                            "An iteration's combine AlltoAllv completed",
                            MakeTraceSourceAccessor(&ExpertParallelApplication::m_combineTrace),
                            "ns3::ExpertParallelApplication::AlltoAllvTracedCallback");
    return tid;
}

ExpertParallelApplication::ExpertParallelApplication()
{
    NS_LOG_FUNCTION(this);
    m_rng = CreateObject<UniformRandomVariable>();
}

ExpertParallelApplication::~ExpertParallelApplication() = default;

void
ExpertParallelApplication::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_gating = nullptr;
    m_rng = nullptr;
    TrainingApplication::DoDispose();
}

int64_t
ExpertParallelApplication::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    m_rng->SetStream(stream);
    return 1;
}

void
ExpertParallelApplication::DoSetup()
{
    NS_LOG_FUNCTION(this);
    const uint32_t ranks = m_comm->GetSize();
    NS_ABORT_MSG_IF(m_experts < 1,
                    "ExpertParallelApplication: Experts " << m_experts << " must be at least 1");
    NS_ABORT_MSG_IF(m_experts % ranks != 0,
                    "ExpertParallelApplication: Experts " << m_experts
                                                          << " is not a multiple of the " << ranks
                                                          << " ranks of the communicator");
    NS_ABORT_MSG_IF(m_topK < 1,
                    "ExpertParallelApplication: TopK " << m_topK << " must be at least 1");
    NS_ABORT_MSG_IF(m_topK > m_experts,
                    "ExpertParallelApplication: TopK "
                        << m_topK << " is larger than Experts " << m_experts
                        << " (a token goes to TopK distinct experts)");
    NS_ABORT_MSG_IF(m_tokensPerRank < 1,
                    "ExpertParallelApplication: TokensPerRank " << m_tokensPerRank
                                                                << " must be at least 1");
    NS_ABORT_MSG_IF(m_bytesPerToken < 1,
                    "ExpertParallelApplication: BytesPerToken " << m_bytesPerToken
                                                                << " must be at least 1");
    NS_ABORT_MSG_IF(m_computeTimePerToken.IsStrictlyNegative(),
                    "ExpertParallelApplication: ComputeTimePerToken "
                        << m_computeTimePerToken.As(Time::NS) << " must not be negative");
    // The most a rank can receive (and send back in the combine): every token of
    // every rank, TopK times.
    const auto most = static_cast<__uint128_t>(ranks) * m_tokensPerRank * m_topK;
    NS_ABORT_MSG_IF(most * m_bytesPerToken > std::numeric_limits<uint64_t>::max(),
                    "ExpertParallelApplication: " << ranks << " ranks x TokensPerRank "
                                                  << m_tokensPerRank << " x TopK " << m_topK
                                                  << " x BytesPerToken " << m_bytesPerToken
                                                  << " B does not fit in 64 bits");
    m_gating = ExpertGating::CreateFromSpec(m_gatingSpec, "ExpertParallelApplication");
    m_gating->Setup(m_experts);
    m_expertsPerRank = m_experts / ranks;
    Ptr<CollectiveOperation> probe = CreateOperation("AlltoAllv");
    NS_ABORT_MSG_IF(!DynamicCast<PairwiseAlltoAllv>(probe),
                    "ExpertParallelApplication: the AlltoAllv algorithm "
                        << probe->GetInstanceTypeId().GetName()
                        << " is not a PairwiseAlltoAllv (it takes no matrix)");
    NS_LOG_LOGIC(m_experts << " experts on " << ranks << " ranks, " << m_expertsPerRank
                           << " each; gating " << m_gating->GetInstanceTypeId().GetName());
    m_tokens.clear();
    m_expertTokens.clear();
    m_expertTokensHistory.clear();
    m_tokensHistory.clear();
    m_waitTime.assign(ranks, Time(0));
}

uint32_t
ExpertParallelApplication::GetExperts() const
{
    return m_experts;
}

uint32_t
ExpertParallelApplication::GetExpertRank(uint32_t expert) const
{
    NS_ABORT_MSG_IF(m_expertsPerRank == 0,
                    "ExpertParallelApplication: GetExpertRank before SetCommunicator");
    NS_ABORT_MSG_IF(expert >= m_experts,
                    "ExpertParallelApplication: expert " << expert << " of " << m_experts);
    return expert / m_expertsPerRank;
}

Ptr<ExpertGating>
ExpertParallelApplication::GetGating() const
{
    return m_gating;
}

const ExpertParallelApplication::TokenMatrix&
ExpertParallelApplication::GetTokenMatrix() const
{
    return m_tokens;
}

const std::vector<uint64_t>&
ExpertParallelApplication::GetExpertTokens() const
{
    return m_expertTokens;
}

const SampleStatistics&
ExpertParallelApplication::GetExpertImbalance() const
{
    return m_expertImbalance;
}

const SampleStatistics&
ExpertParallelApplication::GetRankImbalance() const
{
    return m_rankImbalance;
}

const SampleStatistics&
ExpertParallelApplication::GetDispatchTime() const
{
    return m_dispatchTime;
}

const SampleStatistics&
ExpertParallelApplication::GetCombineTime() const
{
    return m_combineTime;
}

const SampleStatistics&
ExpertParallelApplication::GetComputeTime() const
{
    return m_computeTime;
}

Time
ExpertParallelApplication::GetWaitTime(uint32_t rank) const
{
    return rank < m_waitTime.size() ? m_waitTime[rank] : Time(0);
}

void
ExpertParallelApplication::AddResults(nlohmann::json& results) const
{
    NS_LOG_FUNCTION(this);
    results["experts"] = m_experts;
    results["expertsPerRank"] = m_expertsPerRank;
    // One value per completed iteration (an iteration under way when the run ended
    // has drawn its routing, and maybe moved its tokens, but is not counted).
    const std::size_t done = GetIterationsDone();
    const std::vector<std::pair<std::string, const SampleStatistics*>> series{
        {"expertImbalance", &m_expertImbalance},
        {"rankImbalance", &m_rankImbalance},
        {"dispatch_us", &m_dispatchTime},
        {"compute_us", &m_computeTime},
        {"combine_us", &m_combineTime},
    };
    for (const auto& [name, samples] : series)
    {
        // Imbalances are ratios; times are kept in seconds and written in us.
        const double scale = samples == &m_expertImbalance || samples == &m_rankImbalance ? 1 : 1e6;
        SampleStatistics statistics;
        nlohmann::json values = nlohmann::json::array();
        for (std::size_t i = 0; i < done; ++i)
        {
            statistics.Add(samples->GetSamples()[i] * scale);
            values.push_back(samples->GetSamples()[i] * scale);
        }
        results[name] = statistics.ToJson();
        results["perIteration"][name] = values;
    }
    nlohmann::json wait = nlohmann::json::array();
    for (Time t : m_waitTime)
    {
        wait.push_back(t.GetSeconds() * 1e6);
    }
    results["waitPerRank_us"] = wait;
    // The gate's draw and the dispatch matrix of each completed iteration (nested
    // arrays, so not under perIteration, whose series are one value per iteration).
    nlohmann::json expertTokens = nlohmann::json::array();
    nlohmann::json dispatchBytes = nlohmann::json::array();
    for (std::size_t i = 0; i < done && i < m_tokensHistory.size(); ++i)
    {
        expertTokens.push_back(m_expertTokensHistory[i]);
        nlohmann::json matrix = nlohmann::json::array();
        for (const std::vector<uint64_t>& row : m_tokensHistory[i])
        {
            nlohmann::json bytes = nlohmann::json::array();
            for (uint64_t tokens : row)
            {
                bytes.push_back(tokens * m_bytesPerToken);
            }
            matrix.push_back(bytes);
        }
        dispatchBytes.push_back(matrix);
    }
    results["bytesPerToken"] = m_bytesPerToken;
    results["expertTokensPerIteration"] = expertTokens;
    results["dispatchBytesPerIteration"] = dispatchBytes;
}

void
ExpertParallelApplication::DrawRouting()
{
    NS_LOG_FUNCTION(this << GetIteration());
    const uint32_t ranks = m_comm->GetSize();
    m_tokens.assign(ranks, std::vector<uint64_t>(ranks, 0));
    m_expertTokens.assign(m_experts, 0);
    m_gating->DrawIteration(m_rng);
    for (uint32_t src = 0; src < ranks; ++src)
    {
        std::vector<uint64_t>& row = m_tokens[src];
        for (uint32_t t = 0; t < m_tokensPerRank; ++t)
        {
            m_gating->Route(m_rng, m_topK, m_route);
            for (uint32_t e : m_route)
            {
                ++m_expertTokens[e];
                ++row[e / m_expertsPerRank];
            }
        }
    }
    std::vector<uint64_t> received(ranks, 0);
    for (uint32_t src = 0; src < ranks; ++src)
    {
        for (uint32_t dst = 0; dst < ranks; ++dst)
        {
            received[dst] += m_tokens[src][dst];
        }
    }
    m_expertImbalance.Add(Imbalance(m_expertTokens));
    m_rankImbalance.Add(Imbalance(received));
    NS_LOG_LOGIC("iteration " << GetIteration() << ": imbalance per expert "
                              << m_expertImbalance.GetSamples().back() << ", per rank "
                              << m_rankImbalance.GetSamples().back());
    m_expertTokensHistory.push_back(m_expertTokens);
    m_tokensHistory.push_back(m_tokens);
    m_routingTrace(GetIteration(), m_tokens, m_expertTokens);
}

Ptr<CollectiveOperation>
ExpertParallelApplication::CreateAlltoAllv(const TokenMatrix& tokens) const
{
    NS_LOG_FUNCTION(this << tokens.size());
    Ptr<CollectiveOperation> op = CreateOperation("AlltoAllv");
    Ptr<PairwiseAlltoAllv> v = DynamicCast<PairwiseAlltoAllv>(op);
    PairwiseAlltoAllv::Matrix bytes(tokens.size(), std::vector<uint64_t>(tokens.size()));
    for (std::size_t i = 0; i < tokens.size(); ++i)
    {
        for (std::size_t j = 0; j < tokens.size(); ++j)
        {
            bytes[i][j] = tokens[i][j] * m_bytesPerToken;
        }
    }
    v->SetMatrix(bytes);
    return op;
}

std::string
ExpertParallelApplication::DescribeIteration(WorkloadGraph& graph)
{
    NS_LOG_FUNCTION(this);
    if (m_tokensHistory.empty())
    {
        DrawRouting(); // the first iteration's, which DoStartIteration then keeps
    }
    const TokenMatrix& tokens = m_tokensHistory.back();
    const auto n = static_cast<uint32_t>(tokens.size());
    const uint32_t group = BeginGraph(graph, "expert parallel");
    const uint32_t traffic = graph.AddTraffic("EP");
    for (uint32_t r = 0; r < n; ++r)
    {
        std::vector<WorkloadNode>& nodes = graph.nodes[r];
        // direction 0: dispatch, row r; 1: combine, column r (the transposed matrix).
        for (uint32_t direction = 0; direction < 2; ++direction)
        {
            WorkloadNode exchange;
            exchange.kind = WorkloadNode::COLLECTIVE;
            exchange.id = nodes.size();
            exchange.label = graph.AddLabel(direction == 0 ? "dispatch" : "combine");
            exchange.collective = "AlltoAllv";
            exchange.group = group;
            exchange.traffic = traffic;
            for (uint32_t peer = 0; peer < n; ++peer)
            {
                const uint64_t count = direction == 0 ? tokens[r][peer] : tokens[peer][r];
                exchange.split.push_back(count * m_bytesPerToken);
                exchange.bytes += exchange.split.back();
            }
            if (direction == 1)
            {
                // The expert compute between them: the tokens rank r received.
                WorkloadNode compute;
                compute.kind = WorkloadNode::COMPUTE;
                compute.id = nodes.size();
                compute.label = graph.AddLabel("expert compute");
                compute.duration =
                    m_computeTimePerToken * static_cast<int64_t>(exchange.bytes / m_bytesPerToken);
                compute.deps = {compute.id - 1};
                nodes.push_back(compute);
                exchange.id = nodes.size();
                exchange.deps = {compute.id};
            }
            nodes.push_back(exchange);
        }
    }
    graph.description = {{"workload", "expert parallel"},
                         {"experts", std::to_string(m_experts)},
                         {"routing", "of iteration " + std::to_string(m_tokensHistory.size() - 1)}};
    return graph.Link();
}

void
ExpertParallelApplication::DoStartIteration()
{
    NS_LOG_FUNCTION(this << GetIteration());
    if (m_tokensHistory.size() == GetIteration())
    {
        DrawRouting(); // else DescribeIteration drew it ahead, into m_tokens
    }
    Ptr<CollectiveOperation> dispatch = CreateAlltoAllv(m_tokens);
    const uint64_t bytes = DynamicCast<PairwiseAlltoAllv>(dispatch)->GetMatrixBytes();
    dispatch->Start(m_comm, bytes, MakeCallback(&ExpertParallelApplication::DispatchDone, this));
}

void
ExpertParallelApplication::DispatchDone(const CollectiveResult& result)
{
    NS_LOG_FUNCTION(this << GetIteration() << result.GetDuration().As(Time::US));
    m_dispatchTime.Add(result.GetDuration().GetSeconds());
    m_dispatchTrace(GetIteration(), result);
    // Rank j computes for the tokens it received, at its GPU's speed now (a
    // straggler's slowdown applies); the combine starts when the slowest rank is done.
    const auto ranks = static_cast<uint32_t>(m_tokens.size());
    std::vector<Time> compute(ranks);
    Time longest;
    uint32_t slowest = 0;
    for (uint32_t dst = 0; dst < ranks; ++dst)
    {
        uint64_t received = 0;
        for (uint32_t src = 0; src < ranks; ++src)
        {
            received += m_tokens[src][dst];
        }
        compute[dst] = m_comm->GetMember(dst).compute->GetComputeTime(
            m_computeTimePerToken * static_cast<int64_t>(received));
        if (compute[dst] > longest)
        {
            longest = compute[dst];
            slowest = dst;
        }
    }
    NS_LOG_LOGIC("slowest rank " << slowest << ": " << longest.As(Time::US));
    for (uint32_t r = 0; r < ranks; ++r)
    {
        m_waitTime[r] += longest - compute[r];
    }
    m_computeTime.Add(longest.GetSeconds());
    Simulator::Schedule(longest, &ExpertParallelApplication::ComputeDone, this);
}

void
ExpertParallelApplication::ComputeDone()
{
    NS_LOG_FUNCTION(this << GetIteration());
    const auto ranks = static_cast<uint32_t>(m_tokens.size());
    TokenMatrix transposed(ranks, std::vector<uint64_t>(ranks));
    for (uint32_t i = 0; i < ranks; ++i)
    {
        for (uint32_t j = 0; j < ranks; ++j)
        {
            transposed[j][i] = m_tokens[i][j];
        }
    }
    Ptr<CollectiveOperation> combine = CreateAlltoAllv(transposed);
    const uint64_t bytes = DynamicCast<PairwiseAlltoAllv>(combine)->GetMatrixBytes();
    combine->Start(m_comm, bytes, MakeCallback(&ExpertParallelApplication::CombineDone, this));
}

void
ExpertParallelApplication::CombineDone(const CollectiveResult& result)
{
    NS_LOG_FUNCTION(this << GetIteration() << result.GetDuration().As(Time::US));
    m_combineTime.Add(result.GetDuration().GetSeconds());
    m_combineTrace(GetIteration(), result);
    EndIteration();
}

} // namespace ns3
