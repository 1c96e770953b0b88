/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-collectives: communicators and collective algorithms on both fabrics and
// on the scale-up domain: completion times against their formulas, the bytes every
// rank moves, independence of communicators.

#include "cluster-test-common.h"

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

/// A fabric with an RDMA transport per host and GPU servers on top.
template <typename FabricHelper>
struct GpuCluster : RdmaCluster<FabricHelper>
{
    CollectiveHelper collectives; //!< servers, communicators, algorithms

    /**
     * \param c the cluster (its gpusPerServer and nicPlacement are used)
     * \param configure sets fabric attributes before Install
     */
    explicit GpuCluster(const ClusterDescription& c,
                        const std::function<void(FabricHelper&)>& configure = {})
        : RdmaCluster<FabricHelper>(c, configure)
    {
        collectives.Install(c, this->rdma);
    }

    /// \param n ranks \return a communicator of GPUs 0 .. n-1
    Ptr<Communicator> FirstGpus(uint32_t n) const
    {
        std::vector<uint32_t> gpus(n);
        for (uint32_t g = 0; g < n; ++g)
        {
            gpus[g] = g;
        }
        return collectives.CreateCommunicator(gpus);
    }

    /**
     * Run one operation to completion on an otherwise idle cluster.
     * \param comm the communicator \param op the operation \param bytes S
     * \return its result
     */
    CollectiveResult Run(Ptr<Communicator> comm, Ptr<CollectiveOperation> op, uint64_t bytes)
    {
        op->Start(comm, bytes, CollectiveOperation::DoneCallback());
        Simulator::Run();
        NS_ABORT_MSG_IF(!op->IsFinished(), "operation did not finish");
        return op->GetResult();
    }

    /**
     * \param comm communicator \param collective its name \param bytes S
     * \param channels Channels attribute
     * \return the result of one operation of the default algorithm
     */
    CollectiveResult Run(Ptr<Communicator> comm,
                         const std::string& collective,
                         uint64_t bytes,
                         uint32_t channels = 2)
    {
        Ptr<CollectiveOperation> op = collectives.Create(collective);
        op->SetAttribute("Channels", UintegerValue(channels));
        return Run(comm, op, bytes);
    }
};

/// \return 16 hosts of one GPU each (every transfer crosses the NIC), 100 Gb/s links
ClusterDescription
OneGpuServers()
{
    ClusterDescription c = SmallCluster(4, 4, 4);
    c.gpusPerServer = 1;
    return c;
}

} // namespace

/**
 * Ring AllReduce on an idle fabric, one GPU per server (every hop over the NIC),
 * against the ring's cost model. With B the RDMA payload goodput of a host link
 * (rate x 4096 / 4178), n ranks, D = S/n bytes per step, cut into m pieces of
 * ChunkSize on one channel (piece time tau = D / (m B)), and alpha the per-step
 * latency beyond serialisation:
 *
 *   m = 1 (a step is one message): t = 2(n-1) x (D/B + alpha)
 *                                    = 2(n-1)/n x S/B + 2(n-1) x alpha
 *   m > 1 (pieces pipeline):       t = max(2(n-1)/n x S/B + alpha,
 *                                          2(n-1) x (tau + alpha) + (m-1) x tau)
 *
 * (a rank's NIC stays busy once the pieces still to send on a step cover alpha;
 * otherwise the first piece of every step waits for its arrival). alpha is measured
 * with a small operation of 16 KiB per step, solving the m = 1 formula for it: four
 * packets, past the scheduled fabric's first-credit allowance (two packets), so
 * every step pays the credit loop as larger steps do. Within 2% of the model.
 *
 * With several channels each channel is its own ring on the shared NIC; channels
 * drift apart and their pieces pipeline, so the time lies between the bandwidth
 * bound 2(n-1)/n x S/B + alpha and the m = 1 formula (checked within 2%).
 */
template <typename FabricHelper>
class RingAllReduceTimeTestCase : public TestCase
{
  public:
    RingAllReduceTimeTestCase(const std::string& fabric,
                              uint32_t n,
                              uint64_t bytes,
                              uint32_t channels)
        : TestCase("ring AllReduce of " + std::to_string(bytes) + " B on " + std::to_string(n) +
                   " ranks, " + std::to_string(channels) + " channels, " + fabric +
                   ": against the ring cost model"),
          m_n(n),
          m_bytes(bytes),
          m_channels(channels)
    {
    }

  private:
    void DoRun() override
    {
        ClusterDescription c = OneGpuServers();
        GpuCluster<FabricHelper> f(c);
        Ptr<Communicator> comm = f.FirstGpus(m_n);
        const double n = m_n;
        const double b = RdmaGoodput(c) / 8; // bytes/s
        const uint64_t chunkSize = 1 << 20;  // the ChunkSize default
        const uint64_t smallBytes = m_n * m_channels * 16384;
        CollectiveResult small = f.Run(comm, "AllReduce", smallBytes, m_channels);
        double alpha =
            (small.GetDuration().GetSeconds() - 2 * (n - 1) / n * smallBytes / b) / (2 * (n - 1));
        CollectiveResult r = f.Run(comm, "AllReduce", m_bytes, m_channels);
        double t = r.GetDuration().GetSeconds();
        double bandwidthTerm = 2 * (n - 1) / n * m_bytes / b;
        double oneMessageSteps = bandwidthTerm + 2 * (n - 1) * alpha;
        double perChannel = static_cast<double>(m_bytes) / m_n / m_channels;
        double m = std::ceil(perChannel / chunkSize);
        std::cout << GetName() << ": alpha " << alpha * 1e6 << " us, t " << t * 1e6
                  << " us, one-message-step formula " << oneMessageSteps * 1e6
                  << " us, bandwidth bound " << (bandwidthTerm + alpha) * 1e6 << " us, busbw "
                  << r.GetBusBandwidth() * 8 / 1e9 << " Gb/s" << std::endl;
        if (m_channels == 1)
        {
            double tau = perChannel / m / b;
            double model = m == 1 ? oneMessageSteps
                                  : std::max(bandwidthTerm + alpha,
                                             2 * (n - 1) * (tau + alpha) + (m - 1) * tau);
            NS_TEST_EXPECT_MSG_EQ_TOL(t / model, 1.0, 0.02, "within 2% of the ring cost model");
        }
        else
        {
            NS_TEST_EXPECT_MSG_GT_OR_EQ(t / (bandwidthTerm + alpha),
                                        0.98,
                                        "not above the NIC rate");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(t / oneMessageSteps, 1.02, "not slower than lock-step");
        }
        // Ring chunk j (B_j = S/n, plus one byte for j < S % n) enters at rank j + 1
        // and makes 2(n-1) hops, so rank r sends every chunk twice except chunks r and
        // r + 1, once: sent(r) = 2S - B_r - B_(r+1), received(r) = sent(r - 1).
        auto chunk = [this](uint32_t j) {
            return m_bytes / m_n + (j % m_n < m_bytes % m_n ? 1 : 0);
        };
        for (uint32_t rank = 0; rank < m_n; ++rank)
        {
            uint32_t prev = (rank + m_n - 1) % m_n;
            NS_TEST_EXPECT_MSG_EQ(r.bytesSent[rank],
                                  2 * m_bytes - chunk(rank) - chunk(rank + 1),
                                  "sent");
            NS_TEST_EXPECT_MSG_EQ(r.bytesReceived[rank],
                                  2 * m_bytes - chunk(prev) - chunk(rank),
                                  "received");
        }
    }

    uint32_t m_n;        //!< ranks
    uint64_t m_bytes;    //!< S
    uint32_t m_channels; //!< Channels
};

/// The suite.
class CollectiveTestSuite : public TestSuite
{
  public:
    CollectiveTestSuite()
        : TestSuite("ai-fabric-collectives", UNIT)
    {
        using Sched = RingAllReduceTimeTestCase<ScheduledFabricHelper>;
        using Eth = RingAllReduceTimeTestCase<EthernetClosHelper>;
        // One message per step (the classic formula), n = 3 .. 16 with odd n.
        for (uint32_t n : {3, 5, 8, 13, 16})
        {
            AddTestCase(new Sched("scheduled", n, 1560000, 1), TestCase::QUICK);
        }
        AddTestCase(new Eth("Ethernet", 16, 16000000, 1), TestCase::QUICK);
        // Two and more pieces per step: pipelined.
        AddTestCase(new Sched("scheduled", 5, 12000001, 1), TestCase::QUICK);
        AddTestCase(new Eth("Ethernet", 3, 16000000, 1), TestCase::QUICK);
        // Two channels.
        AddTestCase(new Sched("scheduled", 16, 1600000, 2), TestCase::QUICK);
        AddTestCase(new Eth("Ethernet", 7, 7000000, 2), TestCase::QUICK);
        // 256 MB (long).
        AddTestCase(new Eth("Ethernet", 3, 256000002, 1), TestCase::EXTENSIVE);
        AddTestCase(new Eth("Ethernet", 16, 256000000, 1), TestCase::EXTENSIVE);
        AddTestCase(new Sched("scheduled", 5, 256000000, 1), TestCase::EXTENSIVE);
    }
};

/// Registers the suite.
static CollectiveTestSuite g_collectiveTestSuite;
