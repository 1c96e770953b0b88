/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "tensor-parallel-application.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/collective-operation.h"
#include "ns3/communicator.h"
#include "ns3/gpu-compute.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"
#include "ns3/workload-graph.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TensorParallelApplication");

NS_OBJECT_ENSURE_REGISTERED(TensorParallelApplication);

namespace
{
/// \param t a time, possibly negative (a jitter) \return it in microseconds; ns-3's
///        GetSeconds shifts a negative value left, undefined in C++17
double
SignedMicroseconds(Time t)
{
    return t.IsNegative() ? -(Time(0) - t).GetSeconds() * 1e6 : t.GetSeconds() * 1e6;
}
} // namespace

TypeId
TensorParallelApplication::GetTypeId()
{
    // Each deprecated alias shares its attribute's checker: ns-3 finds the values
    // given when an object is built by checker, so a value given to either name
    // reaches both, and a default given to the alias does not undo it.
    static const Ptr<const AttributeChecker> forwardChecker = MakeTimeChecker();
    static const Ptr<const AttributeChecker> backwardChecker = MakeTimeChecker();
    static TypeId tid =
        TypeId("ns3::TensorParallelApplication")
            .SetParent<TrainingApplication>()
            .SetGroupName("AiFabric")
            .AddConstructor<TensorParallelApplication>()
            .AddAttribute("Layers",
                          "Transformer layers per iteration (>= 1; Llama 2 7B: 32)",
                          UintegerValue(32),
                          MakeUintegerAccessor(&TensorParallelApplication::m_layers),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("CollectivesPerLayer",
                          "Blocks per layer, each compute then a collective, in each of the "
                          "forward and backward passes (>= 1; Megatron: 2, attention and MLP)",
                          UintegerValue(2),
                          MakeUintegerAccessor(&TensorParallelApplication::m_collectivesPerLayer),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ActivationBytes",
                          "S of every collective (>= 1): sequence x hidden x bytes per element "
                          "x microbatch (Llama 2 7B in bf16, microbatch 1: 4096 x 4096 x 2)",
                          UintegerValue(4096 * 4096 * 2),
                          MakeUintegerAccessor(&TensorParallelApplication::m_activationBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ForwardTime",
                          "Compute time of one forward block (attention or MLP) on each rank",
                          TimeValue(MicroSeconds(300)),
                          MakeTimeAccessor(&TensorParallelApplication::m_forwardTime),
                          forwardChecker)
            .AddAttribute("BackwardTime",
                          "Compute time of one backward block on each rank",
                          TimeValue(MicroSeconds(600)),
                          MakeTimeAccessor(&TensorParallelApplication::m_backwardTime),
                          backwardChecker)
            .AddAttribute("SequenceParallel",
                          "Replace each AllReduce by a ReduceScatter and an AllGather of the "
                          "same size (Megatron sequence parallelism)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TensorParallelApplication::m_sequenceParallel),
                          MakeBooleanChecker())
            .AddAttribute("ComputeJitter",
                          "Drawn once per compute block, in seconds, and added to its time "
                          "(a negative sum gives zero); null: no jitter",
                          PointerValue(),
                          MakePointerAccessor(&TensorParallelApplication::m_jitter),
                          MakePointerChecker<RandomVariableStream>())
            // The names before ForwardTime and BackwardTime, for one release. Their
            // default is a marker the setter ignores: constructing the object sets
            // every attribute, and a real default here would undo ForwardTime's.
            .AddAttribute("ForwardComputeTime",
                          "Deprecated alias of ForwardTime (to be removed in the next "
                          "release); its default leaves ForwardTime as it is",
                          TimeValue(Time::Min()),
                          MakeTimeAccessor(&TensorParallelApplication::SetForwardTimeAlias,
                                           &TensorParallelApplication::GetForwardTimeAlias),
                          forwardChecker,
                          TypeId::SupportLevel::DEPRECATED,
                          "use ForwardTime")
            .AddAttribute("BackwardComputeTime",
                          "Deprecated alias of BackwardTime (to be removed in the next "
                          "release); its default leaves BackwardTime as it is",
                          TimeValue(Time::Min()),
                          MakeTimeAccessor(&TensorParallelApplication::SetBackwardTimeAlias,
                                           &TensorParallelApplication::GetBackwardTimeAlias),
                          backwardChecker,
                          TypeId::SupportLevel::DEPRECATED,
                          "use BackwardTime")
            .AddTraceSource("Operation",
                            "A collective finished: its index over the run and its latency",
                            MakeTraceSourceAccessor(&TensorParallelApplication::m_operationTrace),
                            "ns3::TensorParallelApplication::OperationTracedCallback")
            .AddTraceSource("Compute",
                            "A compute block finished: its index over the run, its duration "
                            "and the jitter in it",
                            MakeTraceSourceAccessor(&TensorParallelApplication::m_computeTrace),
                            "ns3::TensorParallelApplication::ComputeTracedCallback");
    return tid;
}

TensorParallelApplication::TensorParallelApplication()
{
    NS_LOG_FUNCTION(this);
}

void
TensorParallelApplication::SetForwardTimeAlias(Time time)
{
    if (time != Time::Min())
    {
        m_forwardTime = time;
    }
}

Time
TensorParallelApplication::GetForwardTimeAlias() const
{
    return m_forwardTime;
}

void
TensorParallelApplication::SetBackwardTimeAlias(Time time)
{
    if (time != Time::Min())
    {
        m_backwardTime = time;
    }
}

Time
TensorParallelApplication::GetBackwardTimeAlias() const
{
    return m_backwardTime;
}

TensorParallelApplication::~TensorParallelApplication() = default;

void
TensorParallelApplication::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_computeEvent.Cancel();
    m_jitter = nullptr;
    TrainingApplication::DoDispose();
}

int64_t
TensorParallelApplication::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    if (!m_jitter)
    {
        return 0;
    }
    m_jitter->SetStream(stream);
    return 1;
}

void
TensorParallelApplication::DoSetup()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_layers < 1,
                    "TensorParallelApplication: Layers " << m_layers << " must be at least 1");
    NS_ABORT_MSG_IF(m_collectivesPerLayer < 1,
                    "TensorParallelApplication: CollectivesPerLayer " << m_collectivesPerLayer
                                                                      << " must be at least 1");
    NS_ABORT_MSG_IF(m_activationBytes < 1,
                    "TensorParallelApplication: ActivationBytes " << m_activationBytes
                                                                  << " must be at least 1");
    NS_ABORT_MSG_IF(m_forwardTime.IsStrictlyNegative(),
                    "TensorParallelApplication: ForwardTime " << m_forwardTime.As(Time::US)
                                                              << " must not be negative");
    NS_ABORT_MSG_IF(m_backwardTime.IsStrictlyNegative(),
                    "TensorParallelApplication: BackwardTime " << m_backwardTime.As(Time::US)
                                                               << " must not be negative");
    const uint64_t blocks = 2ULL * m_layers * m_collectivesPerLayer;
    NS_ABORT_MSG_IF(blocks * (m_sequenceParallel ? 2 : 1) > UINT32_MAX,
                    "TensorParallelApplication: Layers " << m_layers << " x CollectivesPerLayer "
                                                         << m_collectivesPerLayer
                                                         << " gives too many operations");
    m_blocksPerIteration = static_cast<uint32_t>(blocks);
    NS_LOG_LOGIC(m_comm->GetSize() << " ranks, " << m_blocksPerIteration << " blocks per iteration"
                                   << (m_sequenceParallel ? ", sequence parallel" : ""));
}

uint32_t
TensorParallelApplication::GetOperationsPerIteration() const
{
    return m_blocksPerIteration * (m_sequenceParallel ? 2 : 1);
}

const SampleStatistics&
TensorParallelApplication::GetOperationLatency() const
{
    return m_latency;
}

double
TensorParallelApplication::GetLatencyStdDev() const
{
    return m_latency.GetStdDev();
}

double
TensorParallelApplication::GetLatencyTailRatio() const
{
    const double p50 = m_latency.GetPercentile(0.5);
    return p50 > 0 ? m_latency.GetPercentile(0.99) / p50 : 0;
}

Time
TensorParallelApplication::GetComputeJitterTotal() const
{
    return m_jitterTotal;
}

void
TensorParallelApplication::AddResults(nlohmann::json& results) const
{
    results["operationsPerIteration"] = GetOperationsPerIteration();
    SampleStatistics latency;
    for (double x : m_latency.GetSamples())
    {
        latency.Add(x * 1e6);
    }
    results["operationLatency_us"] = latency.ToJson();
    results["latencyStdDev_us"] = GetLatencyStdDev() * 1e6;
    results["latencyTailRatio"] = GetLatencyTailRatio();
    results["computeJitter_us"] = SignedMicroseconds(m_jitterTotal);
    nlohmann::json jitter = nlohmann::json::array();
    for (Time t : m_jitterPerIteration)
    {
        jitter.push_back(SignedMicroseconds(t));
    }
    results["perIteration"]["computeJitter_us"] = jitter;
}

std::string
TensorParallelApplication::DescribeIteration(WorkloadGraph& graph)
{
    NS_LOG_FUNCTION(this);
    const uint32_t n = m_comm->GetSize();
    const uint32_t group = BeginGraph(graph, "tensor parallel");
    const uint32_t traffic = graph.AddTraffic("TP");
    const auto add = [&graph, n](WorkloadNode node) {
        for (uint32_t r = 0; r < n; ++r)
        {
            std::vector<WorkloadNode>& nodes = graph.nodes[r];
            node.id = nodes.size();
            node.deps.clear();
            if (node.id > 0)
            {
                node.deps.push_back(node.id - 1);
            }
            nodes.push_back(node);
        }
    };
    for (uint32_t b = 0; b < m_blocksPerIteration; ++b)
    {
        const bool forward = b < m_blocksPerIteration / 2;
        Time duration = forward ? m_forwardTime : m_backwardTime;
        if (m_jitter)
        {
            duration = std::max(Time(0), duration + Seconds(m_jitter->GetValue()));
        }
        WorkloadNode compute;
        compute.kind = WorkloadNode::COMPUTE;
        compute.label = graph.AddLabel((forward ? "forward " : "backward ") + std::to_string(b));
        compute.duration = duration;
        add(compute);
        for (const char* collective : m_sequenceParallel
                                          ? std::vector<const char*>{"ReduceScatter", "AllGather"}
                                          : std::vector<const char*>{"AllReduce"})
        {
            WorkloadNode op;
            op.kind = WorkloadNode::COLLECTIVE;
            op.label = graph.AddLabel(std::string(collective) + " " + std::to_string(b));
            op.collective = collective;
            op.bytes = m_activationBytes;
            op.group = group;
            op.traffic = traffic;
            add(op);
        }
    }
    graph.description = {{"workload", "tensor parallel"},
                         {"blocks", std::to_string(m_blocksPerIteration)}};
    return graph.Link();
}

void
TensorParallelApplication::DoStartIteration()
{
    NS_LOG_FUNCTION(this << GetIteration());
    m_block = 0;
    m_iterationJitter = Time(0);
    StartBlock();
}

void
TensorParallelApplication::StartBlock()
{
    const bool forward = m_block < m_blocksPerIteration / 2;
    NS_LOG_FUNCTION(this << m_block << forward);
    const Time nominal = forward ? m_forwardTime : m_backwardTime;
    Time duration = nominal;
    if (m_jitter)
    {
        duration += Seconds(m_jitter->GetValue());
        if (duration.IsStrictlyNegative())
        {
            NS_LOG_LOGIC("jitter below -" << nominal.As(Time::US) << ": block takes no time");
            duration = Time(0);
        }
    }
    const Time drawn = duration - nominal;
    // Every rank computes the block; the collective after it waits for the slowest
    // (a straggler's GpuCompute slowdown).
    const Time slowest = m_comm->GetSlowestComputeTime(duration);
    m_computeEvent =
        Simulator::Schedule(slowest, &TensorParallelApplication::ComputeDone, this, slowest, drawn);
}

void
TensorParallelApplication::ComputeDone(Time duration, Time jitter)
{
    NS_LOG_FUNCTION(this << m_block << duration.As(Time::US) << jitter.As(Time::US));
    m_jitterTotal += jitter;
    m_iterationJitter += jitter;
    m_computeTrace(m_blocksDone++, duration, jitter);
    m_gathering = false;
    StartOperation(m_sequenceParallel ? "ReduceScatter" : "AllReduce");
}

void
TensorParallelApplication::StartOperation(const std::string& collective)
{
    NS_LOG_FUNCTION(this << collective);
    // The communicator keeps the operation alive until it finishes.
    CreateOperation(collective)
        ->Start(m_comm,
                m_activationBytes,
                MakeCallback(&TensorParallelApplication::OperationDone, this));
}

void
TensorParallelApplication::OperationDone(const CollectiveResult& result)
{
    const Time latency = result.GetDuration();
    NS_LOG_FUNCTION(this << result.collective << latency.As(Time::US));
    m_latency.Add(latency.GetSeconds());
    m_operationTrace(m_operationsDone++, latency);
    if (m_sequenceParallel && !m_gathering)
    {
        NS_LOG_LOGIC("sequence parallel: AllGather after the ReduceScatter");
        m_gathering = true;
        StartOperation("AllGather");
        return;
    }
    if (++m_block == m_blocksPerIteration)
    {
        NS_LOG_LOGIC("iteration " << GetIteration() << " done");
        m_jitterPerIteration.push_back(m_iterationJitter);
        EndIteration();
        return;
    }
    StartBlock();
}

} // namespace ns3
