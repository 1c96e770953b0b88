/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-rdma-scheduled-fabric: the RDMA transport runs unchanged over the
// scheduled fabric (its leaf host ports are RoceNetDevices): messages between every
// pair of hosts complete, every byte once, and the lossless fabric needs no
// retransmission.

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/test.h"

using namespace ns3;

/**
 * All-to-all between the hosts of a small scheduled fabric.
 */
class RdmaOverScheduledFabricTestCase : public TestCase
{
  public:
    RdmaOverScheduledFabricTestCase()
        : TestCase("all-to-all RDMA messages over the scheduled fabric")
    {
    }

  private:
    void DoRun() override
    {
        ClusterDescription cluster;
        cluster.leaves = 2;
        cluster.hostsPerLeaf = 2;
        cluster.spines = 2;
        cluster.hostLinkRate = DataRate("100Gbps");
        cluster.fabricLinkRate = DataRate("100Gbps");
        ScheduledFabricHelper fabric;
        fabric.Install(cluster);
        RdmaHelper rdma;
        rdma.Install(fabric.GetHostDevices());
        const uint32_t n = rdma.GetNRanks();
        const uint64_t size = 1000000 + 3;
        uint32_t sent = 0;
        uint32_t received = 0;
        auto countSent = MakeBoundCallback(
            +[](uint32_t* c, const RdmaCompletion&) { ++*c; },
            &sent);
        Time last;
        auto countReceived = MakeBoundCallback(
            +[](uint32_t* c, Time* t, const RdmaCompletion& m) {
                ++*c;
                *t = Max(*t, m.doneTime);
            },
            &received,
            &last);
        for (uint32_t a = 0; a < n; ++a)
        {
            for (uint32_t b = 0; b < n; ++b)
            {
                if (a != b)
                {
                    rdma.Post(a, b, size, a * n + b, countSent, countReceived);
                }
            }
        }
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        uint64_t delivered = 0;
        uint64_t retransmitted = 0;
        for (uint32_t r = 0; r < n; ++r)
        {
            delivered += rdma.GetTransport(r)->GetStats().bytesDelivered;
            retransmitted += rdma.GetTransport(r)->GetStats().retransmittedPackets;
        }
        std::cout << "RDMA over the scheduled fabric: " << received << " of " << n * (n - 1)
                  << " messages received, " << sent << " acknowledged, retransmitted "
                  << retransmitted << ", fabric drops " << fabric.GetTotals().GetDroppedPackets()
                  << ", last message received at " << last.GetMicroSeconds() << " us" << std::endl;
        NS_TEST_EXPECT_MSG_EQ(received, n * (n - 1), "every message received");
        NS_TEST_EXPECT_MSG_EQ(sent, n * (n - 1), "every message acknowledged");
        NS_TEST_EXPECT_MSG_EQ(delivered, n * (n - 1) * size, "every byte once");
        NS_TEST_EXPECT_MSG_EQ(retransmitted, 0, "lossless fabric: no retransmission");
        NS_TEST_EXPECT_MSG_EQ(fabric.GetTotals().GetDroppedPackets(), 0, "no drop");
        // Each host sends and receives 3 messages: at least 3 x (size + 82 B per 4096 B)
        // at 100 Gb/s = 245 us; allow the fabric's cell and credit overheads a factor 2.
        double ideal = 3 * size * (4096 + 82.0) / 4096 * 8 / 100e9;
        NS_TEST_EXPECT_MSG_GT_OR_EQ(last.GetSeconds(), ideal, "not faster than the links");
        NS_TEST_EXPECT_MSG_LT(last.GetSeconds(), 2 * ideal, "within twice the ideal time");
        Simulator::Destroy();
    }
};

/// The suite.
class RdmaScheduledFabricTestSuite : public TestSuite
{
  public:
    RdmaScheduledFabricTestSuite()
        : TestSuite("ai-fabric-rdma-scheduled-fabric", TestSuite::Type::UNIT)
    {
        AddTestCase(new RdmaOverScheduledFabricTestCase(), TestCase::QUICK);
    }
};

static RdmaScheduledFabricTestSuite g_rdmaScheduledFabricTestSuite; //!< registers the suite
