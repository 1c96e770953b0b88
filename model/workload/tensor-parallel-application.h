/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_TENSOR_PARALLEL_APPLICATION_H
#define AI_FABRIC_TENSOR_PARALLEL_APPLICATION_H

#include "sample-statistics.h"
#include "training-application.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <string>
#include <vector>

namespace ns3
{

class RandomVariableStream;
struct CollectiveResult;

/**
 * \ingroup ai-fabric
 * \brief Tensor parallelism (Megatron-LM): a group of T ranks (the communicator,
 * usually the GPUs of one server on its scale-up domain; across servers when T is
 * larger than a server) that splits every layer's matrices and exchanges
 * activations after each split block.
 *
 * An iteration runs Layers layers forward, then the same layers backward in reverse
 * order. Every layer has CollectivesPerLayer blocks (2 for a transformer layer:
 * attention and MLP); a block is a compute phase (ForwardTime forward,
 * BackwardTime backward, each plus a draw of ComputeJitter) followed by an
 * AllReduce of ActivationBytes on the group. With SequenceParallel the AllReduce is
 * replaced by a ReduceScatter and then an AllGather, each of ActivationBytes (as
 * nccl-tests counts S: the full buffer). Everything runs one after another: a TP
 * group's next compute needs the previous collective's result, so every collective is
 * on the critical path and, with no jitter,
 *
 *   iteration = Layers x CollectivesPerLayer x (ForwardTime +
 *               BackwardTime + 2 x t_op)
 *
 * t_op being one AllReduce (or one ReduceScatter plus one AllGather). The
 * collectives use the cluster's algorithms and their settings (Channels, ChunkSize:
 * CollectiveHelper::SetAlgorithmAttribute).
 *
 * Defaults follow Llama 2 7B (Touvron et al., 2023: 32 layers, hidden size 4096,
 * context 4096) in bf16 with microbatch 1: ActivationBytes = 4096 x 4096 x 2 B
 * (sequence x hidden x bytes per element) = 32 MiB. A layer's forward pass is about
 * 24 s h^2 + 4 s^2 h = 1.9 TFLOP; split over T = 8 GPUs at an effective 400 TFLOP/s
 * that is 0.6 ms, 300 us per block; backward twice the forward (600 us).
 *
 * ComputeJitter (default none) is a RandomVariableStream drawn in seconds once per
 * compute block and added to its nominal time; a block whose sum is negative takes
 * zero time (the Compute trace reports the jitter actually applied). Every rank
 * computes each block and the collective after it starts when the slowest has done
 * so: a block takes the largest of the ranks' GpuCompute times (a straggler sets it).
 *
 * Metrics: each iteration's time (TrainingApplication); the latency of every
 * collective operation, start to finish, in a SampleStatistics; jitter as the
 * standard deviation of those latencies and their p99 / p50. GetResults adds
 * "operationsPerIteration", "operationLatency_us" (statistics), "latencyStdDev_us",
 * "latencyTailRatio" (p99 / p50), "computeJitter_us" (the total) and, per
 * iteration, "computeJitter_us".
 */
class TensorParallelApplication : public TrainingApplication
{
  public:
    /**
     * TracedCallback signature for Operation: a collective finished.
     * \param index the operation's number from 0 over the run (iteration i holds
     *        i x GetOperationsPerIteration() onwards)
     * \param latency its start-to-finish time
     */
    typedef void (*OperationTracedCallback)(uint32_t index, Time latency);
    /**
     * TracedCallback signature for Compute: a compute block finished.
     * \param index the block's number from 0 over the run (2 x Layers x
     *        CollectivesPerLayer per iteration, forward blocks first)
     * \param duration its time, jitter and the slowest rank's GpuCompute slowdown
     *        included
     * \param jitter the jitter applied (before the slowdown)
     */
    typedef void (*ComputeTracedCallback)(uint32_t index, Time duration, Time jitter);

    /// \return the TypeId
    static TypeId GetTypeId();
    TensorParallelApplication();
    ~TensorParallelApplication() override;

    /**
     * Assign a fixed random variable stream number to ComputeJitter.
     * \param stream first stream index to use
     * \return the number of streams assigned (1 with ComputeJitter, else 0)
     */
    int64_t AssignStreams(int64_t stream);

    /// \return collective operations per iteration: 2 x Layers x CollectivesPerLayer,
    /// doubled with SequenceParallel
    uint32_t GetOperationsPerIteration() const;
    /// \return start-to-finish latency of every finished operation, in seconds
    const SampleStatistics& GetOperationLatency() const;
    /// \return jitter: the standard deviation of the operation latencies, seconds
    double GetLatencyStdDev() const;
    /// \return jitter: p99 / p50 of the operation latencies (0 without operations)
    double GetLatencyTailRatio() const;
    /// \return the compute jitter applied so far, summed over every block
    Time GetComputeJitterTotal() const;

    /**
     * Per rank: every block's compute (its jitter drawn once for all ranks, as an
     * iteration draws it) then its AllReduce (or ReduceScatter and AllGather) over
     * the group, one after another.
     * \param graph filled and linked \return ""
     */
    std::string DescribeIteration(WorkloadGraph& graph) override;

  protected:
    void AddResults(nlohmann::json& results) const override;
    /// Cancel the compute event, release the jitter variable.
    void DoDispose() override;
    void DoSetup() override;
    void DoStartIteration() override;

  private:
    /// ForwardComputeTime (deprecated alias): set ForwardTime unless given the
    /// alias's default marker. \param time the time
    void SetForwardTimeAlias(Time time);
    /// \return ForwardTime, for the deprecated alias ForwardComputeTime
    Time GetForwardTimeAlias() const;
    /// BackwardComputeTime (deprecated alias): set BackwardTime unless given the
    /// alias's default marker. \param time the time
    void SetBackwardTimeAlias(Time time);
    /// \return BackwardTime, for the deprecated alias BackwardComputeTime
    Time GetBackwardTimeAlias() const;

    /// Start compute block m_block of the current iteration.
    void StartBlock();
    /**
     * The compute of the current block ended: start its collective.
     * \param duration its time \param jitter the jitter in it
     */
    void ComputeDone(Time duration, Time jitter);
    /// \param collective "AllReduce", "ReduceScatter" or "AllGather": start it
    void StartOperation(const std::string& collective);
    /// \param result a finished operation of the current block
    void OperationDone(const CollectiveResult& result);

    uint32_t m_layers;                  //!< Layers attribute
    uint32_t m_collectivesPerLayer;     //!< CollectivesPerLayer attribute
    uint64_t m_activationBytes;         //!< S of every collective
    Time m_forwardTime;                 //!< compute of one forward block
    Time m_backwardTime;                //!< compute of one backward block
    bool m_sequenceParallel;            //!< ReduceScatter + AllGather
    Ptr<RandomVariableStream> m_jitter; //!< ComputeJitter (may be null)

    uint32_t m_blocksPerIteration{0};       //!< 2 x Layers x CollectivesPerLayer
    uint32_t m_block{0};                    //!< current block in the iteration
    uint32_t m_blocksDone{0};               //!< blocks finished over the run
    uint32_t m_operationsDone{0};           //!< operations finished over the run
    EventId m_computeEvent;                 //!< end of the current compute
    bool m_gathering{false};                //!< the block's AllGather is under way
    Time m_jitterTotal;                     //!< applied compute jitter, all blocks
    Time m_iterationJitter;                 //!< applied compute jitter, this iteration
    std::vector<Time> m_jitterPerIteration; //!< per completed iteration

    SampleStatistics m_latency; //!< seconds

    TracedCallback<uint32_t, Time> m_operationTrace;     //!< Operation
    TracedCallback<uint32_t, Time, Time> m_computeTrace; //!< Compute
};

} // namespace ns3

#endif /* AI_FABRIC_TENSOR_PARALLEL_APPLICATION_H */
