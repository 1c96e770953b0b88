/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Sample statistics by hand, and death tests for bad input to the parallelism
// workloads: each refusal names the parameter and its value, before anything runs.

#include "cluster-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <array>
#include <cmath>
#include <gtest/gtest.h>

using namespace ns3;

TEST(SampleStatistics, OneToAHundredByHand)
{
    SampleStatistics s;
    EXPECT_EQ(s.GetCount(), 0u);
    EXPECT_EQ(s.GetPercentile(0.5), 0);
    for (int x = 100; x >= 1; --x)
    {
        s.Add(x);
    }
    EXPECT_EQ(s.GetCount(), 100u);
    EXPECT_DOUBLE_EQ(s.GetMean(), 50.5);
    // Population variance of 1..N: (N^2 - 1) / 12.
    EXPECT_NEAR(s.GetStdDev(), std::sqrt((100.0 * 100 - 1) / 12), 1e-9);
    EXPECT_EQ(s.GetMin(), 1);
    EXPECT_EQ(s.GetMax(), 100);
    // The ceil(N (1 - p))-th largest, 1 - p in double precision: p50 the 50th
    // largest (51), p90 the 10th (91; 100 x (1 - 0.9) = 9.999..), p99 the 2nd (99;
    // 100 x (1 - 0.99) = 1.000..01), p99.9 the largest.
    EXPECT_EQ(s.GetPercentile(0.5), 51);
    EXPECT_EQ(s.GetPercentile(0.9), 91);
    EXPECT_EQ(s.GetPercentile(0.99), 99);
    EXPECT_EQ(s.GetPercentile(0.999), 100);
}

TEST(SampleStatistics, FewSamplesHaveEveryPercentile)
{
    // One sample is every percentile (an MoE layer run once has one dispatch).
    SampleStatistics one;
    one.Add(7);
    EXPECT_EQ(one.GetPercentile(0.5), 7);
    EXPECT_EQ(one.GetPercentile(0.99), 7);
    // Two: p50 is the ceil(2 x 0.5) = 1st largest, p10 the ceil(2 x 0.9) = 2nd, the
    // smallest; p99 the ceil(0.02) = 1st.
    SampleStatistics two;
    two.Add(3);
    two.Add(5);
    EXPECT_EQ(two.GetPercentile(0.5), 5);
    EXPECT_EQ(two.GetPercentile(0.1), 3);
    EXPECT_EQ(two.GetPercentile(0.99), 5);
}

TEST(SampleStatisticsDeathTest, ProbabilityOutsideZeroOne)
{
    SampleStatistics s;
    s.Add(1);
    EXPECT_DEATH(s.GetPercentile(1.0), "percentile probability 1 is not in \\(0, 1\\)");
    EXPECT_DEATH(s.GetPercentile(0), "percentile probability 0 is not in \\(0, 1\\)");
}

namespace
{

/// Install a workload on GPUs 0..3 of 16 one-GPU servers with one attribute set.
void
WorkloadWith(const std::string& typeId, const std::string& attribute, const AttributeValue& value)
{
    ClusterDescription c = SmallCluster(4, 4, 4);
    c.gpusPerServer = 1;
    RdmaCluster<ScheduledFabricHelper> f(c);
    CollectiveHelper collectives;
    collectives.Install(c, f.rdma);
    TrainingApplicationHelper workload(typeId);
    workload.SetAttribute(attribute, value);
    workload.Install(collectives.CreateCommunicator({0, 1, 2, 3}), collectives);
}

} // namespace

TEST(PipelineParallelDeathTest, BadParametersAreRefusedByName)
{
    EXPECT_DEATH(WorkloadWith("ns3::PipelineParallelApplication", "Microbatches", UintegerValue(0)),
                 "Microbatches 0 must be at least 1");
    EXPECT_DEATH(WorkloadWith("ns3::PipelineParallelApplication", "Iterations", UintegerValue(0)),
                 "Iterations 0 must be at least 1");
    EXPECT_DEATH(WorkloadWith("ns3::PipelineParallelApplication", "Stages", UintegerValue(5)),
                 "Stages 5 is larger than the 4 ranks of the communicator");
    EXPECT_DEATH(WorkloadWith("ns3::PipelineParallelApplication",
                              "ForwardTime",
                              TimeValue(MicroSeconds(-1))),
                 "ForwardTime -1.* must not be negative");
    EXPECT_DEATH(WorkloadWith("ns3::PipelineParallelApplication",
                              "Schedule",
                              TypeIdValue(TypeId::LookupByName("ns3::Node"))),
                 "Schedule ns3::Node is not a PipelineSchedule");
}

TEST(DataParallelDeathTest, BadParametersAreRefusedByName)
{
    EXPECT_DEATH(WorkloadWith("ns3::DataParallelApplication", "GradientBytes", UintegerValue(0)),
                 "GradientBytes 0 must be at least 1");
    EXPECT_DEATH(WorkloadWith("ns3::DataParallelApplication", "BucketBytes", UintegerValue(0)),
                 "BucketBytes 0 must be at least 1");
    EXPECT_DEATH(WorkloadWith("ns3::DataParallelApplication", "Iterations", UintegerValue(0)),
                 "DataParallelApplication: Iterations 0 must be at least 1");
}

/**
 * Install a combined job on the 16 one-GPU servers of a small cluster.
 * \param degrees tp, pp, dp, ep \param model the model \param attribute an application
 * attribute to set ("" for none) \param value its value
 */
void
JobWith(std::array<uint32_t, 4> degrees,
        Ptr<TransformerModel> model,
        const std::string& attribute = "",
        const AttributeValue& value = UintegerValue(1))
{
    ClusterDescription c = SmallCluster(4, 4, 4);
    c.gpusPerServer = 1;
    RdmaCluster<ScheduledFabricHelper> f(c);
    CollectiveHelper collectives;
    collectives.Install(c, f.rdma);
    TrainingJobHelper job;
    job.SetLayoutAttribute("TensorParallel", UintegerValue(degrees[0]));
    job.SetLayoutAttribute("PipelineParallel", UintegerValue(degrees[1]));
    job.SetLayoutAttribute("DataParallel", UintegerValue(degrees[2]));
    job.SetLayoutAttribute("ExpertParallel", UintegerValue(degrees[3]));
    job.SetAttribute("Model", PointerValue(model));
    if (!attribute.empty())
    {
        job.SetAttribute(attribute, value);
    }
    std::vector<uint32_t> gpus;
    for (uint32_t g = 0; g < degrees[0] * degrees[1] * degrees[2]; ++g)
    {
        gpus.push_back(g);
    }
    job.Install(gpus, collectives);
}

/// \param name preset \param attribute model attribute \param value its value
/// \return the preset with the attribute set
Ptr<TransformerModel>
ModelWith(const std::string& name, const std::string& attribute, const AttributeValue& value)
{
    Ptr<TransformerModel> model = TransformerModel::CreatePreset(name);
    model->SetAttribute(attribute, value);
    return model;
}

TEST(TrainingJobDeathTest, BadParametersAreRefusedByName)
{
    Ptr<TransformerModel> dense = TransformerModel::CreatePreset("gpt3-1.3b");
    Ptr<TransformerModel> moe = TransformerModel::CreatePreset("mixtral-8x7b");
    EXPECT_DEATH(TransformerModel::CreatePreset("gpt5"),
                 "unknown preset \"gpt5\" \\(known: gpt3-1.3b, gpt3-175b, llama2-70b, "
                 "mixtral-8x7b, custom\\)");
    EXPECT_DEATH(JobWith({1, 1, 4, 1}, dense, "Microbatches", UintegerValue(0)),
                 "Microbatches 0 must be at least 1");
    EXPECT_DEATH(JobWith({1, 1, 4, 1}, dense, "Iterations", UintegerValue(0)),
                 "Iterations 0 must be at least 1");
    EXPECT_DEATH(JobWith({1, 1, 4, 1}, dense, "GpuFlopRate", DoubleValue(0)),
                 "GpuFlopRate 0 must be above 0");
    EXPECT_DEATH(JobWith({1, 1, 4, 1}, dense, "BucketBytes", UintegerValue(0)),
                 "BucketBytes 0 must be at least 1");
    EXPECT_DEATH(
        JobWith({1, 1, 4, 1}, dense, "Schedule", TypeIdValue(TypeId::LookupByName("ns3::Node"))),
        "Schedule ns3::Node is not a PipelineSchedule");
    EXPECT_DEATH(JobWith({1, 5, 1, 1}, dense), "Layers 24 is not a multiple of PipelineParallel 5");
    EXPECT_DEATH(JobWith({1, 1, 4, 2}, dense), "ExpertParallel 2 for a model with no experts");
    EXPECT_DEATH(JobWith({1, 1, 3, 3}, moe),
                 "ExpertParallel 3 does not divide the model's "
                 "Experts 8");
    EXPECT_DEATH(JobWith({1, 1, 4, 4}, ModelWith("mixtral-8x7b", "TopK", UintegerValue(9))),
                 "TopK 9 is above Experts 8");
    EXPECT_DEATH(JobWith({1, 1, 4, 1}, ModelWith("custom", "Hidden", UintegerValue(0))),
                 "Hidden must be at least 1, got 0");
    EXPECT_DEATH(JobWith({1, 1, 4, 4}, moe, "Gating", StringValue("ns3::Node")),
                 "TrainingJobApplication: Gating \"ns3::Node\" is not an ExpertGating");
}

TEST(TrainingApplicationHelperDeathTest, OnlyTrainingApplications)
{
    EXPECT_DEATH(TrainingApplicationHelper("ns3::Node"),
                 "\"ns3::Node\" is not a TrainingApplication");
    EXPECT_DEATH(TrainingApplicationHelper("ns3::NoSuchApplication"),
                 "\"ns3::NoSuchApplication\" is not a TrainingApplication");
}

TEST(StragglerDeathTest, BadSlowdownsAreRefusedByName)
{
    Ptr<GpuCompute> gpu = CreateObject<GpuCompute>();
    EXPECT_DEATH(gpu->ScheduleSlowdown(0, Seconds(1)), "slowdown factor 0 must be above 0");
    EXPECT_DEATH(gpu->ScheduleSlowdown(-2, Seconds(1)), "slowdown factor -2 must be above 0");
    EXPECT_DEATH(
        {
            RdmaCluster<ScheduledFabricHelper> f(SmallCluster(2, 2, 1));
            f.fabric.ScheduleNicSlowdown(0, 1.5, Seconds(0));
        },
        "NIC slowdown fraction 1.5 of host 0 is not in \\(0, 1\\]");
    EXPECT_DEATH(
        {
            RdmaCluster<EthernetClosHelper> f(SmallCluster(2, 2, 1));
            f.fabric.ScheduleNicSlowdown(4, 0.5, Seconds(0));
        },
        "no host 4 \\(4 hosts\\)");
}

TEST(GpuCompute, ScalesComputeFromItsTime)
{
    Ptr<GpuCompute> gpu = CreateObject<GpuCompute>();
    EXPECT_EQ(gpu->GetComputeTime(MilliSeconds(3)), MilliSeconds(3));
    gpu->ScheduleSlowdown(2.5, MilliSeconds(1));
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    EXPECT_EQ(gpu->GetSlowdown(), 2.5);
    EXPECT_EQ(gpu->GetComputeTime(MilliSeconds(2)), MilliSeconds(5));
    Simulator::Destroy();
}
