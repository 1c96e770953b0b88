/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-tenants: jobs sharing one fabric. Jobs on leaves of their own share no
// link, so neither slows the other; interleaved jobs share every leaf's uplinks and
// the spines, and their slowdowns are measured.

#include "collective-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/test.h"

#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/**
 * Run data-parallel jobs together on 4 leaves x 4 one-GPU servers (GPU g is host g,
 * on leaf g / 4), 100 Gb/s, 4 spines: each job AllReduces 4 MB of gradients in 1 MB
 * buckets under a 1 ms backward pass, 3 iterations, communication-bound (a 1 MB
 * ring AllReduce over 8 ranks is about 2 x 7/8 x 1 MB / 12 GB/s = 0.15 ms).
 * \param jobs each job's GPUs \return each job's mean iteration time, seconds
 */
template <typename FabricHelper>
std::vector<double>
RunJobs(const std::vector<std::vector<uint32_t>>& jobs)
{
    ClusterDescription c = SmallCluster(4, 4, 4);
    c.gpusPerServer = 1;
    GpuCluster<FabricHelper> f(c);
    TrainingApplicationHelper dp("ns3::DataParallelApplication");
    dp.SetAttribute("ForwardTime", StringValue("ns3::ConstantRandomVariable[Constant=0.0005]"));
    dp.SetAttribute("BackwardTime", StringValue("ns3::ConstantRandomVariable[Constant=0.001]"));
    dp.SetAttribute("GradientBytes", UintegerValue(4 << 20));
    dp.SetAttribute("BucketBytes", UintegerValue(1 << 20));
    dp.SetAttribute("Iterations", UintegerValue(3));
    ApplicationContainer apps;
    for (const auto& gpus : jobs)
    {
        apps.Add(dp.Install(f.collectives.CreateCommunicator(gpus), f.collectives));
    }
    Simulator::Run();
    std::vector<double> mean;
    for (uint32_t j = 0; j < apps.GetN(); ++j)
    {
        Ptr<TrainingApplication> app = DynamicCast<TrainingApplication>(apps.Get(j));
        NS_ABORT_MSG_UNLESS(app->GetIterationsDone() == 3, "job " << j << " did not finish");
        double sum = 0;
        for (Time t : app->GetIterationTimes())
        {
            sum += t.GetSeconds();
        }
        mean.push_back(sum / 3);
    }
    Simulator::Destroy();
    return mean;
}

/// \param first first GPU \param step stride \return 8 GPUs first, first + step, ...
std::vector<uint32_t>
Gpus(uint32_t first, uint32_t step)
{
    std::vector<uint32_t> gpus;
    for (uint32_t k = 0; k < 8; ++k)
    {
        gpus.push_back(first + k * step);
    }
    return gpus;
}

} // namespace

/**
 * Job A on leaves 0 and 1 (GPUs 0..7), job B on leaves 2 and 3 (GPUs 8..15): no
 * host link, uplink or spine downlink carries both, so each job's iteration time
 * shared equals its time alone within 1%. Interleaved (A on even GPUs, B on odd),
 * they share every uplink and spine: the slowdowns are measured (printed) and are
 * at least 1 less the 1% the disjoint case allows.
 */
template <typename FabricHelper>
class TenantsTestCase : public TestCase
{
  public:
    /// \param fabric the fabric's name, in the test name
    explicit TenantsTestCase(const std::string& fabric)
        : TestCase("two tenants on the " + fabric +
                   " fabric: on leaves of their own neither slows the other; interleaved, "
                   "slowdowns measured")
    {
    }

  private:
    /// Run both tenants, apart and interleaved, and check their times.
    void DoRun() override
    {
        for (bool interleaved : {false, true})
        {
            const std::vector<uint32_t> a = interleaved ? Gpus(0, 2) : Gpus(0, 1);
            const std::vector<uint32_t> b = interleaved ? Gpus(1, 2) : Gpus(8, 1);
            const double aloneA = RunJobs<FabricHelper>({a}).front();
            const double aloneB = RunJobs<FabricHelper>({b}).front();
            const std::vector<double> shared = RunJobs<FabricHelper>({a, b});
            const double slowA = shared[0] / aloneA;
            const double slowB = shared[1] / aloneB;
            std::cout << GetName() << (interleaved ? ", interleaved" : ", disjoint leaves")
                      << ": alone " << aloneA * 1e6 << " / " << aloneB * 1e6 << " us, slowdowns "
                      << slowA << " / " << slowB << std::endl;
            if (interleaved)
            {
                NS_TEST_EXPECT_MSG_GT_OR_EQ(slowA, 0.99, "job A interleaved");
                NS_TEST_EXPECT_MSG_GT_OR_EQ(slowB, 0.99, "job B interleaved");
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ_TOL(slowA, 1.0, 0.01, "job A on its own leaves");
                NS_TEST_EXPECT_MSG_EQ_TOL(slowB, 1.0, 0.01, "job B on its own leaves");
            }
        }
    }
};

/// The suite.
class TenantsTestSuite : public TestSuite
{
  public:
    TenantsTestSuite()
        : TestSuite("ai-fabric-tenants", TestSuite::Type::UNIT)
    {
        AddTestCase(new TenantsTestCase<ScheduledFabricHelper>("scheduled"));
        AddTestCase(new TenantsTestCase<EthernetClosHelper>("Ethernet"));
    }
};

/// Registers the suite.
static TenantsTestSuite g_tenantsTestSuite;
