/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-data-parallel: gradient buckets AllReduced under the backward pass on an
// idle fabric, against the overlap arithmetic.

#include "collective-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/test.h"

#include <iostream>
#include <string>

using namespace ns3;

namespace
{

/**
 * Run a data-parallel job on GPUs 0..7 of 16 one-GPU servers.
 * \param f the cluster
 * \param forward, backward compute times (constant), seconds
 * \param gradient GradientBytes \param bucket BucketBytes \param iterations Iterations
 * \return the application, after the run
 */
template <typename FabricHelper>
Ptr<DataParallelApplication>
RunDataParallel(GpuCluster<FabricHelper>& f,
                double forward,
                double backward,
                uint64_t gradient,
                uint64_t bucket,
                uint32_t iterations)
{
    TrainingApplicationHelper dp("ns3::DataParallelApplication");
    dp.SetAttribute(
        "ForwardTime",
        StringValue("ns3::ConstantRandomVariable[Constant=" + std::to_string(forward) + "]"));
    dp.SetAttribute(
        "BackwardTime",
        StringValue("ns3::ConstantRandomVariable[Constant=" + std::to_string(backward) + "]"));
    dp.SetAttribute("GradientBytes", UintegerValue(gradient));
    dp.SetAttribute("BucketBytes", UintegerValue(bucket));
    dp.SetAttribute("Iterations", UintegerValue(iterations));
    ApplicationContainer apps = dp.Install(f.FirstGpus(8), f.collectives);
    Simulator::Run();
    return DynamicCast<DataParallelApplication>(apps.Get(0));
}

} // namespace

/**
 * Compute much longer than communication: 8 ranks, 32 MB of gradients in 8 buckets
 * of 4 MB, forward 10 ms and backward 40 ms, so bucket k is ready at 10 + 5 (k+1) ms
 * and its AllReduce (about 2 x 7/8 x 4 MB / 12.25 GB/s = 0.57 ms) is over long
 * before the next is ready. Only the last bucket, ready when the backward pass
 * ends, is exposed:
 *
 *   exposed = t(last bucket's AllReduce)          (within 2%)
 *   iteration = F + B + t(last bucket)
 */
template <typename FabricHelper>
class DataParallelOverlapTestCase : public TestCase
{
  public:
    explicit DataParallelOverlapTestCase(const std::string& fabric)
        : TestCase("data parallel, compute much longer than communication, " + fabric +
                   ": only the last bucket is exposed")
    {
    }

  private:
    void DoRun() override
    {
        GpuCluster<FabricHelper> f(OneGpuServers());
        Ptr<DataParallelApplication> app = RunDataParallel(f, 0.010, 0.040, 32000000, 4000000, 2);
        NS_TEST_ASSERT_MSG_EQ(app->GetIterationsDone(), 2u, "two iterations");
        NS_TEST_ASSERT_MSG_EQ(app->GetBuckets(), 8u, "eight buckets");
        NS_TEST_ASSERT_MSG_EQ(app->GetBucketTimes().size(), 16u, "a time per bucket");
        for (uint32_t i = 0; i < 2; ++i)
        {
            const Time last = app->GetBucketTimes()[8 * i + 7];
            const Time exposed = app->GetExposedCommunication()[i];
            std::cout << GetName() << ": iteration " << app->GetIterationTimes()[i].As(Time::US)
                      << ", exposed " << exposed.As(Time::US) << ", last bucket "
                      << last.As(Time::US) << std::endl;
            NS_TEST_EXPECT_MSG_EQ_TOL(exposed.GetSeconds() / last.GetSeconds(),
                                      1.0,
                                      0.02,
                                      "exposed = last bucket");
            NS_TEST_EXPECT_MSG_EQ_TOL(app->GetIterationTimes()[i].GetSeconds(),
                                      0.050 + last.GetSeconds(),
                                      0.02 * last.GetSeconds(),
                                      "iteration = compute + last bucket");
        }
    }
};

/**
 * No compute: every bucket is ready at once and the AllReduces run one after
 * another on the one stream, so the iteration is their sum and all of it is exposed
 * (within 1 ns per bucket of rounding). 10 MB in buckets of 4 MB: K = 3 (4, 4, 2 MB);
 * the 2 MB bucket takes less than a 4 MB one.
 */
class DataParallelSerialTestCase : public TestCase
{
  public:
    DataParallelSerialTestCase()
        : TestCase("data parallel without compute: buckets one after another, all exposed")
    {
    }

  private:
    void DoRun() override
    {
        GpuCluster<ScheduledFabricHelper> f(OneGpuServers());
        Ptr<DataParallelApplication> app = RunDataParallel(f, 0, 0, 10000000, 4000000, 1);
        NS_TEST_ASSERT_MSG_EQ(app->GetBuckets(), 3u, "ceil(10 / 4) buckets");
        Time sum;
        for (Time t : app->GetBucketTimes())
        {
            sum += t;
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(app->GetIterationTimes()[0].GetSeconds(),
                                  sum.GetSeconds(),
                                  3e-9,
                                  "serialised buckets");
        NS_TEST_EXPECT_MSG_EQ(app->GetExposedCommunication()[0],
                              app->GetIterationTimes()[0],
                              "all exposed");
        NS_TEST_EXPECT_MSG_LT(app->GetBucketTimes()[2], app->GetBucketTimes()[1], "smaller bucket");
        NS_TEST_EXPECT_MSG_EQ(app->GetBucketStatistics().GetCount(), 3u, "statistics");
    }
};

/**
 * Communication longer than compute: forward 1 ms, backward 1 ms, 8 buckets of 4 MB
 * (about 0.6 ms each, 4.8 ms in all). Bucket k is ready at 1 + (k+1)/8 ms, earlier
 * than the previous AllReduce ends, so after the first one (ready at 1.125 ms) they
 * run back to back:
 *
 *   iteration = 1.125 ms + sum of the bucket times        (within 1 ns per bucket)
 *   exposed   = iteration - 2 ms
 */
class DataParallelCommunicationBoundTestCase : public TestCase
{
  public:
    DataParallelCommunicationBoundTestCase()
        : TestCase("data parallel, communication longer than compute: buckets back to back")
    {
    }

  private:
    void DoRun() override
    {
        GpuCluster<EthernetClosHelper> f(OneGpuServers());
        Ptr<DataParallelApplication> app = RunDataParallel(f, 0.001, 0.001, 32000000, 4000000, 1);
        Time sum;
        for (Time t : app->GetBucketTimes())
        {
            sum += t;
        }
        const Time iteration = app->GetIterationTimes()[0];
        NS_TEST_EXPECT_MSG_EQ_TOL(iteration.GetSeconds(),
                                  1.125e-3 + sum.GetSeconds(),
                                  8e-9,
                                  "first bucket's readiness, then back to back");
        NS_TEST_EXPECT_MSG_EQ(app->GetExposedCommunication()[0],
                              iteration - MilliSeconds(2),
                              "exposed beyond the compute");
    }
};

/// The suite.
class DataParallelTestSuite : public TestSuite
{
  public:
    DataParallelTestSuite()
        : TestSuite("ai-fabric-data-parallel", UNIT)
    {
        AddTestCase(new DataParallelOverlapTestCase<ScheduledFabricHelper>("scheduled"));
        AddTestCase(new DataParallelOverlapTestCase<EthernetClosHelper>("Ethernet"));
        AddTestCase(new DataParallelSerialTestCase);
        AddTestCase(new DataParallelCommunicationBoundTestCase);
    }
};

/// Registers the suite.
static DataParallelTestSuite g_dataParallelTestSuite;
