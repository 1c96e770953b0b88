/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_PIPELINE_PARALLEL_APPLICATION_H
#define AI_FABRIC_PIPELINE_PARALLEL_APPLICATION_H

#include "pipeline-schedule.h"
#include "sample-statistics.h"
#include "training-application.h"

#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Pipeline parallelism: S stages on the first S ranks of a communicator
 * (stage s = rank s), M microbatches per iteration, each stage running its forward
 * and backward passes in the order of a PipelineSchedule (GPipe, 1F1B).
 *
 * A forward pass of microbatch m on stage s starts when the stage is free and m's
 * activations (ActivationBytes) from stage s-1 have arrived; when it ends the stage
 * sends m's activations to stage s+1. A backward pass needs m's gradients
 * (GradientBytes) from stage s+1 (the last stage: its own forward pass) and sends
 * gradients to stage s-1. Passes take ForwardTime and BackwardTime (times the
 * stage GPU's GpuCompute slowdown, for stragglers); transfers go
 * over the communicator (scale-up inside a server, RDMA between servers) and
 * overlap compute. An iteration ends when every stage has run all its passes (a
 * flush, as synchronous training has).
 *
 * Metrics: each iteration's time; per stage, its bubble fraction (idle share of the
 * iterations' time) and the most microbatches it held at once (forward done,
 * backward not); the latency of every stage-to-stage transfer (posting to arrival).
 */
class PipelineParallelApplication : public TrainingApplication
{
  public:
    /// TracedCallback signature for Transfer: (from stage, to stage, microbatch,
    /// latency; to < from for gradients).
    typedef void (*TransferTracedCallback)(uint32_t from,
                                           uint32_t to,
                                           uint32_t microbatch,
                                           Time latency);

    /// \return the TypeId
    static TypeId GetTypeId();
    PipelineParallelApplication();
    ~PipelineParallelApplication() override;

    /// \return S
    uint32_t GetStages() const;
    /// \param stage a stage \return idle / total over the completed iterations
    double GetBubbleFraction(uint32_t stage) const;
    /// \param stage a stage \return the most microbatches it held at once
    uint32_t GetMaxInFlight(uint32_t stage) const;
    /// \return stage-to-stage transfer latencies, in seconds
    const SampleStatistics& GetTransferLatency() const;

    /**
     * Per stage: its passes in the schedule's order, each after the one before and
     * after the receive of its input (activations from the stage before, gradients
     * from the stage after), each followed by the send of its output.
     * \param graph filled and linked \return ""
     */
    std::string DescribeIteration(WorkloadGraph& graph) override;

  protected:
    void AddResults(nlohmann::json& results) const override;
    /// Release the schedule and the stages.
    void DoDispose() override;
    void DoSetup() override;
    void DoStartIteration() override;

  private:
    /// One stage's state in the current iteration.
    struct Stage
    {
        std::vector<PipelineSchedule::Pass> passes; //!< its schedule
        std::size_t next{0};                        //!< passes done
        bool busy{false};                           //!< running a pass
        std::vector<bool> activationIn;             //!< per microbatch: arrived
        std::vector<bool> gradientIn;               //!< per microbatch: arrived
        uint32_t inFlight{0};                       //!< forward done, backward not
        uint32_t maxInFlight{0};                    //!< most at once
        Time passTime;                              //!< the running pass's duration
        Time busyTime;                              //!< compute, all iterations
    };

    /// Start the stage's next pass if it is free and its input is there.
    /// \param stage the stage
    void TryRun(uint32_t stage);
    /// The stage finished its current pass. \param stage the stage
    void PassDone(uint32_t stage);
    /**
     * Activations (forward) or gradients of a microbatch arrived at a stage.
     * \param stage receiver \param microbatch which \param forward activations
     * \param posted when they were sent
     */
    void OnArrival(uint32_t stage, uint32_t microbatch, bool forward, Time posted);

    uint32_t m_stagesAttribute;       //!< Stages attribute (0 = every rank)
    uint32_t m_stages{0};             //!< S
    uint32_t m_microbatches;          //!< M
    uint64_t m_activationBytes;       //!< forward transfer per microbatch
    uint64_t m_gradientBytes;         //!< backward transfer (0 = activation bytes)
    Time m_forwardTime;               //!< one forward pass of one microbatch
    Time m_backwardTime;              //!< one backward pass
    TypeId m_scheduleType;            //!< Schedule attribute
    Ptr<PipelineSchedule> m_schedule; //!< the schedule

    std::vector<Stage> m_stage; //!< per stage
    uint32_t m_stagesLeft{0};   //!< stages still running this iteration

    SampleStatistics m_transferLatency; //!< seconds

    TracedCallback<uint32_t, uint32_t, uint32_t, Time> m_transferTrace; //!< Transfer
};

} // namespace ns3

#endif /* AI_FABRIC_PIPELINE_PARALLEL_APPLICATION_H */
