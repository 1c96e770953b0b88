/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Cell trains (CellNetDevice::TrainWindow): the cells that reach a link's far end
// within the window of the head of its in-flight list are delivered with the head,
// in one event. First the mechanism on one link, where every time is exact; then
// the scheduled fabric's validation scenarios run twice, exact and in trains, whose
// completion times must agree within 1% while the trains execute fewer events.

#include "cluster-test-common.h"
#include "collective-test-common.h"

#include "ns3/cell-channel.h"
#include "ns3/cell-net-device.h"
#include "ns3/node.h"
#include "ns3/scheduled-fabric-helper.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

/**
 * \ingroup ai-fabric-tests
 * Five cells of 250 B sent back to back at t = 0 over a 100 Gb/s link with a 1 us
 * delay: each takes 250 x 8 / 100e9 = 20 ns, so they arrive at 1020, 1040, 1060,
 * 1080 and 1100 ns. With a 50 ns window the head at 1020 takes the cells arriving
 * by 1070 (1040, 1060), and the next head at 1080 takes 1100: two deliveries, at
 * 1020 ns (three cells) and 1080 ns (two). With no window, five at their own times.
 */
class TrainDeliveryTestCase : public TestCase
{
  public:
    /// \param window the TrainWindow \param expected each cell's delivery time, ns
    TrainDeliveryTestCase(Time window, std::vector<int64_t> expected)
        : TestCase("one link, window " + std::to_string(window.GetNanoSeconds()) +
                   " ns: cells delivered at their train's head"),
          m_window(window),
          m_expected(std::move(expected))
    {
    }

  private:
    /// Send the five cells and check when each arrives, and the events spent.
    void DoRun() override
    {
        Ptr<Node> a = CreateObject<Node>();
        Ptr<Node> b = CreateObject<Node>();
        Ptr<CellChannel> channel = CreateObject<CellChannel>();
        channel->SetAttribute("Delay", TimeValue(MicroSeconds(1)));
        Ptr<CellNetDevice> from = CreateObject<CellNetDevice>();
        Ptr<CellNetDevice> to = CreateObject<CellNetDevice>();
        for (const auto& [node, dev] : {std::pair{a, from}, std::pair{b, to}})
        {
            dev->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
            dev->SetAttribute("TrainWindow", TimeValue(m_window));
            node->AddDevice(dev);
            dev->Attach(channel);
        }
        std::vector<int64_t> arrivals;
        std::vector<uint16_t> order;
        to->SetCellReceiveCallback([&arrivals, &order](uint32_t, const FabricCell& cell) {
            arrivals.push_back(Simulator::Now().GetNanoSeconds());
            order.push_back(cell.cellIndex);
        });
        Simulator::Run(); // the nodes' and devices' initialisation, before counting
        const uint64_t eventsBefore = Simulator::GetEventCount();
        for (uint16_t i = 0; i < 5; ++i)
        {
            FabricCell cell;
            cell.cellIndex = i;
            cell.wireBytes = 250;
            from->SendCell(cell);
        }
        Simulator::Run();
        const uint64_t events = Simulator::GetEventCount() - eventsBefore;
        Simulator::Destroy();
        NS_TEST_ASSERT_MSG_EQ(arrivals.size(), 5, "every cell arrived");
        for (uint16_t i = 0; i < 5; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(order[i], i, "in order");
            NS_TEST_EXPECT_MSG_EQ(arrivals[i], m_expected[i], "delivered at its train's head");
        }
        const auto deliveries = static_cast<uint64_t>(
            std::unique(m_expected.begin(), m_expected.end()) - m_expected.begin());
        NS_TEST_EXPECT_MSG_EQ(events, deliveries, "one event per train");
        NS_TEST_EXPECT_MSG_EQ(to->GetCellsReceived(), 5, "every cell counted");
    }

    Time m_window;                   //!< TrainWindow
    std::vector<int64_t> m_expected; //!< delivery times, ns
};

/// What a scenario measured: completion times and the events it took.
struct ScenarioResult
{
    std::vector<Time> completions; //!< in a fixed order
    uint64_t events{0};            //!< simulator events
    uint64_t dropped{0};           //!< packets dropped in the fabric
    uint64_t retransmitted{0};     //!< RDMA retransmissions
};

/// The window the agreement cases compare with exact mode, ns (an integer, not a
/// static Time: no dependence on the order of static initialisation).
constexpr int64_t TRAIN_WINDOW_NS = 100;

/// \param f a finished run (RdmaCluster or GpuCluster) \param r gets its counters
template <typename Cluster>
void
AddCounters(const Cluster& f, ScenarioResult* r)
{
    r->events = Simulator::GetEventCount();
    r->dropped = f.fabric.GetTotals().GetDroppedPackets();
    r->retransmitted = f.Sum().retransmittedPackets;
}

/// A scenario on the scheduled fabric, built with the fabric devices' TrainWindow set.
using Scenario = std::function<ScenarioResult(Time window)>;

/// The scheduled fabric with RDMA on every host, its devices' TrainWindow set.
using RdmaFabric = RdmaCluster<ScheduledFabricHelper>;

/// \param window TrainWindow \return a configure function setting it
std::function<void(ScheduledFabricHelper&)>
WithWindow(Time window)
{
    return [window](ScheduledFabricHelper& f) {
        f.SetFabricDeviceAttribute("TrainWindow", TimeValue(window));
    };
}

/**
 * One message from each host, as given, run to the end.
 * \param c the cluster \param window TrainWindow
 * \param flows (source, destination, bytes)
 * \param failures (leaf, spine, at) leaf-spine links that fail
 * \return every message's completion, by source
 */
ScenarioResult
RunMessages(const ClusterDescription& c,
            Time window,
            const std::vector<std::tuple<uint32_t, uint32_t, uint64_t>>& flows,
            const std::vector<std::tuple<uint32_t, uint32_t, Time>>& failures = {})
{
    RdmaFabric f(c, WithWindow(window));
    for (const auto& [src, dst, bytes] : flows)
    {
        f.Post(src, dst, bytes);
    }
    for (const auto& [leaf, spine, at] : failures)
    {
        f.fabric.ScheduleLinkState(leaf, spine, 0, at, false);
    }
    Simulator::Run();
    ScenarioResult r;
    for (const auto& [src, dst, bytes] : flows)
    {
        r.completions.push_back(f.completions.done[src]);
    }
    AddCounters(f, &r);
    NS_ABORT_MSG_IF(f.completions.count != flows.size(), "a message did not complete");
    return r;
}

/// \param c cluster \param bytes per message \return each host to the host on the next leaf
std::vector<std::tuple<uint32_t, uint32_t, uint64_t>>
Permutation(const ClusterDescription& c, uint64_t bytes)
{
    std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> flows;
    for (uint32_t h = 0; h < c.GetHosts(); ++h)
    {
        flows.emplace_back(h, (h + c.hostsPerLeaf) % c.GetHosts(), bytes);
    }
    return flows;
}

/**
 * One collective on 16 one-GPU servers (4 leaves x 4, 4 spines, 100 Gb/s).
 * \param collective its name \param bytes S \param window TrainWindow
 * \return its completion
 */
ScenarioResult
RunCollective(const std::string& collective, uint64_t bytes, Time window)
{
    GpuCluster<ScheduledFabricHelper> f(OneGpuServers(), WithWindow(window));
    const CollectiveResult result = f.Run(f.FirstGpus(16), collective, bytes);
    ScenarioResult r;
    r.completions.push_back(result.GetDuration());
    AddCounters(f, &r);
    return r;
}

/**
 * \ingroup ai-fabric-tests
 * A scenario exact and in trains of 100 ns (five 272 B cells at 100 Gb/s). Each
 * cell is early by at most the window at each of its two fabric hops, and the
 * spine queues a train's cells at once, so a completion moves by about 2 x 100 ns
 * per round trip of credit it waits on: within 1% of completions of 50 us and more.
 * The trains must also lose nothing that exact mode does not and execute at most
 * 0.7 of its events (a loaded link delivers about five cells per event).
 *
 * A link failure is the exception to "the same losses": a cell that would have
 * arrived just after the failure is still delivered if its train's head arrived
 * before it, so up to five cells (one window) per failed link end are not lost in
 * trains. Each such packet changes its flow's retransmissions, so there the
 * losses may differ by that many packets, one message by up to 2%, and the mean
 * and the last completion still agree within 1%.
 */
class TrainAgreementTestCase : public TestCase
{
  public:
    /**
     * \param name the scenario \param scenario runs it with a window
     * \param failedLinks leaf-spine links that fail in it
     */
    TrainAgreementTestCase(const std::string& name, Scenario scenario, uint32_t failedLinks = 0)
        : TestCase(name + ": trains of " + std::to_string(TRAIN_WINDOW_NS) +
                   " ns agree with exact cells within 1%"),
          m_scenario(std::move(scenario)),
          m_failedLinks(failedLinks)
    {
    }

  private:
    /// Run exact and in trains, compare.
    void DoRun() override
    {
        const ScenarioResult exact = m_scenario(Time(0));
        const ScenarioResult trains = m_scenario(NanoSeconds(TRAIN_WINDOW_NS));
        NS_TEST_ASSERT_MSG_EQ(trains.completions.size(), exact.completions.size(), "same shape");
        const double perMessage = m_failedLinks > 0 ? 0.02 : 0.01;
        double worst = 0;
        double exactSum = 0;
        double trainsSum = 0;
        for (std::size_t i = 0; i < exact.completions.size(); ++i)
        {
            const double e = exact.completions[i].GetSeconds();
            const double t = trains.completions[i].GetSeconds();
            worst = std::max(worst, std::abs(t - e) / e);
            exactSum += e;
            trainsSum += t;
            NS_TEST_EXPECT_MSG_EQ_TOL(t / e, 1.0, perMessage, "completion " << i);
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(trainsSum / exactSum, 1.0, 0.01, "mean completion");
        const Time exactLast =
            *std::max_element(exact.completions.begin(), exact.completions.end());
        const Time trainsLast =
            *std::max_element(trains.completions.begin(), trains.completions.end());
        NS_TEST_EXPECT_MSG_EQ_TOL(trainsLast.GetSeconds() / exactLast.GetSeconds(),
                                  1.0,
                                  0.01,
                                  "last completion");
        std::cout << GetName() << ": last completion " << exactLast.As(Time::US) << " exact, "
                  << trainsLast.As(Time::US) << " in trains; worst difference " << worst * 100
                  << "%; events " << exact.events << " -> " << trains.events << " (x"
                  << double(trains.events) / exact.events << ")" << std::endl;
        // A train holds at most ceil(100 ns / 21.76 ns) = 5 cells (272 B at 100 Gb/s):
        // that many at each end of a failed link.
        const double lossSlack = m_failedLinks * 2 * 5;
        NS_TEST_EXPECT_MSG_EQ_TOL(double(trains.dropped),
                                  double(exact.dropped),
                                  lossSlack,
                                  "the same drops");
        if (m_failedLinks == 0)
        {
            NS_TEST_EXPECT_MSG_EQ(trains.retransmitted,
                                  exact.retransmitted,
                                  "the same retransmissions");
        }
        NS_TEST_EXPECT_MSG_LT_OR_EQ(double(trains.events),
                                    0.7 * double(exact.events),
                                    "fewer events");
    }

    Scenario m_scenario;    //!< the scenario
    uint32_t m_failedLinks; //!< leaf-spine links that fail in it
};

/// The suite.
class CellTrainTestSuite : public TestSuite
{
  public:
    CellTrainTestSuite()
        : TestSuite("ai-fabric-cell-trains", TestSuite::Type::UNIT)
    {
        AddTestCase(new TrainDeliveryTestCase(Time(0), {1020, 1040, 1060, 1080, 1100}));
        AddTestCase(new TrainDeliveryTestCase(NanoSeconds(50), {1020, 1020, 1020, 1080, 1080}));
        const ClusterDescription shape = SmallCluster(4, 4, 4);
        ClusterDescription fabricBound = shape;
        fabricBound.spines = 2; // half the host links' capacity: the fabric binds
        AddTestCase(new TrainAgreementTestCase("RDMA permutation, 1 MiB", [shape](Time w) {
            return RunMessages(shape, w, Permutation(shape, 1 << 20));
        }));
        AddTestCase(new TrainAgreementTestCase(
            "RDMA permutation, 2 spines (fabric-bound), 1,000,003 B",
            [fabricBound](Time w) {
                return RunMessages(fabricBound, w, Permutation(fabricBound, 1000003));
            }));
        AddTestCase(new TrainAgreementTestCase("RDMA 15:1 incast, 256 KiB", [shape](Time w) {
            std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> flows;
            for (uint32_t h = 1; h < 16; ++h)
            {
                flows.emplace_back(h, 0, 256 << 10);
            }
            return RunMessages(shape, w, flows);
        }));
        AddTestCase(new TrainAgreementTestCase(
            "RDMA permutation, 2 MiB, spine 0 fails at 40 us",
            [shape](Time w) {
                std::vector<std::tuple<uint32_t, uint32_t, Time>> failures;
                for (uint32_t l = 0; l < shape.leaves; ++l)
                {
                    failures.emplace_back(l, 0, MicroSeconds(40));
                }
                return RunMessages(shape, w, Permutation(shape, 2 << 20), failures);
            },
            shape.leaves));
        AddTestCase(new TrainAgreementTestCase("ring AllReduce, 16 GPUs, 4 MiB", [](Time w) {
            return RunCollective("AllReduce", 4 << 20, w);
        }));
        AddTestCase(new TrainAgreementTestCase("AlltoAll, 16 GPUs, 1,000,000 B", [](Time w) {
            return RunCollective("AlltoAll", 1000000, w);
        }));
    }
};

/// Registers the suite.
CellTrainTestSuite g_cellTrainTestSuite;

} // namespace
