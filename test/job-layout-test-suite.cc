/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-job-layout: the map of a TP x PP x DP job (EP carved out of DP) onto its
// GPUs, its groups against the documented order and hand-derived examples, TP
// groups inside servers, and the communicators built from the groups.

#include "cluster-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/test.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Groups of one dimension, each its GPUs in group order.
using Groups = std::vector<std::vector<uint32_t>>;

/// An expected group: dimension, group number and its GPUs in order.
struct ExpectedGroup
{
    JobLayout::Dimension dimension; //!< the dimension
    uint32_t group;                 //!< its number
    std::vector<uint32_t> gpus;     //!< its GPUs, in group order
};

/// \param first first GPU \param count GPUs \return first .. first + count - 1
std::vector<uint32_t>
Block(uint32_t first, uint32_t count)
{
    std::vector<uint32_t> gpus(count);
    std::iota(gpus.begin(), gpus.end(), first);
    return gpus;
}

/// \param gpus a list \return "{a,b,...}"
std::string
Print(const std::vector<uint32_t>& gpus)
{
    std::ostringstream os;
    os << "{";
    for (uint32_t i = 0; i < gpus.size(); ++i)
    {
        os << (i ? "," : "") << gpus[i];
    }
    os << "}";
    return os.str();
}

/// \return a layout of these degrees and order, Setup on gpus
Ptr<JobLayout>
MakeLayout(const std::vector<uint32_t>& gpus,
           uint32_t tp,
           uint32_t pp,
           uint32_t dp,
           uint32_t ep,
           const std::string& order)
{
    Ptr<JobLayout> layout = CreateObject<JobLayout>();
    layout->SetAttribute("TensorParallel", UintegerValue(tp));
    layout->SetAttribute("PipelineParallel", UintegerValue(pp));
    layout->SetAttribute("DataParallel", UintegerValue(dp));
    layout->SetAttribute("ExpertParallel", UintegerValue(ep));
    layout->SetAttribute("Order", StringValue(order));
    layout->Setup(gpus);
    return layout;
}

/// Every dimension.
const JobLayout::Dimension ALL[] = {JobLayout::TENSOR,
                                    JobLayout::PIPELINE,
                                    JobLayout::DATA,
                                    JobLayout::EXPERT,
                                    JobLayout::EXPERT_DATA};

/// \param groups groups of a shape on GPUs 0..N-1 \param map GPU -> GPU
/// \return the same groups with every GPU mapped
std::vector<ExpectedGroup>
MapGpus(std::vector<ExpectedGroup> groups, const std::function<uint32_t(uint32_t)>& map)
{
    for (auto& g : groups)
    {
        for (auto& gpu : g.gpus)
        {
            gpu = map(gpu);
        }
    }
    return groups;
}

/**
 * 16 GPUs 0..15, tp 2, pp 2, dp 4, ep 2, order "tp-dp-pp": job index
 * i = tp + 2 x (dp + 4 x pp). By hand:
 *   TP: GPUs with equal dp and pp, consecutive: {0,1}, {2,3}, ..., {14,15}.
 *   DP: tp and pp fixed, dp = 0..3 in steps of 2: {0,2,4,6} (tp 0, pp 0), {1,3,5,7}
 *       (tp 1, pp 0), {8,10,12,14} (tp 0, pp 1), {9,11,13,15}.
 *   PP: tp and dp fixed, steps of 8: {0,8}, {1,9}, ..., {7,15}.
 *   EP: dp 0-1 and dp 2-3 of each DP group: {0,2}, {1,3}, {4,6}, {5,7}, {8,10},
 *       {9,11}, {12,14}, {13,15} (numbered by their first GPU).
 *   EDP: tp, pp and dp mod 2 fixed, dp = 0, 2 or 1, 3: {0,4} (tp 0, pp 0, dp 0 and 2),
 *       {1,5}, {2,6}, {3,7}, {8,12}, {9,13}, {10,14}, {11,15}.
 * \return the groups
 */
std::vector<ExpectedGroup>
Tp2Pp2Dp4Ep2()
{
    using D = JobLayout::Dimension;
    return {
        {D::TENSOR, 0, {0, 1}},       {D::TENSOR, 1, {2, 3}},        {D::TENSOR, 2, {4, 5}},
        {D::TENSOR, 3, {6, 7}},       {D::TENSOR, 4, {8, 9}},        {D::TENSOR, 5, {10, 11}},
        {D::TENSOR, 6, {12, 13}},     {D::TENSOR, 7, {14, 15}},      {D::DATA, 0, {0, 2, 4, 6}},
        {D::DATA, 1, {1, 3, 5, 7}},   {D::DATA, 2, {8, 10, 12, 14}}, {D::DATA, 3, {9, 11, 13, 15}},
        {D::PIPELINE, 0, {0, 8}},     {D::PIPELINE, 1, {1, 9}},      {D::PIPELINE, 2, {2, 10}},
        {D::PIPELINE, 3, {3, 11}},    {D::PIPELINE, 4, {4, 12}},     {D::PIPELINE, 5, {5, 13}},
        {D::PIPELINE, 6, {6, 14}},    {D::PIPELINE, 7, {7, 15}},     {D::EXPERT, 0, {0, 2}},
        {D::EXPERT, 1, {1, 3}},       {D::EXPERT, 2, {4, 6}},        {D::EXPERT, 3, {5, 7}},
        {D::EXPERT, 4, {8, 10}},      {D::EXPERT, 5, {9, 11}},       {D::EXPERT, 6, {12, 14}},
        {D::EXPERT, 7, {13, 15}},     {D::EXPERT_DATA, 0, {0, 4}},   {D::EXPERT_DATA, 1, {1, 5}},
        {D::EXPERT_DATA, 2, {2, 6}},  {D::EXPERT_DATA, 3, {3, 7}},   {D::EXPERT_DATA, 4, {8, 12}},
        {D::EXPERT_DATA, 5, {9, 13}}, {D::EXPERT_DATA, 6, {10, 14}}, {D::EXPERT_DATA, 7, {11, 15}},
    };
}

/**
 * 64 GPUs, tp 8, pp 2, dp 4, ep 4, "tp-dp-pp": i = tp + 8 x (dp + 4 x pp). By hand:
 * TP groups are the eight servers' GPUs ({0..7}, group 3 {24..31}, group 7
 * {56..63}); DP groups step by 8 within a stage (group 0 {0,8,16,24}, group 7
 * {7,15,23,31}, group 9 = tp 1 of stage 1 {33,41,49,57}); PP groups are {k, k+32}
 * (group 10 {10,42}, group 31 {31,63}); ep = dp, so EP groups are the DP groups.
 * \return some of the groups
 */
std::vector<ExpectedGroup>
Tp8Pp2Dp4Ep4()
{
    using D = JobLayout::Dimension;
    return {
        {D::TENSOR, 0, {0, 1, 2, 3, 4, 5, 6, 7}},
        {D::TENSOR, 3, {24, 25, 26, 27, 28, 29, 30, 31}},
        {D::TENSOR, 7, {56, 57, 58, 59, 60, 61, 62, 63}},
        {D::DATA, 0, {0, 8, 16, 24}},
        {D::DATA, 7, {7, 15, 23, 31}},
        {D::DATA, 9, {33, 41, 49, 57}},
        {D::PIPELINE, 0, {0, 32}},
        {D::PIPELINE, 10, {10, 42}},
        {D::PIPELINE, 31, {31, 63}},
        {D::EXPERT, 0, {0, 8, 16, 24}},
        {D::EXPERT, 9, {33, 41, 49, 57}},
        {D::EXPERT, 15, {39, 47, 55, 63}},
    };
}

/**
 * 24 GPUs, tp 4, pp 3, dp 2, ep 1, "tp-dp-pp": i = tp + 4 x (dp + 2 x pp). By hand:
 *   TP: {0..3}, {4..7}, ..., {20..23}.
 *   DP: {0,4}, {1,5}, {2,6}, {3,7} (stage 0), {8,12}, ..., {11,15} (stage 1),
 *       {16,20}, ..., {19,23} (stage 2).
 *   PP: {k, k+8, k+16} for k = 0..7.
 *   EP: ep 1, every GPU its own group {k}.
 * \return the groups
 */
std::vector<ExpectedGroup>
Tp4Pp3Dp2Ep1()
{
    using D = JobLayout::Dimension;
    std::vector<ExpectedGroup> groups;
    for (uint32_t g = 0; g < 6; ++g)
    {
        groups.push_back({D::TENSOR, g, Block(4 * g, 4)});
    }
    const std::vector<std::vector<uint32_t>> dp = {{0, 4},
                                                   {1, 5},
                                                   {2, 6},
                                                   {3, 7},
                                                   {8, 12},
                                                   {9, 13},
                                                   {10, 14},
                                                   {11, 15},
                                                   {16, 20},
                                                   {17, 21},
                                                   {18, 22},
                                                   {19, 23}};
    for (uint32_t g = 0; g < dp.size(); ++g)
    {
        groups.push_back({D::DATA, g, dp[g]});
    }
    for (uint32_t k = 0; k < 8; ++k)
    {
        groups.push_back({D::PIPELINE, k, {k, k + 8, k + 16}});
    }
    for (uint32_t k = 0; k < 24; ++k)
    {
        groups.push_back({D::EXPERT, k, {k}});
    }
    return groups;
}

/**
 * 16 GPUs, tp 2, pp 2, dp 4, ep 2, order "tp-pp-dp": i = tp + 2 x (pp + 2 x dp). By
 * hand:
 *   TP: {0,1}, {2,3}, ..., {14,15}.
 *   PP: tp and dp fixed, steps of 2: {0,2}, {1,3}, {4,6}, {5,7}, {8,10}, {9,11},
 *       {12,14}, {13,15}.
 *   DP: steps of 4: {0,4,8,12}, {1,5,9,13}, {2,6,10,14}, {3,7,11,15}.
 *   EP: dp 0-1 and dp 2-3: {0,4}, {1,5}, {2,6}, {3,7}, {8,12}, {9,13}, {10,14},
 *       {11,15}.
 * \return the groups
 */
std::vector<ExpectedGroup>
Tp2Pp2Dp4Ep2TpPpDp()
{
    using D = JobLayout::Dimension;
    std::vector<ExpectedGroup> groups;
    for (uint32_t g = 0; g < 8; ++g)
    {
        groups.push_back({D::TENSOR, g, {2 * g, 2 * g + 1}});
    }
    const std::vector<std::vector<uint32_t>> pp =
        {{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}};
    const std::vector<std::vector<uint32_t>> ep =
        {{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}};
    for (uint32_t g = 0; g < 8; ++g)
    {
        groups.push_back({D::PIPELINE, g, pp[g]});
        groups.push_back({D::EXPERT, g, ep[g]});
    }
    groups.push_back({D::DATA, 0, {0, 4, 8, 12}});
    groups.push_back({D::DATA, 1, {1, 5, 9, 13}});
    groups.push_back({D::DATA, 2, {2, 6, 10, 14}});
    groups.push_back({D::DATA, 3, {3, 7, 11, 15}});
    return groups;
}

/**
 * 8 GPUs, tp 2, pp 2, dp 2, ep 2, order "pp-dp-tp" (TP outermost): i = pp + 2 x (dp +
 * 2 x tp). By hand: PP {0,1}, {2,3}, {4,5}, {6,7}; DP {0,2}, {1,3}, {4,6}, {5,7}; TP
 * {0,4}, {1,5}, {2,6}, {3,7}; ep = dp, so EP groups are the DP groups.
 * \return the groups
 */
std::vector<ExpectedGroup>
PpDpTp()
{
    using D = JobLayout::Dimension;
    return {
        {D::PIPELINE, 0, {0, 1}},
        {D::PIPELINE, 1, {2, 3}},
        {D::PIPELINE, 2, {4, 5}},
        {D::PIPELINE, 3, {6, 7}},
        {D::DATA, 0, {0, 2}},
        {D::DATA, 1, {1, 3}},
        {D::DATA, 2, {4, 6}},
        {D::DATA, 3, {5, 7}},
        {D::TENSOR, 0, {0, 4}},
        {D::TENSOR, 1, {1, 5}},
        {D::TENSOR, 2, {2, 6}},
        {D::TENSOR, 3, {3, 7}},
        {D::EXPERT, 0, {0, 2}},
        {D::EXPERT, 1, {1, 3}},
        {D::EXPERT, 2, {4, 6}},
        {D::EXPERT, 3, {5, 7}},
    };
}

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief One job shape: every GPU in exactly one group per dimension, group sizes
 * equal to the degrees, coordinates decoding the job index as the documented order
 * says (i = c0 + n0 x (c1 + n1 x c2), recomputed here from the Order string), each
 * group the GPUs sharing the other coordinates in order of the group's own (EP:
 * sharing tp, pp and dp / ep, in order of dp mod ep), groups numbered by their first
 * member, GetGpu the inverse, and the hand-derived groups given.
 */
class JobLayoutGroupsTestCase : public TestCase
{
  public:
    /**
     * \param name what the shape is \param gpus the job's GPUs
     * \param tp TP \param pp PP \param dp DP \param ep EP \param order Order
     * \param expected hand-derived groups
     */
    JobLayoutGroupsTestCase(const std::string& name,
                            const std::vector<uint32_t>& gpus,
                            uint32_t tp,
                            uint32_t pp,
                            uint32_t dp,
                            uint32_t ep,
                            const std::string& order,
                            const std::vector<ExpectedGroup>& expected)
        : TestCase(name + ": tp " + std::to_string(tp) + " pp " + std::to_string(pp) + " dp " +
                   std::to_string(dp) + " ep " + std::to_string(ep) + " order " + order +
                   ", groups as the order says"),
          m_gpus(gpus),
          m_tp(tp),
          m_pp(pp),
          m_dp(dp),
          m_ep(ep),
          m_order(order),
          m_expected(expected)
    {
    }

  private:
    /// Check the groups, sizes and coordinates of the shape.
    void DoRun() override
    {
        Ptr<JobLayout> layout = MakeLayout(m_gpus, m_tp, m_pp, m_dp, m_ep, m_order);
        const uint32_t n = static_cast<uint32_t>(m_gpus.size());
        NS_TEST_ASSERT_MSG_EQ(layout->GetNGpus(), n, "GPUs");
        NS_TEST_ASSERT_MSG_EQ((layout->GetGpus() == m_gpus), true, "GPUs in job order");

        // The documented decoding, from the Order string: innermost first.
        std::vector<std::string> names;
        std::istringstream is(m_order);
        for (std::string name; std::getline(is, name, '-');)
        {
            names.push_back(name);
        }
        NS_TEST_ASSERT_MSG_EQ(names.size(), 3, "three dimensions in the order");
        auto degreeOf = [this](const std::string& name) {
            return name == "tp" ? m_tp : name == "pp" ? m_pp : m_dp;
        };
        for (uint32_t i = 0; i < n; ++i)
        {
            uint32_t rest = i;
            uint32_t tp = 0;
            uint32_t pp = 0;
            uint32_t dp = 0;
            for (const std::string& name : names)
            {
                uint32_t& c = name == "tp" ? tp : name == "pp" ? pp : dp;
                c = rest % degreeOf(name);
                rest /= degreeOf(name);
            }
            const uint32_t gpu = m_gpus[i];
            const JobLayout::Coordinates& c = layout->GetCoordinates(gpu);
            NS_TEST_ASSERT_MSG_EQ(c.tp, tp, "tp of GPU " << gpu);
            NS_TEST_ASSERT_MSG_EQ(c.pp, pp, "pp of GPU " << gpu);
            NS_TEST_ASSERT_MSG_EQ(c.dp, dp, "dp of GPU " << gpu);
            NS_TEST_ASSERT_MSG_EQ(c.ep, dp % m_ep, "ep of GPU " << gpu);
            NS_TEST_ASSERT_MSG_EQ(layout->GetJobIndex(gpu), i, "job index of GPU " << gpu);
            NS_TEST_ASSERT_MSG_EQ(layout->GetGpu(tp, pp, dp), gpu, "GetGpu inverts");
        }

        for (JobLayout::Dimension d : ALL)
        {
            const std::string name = JobLayout::GetDimensionName(d);
            const uint32_t degree = layout->GetDegree(d);
            NS_TEST_ASSERT_MSG_EQ(layout->GetNGroups(d), n / degree, name << " groups");
            std::vector<uint32_t> seen(n, 0);
            int64_t previousFirst = -1;
            for (uint32_t g = 0; g < layout->GetNGroups(d); ++g)
            {
                const std::vector<uint32_t>& group = layout->GetGroup(d, g);
                NS_TEST_ASSERT_MSG_EQ(group.size(), degree, name << " group " << g << " size");
                const JobLayout::Coordinates& head = layout->GetCoordinates(group.front());
                const int64_t first = layout->GetJobIndex(group.front());
                NS_TEST_ASSERT_MSG_GT(first, previousFirst, name << " groups by first member");
                previousFirst = first;
                for (uint32_t r = 0; r < group.size(); ++r)
                {
                    const uint32_t gpu = group[r];
                    NS_TEST_ASSERT_MSG_EQ(layout->HasGpu(gpu), true, "a job GPU");
                    seen[layout->GetJobIndex(gpu)]++;
                    NS_TEST_ASSERT_MSG_EQ(layout->GetGroupIndex(d, gpu), g, "group of " << gpu);
                    NS_TEST_ASSERT_MSG_EQ(layout->GetRankInGroup(d, gpu), r, "rank of " << gpu);
                    const JobLayout::Coordinates& c = layout->GetCoordinates(gpu);
                    // The other coordinates are shared; the group's own is the rank.
                    const bool shareTp = c.tp == head.tp;
                    const bool sharePp = c.pp == head.pp;
                    const bool shareDp = c.dp == head.dp;
                    switch (d)
                    {
                    case JobLayout::TENSOR:
                        NS_TEST_ASSERT_MSG_EQ((sharePp && shareDp && c.tp == r), true, name);
                        break;
                    case JobLayout::PIPELINE:
                        NS_TEST_ASSERT_MSG_EQ((shareTp && shareDp && c.pp == r), true, name);
                        break;
                    case JobLayout::DATA:
                        NS_TEST_ASSERT_MSG_EQ((shareTp && sharePp && c.dp == r), true, name);
                        break;
                    case JobLayout::EXPERT:
                        NS_TEST_ASSERT_MSG_EQ((shareTp && sharePp &&
                                               c.dp / m_ep == head.dp / m_ep && c.dp % m_ep == r),
                                              true,
                                              name);
                        break;
                    case JobLayout::EXPERT_DATA:
                        NS_TEST_ASSERT_MSG_EQ((shareTp && sharePp &&
                                               c.dp % m_ep == head.dp % m_ep && c.dp / m_ep == r),
                                              true,
                                              name);
                        break;
                    }
                }
            }
            for (uint32_t i = 0; i < n; ++i)
            {
                NS_TEST_ASSERT_MSG_EQ(seen[i],
                                      1,
                                      "GPU " << m_gpus[i] << " in exactly one " << name
                                             << " group");
            }
        }

        for (const ExpectedGroup& e : m_expected)
        {
            const std::vector<uint32_t>& got = layout->GetGroup(e.dimension, e.group);
            NS_TEST_EXPECT_MSG_EQ((got == e.gpus),
                                  true,
                                  JobLayout::GetDimensionName(e.dimension)
                                      << " group " << e.group << ": got " << Print(got)
                                      << ", expected " << Print(e.gpus));
        }
    }

    std::vector<uint32_t> m_gpus;          //!< the job's GPUs
    uint32_t m_tp;                         //!< TP
    uint32_t m_pp;                         //!< PP
    uint32_t m_dp;                         //!< DP
    uint32_t m_ep;                         //!< EP
    std::string m_order;                   //!< Order
    std::vector<ExpectedGroup> m_expected; //!< hand-derived groups
};

/**
 * \ingroup ai-fabric-tests
 * \brief TP groups inside servers, on 64 GPUs in 8-GPU servers with rail and with
 * server NIC placement (GPU ranks are numbered by server under both, so the answer
 * does not depend on the placement):
 *   - the whole cluster with tp 8, 4, 2 or 1 (TP innermost): inside;
 *   - 16 GPUs 8..23 (from a server boundary), tp 8: inside;
 *   - 16 GPUs 4..19 (from the middle of server 0), tp 8: {4..11} spans servers 0 and
 *     1, not inside; with tp 4 ({4..7}, {8..11}, ...): inside;
 *   - tp 16 on the whole cluster: not inside;
 *   - tp 3 on GPUs 0..23 (3 does not divide 8): {6,7,8} spans servers, not inside;
 *   - TP outermost ("dp-pp-tp", tp 8, dp 8): TP groups {k, k+8, ...}, not inside;
 *   - 4-GPU servers, tp 8: not inside.
 */
class JobLayoutTensorInsideServersTestCase : public TestCase
{
  public:
    /// \param placement nicPlacement
    explicit JobLayoutTensorInsideServersTestCase(const std::string& placement)
        : TestCase("TP groups inside 8-GPU servers, " + placement + " placement"),
          m_placement(placement)
    {
    }

  private:
    /// Check the TP groups stay inside servers.
    void DoRun() override
    {
        ClusterDescription c = SmallCluster(8, 8, 2);
        c.nicPlacement = m_placement;
        c.ValidateServers();
        NS_TEST_ASSERT_MSG_EQ(c.GetServers(), 8, "eight servers");
        auto inside = [&c](const std::vector<uint32_t>& gpus,
                           uint32_t tp,
                           uint32_t pp,
                           uint32_t dp,
                           const std::string& order) {
            return MakeLayout(gpus, tp, pp, dp, 1, order)->IsTensorParallelInsideServers(c);
        };
        NS_TEST_EXPECT_MSG_EQ(inside(Block(0, 64), 8, 2, 4, "tp-dp-pp"), true, "tp 8");
        NS_TEST_EXPECT_MSG_EQ(inside(Block(0, 64), 4, 4, 4, "tp-dp-pp"), true, "tp 4");
        NS_TEST_EXPECT_MSG_EQ(inside(Block(0, 64), 2, 8, 4, "tp-pp-dp"), true, "tp 2");
        NS_TEST_EXPECT_MSG_EQ(inside(Block(0, 64), 1, 8, 8, "tp-dp-pp"), true, "tp 1");
        NS_TEST_EXPECT_MSG_EQ(inside(Block(8, 16), 8, 1, 2, "tp-dp-pp"),
                              true,
                              "from a server boundary");
        NS_TEST_EXPECT_MSG_EQ(inside(Block(4, 16), 8, 1, 2, "tp-dp-pp"),
                              false,
                              "from the middle of a server, tp 8");
        NS_TEST_EXPECT_MSG_EQ(inside(Block(4, 16), 4, 2, 2, "tp-dp-pp"),
                              true,
                              "from the middle of a server, tp 4");
        NS_TEST_EXPECT_MSG_EQ(inside(Block(0, 64), 16, 1, 4, "tp-dp-pp"), false, "tp 16");
        NS_TEST_EXPECT_MSG_EQ(inside(Block(0, 24), 3, 1, 8, "tp-dp-pp"),
                              false,
                              "tp 3 does not divide 8: {6,7,8} spans servers 0 and 1");
        NS_TEST_EXPECT_MSG_EQ(inside(Block(0, 64), 8, 1, 8, "dp-pp-tp"), false, "TP outermost");

        ClusterDescription small = c;
        small.gpusPerServer = 4;
        NS_TEST_EXPECT_MSG_EQ(
            MakeLayout(Block(0, 64), 8, 2, 4, 1, "tp-dp-pp")->IsTensorParallelInsideServers(small),
            false,
            "4-GPU servers, tp 8");
    }

    std::string m_placement; //!< nicPlacement
};

/**
 * \ingroup ai-fabric-tests
 * \brief Communicators of a job on a fabric (64 GPUs in 8-GPU servers, rail
 * placement): one per group of each dimension, with distinct numbers; rank r of a
 * group's communicator is the group's r-th GPU (on the right server and NIC), and
 * GetCommunicator / GetRank of every GPU give that communicator and rank. Then an
 * AllReduce of 1 MB on a TP communicator and one on a PP communicator run at once
 * and complete: the TP one (a whole server) entirely over the scale-up domain, the PP
 * one (stages on different servers) entirely over the NICs.
 */
template <typename FabricHelper>
class JobLayoutCommunicatorsTestCase : public TestCase
{
  public:
    /**
     * \param fabric fabric name \param first first GPU \param count GPUs
     * \param tp TP \param pp PP \param dp DP \param ep EP
     */
    JobLayoutCommunicatorsTestCase(const std::string& fabric,
                                   uint32_t first,
                                   uint32_t count,
                                   uint32_t tp,
                                   uint32_t pp,
                                   uint32_t dp,
                                   uint32_t ep)
        : TestCase("communicators of a job on GPUs " + std::to_string(first) + " to " +
                   std::to_string(first + count - 1) + ", tp " + std::to_string(tp) + " pp " +
                   std::to_string(pp) + " dp " + std::to_string(dp) + " ep " + std::to_string(ep) +
                   ", " + fabric),
          m_first(first),
          m_count(count),
          m_tp(tp),
          m_pp(pp),
          m_dp(dp),
          m_ep(ep)
    {
    }

  private:
    /// Create the job's communicators and check their members.
    void DoRun() override
    {
        ClusterDescription c = SmallCluster(8, 8, 2);
        RdmaCluster<FabricHelper> f(c);
        CollectiveHelper collectives;
        collectives.Install(c, f.rdma);

        JobLayoutHelper job;
        job.SetLayoutAttribute("TensorParallel", UintegerValue(m_tp));
        job.SetLayoutAttribute("PipelineParallel", UintegerValue(m_pp));
        job.SetLayoutAttribute("DataParallel", UintegerValue(m_dp));
        job.SetLayoutAttribute("ExpertParallel", UintegerValue(m_ep));
        Ptr<JobLayout> layout = job.Install(Block(m_first, m_count), collectives);
        NS_TEST_ASSERT_MSG_EQ(job.GetLayout(), layout, "the helper keeps the layout");
        NS_TEST_ASSERT_MSG_EQ(layout->GetDegree(JobLayout::TENSOR), m_tp, "attributes reach it");

        std::vector<uint32_t> ids;
        for (JobLayout::Dimension d : ALL)
        {
            for (uint32_t g = 0; g < layout->GetNGroups(d); ++g)
            {
                const std::vector<uint32_t>& group = layout->GetGroup(d, g);
                Ptr<Communicator> comm = job.GetGroupCommunicator(d, g);
                NS_TEST_ASSERT_MSG_EQ(comm->GetSize(), group.size(), "communicator size");
                ids.push_back(comm->GetId());
                for (uint32_t r = 0; r < group.size(); ++r)
                {
                    const Communicator::Member& m = comm->GetMember(r);
                    NS_TEST_ASSERT_MSG_EQ(m.gpu, group[r], "rank " << r << " is the r-th GPU");
                    NS_TEST_ASSERT_MSG_EQ(m.server, c.GetServerOfRank(group[r]), "its server");
                    NS_TEST_ASSERT_MSG_EQ(m.transport,
                                          f.rdma.GetTransport(c.GetHostOfGpu(group[r])),
                                          "its NIC");
                    NS_TEST_ASSERT_MSG_EQ(job.GetCommunicator(d, group[r]), comm, "by GPU");
                    NS_TEST_ASSERT_MSG_EQ(job.GetRank(d, group[r]), r, "rank by GPU");
                }
            }
        }
        uint32_t expected = 0;
        for (JobLayout::Dimension d : ALL)
        {
            expected += m_count / layout->GetDegree(d);
        }
        NS_TEST_ASSERT_MSG_EQ(ids.size(), expected, "one communicator per group");
        std::sort(ids.begin(), ids.end());
        NS_TEST_ASSERT_MSG_EQ((std::adjacent_find(ids.begin(), ids.end()) == ids.end()),
                              true,
                              "every communicator its own number");

        Ptr<Communicator> tp = job.GetCommunicator(JobLayout::TENSOR, m_first);
        Ptr<Communicator> pp = job.GetCommunicator(JobLayout::PIPELINE, m_first);
        CollectiveResult tpResult;
        CollectiveResult ppResult;
        collectives.Start(tp,
                          "AllReduce",
                          1000000,
                          CollectiveOperation::DoneCallback(
                              [&tpResult](const CollectiveResult& r) { tpResult = r; }));
        collectives.Start(pp,
                          "AllReduce",
                          1000000,
                          CollectiveOperation::DoneCallback(
                              [&ppResult](const CollectiveResult& r) { ppResult = r; }));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(tpResult.ranks, m_tp, "the TP AllReduce completes");
        NS_TEST_ASSERT_MSG_EQ(ppResult.ranks, m_pp, "the PP AllReduce completes");
        for (uint32_t rank = 0; rank < m_tp; ++rank)
        {
            NS_TEST_EXPECT_MSG_GT(tpResult.bytesSent[rank], 0, "every TP rank sends");
            NS_TEST_EXPECT_MSG_EQ(tpResult.scaleUpBytesSent[rank],
                                  tpResult.bytesSent[rank],
                                  "TP inside the server");
        }
        for (uint32_t rank = 0; rank < m_pp; ++rank)
        {
            NS_TEST_EXPECT_MSG_GT(ppResult.bytesSent[rank], 0, "every PP rank sends");
            NS_TEST_EXPECT_MSG_EQ(ppResult.scaleUpBytesSent[rank], 0, "PP over the NICs");
        }
    }

    uint32_t m_first; //!< first GPU
    uint32_t m_count; //!< GPUs
    uint32_t m_tp;    //!< TP
    uint32_t m_pp;    //!< PP
    uint32_t m_dp;    //!< DP
    uint32_t m_ep;    //!< EP
};

/**
 * \ingroup ai-fabric-tests
 * \brief The job layout test suite.
 */
class JobLayoutTestSuite : public TestSuite
{
  public:
    JobLayoutTestSuite()
        : TestSuite("ai-fabric-job-layout", TestSuite::Type::UNIT)
    {
        AddTestCase(new JobLayoutGroupsTestCase("16 GPUs",
                                                Block(0, 16),
                                                2,
                                                2,
                                                4,
                                                2,
                                                "tp-dp-pp",
                                                Tp2Pp2Dp4Ep2()));
        AddTestCase(new JobLayoutGroupsTestCase("64 GPUs",
                                                Block(0, 64),
                                                8,
                                                2,
                                                4,
                                                4,
                                                "tp-dp-pp",
                                                Tp8Pp2Dp4Ep4()));
        AddTestCase(new JobLayoutGroupsTestCase("24 GPUs",
                                                Block(0, 24),
                                                4,
                                                3,
                                                2,
                                                1,
                                                "tp-dp-pp",
                                                Tp4Pp3Dp2Ep1()));
        AddTestCase(new JobLayoutGroupsTestCase("16 GPUs",
                                                Block(0, 16),
                                                2,
                                                2,
                                                4,
                                                2,
                                                "tp-pp-dp",
                                                Tp2Pp2Dp4Ep2TpPpDp()));
        AddTestCase(new JobLayoutGroupsTestCase("8 GPUs, TP outermost",
                                                Block(0, 8),
                                                2,
                                                2,
                                                2,
                                                2,
                                                "pp-dp-tp",
                                                PpDpTp()));
        // A tenant's block: the 16-GPU shape shifted by 16.
        AddTestCase(new JobLayoutGroupsTestCase(
            "GPUs 16 to 31",
            Block(16, 16),
            2,
            2,
            4,
            2,
            "tp-dp-pp",
            MapGpus(Tp2Pp2Dp4Ep2(), [](uint32_t g) { return g + 16; })));
        // Any list: job index i is the i-th listed GPU, here 15 - i.
        std::vector<uint32_t> reversed = Block(0, 16);
        std::reverse(reversed.begin(), reversed.end());
        AddTestCase(new JobLayoutGroupsTestCase(
            "GPUs 15 down to 0",
            reversed,
            2,
            2,
            4,
            2,
            "tp-dp-pp",
            MapGpus(Tp2Pp2Dp4Ep2(), [](uint32_t g) { return 15 - g; })));
        // Degrees of 1, ep = dp.
        AddTestCase(new JobLayoutGroupsTestCase("one GPU", {7}, 1, 1, 1, 1, "tp-dp-pp", {}));
        AddTestCase(new JobLayoutGroupsTestCase("12 GPUs, pure DP",
                                                Block(0, 12),
                                                1,
                                                1,
                                                12,
                                                12,
                                                "dp-tp-pp",
                                                {
                                                    {JobLayout::DATA, 0, Block(0, 12)},
                                                    {JobLayout::EXPERT, 0, Block(0, 12)},
                                                    {JobLayout::TENSOR, 11, {11}},
                                                }));

        AddTestCase(new JobLayoutTensorInsideServersTestCase("rail"));
        AddTestCase(new JobLayoutTensorInsideServersTestCase("server"));

        AddTestCase(new JobLayoutCommunicatorsTestCase<ScheduledFabricHelper>("scheduled",
                                                                              0,
                                                                              64,
                                                                              8,
                                                                              2,
                                                                              4,
                                                                              4));
        AddTestCase(
            new JobLayoutCommunicatorsTestCase<EthernetClosHelper>("Ethernet", 16, 32, 4, 2, 4, 2));
    }
};

/// The suite's static instance.
static JobLayoutTestSuite g_jobLayoutTestSuite;
