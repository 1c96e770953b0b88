/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ns3/checked-value.h"
#include "ns3/cluster-description.h"
#include "ns3/command-line.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace ns3;

TEST(ClusterDescription, DefaultsAreValidAndFollowTheLeafPortSplit)
{
    ClusterDescription cluster;
    cluster.Validate();
    EXPECT_EQ(cluster.hostPortsPerLeaf, 18u);
    EXPECT_EQ(cluster.fabricPortsPerLeaf, 20u);
    EXPECT_NEAR(double(cluster.fabricPortsPerLeaf) / cluster.hostPortsPerLeaf, 1.11, 0.005);
}

TEST(ClusterDescriptionDeathTest, ImpossibleClustersAreRefusedByName)
{
    auto withLeaves = [](uint32_t n) {
        ClusterDescription c;
        c.leaves = n;
        c.Validate();
    };
    EXPECT_DEATH(withLeaves(0), "leaves must be at least 1, got 0");

    auto withSpines = [](uint32_t n) {
        ClusterDescription c;
        c.spines = n;
        c.Validate();
    };
    EXPECT_DEATH(withSpines(0), "spines must be at least 1, got 0");

    auto withHostsPerLeaf = [](uint32_t n) {
        ClusterDescription c;
        c.hostsPerLeaf = n;
        c.Validate();
    };
    EXPECT_DEATH(withHostsPerLeaf(19), "hostsPerLeaf=19 exceeds hostPortsPerLeaf=18");
    EXPECT_DEATH(withHostsPerLeaf(0), "hostsPerLeaf must be at least 1, got 0");

    auto withLinks = [](uint32_t spines, uint32_t links) {
        ClusterDescription c;
        c.spines = spines;
        c.linksPerLeafSpine = links;
        c.Validate();
    };
    EXPECT_DEATH(withLinks(8, 3), "spines x linksPerLeafSpine = 24 exceeds fabricPortsPerLeaf=20");
    // 65536 x 65537 wraps to 65536 in 32 bits: refused, not taken for 65536.
    EXPECT_DEATH(withLinks(65536, 65537),
                 "spines x linksPerLeafSpine = 4295032832 exceeds fabricPortsPerLeaf=20");

    auto withHosts = [](uint32_t leaves, uint32_t hostsPerLeaf) {
        ClusterDescription c;
        c.leaves = leaves;
        c.hostsPerLeaf = hostsPerLeaf;
        c.hostPortsPerLeaf = hostsPerLeaf;
        c.Validate();
    };
    EXPECT_DEATH(withHosts(65536, 65537), "leaves=65536 x hostsPerLeaf=65537 = 4295032832 hosts");

    auto withRate = [](const char* rate) {
        ClusterDescription c;
        c.hostLinkRate = DataRate(rate);
        c.Validate();
    };
    EXPECT_DEATH(withRate("0bps"), "hostLinkRate must be positive");

    auto withDelay = [](Time delay) {
        ClusterDescription c;
        c.fabricLinkDelay = delay;
        c.Validate();
    };
    EXPECT_DEATH(withDelay(NanoSeconds(-5)), "fabricLinkDelay must not be negative");

    auto withBlock = [](uint32_t prefix) {
        ClusterDescription c;
        c.hostNetworkPrefixLength = prefix;
        c.Validate();
    };
    EXPECT_DEATH(withBlock(30), "8 hosts do not fit in hostNetwork=10.0.0.0/30");
}

TEST(ClusterDescriptionDeathTest, HostIndexOutOfRangeIsRefused)
{
    ClusterDescription cluster;
    EXPECT_DEATH(cluster.GetHostAddress(8), "host index 8 out of range");
}

TEST(ClusterDescription, ValidateDoesNotRequireGpuServers)
{
    // 2 leaves x 4 hosts are not rail-optimised 8-GPU servers, and clusters without
    // servers must keep working: Validate() does not check them.
    ClusterDescription cluster;
    cluster.Validate();
    EXPECT_EQ(cluster.gpusPerServer, 8u);
    EXPECT_EQ(cluster.nicPlacement, "rail");
    const std::string summary = cluster.ToString();
    EXPECT_NE(summary.find("8 GPUs per server"), std::string::npos) << summary;
    EXPECT_NE(summary.find("rail NIC placement"), std::string::npos) << summary;
}

TEST(ClusterDescription, ProblemsAreReportedWithoutStopping)
{
    ClusterDescription cluster; // 2 leaves x 4 hosts
    EXPECT_EQ(cluster.FindProblem(), "");
    cluster.gpusPerServer = 4;
    cluster.nicPlacement = "server";
    EXPECT_EQ(cluster.FindServerProblem(), "");
    cluster.nicPlacement = "ring";
    EXPECT_EQ(cluster.FindServerProblem(),
              "ClusterDescription: nicPlacement=\"ring\" is unknown (valid: rail, server)");
    cluster.gpusPerServer = 3;
    EXPECT_EQ(cluster.FindServerProblem(),
              "ClusterDescription: leaves=2 x hostsPerLeaf=4 = 8 hosts is not a multiple of "
              "gpusPerServer=3");
    EXPECT_EQ(cluster.FindProblem(), "") << "the servers are not part of FindProblem";
    cluster.spines = 0;
    EXPECT_EQ(cluster.FindProblem(), "ClusterDescription: spines must be at least 1, got 0");
}

TEST(ClusterDescriptionDeathTest, ImpossibleServersAreRefusedByName)
{
    auto servers =
        [](uint32_t leaves, uint32_t hostsPerLeaf, uint32_t gpus, const std::string& placement) {
            ClusterDescription c;
            c.leaves = leaves;
            c.hostsPerLeaf = hostsPerLeaf;
            c.gpusPerServer = gpus;
            c.nicPlacement = placement;
            c.ValidateServers();
        };
    EXPECT_DEATH(servers(8, 4, 0, "rail"), "gpusPerServer must be at least 1, got 0");
    EXPECT_DEATH(servers(2, 4, 3, "server"),
                 "leaves=2 x hostsPerLeaf=4 = 8 hosts is not a multiple of gpusPerServer=3");
    EXPECT_DEATH(servers(8, 4, 8, "ring"),
                 "nicPlacement=\"ring\" is unknown \\(valid: rail, server\\)");
    EXPECT_DEATH(servers(2, 4, 8, "rail"),
                 "nicPlacement=rail needs leaves a multiple of gpusPerServer \\(one leaf per "
                 "rail\\), got leaves=2 and gpusPerServer=8");
    EXPECT_DEATH(servers(4, 4, 8, "server"),
                 "nicPlacement=server needs hostsPerLeaf a multiple of gpusPerServer \\(a "
                 "server on one leaf\\), got hostsPerLeaf=4 and gpusPerServer=8");
    // Both placements need hosts a multiple of gpusPerServer first.
    EXPECT_DEATH(servers(3, 5, 2, "rail"), "15 hosts is not a multiple of gpusPerServer=2");

    // Every server accessor checks the servers before it answers.
    auto accessor = [](int which) {
        ClusterDescription c; // 2 x 4 hosts: not rail-optimised 8-GPU servers
        switch (which)
        {
        case 0:
            c.GetServers();
            break;
        case 1:
            c.GetHostOfGpu(0);
            break;
        case 2:
            c.GetGpuOfHost(0);
            break;
        case 3:
            c.GetServerOfRank(0);
            break;
        default:
            c.GetLocalGpu(0);
            break;
        }
    };
    for (int which = 0; which < 5; ++which)
    {
        EXPECT_DEATH(accessor(which), "nicPlacement=rail needs leaves a multiple") << which;
    }
}

TEST(ClusterDescriptionDeathTest, GpuRankOutOfRangeIsRefused)
{
    ClusterDescription c;
    c.leaves = 8;
    c.hostsPerLeaf = 4;
    EXPECT_DEATH(c.GetHostOfGpu(32), "GPU rank 32 out of range \\(cluster has 32 GPUs\\)");
    EXPECT_DEATH(c.GetServerOfRank(40), "GPU rank 40 out of range");
    EXPECT_DEATH(c.GetLocalGpu(32), "GPU rank 32 out of range");
    EXPECT_DEATH(c.GetGpuOfHost(32), "host index 32 out of range");
}

TEST(ClusterDescription, EveryFieldIsACommandLineOption)
{
    ClusterDescription cluster;
    CommandLine cmd;
    AddClusterToCommandLine(cmd, cluster, "c.");
    std::vector<std::string> args = {"program",
                                     "--c.leaves=3",
                                     "--c.hostsPerLeaf=5",
                                     "--c.spines=6",
                                     "--c.linksPerLeafSpine=2",
                                     "--c.hostPortsPerLeaf=8",
                                     "--c.fabricPortsPerLeaf=12",
                                     "--c.hostLinkRate=200Gbps",
                                     "--c.hostLinkDelay=100ns",
                                     "--c.fabricLinkRate=800Gbps",
                                     "--c.fabricLinkDelay=2us",
                                     "--c.hostNetwork=192.168.0.0",
                                     "--c.hostNetworkPrefixLength=16",
                                     "--c.gpusPerServer=4",
                                     "--c.nicPlacement=server"};
    std::vector<char*> argv;
    for (auto& a : args)
    {
        argv.push_back(a.data());
    }
    cmd.Parse(static_cast<int>(argv.size()), argv.data());
    EXPECT_EQ(cluster.leaves, 3u);
    EXPECT_EQ(cluster.hostsPerLeaf, 5u);
    EXPECT_EQ(cluster.spines, 6u);
    EXPECT_EQ(cluster.linksPerLeafSpine, 2u);
    EXPECT_EQ(cluster.hostPortsPerLeaf, 8u);
    EXPECT_EQ(cluster.fabricPortsPerLeaf, 12u);
    EXPECT_EQ(cluster.hostLinkRate, DataRate("200Gbps"));
    EXPECT_EQ(cluster.hostLinkDelay, NanoSeconds(100));
    EXPECT_EQ(cluster.fabricLinkRate, DataRate("800Gbps"));
    EXPECT_EQ(cluster.fabricLinkDelay, MicroSeconds(2));
    EXPECT_EQ(cluster.hostNetwork, Ipv4Address("192.168.0.0"));
    EXPECT_EQ(cluster.hostNetworkPrefixLength, 16u);
    EXPECT_EQ(cluster.gpusPerServer, 4u);
    EXPECT_EQ(cluster.nicPlacement, "server");
    EXPECT_EQ(cluster.GetHostAddress(0), Ipv4Address("192.168.0.1"));
    cluster.Validate();
    // 3 x 5 hosts do not divide into 4-GPU servers; 3 x 4 on one leaf each do.
    cluster.hostsPerLeaf = 4;
    cluster.ValidateServers();
    EXPECT_EQ(cluster.GetServers(), 3u);
}
