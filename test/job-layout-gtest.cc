/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Death tests for bad input to JobLayout, JobCommunicators and JobLayoutHelper: each
// refusal names the parameter and its value, and comes at Setup, before anything runs.

#include "cluster-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <gtest/gtest.h>
#include <numeric>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// \param n GPUs \return 0 .. n-1
std::vector<uint32_t>
Gpus(uint32_t n)
{
    std::vector<uint32_t> gpus(n);
    std::iota(gpus.begin(), gpus.end(), 0);
    return gpus;
}

/// Set up a layout of these degrees and order on gpus. \return it
Ptr<JobLayout>
Layout(const std::vector<uint32_t>& gpus,
       uint32_t tp,
       uint32_t pp,
       uint32_t dp,
       uint32_t ep = 1,
       const std::string& order = "tp-dp-pp")
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

/// 16 hosts on the scheduled fabric, two 8-GPU servers on rails, collectives installed.
struct Cluster : RdmaCluster<ScheduledFabricHelper>
{
    CollectiveHelper collectives; //!< servers, communicators, algorithms

    Cluster()
        : RdmaCluster<ScheduledFabricHelper>(SmallCluster(8, 2, 2))
    {
        collectives.Install(SmallCluster(8, 2, 2), rdma);
    }
};

} // namespace

TEST(JobLayout, DefaultsAreOneGpuTpDpPp)
{
    Ptr<JobLayout> layout = CreateObject<JobLayout>();
    EXPECT_FALSE(layout->IsSetup());
    layout->Setup({5});
    EXPECT_TRUE(layout->IsSetup());
    for (auto d : {JobLayout::TENSOR, JobLayout::PIPELINE, JobLayout::DATA, JobLayout::EXPERT})
    {
        EXPECT_EQ(layout->GetDegree(d), 1u);
        EXPECT_EQ(layout->GetNGroups(d), 1u);
        EXPECT_EQ(layout->GetGroup(d, 0), std::vector<uint32_t>{5});
    }
    EXPECT_EQ(layout->GetOrder()[0], JobLayout::TENSOR);
    EXPECT_EQ(layout->GetOrder()[1], JobLayout::DATA);
    EXPECT_EQ(layout->GetOrder()[2], JobLayout::PIPELINE);
    EXPECT_EQ(layout->ToString(), "tp=1 pp=1 dp=1 ep=1 order=tp-dp-pp gpus=1 (first 5, last 5)");
    EXPECT_EQ(JobLayout::GetDimensionName(JobLayout::EXPERT), "ep");
}

TEST(JobLayout, LargeJobDecodesEveryGpu)
{
    // 4096 GPUs, tp 8, pp 8, dp 64, ep 8: GPU 4095 is the last of everything.
    Ptr<JobLayout> layout = Layout(Gpus(4096), 8, 8, 64, 8);
    const JobLayout::Coordinates& c = layout->GetCoordinates(4095);
    EXPECT_EQ(c.tp, 7u);
    EXPECT_EQ(c.pp, 7u);
    EXPECT_EQ(c.dp, 63u);
    EXPECT_EQ(c.ep, 7u);
    EXPECT_EQ(layout->GetNGroups(JobLayout::EXPERT), 512u);
    // i = tp + 8 x (dp + 64 x pp): GPU 8 x 9 + 3 = 75 is tp 3, dp 9, pp 0.
    EXPECT_EQ(layout->GetGpu(3, 0, 9), 75u);
    EXPECT_EQ(layout->GetRankInGroup(JobLayout::EXPERT, 75), 1u);
}

TEST(JobLayoutDeathTest, ProductMustEqualTheGpusNamingAllFour)
{
    EXPECT_DEATH(Layout(Gpus(16), 2, 2, 3),
                 "TensorParallel 2 x PipelineParallel 2 x DataParallel 3 = 12 differs from the "
                 "job's 16 GPUs");
    EXPECT_DEATH(Layout(Gpus(16), 4, 2, 4),
                 "TensorParallel 4 x PipelineParallel 2 x DataParallel 4 = 32 differs from the "
                 "job's 16 GPUs");
    EXPECT_DEATH(Layout({}, 1, 1, 1), "= 1 differs from the job's 0 GPUs");
}

TEST(JobLayoutDeathTest, ZeroDegreesAreRefusedByName)
{
    EXPECT_DEATH(Layout(Gpus(4), 0, 2, 2), "TensorParallel must be at least 1, got 0");
    EXPECT_DEATH(Layout(Gpus(4), 2, 0, 2), "PipelineParallel must be at least 1, got 0");
    EXPECT_DEATH(Layout(Gpus(4), 2, 2, 0), "DataParallel must be at least 1, got 0");
    EXPECT_DEATH(Layout(Gpus(4), 2, 1, 2, 0), "ExpertParallel must be at least 1, got 0");
}

TEST(JobLayoutDeathTest, ExpertParallelMustDivideDataParallel)
{
    EXPECT_DEATH(Layout(Gpus(16), 2, 2, 4, 3), "ExpertParallel 3 does not divide DataParallel 4");
    EXPECT_DEATH(Layout(Gpus(16), 2, 2, 4, 8), "ExpertParallel 8 does not divide DataParallel 4");
}

TEST(JobLayoutDeathTest, BadOrdersAreRefusedByName)
{
    EXPECT_DEATH(Layout(Gpus(8), 2, 2, 2, 1, "tp-xp-pp"),
                 "Order \"tp-xp-pp\": unknown dimension \"xp\" \\(the dimensions are tp, pp and "
                 "dp\\)");
    EXPECT_DEATH(Layout(Gpus(8), 2, 2, 2, 1, "TP-dp-pp"), "unknown dimension \"TP\"");
    EXPECT_DEATH(Layout(Gpus(8), 2, 2, 2, 1, "tp--pp"), "unknown dimension \"\"");
    EXPECT_DEATH(Layout(Gpus(8), 2, 2, 2, 1, "tp-dp"), "Order \"tp-dp\": dimension pp is missing");
    EXPECT_DEATH(Layout(Gpus(8), 2, 2, 2, 1, "tp-dp-tp"),
                 "Order \"tp-dp-tp\": dimension tp is listed twice");
    EXPECT_DEATH(Layout(Gpus(8), 2, 2, 2, 1, "tp-dp-pp-dp"), "dimension dp is listed twice");
    EXPECT_DEATH(Layout(Gpus(8), 2, 2, 2, 2, "tp-ep-dp-pp"),
                 "Order \"tp-ep-dp-pp\": ep is not a dimension of the order");
    EXPECT_DEATH(Layout(Gpus(8), 2, 2, 2, 1, ""), "Order \"\": unknown dimension \"\"");
}

TEST(JobLayoutDeathTest, GpuListedTwiceIsRefused)
{
    EXPECT_DEATH(Layout({0, 1, 2, 1}, 2, 1, 2), "GPU 1 is listed twice \\(job indices 1 and 3\\)");
}

TEST(JobLayoutDeathTest, MisuseIsRefused)
{
    EXPECT_DEATH(
        {
            Ptr<JobLayout> layout = Layout(Gpus(4), 2, 1, 2);
            layout->Setup(Gpus(4));
        },
        "Setup called twice");
    EXPECT_DEATH(CreateObject<JobLayout>()->GetGroups(JobLayout::DATA), "GetGroups before Setup");
    EXPECT_DEATH(Layout(Gpus(4), 2, 1, 2)->GetCoordinates(4), "GPU 4 is not in the job");
    EXPECT_DEATH(Layout(Gpus(4), 2, 1, 2)->GetGroup(JobLayout::TENSOR, 2),
                 "tp group 2 does not exist \\(2 groups\\)");
    EXPECT_DEATH(Layout(Gpus(4), 2, 1, 2)->GetGpu(0, 1, 0),
                 "pp 1 out of range \\(PipelineParallel 1\\)");
    EXPECT_DEATH(
        {
            ClusterDescription c; // 2 leaves x 4 hosts, 8-GPU servers on rails
            Layout(Gpus(8), 8, 1, 1)->IsTensorParallelInsideServers(c);
        },
        "nicPlacement=rail needs leaves a multiple of gpusPerServer");
    EXPECT_DEATH(
        {
            ClusterDescription c; // 8 hosts: one server of GPUs 0..7
            c.nicPlacement = "server";
            c.hostsPerLeaf = 8;
            c.leaves = 1;
            Layout(Gpus(16), 8, 1, 2)->IsTensorParallelInsideServers(c);
        },
        "GPU rank 8 out of range \\(cluster has 8 GPUs\\)");
}

TEST(JobLayoutHelper, TpAndDpCommunicatorsOfTwoServers)
{
    Cluster f;
    JobLayoutHelper job;
    job.SetLayoutAttribute("TensorParallel", UintegerValue(8));
    job.SetLayoutAttribute("DataParallel", UintegerValue(2));
    job.Install(Gpus(16), f.collectives);
    Ptr<Communicator> dp = job.GetCommunicator(JobLayout::DATA, 13);
    ASSERT_EQ(dp->GetSize(), 2u);
    EXPECT_EQ(dp->GetMember(0).gpu, 5u);
    EXPECT_EQ(dp->GetMember(1).gpu, 13u);
    EXPECT_EQ(job.GetRank(JobLayout::DATA, 13), 1u);
    EXPECT_EQ(job.GetCommunicator(JobLayout::TENSOR, 13),
              job.GetGroupCommunicator(JobLayout::TENSOR, 1));
    EXPECT_EQ(job.GetRank(JobLayout::TENSOR, 13), 5u);
    EXPECT_EQ(job.GetCommunicator(JobLayout::PIPELINE, 13)->GetSize(), 1u);
}

TEST(JobLayoutHelperDeathTest, BadInputIsRefusedByName)
{
    EXPECT_DEATH(
        {
            Cluster f;
            JobLayoutHelper job;
            job.SetLayoutAttribute("TensorParallel", UintegerValue(8));
            job.Install(Gpus(16), f.collectives);
        },
        "TensorParallel 8 x PipelineParallel 1 x DataParallel 1 = 8 differs from the job's 16 "
        "GPUs");
    EXPECT_DEATH(
        {
            Cluster f;
            JobLayoutHelper job;
            job.SetLayoutAttribute("DataParallel", UintegerValue(2));
            job.Install(std::vector<uint32_t>{3, 16}, f.collectives);
        },
        "GPU 16 does not exist \\(GPUs 0..15\\)");
    EXPECT_DEATH(
        {
            Cluster f;
            JobLayoutHelper job;
            job.Install(CreateObject<JobLayout>(), f.collectives);
        },
        "Install of a layout before its Setup");
    EXPECT_DEATH(
        {
            Cluster f;
            JobLayoutHelper job;
            job.Install(Gpus(1), f.collectives);
            job.Install(Gpus(1), f.collectives);
        },
        "Install may be called once");
    EXPECT_DEATH(
        {
            Cluster f;
            JobLayoutHelper job;
            job.SetLayoutAttribute("DataParallel", UintegerValue(4));
            job.Install(Gpus(4), f.collectives);
            job.GetCommunicator(JobLayout::DATA, 4);
        },
        "GPU 4 is not in the job");
    EXPECT_DEATH(JobLayoutHelper().GetRank(JobLayout::DATA, 0), "GetRank before Install");
}

TEST(JobCommunicators, OneCommunicatorPerGroupInOrderAsTheHelperBuilds)
{
    Cluster f;
    Ptr<JobLayout> layout = Layout(Gpus(16), 8, 1, 2);
    std::vector<std::vector<uint32_t>> created;
    JobCommunicators job;
    job.Build(layout, [&f, &created](const std::vector<uint32_t>& gpus) {
        created.push_back(gpus);
        return f.collectives.CreateCommunicator(gpus);
    });
    EXPECT_EQ(job.GetLayout(), layout);
    std::vector<std::vector<uint32_t>> groups;
    for (uint32_t d = 0; d < JobLayout::N_DIMENSIONS; ++d)
    {
        const auto& of = layout->GetGroups(static_cast<JobLayout::Dimension>(d));
        groups.insert(groups.end(), of.begin(), of.end());
    }
    EXPECT_EQ(created, groups); // dimension by dimension, groups in order
    EXPECT_EQ(job.GetCommunicator(JobLayout::TENSOR, 13),
              job.GetGroupCommunicator(JobLayout::TENSOR, 1));
    EXPECT_EQ(job.GetRank(JobLayout::TENSOR, 13), 5u);
    EXPECT_EQ(job.GetRank(JobLayout::DATA, 13), 1u);

    JobLayoutHelper helper;
    helper.SetLayoutAttribute("TensorParallel", UintegerValue(8));
    helper.SetLayoutAttribute("DataParallel", UintegerValue(2));
    helper.Install(Gpus(16), f.collectives);
    const JobCommunicators& built = helper.GetJobCommunicators();
    EXPECT_EQ(built.GetLayout(), helper.GetLayout());
    EXPECT_EQ(built.GetCommunicator(JobLayout::DATA, 13),
              helper.GetCommunicator(JobLayout::DATA, 13));
    EXPECT_EQ(built.GetRank(JobLayout::DATA, 13), helper.GetRank(JobLayout::DATA, 13));
}

TEST(JobCommunicatorsDeathTest, MisuseIsRefused)
{
    auto none = [](const std::vector<uint32_t>&) { return Ptr<Communicator>(); };
    EXPECT_DEATH(JobCommunicators().GetRank(JobLayout::DATA, 0),
                 "JobCommunicators: GetRank before Build");
    EXPECT_DEATH(JobCommunicators().Build(nullptr, none), "Build of a null layout");
    EXPECT_DEATH(JobCommunicators().Build(CreateObject<JobLayout>(), none),
                 "Build of a layout before its Setup");
    EXPECT_DEATH(
        {
            JobCommunicators job;
            job.Build(Layout(Gpus(1), 1, 1, 1), none);
            job.Build(Layout(Gpus(1), 1, 1, 1), none);
        },
        "Build may be called once");
    EXPECT_DEATH(CreateObject<TrainingJobApplication>()->SetJob(JobCommunicators()),
                 "SetJob before the job's communicators are built");
}
