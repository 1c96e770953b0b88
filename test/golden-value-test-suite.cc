/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-golden: one small RDMA scenario per fabric whose exact figures are
// pinned, so that a change that moves any result is noticed. The values below are
// what the model gives, not derived by hand (the other suites check the model
// against arithmetic); a commit that changes one must say why, and update it.

#include "cluster-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/test.h"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

/// A named figure of a run.
using Figure = std::pair<std::string, uint64_t>;

/**
 * 8 hosts on 2 leaves x 2 spines at 100 Gb/s: a 4:1 incast across the fabric
 * (hosts 4..7 to host 0, 300,001 bytes each: not a whole number of packets) and
 * two 1 MB flows (hosts 1 and 2 to hosts 5 and 6) sharing the spines with it.
 * \param configure sets the fabric's attributes before Install
 * \param congestionControl the transports' CongestionControl TypeId
 * \param totals appends the fabric's own counters
 * \return the figures: every message's completion time (ns), the transports'
 *         counters, then the fabric's
 */
template <typename FabricHelper>
std::vector<Figure>
RunScenario(const std::function<void(FabricHelper&)>& configure,
            const std::string& congestionControl,
            const std::function<void(const FabricHelper&, std::vector<Figure>&)>& totals)
{
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    RdmaCluster<FabricHelper> f(SmallCluster(2, 4, 2), configure, [&](RdmaHelper& rdma) {
        rdma.SetTransportAttribute("CongestionControl", StringValue(congestionControl));
    });
    for (uint32_t src = 4; src < 8; ++src)
    {
        f.Post(src, 0, 300001);
    }
    f.Post(1, 5, 1000000);
    f.Post(2, 6, 1000000);
    Simulator::Run();
    std::vector<Figure> figures;
    for (uint32_t src : {1, 2, 4, 5, 6, 7})
    {
        figures.emplace_back("done ns, from host " + std::to_string(src),
                             f.completions.done[src].GetNanoSeconds());
    }
    const auto s = f.Sum();
    figures.emplace_back("bytes delivered", s.bytesDelivered);
    figures.emplace_back("data packets sent", s.dataPacketsSent);
    figures.emplace_back("retransmitted packets", s.retransmittedPackets);
    figures.emplace_back("timeouts", s.timeouts);
    figures.emplace_back("CNPs sent", s.cnpsSent);
    figures.emplace_back("CE received", s.ceReceived);
    totals(f.fabric, figures);
    figures.emplace_back("end ns", Simulator::Now().GetNanoSeconds());
    return figures;
}

} // namespace

/// A scenario's figures against their pinned values, one by one.
class GoldenValueTestCase : public TestCase
{
  public:
    /**
     * \param name the fabric's name
     * \param run runs the scenario and returns its figures
     * \param pinned the figures' pinned values, in the same order
     */
    GoldenValueTestCase(const std::string& name,
                        std::function<std::vector<Figure>()> run,
                        std::vector<uint64_t> pinned)
        : TestCase("golden values: " + name),
          m_run(std::move(run)),
          m_pinned(std::move(pinned))
    {
    }

  private:
    /// Run the scenario and compare every figure with its pinned value.
    void DoRun() override
    {
        const std::vector<Figure> figures = m_run();
        std::cout << GetName() << " (to update, paste these values in order):";
        for (const auto& [name, value] : figures)
        {
            std::cout << " " << value;
        }
        std::cout << std::endl;
        NS_TEST_EXPECT_MSG_EQ(figures.size(), m_pinned.size(), "one pinned value per figure");
        for (std::size_t i = 0; i < std::min(figures.size(), m_pinned.size()); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(figures[i].second, m_pinned[i], figures[i].first);
        }
    }

    std::function<std::vector<Figure>()> m_run; //!< the scenario
    std::vector<uint64_t> m_pinned;             //!< its pinned figures
};

/// The golden-value scenario on each fabric.
class GoldenValueTestSuite : public TestSuite
{
  public:
    GoldenValueTestSuite()
        : TestSuite("ai-fabric-golden", TestSuite::Type::UNIT)
    {
        // Scheduled fabric, no congestion control (the transport's default).
        AddTestCase(new GoldenValueTestCase(
            "scheduled fabric",
            [] {
                return RunScenario<ScheduledFabricHelper>(
                    {},
                    "ns3::RdmaCongestionControl",
                    [](const ScheduledFabricHelper& h, std::vector<Figure>& figures) {
                        const auto t = h.GetTotals();
                        figures.emplace_back("fabric data cells", t.dataCells);
                        figures.emplace_back("fabric granted bytes", t.grantedBytes);
                        figures.emplace_back("fabric dropped packets", t.GetDroppedPackets());
                    });
            },
            // done ns from hosts 1, 2, 4..7; bytes, packets, retransmissions, timeouts,
            // CNPs, CE; cells, granted bytes, drops; end ns
            {96095,
             96269,
             102534,
             102792,
             102706,
             102620,
             3200004,
             786,
             0,
             0,
             0,
             0,
             13338,
             3243008,
             0,
             1048576}));
        // Ethernet Clos with ECMP, PFC and ECN, DCQCN at its defaults.
        AddTestCase(new GoldenValueTestCase(
            "Ethernet Clos",
            [] {
                return RunScenario<EthernetClosHelper>(
                    {},
                    "ns3::DcqcnCongestionControl",
                    [](const EthernetClosHelper& h, std::vector<Figure>& figures) {
                        const auto t = h.GetTotals();
                        figures.emplace_back("fabric ECN marks", t.ecnMarked);
                        figures.emplace_back("fabric PFC pauses", t.pfcPauses);
                        figures.emplace_back("fabric dropped packets", t.droppedPackets);
                        figures.emplace_back("fabric buffer high water", t.bufferHighWater);
                    });
            },
            // done ns from hosts 1, 2, 4..7; bytes, packets, retransmissions, timeouts,
            // CNPs, CE; ECN marks, PFC pauses, drops, buffer high water; end ns
            {166256,
             158850,
             100694,
             100952,
             100866,
             100780,
             3200004,
             786,
             0,
             0,
             4,
             20,
             20,
             0,
             0,
             1246250,
             10884609}));
    }
};

/// Registers the suite.
static GoldenValueTestSuite g_goldenValueTestSuite;
