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

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
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
    /// \param fabric the fabric's name, in the test name
    explicit DataParallelOverlapTestCase(const std::string& fabric)
        : TestCase("data parallel, compute much longer than communication, " + fabric +
                   ": only the last bucket is exposed")
    {
    }

  private:
    /// Run with long compute and check the communication is hidden behind it.
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
    /// Run with no compute and check the iteration is the sum of the bucket times.
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
    /// Run with short compute and check the exposed communication.
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

/**
 * Results: the JSON file records the parameters (every attribute), the seed and run
 * and one value per iteration of every per-iteration metric; the CSV has a row per
 * application, iteration and metric. Two iterations, 10 MB in 3 buckets, seed 3 run
 * 7: 2 x 2 CSV rows (time_us, exposedCommunication_us) and the header.
 */
class DataParallelResultsTestCase : public TestCase
{
  public:
    DataParallelResultsTestCase()
        : TestCase("workload results: parameters, seed and run, every iteration")
    {
    }

  private:
    /// Run two iterations and check the JSON and CSV results.
    void DoRun() override
    {
        RngSeedManager::SetSeed(3);
        RngSeedManager::SetRun(7);
        GpuCluster<EthernetClosHelper> f(OneGpuServers());
        Ptr<DataParallelApplication> app = RunDataParallel(f, 0.001, 0.001, 10000000, 4000000, 2);
        const std::string prefix = CreateTempDirFilename("data-parallel");
        ApplicationContainer apps(app);
        TrainingApplicationHelper::WriteResults(apps, prefix);
        std::ifstream in(prefix + ".json");
        nlohmann::json j = nlohmann::json::parse(in);
        NS_TEST_EXPECT_MSG_EQ(j["seed"].get<uint32_t>(), 3u, "seed");
        NS_TEST_EXPECT_MSG_EQ(j["run"].get<uint64_t>(), 7u, "run");
        const nlohmann::json& a = j["applications"][0];
        NS_TEST_EXPECT_MSG_EQ(a["application"].get<std::string>(),
                              "ns3::DataParallelApplication",
                              "type");
        NS_TEST_EXPECT_MSG_EQ(a["attributes"]["GradientBytes"].get<std::string>(),
                              "10000000",
                              "a parameter");
        NS_TEST_EXPECT_MSG_EQ(a["attributes"]["Iterations"].get<std::string>(), "2", "base");
        // A random variable as the attribute string that would set it again.
        NS_TEST_EXPECT_MSG_EQ(
            a["attributes"]["ForwardTime"].get<std::string>(),
            "ns3::ConstantRandomVariable[Antithetic=false|Constant=0.001|Stream=-1]",
            "a pointed-to object");
        NS_TEST_EXPECT_MSG_EQ(a["gpus"].size(), 8u, "the group");
        NS_TEST_EXPECT_MSG_EQ(a["buckets"].get<uint32_t>(), 3u, "buckets");
        NS_TEST_EXPECT_MSG_EQ(a["perIteration"]["time_us"].size(), 2u, "per iteration");
        NS_TEST_EXPECT_MSG_EQ_TOL(a["perIteration"]["time_us"][1].get<double>(),
                                  app->GetIterationTimes()[1].GetSeconds() * 1e6,
                                  1e-6,
                                  "the time itself");
        NS_TEST_EXPECT_MSG_EQ(a["bucketAllReduce_us"]["count"].get<uint64_t>(), 6u, "buckets");
        std::ifstream csv(prefix + ".csv");
        std::string line;
        uint32_t lines = 0;
        while (std::getline(csv, line))
        {
            ++lines;
        }
        NS_TEST_EXPECT_MSG_EQ(lines, 1u + 2 * 2, "header and rows");
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
    }
};

/// The suite.
class DataParallelTestSuite : public TestSuite
{
  public:
    DataParallelTestSuite()
        : TestSuite("ai-fabric-data-parallel", TestSuite::Type::UNIT)
    {
        AddTestCase(new DataParallelOverlapTestCase<ScheduledFabricHelper>("scheduled"));
        AddTestCase(new DataParallelOverlapTestCase<EthernetClosHelper>("Ethernet"));
        AddTestCase(new DataParallelSerialTestCase);
        AddTestCase(new DataParallelCommunicationBoundTestCase);
        AddTestCase(new DataParallelResultsTestCase);
    }
};

/// Registers the suite.
static DataParallelTestSuite g_dataParallelTestSuite;
