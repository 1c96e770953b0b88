/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CHAKRA_TRACE_READER_H
#define AI_FABRIC_CHAKRA_TRACE_READER_H

#include "workload-graph.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Reads MLCommons Chakra execution traces (one protobuf file per rank,
 * PREFIX.0.et .. PREFIX.<N-1>.et, as ASTRA-sim reads them) into a WorkloadGraph.
 *
 * Each file is a GlobalMetadata message then Node messages, each preceded by its
 * length as a varint (the schema: model/replay/chakra-et.proto, the public
 * et_def.proto's messages and field numbers). A node waits for every node of its
 * data_deps and ctrl_deps, as ASTRA-sim runs them. Node types:
 *
 * - COMP_NODE: compute for duration_micros (us), or, when that is 0, num_ops
 *   floating-point operations at the replay's GpuFlopRate;
 * - COMM_COLL_NODE: comm_type ALL_REDUCE, REDUCE, ALL_GATHER, BROADCAST,
 *   ALL_TO_ALL and REDUCE_SCATTER run as the module's collectives over the node's
 *   process group, with comm_size bytes as S (nccl-tests' size), except ALL_GATHER,
 *   whose comm_size is each rank's input as ASTRA-sim reads it, so S = comm_size x
 *   the group's size; BARRIER is a rendezvous of the group that moves no bytes;
 *   GATHER, SCATTER and REDUCE_SCATTER_BLOCK are not modelled;
 * - COMM_SEND_NODE / COMM_RECV_NODE: comm_size bytes to comm_dst / from comm_src,
 *   matched by comm_tag;
 * - METADATA_NODE (its process groups are read), MEM_LOAD_NODE, MEM_STORE_NODE and
 *   INVALID_NODE, and collectives not modelled: kept as nodes that finish at once
 *   (so the edges through them hold), and counted by name in
 *   WorkloadGraph::unmodelled.
 *
 * Process groups (pg_name): "" or "0" is every rank; others come from a group file
 * (ASTRA-sim's --comm-group-configuration: {"1": [0, 1, 2, 3], ...}) or from the
 * traces' METADATA nodes ([{"pg_name": "1", "ranks": [...]}, ...]).
 *
 * Kinds of traffic: "world", "pg <name>" per process group, and "send/recv".
 *
 * The reader needs protobuf when the module is configured; without it IsAvailable()
 * is false and Read says so.
 */
class ChakraTraceReader
{
  public:
    /// \return whether this build reads Chakra traces (protobuf was found)
    static bool IsAvailable();

    /**
     * Read the traces of every rank.
     * \param prefix PREFIX of PREFIX.\<rank\>.et (ranks 0, 1, ... as long as files exist)
     * \param gpus the GPUs the job may use (more ranks are refused)
     * \param groupsFile "" or a JSON file of process groups
     * \param graph filled (and linked) if the traces are good
     * \return "" or the problem, naming the file and node
     */
    static std::string Read(const std::string& prefix,
                            uint32_t gpus,
                            const std::string& groupsFile,
                            WorkloadGraph& graph);
};

} // namespace ns3

#endif /* AI_FABRIC_CHAKRA_TRACE_READER_H */
