/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The scheduled fabric's faster approximations. Cell trains
// (CellNetDevice::TrainWindow): the cells that reach a link's far end within the
// window of the head of its in-flight list are delivered with the head, in one
// event. Credit turns of several credits (CreditScheduler::TurnBatch): one
// scheduler event grants what several turns would have. First trains on one link,
// where every time is exact; then the validation scenarios run exact and in each
// approximation, whose completion times must agree within 1% while the
// approximation executes fewer events.

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

/// The train window the agreement cases compare with exact mode, ns (an integer,
/// not a static Time: no dependence on the order of static initialisation).
constexpr int64_t TRAIN_WINDOW_NS = 100;

/// Credits per turn the agreement cases compare with exact mode (a SourceQuantum
/// of 4096 B is four 1024 B credits: a turn may grant the whole quantum).
constexpr uint32_t TURN_BATCH = 4;

/// \param f a finished run (RdmaCluster or GpuCluster) \param r gets its counters
template <typename Cluster>
void
AddCounters(const Cluster& f, ScenarioResult* r)
{
    r->events = Simulator::GetEventCount();
    r->dropped = f.fabric.GetTotals().GetDroppedPackets();
    r->retransmitted = f.Sum().retransmittedPackets;
}

/// Sets a mode's attributes on the fabric helper (empty: exact).
using Configure = std::function<void(ScheduledFabricHelper&)>;

/// A scenario on the scheduled fabric, built with a mode's attributes.
using Scenario = std::function<ScenarioResult(const Configure& mode)>;

/// The scheduled fabric with RDMA on every host.
using RdmaFabric = RdmaCluster<ScheduledFabricHelper>;

/// An approximation and what it must achieve against exact mode.
struct Approximation
{
    std::string name;    //!< shown in the case's output
    Configure configure; //!< sets its attributes
    double maxEvents;    //!< at most this fraction of exact mode's events
    /// Cells a link carries in the time the mode may move a cell: so many more or
    /// fewer may be on a failed link end when it fails.
    uint32_t shiftCells;
};

/// \return cells in trains of TRAIN_WINDOW_NS
Approximation
Trains()
{
    // A loaded link delivers about five cells per event (272 B at 100 Gb/s: 21.76 ns);
    // a cell is early by up to the window: ceil(100 / 21.76) = 5 cells.
    return {"trains of " + std::to_string(TRAIN_WINDOW_NS) + " ns",
            [](ScheduledFabricHelper& f) {
                f.SetFabricDeviceAttribute("TrainWindow", TimeValue(NanoSeconds(TRAIN_WINDOW_NS)));
            },
            0.7,
            5};
}

/// \return credit turns of TURN_BATCH credits
Approximation
Turns()
{
    // A credit is early by up to 3 credit times (3 x 1024 B at 105 Gb/s = 234 ns), so
    // are the cells it releases: ceil(234 / 21.76) = 11 cells.
    return {"turns of " + std::to_string(TURN_BATCH) + " credits",
            [](ScheduledFabricHelper& f) {
                f.SetSchedulerAttribute("TurnBatch", UintegerValue(TURN_BATCH));
            },
            // A turn batched away saves its own event and its grant cell's hops;
            // 0.76 to 0.83 of exact mode's events were measured.
            0.9,
            11};
}

/**
 * One message from each host, as given, run to the end.
 * \param c the cluster \param mode the mode's attributes
 * \param flows (source, destination, bytes)
 * \param failures (leaf, spine, at) leaf-spine links that fail
 * \return every message's completion, by source
 */
ScenarioResult
RunMessages(const ClusterDescription& c,
            const Configure& mode,
            const std::vector<std::tuple<uint32_t, uint32_t, uint64_t>>& flows,
            const std::vector<std::tuple<uint32_t, uint32_t, Time>>& failures = {})
{
    RdmaFabric f(c, mode);
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
 * \param collective its name \param bytes S \param mode the mode's attributes
 * \return its completion
 */
ScenarioResult
RunCollective(const std::string& collective, uint64_t bytes, const Configure& mode)
{
    GpuCluster<ScheduledFabricHelper> f(OneGpuServers(), mode);
    const CollectiveResult result = f.Run(f.FirstGpus(16), collective, bytes);
    ScenarioResult r;
    r.completions.push_back(result.GetDuration());
    AddCounters(f, &r);
    return r;
}

/**
 * \ingroup ai-fabric-tests
 * A scenario exact and in an approximation, whose completions must agree within 1%.
 *
 * Trains of 100 ns (five 272 B cells at 100 Gb/s): each cell is early by at most
 * the window at each of its two fabric hops, and the spine queues a train's cells
 * at once, so a completion moves by about 2 x 100 ns per round trip of credit it
 * waits on: within 1% of completions of 50 us and more. They must execute at most
 * 0.7 of exact mode's events (a loaded link delivers about five cells per event).
 *
 * Turns of 4 credits: a VOQ receives a credit up to 3 credit times early (3 x
 * 1024 B at 105 Gb/s = 234 ns), at most once per SourceQuantum turn of credit it
 * waits on, and each grant cell stands for the cells of the turns it replaces,
 * so the control traffic's share of the fabric is kept; again within 1%, in fewer
 * events than exact mode.
 *
 * Both must lose nothing that exact mode does not. A link failure is the
 * exception: a cell that would have arrived just after the failure is still
 * delivered if its train's head arrived before it (up to five cells, one window,
 * per failed link end), and cells released by an early credit are on a link at
 * another moment (up to 11 cells, 234 ns at 100 Gb/s). Each such packet changes
 * its flow's retransmissions, so there the losses may differ by that many
 * packets, one message by up to 2%, and the mean and the last completion still
 * agree within 1%.
 */
class ApproximationAgreementTestCase : public TestCase
{
  public:
    /**
     * \param name the scenario \param scenario runs it in a mode
     * \param modes the approximations compared with exact mode
     * \param failedLinks leaf-spine links that fail in it
     */
    ApproximationAgreementTestCase(const std::string& name,
                                   Scenario scenario,
                                   std::vector<Approximation> modes,
                                   uint32_t failedLinks = 0)
        : TestCase(name + ": approximations agree with exact mode within 1%"),
          m_scenario(std::move(scenario)),
          m_modes(std::move(modes)),
          m_failedLinks(failedLinks)
    {
    }

  private:
    /// Run exact and in each approximation, compare.
    void DoRun() override
    {
        const ScenarioResult exact = m_scenario(Configure());
        for (const Approximation& mode : m_modes)
        {
            Compare(exact, m_scenario(mode.configure), mode);
        }
    }

    /**
     * \param exact the exact run \param approximate the run in the mode
     * \param mode the approximation
     */
    void Compare(const ScenarioResult& exact,
                 const ScenarioResult& approximate,
                 const Approximation& mode)
    {
        NS_TEST_ASSERT_MSG_EQ(approximate.completions.size(),
                              exact.completions.size(),
                              "same shape");
        const double perMessage = m_failedLinks > 0 ? 0.02 : 0.01;
        double worst = 0;
        double exactSum = 0;
        double approximateSum = 0;
        for (std::size_t i = 0; i < exact.completions.size(); ++i)
        {
            const double e = exact.completions[i].GetSeconds();
            const double a = approximate.completions[i].GetSeconds();
            worst = std::max(worst, std::abs(a - e) / e);
            exactSum += e;
            approximateSum += a;
            NS_TEST_EXPECT_MSG_EQ_TOL(a / e, 1.0, perMessage, mode.name << ": completion " << i);
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(approximateSum / exactSum,
                                  1.0,
                                  0.01,
                                  mode.name << ": mean completion");
        const Time exactLast =
            *std::max_element(exact.completions.begin(), exact.completions.end());
        const Time approximateLast =
            *std::max_element(approximate.completions.begin(), approximate.completions.end());
        NS_TEST_EXPECT_MSG_EQ_TOL(approximateLast.GetSeconds() / exactLast.GetSeconds(),
                                  1.0,
                                  0.01,
                                  mode.name << ": last completion");
        std::cout << GetName() << ", " << mode.name << ": last completion "
                  << exactLast.As(Time::US) << " exact, " << approximateLast.As(Time::US)
                  << " approximate; worst difference " << worst * 100 << "%; events "
                  << exact.events << " -> " << approximate.events << " (x"
                  << double(approximate.events) / exact.events << "); dropped " << exact.dropped
                  << " -> " << approximate.dropped << ", retransmitted " << exact.retransmitted
                  << " -> " << approximate.retransmitted << std::endl;
        const double lossSlack = m_failedLinks * 2 * mode.shiftCells;
        NS_TEST_EXPECT_MSG_EQ_TOL(double(approximate.dropped),
                                  double(exact.dropped),
                                  lossSlack,
                                  mode.name << ": the same drops");
        if (m_failedLinks == 0)
        {
            NS_TEST_EXPECT_MSG_EQ(approximate.retransmitted,
                                  exact.retransmitted,
                                  mode.name << ": the same retransmissions");
        }
        NS_TEST_EXPECT_MSG_LT(double(approximate.events),
                              mode.maxEvents * double(exact.events) + 1,
                              mode.name << ": fewer events");
    }

    Scenario m_scenario;                //!< the scenario
    std::vector<Approximation> m_modes; //!< compared with exact mode
    uint32_t m_failedLinks;             //!< leaf-spine links that fail in it
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
        const std::vector<Approximation> modes{Trains(), Turns()};
        AddTestCase(new ApproximationAgreementTestCase(
            "RDMA permutation, 1 MiB",
            [shape](const Configure& m) {
                return RunMessages(shape, m, Permutation(shape, 1 << 20));
            },
            modes));
        AddTestCase(new ApproximationAgreementTestCase(
            "RDMA permutation, 2 spines (fabric-bound), 1,000,003 B",
            [fabricBound](const Configure& m) {
                return RunMessages(fabricBound, m, Permutation(fabricBound, 1000003));
            },
            modes));
        AddTestCase(new ApproximationAgreementTestCase(
            "RDMA 15:1 incast, 256 KiB",
            [shape](const Configure& m) {
                std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> flows;
                for (uint32_t h = 1; h < 16; ++h)
                {
                    flows.emplace_back(h, 0, 256 << 10);
                }
                return RunMessages(shape, m, flows);
            },
            modes));
        AddTestCase(new ApproximationAgreementTestCase(
            "RDMA permutation, 2 MiB, spine 0 fails at 40 us",
            [shape](const Configure& m) {
                std::vector<std::tuple<uint32_t, uint32_t, Time>> failures;
                for (uint32_t l = 0; l < shape.leaves; ++l)
                {
                    failures.emplace_back(l, 0, MicroSeconds(40));
                }
                return RunMessages(shape, m, Permutation(shape, 2 << 20), failures);
            },
            modes,
            shape.leaves));
        AddTestCase(new ApproximationAgreementTestCase(
            "ring AllReduce, 16 GPUs, 4 MiB",
            [](const Configure& m) { return RunCollective("AllReduce", 4 << 20, m); },
            modes));
        AddTestCase(new ApproximationAgreementTestCase(
            "AlltoAll, 16 GPUs, 1,000,000 B",
            [](const Configure& m) { return RunCollective("AlltoAll", 1000000, m); },
            modes));
    }
};

/// Registers the suite.
CellTrainTestSuite g_cellTrainTestSuite;

} // namespace
