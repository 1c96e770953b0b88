/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_TRAINING_JOB_APPLICATION_H
#define AI_FABRIC_TRAINING_JOB_APPLICATION_H

#include "job-layout.h"
#include "pipeline-schedule.h"
#include "sample-statistics.h"
#include "training-application.h"

#include "ns3/event-id.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <tuple>
#include <vector>

namespace ns3
{

class CollectiveOperation;
struct CollectiveResult;
class ExpertGating;
class JobCommunicators;
class TransformerModel;
class UniformRandomVariable;

/**
 * \ingroup ai-fabric
 * \brief One training job that combines tensor, pipeline, expert and data
 * parallelism on a JobLayout, iterating a TransformerModel as Megatron-LM does.
 *
 * The job's GPUs form pp x dp *stage replicas*: the TP group of one (pipeline stage,
 * data-parallel index), which computes in lock step. Each stage holds Layers / pp
 * consecutive layers (the last stage also the output layer). An iteration is
 * Microbatches microbatches, each forward then backward through every stage, in the
 * order of the Schedule (1F1B by default). In one pass of one microbatch a stage
 * replica runs its layers (backward: in reverse), and every layer has two blocks:
 *
 * - attention: compute, then (tp > 1) an AllReduce of the activation over the TP
 *   group (a ReduceScatter and an AllGather with SequenceParallel);
 * - MLP, in a dense layer: the same;
 * - MLP, in an MoE layer: each GPU routes its share (1 / tp) of the microbatch's
 *   tokens to TopK experts of its EP group (ExpertParallel GPUs of one stage, E / ep
 *   experts each; routing drawn by the Gating once per iteration, MoE layer and EP
 *   group), a dispatch AlltoAllv of the tokens' hidden states, expert compute for the
 *   tokens each GPU received, the combine AlltoAllv back, then (tp > 1) an AllGather
 *   of the activation over the TP group. The backward pass moves the same bytes.
 *   EP groups span stage replicas, so the dispatch starts when every replica of the
 *   group has reached it.
 *
 * Compute: a block's floating-point operations (TransformerModel), divided among the
 * TP group, at GpuFlopRate FLOP/s (the slowest GPU of the replica, with its
 * GpuCompute slowdown). Collectives and compute do not overlap inside a stage, as
 * in Megatron without communication overlap.
 *
 * Pipeline: at the end of a pass, each TP rank sends its 1 / tp of the activation
 * (forward) or of its gradient (backward) to the same TP rank of the next (previous)
 * stage (Megatron's scatter-gather), over the PP group; a pass starts once all tp
 * pieces of its input have arrived. Sends overlap compute.
 *
 * Data parallel: gradients are AllReduced over each DP group (dense parameters) and
 * each expert data parallel group (experts), in buckets of BucketBytes per GPU
 * filled in backward order during a stage's last backward pass: a bucket starts when
 * its last layer's gradients are ready, on every replica of the stage
 * (OverlapGradientReduce, as Megatron's --overlap-grad-reduce; otherwise every bucket
 * at the end of the pass). A stage replica's iteration ends when its passes and its
 * buckets are done; the job's when every replica's has.
 *
 * Per GPU gradients: (attention + dense MLP parameters of the stage's layers, plus
 * the input embedding on stage 0 and the output layer on the last) / tp, and
 * (E / ep) x expert parameters per MoE layer, each x GradientBytesPerElement.
 */
class TrainingJobApplication : public TrainingApplication
{
  public:
    /// Communication of one kind of parallelism, for metrics and the trace.
    enum Traffic : uint8_t
    {
        TP_TRAFFIC = 0, //!< tensor parallel collectives
        PP_TRAFFIC = 1, //!< stage-to-stage sends
        EP_TRAFFIC = 2, //!< MoE dispatch and combine
        DP_TRAFFIC = 3, //!< gradient AllReduce (dense and expert)
    };

    /// Kinds of Traffic.
    static constexpr uint32_t N_TRAFFIC = 4;

    /**
     * TracedCallback signature for Collective: a collective of the job finished.
     * \param traffic the Traffic it is (a Traffic value)
     * \param result its result
     */
    typedef void (*CollectiveTracedCallback)(uint32_t traffic, const CollectiveResult& result);

    /// \return the TypeId
    static TypeId GetTypeId();
    TrainingJobApplication();
    ~TrainingJobApplication() override;

    /**
     * The job's layout and communicators, before SetCommunicator (TrainingJobHelper
     * does both).
     * \param job the job's layout and communicators, built (JobLayoutHelper::Install
     *        builds them; GetJobCommunicators)
     */
    void SetJob(const JobCommunicators& job);

    /**
     * \param stream first random stream index to use (the routing draws)
     * \return the number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

    /// \return the model
    Ptr<TransformerModel> GetModel() const;
    /// \return the layout
    Ptr<JobLayout> GetLayout() const;
    /// \param stage a pipeline stage \return its share of idle time, over its replicas
    double GetBubbleFraction(uint32_t stage) const;
    /// \param traffic a Traffic \return the durations of its operations, in seconds
    /// (PP: each send's latency)
    const SampleStatistics& GetOperationTimes(Traffic traffic) const;
    /// \param traffic a Traffic \return the bytes its operations moved in completed
    /// iterations (collectives: S, as nccl-tests counts it, summed; PP: bytes sent)
    uint64_t GetBytes(Traffic traffic) const;
    /// \return per routing draw: max / mean tokens per expert
    const SampleStatistics& GetExpertImbalance() const;
    /// \return per iteration: time from the end of the last backward pass to the
    /// end of the iteration (gradient reduction not hidden behind compute), seconds
    const SampleStatistics& GetExposedGradientTime() const;
    /// \return dense gradient bytes one GPU of the stage reduces per iteration
    /// \param stage a pipeline stage
    uint64_t GetDenseGradientBytes(uint32_t stage) const;
    /// \return expert gradient bytes one GPU of the stage reduces per iteration
    /// \param stage a pipeline stage
    uint64_t GetExpertGradientBytes(uint32_t stage) const;
    /// \return the compute time of one microbatch's forward and backward on a stage
    /// replica at full speed, for an even routing (ideal: an MoE GPU gets its share)
    /// \param stage a pipeline stage
    Time GetStageComputeTime(uint32_t stage) const;
    /// \return model FLOPs of one iteration (TransformerModel, x microbatches x dp)
    double GetIterationFlops() const;

    /**
     * One iteration as a graph per GPU (job rank), replaying as the job runs: per
     * pass, after the receive of its input, every block's compute and TP collectives;
     * per MoE block the dispatch AlltoAllv over the GPU's EP group, the expert
     * compute and the combine AlltoAllv, with (TP > 1) a Barrier of the EP set
     * (the stage replicas of the EP group, every TP rank) before the dispatch, the
     * compute and the combine, since the job starts each when the whole set is ready;
     * the pass's send; the gradient buckets' AllReduces where they start. The routing
     * is the iteration's under way or last run; before the run, the first
     * iteration's, drawn now (the run keeps it).
     * \param graph filled and linked
     * \return "" or the graph's problem
     */
    std::string DescribeIteration(WorkloadGraph& graph) override;

  protected:
    /// Release the model, layout, group communicators, schedule, gating, random stream, replicas
    /// and rendezvous.
    void DoDispose() override;
    void DoSetup() override;
    void DoStartIteration() override;
    void AddResults(nlohmann::json& results) const override;

  private:
    class IterationGraph; // DescribeIteration's graph, built replica by replica

    /// A block of a layer.
    enum BlockKind : uint8_t
    {
        ATTENTION, //!< attention, then a TP collective
        MLP,       //!< dense MLP, then a TP collective
        MOE,       //!< dispatch, experts, combine, TP AllGather
        OUTPUT,    //!< output layer (last stage), compute only
    };

    /// One block of a stage's forward pass.
    struct Block
    {
        BlockKind kind;             //!< what it is
        uint32_t layer;             //!< model layer (OUTPUT: Layers)
        Time forwardTime;           //!< compute of one microbatch forward (MOE: 0)
        uint64_t denseGradient{0};  //!< per GPU, ready after its backward (bytes)
        uint64_t expertGradient{0}; //!< per GPU, ready after its backward (bytes)
    };

    /// One (stage, dp index): a TP group computing in lock step.
    struct Replica
    {
        uint32_t stage{0};                          //!< pipeline stage
        uint32_t dp{0};                             //!< data parallel index
        Ptr<Communicator> tp;                       //!< its TP group
        std::vector<PipelineSchedule::Pass> passes; //!< its stage's schedule
        uint32_t next{0};                           //!< next pass
        uint32_t block{0};                          //!< block of the current pass
        bool busy{false};                           //!< in a pass
        bool gathering{false};                      //!< sequence parallel: AllGather due
        std::vector<uint32_t> activationIn;         //!< per microbatch: pieces arrived
        std::vector<uint32_t> gradientIn;           //!< per microbatch: pieces arrived
        Time passStart;                             //!< current pass's start
        Time busyTime;                              //!< in passes, completed iterations
        Time busyThisIteration;                     //!< in passes, this iteration
        uint32_t moeSeen{0};                        //!< MoE blocks reached this iteration
        uint64_t denseBucket{0};                    //!< gradient bytes not yet in a bucket
        uint64_t expertBucket{0};                   //!< expert gradient bytes not yet in one
        uint32_t denseBuckets{0};                   //!< dense buckets started
        uint32_t expertBuckets{0};                  //!< expert buckets started
        uint32_t bucketsLeft{0};                    //!< buckets started, not done
        bool passesDone{false};                     //!< every pass of the iteration done
    };

    /// Replicas waiting for each other: when the last arrives, the action runs.
    struct Rendezvous
    {
        uint32_t arrived{0};        //!< replicas arrived
        std::function<void()> then; //!< what the last one starts
    };

    /// A gradient bucket being reduced: one AllReduce per TP rank.
    struct Bucket
    {
        std::vector<uint32_t> replicas; //!< the replicas that reduce it
        uint32_t opsLeft{0};            //!< AllReduce operations not done
    };

    /// Key of a Rendezvous: (kind, group, sequence number).
    using RendezvousKey = std::tuple<uint32_t, uint32_t, uint32_t>;

    /// An MoE block in progress on one EP set (the replicas of one EP group).
    struct MoeStep
    {
        std::vector<uint32_t> replicas; //!< in EP rank order
        uint32_t layer{0};              //!< model layer
        bool forward{true};             //!< pass direction
        uint32_t opsLeft{0};            //!< AlltoAllv operations not done
        bool combining{false};          //!< in the combine
        /// per tp index: tokens[src EP rank][dst EP rank]
        std::vector<std::vector<std::vector<uint64_t>>> tokens;
    };

    /// \param stage a stage \param dp a dp index \return the replica's index
    uint32_t GetReplicaIndex(uint32_t stage, uint32_t dp) const;
    /// Run the replica's next pass if its input is there. \param r replica
    void TryRun(uint32_t r);
    /// Run the current block of the replica's pass. \param r replica
    void StartBlock(uint32_t r);
    /// The replica's compute of its block is over. \param r replica
    void ComputeDone(uint32_t r);
    /// Start a TP collective of the replica. \param r replica \param collective name
    void StartTensorCollective(uint32_t r, const std::string& collective);
    /// A TP collective finished. \param r replica \param result its result
    void TensorCollectiveDone(uint32_t r, const CollectiveResult& result);
    /// The replica's block is done: the next block, or the end of the pass. \param r
    void BlockDone(uint32_t r);
    /// The replica's pass is over. \param r replica
    void PassDone(uint32_t r);
    /// A stage-to-stage piece arrived. \param r receiving replica \param microbatch
    /// \param forward activation (else gradient) \param posted when it was sent
    void OnArrival(uint32_t r, uint32_t microbatch, bool forward, Time posted);
    /// A replica reached an MoE block. \param r replica
    void ArriveAtMoe(uint32_t r);
    /// Every replica of an EP set is at its MoE block. \param set EP set
    void StartMoe(uint32_t set);
    /// An AlltoAllv of an MoE step finished. \param set EP set \param result its result
    void MoeOperationDone(uint32_t set, const CollectiveResult& result);
    /// The experts of an MoE step computed. \param set EP set
    void MoeComputeDone(uint32_t set);
    /// Start an MoE step's AlltoAllv on every TP rank's EP group. \param set EP set
    /// \param combine the combine (the transposed matrix), else the dispatch
    void StartAlltoAllv(uint32_t set, bool combine);
    /// Draw the routing of one MoE layer on one EP set for this iteration.
    /// \param set EP set \param moeLayer index among the MoE layers
    void DrawRouting(uint32_t set, uint32_t moeLayer);
    /// Gradients of a replica are ready. \param r replica \param flush put the rest in
    /// a bucket
    void FillBuckets(uint32_t r, bool flush);
    /// Start (or join) a gradient bucket. \param r replica \param expert expert (else
    /// dense) gradients \param bytes per GPU
    void StartBucket(uint32_t r, bool expert, uint64_t bytes);
    /// One AllReduce of a bucket finished. \param id the bucket \param result its result
    void BucketOperationDone(uint32_t id, const CollectiveResult& result);
    /// Arrive at a rendezvous. \param key its key \param needed replicas that meet
    /// \param then what the last one starts
    void Arrive(const RendezvousKey& key, uint32_t needed, const std::function<void()>& then);
    /// Count a collective. \param traffic its Traffic \param result its result
    void CountCollective(Traffic traffic, const CollectiveResult& result);
    /// The replica may be done with the iteration. \param r replica
    void CheckReplicaDone(uint32_t r);
    /// \param flops floating-point operations \return their time at GpuFlopRate
    Time FlopsToTime(double flops) const;

    // Attributes
    Ptr<TransformerModel> m_model;      //!< Model
    uint32_t m_microbatches;            //!< Microbatches
    TypeId m_scheduleType;              //!< Schedule
    double m_gpuFlopRate;               //!< GpuFlopRate
    bool m_sequenceParallel;            //!< SequenceParallel
    uint32_t m_gradientBytesPerElement; //!< GradientBytesPerElement (0: model's)
    uint64_t m_bucketBytes;             //!< BucketBytes
    bool m_overlapGradientReduce;       //!< OverlapGradientReduce
    std::string m_gatingSpec;           //!< Gating

    // Layout
    Ptr<JobLayout> m_layout;                                                          //!< the job
    std::array<std::vector<Ptr<Communicator>>, JobLayout::N_DIMENSIONS> m_groupComms; //!< groups
    uint32_t m_tp{1};                                                                 //!< TP degree
    uint32_t m_pp{1};                                                                 //!< PP degree
    uint32_t m_dp{1};                                                                 //!< DP degree
    uint32_t m_ep{1};                                                                 //!< EP degree

    // State
    Ptr<PipelineSchedule> m_schedule;                 //!< the Schedule
    Ptr<ExpertGating> m_gating;                       //!< the Gating (MoE models)
    Ptr<UniformRandomVariable> m_rng;                 //!< routing draws
    std::vector<std::vector<Block>> m_blocks;         //!< per stage: forward blocks
    std::vector<Replica> m_replicas;                  //!< stage + pp x dp
    std::map<RendezvousKey, Rendezvous> m_rendezvous; //!< replicas waiting
    std::vector<MoeStep> m_moe;                       //!< per EP set
    std::vector<Bucket> m_buckets;                    //!< this iteration's, by id
    /// per EP set, MoE layer, tp index: this iteration's routing (empty: not drawn)
    std::vector<std::vector<std::vector<std::vector<std::vector<uint64_t>>>>> m_routing;
    bool m_routingDrawnAhead{false}; //!< DescribeIteration drew the next iteration's
    uint32_t m_tokensPerGpu{0};      //!< MoE tokens each GPU routes
    uint32_t m_replicasLeft{0};      //!< replicas not done this iteration
    Time m_lastPassEnd;              //!< the iteration's last pass end

    // Metrics
    std::array<SampleStatistics, N_TRAFFIC> m_operationTimes;            //!< per Traffic
    std::array<uint64_t, N_TRAFFIC> m_bytes{};                           //!< completed iterations
    std::array<uint64_t, N_TRAFFIC> m_iterationBytes{};                  //!< this iteration
    SampleStatistics m_expertImbalance;                                  //!< per draw
    SampleStatistics m_exposedGradient;                                  //!< per iteration
    TracedCallback<uint32_t, const CollectiveResult&> m_collectiveTrace; //!< Collective
    TracedCallback<uint32_t, uint32_t, uint32_t, Time> m_transferTrace;  //!< Transfer
};

} // namespace ns3

#endif /* AI_FABRIC_TRAINING_JOB_APPLICATION_H */
