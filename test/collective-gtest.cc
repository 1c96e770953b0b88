/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Pure logic of the pairwise exchange (AlltoAll, AlltoAllv) and the dissemination
// barrier, and death tests for bad input (the message names the parameter and the
// shapes or values). MaxPeers has no invalid value: 0 and anything of n-1 or more
// mean every peer at once.

#include "cluster-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <limits>
#include <vector>

using namespace ns3;

namespace
{

/// Four GPUs, one per host, on a small scheduled fabric, ready for collectives.
struct FourGpus
{
    RdmaCluster<ScheduledFabricHelper> cluster; //!< fabric and transports
    CollectiveHelper collectives;               //!< servers and communicators

    FourGpus()
        : cluster(Shape())
    {
        collectives.Install(Shape(), cluster.rdma);
    }

    /// \return 2 leaves of 2 hosts, one GPU per host
    static ClusterDescription Shape()
    {
        ClusterDescription c = SmallCluster(2, 2, 1);
        c.gpusPerServer = 1;
        return c;
    }

    /**
     * Start an AlltoAllv of a matrix on all four GPUs.
     * \param m the matrix \param bytes S given to Start
     */
    void StartAlltoAllv(const PairwiseAlltoAllv::Matrix& m, uint64_t bytes)
    {
        Ptr<PairwiseAlltoAllv> op = DynamicCast<PairwiseAlltoAllv>(collectives.Create("AlltoAllv"));
        op->SetMatrix(m);
        op->Start(collectives.CreateWorldCommunicator(),
                  bytes,
                  CollectiveOperation::DoneCallback());
        Simulator::Run();
    }
};

/// \param rows rows \param columns entries per row \return a matrix of 10 B entries
PairwiseAlltoAllv::Matrix
Filled(uint32_t rows, uint32_t columns)
{
    return PairwiseAlltoAllv::Matrix(rows, std::vector<uint64_t>(columns, 10));
}

} // namespace

TEST(DisseminationBarrier, RoundsAreCeilLog2)
{
    EXPECT_EQ(DisseminationBarrier::GetRounds(1), 0u);
    EXPECT_EQ(DisseminationBarrier::GetRounds(2), 1u);
    EXPECT_EQ(DisseminationBarrier::GetRounds(3), 2u);
    EXPECT_EQ(DisseminationBarrier::GetRounds(4), 2u);
    EXPECT_EQ(DisseminationBarrier::GetRounds(5), 3u);
    EXPECT_EQ(DisseminationBarrier::GetRounds(8), 3u);
    EXPECT_EQ(DisseminationBarrier::GetRounds(9), 4u);
    EXPECT_EQ(DisseminationBarrier::GetRounds(1000), 10u);
    EXPECT_EQ(DisseminationBarrier::GetRounds(1024), 10u);
    EXPECT_EQ(DisseminationBarrier::GetRounds(1025), 11u);
    EXPECT_EQ(DisseminationBarrier::GetRounds(std::numeric_limits<uint32_t>::max()), 32u);
}

TEST(PairwiseExchange, NamesAndBusBandwidthFactors)
{
    Ptr<PairwiseAlltoAll> a = CreateObject<PairwiseAlltoAll>();
    Ptr<PairwiseAlltoAllv> v = CreateObject<PairwiseAlltoAllv>();
    Ptr<DisseminationBarrier> b = CreateObject<DisseminationBarrier>();
    EXPECT_EQ(a->GetCollectiveName(), "AlltoAll");
    EXPECT_EQ(v->GetCollectiveName(), "AlltoAllv");
    EXPECT_EQ(b->GetCollectiveName(), "Barrier");
    EXPECT_DOUBLE_EQ(a->GetBusBandwidthFactor(8), 7.0 / 8);
    EXPECT_DOUBLE_EQ(v->GetBusBandwidthFactor(5), 4.0 / 5);
    EXPECT_DOUBLE_EQ(b->GetBusBandwidthFactor(8), 0.0);
    UintegerValue maxPeers;
    a->GetAttribute("MaxPeers", maxPeers);
    EXPECT_EQ(maxPeers.Get(), 0u); // every peer at once, as NCCL
}

TEST(PairwiseAlltoAllv, MatrixBytesIsTheLargestRowSum)
{
    Ptr<PairwiseAlltoAllv> v = CreateObject<PairwiseAlltoAllv>();
    EXPECT_EQ(v->GetMatrixBytes(), 0u);
    v->SetMatrix({{5, 0, 1}, {0, 0, 0}, {2, 3, 4}});
    EXPECT_EQ(v->GetMatrixBytes(), 9u); // row 2, diagonal included
    EXPECT_EQ(v->GetMatrix().size(), 3u);
    const uint64_t big = std::numeric_limits<uint64_t>::max() / 2 + 1;
    v->SetMatrix({{big, big}, {0, 0}});
    EXPECT_EQ(v->GetMatrixBytes(), std::numeric_limits<uint64_t>::max()); // saturated
}

TEST(PairwiseAlltoAllvDeathTest, WrongShapeMatrixIsRefusedAtStart)
{
    auto start = [](const PairwiseAlltoAllv::Matrix& m, uint64_t bytes) {
        FourGpus f;
        f.StartAlltoAllv(m, bytes);
    };
    EXPECT_DEATH(start(Filled(3, 3), 30),
                 "ns3::PairwiseAlltoAllv: Matrix has 3 rows, but the communicator has 4 ranks: "
                 "it must be 4 x 4 \\(row = source rank\\)");
    EXPECT_DEATH(start(Filled(5, 4), 40), "Matrix has 5 rows, but the communicator has 4 ranks");
    EXPECT_DEATH(start({}, 1), "Matrix has 0 rows, but the communicator has 4 ranks");
    PairwiseAlltoAllv::Matrix ragged = Filled(4, 4);
    ragged[2].pop_back();
    EXPECT_DEATH(start(ragged, 40),
                 "ns3::PairwiseAlltoAllv: Matrix row 2 has 3 entries, but the communicator has "
                 "4 ranks: it must be 4 x 4");
    PairwiseAlltoAllv::Matrix wide = Filled(4, 4);
    wide[0].push_back(10);
    EXPECT_DEATH(start(wide, 50), "Matrix row 0 has 5 entries");
}

TEST(PairwiseAlltoAllvDeathTest, BadSizesAreRefusedAtStart)
{
    auto start = [](const PairwiseAlltoAllv::Matrix& m, uint64_t bytes) {
        FourGpus f;
        f.StartAlltoAllv(m, bytes);
    };
    EXPECT_DEATH(start(Filled(4, 4), 100),
                 "ns3::PairwiseAlltoAllv: Start was given S = 100 B, but the Matrix's S \\(its "
                 "largest row sum\\) is 40 B");
    PairwiseAlltoAllv::Matrix huge = Filled(4, 4);
    huge[1][3] = std::numeric_limits<uint64_t>::max();
    EXPECT_DEATH(start(huge, 1), "Matrix row 1 sums to more than 18446744073709551615 bytes");
    // An all-zero matrix has S = 0, which Start refuses for every collective.
    EXPECT_DEATH(start(PairwiseAlltoAllv::Matrix(4, std::vector<uint64_t>(4, 0)), 0),
                 "size 0 bytes is not allowed");
}

TEST(CollectiveHelperDeathTest, AlgorithmsMustImplementTheirCollective)
{
    auto choose = [](const std::string& collective, const std::string& typeId) {
        CollectiveHelper h;
        h.SetAlgorithm(collective, typeId);
    };
    EXPECT_DEATH(choose("Barrier", "ns3::PairwiseAlltoAll"),
                 "\"ns3::PairwiseAlltoAll\" implements AlltoAll, not Barrier");
    EXPECT_DEATH(choose("AlltoAll", "ns3::PairwiseAlltoAllv"),
                 "\"ns3::PairwiseAlltoAllv\" implements AlltoAllv, not AlltoAll");
    EXPECT_DEATH(choose("AlltoAllv", "ns3::PairwiseExchange"),
                 "\"ns3::PairwiseExchange\" is not a collective algorithm");
}
