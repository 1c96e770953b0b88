/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The egress credit scheduler on its own: pacing, turns of several credits, DRR
// fairness, class modes, egress-queue gating, the credit window.

#include "ns3/credit-scheduler.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <tuple>
#include <utility>
#include <vector>

using namespace ns3;

/// Records grants.
class GrantLog
{
  public:
    /// \param sources source leaves \param tcs traffic classes
    GrantLog(uint32_t sources, uint32_t tcs)
        : m_last(sources * tcs, 0),
          m_bytes(sources * tcs, 0),
          m_tcs(tcs)
    {
    }

    /// The grant callback.
    /// \param source source \param tc class \param cumulative bytes granted in all
    void Grant(uint32_t source, uint8_t tc, uint64_t cumulative)
    {
        const uint32_t i = source * m_tcs + tc;
        m_bytes[i] += cumulative - m_last[i];
        m_last[i] = cumulative;
        m_lastTime = Simulator::Now();
    }

    /// \param source source \param tc class \return bytes granted to it
    uint64_t Bytes(uint32_t source, uint8_t tc) const
    {
        return m_bytes[source * m_tcs + tc];
    }

    /// time of the last grant
    Time m_lastTime;

  private:
    /// per (source, class): last cumulative grant
    std::vector<uint64_t> m_last;
    /// per (source, class): bytes granted
    std::vector<uint64_t> m_bytes;
    /// traffic classes
    uint32_t m_tcs;
};

/// \return a scheduler without a credit window (these cases have no fabric to
/// deliver what they grant)
static Ptr<CreditScheduler>
WindowlessScheduler()
{
    auto s = CreateObject<CreditScheduler>();
    s->SetAttribute("CreditWindowTime", TimeValue(Time(0)));
    return s;
}

/// Grants are paced at port rate x OverGrant and shared equally by DRR.
class CreditPacingTestCase : public TestCase
{
  public:
    CreditPacingTestCase()
        : TestCase("pacing at rate x over-grant, equal DRR shares")
    {
    }

  private:
    /// Request from three sources and check the grant rate and the equal shares.
    void DoRun() override
    {
        auto s = WindowlessScheduler();
        s->SetAttribute("OverGrant", DoubleValue(1.25));
        s->Setup(3, 1, DataRate("100Gbps"), 256);
        GrantLog log(3, 1);
        s->SetGrantCallback(MakeCallback(&GrantLog::Grant, &log));
        const uint64_t demand = 1000 * 1024;
        for (uint32_t src = 0; src < 3; ++src)
        {
            s->Request(src, 0, demand);
        }
        Simulator::Run();
        // 3000 grants of 1024 B at 125 Gb/s: the last one 2999 intervals after the first
        const double interval = 1024 * 8 / 125e9;
        NS_TEST_EXPECT_MSG_EQ(s->GetGrantedBytes(), 3 * demand, "all demand granted");
        NS_TEST_EXPECT_MSG_EQ_TOL(log.m_lastTime.GetSeconds(), 2999 * interval, 1e-9, "paced");
        for (uint32_t src = 0; src < 3; ++src)
        {
            NS_TEST_EXPECT_MSG_EQ(log.Bytes(src, 0), demand, "each source its demand");
        }
        Simulator::Destroy();
    }
};

/// Every grant as it was handed out: when, to whom, cumulative bytes.
struct GrantRecord
{
    Time at;             //!< when
    uint32_t source;     //!< to which source
    uint64_t cumulative; //!< its cumulative grant
};

/// Collects GrantRecords.
struct GrantTimeline
{
    std::vector<GrantRecord> grants; //!< in the order handed out

    /// The grant callback. \param source source \param cumulative its cumulative grant
    void Grant(uint32_t source, uint8_t /* tc */, uint64_t cumulative)
    {
        grants.push_back({Simulator::Now(), source, cumulative});
    }
};

/**
 * Turns of several credits (TurnBatch 4), worked by hand. Credit 1024 B at
 * 100 Gb/s x 1.25: a credit time d = 8192 / 125e9 s = 65.536 ns. Source 0 asks for
 * 10 credits, then source 1 for 3, both at 0; SourceQuantum 4096 B is 4 credits.
 * Source 0's request starts a turn at once, before source 1 asks. Exact turns
 * (TurnBatch 1) grant one credit each: 0 at 0..3d, 1 at 4d..6d (it joined during
 * 0's quantum), 0 at 7d..12d. With TurnBatch 4 a turn grants what is left of the
 * head's quantum and demand: 0 gets 4 credits at 0, which ends its quantum while
 * it is alone, so it keeps the head and source 1 joins behind it; 0 gets 4 more
 * at 4d, 1 its 3 at 8d, 0 its last 2 at 11d. The same credits at the same rate,
 * the last one a credit time early, but a VOQ that asks during a turn of several
 * credits can wait one quantum longer than with exact turns. (Turn times are
 * kept in femtoseconds; the events fall on the simulator's nanosecond steps, so
 * times agree within 1 ns.)
 */
class CreditTurnBatchTestCase : public TestCase
{
  public:
    CreditTurnBatchTestCase()
        : TestCase("turns of 4 credits: what is left of the quantum and the demand")
    {
    }

  private:
    /// Run the two requests and check every grant.
    void DoRun() override
    {
        auto s = WindowlessScheduler();
        s->SetAttribute("OverGrant", DoubleValue(1.25));
        s->SetAttribute("TurnBatch", UintegerValue(4));
        s->Setup(2, 1, DataRate("100Gbps"), 256);
        GrantTimeline log;
        s->SetGrantCallback(MakeCallback(&GrantTimeline::Grant, &log));
        s->Request(0, 0, 10 * 1024);
        s->Request(1, 0, 3 * 1024);
        Simulator::Run();
        const double d = 8192 / 125e9;
        const std::vector<std::tuple<double, uint32_t, uint64_t>> expected{{0, 0, 4096},
                                                                           {4 * d, 0, 8192},
                                                                           {8 * d, 1, 3072},
                                                                           {11 * d, 0, 10240}};
        NS_TEST_ASSERT_MSG_EQ(log.grants.size(), expected.size(), "one grant per turn");
        for (std::size_t i = 0; i < expected.size(); ++i)
        {
            const auto& [at, source, cumulative] = expected[i];
            NS_TEST_EXPECT_MSG_EQ_TOL(log.grants[i].at.GetSeconds(), at, 1e-9, "turn " << i);
            NS_TEST_EXPECT_MSG_EQ(log.grants[i].source, source, "turn " << i << " source");
            NS_TEST_EXPECT_MSG_EQ(log.grants[i].cumulative, cumulative, "turn " << i << " bytes");
        }
        NS_TEST_EXPECT_MSG_EQ(s->GetGrants(), 4, "four turns granted");
        NS_TEST_EXPECT_MSG_EQ(s->GetGrantedBytes(), 13 * 1024, "every credit asked for");
        Simulator::Destroy();
    }
};

/// Halfway through, equal shares (DRR), strict priority, weights.
class CreditClassTestCase : public TestCase
{
  public:
    /// \param mode the ClassMode
    CreditClassTestCase(std::string mode)
        : TestCase("traffic classes: " + mode),
          m_mode(mode)
    {
    }

  private:
    /// Grant two classes of two sources and check the shares of the class mode.
    void DoRun() override
    {
        auto s = WindowlessScheduler();
        s->SetAttribute("ClassMode", StringValue(m_mode));
        s->SetAttribute("ClassWeights", StringValue("1,3"));
        s->Setup(2, 2, DataRate("100Gbps"), 256);
        GrantLog log(2, 2);
        s->SetGrantCallback(MakeCallback(&GrantLog::Grant, &log));
        const uint64_t demand = 400 * 1024;
        for (uint32_t src = 0; src < 2; ++src)
        {
            for (uint8_t tc = 0; tc < 2; ++tc)
            {
                s->Request(src, tc, demand);
            }
        }
        // Stop after 400 grants (half the demand).
        Simulator::Stop(Seconds(399.5 * 1024 * 8 / 105e9));
        Simulator::Run();
        const double c0 = log.Bytes(0, 0) + log.Bytes(1, 0);
        const double c1 = log.Bytes(0, 1) + log.Bytes(1, 1);
        if (m_mode == "StrictPriority")
        {
            // The very first request is granted at once, before class 1 asks.
            NS_TEST_EXPECT_MSG_LT_OR_EQ(c0, 1024, "class 0 starves while class 1 has demand");
        }
        else
        {
            // weights 1:3, exact to one grant (1024 B) per class
            NS_TEST_EXPECT_MSG_EQ_TOL(c1 / c0, 3.0, 3.0 * 2 * 1024 / c0, "weights 1:3");
        }
        // DRR within class 1: the two sources equal to one turn (a source keeps the
        // turn for SourceQuantum bytes, so a stop mid-turn leaves them that far apart)
        UintegerValue quantum;
        s->GetAttribute("SourceQuantum", quantum);
        NS_TEST_EXPECT_MSG_EQ_TOL(double(log.Bytes(0, 1)),
                                  double(log.Bytes(1, 1)),
                                  double(quantum.Get()),
                                  "DRR equal shares");
        Simulator::Destroy();
    }

    /// the ClassMode
    std::string m_mode;
};

/// No grants while the egress queue is above EgressQueueLimit.
class CreditGateTestCase : public TestCase
{
  public:
    CreditGateTestCase()
        : TestCase("egress queue limit stops granting")
    {
    }

    /// \return the egress queue bytes: 1 MB before 10 us, then 0
    uint64_t QueueBytes() const
    {
        return Simulator::Now() < MicroSeconds(10) ? 1000000 : 0;
    }

  private:
    /// Raise and lower the egress queue and check grants stop and resume.
    void DoRun() override
    {
        auto s = WindowlessScheduler();
        s->Setup(1, 1, DataRate("100Gbps"), 256);
        GrantLog log(1, 1);
        s->SetGrantCallback(MakeCallback(&GrantLog::Grant, &log));
        s->SetQueueBytesCallback(MakeCallback(&CreditGateTestCase::QueueBytes, this));
        s->Request(0, 0, 10 * 1024);
        Simulator::Stop(MicroSeconds(9));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(s->GetGrants(), 0, "queue above the limit: no grant");
        NS_TEST_EXPECT_MSG_GT(s->GetSkippedTurns(), 0, "turns skipped");
        Simulator::Stop(MicroSeconds(10));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(s->GetGrantedBytes(), 10 * 1024, "then granted");
        Simulator::Destroy();
    }
};

/// A stale request (overtaken on another spine) repeats no grant; a watchdog
/// re-request with nothing new repeats the last grant once.
class CreditRefreshTestCase : public TestCase
{
  public:
    CreditRefreshTestCase()
        : TestCase("grant repeated only for a watchdog re-request")
    {
    }

  private:
    /// Send a stale request and a watchdog re-request and count the grants.
    void DoRun() override
    {
        auto s = WindowlessScheduler();
        s->Setup(1, 1, DataRate("100Gbps"), 256);
        GrantLog log(1, 1);
        s->SetGrantCallback(MakeCallback(&GrantLog::Grant, &log));
        s->Request(0, 0, 4096);
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(s->GetGrantedBytes(), 4096, "all granted");
        const uint64_t grants = s->GetGrants();
        s->Request(0, 0, 2048); // an older request arriving late
        s->Request(0, 0, 4096); // the same demand again, not a re-request
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(s->GetGrantRefreshes(), 0, "stale requests repeat nothing");
        NS_TEST_EXPECT_MSG_EQ(s->GetGrants(), grants, "and grant nothing new");
        s->Request(0, 0, 4096, true); // watchdog: our last grant may have been lost
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(s->GetGrantRefreshes(), 1, "re-request: grant repeated");
        NS_TEST_EXPECT_MSG_EQ(s->GetGrantedBytes(), 4096, "no new credit");
        Simulator::Destroy();
    }
};

/// The credit window: grants stop while CreditWindow granted bytes have not
/// arrived, resume as they arrive, and what has not arrived WindowTimeout after
/// its grant is written off.
class CreditWindowTestCase : public TestCase
{
  public:
    CreditWindowTestCase()
        : TestCase("credit window: self-clocked by arrivals, unarrived grants written off after "
                   "WindowTimeout")
    {
    }

  private:
    /// Grant past the window, deliver part, let the rest age out and check the grants.
    void DoRun() override
    {
        auto s = CreateObject<CreditScheduler>();
        s->SetAttribute("CreditWindow", UintegerValue(4096));
        s->SetAttribute("WindowTimeout", TimeValue(MicroSeconds(100)));
        s->Setup(1, 1, DataRate("100Gbps"), 256);
        GrantLog log(1, 1);
        s->SetGrantCallback(MakeCallback(&GrantLog::Grant, &log));
        s->Request(0, 0, 100 * 1024);
        std::vector<uint64_t> granted;
        auto sample = [&granted, s]() { granted.push_back(s->GetGrantedBytes()); };
        // Grants of 1024 B every 1024 x 8 / 105 Gb/s = 78 ns: four fill the window
        // by 234 ns.
        Simulator::Schedule(MicroSeconds(1), sample);
        // One credit arrives: one more grant, and the window is full again.
        Simulator::Schedule(MicroSeconds(1), &CreditScheduler::NotifyArrival, s, 0, 0, 1024);
        Simulator::Schedule(MicroSeconds(2), sample);
        // Nothing more arrives: WindowTimeout (100 us, aged in eighths) after
        // they were granted, the 4096 B outstanding are written off and four more
        // grants follow.
        Simulator::Schedule(MicroSeconds(100), sample);
        Simulator::Schedule(MicroSeconds(102), sample);
        Simulator::Stop(MicroSeconds(103));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(granted.size(), 4, "four samples");
        NS_TEST_EXPECT_MSG_EQ(granted[0], 4096, "the window stops the grants");
        NS_TEST_EXPECT_MSG_EQ(granted[1], 5120, "an arrival lets one more credit out");
        NS_TEST_EXPECT_MSG_EQ(granted[2], 5120, "nothing more before WindowTimeout");
        NS_TEST_EXPECT_MSG_EQ(granted[3], 9216, "written off, then four more");
        NS_TEST_EXPECT_MSG_EQ(s->GetWrittenOffBytes(), 4096, "the bytes that never arrived");
        NS_TEST_EXPECT_MSG_EQ(s->GetOutstandingBytes(), 4096, "a full window again");
        Simulator::Destroy();
    }
};

/// Entries exist only for VOQs that asked: the others read as zeros.
class CreditSparseTestCase : public TestCase
{
  public:
    CreditSparseTestCase()
        : TestCase("state only for VOQs that asked: the others read as zeros")
    {
    }

  private:
    /// Ask for credit on a few of 4096 x 8 VOQs and check the others read zero.
    void DoRun() override
    {
        const uint32_t sources = 4096;
        auto s = WindowlessScheduler();
        s->Setup(sources, 8, DataRate("100Gbps"), 256);
        GrantLog log(sources, 8);
        s->SetGrantCallback(MakeCallback(&GrantLog::Grant, &log));
        NS_TEST_EXPECT_MSG_EQ(s->GetAllocatedEntries(), 0, "no entry before a request");
        s->Request(17, 3, 3 * 1024);
        s->Request(sources - 1, 0, 2 * 1024);
        s->Request(17, 3, 5 * 1024); // the same VOQ again
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(s->GetAllocatedEntries(), 2, "two VOQs asked");
        NS_TEST_EXPECT_MSG_EQ(s->GetGrantedBytes(17, 3), 5 * 1024, "all its demand granted");
        NS_TEST_EXPECT_MSG_EQ(log.Bytes(17, 3), 5 * 1024, "and sent");
        NS_TEST_EXPECT_MSG_EQ(s->GetGrantedBytes(sources - 1, 0), 2 * 1024, "the other one too");
        NS_TEST_EXPECT_MSG_EQ(s->GetRequestedBytes(17, 3), 5 * 1024, "requested");
        for (auto [source, tc] : {std::pair<uint32_t, uint8_t>{0, 0}, {17, 2}, {18, 3}, {4000, 7}})
        {
            NS_TEST_EXPECT_MSG_EQ(s->GetGrantedBytes(source, tc), 0, "idle VOQ: none granted");
            NS_TEST_EXPECT_MSG_EQ(s->GetRequestedBytes(source, tc), 0, "idle VOQ: none asked");
            NS_TEST_EXPECT_MSG_EQ(s->GetGrantSent(source, tc), 0, "idle VOQ: none sent");
        }
        s->SetGrantSent(17, 3, 4096);
        NS_TEST_EXPECT_MSG_EQ(s->GetGrantSent(17, 3), 4096, "the owner's last grant sent");
        NS_TEST_EXPECT_MSG_EQ(s->GetAllocatedEntries(), 2, "recorded in the existing entry");
        NS_TEST_EXPECT_MSG_EQ(s->GetGrantedBytes(), 7 * 1024, "total granted");
        Simulator::Destroy();
    }
};

/// The ns-3 suite of the credit scheduler.
class CreditSchedulerTestSuite : public TestSuite
{
  public:
    CreditSchedulerTestSuite()
        : TestSuite("ai-fabric-credit-scheduler", TestSuite::Type::UNIT)
    {
        AddTestCase(new CreditPacingTestCase());
        AddTestCase(new CreditTurnBatchTestCase());
        AddTestCase(new CreditWindowTestCase());
        AddTestCase(new CreditClassTestCase("StrictPriority"));
        AddTestCase(new CreditClassTestCase("Weighted"));
        AddTestCase(new CreditGateTestCase());
        AddTestCase(new CreditRefreshTestCase());
        AddTestCase(new CreditSparseTestCase());
    }
};

/// Static instance.
static CreditSchedulerTestSuite g_creditSchedulerTestSuite;
