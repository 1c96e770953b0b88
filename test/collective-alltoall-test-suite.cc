/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-collectives-alltoall: AlltoAll and AlltoAllv by pairwise exchange and the
// dissemination barrier, on both fabrics and on the scale-up domain: bus bandwidth
// against the NIC goodput, exact bytes per rank and per pair, the bounded exchange
// and the barrier against their formulas.

#include "collective-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/test.h"

#include <cmath>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/**
 * \param n hosts
 * \return n hosts of one GPU each, every one on its own leaf, 2 spines: every pair
 *         of GPUs has the same path (NIC, leaf, spine, leaf, NIC), and no two NICs
 *         share a leaf-spine link, so ECMP cannot make two NICs collide
 */
ClusterDescription
OneHostPerLeaf(uint32_t n)
{
    ClusterDescription c = SmallCluster(n, 1, 2);
    c.gpusPerServer = 1;
    return c;
}

} // namespace

/**
 * AlltoAll on an idle fabric, one GPU per server (every pair over the NIC), every
 * peer at once (MaxPeers 0, as NCCL). Each rank sends (n-1)/n x S over its NIC and
 * receives as much, so with B the RDMA payload goodput of a host link (rate x
 * 4096 / 4178) and alpha the latency of the exchange beyond serialisation:
 *
 *   t = (n-1)/n x S / B + alpha,   busbw = (n-1)/n x S / t = B / (1 + alpha B / ((n-1)/n S))
 *
 * S = 8 MiB (n = 8: 1 MiB per pair, 512 KiB per channel message): (n-1)/n x S / B =
 * 599 us at 98.04 Gb/s for n = 8 and 642 us for n = 16, so an alpha of a few
 * microseconds costs about 1%. Expected: 0.97 B <= busbw <= B (3%; busbw cannot pass
 * B, the NIC's bound). Measured: 0.988 (scheduled) and 0.993 (Ethernet) for n = 8 on
 * 4 leaves of 4; 0.987 (scheduled) for n = 16 on the same shape.
 *
 * Shapes: "4x4" is 4 leaves of 4 hosts with 4 spines at the host rate (no fabric
 * speedup); "4x4 200G" the same with 200 Gb/s leaf-spine links; "8x1" 8 leaves of
 * one host, 2 spines (every pair on the same path). With n = 16 on "4x4" each leaf
 * sends 3/4 of its hosts' 400 Gb/s across the spines, 300 Gb/s over 4 uplinks in 96
 * flows (16 ranks x 12 remote peers / 4 leaves x 2 channels); ECMP hashes some
 * uplinks above 100 Gb/s, and the Ethernet fabric reached only 0.931 B (no packet
 * was retransmitted: the hot links set the pace). The scheduled fabric sprays
 * cells over every uplink and reached 0.987 B on that shape. The Ethernet case of
 * n = 16 therefore runs on "4x4 200G", where ECMP has room: 0.993 B.
 */
template <typename FabricHelper>
class AlltoAllBusBandwidthTestCase : public TestCase
{
  public:
    /**
     * \param fabric fabric name \param shape "4x4", "4x4 200G" or "8x1" (above)
     * \param n ranks
     */
    AlltoAllBusBandwidthTestCase(const std::string& fabric, const std::string& shape, uint32_t n)
        : TestCase("AlltoAll of 8 MiB on " + std::to_string(n) + " ranks, " + fabric +
                   ", leaves x hosts " + shape + ": busbw within 3% of the NIC goodput"),
          m_shape(shape),
          m_n(n)
    {
    }

  private:
    /// Run AlltoAll on the shape and check its bus bandwidth against the bound.
    void DoRun() override
    {
        ClusterDescription c = m_shape == "8x1" ? OneHostPerLeaf(m_n) : OneGpuServers();
        if (m_shape == "4x4 200G")
        {
            c.fabricLinkRate = DataRate("200Gbps");
        }
        GpuCluster<FabricHelper> f(c);
        Ptr<Communicator> comm = f.FirstGpus(m_n);
        const uint64_t bytes = 8 << 20;
        CollectiveResult r = f.Run(comm, "AlltoAll", bytes, 2);
        const double b = RdmaGoodput(c) / 8; // bytes/s
        const double n = m_n;
        double bound = (n - 1) / n * bytes / b;
        double t = r.GetDuration().GetSeconds();
        double ratio = r.GetBusBandwidth() / b;
        std::cout << GetName() << ": t " << t * 1e6 << " us, bound " << bound * 1e6 << " us, busbw "
                  << r.GetBusBandwidth() * 8 / 1e9 << " Gb/s = " << ratio
                  << " x goodput, retransmitted " << f.Sum().retransmittedPackets << std::endl;
        NS_TEST_EXPECT_MSG_EQ(r.collective, "AlltoAll", "collective");
        NS_TEST_EXPECT_MSG_EQ(r.algorithm, "ns3::PairwiseAlltoAll", "default algorithm");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.busBandwidthFactor, (n - 1) / n, 1e-12, "nccl-tests factor");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(ratio, 0.97, "busbw within 3% of the NIC goodput");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(ratio, 1.0, "busbw not above the NIC goodput");
        // S = 8 MiB is a multiple of n: every rank sends and receives (n-1)/n x S.
        for (uint32_t rank = 0; rank < m_n; ++rank)
        {
            NS_TEST_EXPECT_MSG_EQ(r.bytesSent[rank], (m_n - 1) * bytes / m_n, "sent");
            NS_TEST_EXPECT_MSG_EQ(r.bytesReceived[rank], (m_n - 1) * bytes / m_n, "received");
        }
        NS_TEST_EXPECT_MSG_EQ(f.Sum().bytesDelivered,
                              static_cast<uint64_t>(m_n) * (m_n - 1) * bytes / m_n,
                              "every byte over the NICs");
    }

    std::string m_shape; //!< cluster shape
    uint32_t m_n;        //!< ranks
};

/**
 * Exact bytes of AlltoAll on two 8-GPU servers (16 ranks, rail placement: GPU g of
 * both servers on leaf g). Block d = SplitBytes(S, 16, d) goes from every rank to
 * rank d; rank r keeps block r (a local copy) and sends the 15 others: 7 to the GPUs
 * of its own server over the scale-up switch, 8 to the other server over its NIC.
 *
 *   S = 16 x 65,536 = 1,048,576 (a multiple of n): every block 65,536 B;
 *     sent(r) = received(r) = 15/16 S = 983,040; scale-up sent(r) = 7 x 65,536 =
 *     458,752; over the NICs 8 x 65,536 = 524,288 per rank, 8,388,608 in all.
 *   S = 1,048,583 (S mod 16 = 7): block d = 65,536 + (d < 7);
 *     sent(r) = S - block(r), received(r) = 15 x block(r); scale-up sent(r) =
 *     sum of the blocks of the other 7 GPUs of r's server.
 */
class AlltoAllBytesTestCase : public TestCase
{
  public:
    AlltoAllBytesTestCase()
        : TestCase("AlltoAll on two 8-GPU servers: exact bytes per rank, scale-up and NIC")
    {
    }

  private:
    /// Run AlltoAll of two sizes on 16 ranks and check the NIC and scale-up bytes of every rank.
    void DoRun() override
    {
        ClusterDescription c = SmallCluster(8, 2, 2);
        GpuCluster<ScheduledFabricHelper> f(c);
        Ptr<Communicator> comm = f.FirstGpus(16);
        const uint32_t n = 16;
        for (uint64_t bytes : {uint64_t{1048576}, uint64_t{1048583}})
        {
            const uint64_t nicBefore = f.Sum().bytesDelivered;
            CollectiveResult r = f.Run(comm, "AlltoAll", bytes, 3);
            auto block = [bytes, n](uint32_t d) { return bytes / n + (d < bytes % n ? 1 : 0); };
            uint64_t nicBytes = 0;
            for (uint32_t rank = 0; rank < n; ++rank)
            {
                uint64_t scaleUp = 0;
                for (uint32_t d = 0; d < n; ++d)
                {
                    if (d != rank && d / 8 == rank / 8)
                    {
                        scaleUp += block(d);
                    }
                }
                NS_TEST_EXPECT_MSG_EQ(r.bytesSent[rank], bytes - block(rank), "sent");
                NS_TEST_EXPECT_MSG_EQ(r.bytesReceived[rank], (n - 1) * block(rank), "received");
                NS_TEST_EXPECT_MSG_EQ(r.scaleUpBytesSent[rank], scaleUp, "inside the server");
                nicBytes += r.bytesSent[rank] - scaleUp;
            }
            if (bytes % n == 0)
            {
                NS_TEST_EXPECT_MSG_EQ(r.bytesSent[5], 983040, "15/16 S");
                NS_TEST_EXPECT_MSG_EQ(r.scaleUpBytesSent[5], 458752, "7 blocks inside");
                NS_TEST_EXPECT_MSG_EQ(nicBytes, 8388608, "16 x 8 blocks over the NICs");
            }
            NS_TEST_EXPECT_MSG_EQ(f.Sum().bytesDelivered - nicBefore,
                                  nicBytes,
                                  "the transports delivered exactly the NIC share");
        }
    }
};

/**
 * AlltoAllv of a given uneven matrix on a communicator spanning two 8-GPU servers:
 * ranks 0..4 = GPUs 0, 1, 9, 2, 10 (ranks 0, 1, 3 in server 0, ranks 2, 4 in server
 * 1), so pairs cross both the scale-up switch and the NICs. The matrix has zeros
 * (off and on the diagonal), odd sizes and a row of zeros; Channels 3 and ChunkSize
 * 10,000 cut the larger entries into several pieces on several channels, MaxPeers 2
 * bounds the window. Every byte posted (the Step trace) is summed per pair: the
 * result must be the matrix off the diagonal, exactly, and zero on it; bytesSent =
 * row sum - diagonal, bytesReceived = column sum - diagonal, scaleUpBytesSent = the
 * row's entries to ranks of the same server.
 *
 *   row sums: 37,770  0  57,139  34,680  40,444;   S = 57,139 (largest row sum)
 */
template <typename FabricHelper>
class AlltoAllvMatrixTestCase : public TestCase
{
  public:
    /// \param fabric fabric name
    explicit AlltoAllvMatrixTestCase(const std::string& fabric)
        : TestCase("AlltoAllv of an uneven 5 x 5 matrix with zeros across two servers, " + fabric +
                   ": exactly the matrix moves")
    {
    }

  private:
    /// Run AlltoAllv with a 5 x 5 matrix and check every rank's bytes sent and received.
    void DoRun() override
    {
        ClusterDescription c = SmallCluster(8, 2, 2);
        GpuCluster<FabricHelper> f(c);
        const std::vector<uint32_t> gpus{0, 1, 9, 2, 10};
        Ptr<Communicator> comm = f.collectives.CreateCommunicator(gpus);
        const PairwiseAlltoAllv::Matrix m{
            {1000, 0, 12345, 1, 24424},
            {0, 0, 0, 0, 0},
            {7, 30001, 5, 0, 27126},
            {4096, 4095, 4097, 0, 22392},
            {0, 1, 40000, 443, 0},
        };
        const uint32_t n = 5;
        Ptr<CollectiveOperation> op = f.collectives.Create("AlltoAllv");
        auto v = DynamicCast<PairwiseAlltoAllv>(op);
        NS_TEST_ASSERT_MSG_NE(v, nullptr, "default AlltoAllv algorithm");
        v->SetMatrix(m);
        NS_TEST_EXPECT_MSG_EQ(v->GetMatrixBytes(), 57139, "S: the largest row sum");
        op->SetAttribute("Channels", UintegerValue(3));
        op->SetAttribute("ChunkSize", UintegerValue(10000));
        op->SetAttribute("MaxPeers", UintegerValue(2));
        std::vector<std::vector<uint64_t>> moved(n, std::vector<uint64_t>(n, 0));
        uint64_t messages = 0;
        op->TraceConnectWithoutContext(
            "Step",
            Callback<void, uint32_t, uint32_t, uint64_t, uint32_t>(
                [&moved, &messages, n](uint32_t src, uint32_t dst, uint64_t b, uint32_t k) {
                    moved[src][dst] += b;
                    ++messages;
                    // round k: rank src sends to (src + k) mod n
                    NS_ABORT_MSG_IF((src + k) % n != dst, "round and peer disagree");
                }));
        CollectiveResult r = f.Run(comm, op, v->GetMatrixBytes());
        NS_TEST_EXPECT_MSG_EQ(r.bytes, 57139, "S");
        NS_TEST_EXPECT_MSG_EQ(r.collective, "AlltoAllv", "collective");
        uint64_t expectedMessages = 0;
        for (uint32_t i = 0; i < n; ++i)
        {
            uint64_t row = 0;
            uint64_t column = 0;
            uint64_t scaleUp = 0;
            for (uint32_t j = 0; j < n; ++j)
            {
                NS_TEST_EXPECT_MSG_EQ(moved[i][j], (i == j ? 0 : m[i][j]), "pair moved");
                if (j != i)
                {
                    row += m[i][j];
                    column += m[j][i];
                    scaleUp += comm->IsSameServer(i, j) ? m[i][j] : 0;
                    // pieces: each channel's share cut into ChunkSize pieces
                    for (uint32_t ch = 0; ch < 3; ++ch)
                    {
                        uint64_t part = m[i][j] / 3 + (ch < m[i][j] % 3 ? 1 : 0);
                        expectedMessages += (part + 9999) / 10000;
                    }
                }
            }
            NS_TEST_EXPECT_MSG_EQ(r.bytesSent[i], row, "row sum minus diagonal");
            NS_TEST_EXPECT_MSG_EQ(r.bytesReceived[i], column, "column sum minus diagonal");
            NS_TEST_EXPECT_MSG_EQ(r.scaleUpBytesSent[i], scaleUp, "inside the server");
        }
        NS_TEST_EXPECT_MSG_EQ(r.bytesSent[0], 36770, "row 0 by hand");
        NS_TEST_EXPECT_MSG_EQ(r.bytesReceived[2], 56442, "column 2 by hand");
        NS_TEST_EXPECT_MSG_EQ(r.bytesSent[1], 0, "a rank that sends nothing");
        NS_TEST_EXPECT_MSG_EQ(messages, expectedMessages, "pieces posted");
        NS_TEST_EXPECT_MSG_EQ(r.steps, expectedMessages, "pieces counted");
    }
};

/**
 * The bounded exchange: MaxPeers 1 runs the n-1 rounds one after another, each rank
 * sending D = S/n to one peer per round. On a cluster where every pair has the same
 * path (one NIC per leaf) and nothing else runs, every round is a permutation that
 * takes the time of one message of D bytes, split over the Channels, from every rank
 * at once: D/B + alpha, which is exactly what a SendRecv of D bytes (every rank to
 * the next, the same Channels) takes. So
 *
 *   t(MaxPeers 1) = (n-1) x (D/B + alpha) = (n-1) x t(SendRecv of D)      (within 2%)
 *
 * (2%: the scheduled fabric's credit clocks and request jitter make rounds that
 * start at different times differ by a fraction of a microsecond). alpha = t(SendRecv)
 * - D/B is reported. MaxPeers 0 (all peers at once) hides alpha behind the other
 * rounds' bytes: it is faster, about (n-1) D/B + alpha; MaxPeers 2 lies between.
 * n = 8, D = 64 KiB (D/B = 5.35 us at 98.04 Gb/s), Channels 2.
 *
 * Measured: scheduled, SendRecv 12.13 us (alpha 6.78 us: a credit loop), MaxPeers 1
 * 83.67 us against 84.88 us (-1.4%), MaxPeers 2 62.31 us, every peer 42.55 us;
 * Ethernet, SendRecv 8.36 us (alpha 3.01 us), MaxPeers 1 58.55 us against 58.51 us,
 * MaxPeers 2 48.18 us, every peer 40.51 us; (n-1) D/B = 37.43 us.
 */
template <typename FabricHelper>
class BoundedAlltoAllTestCase : public TestCase
{
  public:
    /// \param fabric fabric name
    explicit BoundedAlltoAllTestCase(const std::string& fabric)
        : TestCase("AlltoAll with MaxPeers 1 on 8 ranks, " + fabric +
                   ": round by round, n-1 rounds of one message")
    {
    }

  private:
    /// Compare the bounded AlltoAll's time with the SendRecv time it is built from.
    void DoRun() override
    {
        const uint32_t n = 8;
        ClusterDescription c = OneHostPerLeaf(n);
        GpuCluster<FabricHelper> f(c);
        Ptr<Communicator> comm = f.FirstGpus(n);
        const uint64_t d = 65536;
        const double b = RdmaGoodput(c) / 8;
        CollectiveResult sendRecv = f.Run(comm, "SendRecv", d, 2);
        double round = sendRecv.GetDuration().GetSeconds();
        CollectiveResult one = f.Run(comm, "AlltoAll", n * d, 2, 1);
        CollectiveResult two = f.Run(comm, "AlltoAll", n * d, 2, 2);
        CollectiveResult all = f.Run(comm, "AlltoAll", n * d, 2, 0);
        double expected = (n - 1) * round;
        std::cout << GetName() << ": SendRecv of D " << round * 1e6 << " us (alpha "
                  << (round - d / b) * 1e6 << " us); MaxPeers 1 "
                  << one.GetDuration().GetSeconds() * 1e6 << " us, formula " << expected * 1e6
                  << " us; MaxPeers 2 " << two.GetDuration().GetSeconds() * 1e6 << " us; all peers "
                  << all.GetDuration().GetSeconds() * 1e6 << " us, bound (n-1) D/B "
                  << (n - 1) * d / b * 1e6 << " us" << std::endl;
        NS_TEST_EXPECT_MSG_EQ_TOL(one.GetDuration().GetSeconds() / expected,
                                  1.0,
                                  0.02,
                                  "round by round");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(all.GetDuration(), one.GetDuration(), "unbounded not slower");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(two.GetDuration(), one.GetDuration(), "two not slower");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(all.GetDuration().GetSeconds(),
                                    (n - 1) * d / b,
                                    "not above the NIC rate");
        for (uint32_t rank = 0; rank < n; ++rank)
        {
            NS_TEST_EXPECT_MSG_EQ(one.bytesSent[rank], (n - 1) * d, "sent");
            NS_TEST_EXPECT_MSG_EQ(one.bytesReceived[rank], (n - 1) * d, "received");
        }
    }
};

/**
 * The dissemination barrier: K = ceil(log2 n) rounds; in round k rank r sends S = 8
 * bytes to (r + 2^k) mod n and leaves the round when the message from
 * (r - 2^k) mod n has arrived. With one NIC per leaf every message has the same
 * path, and every rank sends one message and receives one per round, so the rounds
 * run in lock-step at the cost alpha of one 8-byte message, which a SendRecv of 8
 * bytes on one channel measures (every rank to the next at once):
 *
 *   t = K x alpha      n = 2: K = 1;  n = 3, 4: K = 2;  n = 5 .. 8: K = 3
 *
 * Tolerance K x RequestJitter + 1%: on the scheduled fabric the first credit
 * request of a VOQ that just became busy waits a random phase of up to
 * RequestJitter (200 ns), once per message, so a round costs alpha give or take
 * that; the Ethernet fabric has no such term. One rank passes at once (t = 0).
 *
 * alpha is measured on a cluster of its own: on the scheduled fabric a VOQ keeps
 * the credit left over from its last grant, so a second message on the same VOQ
 * skips the credit loop (2.03 us instead of 4.23 us), while every barrier message
 * is the first of its VOQ (its peer differs in every round). Measured: scheduled
 * alpha 4.19 to 4.23 us, t within 0.6% of K x alpha; Ethernet alpha 2.03 us, t
 * within 0.3%.
 */
template <typename FabricHelper>
class BarrierTestCase : public TestCase
{
  public:
    /// \param fabric fabric name \param n ranks
    BarrierTestCase(const std::string& fabric, uint32_t n)
        : TestCase("Barrier on " + std::to_string(n) + " ranks, " + fabric +
                   ": ceil(log2 n) rounds of one 8-byte message"),
          m_n(n)
    {
    }

  private:
    /// Run the barrier on m_n ranks and check its time against the rounds times a SendRecv's alpha.
    void DoRun() override
    {
        const uint64_t flag = 8;
        double alpha = 0;
        if (m_n > 1)
        {
            GpuCluster<FabricHelper> fresh(OneHostPerLeaf(8));
            CollectiveResult one = fresh.Run(fresh.FirstGpus(m_n), "SendRecv", flag, 1);
            alpha = one.GetDuration().GetSeconds();
        }
        GpuCluster<FabricHelper> f(OneHostPerLeaf(8));
        Ptr<Communicator> comm = f.FirstGpus(m_n);
        CollectiveResult r = f.Run(comm, "Barrier", flag, 1);
        const uint32_t k = DisseminationBarrier::GetRounds(m_n);
        NS_TEST_EXPECT_MSG_EQ(r.collective, "Barrier", "collective");
        NS_TEST_EXPECT_MSG_EQ(r.algorithm, "ns3::DisseminationBarrier", "default algorithm");
        NS_TEST_EXPECT_MSG_EQ(r.busBandwidthFactor, 0.0, "no data, no busbw");
        NS_TEST_EXPECT_MSG_EQ(r.steps, static_cast<uint64_t>(m_n) * k, "one message per round");
        for (uint32_t rank = 0; rank < m_n; ++rank)
        {
            NS_TEST_EXPECT_MSG_EQ(r.bytesSent[rank], k * flag, "sent");
            NS_TEST_EXPECT_MSG_EQ(r.bytesReceived[rank], k * flag, "received");
        }
        if (m_n == 1)
        {
            NS_TEST_EXPECT_MSG_EQ(k, 0, "no round");
            NS_TEST_EXPECT_MSG_EQ(r.GetDuration(), Time(0), "one rank passes at once");
            return;
        }
        double expected = k * alpha;
        double t = r.GetDuration().GetSeconds();
        std::cout << GetName() << ": t " << t * 1e6 << " us, " << k << " x alpha " << alpha * 1e6
                  << " us = " << expected * 1e6 << " us" << std::endl;
        NS_TEST_EXPECT_MSG_EQ_TOL(t, expected, k * 200e-9 + 0.01 * expected, "K x alpha");
    }

    uint32_t m_n; //!< ranks
};

/**
 * The dissemination barrier inside one 8-GPU server (every message over the
 * scale-up switch). In every round each GPU sends one message and receives one, on
 * disjoint ports, so each round takes S/R + L (R the PortRate, L the Latency),
 * rounded up to the next nanosecond when it completes:
 *
 *   t = K x (S/R + L)      (exact within K ns of rounding)
 *
 * S = 8 B: S/R = 0.018 ns at 3.6 Tb/s, L = 1 us: n = 8 (K = 3) and n = 5 (K = 3),
 * t = 3.003 us; n = 3 (K = 2), t = 2.002 us.
 */
class ScaleUpBarrierTestCase : public TestCase
{
  public:
    /// \param n ranks
    explicit ScaleUpBarrierTestCase(uint32_t n)
        : TestCase("Barrier on " + std::to_string(n) +
                   " GPUs of one server: K rounds on the scale-up ports"),
          m_n(n)
    {
    }

  private:
    /// Run the barrier inside one server and check K x (S/R + L).
    void DoRun() override
    {
        GpuCluster<ScheduledFabricHelper> f(SmallCluster(8, 1, 1)); // one 8-GPU server
        Ptr<Communicator> comm = f.FirstGpus(m_n);
        const uint64_t flag = 8;
        CollectiveResult r = f.Run(comm, "Barrier", flag, 1);
        DataRateValue rate;
        TimeValue latency;
        comm->GetMember(0).scaleUp->GetAttribute("PortRate", rate);
        comm->GetMember(0).scaleUp->GetAttribute("Latency", latency);
        const double k = DisseminationBarrier::GetRounds(m_n);
        double expected = k * (flag * 8.0 / rate.Get().GetBitRate() + latency.Get().GetSeconds());
        NS_TEST_EXPECT_MSG_EQ_TOL(r.GetDuration().GetSeconds(),
                                  expected,
                                  k * 1e-9,
                                  "K rounds of one transfer");
        for (uint32_t rank = 0; rank < m_n; ++rank)
        {
            NS_TEST_EXPECT_MSG_EQ(r.scaleUpBytesSent[rank], k * flag, "all inside");
        }
        NS_TEST_EXPECT_MSG_EQ(f.Sum().bytesPosted, 0, "nothing over the NICs");
    }

    uint32_t m_n; //!< ranks
};

/// CollectiveHelper's defaults and choices for the new collectives.
class AlltoAllHelperTestCase : public TestCase
{
  public:
    AlltoAllHelperTestCase()
        : TestCase("CollectiveHelper: AlltoAll, AlltoAllv and Barrier defaults")
    {
    }

  private:
    /// Check the helper's default algorithms and choices for AlltoAll, AlltoAllv and Barrier.
    void DoRun() override
    {
        ClusterDescription c = OneHostPerLeaf(4);
        GpuCluster<EthernetClosHelper> f(c);
        NS_TEST_EXPECT_MSG_EQ(f.collectives.Create("AlltoAll")->GetInstanceTypeId().GetName(),
                              "ns3::PairwiseAlltoAll",
                              "AlltoAll");
        NS_TEST_EXPECT_MSG_EQ(f.collectives.Create("AlltoAllv")->GetInstanceTypeId().GetName(),
                              "ns3::PairwiseAlltoAllv",
                              "AlltoAllv");
        NS_TEST_EXPECT_MSG_EQ(f.collectives.Create("Barrier")->GetInstanceTypeId().GetName(),
                              "ns3::DisseminationBarrier",
                              "Barrier");
        // A uniform AlltoAllv reports what AlltoAll reports (S = the row sum).
        Ptr<Communicator> comm = f.FirstGpus(4);
        const uint64_t block = 30000;
        CollectiveResult a = f.Run(comm, "AlltoAll", 4 * block, 2);
        Ptr<PairwiseAlltoAllv> v =
            DynamicCast<PairwiseAlltoAllv>(f.collectives.Create("AlltoAllv"));
        v->SetMatrix(PairwiseAlltoAllv::Matrix(4, std::vector<uint64_t>(4, block)));
        CollectiveResult av = f.Run(comm, v, v->GetMatrixBytes());
        NS_TEST_EXPECT_MSG_EQ(av.bytes, a.bytes, "S");
        NS_TEST_EXPECT_MSG_EQ((av.bytesSent == a.bytesSent), true, "same bytes sent");
        NS_TEST_EXPECT_MSG_EQ(av.busBandwidthFactor, a.busBandwidthFactor, "same factor");
        NS_TEST_EXPECT_MSG_EQ_TOL(av.GetDuration().GetSeconds(),
                                  a.GetDuration().GetSeconds(),
                                  0.01 * a.GetDuration().GetSeconds(),
                                  "same time on an idle fabric");
        // MaxPeers above n-1 means every peer at once.
        CollectiveResult many = f.Run(comm, "AlltoAll", 4 * block, 2, 1000);
        NS_TEST_EXPECT_MSG_EQ((many.bytesSent == a.bytesSent), true, "MaxPeers 1000 on 4 ranks");
    }
};

/// The suite.
class CollectiveAlltoAllTestSuite : public TestSuite
{
  public:
    CollectiveAlltoAllTestSuite()
        : TestSuite("ai-fabric-collectives-alltoall", TestSuite::Type::UNIT)
    {
        AddTestCase(new AlltoAllBusBandwidthTestCase<ScheduledFabricHelper>("scheduled", "4x4", 8));
        AddTestCase(new AlltoAllBusBandwidthTestCase<EthernetClosHelper>("Ethernet", "4x4", 8));
        AddTestCase(
            new AlltoAllBusBandwidthTestCase<ScheduledFabricHelper>("scheduled", "4x4", 16));
        AddTestCase(
            new AlltoAllBusBandwidthTestCase<EthernetClosHelper>("Ethernet", "4x4 200G", 16));
        AddTestCase(new AlltoAllBusBandwidthTestCase<ScheduledFabricHelper>("scheduled", "8x1", 8));
        AddTestCase(new AlltoAllBusBandwidthTestCase<EthernetClosHelper>("Ethernet", "8x1", 8));
        AddTestCase(new AlltoAllBytesTestCase);
        AddTestCase(new AlltoAllvMatrixTestCase<ScheduledFabricHelper>("scheduled"));
        AddTestCase(new AlltoAllvMatrixTestCase<EthernetClosHelper>("Ethernet"));
        AddTestCase(new BoundedAlltoAllTestCase<ScheduledFabricHelper>("scheduled"));
        AddTestCase(new BoundedAlltoAllTestCase<EthernetClosHelper>("Ethernet"));
        for (uint32_t n : {1, 2, 3, 5, 6, 8})
        {
            AddTestCase(new BarrierTestCase<ScheduledFabricHelper>("scheduled", n));
            AddTestCase(new BarrierTestCase<EthernetClosHelper>("Ethernet", n));
        }
        for (uint32_t n : {3, 5, 8})
        {
            AddTestCase(new ScaleUpBarrierTestCase(n));
        }
        AddTestCase(new AlltoAllHelperTestCase);
    }
};

/// Registers the suite.
static CollectiveAlltoAllTestSuite g_collectiveAlltoAllTestSuite;
