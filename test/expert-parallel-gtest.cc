/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The Mixture-of-Experts gates by hand (weights, top-k routing), and death tests
// for bad input to ExpertParallelApplication: each refusal names the parameter and
// its value, before anything runs.

#include "cluster-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>

using namespace ns3;

TEST(ExpertGating, WeightsByHand)
{
    Ptr<ZipfGating> zipf = CreateObject<ZipfGating>();
    // Default s = 1: 1, 1/2, 1/3, 1/4.
    const std::vector<double> harmonic = zipf->GetWeights(4);
    ASSERT_EQ(harmonic.size(), 4u);
    EXPECT_DOUBLE_EQ(harmonic[0], 1);
    EXPECT_DOUBLE_EQ(harmonic[1], 0.5);
    EXPECT_DOUBLE_EQ(harmonic[2], 1.0 / 3);
    EXPECT_DOUBLE_EQ(harmonic[3], 0.25);
    zipf->SetAttribute("Exponent", DoubleValue(2));
    EXPECT_DOUBLE_EQ(zipf->GetWeights(3)[2], 1.0 / 9);
    zipf->SetAttribute("Exponent", DoubleValue(0));
    EXPECT_EQ(zipf->GetWeights(5), std::vector<double>(5, 1.0));

    Ptr<HotExpertGating> hot = CreateObject<HotExpertGating>();
    hot->SetAttribute("HotFraction", DoubleValue(0.4));
    // 0.4 to the hot expert, (1 - 0.4) / 4 = 0.15 to each of the 4 others.
    const std::vector<double> w = hot->GetWeights(5);
    ASSERT_EQ(w.size(), 5u);
    EXPECT_DOUBLE_EQ(w[0], 0.4);
    for (uint32_t i = 1; i < 5; ++i)
    {
        EXPECT_DOUBLE_EQ(w[i], 0.15);
    }
    EXPECT_EQ(hot->GetWeights(1), std::vector<double>(1, 1.0));

    EXPECT_EQ(CreateObject<UniformGating>()->GetWeights(3), std::vector<double>(3, 1.0));
}

TEST(ExpertGating, ShuffleKeepsTheWeights)
{
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(1);
    Ptr<ZipfGating> zipf = CreateObject<ZipfGating>();
    zipf->Setup(8);
    EXPECT_EQ(zipf->GetExperts(), 8u);
    // Before any draw, expert e holds popularity rank e.
    EXPECT_DOUBLE_EQ(zipf->GetExpertWeight(0), 1);
    EXPECT_DOUBLE_EQ(zipf->GetExpertWeight(7), 0.125);
    bool moved = false;
    for (int i = 0; i < 10; ++i)
    {
        zipf->DrawIteration(rng);
        std::vector<double> w;
        for (uint32_t e = 0; e < 8; ++e)
        {
            w.push_back(zipf->GetExpertWeight(e));
        }
        moved = moved || w[0] != 1;
        std::sort(w.begin(), w.end(), std::greater<>());
        EXPECT_EQ(w, zipf->GetWeights(8)) << "a permutation of the ranks' weights";
    }
    EXPECT_TRUE(moved) << "the most popular expert moves between iterations";
    zipf->SetAttribute("Shuffle", BooleanValue(false));
    zipf->DrawIteration(rng);
    EXPECT_DOUBLE_EQ(zipf->GetExpertWeight(0), 1) << "no shuffle: expert 0 the most popular";
}

TEST(ExpertGating, RouteDrawsDistinctExperts)
{
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(2);
    Ptr<ZipfGating> zipf = CreateObject<ZipfGating>();
    zipf->SetAttribute("Exponent", DoubleValue(3));
    zipf->Setup(6);
    zipf->DrawIteration(rng);
    std::vector<uint32_t> experts;
    for (uint32_t k = 1; k <= 6; ++k)
    {
        for (int i = 0; i < 200; ++i)
        {
            zipf->Route(rng, k, experts);
            ASSERT_EQ(experts.size(), k);
            EXPECT_EQ(std::set<uint32_t>(experts.begin(), experts.end()).size(), k) << "distinct";
            for (uint32_t e : experts)
            {
                EXPECT_LT(e, 6u);
            }
        }
    }
    // h = 1, no shuffle: the first expert of every token is the hot one (expert 0);
    // the others have weight 0, so the second is one of them, uniformly.
    Ptr<HotExpertGating> hot = CreateObject<HotExpertGating>();
    hot->SetAttribute("HotFraction", DoubleValue(1));
    hot->SetAttribute("Shuffle", BooleanValue(false));
    hot->Setup(4);
    hot->DrawIteration(rng);
    std::set<uint32_t> second;
    for (int i = 0; i < 100; ++i)
    {
        hot->Route(rng, 2, experts);
        EXPECT_EQ(experts[0], 0u);
        EXPECT_NE(experts[1], 0u);
        second.insert(experts[1]);
    }
    EXPECT_EQ(second.size(), 3u) << "every cold expert drawn second";
}

namespace
{

/// Install an expert-parallel application on GPUs 0..3 of 16 one-GPU servers with
/// one attribute set (and Experts 8 unless that is the attribute).
void
MoeWith(const std::string& attribute, const AttributeValue& value)
{
    ClusterDescription c = SmallCluster(4, 4, 4);
    c.gpusPerServer = 1;
    RdmaCluster<ScheduledFabricHelper> f(c);
    CollectiveHelper collectives;
    collectives.Install(c, f.rdma);
    TrainingApplicationHelper moe("ns3::ExpertParallelApplication");
    moe.SetAttribute("Experts", UintegerValue(8));
    moe.SetAttribute(attribute, value);
    moe.Install(collectives.CreateCommunicator({0, 1, 2, 3}), collectives);
}

} // namespace

TEST(ExpertParallelApplication, DefaultsInstall)
{
    MoeWith("Gating", StringValue("ns3::ZipfGating[Exponent=0.7|Shuffle=false]"));
    MoeWith("TopK", UintegerValue(8));
    MoeWith("Experts", UintegerValue(4));
    SUCCEED();
}

TEST(ExpertParallelDeathTest, BadParametersAreRefusedByName)
{
    EXPECT_DEATH(MoeWith("TopK", UintegerValue(9)),
                 "TopK 9 is larger than Experts 8 \\(a token goes to TopK distinct experts\\)");
    EXPECT_DEATH(MoeWith("TopK", UintegerValue(0)), "TopK 0 must be at least 1");
    EXPECT_DEATH(MoeWith("Experts", UintegerValue(0)), "Experts 0 must be at least 1");
    EXPECT_DEATH(MoeWith("Experts", UintegerValue(6)),
                 "Experts 6 is not a multiple of the 4 ranks of the communicator");
    EXPECT_DEATH(MoeWith("TokensPerRank", UintegerValue(0)), "TokensPerRank 0 must be at least 1");
    EXPECT_DEATH(MoeWith("BytesPerToken", UintegerValue(0)), "BytesPerToken 0 must be at least 1");
    EXPECT_DEATH(MoeWith("ComputeTimePerToken", TimeValue(NanoSeconds(-1))),
                 "ComputeTimePerToken -1.* must not be negative");
    EXPECT_DEATH(MoeWith("Iterations", UintegerValue(0)), "Iterations 0 must be at least 1");
    EXPECT_DEATH(MoeWith("BytesPerToken", UintegerValue(uint64_t{1} << 62)),
                 "4 ranks x TokensPerRank 4096 x TopK 2 x BytesPerToken 4611686018427387904 B "
                 "does not fit in 64 bits");
}

TEST(ExpertParallelDeathTest, BadGatingIsRefusedByName)
{
    EXPECT_DEATH(MoeWith("Gating", StringValue("ns3::ZipfGating[Exponent=-0.5]")),
                 "ZipfGating: Exponent -0.5 must not be negative");
    EXPECT_DEATH(MoeWith("Gating", StringValue("ns3::HotExpertGating[HotFraction=1.5]")),
                 "HotExpertGating: HotFraction 1.5 is not in \\[0, 1\\]");
    EXPECT_DEATH(MoeWith("Gating", StringValue("ns3::HotExpertGating[HotFraction=-0.1]")),
                 "HotExpertGating: HotFraction -0.1 is not in \\[0, 1\\]");
    EXPECT_DEATH(MoeWith("Gating", StringValue("ns3::Node")),
                 "Gating \"ns3::Node\" is not an ExpertGating subclass");
    EXPECT_DEATH(MoeWith("Gating", StringValue("ns3::NoSuchGating[Exponent=1]")),
                 "Gating \"ns3::NoSuchGating\\[Exponent=1\\]\" is not an ExpertGating subclass");
    EXPECT_DEATH(MoeWith("Gating", StringValue("ns3::ExpertGating")),
                 "Gating \"ns3::ExpertGating\" is not an ExpertGating subclass");
}
