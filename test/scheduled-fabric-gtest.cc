/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// GoogleTest: pure logic of the scheduled fabric, and death tests for every
// impossible configuration issue 3 lists (each message names the attribute and
// the value).

#include "ns3/cell-reassembler.h"
#include "ns3/cell-segmenter.h"
#include "ns3/double.h"
#include "ns3/ipv4-header.h"
#include "ns3/node.h"
#include "ns3/roce-net-device.h"
#include "ns3/scheduled-fabric-helper.h"
#include "ns3/simple-net-device.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/udp-line-rate-source.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

ClusterDescription
Small()
{
    ClusterDescription c;
    c.leaves = 2;
    c.hostsPerLeaf = 1;
    c.spines = 2;
    c.hostLinkRate = DataRate("100Gbps");
    c.fabricLinkRate = DataRate("100Gbps");
    return c;
}

void
Build(const ClusterDescription& c,
      const std::string& leafAttr = "",
      const std::string& leafValue = "",
      const std::string& schedAttr = "",
      const std::string& schedValue = "")
{
    ScheduledFabricHelper h;
    if (!leafAttr.empty())
    {
        h.SetLeafAttribute(leafAttr, StringValue(leafValue));
    }
    if (!schedAttr.empty())
    {
        h.SetSchedulerAttribute(schedAttr, StringValue(schedValue));
    }
    h.Install(c);
    Simulator::Destroy();
}

} // namespace

TEST(CellSegmenter, CountsAndWireBytes)
{
    CellSegmenter seg(256, 16, true);
    EXPECT_EQ(seg.GetCellCount(0), 1u);
    EXPECT_EQ(seg.GetCellCount(512), 2u);
    EXPECT_EQ(seg.GetCellCount(513), 3u);
    EXPECT_EQ(seg.GetCellPayload(513, 2), 1u);
    EXPECT_EQ(seg.GetCellWireBytes(513, 2), 17u);
    EXPECT_EQ(seg.GetWireBytes(4096), 4096u + 16u * 16u);
    CellSegmenter fixed(256, 16, false);
    EXPECT_EQ(fixed.GetCellWireBytes(513, 2), 272u);
    EXPECT_DOUBLE_EQ(fixed.GetEfficiency(512), 512.0 / 544.0);
}

TEST(CellSegmenter, SlicesTileThePacket)
{
    for (uint32_t payload : {1u, 7u, 256u})
    {
        CellSegmenter seg(payload, 8, true);
        for (uint32_t size = 1; size <= 2000; ++size)
        {
            uint32_t next = 0;
            for (uint32_t i = 0; i < seg.GetCellCount(size); ++i)
            {
                ASSERT_EQ(seg.GetCellOffset(size, i), next);
                ASSERT_GE(seg.GetCellPayload(size, i), 1u);
                next += seg.GetCellPayload(size, i);
            }
            ASSERT_EQ(next, size);
        }
    }
}

TEST(CellReassembler, InOrderAcrossSources)
{
    CellReassembler r(2, 8);
    std::vector<CellReassembler::Output> out;
    Ptr<Packet> p0 = Create<Packet>(10);
    Ptr<Packet> p1 = Create<Packet>(10);
    FabricCell c;
    c.cellCount = 1;
    c.payload = 10;
    c.packet = p1;
    c.packetId = 1;
    r.AddCell(0, c, 0, out);
    EXPECT_TRUE(out.empty()); // packet 0 of source 0 not there yet
    c.packet = p0;
    c.packetId = 0;
    r.AddCell(1, c, 0, out); // source 1's packet 0 is independent
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].source, 1u);
    r.AddCell(0, c, 0, out);
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[1].packet, p0);
    EXPECT_EQ(out[2].packet, p1);
    EXPECT_EQ(r.GetPacketsHeld(), 0u);
}

// A path-loss notice through packet 3 of source 0, whose packets 0..4 were sent
// as two cells each: packet 0 complete, packet 1 has one cell of two (its other
// went down with the path), nothing of packets 2 and 3 came, packet 4 is complete.
// Expected: 0 released at once; on the notice 1, 2, 3 given up (1 with the 10 B of
// its one cell, 2 and 3 with nothing) and 4 released, with no timeout run.
TEST(CellReassembler, PathLossNoticeGivesUpWhatItCovers)
{
    CellReassembler r(1, 16);
    std::vector<CellReassembler::Output> out;
    std::vector<CellReassembler::Output> dropped;
    std::vector<Ptr<Packet>> packets;
    FabricCell c;
    c.cellCount = 2;
    c.payload = 10;
    auto add = [&](uint32_t id, uint16_t index) {
        c.packetId = id;
        c.cellIndex = index;
        c.packet = packets[id];
        r.AddCell(0, c, 5, out);
    };
    for (uint32_t id = 0; id < 5; ++id)
    {
        packets.push_back(Create<Packet>(20));
    }
    add(0, 0);
    add(0, 1);
    add(1, 0);
    add(4, 0);
    add(4, 1);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].packetId, 0u);
    r.GiveUpThrough(0, 3, 7, out, dropped);
    ASSERT_EQ(dropped.size(), 3u);
    EXPECT_EQ(dropped[0].packetId, 1u);
    EXPECT_EQ(dropped[0].bytes, 10u);
    EXPECT_EQ(dropped[1].packetId, 2u);
    EXPECT_EQ(dropped[1].packet, nullptr);
    EXPECT_EQ(dropped[2].packetId, 3u);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[1].packetId, 4u);
    EXPECT_EQ(r.GetPacketsGivenUp(), 3u);
    EXPECT_EQ(r.GetPacketsTimedOut(), 0u);
    EXPECT_EQ(r.GetPacketsHeld(), 0u);
    EXPECT_EQ(r.GetNextPacketId(0), 5u);
    // A notice that covers nothing new (through packet 3 again) changes nothing,
    // and a late cell of a given-up packet is counted as late.
    r.GiveUpThrough(0, 3, 8, out, dropped);
    EXPECT_EQ(dropped.size(), 3u);
    add(1, 1);
    EXPECT_EQ(r.GetCellsLate(), 1u);
}

// The notice names packets of which no cell has arrived at all (the source's
// last packets went down with the path): the head moves past them, and the next
// packet is released when it comes.
TEST(CellReassembler, PathLossNoticeCoversPacketsNeverSeen)
{
    CellReassembler r(1, 16);
    std::vector<CellReassembler::Output> out;
    std::vector<CellReassembler::Output> dropped;
    r.GiveUpThrough(0, 1, 0, out, dropped); // packets 0 and 1: nothing of them came
    ASSERT_EQ(dropped.size(), 2u);
    EXPECT_TRUE(out.empty());
    FabricCell c;
    c.cellCount = 1;
    c.payload = 10;
    c.packetId = 2;
    c.packet = Create<Packet>(10);
    r.AddCell(0, c, 1, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].packetId, 2u);
}

// ---- Bad input: each stops with a message naming the attribute and the value ----

TEST(ScheduledFabricDeathTest, ZeroSpines)
{
    ClusterDescription c = Small();
    c.spines = 0;
    EXPECT_DEATH(Build(c), "spines must be at least 1, got 0");
}

TEST(ScheduledFabricDeathTest, ZeroLeaves)
{
    ClusterDescription c = Small();
    c.leaves = 0;
    EXPECT_DEATH(Build(c), "leaves must be at least 1, got 0");
}

TEST(ScheduledFabricDeathTest, CellPayloadBelowOne)
{
    EXPECT_DEATH(Build(Small(), "CellPayload", "0"), "CellPayload.*0");
    EXPECT_DEATH(CellSegmenter(0, 16, true), "CellPayload.*0");
}

TEST(ScheduledFabricDeathTest, CellHeaderNotBelowCellSize)
{
    EXPECT_DEATH(Build(Small(), "CellSize", "16"),
                 "CellHeader=16 must be smaller than CellSize=16");
    EXPECT_DEATH(CellSegmenter::FromCellSize(64, 80, true),
                 "CellHeader=80 must be smaller than CellSize=64");
    // CellSize 32 - the default CellHeader 16 leaves a payload of 16, no larger
    // than the header.
    EXPECT_DEATH(Build(Small(), "CellSize", "32"),
                 "CellHeader=16 must be smaller than CellPayload=16");
}

TEST(ScheduledFabricDeathTest, CellHeaderNotBelowCellPayload)
{
    EXPECT_DEATH(Build(Small(), "CellHeader", "256"),
                 "CellHeader=256 must be smaller than CellPayload=256");
}

TEST(ScheduledFabricDeathTest, CreditSmallerThanOneCell)
{
    EXPECT_DEATH(Build(Small(), "", "", "CreditSize", "100"),
                 "CreditSize=100 is smaller than one cell \\(CellPayload=256\\)");
}

TEST(ScheduledFabricDeathTest, OverGrantBelowOne)
{
    EXPECT_DEATH(Build(Small(), "", "", "OverGrant", "0.9"), "OverGrant=0.9 must be at least 1");
}

TEST(ScheduledFabricDeathTest, SourceQuantumBelowCreditSize)
{
    EXPECT_DEATH(Build(Small(), "", "", "SourceQuantum", "512"),
                 "SourceQuantum=512 is smaller than CreditSize=1024");
}

TEST(ScheduledFabricDeathTest, TurnBatchOutsideOneQuantum)
{
    // SourceQuantum 4096 B is four 1024 B credits: a turn grants 1 to 4 of them.
    EXPECT_DEATH(Build(Small(), "", "", "TurnBatch", "0"),
                 "TurnBatch=0 must be in 1..4 \\(a turn grants at most the credits of one "
                 "SourceQuantum=4096 turn at CreditSize=1024\\)");
    EXPECT_DEATH(Build(Small(), "", "", "TurnBatch", "5"), "TurnBatch=5 must be in 1..4");
}

TEST(ScheduledFabricDeathTest, MoreHostsPerLeafThanHostPorts)
{
    ClusterDescription c = Small();
    c.hostsPerLeaf = 20;
    c.hostPortsPerLeaf = 18;
    EXPECT_DEATH(Build(c), "hostsPerLeaf=20 exceeds hostPortsPerLeaf=18");
}

TEST(ScheduledFabricDeathTest, DestinationWithNoRoute)
{
    auto run = []() {
        ScheduledFabricHelper h;
        h.Install(Small());
        auto src = CreateObject<UdpLineRateSource>();
        src->SetAttribute("MaxBytes", UintegerValue(1462));
        src->Setup(h.GetHostDevice(0), Ipv4Address("11.0.0.1"));
        src->Start(NanoSeconds(1));
        Simulator::Run();
        Simulator::Destroy();
    };
    EXPECT_DEATH(run(), "destination 11.0.0.1 has no route");
}

TEST(ScheduledFabricDeathTest, BadClassWeights)
{
    EXPECT_DEATH(Build(Small(), "", "", "ClassWeights", "1,0"),
                 "ClassWeights=\"1,0\": weight of class 1 must be a positive integer");
}

TEST(ScheduledFabricDeathTest, ZeroReorderWindow)
{
    EXPECT_DEATH(CellReassembler(1, 0), "ReorderWindow=0");
}

TEST(UdpLineRateSource, DisposedBeforeStartSendsNothing)
{
    // Start and Stop events are cancelled by Dispose: the source would otherwise
    // start on a NIC it no longer holds.
    ScheduledFabricHelper h;
    h.Install(Small());
    auto src = CreateObject<UdpLineRateSource>();
    src->Setup(DynamicCast<RoceNetDevice>(h.GetHostDevices().Get(0)),
               h.GetCluster().GetHostAddress(1));
    src->Start(MicroSeconds(1));
    src->Stop(MicroSeconds(5));
    src->Dispose();
    Simulator::Stop(MicroSeconds(10));
    Simulator::Run();
    EXPECT_EQ(src->GetPacketsSent(), 0u);
    Simulator::Destroy();
}

TEST(ScheduledFabricDeathTest, SpineQueueBelowLosslessBound)
{
    auto build = []() {
        ScheduledFabricHelper h;
        h.SetSpineAttribute("MaxQueueBytes", UintegerValue(40000));
        h.Install(Small());
    };
    EXPECT_DEATH(build(), "MaxQueueBytes=40000 is below the lossless bound");
}

TEST(ScheduledFabricDeathTest, SpineXonNotBelowXoff)
{
    auto build = []() {
        ScheduledFabricHelper h;
        h.SetSpineAttribute("FlowControlXon", UintegerValue(262144));
        h.Install(Small());
    };
    EXPECT_DEATH(build(), "FlowControlXon=262144 must be below FlowControlXoff=262144");
}

TEST(ScheduledFabricDeathTest, FabricPortQueueBelowTwoCells)
{
    auto build = []() {
        ScheduledFabricHelper h;
        h.SetLeafAttribute("FabricPortQueueLimit", UintegerValue(500));
        h.Install(Small());
    };
    EXPECT_DEATH(build(),
                 "FabricPortQueueLimit=500 must hold at least two full cells and 4 control cells");
}

TEST(ScheduledFabricDeathTest, CreditGatedWithoutCreditSource)
{
    auto install = []() {
        Ptr<Node> node = CreateObject<Node>();
        Ptr<SimpleNetDevice> dev = CreateObject<SimpleNetDevice>();
        node->AddDevice(dev);
        node->AggregateObject(CreateObject<TrafficControlLayer>());
        TrafficControlHelper tch;
        tch.SetRootQueueDisc("ns3::VoqQueueDisc");
        tch.Install(dev).Get(0)->Initialize();
    };
    EXPECT_DEATH(install(), "CreditGated=true needs a credit source");
}

TEST(ScheduledFabricDeathTest, AbsurdReorderWindow)
{
    EXPECT_DEATH(CellReassembler(1, (1u << 20) + 1), "ReorderWindow=1048577");
}

TEST(ScheduledFabricDeathTest, PfcHysteresisNotBelowXoff)
{
    auto build = []() {
        ScheduledFabricHelper h;
        h.SetVoqAttribute("PfcXoff", UintegerValue(50000));
        h.Install(Small());
    };
    EXPECT_DEATH(build(), "PfcHysteresis=65536 must be below PfcXoff=50000");
}
