/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_SIMAI_WORKLOAD_READER_H
#define AI_FABRIC_SIMAI_WORKLOAD_READER_H

#include "workload-graph.h"

#include <cstdint>
#include <istream>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Reads a SimAI / AICB workload file (the text AICB writes for SimAI) into a
 * WorkloadGraph.
 *
 * The file: a header line, the parallelism policy (HYBRID_TRANSFORMER_FWD_IN_BCKWD)
 * then `key: value` pairs (`model_parallel_NPU_group` = TP, `ep`, `pp`, `vpp`, `ga`,
 * `all_gpus`, `checkpoints` and `checkpoint_initiates` with their layer lists,
 * `pp_comm` with or without its colon); a line with the number of layers; then one
 * line per layer of 12 fields: name, a reserved -1, then for the forward pass, the
 * input gradient and the weight gradient each a compute time (ns), a collective and
 * its bytes, and last an update time (ns) that follows each of the layer's
 * collectives.
 *
 * The graph runs one iteration as SimAI does: forward through the layers in file
 * order, each layer's compute then its collective, waited for; then backward in
 * reverse order, each layer's input-gradient compute and collective, waited for,
 * then its weight-gradient compute, whose collective is not waited for (it overlaps
 * the rest of the backward pass; the iteration ends when it has finished).
 *
 * Groups are laid out by JobLayout in Megatron order (tp-dp-pp, TP innermost), as
 * SimAI lays them out: a collective without suffix runs over the TP group in the
 * forward pass and the input gradient and over the DP group in the weight gradient;
 * `_EP` over the EP group, `_DP_EP` over the expert data parallel group (the
 * replicas of one expert). ALLREDUCE, ALLGATHER, REDUCESCATTER and ALLTOALL become
 * AllReduce, AllGather, ReduceScatter and AlltoAll with the file's bytes as S (the
 * whole buffer, as nccl-tests and SimAI count it). NONE is no communication (its
 * bytes ignored, as SimAI does); BROADCAST and ALLREDUCEALLTOALL, which SimAI does
 * not run as written, are counted in WorkloadGraph::unmodelled by name. Any other
 * token is refused.
 *
 * With pp above 1 (SimAI itself does not simulate pipeline traffic), each pass is
 * one stage's: a stage after the first receives `pp_comm` bytes from the same TP and
 * DP rank of the stage before it before its forward pass, and sends them on after
 * it; the backward pass mirrors it.
 *
 * Kinds of traffic: TP, EP, DP (DP and DP_EP groups) and PP.
 */
class SimAiWorkloadReader
{
  public:
    /// The header's values.
    struct Header
    {
        std::string policy;  //!< the parallelism policy
        uint32_t tp{1};      //!< model_parallel_NPU_group (0: every GPU)
        uint32_t ep{1};      //!< ep
        uint32_t pp{1};      //!< pp
        uint32_t vpp{1};     //!< vpp (not used: AICB writes the layer count there)
        uint32_t ga{1};      //!< ga (not used: AICB repeats the layers ga times)
        uint32_t allGpus{0}; //!< all_gpus (0: not given)
        uint64_t ppComm{0};  //!< pp_comm: bytes between pipeline stages
    };

    /**
     * Read a workload file.
     * \param path the file
     * \param gpus the GPUs the job may use: the job's size when the header gives no
     *        all_gpus (more than that is refused)
     * \param graph filled (and linked) if the file is good
     * \return "" or the problem, naming the file and line
     */
    static std::string Read(const std::string& path, uint32_t gpus, WorkloadGraph& graph);

    /**
     * Read a workload from a stream (Read's work, for tests).
     * \param in the text \param name its name in messages \param gpus as Read
     * \param graph filled if good \return "" or the problem
     */
    static std::string Parse(std::istream& in,
                             const std::string& name,
                             uint32_t gpus,
                             WorkloadGraph& graph);

    /**
     * \param line the first line \param header filled
     * \return "" or the problem (without the file name)
     */
    static std::string ParseHeader(const std::string& line, Header& header);
};

} // namespace ns3

#endif /* AI_FABRIC_SIMAI_WORKLOAD_READER_H */
