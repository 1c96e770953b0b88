/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CHAKRA_TRACE_WRITER_H
#define AI_FABRIC_CHAKRA_TRACE_WRITER_H

#include "workload-graph.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Writes a WorkloadGraph as Chakra execution traces, one file per rank
 * (PREFIX.0.et, PREFIX.1.et, ...), for other simulators and for ChakraTraceReader.
 *
 * Compute nodes become COMP_NODEs (duration_micros, rounded, and the exact time in
 * an int64 attribute duration_nanos, which ChakraTraceReader prefers; FLOPs as
 * num_ops); collectives COMM_COLL_NODEs with comm_type, comm_size (AllGather: each
 * rank's share, S / group size, as ASTRA-sim reads it) and pg_name (empty for the
 * group of every rank in order, else the group's number from 1); sends and receives
 * COMM_SEND_NODE / COMM_RECV_NODE with comm_dst / comm_src, comm_tag and comm_size;
 * nodes that do nothing INVALID_NODEs (kept for their edges). Dependencies are
 * data_deps. Every file starts with its GlobalMetadata, then a METADATA_NODE that
 * lists the process groups as PyTorch's observer does ([{"pg_name": .., "ranks":
 * [..]}, ...]), then the rank's nodes.
 */
class ChakraTraceWriter
{
  public:
    /**
     * \param graph a linked graph
     * \param prefix where to write (PREFIX.\<rank\>.et)
     * \return "" or the problem (a file that cannot be written, a collective the
     *         format has no type for, a build without protobuf)
     */
    static std::string Write(const WorkloadGraph& graph, const std::string& prefix);
};

} // namespace ns3

#endif /* AI_FABRIC_CHAKRA_TRACE_WRITER_H */
