/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_TRAINING_APPLICATION_H
#define AI_FABRIC_TRAINING_APPLICATION_H

#include "ns3/application.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/traced-callback.h"

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace ns3
{

class Communicator;
class CollectiveOperation;
struct WorkloadGraph;

/**
 * \ingroup ai-fabric
 * \brief Base of the parallelism workloads: an application that runs training
 * iterations of one parallel group (a communicator) and creates its collective
 * operations with the algorithms chosen for the cluster.
 *
 * One application drives every rank of its group; it is added to the node of rank
 * 0's NIC (TrainingApplicationHelper). An iteration starts on every rank at once;
 * the subclass calls EndIteration when it is over, and the next one starts at once
 * until Iterations have run or the application stops (operations under way then
 * finish, no new iteration starts).
 *
 * If one of its communicators fails (the RDMA transport gave up a message: a queue
 * pair failed, see Communicator), the application fails: it stops as if stopped,
 * keeps the reason (GetFailure, and \"failure\" in GetResults) and fires Failed.
 * HasEnded() then tells a program that nothing more will come of it.
 */
class TrainingApplication : public Application
{
  public:
    /// TracedCallback signature for IterationDone: (iteration, its duration).
    typedef void (*IterationTracedCallback)(uint32_t iteration, Time duration);
    /// TracedCallback signature for Failed: (the iteration it failed in, the reason).
    typedef void (*FailureTracedCallback)(uint32_t iteration, const std::string& reason);

    /// \return the TypeId
    static TypeId GetTypeId();
    TrainingApplication();
    ~TrainingApplication() override;

    /**
     * Set the group and check the attributes (stops with a message naming a bad one
     * and its value), before the simulation runs.
     * \param comm the group's communicator
     */
    void SetCommunicator(Ptr<Communicator> comm);

    /**
     * \param algorithms the algorithm of every collective
     *        (CollectiveHelper::GetAlgorithms)
     */
    void SetAlgorithms(const std::map<std::string, ObjectFactory>& algorithms);

    /// \return the group's communicator
    Ptr<Communicator> GetCommunicator() const;
    /// \return iterations completed
    uint32_t GetIterationsDone() const;
    /// \return the duration of every completed iteration
    const std::vector<Time>& GetIterationTimes() const;
    /// \return whether a communicator of the application failed (it then stopped)
    bool HasFailed() const;
    /// \return why the application failed ("" if it has not)
    const std::string& GetFailure() const;
    /// \return whether nothing more will happen: every iteration done, or failed
    bool HasEnded() const;

    /**
     * What the run measured, with what made it: the application's TypeId, every
     * attribute's value, the random seed and run, the group's GPUs, the iteration
     * times (\"perIteration\" \"time_us\") and their statistics, then the subclass's
     * own metrics (AddResults). Per-iteration series go under \"perIteration\", one
     * array of one value per iteration each.
     * \return the results
     */
    nlohmann::json GetResults() const;

    /**
     * One iteration of the workload as a graph per rank of its group (what
     * ChakraTraceWriter writes and ReplayApplication replays): compute at full speed
     * (a GPU's slowdown is applied where the graph is replayed), collectives and
     * messages, and what each waits for. Times drawn from random attributes are
     * drawn once per rank, as an iteration does.
     * \param graph filled and linked
     * \return "" or why the workload cannot describe itself (this one's default)
     */
    virtual std::string DescribeIteration(WorkloadGraph& graph);

  protected:
    /// Release the communicator and the algorithm factories.
    void DoDispose() override;

    /**
     * Add the subclass's metrics to GetResults().
     * \param results the results so far
     */
    virtual void AddResults(nlohmann::json& results) const;

    /// Check the attributes against m_comm and build the state (m_comm is set).
    virtual void DoSetup() = 0;
    /// Begin an iteration (GetIterationStart() is now).
    virtual void DoStartIteration() = 0;

    /// The current iteration is over: record it, then start the next one if due.
    void EndIteration();
    /// \return the current iteration (from 0)
    uint32_t GetIteration() const;
    /// \return when the current iteration began
    Time GetIterationStart() const;
    /**
     * Fail when a communicator other than the group's (SetCommunicator watches that
     * one and those split from it) fails.
     * \param comm the communicator
     */
    void WatchCommunicator(Ptr<Communicator> comm);
    /**
     * Begin DescribeIteration's graph: emptied, named after the application, one
     * (empty) node list per rank of the group, and the group of every rank.
     * \param graph the graph \param groupName the group's name in it
     * \return the group's index in graph.groups
     */
    uint32_t BeginGraph(WorkloadGraph& graph, const std::string& groupName) const;
    /**
     * \param collective "AllReduce", "AlltoAllv", ...
     * \return a new operation of the collective's algorithm, not started
     */
    Ptr<CollectiveOperation> CreateOperation(const std::string& collective) const;

    Ptr<Communicator> m_comm; //!< the group

  private:
    /// Begin the first iteration (no communicator set is an error).
    void StartApplication() override;
    /// Begin no further iteration; the current one completes.
    void StopApplication() override;
    /// Begin iteration GetIteration().
    void StartIteration();
    /**
     * A communicator failed: stop, once, and keep the reason.
     * \param reason why
     */
    void Fail(const std::string& reason);

    uint32_t m_iterations;                             //!< Iterations attribute
    std::map<std::string, ObjectFactory> m_algorithms; //!< collective -> algorithm
    std::vector<Time> m_iterationTimes;                //!< completed iterations
    Time m_iterationStart;                             //!< current iteration's start
    bool m_running{false};                             //!< between start and stop
    std::string m_failure;                             //!< why it failed ("" if it has not)
    TracedCallback<uint32_t, Time> m_iterationTrace;   //!< IterationDone
    TracedCallback<uint32_t, const std::string&> m_failedTrace; //!< Failed
};

} // namespace ns3

#endif /* AI_FABRIC_TRAINING_APPLICATION_H */
