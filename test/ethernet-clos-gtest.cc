/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// GoogleTest: the standard Ethernet Clos baseline. Structure, routes, PFC headroom
// and load balancing of the switches EthernetClosHelper builds, and death tests for
// bad input to SharedBufferMmu, EthernetSwitch and EthernetClosHelper (each message
// names the attribute or parameter and the bad value); RingQueue, the FIFO of the
// switches' and NICs' priority queues.

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/ipv4-header.h"
#include "ns3/network-module.h"
#include "ns3/udp-header.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <gtest/gtest.h>
#include <map>
#include <vector>

using namespace ns3;

namespace
{

/// The cluster of the plain tests: 3 leaves x 2 hosts, 2 spines x 2 links.
ClusterDescription
SmallClos()
{
    ClusterDescription c;
    c.leaves = 3;
    c.hostsPerLeaf = 2;
    c.spines = 2;
    c.linksPerLeafSpine = 2;
    return c;
}

/// Build a Clos from a description (for the death tests).
void
BuildClos(const ClusterDescription& c)
{
    EthernetClosHelper clos;
    clos.Install(c);
    Simulator::Destroy();
}

/**
 * A UDP/IPv4 packet as a RoCEv2 sender puts it on the wire (without Ethernet).
 * \param sourcePort UDP source port (the entropy of the flow)
 * \param destination destination address
 * \param payload payload bytes
 * \return the packet
 */
Ptr<Packet>
MakeUdpPacket(uint16_t sourcePort, Ipv4Address destination, uint32_t payload = 100)
{
    Ptr<Packet> packet = Create<Packet>(payload);
    UdpHeader udp;
    udp.SetSourcePort(sourcePort);
    udp.SetDestinationPort(4791);
    packet->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(Ipv4Address("10.0.0.1"));
    ip.SetDestination(destination);
    ip.SetProtocol(17);
    ip.SetDscp(Ipv4Header::DSCP_AF31); // 26: priority 3
    ip.SetTtl(64);
    ip.SetPayloadSize(packet->GetSize());
    packet->AddHeader(ip);
    return packet;
}

/// Give a switch one port on a fresh node (400 Gb/s, 500 ns).
uint32_t
AddOnePort(Ptr<EthernetSwitch> sw)
{
    Ptr<Node> node = CreateObject<Node>();
    Ptr<RoceNetDevice> device = CreateObject<RoceNetDevice>();
    device->SetAddress(Mac48Address::Allocate());
    node->AddDevice(device);
    return sw->AddPort(device, NanoSeconds(500));
}

/// An MMU with two ports of 1000 B headroom and 100000 B of buffer.
Ptr<SharedBufferMmu>
TwoPortMmu()
{
    Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
    mmu->SetAttribute("BufferSize", UintegerValue(100000));
    mmu->AddPort(1000);
    mmu->AddPort(1000);
    return mmu;
}

} // namespace

// ---- Structure and routes of the Clos ----

TEST(EthernetClos, PortsPerLeafAndSpine)
{
    const ClusterDescription c = SmallClos();
    EthernetClosHelper clos;
    clos.Install(c);
    ASSERT_EQ(clos.GetLeaves().GetN(), 3u);
    ASSERT_EQ(clos.GetSpines().GetN(), 2u);
    ASSERT_EQ(clos.GetHosts().GetN(), 6u);
    for (uint32_t l = 0; l < c.leaves; ++l)
    {
        Ptr<EthernetSwitch> leaf = clos.GetLeaf(l);
        // hostsPerLeaf + spines x linksPerLeafSpine = 2 + 2 x 2 = 6
        EXPECT_EQ(leaf->GetNPorts(), 6u) << "leaf " << l;
        EXPECT_EQ(clos.GetLeaves().Get(l)->GetObject<EthernetSwitch>(), leaf)
            << "the switch is aggregated to its node";
        // Host ports first, in host order.
        for (uint32_t p = 0; p < c.hostsPerLeaf; ++p)
        {
            const uint32_t host = l * c.hostsPerLeaf + p;
            EXPECT_EQ(leaf->GetPort(p),
                      DynamicCast<RoceNetDevice>(clos.GetLeafHostDevices().Get(host)));
        }
    }
    for (uint32_t s = 0; s < c.spines; ++s)
    {
        // leaves x linksPerLeafSpine = 3 x 2 = 6
        EXPECT_EQ(clos.GetSpine(s)->GetNPorts(), 6u) << "spine " << s;
        EXPECT_EQ(clos.GetSpines().Get(s)->GetObject<EthernetSwitch>(), clos.GetSpine(s));
    }
    // Uplinks follow the host ports in (spine, link) order; each leaf uplink and the
    // spine port l x links + k are the two ends of channel (l, s, k).
    for (uint32_t l = 0; l < c.leaves; ++l)
    {
        for (uint32_t s = 0; s < c.spines; ++s)
        {
            for (uint32_t k = 0; k < c.linksPerLeafSpine; ++k)
            {
                const uint32_t up = clos.GetLeafUplinkPort(l, s, k);
                // hostsPerLeaf + s x linksPerLeafSpine + k
                EXPECT_EQ(up, 2 + s * 2 + k);
                Ptr<RoceChannel> channel = clos.GetFabricChannel(l, s, k);
                EXPECT_EQ(clos.GetLeaf(l)->GetPort(up)->GetChannel(), channel);
                EXPECT_EQ(clos.GetSpine(s)->GetPort(l * 2 + k)->GetChannel(), channel);
            }
        }
    }
    // 3 x 2 x 2 links, two devices each.
    EXPECT_EQ(clos.GetFabricDevices().GetN(), 24u);
    Simulator::Destroy();
}

TEST(EthernetClos, LeafAndSpineRoutes)
{
    const ClusterDescription c = SmallClos();
    EthernetClosHelper clos;
    clos.Install(c);
    const std::vector<uint32_t> uplinks{2, 3, 4, 5}; // all spines x links
    for (uint32_t l = 0; l < c.leaves; ++l)
    {
        for (uint32_t h = 0; h < c.GetHosts(); ++h)
        {
            const std::vector<uint32_t>& route = clos.GetLeaf(l)->GetRoute(h);
            if (c.GetLeafOfHost(h) == l)
            {
                // Own host: exactly its host port.
                EXPECT_EQ(route, std::vector<uint32_t>{h % c.hostsPerLeaf})
                    << "leaf " << l << " host " << h;
            }
            else
            {
                EXPECT_EQ(route, uplinks) << "leaf " << l << " host " << h;
            }
        }
    }
    for (uint32_t s = 0; s < c.spines; ++s)
    {
        for (uint32_t h = 0; h < c.GetHosts(); ++h)
        {
            // The links to the host's leaf L: ports L x links + 0 and L x links + 1.
            const uint32_t leaf = c.GetLeafOfHost(h);
            const std::vector<uint32_t> expected{leaf * 2, leaf * 2 + 1};
            EXPECT_EQ(clos.GetSpine(s)->GetRoute(h), expected) << "spine " << s << " host " << h;
        }
    }
    Simulator::Destroy();
}

TEST(EthernetClos, DefaultPfcHeadroomFromRateAndDelay)
{
    const ClusterDescription c = SmallClos();
    EthernetClosHelper clos;
    clos.Install(c);
    // Defaults: 400 Gb/s and 500 ns on every link, Mtu 4200.
    // wire = ceil(rate x delay / 8) = ceil(400e9 x 500e-9 / 8) = 25000
    // headroom = 2 x wire + 3 x (Mtu + 14 + 24) + 84
    //          = 2 x 25000 + 3 x (4200 + 14 + 24) + 84 = 50000 + 12714 + 84 = 62798
    const uint64_t wire = 400000000000ULL * 500 / 1000000000ULL / 8;
    ASSERT_EQ(wire, 25000u);
    const uint64_t expected = 2 * wire + 3 * (4200 + 14 + 24) + 84;
    ASSERT_EQ(expected, 62798u);
    ASSERT_EQ(clos.GetLeaf(0)->GetPort(0)->GetMtu(), 4200);
    // Every port of every switch has the same links, so the same headroom; the
    // formula is checked once, on leaf 0 port 0 (a host port).
    const uint64_t actual = clos.GetLeaf(0)->GetPfcHeadroom(0);
    EXPECT_EQ(actual, expected) << "2 x ceil(400e9 x 500e-9 / 8) + 3 x (4200 + 14 + 24) + 84";
    // The MMU reserves it for the one lossless priority of each of the 6 ports:
    // 32 MiB - 62798 x 1 x 6 = 33554432 - 376788 = 33177644
    EXPECT_EQ(clos.GetLeaf(0)->GetMmu()->GetSharedPoolBytes(), 33177644u);
    for (uint32_t l = 0; l < c.leaves; ++l)
    {
        for (uint32_t p = 0; p < clos.GetLeaf(l)->GetNPorts(); ++p)
        {
            EXPECT_EQ(clos.GetLeaf(l)->GetPfcHeadroom(p), actual) << "leaf " << l << " " << p;
        }
        // 32 MiB - headroom x 1 lossless priority x 6 ports
        EXPECT_EQ(clos.GetLeaf(l)->GetMmu()->GetSharedPoolBytes(), 33554432u - actual * 6)
            << "leaf " << l;
    }
    for (uint32_t s = 0; s < c.spines; ++s)
    {
        for (uint32_t p = 0; p < clos.GetSpine(s)->GetNPorts(); ++p)
        {
            EXPECT_EQ(clos.GetSpine(s)->GetPfcHeadroom(p), actual) << "spine " << s << " " << p;
        }
        EXPECT_EQ(clos.GetSpine(s)->GetMmu()->GetSharedPoolBytes(), 33554432u - actual * 6)
            << "spine " << s;
    }
    Simulator::Destroy();
}

// ---- Load balancing ----

TEST(EthernetClos, EcmpIsPerFlowAndSpreadsEvenly)
{
    const ClusterDescription c = SmallClos();
    EthernetClosHelper clos;
    clos.Install(c);
    Ptr<EthernetSwitch> leaf = clos.GetLeaf(0);
    const uint32_t host = 2; // on leaf 1: routed over the 4 uplinks of leaf 0
    const Ipv4Address destination = c.GetHostAddress(host);
    const std::vector<uint32_t>& route = leaf->GetRoute(host);
    ASSERT_EQ(route.size(), 4u);

    // One 5-tuple, one port: the same packet, and another packet of the flow with
    // another payload size.
    Ptr<Packet> packet = MakeUdpPacket(0xC000, destination);
    const uint32_t first = leaf->SelectPort(packet, host);
    for (int i = 0; i < 10; ++i)
    {
        EXPECT_EQ(leaf->SelectPort(packet, host), first);
        EXPECT_EQ(leaf->SelectPort(MakeUdpPacket(0xC000, destination, 1000 + i), host), first);
    }

    // 1024 flows (UDP source ports): each of 4 uplinks is a binomial(1024, 1/4),
    // mean 1024 / 4 = 256, sd = sqrt(1024 x 1/4 x 3/4) = sqrt(192) = 13.86.
    std::map<uint32_t, uint32_t> counts;
    for (uint32_t i = 0; i < 1024; ++i)
    {
        const uint32_t port = leaf->SelectPort(MakeUdpPacket(49152 + i, destination), host);
        ASSERT_NE(std::find(route.begin(), route.end(), port), route.end()) << "port " << port;
        ++counts[port];
    }
    const double sd = std::sqrt(1024.0 * 0.25 * 0.75);
    ASSERT_EQ(counts.size(), 4u) << "every uplink is used";
    for (uint32_t port : route)
    {
        EXPECT_LE(std::abs(static_cast<double>(counts[port]) - 256.0), 4 * sd)
            << "uplink " << port << " got " << counts[port];
    }
    // A single-port route always gives that port (own host 0 on leaf 0: port 0).
    EXPECT_EQ(leaf->SelectPort(MakeUdpPacket(0xC000, c.GetHostAddress(0)), 0), 0u);
    Simulator::Destroy();
}

TEST(EthernetClos, EcmpHashFollowsTheRunAndAssignStreams)
{
    // The 64 flows' uplinks under a run: with 4 uplinks, two independent hash salts
    // give the same 64 choices with probability 4^-64 only.
    const auto choices = [](uint32_t run, int64_t stream) {
        RngSeedManager::SetRun(run);
        const ClusterDescription c = SmallClos();
        EthernetClosHelper clos;
        clos.Install(c);
        if (stream >= 0)
        {
            clos.AssignStreams(stream);
        }
        std::vector<uint32_t> ports;
        for (uint32_t i = 0; i < 64; ++i)
        {
            ports.push_back(
                clos.GetLeaf(0)->SelectPort(MakeUdpPacket(49152 + i, c.GetHostAddress(2)), 2));
        }
        Simulator::Destroy();
        return ports;
    };
    // Without AssignStreams the streams are numbered as ns-3 creates them, so only a
    // fresh process repeats a run; with it, the stream and RngRun decide.
    EXPECT_EQ(choices(1, 7), choices(1, 7)) << "AssignStreams and the run fix them";
    EXPECT_NE(choices(1, 7), choices(2, 7)) << "RngRun changes the collisions";
    EXPECT_NE(choices(1, 7), choices(1, 9)) << "other streams, other salts";
    EXPECT_NE(choices(1, -1), choices(1, 7)) << "the salt is drawn, not fixed";
    RngSeedManager::SetRun(1);
}

TEST(EthernetClos, ResilientHashingMovesOnlyTheFailedUplinksFlows)
{
    // 1024 flows from leaf 0 to a host of leaf 1 over 4 uplinks; uplink to spine 1
    // fails and leaf 0 notices it (LinkDetectionDelay). With resilient hashing
    // (HashBucketsPerPort 64, the default) every flow that was not on that uplink
    // keeps its uplink and those that were move to the others; hashing over the
    // live ports instead (0) moves also flows of the uplinks that stayed up:
    // hash mod 4 and hash mod 3 agree for about a quarter of the hashes only.
    for (uint32_t buckets : {64u, 0u})
    {
        const ClusterDescription c = SmallClos();
        EthernetClosHelper clos;
        clos.SetSwitchAttribute("HashBucketsPerPort", UintegerValue(buckets));
        clos.Install(c);
        clos.AssignStreams(5);
        Ptr<EthernetSwitch> leaf = clos.GetLeaf(0);
        const uint32_t host = 2;
        const uint32_t failed = clos.GetLeafUplinkPort(0, 1, 0);
        std::vector<uint32_t> before;
        for (uint32_t i = 0; i < 1024; ++i)
        {
            before.push_back(
                leaf->SelectPort(MakeUdpPacket(49152 + i, c.GetHostAddress(host)), host));
        }
        clos.ScheduleLinkState(0, 1, 0, MicroSeconds(1), false);
        Simulator::Stop(MicroSeconds(1) + leaf->GetLinkDetectionDelay() + MicroSeconds(1));
        Simulator::Run();
        ASSERT_EQ(leaf->GetRoute(host).size(), 4u);
        uint32_t keptOthers = 0;
        uint32_t others = 0;
        uint32_t onFailed = 0;
        for (uint32_t i = 0; i < 1024; ++i)
        {
            const uint32_t now =
                leaf->SelectPort(MakeUdpPacket(49152 + i, c.GetHostAddress(host)), host);
            ASSERT_NE(now, failed) << "flow " << i << " still on the failed uplink";
            if (before[i] == failed)
            {
                ++onFailed;
            }
            else
            {
                ++others;
                keptOthers += now == before[i] ? 1 : 0;
            }
        }
        EXPECT_GT(onFailed, 0u);
        if (buckets > 0)
        {
            EXPECT_EQ(keptOthers, others) << "resilient: the other flows stay";
        }
        else
        {
            EXPECT_LT(keptOthers, others * 3 / 4) << "hashing over the live ports moves many";
        }
        Simulator::Destroy();
    }
}

TEST(EthernetClos, PacketSprayDealsRoundRobin)
{
    const ClusterDescription c = SmallClos();
    EthernetClosHelper clos;
    clos.SetSwitchAttribute("LoadBalancing", EnumValue(EthernetSwitch::PACKET_SPRAY));
    clos.Install(c);
    Ptr<EthernetSwitch> leaf = clos.GetLeaf(0);
    const uint32_t k = 100;
    // Leaf 0 towards hosts 2 and 4 (4 uplinks each), calls interleaved: each host
    // has its own cursor, so each sees 2, 3, 4, 5, 2, ... and 4k calls give k per port.
    std::map<uint32_t, uint32_t> counts2;
    std::map<uint32_t, uint32_t> counts4;
    for (uint32_t i = 0; i < 4 * k; ++i)
    {
        const uint32_t p2 = leaf->SelectPort(MakeUdpPacket(0xC000, c.GetHostAddress(2)), 2);
        const uint32_t p4 = leaf->SelectPort(MakeUdpPacket(0xC000, c.GetHostAddress(4)), 4);
        EXPECT_EQ(p2, 2 + i % 4) << "call " << i;
        EXPECT_EQ(p4, 2 + i % 4) << "call " << i;
        ++counts2[p2];
        ++counts4[p4];
    }
    for (uint32_t port = 2; port <= 5; ++port)
    {
        EXPECT_EQ(counts2[port], k) << "port " << port;
        EXPECT_EQ(counts4[port], k) << "port " << port;
    }
    // A spine towards host 0 (leaf 0): its 2 links, ports 0 and 1, alternate.
    std::map<uint32_t, uint32_t> spineCounts;
    for (uint32_t i = 0; i < 2 * k; ++i)
    {
        const uint32_t p = clos.GetSpine(1)->SelectPort(MakeUdpPacket(1, c.GetHostAddress(0)), 0);
        EXPECT_EQ(p, i % 2) << "call " << i;
        ++spineCounts[p];
    }
    EXPECT_EQ(spineCounts[0], k);
    EXPECT_EQ(spineCounts[1], k);
    Simulator::Destroy();
}

/**
 * A policy the module does not know, plugged in by its TypeId alone: every packet
 * goes to the last usable port of its route.
 */
class LastPortLoadBalancing : public LoadBalancingPolicy
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::LastPortLoadBalancing")
                                .SetParent<LoadBalancingPolicy>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<LastPortLoadBalancing>();
        return tid;
    }

    uint32_t Choose(const uint8_t* /* head */,
                    uint32_t /* host */,
                    const std::vector<uint32_t>& live) override
    {
        return live.back();
    }
};

TEST(EthernetClos, APolicyIsPluggedInByTypeId)
{
    const ClusterDescription c = SmallClos();
    EthernetClosHelper clos;
    clos.SetSwitchAttribute("LoadBalancingPolicy", TypeIdValue(LastPortLoadBalancing::GetTypeId()));
    clos.Install(c);
    Ptr<EthernetSwitch> leaf = clos.GetLeaf(0);
    EXPECT_EQ(leaf->GetLoadBalancingPolicy()->GetInstanceTypeId(),
              LastPortLoadBalancing::GetTypeId());
    for (uint32_t i = 0; i < 64; ++i)
    {
        EXPECT_EQ(leaf->SelectPort(MakeUdpPacket(49152 + i, c.GetHostAddress(2)), 2),
                  leaf->GetRoute(2).back());
    }
    // Single-port routes need no choice: host 0's own port.
    EXPECT_EQ(leaf->SelectPort(MakeUdpPacket(0xC000, c.GetHostAddress(0)), 0), 0u);
    Simulator::Destroy();
}

TEST(EthernetClos, TheAliasAndTheTypeIdChooseAlike)
{
    // The choices of 64 flows to hosts 2 and 4, twice each, and a spine's towards
    // host 0, under a fixed salt: the deprecated LoadBalancing value and the
    // LoadBalancingPolicy TypeId it names give the same policy and the same ports.
    const auto choices = [](const std::string& name, const AttributeValue& value) {
        const ClusterDescription c = SmallClos();
        EthernetClosHelper clos;
        clos.SetSwitchAttribute(name, value);
        clos.Install(c);
        clos.AssignStreams(3);
        std::vector<uint32_t> ports;
        for (uint32_t round = 0; round < 2; ++round)
        {
            for (uint32_t i = 0; i < 64; ++i)
            {
                for (uint32_t host : {2u, 4u})
                {
                    ports.push_back(clos.GetLeaf(0)->SelectPort(
                        MakeUdpPacket(49152 + i, c.GetHostAddress(host)),
                        host));
                }
                ports.push_back(
                    clos.GetSpine(1)->SelectPort(MakeUdpPacket(49152 + i, c.GetHostAddress(0)), 0));
            }
        }
        const std::string policy =
            clos.GetLeaf(0)->GetLoadBalancingPolicy()->GetInstanceTypeId().GetName();
        Simulator::Destroy();
        return std::make_pair(policy, ports);
    };
    const std::vector<std::pair<EthernetSwitch::LoadBalancing, std::string>> aliases{
        {EthernetSwitch::ECMP, "Ecmp"},
        {EthernetSwitch::PACKET_SPRAY, "PacketSpray"},
        {EthernetSwitch::ADAPTIVE, "Adaptive"},
        {EthernetSwitch::CONGESTION_AWARE, "CongestionAware"}};
    for (const auto& [value, alias] : aliases)
    {
        const std::string name = "ns3::" + alias + "LoadBalancing";
        const auto byEnum = choices("LoadBalancing", EnumValue(value));
        const auto byString = choices("LoadBalancing", StringValue(alias));
        const auto byTypeId =
            choices("LoadBalancingPolicy", TypeIdValue(TypeId::LookupByName(name)));
        EXPECT_EQ(byEnum.first, name) << alias;
        EXPECT_EQ(byTypeId.first, name) << alias;
        EXPECT_EQ(byEnum, byString) << alias;
        EXPECT_EQ(byEnum, byTypeId) << alias;
    }
    // By default: ECMP.
    EXPECT_EQ(choices("EcnEnabled", BooleanValue(true)).first, "ns3::EcmpLoadBalancing");
}

TEST(EthernetClos, TheSwitchAliasesSetThePolicysAttributes)
{
    const auto attribute = [](const std::string& lb,
                              const std::string& alias,
                              const AttributeValue& value,
                              const std::string& name,
                              AttributeValue& read) {
        const ClusterDescription c = SmallClos();
        EthernetClosHelper clos;
        clos.SetSwitchAttribute("LoadBalancing", StringValue(lb));
        if (!alias.empty())
        {
            clos.SetSwitchAttribute(alias, value);
        }
        clos.Install(c);
        const bool has =
            clos.GetSpine(1)->GetLoadBalancingPolicy()->GetAttributeFailSafe(name, read);
        Simulator::Destroy();
        return has;
    };
    TimeValue gap;
    EXPECT_TRUE(
        attribute("Adaptive", "FlowletGap", TimeValue(MicroSeconds(20)), "FlowletGap", gap));
    EXPECT_EQ(gap.Get(), MicroSeconds(20));
    EXPECT_TRUE(attribute("CongestionAware", "", TimeValue(), "FlowletGap", gap));
    EXPECT_EQ(gap.Get(), Time(0)) << "the policy's own default";
    UintegerValue size;
    EXPECT_TRUE(attribute("CongestionAware",
                          "FlowletTableSize",
                          UintegerValue(64),
                          "FlowletTableSize",
                          size));
    EXPECT_EQ(size.Get(), 64u);
    UintegerValue buckets;
    EXPECT_TRUE(
        attribute("Ecmp", "HashBucketsPerPort", UintegerValue(0), "HashBucketsPerPort", buckets));
    EXPECT_EQ(buckets.Get(), 0u);
    EXPECT_TRUE(attribute("Ecmp", "", UintegerValue(), "HashBucketsPerPort", buckets));
    EXPECT_EQ(buckets.Get(), 64u) << "the policy's own default";
    // An alias the policy does not have is ignored.
    EXPECT_FALSE(
        attribute("PacketSpray", "FlowletGap", TimeValue(MicroSeconds(20)), "FlowletGap", gap));
}

// ---- Bad input: each stops with a message naming the parameter and the value ----

TEST(SharedBufferMmuDeathTest, AlphasMustBePositive)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
            mmu->SetAttribute("PfcAlpha", DoubleValue(0));
            mmu->AddPort(1000);
        },
        "PfcAlpha must be greater than 0, got 0");
    EXPECT_DEATH(
        {
            Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
            mmu->SetAttribute("EgressAlpha", DoubleValue(0));
            mmu->AddPort(1000);
        },
        "EgressAlpha must be greater than 0, got 0");
}

TEST(SharedBufferMmuDeathTest, BufferSizeBelowReservedHeadroom)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    // 1 lossless priority x 2000 B > 1000 B of buffer.
    EXPECT_DEATH(
        {
            Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
            mmu->SetAttribute("BufferSize", UintegerValue(1000));
            mmu->AddPort(2000);
        },
        "BufferSize 1000 B leaves no shared pool: 2000 B of PFC headroom are reserved for 1 "
        "ports");
    // Equal: no byte of shared pool left is refused too.
    EXPECT_DEATH(
        {
            Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
            mmu->SetAttribute("BufferSize", UintegerValue(2000));
            mmu->AddPort(2000);
        },
        "BufferSize 2000 B leaves no shared pool: 2000 B .* reserved for 1 ports");
    // The third port of 4000 B (two lossless priorities) overflows 20000 B:
    // 3 x 2 x 4000 = 24000 >= 20000.
    EXPECT_DEATH(
        {
            Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
            mmu->SetAttribute("BufferSize", UintegerValue(20000));
            mmu->SetAttribute("LosslessPriorities", UintegerValue(0x18));
            mmu->AddPort(4000);
            mmu->AddPort(4000);
            mmu->AddPort(4000);
        },
        "BufferSize 20000 B leaves no shared pool: 24000 B .* reserved for 3 ports");
}

TEST(SharedBufferMmuDeathTest, ReleaseOfBytesNeverAdmitted)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(TwoPortMmu()->Release(0, 1, 0, 1000), "releasing 1000 B that were never admitted");
    EXPECT_DEATH(
        {
            Ptr<SharedBufferMmu> mmu = TwoPortMmu();
            mmu->Admit(0, 1, 0, 1000);
            mmu->Release(0, 1, 0, 1001);
        },
        "releasing 1001 B that were never admitted");
    // Admitted towards port 1, released as if towards port 0.
    EXPECT_DEATH(
        {
            Ptr<SharedBufferMmu> mmu = TwoPortMmu();
            mmu->Admit(0, 1, 0, 1000);
            mmu->Release(0, 0, 0, 1000);
        },
        "releasing 1000 B that were never admitted");
}

TEST(SharedBufferMmuDeathTest, PortOrPriorityOutOfRange)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(TwoPortMmu()->Admit(2, 0, 0, 100),
                 "SharedBufferMmu::Admit: port 2 does not exist \\(2 ports\\)");
    EXPECT_DEATH(TwoPortMmu()->Admit(0, 7, 0, 100),
                 "SharedBufferMmu::Admit: port 7 does not exist \\(2 ports\\)");
    EXPECT_DEATH(TwoPortMmu()->Admit(0, 1, 8, 100),
                 "SharedBufferMmu::Admit: priority 8 is not in 0\\.\\.7");
    EXPECT_DEATH(TwoPortMmu()->Release(3, 0, 0, 100),
                 "SharedBufferMmu::Release: port 3 does not exist \\(2 ports\\)");
    EXPECT_DEATH(TwoPortMmu()->Release(0, 1, 9, 100),
                 "SharedBufferMmu::Release: priority 9 is not in 0\\.\\.7");
    EXPECT_DEATH(TwoPortMmu()->IsOverPauseThreshold(2, 3),
                 "SharedBufferMmu::IsOverPauseThreshold: port 2 does not exist");
    EXPECT_DEATH(TwoPortMmu()->IsBelowResumeThreshold(0, 8),
                 "SharedBufferMmu::IsBelowResumeThreshold: priority 8 is not in 0\\.\\.7");
    EXPECT_DEATH(TwoPortMmu()->GetEgressBytes(5, 0),
                 "SharedBufferMmu::GetEgressBytes: port 5 does not exist \\(2 ports\\)");
    EXPECT_DEATH(CreateObject<SharedBufferMmu>()->Admit(0, 0, 0, 100),
                 "SharedBufferMmu::Admit: port 0 does not exist \\(0 ports\\)");
}

TEST(SharedBufferMmuDeathTest, PortsAfterTheFirstPacket)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            Ptr<SharedBufferMmu> mmu = TwoPortMmu();
            mmu->Admit(0, 1, 0, 1000);
            mmu->AddPort(1000);
        },
        "ports must be added before the first packet");
}

TEST(EthernetSwitchDeathTest, EcnParameters)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            Ptr<EthernetSwitch> sw = CreateObject<EthernetSwitch>();
            sw->SetAttribute("EcnKmin", UintegerValue(200000));
            sw->SetAttribute("EcnKmax", UintegerValue(100000));
            AddOnePort(sw);
        },
        "EcnKmax \\(100000\\) must not be below EcnKmin \\(200000\\)");
    EXPECT_DEATH(
        {
            Ptr<EthernetSwitch> sw = CreateObject<EthernetSwitch>();
            sw->SetAttribute("EcnPmax", DoubleValue(1.5));
            AddOnePort(sw);
        },
        "EcnPmax must be in \\[0, 1\\], got 1\\.5");
    // A pause repeated at half its time must fit a largest frame and a PFC frame:
    // 2 x (4200 + 14 + 24 + 84) = 8644 byte times = 135.06 quanta of 64 bytes.
    EXPECT_DEATH(
        {
            Ptr<EthernetSwitch> sw = CreateObject<EthernetSwitch>();
            sw->SetAttribute("PfcPauseQuanta", UintegerValue(135));
            AddOnePort(sw);
        },
        "PfcPauseQuanta 135 is too short for port 0 \\(Mtu 4200\\): a pause must last at "
        "least 8644 byte times");
}

TEST(EthernetSwitchDeathTest, WatchdogTimesOfZero)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    for (const std::string attribute : {"PfcWatchdogDetectionTime", "PfcWatchdogRestorationTime"})
    {
        EXPECT_DEATH(
            {
                Ptr<EthernetSwitch> sw = CreateObject<EthernetSwitch>();
                sw->SetAttribute(attribute, TimeValue(Time(0)));
                AddOnePort(sw);
            },
            "EthernetSwitch: " + attribute + " \\+0ms must be > 0");
        // A NIC's own watchdog refuses it when the device is attached.
        EXPECT_DEATH(
            {
                Ptr<RoceNetDevice> device = CreateObject<RoceNetDevice>();
                device->SetAttribute("PfcWatchdog", BooleanValue(true));
                device->SetAttribute(attribute, TimeValue(MilliSeconds(-1)));
                device->Attach(CreateObject<RoceChannel>());
            },
            "RoceNetDevice: " + attribute + " -1ms must be > 0");
    }
}

TEST(EthernetSwitchDeathTest, RoutesAndAddressing)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    // A port that does not exist: 1 port (index 0), the route names port 3.
    EXPECT_DEATH(
        {
            Ptr<EthernetSwitch> sw = CreateObject<EthernetSwitch>();
            sw->SetHostAddressing(Ipv4Address("10.0.0.0"), 4);
            AddOnePort(sw);
            sw->SetRoute(1, {0, 3});
        },
        "route for host 1 names port 3 of 1");
    // Before SetHostAddressing there is no host.
    EXPECT_DEATH(
        {
            Ptr<EthernetSwitch> sw = CreateObject<EthernetSwitch>();
            AddOnePort(sw);
            sw->SetRoute(0, {0});
        },
        "route for host 0 of 0 \\(call SetHostAddressing first\\)");
    EXPECT_DEATH(CreateObject<EthernetSwitch>()->SetHostAddressing(Ipv4Address("10.0.0.0"), 0),
                 "hosts must be at least 1, got 0");
    // A LoadBalancingPolicy that is not a load-balancing policy.
    EXPECT_DEATH(
        {
            Ptr<EthernetSwitch> sw = CreateObject<EthernetSwitch>();
            sw->SetAttribute("LoadBalancingPolicy", TypeIdValue(SharedBufferMmu::GetTypeId()));
            sw->SetHostAddressing(Ipv4Address("10.0.0.0"), 4);
            AddOnePort(sw);
        },
        "LoadBalancingPolicy ns3::SharedBufferMmu is not a LoadBalancingPolicy");
}

TEST(EthernetClosDeathTest, ZeroSpinesOrLeavesAndInstallTwice)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    ClusterDescription noSpines = SmallClos();
    noSpines.spines = 0;
    EXPECT_DEATH(BuildClos(noSpines), "EthernetClosHelper: spines must be at least 1, got 0");
    ClusterDescription noLeaves = SmallClos();
    noLeaves.leaves = 0;
    EXPECT_DEATH(BuildClos(noLeaves), "EthernetClosHelper: leaves must be at least 1, got 0");
    EXPECT_DEATH(
        {
            EthernetClosHelper clos;
            clos.Install(SmallClos());
            clos.Install(SmallClos());
        },
        "EthernetClosHelper: Install called twice");
}

// A split over MPI processes is refused by name unless it can run: no partitions,
// or more than one in a run that is not distributed over as many processes (here
// either ns-3 has no MPI, or MPI is not enabled: both messages start the same).
TEST(EthernetClosDeathTest, PartitionsThatCannotRun)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    auto build = [](uint32_t partitions) {
        EthernetClosHelper clos;
        clos.SetPartitions(partitions);
        clos.Install(SmallClos());
    };
    EXPECT_DEATH(build(0), "EthernetClosHelper: Partitions must be at least 1, got 0");
    EXPECT_DEATH(build(2), "EthernetClosHelper: Partitions 2 needs ");
    EXPECT_DEATH(
        {
            ScheduledFabricHelper fabric;
            fabric.SetPartitions(2);
            fabric.Install(SmallClos());
        },
        "ScheduledFabricHelper: Partitions 2 ");
}

// One process: every host is local, and a sequential split (1 partition) builds
// the same cluster as no split at all.
TEST(EthernetClos, OnePartitionRunsEveryHostHere)
{
    EthernetClosHelper clos;
    clos.SetPartitions(1);
    clos.Install(SmallClos());
    EXPECT_EQ(clos.GetPartitions(), 1u);
    for (uint32_t h = 0; h < SmallClos().GetHosts(); ++h)
    {
        EXPECT_TRUE(clos.IsLocalHost(h));
        EXPECT_EQ(clos.GetHosts().Get(h)->GetSystemId(), 0u);
    }
    Simulator::Destroy();
}

// RingQueue, the FIFO of every priority queue of a NIC and a switch port: first in,
// first out across its growth (capacity 0, then 8, 16, 32) and across the wrap of
// its ring (elements popped from the front while the back refills the freed slots).
TEST(RingQueueTest, FifoAcrossGrowthAndWrap)
{
    RingQueue<int> queue;
    EXPECT_TRUE(queue.empty());
    int next = 0;  // the next value pushed
    int front = 0; // the value expected at the front
    // Push 5, pop 3, repeated: the ring wraps and grows while holding 2 more each time.
    for (int round = 0; round < 12; ++round)
    {
        for (int i = 0; i < 5; ++i)
        {
            queue.push_back(next++);
        }
        for (int i = 0; i < 3; ++i)
        {
            ASSERT_EQ(queue.front(), front++);
            queue.pop_front();
        }
        EXPECT_EQ(queue.size(), static_cast<std::size_t>(2 * (round + 1)));
    }
    while (!queue.empty())
    {
        ASSERT_EQ(queue.front(), front++);
        queue.pop_front();
    }
    EXPECT_EQ(front, 60); // 12 rounds x 5 pushed, every one popped in order
    queue.push_back(7);
    queue.clear();
    EXPECT_TRUE(queue.empty());
}
