/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_STEP_GRAPH_COLLECTIVE_H
#define AI_FABRIC_STEP_GRAPH_COLLECTIVE_H

#include "collective-operation.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A collective planned as a graph of steps: each rank runs lanes, each lane a
 * sequence of steps, and a step runs (posts its transfers) once the previous step of
 * its lane has run and every transfer it waits for has arrived (and, if any of them is
 * reduced, the reduction kernel has combined them).
 *
 * Trees and recursive halving-doubling are planned this way: a lane per pipelined
 * piece of a tree, a lane per channel of a halving-doubling exchange. Lanes of one
 * rank are independent, so pieces moving up a tree overlap pieces moving down.
 */
class StepGraphCollective : public CollectiveOperation
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    StepGraphCollective();
    ~StepGraphCollective() override;

  protected:
    /// A step: its rank and its index among all planned steps.
    struct StepId
    {
        uint32_t rank; //!< rank that runs it
        uint32_t id;   //!< index among all planned steps
    };

    /// Plan the steps and transfers with AddLane and AddTransfer (m_comm, m_bytes set).
    virtual void PlanSteps() = 0;

    /**
     * Add a lane of steps at a rank.
     * \param rank the rank \param steps its number of steps (> 0)
     * \return the lane's steps, in order
     */
    std::vector<StepId> AddLane(uint32_t rank, uint32_t steps);

    /**
     * Add a transfer: posted when step `from` runs, waited for by step `to`.
     * \param from sending step \param to receiving step (another rank's)
     * \param bytes bytes (> 0) \param channel connection between servers
     * \param reduced whether the receiver reduces it before its step runs
     */
    void AddTransfer(StepId from, StepId to, uint64_t bytes, uint32_t channel, bool reduced);

    void DoStart() override;
    /// Release the steps, transfers and lanes.
    void DoDispose() override;

  private:
    /// One step.
    struct Step
    {
        uint32_t rank;                   //!< rank that runs it
        uint32_t lane;                   //!< its lane
        uint32_t waiting{0};             //!< transfers still to arrive
        uint64_t reducedBytes{0};        //!< bytes it reduces before running
        std::vector<uint32_t> transfers; //!< transfers it posts
    };

    /// One transfer.
    struct Transfer
    {
        uint32_t to;      //!< receiving step
        uint64_t bytes;   //!< bytes
        uint32_t channel; //!< connection
    };

    /// One lane: consecutive steps first .. first + count - 1.
    struct Lane
    {
        uint32_t first; //!< its first step
        uint32_t count; //!< its steps
        uint32_t next;  //!< steps run or reducing so far
        bool reducing;  //!< step next - 1 is reducing before it runs
    };

    /// Run the lane's next step if it is ready (after its reduction, if any).
    /// \param lane the lane
    void TryNext(uint32_t lane);
    /// Post the transfers of a ready step, then try the lane's next step.
    /// \param step the step's index
    void RunStep(uint32_t step);
    /// A transfer arrived. \param transfer the transfer's index
    void OnArrival(uint32_t transfer);
    /// Finish if every lane has run and every transfer has arrived.
    void FinishIfDone();

    std::vector<Step> m_stepList;     //!< every step
    std::vector<Transfer> m_transfer; //!< every transfer
    std::vector<Lane> m_lanes;        //!< every lane
    uint64_t m_transfersLeft{0};      //!< transfers not arrived
    uint32_t m_lanesLeft{0};          //!< lanes with steps not run
};

} // namespace ns3

#endif /* AI_FABRIC_STEP_GRAPH_COLLECTIVE_H */
