/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Death tests for bad input to the collectives library: each refusal names the
// parameter and its value, and comes before any data moves.

#include "cluster-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

/// 16 hosts on the scheduled fabric, two 8-GPU servers on rails, collectives installed.
struct Cluster : RdmaCluster<ScheduledFabricHelper>
{
    CollectiveHelper collectives; //!< servers, communicators, algorithms

    /// \param c the cluster
    explicit Cluster(const ClusterDescription& c = SmallCluster(8, 2, 2))
        : RdmaCluster<ScheduledFabricHelper>(c)
    {
        collectives.Install(c, rdma);
    }
};

/// Start an AllReduce of 1 MB on GPUs 0..3 with one attribute set.
void
StartWith(const std::string& attribute, uint64_t value)
{
    Cluster f;
    Ptr<CollectiveOperation> op = f.collectives.Create("AllReduce");
    op->SetAttribute(attribute, UintegerValue(value));
    op->Start(f.collectives.CreateCommunicator({0, 1, 2, 3}),
              1000000,
              CollectiveOperation::DoneCallback());
}

} // namespace

TEST(CommunicatorDeathTest, RankListedTwiceIsRefused)
{
    EXPECT_DEATH(
        {
            Cluster f;
            f.collectives.CreateCommunicator({0, 5, 3, 5});
        },
        "GPU 5 is listed twice");
}

TEST(CommunicatorDeathTest, RankThatDoesNotExistIsRefused)
{
    EXPECT_DEATH(
        {
            Cluster f;
            f.collectives.CreateCommunicator({0, 16});
        },
        "GPU 16 does not exist \\(GPUs 0..15\\)");
}

TEST(CommunicatorDeathTest, ZeroChannelsAreRefused)
{
    EXPECT_DEATH(StartWith("Channels", 0), "Channels 0 must be in 1..64");
    EXPECT_DEATH(StartWith("Channels", 65), "Channels 65 must be in 1..64");
}

TEST(CommunicatorDeathTest, ZeroChunkSizeIsRefused)
{
    EXPECT_DEATH(StartWith("ChunkSize", 0), "ChunkSize 0 must be >= 1");
}

TEST(CommunicatorDeathTest, UnknownAlgorithmsAreRefusedByName)
{
    EXPECT_DEATH(
        {
            Cluster f;
            f.collectives.SetAlgorithm("AllReduce", "ns3::NoSuchAllReduce");
        },
        "algorithm \"ns3::NoSuchAllReduce\" for AllReduce does not exist");
    EXPECT_DEATH(
        {
            Cluster f;
            f.collectives.SetAlgorithm("AllReduce", "ns3::RingAllGather");
        },
        "\"ns3::RingAllGather\" implements AllGather, not AllReduce");
    EXPECT_DEATH(
        {
            Cluster f;
            f.collectives.SetAlgorithm("AllReduce", "ns3::Node");
        },
        "\"ns3::Node\" is not a collective algorithm");
    EXPECT_DEATH(
        {
            Cluster f;
            f.collectives.Create("AllReduceX");
        },
        "unknown collective \"AllReduceX\"");
}

TEST(CommunicatorDeathTest, GpusPerServerMustDivideTheHosts)
{
    EXPECT_DEATH(
        {
            ClusterDescription c = SmallCluster(8, 2, 2);
            c.gpusPerServer = 3;
            Cluster f(c);
        },
        "16 hosts is not a multiple of gpusPerServer=3");
}

TEST(CommunicatorDeathTest, HierarchicalNeedsEqualServers)
{
    // GPUs 0..7 are server 0, 8..15 server 1: three of one and one of the other.
    EXPECT_DEATH(
        {
            Cluster f;
            f.collectives.SetAlgorithm("AllReduce", "ns3::HierarchicalAllReduce");
            Ptr<CollectiveOperation> op = f.collectives.Create("AllReduce");
            op->Start(f.collectives.CreateCommunicator({0, 1, 2, 8}),
                      1000000,
                      CollectiveOperation::DoneCallback());
        },
        "server 1 holds 1 of its ranks but server 0 holds 3");
}

TEST(Communicator, SeveralCommunicatorsPerGpuEachWithItsOwnNumber)
{
    Cluster f;
    Ptr<Communicator> a = f.collectives.CreateCommunicator({0, 1, 8});
    Ptr<Communicator> b = f.collectives.CreateCommunicator({8, 0});
    EXPECT_NE(a->GetId(), b->GetId());
    EXPECT_EQ(a->GetSize(), 3u);
    EXPECT_EQ(b->GetMember(0).gpu, 8u);
    EXPECT_TRUE(a->IsSameServer(0, 1));
    EXPECT_FALSE(a->IsSameServer(1, 2));
    Simulator::Destroy();
}
