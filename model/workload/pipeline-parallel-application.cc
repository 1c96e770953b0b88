/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pipeline-parallel-application.h"

#include "one-f-one-b-schedule.h"

#include "ns3/abort.h"
#include "ns3/communicator.h"
#include "ns3/gpu-compute.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"
#include "ns3/workload-graph.h"

#include <nlohmann/json.hpp>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PipelineParallelApplication");

NS_OBJECT_ENSURE_REGISTERED(PipelineParallelApplication);

TypeId
PipelineParallelApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PipelineParallelApplication")
            .SetParent<TrainingApplication>()
            .SetGroupName("AiFabric")
            .AddConstructor<PipelineParallelApplication>()
            .AddAttribute("Stages",
                          "S: the stages, on the communicator's first S ranks (0 = every rank)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&PipelineParallelApplication::m_stagesAttribute),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Microbatches",
                          "M: microbatches per iteration (>= 1)",
                          UintegerValue(8),
                          MakeUintegerAccessor(&PipelineParallelApplication::m_microbatches),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ActivationBytes",
                          "Bytes one stage sends the next per microbatch (forward)",
                          UintegerValue(4096 * 4096 * 2),
                          MakeUintegerAccessor(&PipelineParallelApplication::m_activationBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("GradientBytes",
                          "Bytes one stage sends the previous per microbatch (backward; "
                          "0 = ActivationBytes)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&PipelineParallelApplication::m_gradientBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ForwardTime",
                          "Compute time of one stage's forward pass of one microbatch",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&PipelineParallelApplication::m_forwardTime),
                          MakeTimeChecker())
            .AddAttribute("BackwardTime",
                          "Compute time of one stage's backward pass of one microbatch",
                          TimeValue(MilliSeconds(2)),
                          MakeTimeAccessor(&PipelineParallelApplication::m_backwardTime),
                          MakeTimeChecker())
            .AddAttribute("Schedule",
                          "The PipelineSchedule subclass that orders each stage's passes",
                          TypeIdValue(OneFOneBSchedule::GetTypeId()),
                          MakeTypeIdAccessor(&PipelineParallelApplication::m_scheduleType),
                          MakeTypeIdChecker())
            .AddTraceSource("Transfer",
                            "Activations or gradients arrived at a stage",
                            MakeTraceSourceAccessor(&PipelineParallelApplication::m_transferTrace),
                            "ns3::PipelineParallelApplication::TransferTracedCallback");
    return tid;
}

PipelineParallelApplication::PipelineParallelApplication()
{
    NS_LOG_FUNCTION(this);
}

PipelineParallelApplication::~PipelineParallelApplication() = default;

void
PipelineParallelApplication::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_schedule = nullptr;
    m_stage.clear();
    TrainingApplication::DoDispose();
}

void
PipelineParallelApplication::DoSetup()
{
    NS_LOG_FUNCTION(this);
    const uint32_t ranks = m_comm->GetSize();
    NS_ABORT_MSG_IF(m_stagesAttribute > ranks,
                    "PipelineParallelApplication: Stages " << m_stagesAttribute
                                                           << " is larger than the " << ranks
                                                           << " ranks of the communicator");
    m_stages = m_stagesAttribute == 0 ? ranks : m_stagesAttribute;
    NS_ABORT_MSG_IF(m_microbatches < 1,
                    "PipelineParallelApplication: Microbatches " << m_microbatches
                                                                 << " must be at least 1");
    NS_ABORT_MSG_IF(m_forwardTime.IsStrictlyNegative() || m_backwardTime.IsStrictlyNegative(),
                    "PipelineParallelApplication: ForwardTime "
                        << m_forwardTime.As(Time::US) << " and BackwardTime "
                        << m_backwardTime.As(Time::US) << " must not be negative");
    NS_ABORT_MSG_IF(!m_scheduleType.IsChildOf(PipelineSchedule::GetTypeId()) ||
                        !m_scheduleType.HasConstructor(),
                    "PipelineParallelApplication: Schedule " << m_scheduleType.GetName()
                                                             << " is not a PipelineSchedule");
    ObjectFactory factory;
    factory.SetTypeId(m_scheduleType);
    m_schedule = factory.Create<PipelineSchedule>();
    m_stage.assign(m_stages, Stage());
    for (uint32_t s = 0; s < m_stages; ++s)
    {
        m_stage[s].passes = m_schedule->GetPasses(m_stages, m_microbatches, s);
        NS_ABORT_MSG_IF(m_stage[s].passes.size() != 2 * m_microbatches,
                        "PipelineParallelApplication: Schedule "
                            << m_scheduleType.GetName() << " gives stage " << s << " "
                            << m_stage[s].passes.size() << " passes, not 2 x " << m_microbatches);
    }
}

uint32_t
PipelineParallelApplication::GetStages() const
{
    return m_stages;
}

double
PipelineParallelApplication::GetBubbleFraction(uint32_t stage) const
{
    NS_ABORT_MSG_IF(stage >= m_stages,
                    "PipelineParallelApplication: stage " << stage << " of " << m_stages);
    Time total;
    for (Time t : GetIterationTimes())
    {
        total += t;
    }
    if (total.IsZero())
    {
        return 0;
    }
    // Only the passes of completed iterations count.
    return 1.0 - m_stage[stage].busyTime.GetSeconds() / total.GetSeconds();
}

uint32_t
PipelineParallelApplication::GetMaxInFlight(uint32_t stage) const
{
    NS_ABORT_MSG_IF(stage >= m_stages,
                    "PipelineParallelApplication: stage " << stage << " of " << m_stages);
    return m_stage[stage].maxInFlight;
}

const SampleStatistics&
PipelineParallelApplication::GetTransferLatency() const
{
    return m_transferLatency;
}

void
PipelineParallelApplication::AddResults(nlohmann::json& results) const
{
    nlohmann::json stages = nlohmann::json::array();
    for (uint32_t s = 0; s < m_stages; ++s)
    {
        stages.push_back({{"stage", s},
                          {"bubbleFraction", GetBubbleFraction(s)},
                          {"maxInFlight", GetMaxInFlight(s)}});
    }
    results["stages"] = stages;
    SampleStatistics latency;
    for (double x : m_transferLatency.GetSamples())
    {
        latency.Add(x * 1e6);
    }
    results["transferLatency_us"] = latency.ToJson();
}

std::string
PipelineParallelApplication::DescribeIteration(WorkloadGraph& graph)
{
    NS_LOG_FUNCTION(this);
    BeginGraph(graph, "pipeline"); // the stages talk by messages, not collectives
    const uint32_t traffic = graph.AddTraffic("PP");
    for (uint32_t s = 0; s < m_stages; ++s)
    {
        std::vector<WorkloadNode>& nodes = graph.nodes[s];
        // Tag 0: activations, forward; tag 1: gradients, backward. Both flow in
        // microbatch order, so the k-th send and receive of a tag match.
        const auto message =
            [&](WorkloadNode::Kind kind, uint32_t peer, bool forward, uint32_t mb) {
                WorkloadNode m;
                m.id = nodes.size();
                m.kind = kind;
                m.label = graph.AddLabel(std::string(forward ? "activation " : "gradient ") +
                                         std::to_string(mb));
                m.bytes = forward || m_gradientBytes == 0 ? m_activationBytes : m_gradientBytes;
                m.peer = peer;
                m.tag = forward ? 0 : 1;
                m.traffic = traffic;
                nodes.push_back(m);
                return m.id;
            };
        bool first = true;
        uint64_t previous = 0;
        for (const PipelineSchedule::Pass& pass : m_stage[s].passes)
        {
            WorkloadNode compute;
            compute.kind = WorkloadNode::COMPUTE;
            compute.label = graph.AddLabel(std::string(pass.forward ? "forward " : "backward ") +
                                           std::to_string(pass.microbatch));
            compute.duration = pass.forward ? m_forwardTime : m_backwardTime;
            if (!first)
            {
                compute.deps.push_back(previous);
            }
            const bool receives = pass.forward ? s > 0 : s + 1 < m_stages;
            if (receives)
            {
                compute.deps.push_back(message(WorkloadNode::RECV,
                                               pass.forward ? s - 1 : s + 1,
                                               pass.forward,
                                               pass.microbatch));
            }
            compute.id = nodes.size();
            nodes.push_back(compute);
            previous = compute.id;
            first = false;
            const bool sends = pass.forward ? s + 1 < m_stages : s > 0;
            if (sends)
            {
                const uint64_t send = message(WorkloadNode::SEND,
                                              pass.forward ? s + 1 : s - 1,
                                              pass.forward,
                                              pass.microbatch);
                nodes[send].deps = {compute.id};
            }
        }
    }
    graph.description = {{"workload", "pipeline parallel"},
                         {"stages", std::to_string(m_stages)},
                         {"microbatches", std::to_string(m_microbatches)}};
    return graph.Link();
}

void
PipelineParallelApplication::DoStartIteration()
{
    NS_LOG_FUNCTION(this << GetIteration());
    m_stagesLeft = m_stages;
    for (auto& s : m_stage)
    {
        s.next = 0;
        s.activationIn.assign(m_microbatches, false);
        s.gradientIn.assign(m_microbatches, false);
    }
    for (uint32_t s = 0; s < m_stages; ++s)
    {
        TryRun(s);
    }
}

void
PipelineParallelApplication::TryRun(uint32_t stage)
{
    NS_LOG_FUNCTION(this << stage);
    Stage& st = m_stage[stage];
    if (st.busy || st.next == st.passes.size())
    {
        return;
    }
    const PipelineSchedule::Pass pass = st.passes[st.next];
    const bool ready = pass.forward ? (stage == 0 || st.activationIn[pass.microbatch])
                                    : (stage + 1 == m_stages || st.gradientIn[pass.microbatch]);
    if (!ready)
    {
        NS_LOG_LOGIC("stage " << stage << " waits for "
                              << (pass.forward ? "activations" : "gradients") << " of microbatch "
                              << pass.microbatch);
        return;
    }
    NS_LOG_LOGIC("stage " << stage << " starts " << (pass.forward ? "forward" : "backward")
                          << " of microbatch " << pass.microbatch);
    st.busy = true;
    if (pass.forward)
    {
        st.maxInFlight = std::max(st.maxInFlight, ++st.inFlight);
    }
    // A straggler's passes take longer (its slowdown when the pass starts).
    const Time duration = m_comm->GetMember(stage).compute->GetComputeTime(
        pass.forward ? m_forwardTime : m_backwardTime);
    st.passTime = duration;
    Simulator::Schedule(duration, &PipelineParallelApplication::PassDone, this, stage);
}

void
PipelineParallelApplication::PassDone(uint32_t stage)
{
    Stage& st = m_stage[stage];
    const PipelineSchedule::Pass pass = st.passes[st.next];
    NS_LOG_FUNCTION(this << stage << pass.forward << pass.microbatch);
    st.busy = false;
    st.busyTime += st.passTime;
    ++st.next;
    if (!pass.forward)
    {
        --st.inFlight;
    }
    const bool sends = pass.forward ? stage + 1 < m_stages : stage > 0;
    if (sends)
    {
        const uint32_t to = pass.forward ? stage + 1 : stage - 1;
        const uint64_t bytes =
            pass.forward || m_gradientBytes == 0 ? m_activationBytes : m_gradientBytes;
        m_comm->Send(stage,
                     to,
                     bytes,
                     0,
                     MakeCallback(&PipelineParallelApplication::OnArrival,
                                  this,
                                  to,
                                  pass.microbatch,
                                  pass.forward,
                                  Simulator::Now()));
    }
    if (st.next == st.passes.size() && --m_stagesLeft == 0)
    {
        EndIteration();
        return;
    }
    TryRun(stage);
}

void
PipelineParallelApplication::OnArrival(uint32_t stage,
                                       uint32_t microbatch,
                                       bool forward,
                                       Time posted)
{
    NS_LOG_FUNCTION(this << stage << microbatch << forward);
    const Time latency = Simulator::Now() - posted;
    m_transferLatency.Add(latency.GetSeconds());
    m_transferTrace(forward ? stage - 1 : stage + 1, stage, microbatch, latency);
    (forward ? m_stage[stage].activationIn : m_stage[stage].gradientIn)[microbatch] = true;
    TryRun(stage);
}

} // namespace ns3
