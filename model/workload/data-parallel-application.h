/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_DATA_PARALLEL_APPLICATION_H
#define AI_FABRIC_DATA_PARALLEL_APPLICATION_H

#include "sample-statistics.h"
#include "training-application.h"

#include "ns3/event-id.h"
#include "ns3/random-variable-stream.h"

#include <vector>

namespace ns3
{

struct CollectiveResult;

/**
 * \ingroup ai-fabric
 * \brief Data parallelism: every rank of the communicator holds a replica, computes
 * a forward and a backward pass per iteration, and the gradients (GradientBytes) are
 * AllReduced in buckets of BucketBytes that overlap the backward pass, as PyTorch
 * DDP does.
 *
 * Rank r draws its forward time F_r and backward time B_r every iteration
 * (ForwardTime, BackwardTime: random variables, constant by default; times the
 * GPU's GpuCompute slowdown when the iteration starts, for stragglers). The backward
 * pass produces gradients at a steady rate, so bucket k (of K = ceil(GradientBytes
 * / BucketBytes), the last one smaller) is ready on rank r at F_r + B_r x
 * (bytes of buckets 0..k) / GradientBytes. Bucket k's AllReduce starts when every
 * rank has it ready and bucket k-1's AllReduce has finished (one communication
 * stream, as NCCL runs them). The iteration ends when every rank has finished its
 * compute and the last AllReduce has finished.
 *
 * Metrics per iteration: its time; the exposed communication (iteration time
 * minus the slowest rank's compute, F_r + B_r): what overlap did not hide; every
 * bucket's AllReduce time; per rank, how long its buckets waited for the slowest
 * rank.
 */
class DataParallelApplication : public TrainingApplication
{
  public:
    /// TracedCallback signature for Bucket: (iteration, bucket, AllReduce time).
    typedef void (*BucketTracedCallback)(uint32_t iteration, uint32_t bucket, Time duration);

    /// \return the TypeId
    static TypeId GetTypeId();
    DataParallelApplication();
    ~DataParallelApplication() override;

    /**
     * \param stream first stream number for the compute-time random variables
     * \return the number of streams used (2)
     */
    int64_t AssignStreams(int64_t stream);

    /// \return K, the buckets per iteration
    uint32_t GetBuckets() const;
    /// \return exposed communication of every completed iteration
    const std::vector<Time>& GetExposedCommunication() const;
    /// \return the AllReduce time of every bucket of every completed iteration, in
    /// order (iteration-major)
    const std::vector<Time>& GetBucketTimes() const;
    /**
     * \param rank a rank of the group
     * \return how long its buckets waited, summed over the iterations started, for
     *         the slowest rank to have them ready too (who waited for a straggler)
     */
    Time GetWaitTime(uint32_t rank) const;
    /// \return the bucket AllReduce times, in seconds
    const SampleStatistics& GetBucketStatistics() const;

    /**
     * Per rank: the forward pass, then the backward pass in one compute node per
     * bucket (bucket k's gradients are ready at its end), each bucket's AllReduce
     * over the group after its compute and the bucket before (one in flight), as
     * an iteration runs.
     * \param graph filled and linked \return ""
     */
    std::string DescribeIteration(WorkloadGraph& graph) override;

  protected:
    void AddResults(nlohmann::json& results) const override;
    /// Cancel the bucket and compute events, release the time variables.
    void DoDispose() override;
    void DoSetup() override;
    void DoStartIteration() override;

  private:
    /// Start bucket m_nextBucket's AllReduce if it is ready everywhere and the
    /// previous one is done.
    void TryNextBucket();
    /// A bucket's AllReduce finished. \param result its result
    void OnBucketDone(const CollectiveResult& result);
    /// End the iteration if compute and communication are both done.
    void EndIfDone();

    uint64_t m_gradientBytes;                 //!< GradientBytes attribute
    uint64_t m_bucketBytes;                   //!< BucketBytes attribute
    Ptr<RandomVariableStream> m_forwardTime;  //!< seconds, per rank and iteration
    Ptr<RandomVariableStream> m_backwardTime; //!< seconds, per rank and iteration

    std::vector<uint64_t> m_bucketSize; //!< bytes of each bucket
    std::vector<Time> m_bucketReady;    //!< this iteration: bucket ready on all ranks
    Time m_computeEnd;                  //!< this iteration: slowest rank's compute end
    uint32_t m_nextBucket{0};           //!< next bucket to AllReduce
    bool m_bucketInFlight{false};       //!< an AllReduce is running
    EventId m_bucketEvent;              //!< next bucket's readiness
    EventId m_computeEvent;             //!< end of compute
    bool m_computeDone{false};          //!< every rank finished its compute

    std::vector<Time> m_waitTime;        //!< per rank, summed over iterations
    std::vector<Time> m_exposed;         //!< per iteration
    std::vector<Time> m_bucketTimes;     //!< per bucket, iteration-major
    SampleStatistics m_bucketStatistics; //!< seconds

    TracedCallback<uint32_t, uint32_t, Time> m_bucketTrace; //!< Bucket
};

} // namespace ns3

#endif /* AI_FABRIC_DATA_PARALLEL_APPLICATION_H */
