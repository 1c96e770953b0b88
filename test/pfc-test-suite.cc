/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-pfc: IEEE 802.1Qbb pause frames on RoceNetDevice. A paused priority sends
// nothing until its quanta expire or a resume arrives, while other priorities keep
// sending; the RDMA transport's data stops under pause and its ACKs do not.

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/ipv4-header.h"
#include "ns3/network-module.h"
#include "ns3/test.h"

#include <vector>

using namespace ns3;

namespace
{

/// One transmission start seen on a device.
struct TxRecord
{
    Time time;        //!< when it started
    uint8_t priority; //!< its priority (8 = PFC)
};

void
RecordTx(std::vector<TxRecord>* log, Ptr<const Packet>, uint8_t priority)
{
    log->push_back({Simulator::Now(), priority});
}

/// Send a raw IPv4 packet of the given size with a DSCP.
void
SendRaw(Ptr<RoceNetDevice> dev, uint32_t bytes, uint8_t dscp)
{
    Ptr<Packet> p = Create<Packet>(bytes - 20);
    Ipv4Header ip;
    ip.SetSource(Ipv4Address("10.0.0.1"));
    ip.SetDestination(Ipv4Address("10.0.0.2"));
    ip.SetProtocol(17);
    ip.SetPayloadSize(bytes - 20);
    ip.SetDscp(static_cast<Ipv4Header::DscpType>(dscp));
    p->AddHeader(ip);
    dev->Send(p, Address(), 0x0800);
}

/// Count starts of a priority in [from, to).
uint32_t
CountIn(const std::vector<TxRecord>& log, uint8_t priority, Time from, Time to)
{
    uint32_t n = 0;
    for (const auto& r : log)
    {
        n += (r.priority == priority && r.time >= from && r.time < to);
    }
    return n;
}

/// First start of a priority at or after a time (Time::Max() if none).
Time
FirstAfter(const std::vector<TxRecord>& log, uint8_t priority, Time from)
{
    for (const auto& r : log)
    {
        if (r.priority == priority && r.time >= from)
        {
            return r.time;
        }
    }
    return Time::Max();
}

} // namespace

/**
 * Device level: priority 3 has a backlog, priority 5 a packet every 5 us; the peer
 * pauses priority 3 with a number of quanta (and, in the resume variant, resumes it
 * early with quanta 0).
 */
class PfcPauseTestCase : public TestCase
{
  public:
    /// \param explicitResume resume early with a pause of 0 quanta
    PfcPauseTestCase(bool explicitResume)
        : TestCase(explicitResume ? "PFC pause then explicit resume (quanta 0)"
                                  : "PFC pause until the quanta expire"),
          m_resume(explicitResume)
    {
    }

  private:
    /// Pause priority 3 and check it stops for the quanta while priority 5 goes on.
    void DoRun() override
    {
        NodeContainer nodes;
        nodes.Create(2);
        RocePointToPointHelper wire;
        const double rate = 10e9;
        const Time delay = MicroSeconds(1);
        wire.SetDeviceAttribute("DataRate", DataRateValue(DataRate("10Gbps")));
        wire.SetChannelAttribute("Delay", TimeValue(delay));
        NetDeviceContainer d = wire.Install(nodes);
        Ptr<RoceNetDevice> a = DynamicCast<RoceNetDevice>(d.Get(0));
        Ptr<RoceNetDevice> b = DynamicCast<RoceNetDevice>(d.Get(1));
        std::vector<TxRecord> log;
        a->TraceConnectWithoutContext("TxBegin", MakeBoundCallback(&RecordTx, &log));
        std::vector<std::pair<uint8_t, uint16_t>> received;
        a->TraceConnectWithoutContext(
            "PfcReceived",
            MakeBoundCallback(
                +[](std::vector<std::pair<uint8_t, uint16_t>>* v, uint8_t p, uint16_t q) {
                    v->emplace_back(p, q);
                },
                &received));

        for (uint32_t i = 0; i < 2000; ++i)
        {
            SendRaw(a, 1000, 24); // DSCP 24 -> priority 3, a backlog
        }
        for (uint32_t i = 0; i < 400; ++i)
        {
            Simulator::Schedule(MicroSeconds(5 * i), &SendRaw, a, 1000, 40); // priority 5
        }
        const Time pauseAt = MicroSeconds(100);
        const uint16_t quanta = m_resume ? 65535 : 10000;
        Simulator::Schedule(pauseAt, &RoceNetDevice::SendPfc, b, 3, quanta);
        const Time resumeAt = MicroSeconds(300);
        if (m_resume)
        {
            Simulator::Schedule(resumeAt, &RoceNetDevice::SendPfc, b, 3, 0);
        }
        bool pausedMid = false;
        Simulator::Schedule(MicroSeconds(200), [&]() { pausedMid = a->IsPaused(3); });
        Simulator::Stop(MilliSeconds(3));
        Simulator::Run();

        // A PFC frame is 60 B + FCS 4 + preamble/IFG 20 = 84 B on the wire.
        Time pfcTx = Seconds(84 * 8 / rate);
        Time arrival = pauseAt + pfcTx + delay;
        // One quantum = 512 bit times at the line rate.
        Time pauseEnd =
            m_resume ? resumeAt + pfcTx + delay : arrival + Seconds(quanta * 512 / rate);
        // A frame already on the wire finishes: 1000 B + 14 + 24 at 10 Gb/s.
        Time frame = Seconds(1038 * 8 / rate);

        NS_TEST_EXPECT_MSG_EQ(pausedMid, true, "priority 3 is paused mid-way");
        NS_TEST_EXPECT_MSG_GT(CountIn(log, 3, Seconds(0), pauseAt), 50, "priority 3 sent before");
        NS_TEST_EXPECT_MSG_EQ(CountIn(log, 3, arrival + NanoSeconds(1), pauseEnd),
                              0,
                              "priority 3 silent while paused");
        // Priority 5 sends one frame per 5 us throughout the pause.
        uint32_t p5 = CountIn(log, 5, arrival, pauseEnd);
        double expected5 = (pauseEnd - arrival).GetSeconds() / 5e-6;
        NS_TEST_EXPECT_MSG_EQ_TOL(p5, expected5, 1.5, "priority 5 keeps sending");
        Time restart = FirstAfter(log, 3, arrival + NanoSeconds(1));
        NS_TEST_EXPECT_MSG_GT_OR_EQ(restart, pauseEnd, "not before the pause ends");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(restart, pauseEnd + frame, "within one frame after it");
        NS_TEST_ASSERT_MSG_EQ(received.size(), (m_resume ? 2 : 1), "PFC frames received");
        NS_TEST_EXPECT_MSG_EQ(+received[0].first, 3, "priority");
        NS_TEST_EXPECT_MSG_EQ(received[0].second, quanta, "quanta");
        NS_TEST_EXPECT_MSG_EQ(b->GetCounters().pfcSent, received.size(), "counted at sender");
        NS_TEST_EXPECT_MSG_EQ(a->GetCounters().pfcReceived, received.size(), "counted");
        std::cout << GetName() << ": pause " << (pauseEnd - arrival).GetMicroSeconds()
                  << " us, priority-3 restart " << (restart - pauseEnd).GetNanoSeconds()
                  << " ns after its end, priority-5 frames during pause " << p5 << std::endl;
        Simulator::Destroy();
    }

    bool m_resume; //!< resume explicitly
};

/**
 * Transport level: both hosts send RDMA messages; host 1 pauses host 0's data
 * priority. Host 0's data stops for the pause, its ACKs keep going, and everything
 * completes without loss.
 */
class PfcTransportTestCase : public TestCase
{
  public:
    PfcTransportTestCase()
        : TestCase("PFC pauses RDMA data, not ACKs")
    {
    }

  private:
    /// Run both transports with the pause and check data stops, ACKs go on, nothing is lost.
    void DoRun() override
    {
        NodeContainer hosts;
        hosts.Create(2);
        RocePointToPointHelper wire;
        wire.SetDeviceAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
        wire.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
        NetDeviceContainer nics = wire.Install(hosts);
        RdmaHelper rdma;
        rdma.Install(nics);
        Ptr<RoceNetDevice> a = DynamicCast<RoceNetDevice>(nics.Get(0));
        Ptr<RoceNetDevice> b = DynamicCast<RoceNetDevice>(nics.Get(1));
        std::vector<TxRecord> log;
        a->TraceConnectWithoutContext("TxBegin", MakeBoundCallback(&RecordTx, &log));
        uint32_t done = 0;
        auto count = MakeBoundCallback(
            +[](uint32_t* n, const RdmaCompletion&) { ++*n; },
            &done);
        rdma.Post(0, 1, 20000000, 1, count);
        rdma.Post(1, 0, 20000000, 2, count);
        const Time pauseAt = MicroSeconds(20);
        const uint16_t quanta = 65535;
        Simulator::Schedule(pauseAt, &RoceNetDevice::SendPfc, b, 3, quanta);
        Time arrival;
        a->TraceConnectWithoutContext(
            "PfcReceived",
            MakeBoundCallback(
                +[](Time* t, uint8_t, uint16_t) { *t = Simulator::Now(); },
                &arrival));
        Simulator::Run();
        // The PFC frame waits at most for the data frame on the wire at host 1 (4096 B
        // + 82 B at 100 Gb/s = 334 ns), then 84 B of serialisation and the delay.
        Time earliest = pauseAt + Seconds(84 * 8 / 100e9) + MicroSeconds(1);
        NS_TEST_EXPECT_MSG_GT_OR_EQ(arrival, earliest - NanoSeconds(1), "no earlier");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(arrival,
                                    earliest + Seconds(4178 * 8 / 100e9) + NanoSeconds(1),
                                    "behind at most one frame");
        Time pauseEnd = arrival + Seconds(quanta * 512 / 100e9);
        NS_TEST_EXPECT_MSG_EQ(CountIn(log, 3, arrival + NanoSeconds(1), pauseEnd),
                              0,
                              "no data while paused");
        // Host 1 streams at ~98 Gb/s: ~1000 packets of 4096 B in 335 us, one ACK per
        // AckInterval = 16 packets: ~63 ACKs.
        NS_TEST_EXPECT_MSG_GT(CountIn(log, 6, arrival, pauseEnd), 55, "ACKs keep flowing");
        NS_TEST_EXPECT_MSG_EQ(done, 2, "both messages complete");
        NS_TEST_EXPECT_MSG_EQ(rdma.GetTransport(0)->GetStats().retransmittedPackets,
                              0,
                              "PFC is lossless");
        NS_TEST_EXPECT_MSG_EQ(rdma.GetTransport(0)->GetStats().timeouts, 0, "no timeout");
        Simulator::Destroy();
    }
};

/// The suite.
class PfcTestSuite : public TestSuite
{
  public:
    PfcTestSuite()
        : TestSuite("ai-fabric-pfc", TestSuite::Type::UNIT)
    {
        AddTestCase(new PfcPauseTestCase(false));
        AddTestCase(new PfcPauseTestCase(true));
        AddTestCase(new PfcTransportTestCase());
    }
};

static PfcTestSuite g_pfcTestSuite; //!< registers the suite
