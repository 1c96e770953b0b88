/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-pipeline-parallel: GPipe and 1F1B on an idle fabric against the
// pipeline arithmetic (bubble, iteration time, microbatches in flight).

#include "cluster-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/test.h"

#include <algorithm>
#include <iostream>
#include <string>

using namespace ns3;

/**
 * S stages, one per GPU on 1-GPU servers spread over the leaves (so transfers cross
 * the fabric), M microbatches, forward pass tF = 1 ms and backward tB = 2 ms, tiny
 * activations (4 KiB: a few microseconds per transfer). For GPipe and for 1F1B
 * alike, with passes of equal time on every stage and transfers taking lambda:
 *
 *   iteration   T = (M + S - 1) (tF + tB) + 2 (S - 1) lambda
 *   bubble      1 - M (tF + tB) / T  ->  (S - 1) / (M + S - 1)   (lambda -> 0)
 *
 * the same for every stage. With lambda < 10 us against (M + S - 1) x 3 ms the
 * bubble is within 1% (relative) of (S-1)/(M+S-1), and T within 1% of
 * (M + S - 1)(tF + tB). Iterations are alike (three are run; within 0.1%: the
 * first one's transfers find the fabric's credit state idle, 4.4 us of 21 ms more
 * for S = 3, M = 5). Transfers:
 * 2 M (S - 1) per iteration. Microbatches held at once by stage s: M under GPipe,
 * min(S - s, M) under 1F1B (its warm-up of S - s - 1 plus the one in its steady
 * state), never above S.
 */
class PipelineBubbleTestCase : public TestCase
{
  public:
    /// \param schedule the schedule's TypeId name \param stages S \param microbatches M
    PipelineBubbleTestCase(const std::string& schedule, uint32_t stages, uint32_t microbatches)
        : TestCase(schedule + " with " + std::to_string(stages) + " stages and " +
                   std::to_string(microbatches) + " microbatches: bubble (S-1) over (M+S-1)"),
          m_schedule(schedule),
          m_stages(stages),
          m_microbatches(microbatches)
    {
    }

  private:
    /// Run the schedule and check the iteration time and bubble of every stage.
    void DoRun() override
    {
        ClusterDescription c = SmallCluster(4, 4, 4);
        c.gpusPerServer = 1;
        RdmaCluster<ScheduledFabricHelper> f(c);
        CollectiveHelper collectives;
        collectives.Install(c, f.rdma);
        // Stage s on GPU 3 s mod 16: consecutive stages on different leaves.
        std::vector<uint32_t> gpus;
        for (uint32_t s = 0; s < m_stages; ++s)
        {
            gpus.push_back((3 * s) % 16);
        }
        TrainingApplicationHelper pipeline("ns3::PipelineParallelApplication");
        pipeline.SetAttribute("Schedule", TypeIdValue(TypeId::LookupByName(m_schedule)));
        pipeline.SetAttribute("Microbatches", UintegerValue(m_microbatches));
        pipeline.SetAttribute("Iterations", UintegerValue(3));
        pipeline.SetAttribute("ActivationBytes", UintegerValue(4096));
        ApplicationContainer apps =
            pipeline.Install(collectives.CreateCommunicator(gpus), collectives);
        apps.Start(MicroSeconds(10));
        Simulator::Run();
        Ptr<PipelineParallelApplication> app =
            DynamicCast<PipelineParallelApplication>(apps.Get(0));

        const double s = m_stages;
        const double m = m_microbatches;
        const double bubble = (s - 1) / (m + s - 1);
        const double iteration = (m + s - 1) * 3e-3;
        NS_TEST_ASSERT_MSG_EQ(app->GetIterationsDone(), 3u, "three iterations");
        for (Time t : app->GetIterationTimes())
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(t.GetSeconds() / iteration, 1.0, 0.01, "iteration time");
            NS_TEST_EXPECT_MSG_EQ_TOL(t.GetSeconds() / app->GetIterationTimes().back().GetSeconds(),
                                      1.0,
                                      0.001,
                                      "iterations alike");
        }
        std::cout << GetName() << ": iteration " << app->GetIterationTimes().front().As(Time::US)
                  << " (formula " << iteration * 1e6 << " us), bubble of stage 0 "
                  << app->GetBubbleFraction(0) << " (formula " << bubble << "), transfer p50 "
                  << app->GetTransferLatency().GetPercentile(0.5) * 1e6 << " us, max "
                  << app->GetTransferLatency().GetMax() * 1e6 << " us" << std::endl;
        for (uint32_t stage = 0; stage < m_stages; ++stage)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(app->GetBubbleFraction(stage) / bubble,
                                      1.0,
                                      0.01,
                                      "bubble of stage " << stage);
            uint32_t held = m_schedule == "ns3::GpipeSchedule"
                                ? m_microbatches
                                : std::min(m_stages - stage, m_microbatches);
            NS_TEST_EXPECT_MSG_EQ(app->GetMaxInFlight(stage), held, "held by stage " << stage);
            const uint32_t bound = m_schedule == "ns3::GpipeSchedule" ? m_microbatches : m_stages;
            NS_TEST_EXPECT_MSG_LT_OR_EQ(app->GetMaxInFlight(stage), bound, "bounded");
        }
        NS_TEST_EXPECT_MSG_EQ(app->GetTransferLatency().GetCount(),
                              3 * 2 * m_microbatches * (m_stages - 1),
                              "transfers");
        NS_TEST_EXPECT_MSG_LT(app->GetTransferLatency().GetMax(), 10e-6, "tiny activations");
    }

    std::string m_schedule;  //!< TypeId name
    uint32_t m_stages;       //!< S
    uint32_t m_microbatches; //!< M
};

/**
 * The schedules themselves, by hand: 1F1B for S = 4, M = 6 on stage 1 is two warm-up
 * forward passes (S - s - 1 = 2), then F2 B0 F3 B1 F4 B2 F5 B3, then B4 B5; on the
 * last stage, F0 B0 F1 B1 ...; GPipe on any stage is F0 .. F5 then B5 .. B0.
 */
class PipelineScheduleTestCase : public TestCase
{
  public:
    PipelineScheduleTestCase()
        : TestCase("GPipe and 1F1B pass orders by hand")
    {
    }

  private:
    /// \param passes a stage's passes \return them as text ("F0 F1 B0 ...")
    static std::string Text(const std::vector<PipelineSchedule::Pass>& passes)
    {
        std::string out;
        for (const auto& p : passes)
        {
            out += (out.empty() ? "" : " ") + std::string(p.forward ? "F" : "B") +
                   std::to_string(p.microbatch);
        }
        return out;
    }

    /// Check the passes of 1F1B and GPipe by hand.
    void DoRun() override
    {
        Ptr<PipelineSchedule> oneF = CreateObject<OneFOneBSchedule>();
        Ptr<PipelineSchedule> gpipe = CreateObject<GpipeSchedule>();
        NS_TEST_EXPECT_MSG_EQ(Text(oneF->GetPasses(4, 6, 1)),
                              "F0 F1 F2 B0 F3 B1 F4 B2 F5 B3 B4 B5",
                              "1F1B stage 1");
        NS_TEST_EXPECT_MSG_EQ(Text(oneF->GetPasses(4, 3, 3)), "F0 B0 F1 B1 F2 B2", "1F1B last");
        NS_TEST_EXPECT_MSG_EQ(Text(oneF->GetPasses(4, 2, 0)), "F0 F1 B0 B1", "1F1B M < S");
        NS_TEST_EXPECT_MSG_EQ(Text(gpipe->GetPasses(4, 3, 2)), "F0 F1 F2 B2 B1 B0", "GPipe");
    }
};

/**
 * GPipe where the network is the bottleneck: activations and gradients take
 * X = 3 ms on a 25 Gb/s NIC (X = bytes / B, B the RDMA goodput), longer than a
 * forward (tF = 1 ms) or backward pass (tB = 2 ms). Stage 0 computes its forward
 * passes back to back and its transfers queue on its NIC, arriving at stage 1 at
 * tF + (m+1) X + lambda; every later stage is free when the next microbatch arrives
 * and forwards it after tF, so the last stage ends its forward passes at
 * S tF + (M + S - 2) X + (S - 1) lambda. The backward phase mirrors it from the last
 * stage (its backward passes need no transfer and run back to back):
 *
 *   T = S (tF + tB) + 2 (M + S - 2) X + 2 (S - 1) lambda
 *
 * lambda (a few microseconds) is under 0.1% of T; within 1%. S = 4, M = 6:
 * T = 12 + 48 = 60 ms.
 */
template <typename FabricHelper>
class PipelineNetworkBoundTestCase : public TestCase
{
  public:
    /// \param fabric the fabric's name, in the test name
    explicit PipelineNetworkBoundTestCase(const std::string& fabric)
        : TestCase("GPipe with transfers longer than the passes, " + fabric +
                   ": the network sets the pace")
    {
    }

  private:
    /// Run GPipe with slow transfers and check the iteration time they bound.
    void DoRun() override
    {
        ClusterDescription c = SmallCluster(4, 4, 4);
        c.gpusPerServer = 1;
        c.hostLinkRate = DataRate("25Gbps"); // fewer packets for the same X
        c.fabricLinkRate = DataRate("25Gbps");
        RdmaCluster<FabricHelper> f(c);
        CollectiveHelper collectives;
        collectives.Install(c, f.rdma);
        const double b = RdmaGoodput(c) / 8;
        const double x = 3e-3;
        const auto bytes = static_cast<uint64_t>(x * b);
        TrainingApplicationHelper pipeline("ns3::PipelineParallelApplication");
        pipeline.SetAttribute("Schedule", TypeIdValue(GpipeSchedule::GetTypeId()));
        pipeline.SetAttribute("Microbatches", UintegerValue(6));
        pipeline.SetAttribute("ActivationBytes", UintegerValue(bytes));
        ApplicationContainer apps =
            pipeline.Install(collectives.CreateCommunicator({0, 5, 10, 15}), collectives);
        Simulator::Run();
        Ptr<PipelineParallelApplication> app =
            DynamicCast<PipelineParallelApplication>(apps.Get(0));
        NS_TEST_ASSERT_MSG_EQ(app->GetIterationsDone(), 1u, "one iteration");
        const double s = 4;
        const double m = 6;
        const double expected = s * 3e-3 + 2 * (m + s - 2) * (bytes / b);
        const double t = app->GetIterationTimes().front().GetSeconds();
        std::cout << GetName() << ": T " << t * 1e3 << " ms, formula " << expected * 1e3
                  << " ms, transfer p50 " << app->GetTransferLatency().GetPercentile(0.5) * 1e3
                  << " ms, p99 " << app->GetTransferLatency().GetPercentile(0.99) * 1e3 << " ms"
                  << std::endl;
        NS_TEST_EXPECT_MSG_EQ_TOL(t / expected, 1.0, 0.01, "network-bound GPipe");
    }
};

/// The suite.
class PipelineParallelTestSuite : public TestSuite
{
  public:
    PipelineParallelTestSuite()
        : TestSuite("ai-fabric-pipeline-parallel", TestSuite::Type::UNIT)
    {
        AddTestCase(new PipelineScheduleTestCase);
        for (const std::string schedule : {"ns3::GpipeSchedule", "ns3::OneFOneBSchedule"})
        {
            AddTestCase(new PipelineBubbleTestCase(schedule, 3, 5));
            AddTestCase(new PipelineBubbleTestCase(schedule, 5, 7));
            AddTestCase(new PipelineBubbleTestCase(schedule, 7, 3));
        }
        AddTestCase(new PipelineNetworkBoundTestCase<ScheduledFabricHelper>("scheduled"));
        AddTestCase(new PipelineNetworkBoundTestCase<EthernetClosHelper>("Ethernet"));
    }
};

/// Registers the suite.
static PipelineParallelTestSuite g_pipelineParallelTestSuite;
