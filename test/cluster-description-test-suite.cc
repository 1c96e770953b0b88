/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ns3/cluster-description.h"
#include "ns3/test.h"

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
 * \brief Test suite for the shared cluster description.
 */
class ClusterDescriptionTestSuite : public TestSuite
{
  public:
    ClusterDescriptionTestSuite()
        : TestSuite("ai-fabric-cluster-description", TestSuite::Type::UNIT)
    {
        AddTestCase(new ClusterDescriptionNumberingTestCase, TestCase::QUICK);
    }
};

/// The static instance that registers the suite.
static ClusterDescriptionTestSuite g_clusterDescriptionTestSuite;
