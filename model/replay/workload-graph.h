/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_WORKLOAD_GRAPH_H
#define AI_FABRIC_WORKLOAD_GRAPH_H

#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief One step of one rank of a replayed workload: compute, a collective, or one
 * end of a point-to-point message.
 */
struct WorkloadNode
{
    /// What the node does.
    enum Kind : uint8_t
    {
        COMPUTE,    //!< the GPU computes for Duration (or Flops at the GPU's rate)
        COLLECTIVE, //!< a collective over a group, with every member's matching node
        SEND,       //!< send Bytes to rank Peer
        RECV,       //!< wait for Bytes from rank Peer
        NOOP,       //!< finishes at once (a node of a kind not modelled, kept for its edges)
    };

    uint64_t id{0};         //!< the node's id in its file (unique per rank)
    uint32_t label{0};      //!< its name: index into WorkloadGraph::labels
    Kind kind{COMPUTE};     //!< what it does
    Time duration;          //!< COMPUTE: how long (if Flops is 0)
    double flops{0};        //!< COMPUTE: floating-point operations (> 0: at the GPU's rate)
    std::string collective; //!< COLLECTIVE: the module's name ("AllReduce", ...)
    uint64_t bytes{0};      //!< COLLECTIVE: S as nccl-tests counts it (AlltoAllv: this
                            //!< rank's sum of split); SEND, RECV: bytes
    uint32_t group{0};      //!< COLLECTIVE: index into WorkloadGraph::groups
    uint32_t peer{0};       //!< SEND: destination rank; RECV: source rank
    int64_t tag{0};         //!< SEND, RECV: matched with the other end's tag
    /// COLLECTIVE "AlltoAllv" only: bytes this rank sends to each member of the group,
    /// in group order (its own entry a local copy); empty otherwise
    std::vector<uint64_t> split;
    uint32_t traffic{0};        //!< index into WorkloadGraph::trafficNames
    std::vector<uint64_t> deps; //!< ids of this rank's nodes that must finish first
};

/**
 * \ingroup ai-fabric
 * \brief A workload as a graph of steps per rank, whatever file it came from
 * (ChakraTraceReader, SimAiWorkloadReader), checked and linked for replay
 * (ReplayApplication).
 *
 * Ranks are the job's ranks 0 .. N-1 (the application maps them to GPUs). A group
 * lists ranks in its own rank order. Collectives match across a group by order: the
 * k-th collective node of every member naming a group is one operation, so the
 * members must agree on its collective and bytes; in an AlltoAllv each member gives
 * its own row of the matrix instead (WorkloadNode::split, summing to its bytes).
 * Point-to-point messages match by order too: the k-th SEND from a to b with a tag
 * is the k-th RECV of b from a with that tag, and both give the same bytes.
 *
 * Link() checks all that before anything runs and returns the first problem, naming
 * the rank and node: a dependency on a node that does not exist, a dependency cycle,
 * a group or peer outside the ranks, a rank in a group that does not list it, a
 * collective or message without its match. Node kinds the readers do not model are
 * counted by name in `unmodelled`, never dropped silently.
 */
struct WorkloadGraph
{
    /// Where a node is.
    struct NodeRef
    {
        uint32_t rank{0};  //!< its rank
        uint32_t index{0}; //!< its index in nodes[rank]
    };

    /// One collective operation: the matching node of every member of its group.
    struct Operation
    {
        uint32_t group{0};            //!< the group
        std::vector<uint32_t> member; //!< per rank of the group: its node's index
    };

    std::string source; //!< the file(s) read, for messages
    std::vector<std::pair<std::string, std::string>> description; //!< what the reader found
    std::vector<std::string> labels;              //!< node names (many nodes share one)
    std::vector<std::vector<WorkloadNode>> nodes; //!< per rank, in file order
    std::vector<std::vector<uint32_t>> groups;    //!< each: job ranks in group order
    std::vector<std::string> groupNames;          //!< per group: its name, for messages
    std::vector<std::string> trafficNames;        //!< names of WorkloadNode::traffic
    std::map<std::string, uint64_t> unmodelled;   //!< skipped node kinds: how many

    // Filled by Link().
    std::vector<std::vector<std::vector<uint32_t>>> dependents; //!< per rank, per node
    std::vector<std::vector<uint32_t>> depCount;                //!< per rank, per node: its deps
    std::vector<std::vector<uint32_t>> operation; //!< per rank, per node: COLLECTIVE's op,
                                                  //!< SEND/RECV: the other end's index
    std::vector<Operation> operations;            //!< every collective operation

    /// \return the number of ranks
    uint32_t GetRanks() const;
    /// \return nodes over all ranks
    uint64_t GetNodeCount() const;
    /// \return dependency edges over all ranks
    uint64_t GetEdgeCount() const;

    /**
     * \param name a node's name \return its index in labels, added if new
     */
    uint32_t AddLabel(const std::string& name);
    /**
     * \param name a traffic kind's name \return its index, added if new
     */
    uint32_t AddTraffic(const std::string& name);
    /**
     * \param ranks job ranks, in group order \param name its name, for messages
     * \return the group's index (an existing one if the same ranks in the same order)
     */
    uint32_t AddGroup(const std::vector<uint32_t>& ranks, const std::string& name);

    /**
     * Check the graph and fill the links used for replay (dependents, depCount,
     * operation, operations). Once, after every node and group is in.
     * \return "" or the first problem, naming the source, rank and node
     */
    std::string Link();

    /**
     * \param rank a rank \param index a node of it
     * \return "<source>: rank R node ID (NAME)", for messages
     */
    std::string Describe(uint32_t rank, uint32_t index) const;

  private:
    std::unordered_map<std::string, uint32_t> m_labelIndex; //!< label -> its index
};

} // namespace ns3

#endif /* AI_FABRIC_WORKLOAD_GRAPH_H */
