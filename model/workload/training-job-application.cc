/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-job-application.h"

#include "expert-gating.h"
#include "job-communicators.h"
#include "one-f-one-b-schedule.h"
#include "pipeline-parallel-application.h"
#include "transformer-model.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/collective-operation.h"
#include "ns3/communicator.h"
#include "ns3/double.h"
#include "ns3/gpu-compute.h"
#include "ns3/log.h"
#include "ns3/pairwise-all-to-all-v.h"
#include "ns3/pointer.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"
#include "ns3/workload-graph.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingJobApplication");

NS_OBJECT_ENSURE_REGISTERED(TrainingJobApplication);

namespace
{

/// Rendezvous kinds.
enum RendezvousKind : uint32_t
{
    MOE_RENDEZVOUS = 0,          //!< an EP set at an MoE block
    DENSE_BUCKET_RENDEZVOUS = 1, //!< a stage's DP replicas at a dense bucket
    EXPERT_BUCKET_RENDEZVOUS = 2 //!< an EDP group's replicas at an expert bucket
};

/// \param traffic a Traffic value \return its name in results
const char*
TrafficName(uint32_t traffic)
{
    static const char* names[] = {"tp", "pp", "ep", "dp"};
    return names[traffic];
}

} // namespace

TypeId
TrainingJobApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TrainingJobApplication")
            .SetParent<TrainingApplication>()
            .SetGroupName("AiFabric")
            .AddConstructor<TrainingJobApplication>()
            .AddAttribute("Model",
                          "The TransformerModel trained (null: its defaults)",
                          PointerValue(),
                          MakePointerAccessor(&TrainingJobApplication::m_model),
                          MakePointerChecker<TransformerModel>())
            .AddAttribute("Microbatches",
                          "Microbatches per iteration, per data-parallel replica (>= 1)",
                          UintegerValue(8),
                          MakeUintegerAccessor(&TrainingJobApplication::m_microbatches),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Schedule",
                          "The PipelineSchedule subclass that orders each stage's passes",
                          TypeIdValue(OneFOneBSchedule::GetTypeId()),
                          MakeTypeIdAccessor(&TrainingJobApplication::m_scheduleType),
                          MakeTypeIdChecker())
            .AddAttribute("GpuFlopRate",
                          "Floating-point operations per second one GPU achieves (4e14: an "
                          "H100's 989 TFLOP/s dense BF16 peak at 40% utilisation)",
                          DoubleValue(4e14),
                          MakeDoubleAccessor(&TrainingJobApplication::m_gpuFlopRate),
                          MakeDoubleChecker<double>())
            .AddAttribute("SequenceParallel",
                          "A ReduceScatter and an AllGather in place of each TP AllReduce",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TrainingJobApplication::m_sequenceParallel),
                          MakeBooleanChecker())
            .AddAttribute("GradientBytesPerElement",
                          "Bytes of one gradient element reduced over DP (0: the model's "
                          "BytesPerElement)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TrainingJobApplication::m_gradientBytesPerElement),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("BucketBytes",
                          "Gradient bytes per GPU in one DP AllReduce bucket (80 MB: "
                          "Megatron's 40 M-parameter buckets of bf16)",
                          UintegerValue(80000000),
                          MakeUintegerAccessor(&TrainingJobApplication::m_bucketBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("OverlapGradientReduce",
                          "Start each gradient bucket as soon as it is full during the last "
                          "backward pass (else all at the end of it)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TrainingJobApplication::m_overlapGradientReduce),
                          MakeBooleanChecker())
            .AddAttribute("Gating",
                          "The MoE gate: an ExpertGating TypeId name with its attributes, "
                          "e.g. ns3::ZipfGating[Exponent=1.2]",
                          StringValue("ns3::UniformGating"),
                          MakeStringAccessor(&TrainingJobApplication::m_gatingSpec),
                          MakeStringChecker())
            .AddTraceSource("Collective",
                            "A collective of the job finished (its traffic kind and result)",
                            MakeTraceSourceAccessor(&TrainingJobApplication::m_collectiveTrace),
                            "ns3::TrainingJobApplication::CollectiveTracedCallback")
            .AddTraceSource("Transfer",
                            "Activations or gradients arrived at a stage (one TP rank's piece)",
                            MakeTraceSourceAccessor(&TrainingJobApplication::m_transferTrace),
                            "ns3::PipelineParallelApplication::TransferTracedCallback");
    return tid;
}

TrainingJobApplication::TrainingJobApplication()
{
    NS_LOG_FUNCTION(this);
    m_rng = CreateObject<UniformRandomVariable>();
}

TrainingJobApplication::~TrainingJobApplication() = default;

void
TrainingJobApplication::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_model = nullptr;
    m_layout = nullptr;
    for (auto& comms : m_groupComms)
    {
        comms.clear();
    }
    m_schedule = nullptr;
    m_gating = nullptr;
    m_rng = nullptr;
    m_replicas.clear();
    m_rendezvous.clear();
    TrainingApplication::DoDispose();
}

void
TrainingJobApplication::SetJob(const JobCommunicators& job)
{
    NS_LOG_FUNCTION(this);
    m_layout = job.GetLayout();
    NS_ABORT_MSG_IF(!m_layout,
                    "TrainingJobApplication: SetJob before the job's communicators are built "
                    "(JobLayoutHelper::Install)");
    for (uint32_t d = 0; d < JobLayout::N_DIMENSIONS; ++d)
    {
        const auto dimension = static_cast<JobLayout::Dimension>(d);
        m_groupComms[d].clear();
        for (uint32_t g = 0; g < m_layout->GetNGroups(dimension); ++g)
        {
            m_groupComms[d].push_back(job.GetGroupCommunicator(dimension, g));
        }
    }
}

int64_t
TrainingJobApplication::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    m_rng->SetStream(stream);
    return 1;
}

Ptr<TransformerModel>
TrainingJobApplication::GetModel() const
{
    return m_model;
}

Ptr<JobLayout>
TrainingJobApplication::GetLayout() const
{
    return m_layout;
}

Time
TrainingJobApplication::FlopsToTime(double flops) const
{
    return Seconds(flops / m_gpuFlopRate);
}

uint32_t
TrainingJobApplication::GetReplicaIndex(uint32_t stage, uint32_t dp) const
{
    return stage + m_pp * dp;
}

void
TrainingJobApplication::DoSetup()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(!m_layout,
                    "TrainingJobApplication: SetJob must come before SetCommunicator "
                    "(TrainingJobHelper does both)");
    NS_ABORT_MSG_IF(m_comm->GetSize() != m_layout->GetNGpus(),
                    "TrainingJobApplication: the communicator has "
                        << m_comm->GetSize() << " ranks, the job " << m_layout->GetNGpus()
                        << " GPUs");
    // The job fails when any of its groups' communicators does.
    for (const auto& comms : m_groupComms)
    {
        for (const Ptr<Communicator>& comm : comms)
        {
            WatchCommunicator(comm);
        }
    }
    if (!m_model)
    {
        m_model = CreateObject<TransformerModel>();
    }
    const std::string problem = m_model->FindProblem();
    NS_ABORT_MSG_IF(!problem.empty(), "TrainingJobApplication: " << problem);
    m_tp = m_layout->GetDegree(JobLayout::TENSOR);
    m_pp = m_layout->GetDegree(JobLayout::PIPELINE);
    m_dp = m_layout->GetDegree(JobLayout::DATA);
    m_ep = m_layout->GetDegree(JobLayout::EXPERT);
    const TransformerModel& model = *m_model;
    NS_ABORT_MSG_IF(m_microbatches < 1,
                    "TrainingJobApplication: Microbatches " << m_microbatches
                                                            << " must be at least 1");
    NS_ABORT_MSG_IF(!(m_gpuFlopRate > 0) || std::isinf(m_gpuFlopRate),
                    "TrainingJobApplication: GpuFlopRate " << m_gpuFlopRate
                                                           << " must be above 0 and finite");
    NS_ABORT_MSG_IF(m_bucketBytes < 1,
                    "TrainingJobApplication: BucketBytes " << m_bucketBytes
                                                           << " must be at least 1");
    NS_ABORT_MSG_IF(model.GetLayers() % m_pp != 0,
                    "TrainingJobApplication: the model's Layers "
                        << model.GetLayers() << " is not a multiple of PipelineParallel " << m_pp);
    NS_ABORT_MSG_IF(model.GetExperts() == 0 && m_ep > 1,
                    "TrainingJobApplication: ExpertParallel " << m_ep
                                                              << " for a model with no experts");
    NS_ABORT_MSG_IF(model.GetExperts() % m_ep != 0,
                    "TrainingJobApplication: ExpertParallel "
                        << m_ep << " does not divide the model's Experts " << model.GetExperts());
    NS_ABORT_MSG_IF(model.GetExperts() > 0 && model.GetTokensPerMicrobatch() % m_tp != 0,
                    "TrainingJobApplication: TensorParallel "
                        << m_tp << " does not divide the microbatch's "
                        << model.GetTokensPerMicrobatch() << " tokens (MoE routing)");
    NS_ABORT_MSG_IF(!m_scheduleType.IsChildOf(PipelineSchedule::GetTypeId()) ||
                        !m_scheduleType.HasConstructor(),
                    "TrainingJobApplication: Schedule " << m_scheduleType.GetName()
                                                        << " is not a PipelineSchedule");
    ObjectFactory scheduleFactory;
    scheduleFactory.SetTypeId(m_scheduleType);
    m_schedule = scheduleFactory.Create<PipelineSchedule>();
    if (model.GetExperts() > 0)
    {
        m_gating = ExpertGating::CreateFromSpec(m_gatingSpec, "TrainingJobApplication");
        m_gating->Setup(model.GetExperts());
        if (m_ep > 1)
        {
            Ptr<CollectiveOperation> probe = CreateOperation("AlltoAllv");
            NS_ABORT_MSG_IF(!DynamicCast<PairwiseAlltoAllv>(probe),
                            "TrainingJobApplication: the AlltoAllv algorithm "
                                << probe->GetInstanceTypeId().GetName()
                                << " is not a PairwiseAlltoAllv (it takes no matrix)");
        }
    }
    m_tokensPerGpu = static_cast<uint32_t>(model.GetTokensPerMicrobatch() / m_tp);

    // Each stage's blocks, forward order; per GPU compute and gradient bytes.
    const uint64_t gradientBytes =
        m_gradientBytesPerElement == 0 ? model.GetBytesPerElement() : m_gradientBytesPerElement;
    const double tokens = static_cast<double>(model.GetTokensPerMicrobatch());
    const uint32_t layersPerStage = model.GetLayers() / m_pp;
    m_blocks.assign(m_pp, {});
    for (uint32_t stage = 0; stage < m_pp; ++stage)
    {
        std::vector<Block>& blocks = m_blocks[stage];
        for (uint32_t l = stage * layersPerStage; l < (stage + 1) * layersPerStage; ++l)
        {
            blocks.push_back({ATTENTION,
                              l,
                              FlopsToTime(model.GetAttentionForwardFlops() / m_tp),
                              model.GetAttentionParameters() / m_tp * gradientBytes,
                              0});
            if (model.IsMoeLayer(l))
            {
                blocks.push_back(
                    {MOE,
                     l,
                     Time(0),
                     0,
                     model.GetExperts() / m_ep * model.GetMlpParameters() * gradientBytes});
            }
            else
            {
                blocks.push_back({MLP,
                                  l,
                                  FlopsToTime(tokens * model.GetMlpForwardFlopsPerToken() / m_tp),
                                  model.GetMlpParameters() / m_tp * gradientBytes,
                                  0});
            }
        }
        // The input embedding's gradients are ready last (after layer 0's backward).
        if (stage == 0)
        {
            blocks.front().denseGradient += model.GetEmbeddingParameters() / m_tp * gradientBytes;
        }
        if (stage + 1 == m_pp)
        {
            blocks.push_back({OUTPUT,
                              model.GetLayers(),
                              FlopsToTime(model.GetOutputForwardFlops() / m_tp),
                              model.GetEmbeddingParameters() / m_tp * gradientBytes,
                              0});
        }
    }

    m_replicas.assign(m_pp * m_dp, Replica());
    for (uint32_t dp = 0; dp < m_dp; ++dp)
    {
        for (uint32_t stage = 0; stage < m_pp; ++stage)
        {
            Replica& rep = m_replicas[GetReplicaIndex(stage, dp)];
            rep.stage = stage;
            rep.dp = dp;
            const uint32_t gpu = m_layout->GetGpu(0, stage, dp);
            rep.tp =
                m_groupComms[JobLayout::TENSOR][m_layout->GetGroupIndex(JobLayout::TENSOR, gpu)];
            rep.passes = m_schedule->GetPasses(m_pp, m_microbatches, stage);
            NS_ABORT_MSG_IF(rep.passes.size() != 2 * m_microbatches || rep.passes.back().forward,
                            "TrainingJobApplication: Schedule "
                                << m_scheduleType.GetName() << " gives stage " << stage << " "
                                << rep.passes.size() << " passes, not 2 x " << m_microbatches
                                << " ending with a backward pass");
        }
    }
    // EP sets: set stage + pp x (dp / ep) holds replicas dp = k ep .. k ep + ep - 1.
    m_moe.assign(m_pp * (m_dp / m_ep), MoeStep());
    for (uint32_t set = 0; set < m_moe.size(); ++set)
    {
        const uint32_t stage = set % m_pp;
        const uint32_t first = set / m_pp * m_ep;
        for (uint32_t e = 0; e < m_ep; ++e)
        {
            m_moe[set].replicas.push_back(GetReplicaIndex(stage, first + e));
        }
    }
    NS_LOG_LOGIC(m_layout->ToString()
                 << ", " << m_replicas.size() << " stage replicas, " << m_blocks.front().size()
                 << " blocks on stage 0, " << m_moe.size() << " EP sets");
}

void
TrainingJobApplication::DoStartIteration()
{
    NS_LOG_FUNCTION(this << GetIteration());
    for (Replica& rep : m_replicas)
    {
        rep.next = 0;
        rep.block = 0;
        rep.busy = false;
        rep.gathering = false;
        rep.activationIn.assign(m_microbatches, 0);
        rep.gradientIn.assign(m_microbatches, 0);
        rep.busyThisIteration = Time(0);
        rep.moeSeen = 0;
        rep.denseBucket = 0;
        rep.expertBucket = 0;
        rep.denseBuckets = 0;
        rep.expertBuckets = 0;
        rep.bucketsLeft = 0;
        rep.passesDone = false;
    }
    if (!m_routingDrawnAhead)
    {
        m_routing.assign(m_moe.size(), decltype(m_routing)::value_type(m_model->GetMoeLayers()));
    }
    m_routingDrawnAhead = false;
    m_buckets.clear();
    m_iterationBytes.fill(0);
    m_replicasLeft = static_cast<uint32_t>(m_replicas.size());
    m_lastPassEnd = Simulator::Now();
    for (uint32_t r = 0; r < m_replicas.size(); ++r)
    {
        TryRun(r);
    }
}

/**
 * DescribeIteration's graph, built one stage replica at a time: per GPU a chain of
 * nodes (each waits for the one before), with receives, sends and gradient buckets
 * beside it, in the order and with the sizes the job uses.
 */
class TrainingJobApplication::IterationGraph
{
  public:
    /**
     * Begin the graph: the kinds of traffic, and every EP set's group.
     * \param job the job (set up, its routing drawn) \param graph the graph
     */
    IterationGraph(const TrainingJobApplication& job, WorkloadGraph& graph)
        : m_job(job),
          m_graph(graph),
          m_last(job.m_comm->GetSize(), NONE),
          m_input(job.m_tp, NONE)
    {
        job.BeginGraph(graph, "job");
        for (uint32_t k = 0; k < N_TRAFFIC; ++k)
        {
            m_traffic[k] = graph.AddTraffic(TrafficName(k));
        }
        m_barrierTraffic = graph.AddTraffic("ep barrier");
        for (const MoeStep& set : job.m_moe)
        {
            std::vector<uint32_t> ranks;
            for (uint32_t r : set.replicas)
            {
                for (uint32_t t = 0; t < job.m_tp; ++t)
                {
                    ranks.push_back(GetRank(t, job.m_replicas[r].stage, job.m_replicas[r].dp));
                }
            }
            m_setGroup.push_back(
                graph.AddGroup(ranks, "EP set " + std::to_string(m_setGroup.size())));
        }
    }

    /// Add every node of a stage replica's GPUs. \param replica the replica
    void AddReplica(uint32_t replica)
    {
        const Replica& rep = m_job.m_replicas[replica];
        const std::vector<Block>& blocks = m_job.m_blocks[rep.stage];
        m_dense = 0;
        m_expert = 0;
        for (uint32_t p = 0; p < rep.passes.size(); ++p)
        {
            const PipelineSchedule::Pass& pass = rep.passes[p];
            AddMessages(rep, pass, WorkloadNode::RECV);
            for (uint32_t b = 0; b < blocks.size(); ++b)
            {
                const Block& block = blocks[pass.forward ? b : blocks.size() - 1 - b];
                for (uint32_t t = 0; t < m_job.m_tp; ++t)
                {
                    AddBlock(rep, pass, block, t);
                }
                // Gradients count once, in the last (backward) pass, as BlockDone does.
                if (p + 1 == rep.passes.size())
                {
                    m_dense += block.denseGradient;
                    m_expert += block.expertGradient;
                    if (m_job.m_overlapGradientReduce)
                    {
                        AddBuckets(rep, false);
                    }
                }
            }
            AddMessages(rep, pass, WorkloadNode::SEND);
        }
        AddBuckets(rep, true);
    }

  private:
    static constexpr uint64_t NONE = UINT64_MAX; //!< no node

    /// \param t TP index \param stage stage \param dp DP index \return the GPU's rank
    uint32_t GetRank(uint32_t t, uint32_t stage, uint32_t dp) const
    {
        return m_job.m_layout->GetJobIndex(m_job.m_layout->GetGpu(t, stage, dp));
    }

    /// \param dimension a dimension \param rank a GPU \return the graph's group of
    /// the GPU's group of that dimension (added on first use)
    uint32_t GetGroup(JobLayout::Dimension dimension, uint32_t rank)
    {
        std::vector<uint32_t>& known = m_groupOf[dimension];
        if (known.empty())
        {
            known.assign(m_job.m_comm->GetSize(), UINT32_MAX);
        }
        if (known[rank] != UINT32_MAX)
        {
            return known[rank];
        }
        const JobLayout& layout = *m_job.m_layout;
        const uint32_t group = layout.GetGroupIndex(dimension, layout.GetGpus()[rank]);
        std::vector<uint32_t> ranks;
        for (uint32_t gpu : layout.GetGroup(dimension, group))
        {
            ranks.push_back(layout.GetJobIndex(gpu));
        }
        const uint32_t index =
            m_graph.AddGroup(ranks,
                             JobLayout::GetDimensionName(dimension) + " " + std::to_string(group));
        for (uint32_t member : ranks)
        {
            known[member] = index;
        }
        return index;
    }

    /**
     * Add a node to a rank, after its last node on the chain and, if it is the first
     * of a pass, the receive of the pass's input.
     * \param rank the rank \param node the node \param chain whether the next node
     * waits for it (not for sends and buckets, which run beside the chain)
     * \param t the rank's TP index
     */
    void Add(uint32_t rank, WorkloadNode node, uint32_t t, bool chain = true)
    {
        std::vector<WorkloadNode>& nodes = m_graph.nodes[rank];
        node.id = nodes.size();
        if (m_last[rank] != NONE)
        {
            node.deps.push_back(m_last[rank]);
        }
        if (chain && m_input[t] != NONE)
        {
            node.deps.push_back(m_input[t]);
            m_input[t] = NONE;
        }
        if (chain)
        {
            m_last[rank] = node.id;
        }
        nodes.push_back(std::move(node));
    }

    /// \param label its name \param duration its time \return a compute node
    WorkloadNode Compute(const std::string& label, Time duration) const
    {
        WorkloadNode node;
        node.kind = WorkloadNode::COMPUTE;
        node.label = m_graph.AddLabel(label);
        node.duration = duration;
        return node;
    }

    /**
     * \param name the collective \param bytes S \param group its group
     * \param traffic its kind of traffic \return a collective node
     */
    WorkloadNode Collective(const std::string& name,
                            uint64_t bytes,
                            uint32_t group,
                            uint32_t traffic) const
    {
        WorkloadNode node;
        node.kind = WorkloadNode::COLLECTIVE;
        node.label = m_graph.AddLabel(name);
        node.collective = name;
        node.bytes = bytes;
        node.group = group;
        node.traffic = traffic;
        return node;
    }

    /**
     * The pass's receives (before it: each TP rank's 1 / tp of its input) or sends
     * (after it), as PassDone sends them.
     * \param rep the replica \param pass the pass \param kind RECV or SEND
     */
    void AddMessages(const Replica& rep,
                     const PipelineSchedule::Pass& pass,
                     WorkloadNode::Kind kind)
    {
        const bool up = pass.forward == (kind == WorkloadNode::SEND); // towards the last stage
        const bool has = up ? rep.stage + 1 < m_job.m_pp : rep.stage > 0;
        for (uint32_t t = 0; t < m_job.m_tp && has; ++t)
        {
            WorkloadNode m;
            m.kind = kind;
            m.label = m_graph.AddLabel((pass.forward ? "activation " : "gradient ") +
                                       std::to_string(pass.microbatch));
            m.bytes = std::max<uint64_t>(1, m_job.m_model->GetActivationBytes() / m_job.m_tp);
            m.peer = GetRank(t, up ? rep.stage + 1 : rep.stage - 1, rep.dp);
            m.tag = pass.forward ? 0 : 1; // each direction in microbatch order
            m.traffic = m_traffic[PP_TRAFFIC];
            const uint32_t rank = GetRank(t, rep.stage, rep.dp);
            if (kind == WorkloadNode::SEND)
            {
                Add(rank, m, t, false);
                continue;
            }
            m.id = m_graph.nodes[rank].size(); // waits for nothing; the pass waits for it
            m_input[t] = m.id;
            m_graph.nodes[rank].push_back(m);
        }
    }

    /**
     * One block of one pass on one TP rank of a replica.
     * \param rep the replica \param pass the pass \param block the block \param t TP index
     */
    void AddBlock(const Replica& rep,
                  const PipelineSchedule::Pass& pass,
                  const Block& block,
                  uint32_t t)
    {
        const TrainingJobApplication& job = m_job;
        const uint32_t rank = GetRank(t, rep.stage, rep.dp);
        const std::string layer = std::string(pass.forward ? "forward " : "backward ") +
                                  std::to_string(pass.microbatch) + " layer " +
                                  std::to_string(block.layer);
        const uint32_t tpGroup = GetGroup(JobLayout::TENSOR, rank);
        const uint64_t activation = job.m_model->GetActivationBytes();
        const uint32_t tpTraffic = m_traffic[TP_TRAFFIC];
        if (block.kind != MOE)
        {
            Add(rank,
                Compute(layer + (block.kind == OUTPUT ? " output" : ""),
                        pass.forward ? block.forwardTime : block.forwardTime * 2),
                t);
            if (block.kind != OUTPUT && job.m_tp > 1)
            {
                Add(rank,
                    Collective(job.m_sequenceParallel ? "ReduceScatter" : "AllReduce",
                               activation,
                               tpGroup,
                               tpTraffic),
                    t);
                if (job.m_sequenceParallel)
                {
                    Add(rank, Collective("AllGather", activation, tpGroup, tpTraffic), t);
                }
            }
            return;
        }
        const double perToken = job.m_model->GetMlpForwardFlopsPerToken() * (pass.forward ? 1 : 2);
        if (job.m_ep == 1)
        {
            // Every expert is local: each token computed TopK times.
            const double tokens = static_cast<double>(job.m_tokensPerGpu) * job.m_model->GetTopK();
            Add(rank, Compute(layer + " experts", job.FlopsToTime(tokens * perToken)), t);
        }
        else
        {
            AddExperts(rep, block, t, layer, perToken);
        }
        if (job.m_tp > 1)
        {
            Add(rank, Collective("AllGather", activation, tpGroup, tpTraffic), t);
        }
    }

    /**
     * An MoE block's dispatch, expert compute and combine on one TP rank of a
     * replica, with (tp > 1) a Barrier of its EP set before each: the job starts
     * each of them once the whole set is ready, across its TP ranks' EP groups.
     * \param rep the replica \param block the block \param t TP index
     * \param layer the nodes' name \param perToken FLOPs per token received
     */
    void AddExperts(const Replica& rep,
                    const Block& block,
                    uint32_t t,
                    const std::string& layer,
                    double perToken)
    {
        const TrainingJobApplication& job = m_job;
        const uint32_t rank = GetRank(t, rep.stage, rep.dp);
        const uint32_t set = rep.stage + job.m_pp * (rep.dp / job.m_ep);
        const uint32_t e = rep.dp % job.m_ep; // the replica's rank in its EP group
        const auto& tokens = job.m_routing[set][job.m_model->GetMoeLayerIndex(block.layer)][t];
        const auto barrier = [&]() {
            if (job.m_tp > 1)
            {
                Add(rank, Collective("Barrier", 0, m_setGroup[set], m_barrierTraffic), t);
            }
        };
        for (const bool combine : {false, true})
        {
            barrier();
            // The dispatch sends row e of the routing; the combine returns column e.
            WorkloadNode exchange = Collective("AlltoAllv",
                                               0,
                                               GetGroup(JobLayout::EXPERT, rank),
                                               m_traffic[EP_TRAFFIC]);
            exchange.label = m_graph.AddLabel(layer + (combine ? " combine" : " dispatch"));
            for (uint32_t peer = 0; peer < job.m_ep; ++peer)
            {
                const uint64_t count = combine ? tokens[peer][e] : tokens[e][peer];
                exchange.split.push_back(count * job.m_model->GetTokenBytes());
                exchange.bytes += exchange.split.back();
            }
            Add(rank, exchange, t);
            if (!combine)
            {
                barrier();
                uint64_t received = 0;
                for (const auto& row : tokens)
                {
                    received += row[e];
                }
                Add(rank,
                    Compute(layer + " experts",
                            job.FlopsToTime(static_cast<double>(received) * perToken)),
                    t);
            }
        }
    }

    /**
     * The gradient buckets due, as FillBuckets starts them: full buckets, dense then
     * expert; when flushing, then what is left, dense then expert. Each is an
     * AllReduce per TP rank, beside the chain.
     * \param rep the replica \param flush put the rest in a bucket too
     */
    void AddBuckets(const Replica& rep, bool flush)
    {
        const uint64_t size = m_job.m_bucketBytes;
        for (const bool expert : {false, true})
        {
            while ((expert ? m_expert : m_dense) >= size)
            {
                AddBucket(rep, expert, size);
            }
        }
        for (const bool expert : {false, true})
        {
            const uint64_t left = expert ? m_expert : m_dense;
            if (flush && left > 0)
            {
                AddBucket(rep, expert, left);
            }
        }
    }

    /**
     * \param rep the replica \param expert expert (else dense) gradients
     * \param bytes the bucket's, per GPU
     */
    void AddBucket(const Replica& rep, bool expert, uint64_t bytes)
    {
        (expert ? m_expert : m_dense) -= bytes;
        // Dense: every DP replica of the stage; expert: those holding the same experts.
        const uint32_t members = expert ? m_job.m_dp / m_job.m_ep : m_job.m_dp;
        const auto dimension = expert ? JobLayout::EXPERT_DATA : JobLayout::DATA;
        for (uint32_t t = 0; t < m_job.m_tp && members > 1; ++t)
        {
            const uint32_t rank = GetRank(t, rep.stage, rep.dp);
            Add(rank,
                Collective("AllReduce", bytes, GetGroup(dimension, rank), m_traffic[DP_TRAFFIC]),
                t,
                false);
        }
    }

    const TrainingJobApplication& m_job;         //!< the job
    WorkloadGraph& m_graph;                      //!< the graph
    std::array<uint32_t, N_TRAFFIC> m_traffic{}; //!< per Traffic: its index in the graph
    uint32_t m_barrierTraffic{0};                //!< the EP sets' barriers' kind
    std::vector<uint32_t> m_setGroup;            //!< per EP set: its group
    /// per dimension, per rank: its group in the graph (UINT32_MAX: not added yet)
    std::array<std::vector<uint32_t>, JobLayout::N_DIMENSIONS> m_groupOf;
    std::vector<uint64_t> m_last;  //!< per rank: its last node on the chain
    std::vector<uint64_t> m_input; //!< per TP index: the pass's receive
    uint64_t m_dense{0};           //!< gradient bytes not yet in a bucket
    uint64_t m_expert{0};          //!< expert gradient bytes not in one
};

std::string
TrainingJobApplication::DescribeIteration(WorkloadGraph& graph)
{
    NS_LOG_FUNCTION(this);
    if (m_model->GetExperts() > 0 && m_ep > 1)
    {
        if (m_routing.empty())
        {
            // Before the run: draw the first iteration's routing, which it keeps.
            m_routing.assign(m_moe.size(),
                             decltype(m_routing)::value_type(m_model->GetMoeLayers()));
            m_routingDrawnAhead = true;
        }
        for (uint32_t set = 0; set < m_moe.size(); ++set)
        {
            for (uint32_t layer = 0; layer < m_model->GetMoeLayers(); ++layer)
            {
                if (m_routing[set][layer].empty())
                {
                    DrawRouting(set, layer);
                }
            }
        }
    }
    IterationGraph builder(*this, graph);
    for (uint32_t r = 0; r < m_replicas.size(); ++r)
    {
        builder.AddReplica(r);
    }
    graph.description = {{"workload", "training job"},
                         {"layout", m_layout->ToString()},
                         {"microbatches", std::to_string(m_microbatches)}};
    return graph.Link();
}

void
TrainingJobApplication::TryRun(uint32_t r)
{
    NS_LOG_FUNCTION(this << r);
    Replica& rep = m_replicas[r];
    if (rep.busy || rep.next == rep.passes.size())
    {
        return;
    }
    const PipelineSchedule::Pass pass = rep.passes[rep.next];
    const bool ready = pass.forward
                           ? (rep.stage == 0 || rep.activationIn[pass.microbatch] == m_tp)
                           : (rep.stage + 1 == m_pp || rep.gradientIn[pass.microbatch] == m_tp);
    if (!ready)
    {
        NS_LOG_LOGIC("stage " << rep.stage << " replica " << rep.dp << " waits for the "
                              << (pass.forward ? "activations" : "gradients") << " of microbatch "
                              << pass.microbatch);
        return;
    }
    NS_LOG_LOGIC("stage " << rep.stage << " replica " << rep.dp << " starts "
                          << (pass.forward ? "forward" : "backward") << " of microbatch "
                          << pass.microbatch);
    rep.busy = true;
    rep.passStart = Simulator::Now();
    rep.block = 0;
    StartBlock(r);
}

void
TrainingJobApplication::StartBlock(uint32_t r)
{
    NS_LOG_FUNCTION(this << r);
    Replica& rep = m_replicas[r];
    const bool forward = rep.passes[rep.next].forward;
    const std::vector<Block>& blocks = m_blocks[rep.stage];
    const Block& block = blocks[forward ? rep.block : blocks.size() - 1 - rep.block];
    NS_LOG_FUNCTION(this << r << forward << block.kind << block.layer);
    if (block.kind == MOE)
    {
        ArriveAtMoe(r);
        return;
    }
    // The backward pass computes twice the forward's operations.
    const Time duration =
        rep.tp->GetSlowestComputeTime(forward ? block.forwardTime : block.forwardTime * 2);
    Simulator::Schedule(duration, &TrainingJobApplication::ComputeDone, this, r);
}

void
TrainingJobApplication::ComputeDone(uint32_t r)
{
    NS_LOG_FUNCTION(this << r);
    Replica& rep = m_replicas[r];
    const bool forward = rep.passes[rep.next].forward;
    const std::vector<Block>& blocks = m_blocks[rep.stage];
    const Block& block = blocks[forward ? rep.block : blocks.size() - 1 - rep.block];
    if (block.kind == OUTPUT || m_tp == 1)
    {
        BlockDone(r);
        return;
    }
    rep.gathering = false;
    StartTensorCollective(r, m_sequenceParallel ? "ReduceScatter" : "AllReduce");
}

void
TrainingJobApplication::StartTensorCollective(uint32_t r, const std::string& collective)
{
    NS_LOG_FUNCTION(this << r << collective);
    // The communicator keeps the operation alive until it finishes.
    CreateOperation(collective)
        ->Start(m_replicas[r].tp,
                m_model->GetActivationBytes(),
                MakeCallback(&TrainingJobApplication::TensorCollectiveDone, this, r));
}

void
TrainingJobApplication::TensorCollectiveDone(uint32_t r, const CollectiveResult& result)
{
    NS_LOG_FUNCTION(this << r << result.collective << result.GetDuration().As(Time::US));
    CountCollective(TP_TRAFFIC, result);
    Replica& rep = m_replicas[r];
    if (m_sequenceParallel && !rep.gathering)
    {
        NS_LOG_LOGIC("sequence parallel: AllGather after the ReduceScatter");
        rep.gathering = true;
        StartTensorCollective(r, "AllGather");
        return;
    }
    BlockDone(r);
}

void
TrainingJobApplication::BlockDone(uint32_t r)
{
    NS_LOG_FUNCTION(this << r);
    Replica& rep = m_replicas[r];
    const bool forward = rep.passes[rep.next].forward;
    const std::vector<Block>& blocks = m_blocks[rep.stage];
    const Block& block = blocks[forward ? rep.block : blocks.size() - 1 - rep.block];
    NS_LOG_FUNCTION(this << r << block.kind << block.layer);
    // Gradients count once, in the last (backward) pass of the iteration.
    if (!forward && rep.next + 1 == rep.passes.size())
    {
        rep.denseBucket += block.denseGradient;
        rep.expertBucket += block.expertGradient;
        if (m_overlapGradientReduce)
        {
            FillBuckets(r, false);
        }
    }
    if (++rep.block == blocks.size())
    {
        PassDone(r);
        return;
    }
    StartBlock(r);
}

void
TrainingJobApplication::PassDone(uint32_t r)
{
    Replica& rep = m_replicas[r];
    const PipelineSchedule::Pass pass = rep.passes[rep.next];
    NS_LOG_FUNCTION(this << r << pass.forward << pass.microbatch);
    rep.busy = false;
    rep.busyThisIteration += Simulator::Now() - rep.passStart;
    ++rep.next;
    const bool sends = pass.forward ? rep.stage + 1 < m_pp : rep.stage > 0;
    if (sends)
    {
        // Each TP rank sends its 1 / tp of the activation (or its gradient) to the same
        // TP rank of the neighbouring stage.
        const uint32_t to = pass.forward ? rep.stage + 1 : rep.stage - 1;
        const uint64_t bytes = std::max<uint64_t>(1, m_model->GetActivationBytes() / m_tp);
        const uint32_t target = GetReplicaIndex(to, rep.dp);
        for (uint32_t t = 0; t < m_tp; ++t)
        {
            const uint32_t gpu = m_layout->GetGpu(t, rep.stage, rep.dp);
            const Ptr<Communicator>& pp =
                m_groupComms[JobLayout::PIPELINE]
                            [m_layout->GetGroupIndex(JobLayout::PIPELINE, gpu)];
            m_iterationBytes[PP_TRAFFIC] += bytes;
            pp->Send(rep.stage,
                     to,
                     bytes,
                     0,
                     MakeCallback(&TrainingJobApplication::OnArrival,
                                  this,
                                  target,
                                  pass.microbatch,
                                  pass.forward,
                                  Simulator::Now()));
        }
    }
    if (rep.next == rep.passes.size())
    {
        FillBuckets(r, true);
        rep.passesDone = true;
        m_lastPassEnd = std::max(m_lastPassEnd, Simulator::Now());
        CheckReplicaDone(r);
        return;
    }
    TryRun(r);
}

void
TrainingJobApplication::OnArrival(uint32_t r, uint32_t microbatch, bool forward, Time posted)
{
    NS_LOG_FUNCTION(this << r << microbatch << forward);
    Replica& rep = m_replicas[r];
    const Time latency = Simulator::Now() - posted;
    m_operationTimes[PP_TRAFFIC].Add(latency.GetSeconds());
    m_transferTrace(forward ? rep.stage - 1 : rep.stage + 1, rep.stage, microbatch, latency);
    ++(forward ? rep.activationIn : rep.gradientIn)[microbatch];
    TryRun(r);
}

void
TrainingJobApplication::Arrive(const RendezvousKey& key,
                               uint32_t needed,
                               const std::function<void()>& then)
{
    NS_LOG_FUNCTION(this << needed);
    Rendezvous& rv = m_rendezvous[key];
    if (++rv.arrived < needed)
    {
        NS_LOG_LOGIC("rendezvous " << std::get<0>(key) << "/" << std::get<1>(key) << "/"
                                   << std::get<2>(key) << ": " << rv.arrived << " of " << needed);
        return;
    }
    m_rendezvous.erase(key);
    then();
}

void
TrainingJobApplication::ArriveAtMoe(uint32_t r)
{
    NS_LOG_FUNCTION(this << r);
    Replica& rep = m_replicas[r];
    const uint32_t set = rep.stage + m_pp * (rep.dp / m_ep);
    Arrive({MOE_RENDEZVOUS, set, rep.moeSeen++}, m_ep, [this, set]() { StartMoe(set); });
}

void
TrainingJobApplication::DrawRouting(uint32_t set, uint32_t moeLayer)
{
    NS_LOG_FUNCTION(this << set << moeLayer);
    const uint32_t experts = m_model->GetExperts();
    const uint32_t expertsPerRank = experts / m_ep;
    std::vector<uint32_t> route;
    auto& routing = m_routing[set][moeLayer];
    routing.assign(m_tp, std::vector<std::vector<uint64_t>>(m_ep, std::vector<uint64_t>(m_ep)));
    for (uint32_t t = 0; t < m_tp; ++t)
    {
        std::vector<uint64_t> expertTokens(experts, 0);
        m_gating->DrawIteration(m_rng);
        for (uint32_t src = 0; src < m_ep; ++src)
        {
            for (uint32_t token = 0; token < m_tokensPerGpu; ++token)
            {
                m_gating->Route(m_rng, m_model->GetTopK(), route);
                for (uint32_t e : route)
                {
                    ++expertTokens[e];
                    ++routing[t][src][e / expertsPerRank];
                }
            }
        }
        const uint64_t most = *std::max_element(expertTokens.begin(), expertTokens.end());
        const double mean = static_cast<double>(m_ep) * m_tokensPerGpu * m_model->GetTopK() /
                            static_cast<double>(experts);
        m_expertImbalance.Add(static_cast<double>(most) / mean);
    }
}

void
TrainingJobApplication::StartMoe(uint32_t set)
{
    NS_LOG_FUNCTION(this << set);
    MoeStep& step = m_moe[set];
    const Replica& first = m_replicas[step.replicas.front()];
    const std::vector<Block>& blocks = m_blocks[first.stage];
    step.forward = first.passes[first.next].forward;
    step.layer = blocks[step.forward ? first.block : blocks.size() - 1 - first.block].layer;
    step.combining = false;
    NS_LOG_FUNCTION(this << set << step.layer << step.forward);
    if (m_ep == 1)
    {
        // Every expert is local: no dispatch; the GPU computes each of its tokens TopK
        // times.
        step.tokens.assign(m_tp, {{uint64_t{m_tokensPerGpu} * m_model->GetTopK()}});
        MoeOperationDone(set, CollectiveResult());
        return;
    }
    const uint32_t moeLayer = m_model->GetMoeLayerIndex(step.layer);
    if (m_routing[set][moeLayer].empty())
    {
        DrawRouting(set, moeLayer);
    }
    step.tokens = m_routing[set][moeLayer];
    StartAlltoAllv(set, false);
}

void
TrainingJobApplication::MoeOperationDone(uint32_t set, const CollectiveResult& result)
{
    NS_LOG_FUNCTION(this << set << result.GetDuration().As(Time::US));
    MoeStep& step = m_moe[set];
    if (m_ep > 1)
    {
        CountCollective(EP_TRAFFIC, result);
        if (--step.opsLeft > 0)
        {
            return;
        }
    }
    if (!step.combining)
    {
        // Every GPU computes for the tokens it received; the combine waits for the
        // slowest of the set.
        const double perToken = m_model->GetMlpForwardFlopsPerToken() * (step.forward ? 1 : 2);
        Time slowest;
        for (uint32_t e = 0; e < step.replicas.size(); ++e)
        {
            const Replica& rep = m_replicas[step.replicas[e]];
            for (uint32_t t = 0; t < m_tp; ++t)
            {
                uint64_t received = 0;
                for (const auto& row : step.tokens[t])
                {
                    received += row[e];
                }
                const Time nominal = FlopsToTime(static_cast<double>(received) * perToken);
                slowest = std::max(slowest, rep.tp->GetMember(t).compute->GetComputeTime(nominal));
            }
        }
        NS_LOG_LOGIC("EP set " << set << " experts compute " << slowest.As(Time::US));
        Simulator::Schedule(slowest, &TrainingJobApplication::MoeComputeDone, this, set);
        return;
    }
    const std::vector<uint32_t> replicas = step.replicas; // BlockDone may start the next step
    for (uint32_t r : replicas)
    {
        if (m_tp > 1)
        {
            // The layer's output, whole again on every TP rank.
            m_replicas[r].gathering = true;
            StartTensorCollective(r, "AllGather");
        }
        else
        {
            BlockDone(r);
        }
    }
}

void
TrainingJobApplication::MoeComputeDone(uint32_t set)
{
    NS_LOG_FUNCTION(this << set);
    MoeStep& step = m_moe[set];
    step.combining = true;
    if (m_ep == 1)
    {
        MoeOperationDone(set, CollectiveResult());
        return;
    }
    StartAlltoAllv(set, true);
}

void
TrainingJobApplication::StartAlltoAllv(uint32_t set, bool combine)
{
    NS_LOG_FUNCTION(this << set << combine);
    MoeStep& step = m_moe[set];
    const Replica& first = m_replicas[step.replicas.front()];
    step.opsLeft = m_tp;
    for (uint32_t t = 0; t < m_tp; ++t)
    {
        const uint32_t gpu = m_layout->GetGpu(t, first.stage, first.dp);
        const Ptr<Communicator>& ep =
            m_groupComms[JobLayout::EXPERT][m_layout->GetGroupIndex(JobLayout::EXPERT, gpu)];
        Ptr<CollectiveOperation> op = CreateOperation("AlltoAllv");
        Ptr<PairwiseAlltoAllv> v = DynamicCast<PairwiseAlltoAllv>(op);
        // The dispatch sends the drawn routings; the combine returns every token to
        // the GPU that sent it: the transpose.
        PairwiseAlltoAllv::Matrix bytes(m_ep, std::vector<uint64_t>(m_ep));
        for (uint32_t i = 0; i < m_ep; ++i)
        {
            for (uint32_t j = 0; j < m_ep; ++j)
            {
                bytes[i][j] = (combine ? step.tokens[t][j][i] : step.tokens[t][i][j]) *
                              m_model->GetTokenBytes();
            }
        }
        v->SetMatrix(bytes);
        op->Start(ep,
                  v->GetMatrixBytes(),
                  MakeCallback(&TrainingJobApplication::MoeOperationDone, this, set));
    }
}

void
TrainingJobApplication::FillBuckets(uint32_t r, bool flush)
{
    Replica& rep = m_replicas[r];
    NS_LOG_FUNCTION(this << r << flush << rep.denseBucket << rep.expertBucket);
    while (rep.denseBucket >= m_bucketBytes)
    {
        rep.denseBucket -= m_bucketBytes;
        StartBucket(r, false, m_bucketBytes);
    }
    while (rep.expertBucket >= m_bucketBytes)
    {
        rep.expertBucket -= m_bucketBytes;
        StartBucket(r, true, m_bucketBytes);
    }
    if (flush && rep.denseBucket > 0)
    {
        StartBucket(r, false, rep.denseBucket);
        rep.denseBucket = 0;
    }
    if (flush && rep.expertBucket > 0)
    {
        StartBucket(r, true, rep.expertBucket);
        rep.expertBucket = 0;
    }
}

void
TrainingJobApplication::StartBucket(uint32_t r, bool expert, uint64_t bytes)
{
    Replica& rep = m_replicas[r];
    NS_LOG_FUNCTION(this << r << expert << bytes);
    // Dense gradients: every DP replica of the stage; expert gradients: the replicas
    // holding the same experts (dp mod ep equal).
    const uint32_t members = expert ? m_dp / m_ep : m_dp;
    if (members == 1)
    {
        return; // nothing to reduce with
    }
    ++rep.bucketsLeft;
    const uint32_t stage = rep.stage;
    const uint32_t firstDp = expert ? rep.dp % m_ep : 0;
    const RendezvousKey key{expert ? EXPERT_BUCKET_RENDEZVOUS : DENSE_BUCKET_RENDEZVOUS,
                            stage + m_pp * firstDp,
                            expert ? rep.expertBuckets++ : rep.denseBuckets++};
    Arrive(key, members, [this, stage, firstDp, expert, bytes]() {
        const uint32_t id = static_cast<uint32_t>(m_buckets.size());
        Bucket bucket;
        for (uint32_t dp = firstDp; dp < m_dp; dp += expert ? m_ep : 1)
        {
            bucket.replicas.push_back(GetReplicaIndex(stage, dp));
        }
        bucket.opsLeft = m_tp;
        m_buckets.push_back(bucket);
        const JobLayout::Dimension dimension = expert ? JobLayout::EXPERT_DATA : JobLayout::DATA;
        NS_LOG_LOGIC("stage " << stage << ": " << (expert ? "expert" : "dense") << " bucket of "
                              << bytes << " B over " << bucket.replicas.size() << " replicas");
        for (uint32_t t = 0; t < m_tp; ++t)
        {
            const uint32_t gpu = m_layout->GetGpu(t, stage, firstDp);
            CreateOperation("AllReduce")
                ->Start(m_groupComms[dimension][m_layout->GetGroupIndex(dimension, gpu)],
                        bytes,
                        MakeCallback(&TrainingJobApplication::BucketOperationDone, this, id));
        }
    });
}

void
TrainingJobApplication::BucketOperationDone(uint32_t id, const CollectiveResult& result)
{
    NS_LOG_FUNCTION(this << id << result.GetDuration().As(Time::US));
    CountCollective(DP_TRAFFIC, result);
    Bucket& bucket = m_buckets[id];
    if (--bucket.opsLeft > 0)
    {
        return;
    }
    const std::vector<uint32_t> replicas = bucket.replicas;
    for (uint32_t r : replicas)
    {
        --m_replicas[r].bucketsLeft;
        CheckReplicaDone(r);
    }
}

void
TrainingJobApplication::CountCollective(Traffic traffic, const CollectiveResult& result)
{
    NS_LOG_FUNCTION(this << +traffic << result.bytes);
    m_operationTimes[traffic].Add(result.GetDuration().GetSeconds());
    m_iterationBytes[traffic] += result.bytes;
    m_collectiveTrace(traffic, result);
}

void
TrainingJobApplication::CheckReplicaDone(uint32_t r)
{
    NS_LOG_FUNCTION(this << r);
    Replica& rep = m_replicas[r];
    if (!rep.passesDone || rep.bucketsLeft > 0)
    {
        return;
    }
    rep.passesDone = false; // counted once
    NS_LOG_LOGIC("stage " << rep.stage << " replica " << rep.dp << " done");
    if (--m_replicasLeft > 0)
    {
        return;
    }
    m_exposedGradient.Add((Simulator::Now() - m_lastPassEnd).GetSeconds());
    for (uint32_t k = 0; k < N_TRAFFIC; ++k)
    {
        m_bytes[k] += m_iterationBytes[k];
    }
    for (Replica& each : m_replicas)
    {
        each.busyTime += each.busyThisIteration;
    }
    EndIteration();
}

double
TrainingJobApplication::GetBubbleFraction(uint32_t stage) const
{
    NS_ABORT_MSG_IF(stage >= m_pp, "TrainingJobApplication: stage " << stage << " of " << m_pp);
    Time total;
    for (Time t : GetIterationTimes())
    {
        total += t;
    }
    if (total.IsZero())
    {
        return 0;
    }
    double busy = 0;
    for (uint32_t dp = 0; dp < m_dp; ++dp)
    {
        busy += m_replicas[GetReplicaIndex(stage, dp)].busyTime.GetSeconds();
    }
    return 1.0 - busy / m_dp / total.GetSeconds();
}

const SampleStatistics&
TrainingJobApplication::GetOperationTimes(Traffic traffic) const
{
    return m_operationTimes[traffic];
}

uint64_t
TrainingJobApplication::GetBytes(Traffic traffic) const
{
    return m_bytes[traffic];
}

const SampleStatistics&
TrainingJobApplication::GetExpertImbalance() const
{
    return m_expertImbalance;
}

const SampleStatistics&
TrainingJobApplication::GetExposedGradientTime() const
{
    return m_exposedGradient;
}

uint64_t
TrainingJobApplication::GetDenseGradientBytes(uint32_t stage) const
{
    uint64_t bytes = 0;
    for (const Block& b : m_blocks.at(stage))
    {
        bytes += b.denseGradient;
    }
    return bytes;
}

uint64_t
TrainingJobApplication::GetExpertGradientBytes(uint32_t stage) const
{
    uint64_t bytes = 0;
    for (const Block& b : m_blocks.at(stage))
    {
        bytes += b.expertGradient;
    }
    return bytes;
}

Time
TrainingJobApplication::GetStageComputeTime(uint32_t stage) const
{
    Time forward;
    for (const Block& b : m_blocks.at(stage))
    {
        forward += b.kind == MOE
                       ? FlopsToTime(static_cast<double>(m_tokensPerGpu) * m_model->GetTopK() *
                                     m_model->GetMlpForwardFlopsPerToken())
                       : b.forwardTime;
    }
    return forward * 3;
}

double
TrainingJobApplication::GetIterationFlops() const
{
    return m_model->GetTrainingFlopsPerMicrobatch() * m_microbatches * m_dp;
}

void
TrainingJobApplication::AddResults(nlohmann::json& results) const
{
    NS_LOG_FUNCTION(this);
    results["layout"] = {{"tp", m_tp},
                         {"pp", m_pp},
                         {"dp", m_dp},
                         {"ep", m_ep},
                         {"summary", m_layout->ToString()}};
    // Which GPUs (global ranks) form each group, in group order; a GPU's rank in its
    // group is its position there (JobLayout::GetGroups).
    nlohmann::json groups = nlohmann::json::object();
    for (uint32_t d = 0; d < JobLayout::N_DIMENSIONS; ++d)
    {
        const auto dimension = static_cast<JobLayout::Dimension>(d);
        groups[JobLayout::GetDimensionName(dimension)] = m_layout->GetGroups(dimension);
    }
    results["layout"]["gpus"] = m_layout->GetGpus();
    results["layout"]["groups"] = groups;
    results["modelParameters"] = m_model->GetParameters();
    results["iterationFlops"] = GetIterationFlops();
    nlohmann::json stages = nlohmann::json::array();
    for (uint32_t s = 0; s < m_pp; ++s)
    {
        stages.push_back({{"stage", s},
                          {"bubbleFraction", GetBubbleFraction(s)},
                          {"computePerMicrobatch_us", GetStageComputeTime(s).GetSeconds() * 1e6},
                          {"denseGradientBytesPerGpu", GetDenseGradientBytes(s)},
                          {"expertGradientBytesPerGpu", GetExpertGradientBytes(s)}});
    }
    results["stages"] = stages;
    // Achieved model FLOP/s per GPU, as Megatron reports it.
    const double seconds = [this]() {
        double sum = 0;
        for (Time t : GetIterationTimes())
        {
            sum += t.GetSeconds();
        }
        return sum;
    }();
    results["flopsPerGpu"] =
        seconds > 0 ? GetIterationFlops() * GetIterationsDone() / seconds / m_layout->GetNGpus()
                    : 0.0;
    for (uint32_t k = 0; k < N_TRAFFIC; ++k)
    {
        SampleStatistics us;
        for (double x : m_operationTimes[k].GetSamples())
        {
            us.Add(x * 1e6);
        }
        results["traffic"][TrafficName(k)] = {{"operation_us", us.ToJson()}, {"bytes", m_bytes[k]}};
    }
    results["expertImbalance"] = m_expertImbalance.ToJson();
    SampleStatistics exposed;
    nlohmann::json perIteration = nlohmann::json::array();
    for (double x : m_exposedGradient.GetSamples())
    {
        exposed.Add(x * 1e6);
        perIteration.push_back(x * 1e6);
    }
    results["exposedGradient_us"] = exposed.ToJson();
    results["perIteration"]["exposedGradient_us"] = perIteration;
}

} // namespace ns3
