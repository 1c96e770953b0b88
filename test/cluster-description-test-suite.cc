/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ns3/cluster-description.h"
#include "ns3/test.h"

#include <set>
#include <string>
#include <vector>

using namespace ns3;

/**
 * \ingroup ai-fabric-tests
 * \brief Host numbering of a ClusterDescription: leaf, port and address of every
 * host, and the address-to-host look-up that leaves use on ingress.
 */
class ClusterDescriptionNumberingTestCase : public TestCase
{
  public:
    ClusterDescriptionNumberingTestCase()
        : TestCase("host index, leaf, port and IPv4 address agree both ways")
    {
    }

  private:
    /// Check the leaf, port and address of every host and the look-up back.
    void DoRun() override
    {
        ClusterDescription cluster;
        cluster.leaves = 3;
        cluster.hostsPerLeaf = 5;
        cluster.spines = 2;
        cluster.Validate();
        NS_TEST_ASSERT_MSG_EQ(cluster.GetHosts(), 15, "3 leaves x 5 hosts");
        NS_TEST_ASSERT_MSG_EQ(cluster.GetFabricLinksPerLeaf(), 2, "2 spines x 1 link");
        for (uint32_t host = 0; host < cluster.GetHosts(); ++host)
        {
            NS_TEST_ASSERT_MSG_EQ(cluster.GetLeafOfHost(host), host / 5, "leaf of host");
            NS_TEST_ASSERT_MSG_EQ(cluster.GetPortOfHost(host), host % 5, "port of host");
            const Ipv4Address address = cluster.GetHostAddress(host);
            NS_TEST_ASSERT_MSG_EQ(address.Get(),
                                  Ipv4Address("10.0.0.1").Get() + host,
                                  "addresses are dense from 10.0.0.1");
            NS_TEST_ASSERT_MSG_EQ(cluster.GetHostIndex(address), host, "look-up inverts");
        }
        // Addresses outside the host block map to GetHosts(), "no such host".
        NS_TEST_ASSERT_MSG_EQ(cluster.GetHostIndex(Ipv4Address("10.0.0.0")), 15, "network address");
        NS_TEST_ASSERT_MSG_EQ(cluster.GetHostIndex(Ipv4Address("10.0.0.16")),
                              15,
                              "one past the last host");
        NS_TEST_ASSERT_MSG_EQ(cluster.GetHostIndex(Ipv4Address("9.255.255.255")),
                              15,
                              "below the block");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief GPU servers of one cluster shape and NIC placement: the GPU rank <-> host
 * mapping is a bijection, rank = server x gpusPerServer + local GPU, and the
 * placement puts the GPUs where it says (one leaf per server for "server"; G
 * different leaves per server, GPU g of every server of a rail group on one leaf,
 * for "rail").
 */
class ClusterDescriptionServersTestCase : public TestCase
{
  public:
    /**
     * \param leaves leaves \param hostsPerLeaf hosts per leaf
     * \param gpus gpusPerServer \param placement nicPlacement
     */
    ClusterDescriptionServersTestCase(uint32_t leaves,
                                      uint32_t hostsPerLeaf,
                                      uint32_t gpus,
                                      const std::string& placement)
        : TestCase(std::to_string(leaves) + " leaves x " + std::to_string(hostsPerLeaf) +
                   " hosts, " + std::to_string(gpus) + " GPUs per server, " + placement +
                   " placement: GPU <-> host bijection and placement"),
          m_leaves(leaves),
          m_hostsPerLeaf(hostsPerLeaf),
          m_gpus(gpus),
          m_placement(placement)
    {
    }

  private:
    /// Check the rank <-> host bijection and where the placement puts each GPU.
    void DoRun() override
    {
        ClusterDescription c;
        c.leaves = m_leaves;
        c.hostsPerLeaf = m_hostsPerLeaf;
        c.gpusPerServer = m_gpus;
        c.nicPlacement = m_placement;
        c.Validate();
        c.ValidateServers();
        const uint32_t hosts = c.GetHosts();
        const uint32_t servers = c.GetServers();
        NS_TEST_ASSERT_MSG_EQ(servers * m_gpus, hosts, "servers = hosts / gpusPerServer");

        // Bijection: every rank has a host, no two ranks share one, and the inverse
        // gives the rank back.
        std::vector<bool> hostSeen(hosts, false);
        for (uint32_t rank = 0; rank < hosts; ++rank)
        {
            const uint32_t host = c.GetHostOfGpu(rank);
            NS_TEST_ASSERT_MSG_LT(host, hosts, "host of rank " << rank << " in range");
            NS_TEST_ASSERT_MSG_EQ(hostSeen[host], false, "host " << host << " used twice");
            hostSeen[host] = true;
            NS_TEST_ASSERT_MSG_EQ(c.GetGpuOfHost(host), rank, "GetGpuOfHost inverts");
            NS_TEST_ASSERT_MSG_EQ(c.GetServerOfRank(rank) * m_gpus + c.GetLocalGpu(rank),
                                  rank,
                                  "rank = server x gpusPerServer + local GPU");
            NS_TEST_ASSERT_MSG_LT(c.GetServerOfRank(rank), servers, "server in range");
            NS_TEST_ASSERT_MSG_LT(c.GetLocalGpu(rank), m_gpus, "local GPU in range");
        }
        for (uint32_t host = 0; host < hosts; ++host)
        {
            NS_TEST_ASSERT_MSG_EQ(hostSeen[host], true, "host " << host << " has a GPU");
        }

        for (uint32_t server = 0; server < servers; ++server)
        {
            std::set<uint32_t> leaves;
            for (uint32_t gpu = 0; gpu < m_gpus; ++gpu)
            {
                leaves.insert(c.GetLeafOfHost(c.GetHostOfGpu(server * m_gpus + gpu)));
            }
            if (m_placement == "server")
            {
                NS_TEST_ASSERT_MSG_EQ(leaves.size(), 1, "server " << server << " on one leaf");
                NS_TEST_ASSERT_MSG_EQ(c.GetHostOfGpu(server * m_gpus),
                                      server * m_gpus,
                                      "server s starts at host s x G");
            }
            else
            {
                NS_TEST_ASSERT_MSG_EQ(leaves.size(),
                                      m_gpus,
                                      "server " << server << " on " << m_gpus << " leaves");
            }
        }
        if (m_placement == "rail")
        {
            // Rail group k: servers k x H .. k x H + H - 1. GPU g of each is on one
            // leaf, k x G + g, at the server's port within the group.
            for (uint32_t server = 0; server < servers; ++server)
            {
                const uint32_t group = server / m_hostsPerLeaf;
                for (uint32_t gpu = 0; gpu < m_gpus; ++gpu)
                {
                    const uint32_t host = c.GetHostOfGpu(server * m_gpus + gpu);
                    const uint32_t firstOfGroup =
                        c.GetHostOfGpu(group * m_hostsPerLeaf * m_gpus + gpu);
                    NS_TEST_ASSERT_MSG_EQ(c.GetLeafOfHost(host),
                                          c.GetLeafOfHost(firstOfGroup),
                                          "GPU " << gpu << " of server " << server
                                                 << " on its rail group's rail leaf");
                    NS_TEST_ASSERT_MSG_EQ(c.GetLeafOfHost(host),
                                          group * m_gpus + gpu,
                                          "rail leaf k x G + g");
                    NS_TEST_ASSERT_MSG_EQ(c.GetPortOfHost(host),
                                          server % m_hostsPerLeaf,
                                          "port = position in the rail group");
                }
            }
        }
    }

    uint32_t m_leaves;       //!< leaves
    uint32_t m_hostsPerLeaf; //!< hosts per leaf
    uint32_t m_gpus;         //!< GPUs per server
    std::string m_placement; //!< NIC placement
};

/**
 * \ingroup ai-fabric-tests
 * \brief Worked examples of the two placements, by hand, and one shape read both
 * ways.
 */
class ClusterDescriptionServersByHandTestCase : public TestCase
{
  public:
    ClusterDescriptionServersByHandTestCase()
        : TestCase("GPU <-> host mapping by hand for rail and server placement")
    {
    }

  private:
    /// Check the worked rail and server examples rank by rank.
    void DoRun() override
    {
        // 8 leaves x 4 hosts, 8 GPUs, rail: 4 servers, one rail group. Rank 9 is
        // GPU 1 of server 1: leaf 1, port 1, host 5. Rank 31 is GPU 7 of server 3:
        // leaf 7, port 3, host 31. Host 4 is leaf 1 port 0: GPU 1 of server 0.
        ClusterDescription rail;
        rail.leaves = 8;
        rail.hostsPerLeaf = 4;
        rail.gpusPerServer = 8;
        rail.nicPlacement = "rail";
        NS_TEST_ASSERT_MSG_EQ(rail.GetServers(), 4, "32 GPUs / 8");
        NS_TEST_ASSERT_MSG_EQ(rail.GetHostOfGpu(9), 5, "rank 9");
        NS_TEST_ASSERT_MSG_EQ(rail.GetHostOfGpu(31), 31, "rank 31");
        NS_TEST_ASSERT_MSG_EQ(rail.GetHostOfGpu(0), 0, "rank 0");
        NS_TEST_ASSERT_MSG_EQ(rail.GetHostOfGpu(1), 4, "rank 1: leaf 1, port 0");
        NS_TEST_ASSERT_MSG_EQ(rail.GetGpuOfHost(4), 1, "host 4");
        NS_TEST_ASSERT_MSG_EQ(rail.GetServerOfRank(9), 1, "server of rank 9");
        NS_TEST_ASSERT_MSG_EQ(rail.GetLocalGpu(9), 1, "local GPU of rank 9");

        // 16 leaves x 2 hosts, 8 GPUs, rail: two rail groups of 2 servers; server 2
        // (group 1, port 0) has its GPU 3 on leaf 8 + 3 = 11, host 22.
        ClusterDescription twoGroups = rail;
        twoGroups.leaves = 16;
        twoGroups.hostsPerLeaf = 2;
        NS_TEST_ASSERT_MSG_EQ(twoGroups.GetHostOfGpu(2 * 8 + 3), 22, "server 2, GPU 3");

        // Server placement, 4 leaves x 8 hosts, 8 GPUs: rank = host, and server 1
        // is hosts 8..15, all on leaf 1.
        ClusterDescription server;
        server.leaves = 4;
        server.hostsPerLeaf = 8;
        server.gpusPerServer = 8;
        server.nicPlacement = "server";
        NS_TEST_ASSERT_MSG_EQ(server.GetHostOfGpu(9), 9, "rank = host");
        NS_TEST_ASSERT_MSG_EQ(server.GetLeafOfHost(server.GetHostOfGpu(8)), 1, "server 1, leaf 1");
        NS_TEST_ASSERT_MSG_EQ(server.GetLeafOfHost(server.GetHostOfGpu(15)), 1, "server 1, leaf 1");
        NS_TEST_ASSERT_MSG_EQ(server.GetServerOfRank(15), 1, "server of rank 15");
        NS_TEST_ASSERT_MSG_EQ(server.GetLocalGpu(15), 7, "local GPU of rank 15");
        // Rail on this 4 x 8 shape needs leaves % 8 == 0: refused (the death tests).
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Test suite for the shared cluster description.
 */
class ClusterDescriptionTestSuite : public TestSuite
{
  public:
    ClusterDescriptionTestSuite()
        : TestSuite("ai-fabric-cluster-description", TestSuite::Type::UNIT)
    {
        AddTestCase(new ClusterDescriptionNumberingTestCase);
        AddTestCase(new ClusterDescriptionServersByHandTestCase);
        // (leaves, hostsPerLeaf, gpusPerServer, placement)
        AddTestCase(new ClusterDescriptionServersTestCase(8, 4, 8, "rail"));
        AddTestCase(new ClusterDescriptionServersTestCase(16, 2, 8, "rail"));
        AddTestCase(new ClusterDescriptionServersTestCase(16, 16, 8, "rail"));
        AddTestCase(new ClusterDescriptionServersTestCase(4, 8, 4, "rail"));
        AddTestCase(new ClusterDescriptionServersTestCase(6, 3, 2, "rail"));
        AddTestCase(new ClusterDescriptionServersTestCase(2, 16, 8, "server"));
        AddTestCase(new ClusterDescriptionServersTestCase(4, 8, 8, "server"));
        AddTestCase(new ClusterDescriptionServersTestCase(3, 6, 2, "server"));
        AddTestCase(new ClusterDescriptionServersTestCase(3, 5, 1, "rail"));
        AddTestCase(new ClusterDescriptionServersTestCase(3, 5, 1, "server"));
    }
};

/// The static instance that registers the suite.
static ClusterDescriptionTestSuite g_clusterDescriptionTestSuite;
