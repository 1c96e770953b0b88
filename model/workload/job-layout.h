/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_JOB_LAYOUT_H
#define AI_FABRIC_JOB_LAYOUT_H

#include "ns3/object.h"

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

struct ClusterDescription;

/**
 * \ingroup ai-fabric
 * \brief The map of a training job of TP x PP x DP degrees (with EP carved out of
 * DP) onto its GPUs, and the groups of each dimension.
 *
 * The job's GPUs are a list of global GPU ranks (0 .. N-1, or any block or set of a
 * cluster, e.g. one tenant's); position i in that list is the GPU's *job index*.
 * Order names the three dimensions tp, pp and dp, innermost first, as Megatron-Core
 * does (its default order "tp-cp-ep-dp-pp", with context parallel 1). With Order
 * d0-d1-d2 and degrees n0, n1, n2 (n0 x n1 x n2 = N), job index
 *
 *     i = c0 + n0 x (c1 + n1 x c2)
 *
 * where c0, c1, c2 are the GPU's d0, d1, d2 coordinates. Expert parallelism is carved
 * out of DP: ExpertParallel (ep) divides DataParallel, and the GPU's ep coordinate is
 * dp mod ep, so an EP group is ep consecutive DP indices (dp = k x ep .. k x ep +
 * ep - 1) of one (tp, pp) pair; its members share tp and pp and dp / ep.
 *
 * The expert data parallel (edp) group of a GPU holds the replicas of its experts:
 * the dp / ep GPUs of its (tp, pp) pair with its ep coordinate (dp = ep, ep + ep, ...),
 * which AllReduce the experts' gradients as a DP group does the dense ones.
 *
 * The group of dimension X of a GPU is every GPU that shares its other coordinates
 * (for EP: tp, pp and dp / ep; for EDP: tp, pp and dp mod ep), in order of their X
 * coordinate (for EP, of dp mod ep; for EDP, of dp / ep): a GPU's rank in its group of
 * X is its X coordinate. A dimension has N / degree
 * groups, numbered in order of their first member's job index.
 *
 * Example, 16 GPUs 0..15, tp 2, pp 2, dp 4, ep 2, order "tp-dp-pp" (i = tp + 2 x (dp +
 * 4 x pp)): TP groups {0,1}, {2,3}, ..., {14,15}; DP groups {0,2,4,6}, {1,3,5,7},
 * {8,10,12,14}, {9,11,13,15}; PP groups {0,8}, {1,9}, ..., {7,15}; EP groups {0,2},
 * {1,3}, {4,6}, {5,7}, {8,10}, ...
 *
 * With TP innermost (the default), TP groups are runs of tp consecutive job indices:
 * for a job whose GPUs are consecutive ranks starting at a server boundary, with tp
 * dividing gpusPerServer, every TP group is inside one server (on its scale-up
 * domain), whatever the cluster's NIC placement (GPU ranks are numbered by server).
 * IsTensorParallelInsideServers() checks it for a cluster.
 *
 * Set the attributes, then call Setup() once; Setup() refuses, by parameter and
 * value, a degree of 0, TP x PP x DP different from the number of GPUs, ep not
 * dividing dp, an Order with an unknown, missing or repeated dimension, and a GPU
 * listed twice. Attributes changed after Setup() have no effect.
 */
class JobLayout : public Object
{
  public:
    /// The parallel dimensions.
    enum Dimension : uint8_t
    {
        TENSOR = 0,      //!< tensor parallel ("tp")
        PIPELINE = 1,    //!< pipeline parallel ("pp")
        DATA = 2,        //!< data parallel ("dp")
        EXPERT = 3,      //!< expert parallel ("ep"), carved out of DP
        EXPERT_DATA = 4, //!< expert data parallel ("edp"): the replicas of one expert
    };

    /// Number of dimensions (TENSOR .. EXPERT_DATA).
    static constexpr uint32_t N_DIMENSIONS = 5;

    /// The coordinates of one GPU in the job.
    struct Coordinates
    {
        uint32_t tp{0};  //!< tensor parallel index (rank in its TP group)
        uint32_t pp{0};  //!< pipeline stage (rank in its PP group)
        uint32_t dp{0};  //!< data parallel index (rank in its DP group)
        uint32_t ep{0};  //!< dp mod ep (rank in its EP group)
        uint32_t edp{0}; //!< dp / ep (rank in its expert data parallel group)
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    JobLayout();
    ~JobLayout() override;

    /**
     * \param dimension a dimension
     * \return its name in Order and messages: "tp", "pp", "dp" or "ep"
     */
    static std::string GetDimensionName(Dimension dimension);

    /**
     * Check the attributes against the job's GPUs and compute every GPU's coordinates
     * and every group. Once. Stops with a message naming the parameter and its value
     * on bad input (see the class description).
     * \param gpus the job's global GPU ranks; position i is job index i
     */
    void Setup(const std::vector<uint32_t>& gpus);

    /// \return whether Setup() has been called
    bool IsSetup() const;
    /// \return the number of GPUs of the job
    uint32_t GetNGpus() const;
    /// \return the job's GPUs, by job index
    const std::vector<uint32_t>& GetGpus() const;
    /// \param dimension a dimension \return its degree (its groups' size)
    uint32_t GetDegree(Dimension dimension) const;
    /// \return the order of tp, pp and dp, innermost first
    const std::array<Dimension, 3>& GetOrder() const;

    /// \param gpu a global GPU rank \return whether it is one of the job's GPUs
    bool HasGpu(uint32_t gpu) const;
    /// \param gpu one of the job's GPUs (stops otherwise) \return its job index
    uint32_t GetJobIndex(uint32_t gpu) const;
    /// \param gpu one of the job's GPUs \return its coordinates
    const Coordinates& GetCoordinates(uint32_t gpu) const;
    /**
     * \param tp tensor parallel index \param pp pipeline stage \param dp data parallel
     * index (each below its degree; stops otherwise)
     * \return the GPU at those coordinates
     */
    uint32_t GetGpu(uint32_t tp, uint32_t pp, uint32_t dp) const;

    /// \param dimension a dimension \return its number of groups (GPUs / degree)
    uint32_t GetNGroups(Dimension dimension) const;
    /// \param dimension a dimension \return its groups, each its GPUs in group order
    const std::vector<std::vector<uint32_t>>& GetGroups(Dimension dimension) const;
    /**
     * \param dimension a dimension \param group a group number (< GetNGroups)
     * \return the group's GPUs, in group order
     */
    const std::vector<uint32_t>& GetGroup(Dimension dimension, uint32_t group) const;
    /// \param dimension a dimension \param gpu one of the job's GPUs
    /// \return the number of the GPU's group of that dimension
    uint32_t GetGroupIndex(Dimension dimension, uint32_t gpu) const;
    /// \param dimension a dimension \param gpu one of the job's GPUs
    /// \return the GPU's rank in its group of that dimension (its coordinate)
    uint32_t GetRankInGroup(Dimension dimension, uint32_t gpu) const;

    /**
     * Whether every TP group lies inside one server of the cluster (so its traffic
     * stays on the scale-up domain). Logs a warning naming the first group that
     * spans servers. Stops if the cluster has no GPU servers or a job GPU does not
     * exist in it.
     * \param cluster the cluster the job runs on
     * \return true if every TP group is inside one server
     */
    bool IsTensorParallelInsideServers(const ClusterDescription& cluster) const;

    /// \return a one-line summary (degrees, order, GPUs)
    std::string ToString() const;

  private:
    /// Stop unless Setup() has been called. \param what the caller, for the message
    void CheckSetup(const char* what) const;
    /// \param dimension a dimension (stops if out of range) \return its index
    uint32_t CheckDimension(Dimension dimension) const;
    /**
     * \param tp tensor parallel index \param pp pipeline stage \param dp data parallel
     * index (not checked) \return the job index at those coordinates
     */
    uint32_t GetIndex(uint32_t tp, uint32_t pp, uint32_t dp) const;
    /// Parse m_orderString into m_order, stopping on a bad Order.
    void ParseOrder();

    uint32_t m_tp;                    //!< TensorParallel
    uint32_t m_pp;                    //!< PipelineParallel
    uint32_t m_dp;                    //!< DataParallel
    uint32_t m_ep;                    //!< ExpertParallel
    std::string m_orderString;        //!< Order, as set
    std::array<Dimension, 3> m_order; //!< Order, parsed (innermost first)
    bool m_setup;                     //!< Setup() has run

    std::vector<uint32_t> m_gpus;                      //!< job index -> GPU
    std::unordered_map<uint32_t, uint32_t> m_jobIndex; //!< GPU -> job index
    std::vector<Coordinates> m_coordinates;            //!< job index -> coordinates
    std::array<std::vector<std::vector<uint32_t>>, N_DIMENSIONS> m_groups; //!< groups
    std::array<std::vector<uint32_t>, N_DIMENSIONS> m_groupOf;             //!< job index -> group
};

} // namespace ns3

#endif /* AI_FABRIC_JOB_LAYOUT_H */
