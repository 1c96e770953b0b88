/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-stragglers: a slow GPU and a slow NIC, and what the workloads' metrics
// show about who waited.

#include "collective-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/test.h"

#include <iostream>
#include <string>

using namespace ns3;

/**
 * GPipe, S = 3 stages on GPUs 0, 5 and 10 (different leaves), M = 5, tF = 1 ms,
 * tB = 2 ms, tiny activations. Iteration 0 at full speed: (M + S - 1)(tF + tB) =
 * 21 ms. From 20 ms on stage 1's GPU runs at half speed (2 ms and 4 ms passes; its
 * passes of iteration 0 have all started by then), so iteration 1 follows stage 1:
 * stage 1 forwards microbatch m over [1 + 2m, 3 + 2m] ms, stage 2 ends its forward
 * passes at 12 ms and its backward passes B4 .. B0 at 14, 16, .. 22 ms; stage 1
 * runs B4 over [14, 18], then one every 4 ms to 34 ms; stage 0 ends B0 at 36 ms.
 *
 *   T_1 = 36 ms; bubble = 1 - 30/36 = 1/6 on stage 1, 1 - 15/36 on the others
 *
 * (over both iterations: stage 1 busy 15 + 30 ms of 57, the others 15 + 15 of 57),
 * plus a few microseconds of transfers; within 1%.
 */
class SlowGpuPipelineTestCase : public TestCase
{
  public:
    SlowGpuPipelineTestCase()
        : TestCase("a GPU at half speed from the second iteration: the pipeline follows it")
    {
    }

  private:
    /// Run two iterations with stage 1 slowed from 20 ms and check both times.
    void DoRun() override
    {
        GpuCluster<ScheduledFabricHelper> f(OneGpuServers());
        f.collectives.GetGpuCompute(5)->ScheduleSlowdown(2.0, MilliSeconds(20));
        TrainingApplicationHelper pipeline("ns3::PipelineParallelApplication");
        pipeline.SetAttribute("Schedule", TypeIdValue(GpipeSchedule::GetTypeId()));
        pipeline.SetAttribute("Microbatches", UintegerValue(5));
        pipeline.SetAttribute("Iterations", UintegerValue(2));
        pipeline.SetAttribute("ActivationBytes", UintegerValue(4096));
        ApplicationContainer apps =
            pipeline.Install(f.collectives.CreateCommunicator({0, 5, 10}), f.collectives);
        Simulator::Run();
        Ptr<PipelineParallelApplication> app =
            DynamicCast<PipelineParallelApplication>(apps.Get(0));
        NS_TEST_ASSERT_MSG_EQ(app->GetIterationsDone(), 2u, "two iterations");
        const double t0 = app->GetIterationTimes()[0].GetSeconds();
        const double t1 = app->GetIterationTimes()[1].GetSeconds();
        std::cout << GetName() << ": iterations " << t0 * 1e3 << " and " << t1 * 1e3
                  << " ms, bubbles " << app->GetBubbleFraction(0) << " "
                  << app->GetBubbleFraction(1) << " " << app->GetBubbleFraction(2) << std::endl;
        NS_TEST_EXPECT_MSG_EQ_TOL(t0 / 21e-3, 1.0, 0.01, "full speed");
        NS_TEST_EXPECT_MSG_EQ_TOL(t1 / 36e-3, 1.0, 0.01, "following the slow stage");
        const double total = t0 + t1;
        NS_TEST_EXPECT_MSG_EQ_TOL(app->GetBubbleFraction(1), 1 - 45e-3 / total, 0.01, "slow");
        NS_TEST_EXPECT_MSG_EQ_TOL(app->GetBubbleFraction(0), 1 - 30e-3 / total, 0.01, "waits");
        NS_TEST_EXPECT_MSG_EQ_TOL(app->GetBubbleFraction(2), 1 - 30e-3 / total, 0.01, "waits");
    }
};

/**
 * Data parallel on 8 ranks, F = 10 ms, B = 40 ms, 8 buckets of 4 MB; GPU 3 at 1.5 x
 * from the start. Bucket k is ready on rank r at F + B (k+1)/8, on rank 3 at 1.5 x
 * that, so every other rank waits, per iteration,
 *
 *   sum_k 0.5 (F + B (k+1)/8) = 0.5 (8 F + B x 36/8) = 0.5 (80 + 180) = 130 ms
 *
 * and rank 3 never waits; the iteration is rank 3's 75 ms plus the last bucket
 * (within 2% of that bucket's time).
 */
class SlowGpuDataParallelTestCase : public TestCase
{
  public:
    SlowGpuDataParallelTestCase()
        : TestCase("a GPU at two thirds of its speed in data parallel: who waited")
    {
    }

  private:
    /// Run with GPU 3 slowed and check every rank's wait.
    void DoRun() override
    {
        GpuCluster<EthernetClosHelper> f(OneGpuServers());
        f.collectives.GetGpuCompute(3)->ScheduleSlowdown(1.5, Seconds(0));
        TrainingApplicationHelper dp("ns3::DataParallelApplication");
        dp.SetAttribute("ForwardTime", StringValue("ns3::ConstantRandomVariable[Constant=0.01]"));
        dp.SetAttribute("BackwardTime", StringValue("ns3::ConstantRandomVariable[Constant=0.04]"));
        dp.SetAttribute("GradientBytes", UintegerValue(32000000));
        dp.SetAttribute("BucketBytes", UintegerValue(4000000));
        ApplicationContainer apps = dp.Install(f.FirstGpus(8), f.collectives);
        // The slowdown takes effect at 0 s, before the application starts.
        apps.Start(NanoSeconds(1));
        Simulator::Run();
        Ptr<DataParallelApplication> app = DynamicCast<DataParallelApplication>(apps.Get(0));
        const Time last = app->GetBucketTimes().back();
        NS_TEST_EXPECT_MSG_EQ_TOL(app->GetIterationTimes()[0].GetSeconds(),
                                  0.075 + last.GetSeconds(),
                                  0.02 * last.GetSeconds(),
                                  "the straggler's compute and the last bucket");
        for (uint32_t r = 0; r < 8; ++r)
        {
            const double expected = r == 3 ? 0 : 0.130;
            NS_TEST_EXPECT_MSG_EQ_TOL(app->GetWaitTime(r).GetSeconds(),
                                      expected,
                                      8e-9,
                                      "rank " << r << " waited");
        }
    }
};

/**
 * Tensor parallel on one idle 8-GPU server, Layers = 2, 2 blocks per layer, tF =
 * 300 us and tB = 600 us per block, 1 MiB AllReduces: one GPU at half speed makes
 * every block wait for it, so the iteration grows by exactly its extra compute,
 * L x C x (tF + tB) = 2 x 2 x 900 us = 3.6 ms (the collectives do not change;
 * within 1 ns per block).
 */
class SlowGpuTensorParallelTestCase : public TestCase
{
  public:
    SlowGpuTensorParallelTestCase()
        : TestCase("a GPU at half speed in a tensor-parallel group: every block waits for it")
    {
    }

  private:
    /// \param slow whether GPU 2 runs at half speed \return the iteration time
    static Time Run(bool slow)
    {
        ClusterDescription c = SmallCluster(8, 1, 1);
        GpuCluster<ScheduledFabricHelper> f(c);
        if (slow)
        {
            f.collectives.GetGpuCompute(2)->ScheduleSlowdown(2.0, Seconds(0));
        }
        TrainingApplicationHelper tp("ns3::TensorParallelApplication");
        tp.SetAttribute("Layers", UintegerValue(2));
        tp.SetAttribute("ActivationBytes", UintegerValue(1 << 20));
        ApplicationContainer apps = tp.Install(f.FirstGpus(8), f.collectives);
        apps.Start(NanoSeconds(1));
        Simulator::Run();
        return DynamicCast<TrainingApplication>(apps.Get(0))->GetIterationTimes().at(0);
    }

    /// Run with and without the slow GPU and check the added time.
    void DoRun() override
    {
        const Time nominal = Run(false);
        const Time slow = Run(true);
        std::cout << GetName() << ": " << nominal.As(Time::US) << ", with the straggler "
                  << slow.As(Time::US) << std::endl;
        NS_TEST_EXPECT_MSG_EQ_TOL((slow - nominal).GetSeconds(), 3.6e-3, 8e-9, "extra compute");
    }
};

/**
 * One RDMA message of 10 MB from host 0 to host 5 on an idle fabric; host 0's NIC
 * slowed to half the link rate. From the start the message takes twice as long (it
 * is all serialisation: 10 MB at 50 Gb/s against 5 us of latency); slowed half-way
 * through its nominal time t, it takes t/2 + t = 1.5 t. Within 1%.
 */
template <typename FabricHelper>
class SlowNicTestCase : public TestCase
{
  public:
    /// \param fabric the fabric's name, in the test name
    explicit SlowNicTestCase(const std::string& fabric)
        : TestCase("a NIC at half rate, " + fabric + ": its message takes twice as long")
    {
    }

  private:
    /// \param at when the NIC slows (negative: never) \return the message's time
    double Run(double at)
    {
        RdmaCluster<FabricHelper> f(SmallCluster(4, 4, 4));
        if (at >= 0)
        {
            f.fabric.ScheduleNicSlowdown(0, 0.5, Seconds(at));
        }
        f.Post(0, 5, 10000000);
        Simulator::Run();
        return f.completions.done[0].GetSeconds();
    }

    /// Run at full rate, slowed from the start and slowed halfway, and compare.
    void DoRun() override
    {
        const double nominal = Run(-1);
        const double slow = Run(0);
        const double halfway = Run(nominal / 2);
        std::cout << GetName() << ": " << nominal * 1e6 << " us, slowed " << slow * 1e6
                  << " us, slowed half-way " << halfway * 1e6 << " us" << std::endl;
        NS_TEST_EXPECT_MSG_EQ_TOL(slow / nominal, 2.0, 0.02, "half rate");
        NS_TEST_EXPECT_MSG_EQ_TOL(halfway / nominal, 1.5, 0.015, "half rate from half-way");
    }
};

/// The suite.
class StragglerTestSuite : public TestSuite
{
  public:
    StragglerTestSuite()
        : TestSuite("ai-fabric-stragglers", TestSuite::Type::UNIT)
    {
        AddTestCase(new SlowGpuPipelineTestCase);
        AddTestCase(new SlowGpuDataParallelTestCase);
        AddTestCase(new SlowGpuTensorParallelTestCase);
        AddTestCase(new SlowNicTestCase<ScheduledFabricHelper>("scheduled"));
        AddTestCase(new SlowNicTestCase<EthernetClosHelper>("Ethernet"));
    }
};

/// Registers the suite.
static StragglerTestSuite g_stragglerTestSuite;
