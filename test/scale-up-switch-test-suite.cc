/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/scale-up-switch.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <functional>
#include <vector>

using namespace ns3;

namespace
{

/// Femtoseconds per second.
constexpr int64_t FS_PER_S = 1000000000000000LL;

/// \param bytes bytes \param rate port rate \return B x 8 / rate, femtoseconds below
__int128_t
TransferFs(uint64_t bytes, DataRate rate)
{
    return static_cast<__int128_t>(bytes) * 8 * FS_PER_S / rate.GetBitRate();
}

/// \param fs a time in femtoseconds \return that time rounded up to the time step
Time
StepAtOrAfter(__int128_t fs)
{
    const int64_t stepFs = TimeStep(1).GetFemtoSeconds();
    return TimeStep(static_cast<int64_t>((fs + stepFs - 1) / stepFs));
}

/// One server's switch and the completion time of every transfer, by posting order.
struct Server
{
    Ptr<ScaleUpSwitch> sw;          //!< the switch
    std::vector<Time> done;         //!< completion time, by transfer index
    uint64_t startTraced{0};        //!< TransferStart calls
    uint64_t doneTraced{0};         //!< TransferDone calls
    uint64_t bytesStartTraced{0};   //!< bytes seen by TransferStart
    uint64_t bytesDoneTraced{0};    //!< bytes seen by TransferDone
    std::vector<uint64_t> sentSeen; //!< bytes by source, from TransferDone
    std::vector<uint64_t> recvSeen; //!< bytes by destination, from TransferDone

    /// \param gpus GPUs \param rate PortRate \param latency Latency
    Server(uint32_t gpus, DataRate rate, Time latency)
    {
        sw = CreateObject<ScaleUpSwitch>();
        sw->SetAttribute("PortRate", DataRateValue(rate));
        sw->SetAttribute("Latency", TimeValue(latency));
        sw->Setup(gpus);
        sentSeen.assign(gpus, 0);
        recvSeen.assign(gpus, 0);
        sw->TraceConnectWithoutContext("TransferStart", MakeCallback(&Server::Started, this));
        sw->TraceConnectWithoutContext("TransferDone", MakeCallback(&Server::Finished, this));
    }

    ~Server()
    {
        sw->Dispose();
        Simulator::Destroy();
    }

    /// \param src source \param dst destination \param bytes bytes
    void Started(uint32_t src, uint32_t dst, uint64_t bytes)
    {
        startTraced++;
        bytesStartTraced += bytes;
    }

    /// \param src source \param dst destination \param bytes bytes
    void Finished(uint32_t src, uint32_t dst, uint64_t bytes)
    {
        doneTraced++;
        bytesDoneTraced += bytes;
        sentSeen.at(src) += bytes;
        recvSeen.at(dst) += bytes;
    }

    /// Post a transfer now; its completion time goes to done[index].
    /// \param src source \param dst destination \param bytes bytes
    /// \return the transfer's index
    size_t Post(uint32_t src, uint32_t dst, uint64_t bytes)
    {
        const size_t index = done.size();
        done.push_back(Time(-1));
        sw->Transfer(src, dst, bytes, Callback<void>([this, index]() {
                         done[index] = Simulator::Now();
                     }));
        return index;
    }

    /// Post a transfer at an absolute time.
    /// \param at when \param src source \param dst destination \param bytes bytes
    void PostAt(Time at, uint32_t src, uint32_t dst, uint64_t bytes)
    {
        const size_t index = done.size();
        done.push_back(Time(-1));
        Simulator::Schedule(at - Simulator::Now(), [this, index, src, dst, bytes]() {
            sw->Transfer(src, dst, bytes, Callback<void>([this, index]() {
                             done[index] = Simulator::Now();
                         }));
        });
    }
};

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief One transfer on an idle server completes at B x 8 / PortRate + Latency,
 * rounded up to the time step, for several rates, sizes and latencies, posted at
 * time 0 and later (also beyond 2^63 fs, where an int64 femtosecond clock would
 * overflow).
 */
class ScaleUpSwitchIdleTestCase : public TestCase
{
  public:
    ScaleUpSwitchIdleTestCase()
        : TestCase("one transfer on an idle server takes B x 8 bits at PortRate plus Latency")
    {
    }

  private:
    /// Post each case on an idle server and check its completion time.
    void DoRun() override
    {
        struct Case
        {
            const char* rate;
            uint64_t bytes;
            Time latency;
            Time postAt;
        };

        const std::vector<Case> cases = {
            {"3600Gbps", 1 << 20, MicroSeconds(1), Seconds(0)},   // 2330.17 ns + 1 us
            {"3600Gbps", 1, MicroSeconds(1), Seconds(0)},         // 2.2 ps: rounds up
            {"800Gbps", 1000, NanoSeconds(250), Seconds(0)},      // exactly 10 ns
            {"7200Gbps", 123456789, Seconds(0), MicroSeconds(7)}, // no latency
            {"3600Gbps", 1 << 30, MicroSeconds(1), Hours(3)},     // past 2^63 fs
        };
        for (const auto& c : cases)
        {
            const DataRate rate(c.rate);
            Server server(8, rate, c.latency);
            server.PostAt(c.postAt, 3, 5, c.bytes);
            Simulator::Run();
            const __int128_t postFs =
                static_cast<__int128_t>(c.postAt.GetTimeStep()) * TimeStep(1).GetFemtoSeconds();
            const Time expected =
                StepAtOrAfter(postFs + TransferFs(c.bytes, rate) + c.latency.GetFemtoSeconds());
            NS_TEST_ASSERT_MSG_EQ(server.done[0],
                                  expected,
                                  c.bytes << " B at " << c.rate << " posted at "
                                          << c.postAt.As(Time::S));
            // The same against floating-point arithmetic: at most one step late,
            // never early (relative to the post time, so 3 h does not eat the digits).
            const double exactNs =
                c.bytes * 8.0 / rate.GetBitRate() * 1e9 + c.latency.GetSeconds() * 1e9;
            const double measuredNs = (server.done[0] - c.postAt).GetNanoSeconds();
            NS_TEST_ASSERT_MSG_GT_OR_EQ(measuredNs + 1e-6, exactNs, "never before the bytes");
            NS_TEST_ASSERT_MSG_LT(measuredNs, exactNs + 1.0, "within one 1 ns step");
            NS_TEST_ASSERT_MSG_EQ(server.sw->GetTransfers(), 1, "one transfer");
            NS_TEST_ASSERT_MSG_EQ(server.sw->GetBytesSent(3), c.bytes, "sent by GPU 3");
            NS_TEST_ASSERT_MSG_EQ(server.sw->GetBytesReceived(5), c.bytes, "received by 5");
        }
        // 1000 B at 800 Gb/s is 10 ns exactly: 260 ns in all.
        Server server(2, DataRate("800Gbps"), NanoSeconds(250));
        server.Post(0, 1, 1000);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(server.done[0], NanoSeconds(260), "10 ns + 250 ns");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Transfers that share a port are serialised: two from one GPU to two GPUs
 * (shared transmit port) and two from two GPUs into one (shared receive port)
 * finish at 1 and 2 transfer times + Latency; 1000 back-to-back transfers finish at
 * 1000 transfer times + Latency, the clock adding up to the femtosecond.
 */
class ScaleUpSwitchSharedPortTestCase : public TestCase
{
  public:
    ScaleUpSwitchSharedPortTestCase()
        : TestCase("a shared transmit or receive port serialises transfers, exactly")
    {
    }

  private:
    /// Post transfers sharing a port and check they finish one after the other.
    void DoRun() override
    {
        const DataRate rate("3600Gbps");
        const Time latency = MicroSeconds(1);
        const uint64_t bytes = 1 << 20;
        const __int128_t t = TransferFs(bytes, rate);
        const __int128_t l = latency.GetFemtoSeconds();
        {
            Server server(8, rate, latency);
            server.Post(0, 1, bytes);
            server.Post(0, 2, bytes);
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(server.done[0], StepAtOrAfter(t + l), "first: 1 transfer");
            NS_TEST_ASSERT_MSG_EQ(server.done[1],
                                  StepAtOrAfter(2 * t + l),
                                  "second waits for GPU 0's transmit port");
            NS_TEST_ASSERT_MSG_EQ(server.done[1], NanoSeconds(5661), "2 x 2330.17 ns + 1 us");
        }
        {
            Server server(8, rate, latency);
            server.Post(1, 0, bytes);
            server.Post(2, 0, bytes);
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(server.done[0], StepAtOrAfter(t + l), "first: 1 transfer");
            NS_TEST_ASSERT_MSG_EQ(server.done[1],
                                  StepAtOrAfter(2 * t + l),
                                  "second waits for GPU 0's receive port");
        }
        {
            // A transfer posted while its port is still busy waits for it; one
            // posted after the port is free starts at once.
            Server server(8, rate, latency);
            server.Post(0, 1, bytes);
            server.PostAt(NanoSeconds(1000), 0, 2, bytes); // tx 0 busy until 2330 ns
            server.PostAt(MicroSeconds(20), 0, 3, bytes);  // idle again
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(server.done[1], StepAtOrAfter(2 * t + l), "waits for tx 0");
            NS_TEST_ASSERT_MSG_EQ(server.done[2],
                                  MicroSeconds(20) + StepAtOrAfter(t + l),
                                  "idle port: starts when posted");
        }
        {
            // Ports are reserved in posting order: 2 -> 1 waits for GPU 1's receive
            // port (busy with 0 -> 1), and 2 -> 3, posted next, waits behind it on
            // GPU 2's transmit port.
            Server server(8, rate, latency);
            server.Post(0, 1, bytes);
            server.Post(2, 1, bytes);
            server.Post(2, 3, bytes);
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(server.done[0], StepAtOrAfter(t + l), "0 -> 1");
            NS_TEST_ASSERT_MSG_EQ(server.done[1], StepAtOrAfter(2 * t + l), "2 -> 1 after it");
            NS_TEST_ASSERT_MSG_EQ(server.done[2], StepAtOrAfter(3 * t + l), "2 -> 3 after that");
        }
        {
            // 1000 back-to-back transfers of 4097 B (not a whole number of
            // femtoseconds at 3.6 Tb/s) from GPU 0, alternating destinations.
            Server server(8, rate, latency);
            const uint64_t small = 4097;
            for (uint32_t i = 0; i < 1000; ++i)
            {
                server.Post(0, 1 + i % 7, small);
            }
            Simulator::Run();
            const __int128_t each = TransferFs(small, rate);
            for (uint32_t i = 0; i < 1000; ++i)
            {
                NS_TEST_ASSERT_MSG_EQ(server.done[i],
                                      StepAtOrAfter((i + 1) * each + l),
                                      "transfer " << i << " at (i + 1) transfer times");
            }
            const double exactNs = 1000 * small * 8.0 / rate.GetBitRate() * 1e9 + 1000.0;
            NS_TEST_ASSERT_MSG_LT(server.done[999].GetNanoSeconds() - exactNs,
                                  1.0,
                                  "the sum is within one step of 1000 x B x 8 / rate");
            NS_TEST_ASSERT_MSG_GT_OR_EQ(server.done[999].GetNanoSeconds() - exactNs,
                                        -1e-3,
                                        "and not before it (to a femtosecond per transfer)");
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Transfers on disjoint ports do not interfere: four disjoint pairs, and the
 * reverse of one pair at the same time (a port is full duplex), all finish at one
 * transfer time + Latency.
 */
class ScaleUpSwitchDisjointTestCase : public TestCase
{
  public:
    ScaleUpSwitchDisjointTestCase()
        : TestCase("transfers between disjoint pairs, and both directions, do not interfere")
    {
    }

  private:
    /// Post transfers on disjoint ports and check they all finish at once.
    void DoRun() override
    {
        const DataRate rate("3600Gbps");
        const Time latency = MicroSeconds(1);
        const uint64_t bytes = 8 << 20;
        Server server(8, rate, latency);
        server.Post(0, 1, bytes);
        server.Post(2, 3, bytes);
        server.Post(4, 5, bytes);
        server.Post(6, 7, bytes);
        server.Post(1, 0, bytes); // GPU 1's transmit and GPU 0's receive port
        server.Post(3, 4, bytes); // GPU 3 transmits while it receives, 4 the reverse
        Simulator::Run();
        const Time expected = StepAtOrAfter(TransferFs(bytes, rate) + latency.GetFemtoSeconds());
        for (size_t i = 0; i < server.done.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(server.done[i], expected, "transfer " << i << " alone");
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Byte counters add up: a mixed pattern (all-to-all of unequal sizes, then
 * transfers posted from completions) gives per-GPU sent and received bytes equal to
 * what was posted, the same as the trace sources saw, and one completion each.
 */
class ScaleUpSwitchCountersTestCase : public TestCase
{
  public:
    ScaleUpSwitchCountersTestCase()
        : TestCase("byte counters and trace sources add up to what was posted")
    {
    }

  private:
    /// Post the mixed pattern and check the counters against what was posted and traced.
    void DoRun() override
    {
        const uint32_t gpus = 8;
        Server server(gpus, DataRate("3600Gbps"), MicroSeconds(1));
        std::vector<uint64_t> sent(gpus, 0);
        std::vector<uint64_t> received(gpus, 0);
        uint64_t total = 0;
        uint64_t transfers = 0;
        for (uint32_t src = 0; src < gpus; ++src)
        {
            for (uint32_t dst = 0; dst < gpus; ++dst)
            {
                if (src == dst)
                {
                    continue;
                }
                const uint64_t bytes = 1000 + 4096 * src + 37 * dst;
                server.Post(src, dst, bytes);
                sent[src] += bytes;
                received[dst] += bytes;
                total += bytes;
                transfers++;
            }
        }
        // A chain posted from completions: 0 -> 1 -> 2 -> ... -> 7, 64 KiB each.
        uint32_t hop = 0;
        std::function<void()> next = [&]() {
            if (hop + 1 < gpus)
            {
                const uint32_t src = hop++;
                server.sw->Transfer(src, src + 1, 65536, Callback<void>(next));
            }
        };
        for (uint32_t src = 0; src + 1 < gpus; ++src)
        {
            sent[src] += 65536;
            received[src + 1] += 65536;
            total += 65536;
            transfers++;
        }
        next();
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(server.sw->GetTransfers(), transfers, "every transfer completed");
        NS_TEST_ASSERT_MSG_EQ(server.startTraced, transfers, "TransferStart once each");
        NS_TEST_ASSERT_MSG_EQ(server.doneTraced, transfers, "TransferDone once each");
        NS_TEST_ASSERT_MSG_EQ(server.bytesStartTraced, total, "bytes at TransferStart");
        NS_TEST_ASSERT_MSG_EQ(server.bytesDoneTraced, total, "bytes at TransferDone");
        uint64_t sumSent = 0;
        uint64_t sumReceived = 0;
        for (uint32_t gpu = 0; gpu < gpus; ++gpu)
        {
            NS_TEST_ASSERT_MSG_EQ(server.sw->GetBytesSent(gpu), sent[gpu], "sent by " << gpu);
            NS_TEST_ASSERT_MSG_EQ(server.sw->GetBytesReceived(gpu),
                                  received[gpu],
                                  "received by " << gpu);
            NS_TEST_ASSERT_MSG_EQ(server.sentSeen[gpu], sent[gpu], "traced sent by " << gpu);
            NS_TEST_ASSERT_MSG_EQ(server.recvSeen[gpu], received[gpu], "traced recv by " << gpu);
            sumSent += server.sw->GetBytesSent(gpu);
            sumReceived += server.sw->GetBytesReceived(gpu);
        }
        NS_TEST_ASSERT_MSG_EQ(sumSent, total, "bytes sent add up");
        NS_TEST_ASSERT_MSG_EQ(sumReceived, total, "bytes received add up");
        for (size_t i = 0; i < server.done.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_GT(server.done[i], Time(0), "transfer " << i << " completed");
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Test suite for the scale-up (NVLink/NVSwitch-like) interconnect of a GPU
 * server.
 */
class ScaleUpSwitchTestSuite : public TestSuite
{
  public:
    ScaleUpSwitchTestSuite()
        : TestSuite("ai-fabric-scale-up-switch", TestSuite::Type::UNIT)
    {
        AddTestCase(new ScaleUpSwitchIdleTestCase);
        AddTestCase(new ScaleUpSwitchSharedPortTestCase);
        AddTestCase(new ScaleUpSwitchDisjointTestCase);
        AddTestCase(new ScaleUpSwitchCountersTestCase);
    }
};

/// The static instance that registers the suite.
static ScaleUpSwitchTestSuite g_scaleUpSwitchTestSuite;
