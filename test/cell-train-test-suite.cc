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

#include "scheduled-scenarios.h"

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

/// The train window the agreement cases compare with exact mode, ns (an integer,
/// not a static Time: no dependence on the order of static initialisation).
constexpr int64_t TRAIN_WINDOW_NS = 100;

/// Credits per turn the agreement cases compare with exact mode (a SourceQuantum
/// of 4096 B is four 1024 B credits: a turn may grant the whole quantum).
constexpr uint32_t TURN_BATCH = 4;

/*
 * Why the approximations agree with exact mode.
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

/// The suite.
class CellTrainTestSuite : public TestSuite
{
  public:
    CellTrainTestSuite()
        : TestSuite("ai-fabric-cell-trains", TestSuite::Type::UNIT)
    {
        AddTestCase(new TrainDeliveryTestCase(Time(0), {1020, 1040, 1060, 1080, 1100}));
        AddTestCase(new TrainDeliveryTestCase(NanoSeconds(50), {1020, 1020, 1020, 1080, 1080}));
        for (TestCase* c : AgreementCases({Trains(), Turns()}))
        {
            AddTestCase(c);
        }
    }
};

/// Registers the suite.
CellTrainTestSuite g_cellTrainTestSuite;

} // namespace
