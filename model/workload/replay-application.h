/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_REPLAY_APPLICATION_H
#define AI_FABRIC_REPLAY_APPLICATION_H

#include "training-application.h"

#include "ns3/workload-graph.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace ns3
{

struct CollectiveResult;

/**
 * \ingroup ai-fabric
 * \brief Replays a workload graph read from a file (WorkloadGraph: a Chakra
 * execution trace, a SimAI workload) on the cluster: each iteration runs every node
 * of every rank once.
 *
 * The communicator's rank r is the graph's rank r. A node starts when all its
 * dependencies have finished:
 *
 * - compute takes its duration (or its FLOPs at GpuFlopRate), stretched by the
 *   GPU's GpuCompute slowdown; a GPU runs one compute node at a time, in the order
 *   they became ready (as ASTRA-sim does), and any number of communication nodes
 *   beside it;
 * - a collective starts on the group's communicator (split from this application's
 *   once per group) with the algorithm chosen for it, once every member has reached
 *   its matching node, and finishes on every member when the operation has
 *   (CollectiveOperation's completion); a group of one rank, or 0 bytes, finishes at
 *   once;
 * - a send posts its bytes to the peer over this application's communicator at once
 *   (scale-up inside a server, RDMA between servers) and finishes when they have
 *   arrived; the matching receive finishes when they have arrived and it has been
 *   reached.
 *
 * The iteration ends when every node of every rank has finished. Per rank it
 * measures when it finished, its time computing, communicating (any communication
 * node under way, waiting for the group included) and communicating while not
 * computing (exposed); per kind of traffic the operations, bytes and time; and the
 * critical path that ended the iteration: the chain of nodes, from the last to
 * finish back through the dependency, member or message each one waited for last.
 */
class ReplayApplication : public TrainingApplication
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    ReplayApplication();
    ~ReplayApplication() override;

    /**
     * The graph to replay, linked (WorkloadGraph::Link returned ""), before
     * SetCommunicator, which checks that the communicator has its ranks.
     * \param graph the graph
     */
    void SetGraph(std::shared_ptr<const WorkloadGraph> graph);
    /// \return the graph
    std::shared_ptr<const WorkloadGraph> GetGraph() const;

    /// What one rank did, summed over the completed iterations.
    struct RankTimes
    {
        Time finish;        //!< from the iteration's start to its last node's end
        Time compute;       //!< computing
        Time communication; //!< a communication node under way
        Time exposed;       //!< communicating and not computing
    };

    /// \param rank a rank \return its times, summed over completed iterations
    const RankTimes& GetRankTimes(uint32_t rank) const;

    /// One kind of traffic, summed over the completed iterations.
    struct TrafficTotals
    {
        uint64_t operations{0}; //!< collectives and messages
        uint64_t bytes{0};      //!< collectives: S; messages: bytes sent
        Time time;              //!< their durations, summed
    };

    /// \param traffic an index of the graph's trafficNames \return its totals
    const TrafficTotals& GetTrafficTotals(uint32_t traffic) const;

    /// The critical path of the last completed iteration.
    struct CriticalPath
    {
        uint32_t rank{0};   //!< the rank that finished last
        uint32_t nodes{0};  //!< nodes on the path
        Time compute;       //!< compute on it
        Time communication; //!< communication on it
        Time length;        //!< from the iteration's start to its end
    };

    /// \return the critical path of the last completed iteration
    const CriticalPath& GetCriticalPath() const;

  protected:
    /// Release the graph and the groups' communicators.
    void DoDispose() override;
    void DoSetup() override;
    void DoStartIteration() override;
    void AddResults(nlohmann::json& results) const override;

  private:
    /// No node: the start of the iteration.
    static constexpr uint32_t NONE = UINT32_MAX;

    /// A node's state in the current iteration.
    struct NodeState
    {
        uint32_t waiting{0};            //!< dependencies not finished
        WorkloadGraph::NodeRef trigger; //!< the node it waited for last
        bool triggered{false};          //!< trigger is set (false: ready at start)
        Time start;                     //!< when it started (communication: reached)
        Time end;                       //!< when it finished
        bool arrived{false};            //!< RECV: its message has arrived
        bool reached{false};            //!< RECV: its dependencies are done
    };

    /// A rank's state in the current iteration.
    struct RankState
    {
        std::deque<uint32_t> computeQueue; //!< ready compute nodes
        bool computing{false};             //!< a compute node runs
        uint32_t lastCompute{NONE};        //!< the compute node that ran last
        uint32_t communicating{0};         //!< communication nodes under way
        Time lastChange;                   //!< when computing or communicating changed
        Time finish;                       //!< when its last node finished
        uint32_t last{NONE};               //!< that node
    };

    /// One collective operation in the current iteration.
    struct OperationState
    {
        uint32_t arrived{0};               //!< members that reached it
        WorkloadGraph::NodeRef lastMember; //!< the member that reached it last
        Time start;                        //!< when it started
    };

    /// \param rank a rank \param index a ready node: start it
    void Start(uint32_t rank, uint32_t index);
    /// \param rank a rank: run its next ready compute node if the GPU is free
    void NextCompute(uint32_t rank);
    /// \param rank a rank \param index a compute node that has run its time
    void ComputeDone(uint32_t rank, uint32_t index);
    /// \param op a collective operation whose members have all arrived
    void StartOperation(uint32_t op);
    /// \param op the operation \param result its result
    void OperationDone(uint32_t op, const CollectiveResult& result);
    /// \param op an operation: finish every member's node
    void FinishOperation(uint32_t op);
    /// \param src sending rank \param send its SEND node: the message has arrived
    void MessageArrived(uint32_t src, uint32_t send);
    /// \param rank a rank \param index a node that has finished: release its dependents
    void Finish(uint32_t rank, uint32_t index);
    /**
     * Account a rank's time up to now, then change what it is doing.
     * \param rank the rank \param computing the new compute state
     * \param communicatingDelta +1, -1 or 0
     */
    void Account(uint32_t rank, bool computing, int communicatingDelta);
    /// Follow the critical path back from the last node of the slowest rank.
    void TraceCriticalPath();

    /// \param bytes a node's bytes \return them times CommunicationScale
    uint64_t ScaleBytes(uint64_t bytes) const;

    double m_gpuFlopRate;        //!< GpuFlopRate attribute
    double m_communicationScale; //!< CommunicationScale attribute
    double m_computeScale;       //!< ComputeScale attribute
    uint32_t m_channel;          //!< Channel attribute: point-to-point messages' connection

    std::shared_ptr<const WorkloadGraph> m_graph;    //!< the workload
    std::vector<Ptr<Communicator>> m_groups;         //!< per group: its communicator
    std::vector<std::vector<NodeState>> m_nodes;     //!< per rank, per node
    std::vector<RankState> m_ranks;                  //!< per rank
    std::vector<OperationState> m_operations;        //!< per collective operation
    uint64_t m_nodesLeft{0};                         //!< nodes not finished
    std::vector<RankTimes> m_rankTimes;              //!< per rank, summed
    std::vector<RankTimes> m_rankIteration;          //!< per rank, this iteration
    std::vector<TrafficTotals> m_traffic;            //!< per traffic kind, summed
    std::vector<TrafficTotals> m_trafficIteration;   //!< per traffic kind, this iteration
    CriticalPath m_criticalPath;                     //!< of the last iteration
    std::vector<double> m_criticalPathPerIteration;  //!< its length, us
    std::vector<uint32_t> m_slowestRankPerIteration; //!< per iteration
};

} // namespace ns3

#endif /* AI_FABRIC_REPLAY_APPLICATION_H */
