/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "data-parallel-application.h"

#include "ns3/abort.h"
#include "ns3/collective-operation.h"
#include "ns3/communicator.h"
#include "ns3/gpu-compute.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"
#include "ns3/workload-graph.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DataParallelApplication");

NS_OBJECT_ENSURE_REGISTERED(DataParallelApplication);

TypeId
DataParallelApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DataParallelApplication")
            .SetParent<TrainingApplication>()
            .SetGroupName("AiFabric")
            .AddConstructor<DataParallelApplication>()
            .AddAttribute("GradientBytes",
                          "Gradient bytes AllReduced per iteration (the model's parameters "
                          "x bytes per gradient)",
                          UintegerValue(1ULL << 30),
                          MakeUintegerAccessor(&DataParallelApplication::m_gradientBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("BucketBytes",
                          "Bytes per gradient bucket (PyTorch DDP's default bucket_cap_mb = 25)",
                          UintegerValue(25ULL << 20),
                          MakeUintegerAccessor(&DataParallelApplication::m_bucketBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ForwardTime",
                          "Forward pass time of one rank in one iteration, in seconds",
                          StringValue("ns3::ConstantRandomVariable[Constant=0.01]"),
                          MakePointerAccessor(&DataParallelApplication::m_forwardTime),
                          MakePointerChecker<RandomVariableStream>())
            .AddAttribute("BackwardTime",
                          "Backward pass time of one rank in one iteration, in seconds",
                          StringValue("ns3::ConstantRandomVariable[Constant=0.02]"),
                          MakePointerAccessor(&DataParallelApplication::m_backwardTime),
                          MakePointerChecker<RandomVariableStream>())
            .AddTraceSource("Bucket",
                            "A bucket's AllReduce finished",
                            MakeTraceSourceAccessor(&DataParallelApplication::m_bucketTrace),
                            "ns3::DataParallelApplication::BucketTracedCallback");
    return tid;
}

DataParallelApplication::DataParallelApplication()
{
    NS_LOG_FUNCTION(this);
}

DataParallelApplication::~DataParallelApplication() = default;

void
DataParallelApplication::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_bucketEvent.Cancel();
    m_computeEvent.Cancel();
    m_forwardTime = nullptr;
    m_backwardTime = nullptr;
    TrainingApplication::DoDispose();
}

int64_t
DataParallelApplication::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    m_forwardTime->SetStream(stream);
    m_backwardTime->SetStream(stream + 1);
    return 2;
}

void
DataParallelApplication::DoSetup()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_gradientBytes == 0,
                    "DataParallelApplication: GradientBytes 0 must be at least 1");
    NS_ABORT_MSG_IF(m_bucketBytes == 0,
                    "DataParallelApplication: BucketBytes 0 must be at least 1");
    NS_ABORT_MSG_IF(!m_forwardTime || !m_backwardTime,
                    "DataParallelApplication: ForwardTime and BackwardTime need a random "
                    "variable");
    m_bucketSize.clear();
    for (uint64_t done = 0; done < m_gradientBytes; done += m_bucketBytes)
    {
        m_bucketSize.push_back(std::min(m_bucketBytes, m_gradientBytes - done));
    }
    NS_LOG_LOGIC(m_bucketSize.size() << " buckets");
}

uint32_t
DataParallelApplication::GetBuckets() const
{
    return static_cast<uint32_t>(m_bucketSize.size());
}

const std::vector<Time>&
DataParallelApplication::GetExposedCommunication() const
{
    return m_exposed;
}

const std::vector<Time>&
DataParallelApplication::GetBucketTimes() const
{
    return m_bucketTimes;
}

Time
DataParallelApplication::GetWaitTime(uint32_t rank) const
{
    return rank < m_waitTime.size() ? m_waitTime[rank] : Time(0);
}

const SampleStatistics&
DataParallelApplication::GetBucketStatistics() const
{
    return m_bucketStatistics;
}

void
DataParallelApplication::AddResults(nlohmann::json& results) const
{
    results["buckets"] = GetBuckets();
    nlohmann::json exposed = nlohmann::json::array();
    for (Time t : m_exposed)
    {
        exposed.push_back(t.GetSeconds() * 1e6);
    }
    results["perIteration"]["exposedCommunication_us"] = exposed;
    SampleStatistics buckets;
    for (Time t : m_bucketTimes)
    {
        buckets.Add(t.GetSeconds() * 1e6);
    }
    results["bucketAllReduce_us"] = buckets.ToJson();
    nlohmann::json wait = nlohmann::json::array();
    for (Time t : m_waitTime)
    {
        wait.push_back(t.GetSeconds() * 1e6);
    }
    results["waitPerRank_us"] = wait;
}

void
DataParallelApplication::DoStartIteration()
{
    NS_LOG_FUNCTION(this << GetIteration());
    const uint32_t n = m_comm->GetSize();
    const std::size_t buckets = m_bucketSize.size();
    // Bucket k is ready everywhere when the slowest rank has produced it.
    m_bucketReady.assign(buckets, Time(0));
    std::vector<std::vector<Time>> readyOf(n, std::vector<Time>(buckets));
    Time slowest;
    for (uint32_t r = 0; r < n; ++r)
    {
        // A straggler's compute takes longer (its slowdown when the iteration starts).
        Ptr<GpuCompute> gpu = m_comm->GetMember(r).compute;
        const Time forward = gpu->GetComputeTime(Seconds(m_forwardTime->GetValue()));
        const Time backward = gpu->GetComputeTime(Seconds(m_backwardTime->GetValue()));
        NS_ABORT_MSG_IF(forward.IsStrictlyNegative() || backward.IsStrictlyNegative(),
                        "DataParallelApplication: rank "
                            << r << " drew ForwardTime " << forward.As(Time::US)
                            << " and BackwardTime " << backward.As(Time::US)
                            << "; they must not be negative");
        slowest = std::max(slowest, forward + backward);
        uint64_t produced = 0;
        for (std::size_t k = 0; k < buckets; ++k)
        {
            produced += m_bucketSize[k];
            const Time ready =
                forward + backward * (static_cast<double>(produced) / m_gradientBytes);
            m_bucketReady[k] = std::max(m_bucketReady[k], ready);
            readyOf[r][k] = ready;
        }
    }
    // Who waited: a rank's bucket waits from its own readiness to the slowest rank's.
    m_waitTime.resize(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        for (std::size_t k = 0; k < buckets; ++k)
        {
            m_waitTime[r] += m_bucketReady[k] - readyOf[r][k];
        }
    }
    m_computeEnd = slowest;
    m_computeDone = false;
    m_nextBucket = 0;
    m_bucketInFlight = false;
    m_computeEvent = Simulator::Schedule(slowest, [this]() {
        NS_LOG_LOGIC("compute done on every rank");
        m_computeDone = true;
        EndIfDone();
    });
    TryNextBucket();
}

std::string
DataParallelApplication::DescribeIteration(WorkloadGraph& graph)
{
    NS_LOG_FUNCTION(this);
    const uint32_t n = m_comm->GetSize();
    const uint32_t group = BeginGraph(graph, "data parallel");
    const uint32_t traffic = graph.AddTraffic("DP");
    for (uint32_t r = 0; r < n; ++r)
    {
        std::vector<WorkloadNode>& nodes = graph.nodes[r];
        const Time forward = Seconds(m_forwardTime->GetValue());
        const Time backward = Seconds(m_backwardTime->GetValue());
        WorkloadNode node;
        node.kind = WorkloadNode::COMPUTE;
        node.label = graph.AddLabel("forward");
        node.duration = forward;
        nodes.push_back(node);
        uint64_t produced = 0;
        Time readySoFar = forward;
        uint64_t previousCompute = 0;
        uint64_t previousBucket = 0;
        for (std::size_t k = 0; k < m_bucketSize.size(); ++k)
        {
            // The same arithmetic as DoStartIteration's, so the times are the same.
            produced += m_bucketSize[k];
            const Time ready =
                forward + backward * (static_cast<double>(produced) / m_gradientBytes);
            WorkloadNode compute;
            compute.kind = WorkloadNode::COMPUTE;
            compute.id = nodes.size();
            compute.label = graph.AddLabel("backward " + std::to_string(k));
            compute.duration = ready - readySoFar;
            compute.deps = {previousCompute};
            readySoFar = ready;
            previousCompute = compute.id;
            nodes.push_back(compute);
            WorkloadNode bucket;
            bucket.kind = WorkloadNode::COLLECTIVE;
            bucket.id = nodes.size();
            bucket.label = graph.AddLabel("bucket " + std::to_string(k));
            bucket.collective = "AllReduce";
            bucket.bytes = m_bucketSize[k];
            bucket.group = group;
            bucket.traffic = traffic;
            bucket.deps = {compute.id};
            if (k > 0)
            {
                bucket.deps.push_back(previousBucket);
            }
            previousBucket = bucket.id;
            nodes.push_back(bucket);
        }
    }
    graph.description = {{"workload", "data parallel"},
                         {"buckets", std::to_string(m_bucketSize.size())}};
    return graph.Link();
}

void
DataParallelApplication::TryNextBucket()
{
    NS_LOG_FUNCTION(this << m_nextBucket);
    if (m_bucketInFlight || m_nextBucket == m_bucketSize.size())
    {
        return;
    }
    const Time readyAt = GetIterationStart() + m_bucketReady[m_nextBucket];
    if (readyAt > Simulator::Now())
    {
        m_bucketEvent = Simulator::Schedule(readyAt - Simulator::Now(),
                                            &DataParallelApplication::TryNextBucket,
                                            this);
        return;
    }
    NS_LOG_LOGIC("bucket " << m_nextBucket << " of " << m_bucketSize[m_nextBucket]
                           << " bytes: AllReduce");
    m_bucketInFlight = true;
    CreateOperation("AllReduce")
        ->Start(m_comm,
                m_bucketSize[m_nextBucket],
                MakeCallback(&DataParallelApplication::OnBucketDone, this));
}

void
DataParallelApplication::OnBucketDone(const CollectiveResult& result)
{
    NS_LOG_FUNCTION(this << m_nextBucket);
    const Time duration = result.GetDuration();
    m_bucketTimes.push_back(duration);
    m_bucketStatistics.Add(duration.GetSeconds());
    m_bucketTrace(GetIteration(), m_nextBucket, duration);
    m_bucketInFlight = false;
    ++m_nextBucket;
    if (m_nextBucket < m_bucketSize.size())
    {
        TryNextBucket();
        return;
    }
    EndIfDone();
}

void
DataParallelApplication::EndIfDone()
{
    NS_LOG_FUNCTION(this);
    if (!m_computeDone || m_nextBucket < m_bucketSize.size())
    {
        return;
    }
    const Time exposed = Simulator::Now() - GetIterationStart() - m_computeEnd;
    NS_LOG_LOGIC("iteration " << GetIteration() << ": exposed communication "
                              << exposed.As(Time::US));
    m_exposed.push_back(exposed);
    EndIteration();
}

} // namespace ns3
