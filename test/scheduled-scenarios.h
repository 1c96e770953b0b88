/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_SCHEDULED_SCENARIOS_H
#define AI_FABRIC_SCHEDULED_SCENARIOS_H

// The scheduled fabric's validation scenarios, for the suites that run each one
// in two ways and compare: RDMA messages (permutation, incast, a spine failure)
// and collectives on 16 one-GPU servers, built with a mode's helper attributes.

#include "cluster-test-common.h"
#include "collective-test-common.h"

#include "ns3/abort.h"
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

namespace ns3
{

/// What a scenario measured: completion times and the events it took.
struct ScenarioResult
{
    std::vector<Time> completions; //!< in a fixed order
    uint64_t events{0};            //!< simulator events
    uint64_t dropped{0};           //!< packets dropped in the fabric
    uint64_t retransmitted{0};     //!< RDMA retransmissions
};

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

/**
 * One message from each host, as given, run to the end.
 * \param c the cluster \param mode the mode's attributes
 * \param flows (source, destination, bytes)
 * \param failures (leaf, spine, at) leaf-spine links that fail
 * \return every message's completion, by source
 */
inline ScenarioResult
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
inline std::vector<std::tuple<uint32_t, uint32_t, uint64_t>>
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
inline ScenarioResult
RunCollective(const std::string& collective, uint64_t bytes, const Configure& mode)
{
    GpuCluster<ScheduledFabricHelper> f(OneGpuServers(), mode);
    const CollectiveResult result = f.Run(f.FirstGpus(16), collective, bytes);
    ScenarioResult r;
    r.completions.push_back(result.GetDuration());
    AddCounters(f, &r);
    return r;
}

/// A way to run the scheduled fabric other than exact mode on direct links (an
/// approximation, or links whose ends are in two processes) and what it must
/// achieve against exact mode.
struct Approximation
{
    std::string name;    //!< shown in the case's output
    Configure configure; //!< sets its attributes
    double maxEvents;    //!< at most this fraction of exact mode's events
    /// Cells a link carries in the time the mode may move a cell: so many more or
    /// fewer may be on a failed link end when it fails.
    uint32_t shiftCells;
};

/**
 * \ingroup ai-fabric-tests
 * A scenario in exact mode and in other modes (Approximation): every completion
 * within 1% of exact mode's, one message and the last completion within 2% where
 * links fail (1% elsewhere), the mean within 1%; drops within the mode's shiftCells per failed
 * link end; the same retransmissions where nothing fails; at most the mode's
 * share of the events.
 */
class ApproximationAgreementTestCase : public TestCase
{
  public:
    /**
     * \param name the scenario \param scenario runs it in a mode
     * \param modes the modes compared with exact mode
     * \param failedLinks leaf-spine links that fail in it
     */
    ApproximationAgreementTestCase(const std::string& name,
                                   Scenario scenario,
                                   std::vector<Approximation> modes,
                                   uint32_t failedLinks = 0)
        : TestCase(name + ": " + Names(modes) + " agree with exact mode within 1%"),
          m_scenario(std::move(scenario)),
          m_modes(std::move(modes)),
          m_failedLinks(failedLinks)
    {
    }

  private:
    /// \param modes modes \return their names, with commas
    static std::string Names(const std::vector<Approximation>& modes)
    {
        std::string names;
        for (const Approximation& mode : modes)
        {
            names += (names.empty() ? "" : ", ") + mode.name;
        }
        return names;
    }

    /// Run exact and in each mode, compare.
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
        // Where links fail the last message may be one whose loss the mode's
        // shifted cells changed: the per-message tolerance.
        NS_TEST_EXPECT_MSG_EQ_TOL(approximateLast.GetSeconds() / exactLast.GetSeconds(),
                                  1.0,
                                  perMessage,
                                  mode.name << ": last completion");
        std::cout << GetName() << ", " << mode.name << ": last completion "
                  << exactLast.As(Time::US) << " exact, " << approximateLast.As(Time::US)
                  << " in the mode; worst difference " << worst * 100 << "%; events "
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

/**
 * The validation scenarios, each in exact mode and in the modes given.
 * \param modes the modes compared with exact mode
 * \return one case per scenario, for TestSuite::AddTestCase
 */
inline std::vector<TestCase*>
AgreementCases(const std::vector<Approximation>& modes)
{
    std::vector<TestCase*> cases;
    const ClusterDescription shape = SmallCluster(4, 4, 4);
    ClusterDescription fabricBound = shape;
    fabricBound.spines = 2; // half the host links' capacity: the fabric binds
    cases.push_back(new ApproximationAgreementTestCase(
        "RDMA permutation, 1 MiB",
        [shape](const Configure& m) { return RunMessages(shape, m, Permutation(shape, 1 << 20)); },
        modes));
    cases.push_back(new ApproximationAgreementTestCase(
        "RDMA permutation, 2 spines (fabric-bound), 1,000,003 B",
        [fabricBound](const Configure& m) {
            return RunMessages(fabricBound, m, Permutation(fabricBound, 1000003));
        },
        modes));
    cases.push_back(new ApproximationAgreementTestCase(
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
    cases.push_back(new ApproximationAgreementTestCase(
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
    cases.push_back(new ApproximationAgreementTestCase(
        "ring AllReduce, 16 GPUs, 4 MiB",
        [](const Configure& m) { return RunCollective("AllReduce", 4 << 20, m); },
        modes));
    cases.push_back(new ApproximationAgreementTestCase(
        "AlltoAll, 16 GPUs, 1,000,000 B",
        [](const Configure& m) { return RunCollective("AlltoAll", 1000000, m); },
        modes));
    return cases;
}

} // namespace ns3

#endif /* AI_FABRIC_SCHEDULED_SCENARIOS_H */
