/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-cell-messages: what a leaf-spine link of the scheduled fabric carries
// when its ends are in different processes of a distributed run. Its cells,
// several to a message, and every spine's flow-control indication then go as
// serialised messages (CellMessageHeader) that the receiving end rebuilds. Here
// a channel that claims to cross processes hands each message, serialised to
// bytes and rebuilt as MPI does, back to this process at its arrival time, so the
// whole message path runs without MPI: first the header and one link under a
// failure, then indications, messages' sizes, and the validation scenarios,
// which must agree with direct links.

#include "scheduled-scenarios.h"

#include "ns3/cell-channel.h"
#include "ns3/cell-message-header.h"
#include "ns3/cell-net-device.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/scheduled-fabric-helper.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/**
 * \ingroup ai-fabric-tests
 * A cell link whose ends stand for two processes: what one end sends goes as a
 * message, serialised and rebuilt as MpiInterface does, to the other end at its
 * arrival time.
 */
class CellLoopbackChannel : public CellChannel
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::CellLoopbackChannel")
                                .SetParent<CellChannel>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<CellLoopbackChannel>();
        return tid;
    }

    /// \return true: what crosses goes as messages
    bool CrossesProcesses() const override
    {
        return true;
    }

    /**
     * \param message the message \param dst the receiving end
     * \param arrival its absolute arrival time
     */
    void SendToProcess(Ptr<Packet> message, Ptr<CellNetDevice> dst, Time arrival) override
    {
        NS_ABORT_MSG_IF(arrival < Simulator::Now(), "a message into the past");
        NS_ABORT_MSG_IF(message->GetSerializedSize() > CellNetDevice::MAX_MESSAGE_BYTES,
                        "a message of " << message->GetSerializedSize()
                                        << " B would overflow ns-3's MPI receive buffer");
        std::vector<uint8_t> bytes(message->GetSerializedSize());
        NS_ABORT_MSG_IF(!message->Serialize(bytes.data(), bytes.size()), "serialising");
        Ptr<Packet> rebuilt = Create<Packet>(bytes.data(), bytes.size(), true);
        m_messages++;
        CellMessageHeader header;
        message->PeekHeader(header);
        if (header.GetKind() == CellMessageHeader::INDICATION)
        {
            s_indications++;
        }
        else
        {
            s_cellMessages++;
            s_largest = std::max(s_largest, message->GetSerializedSize());
        }
        Simulator::ScheduleWithContext(dst->GetNode()->GetId(),
                                       arrival - Simulator::Now(),
                                       &CellNetDevice::ReceiveFromProcess,
                                       dst,
                                       rebuilt);
    }

    /// \return messages sent over this link
    uint64_t GetMessages() const
    {
        return m_messages;
    }

    /// \return indication messages sent over every such link since the last reset
    static uint64_t GetIndications()
    {
        return s_indications;
    }

    /// \return cell messages sent over every such link since the last reset
    static uint64_t GetCellMessages()
    {
        return s_cellMessages;
    }

    /// \return the largest cell message serialised since the last reset, bytes
    static uint32_t GetLargest()
    {
        return s_largest;
    }

    /// Restart the counts of messages.
    static void ResetCounts()
    {
        s_indications = 0;
        s_cellMessages = 0;
        s_largest = 0;
    }

  private:
    uint64_t m_messages{0};         //!< messages sent
    static uint64_t s_indications;  //!< indication messages sent over every such link
    static uint64_t s_cellMessages; //!< cell messages sent over every such link
    static uint32_t s_largest;      //!< the largest cell message, serialised bytes
};

uint64_t CellLoopbackChannel::s_indications = 0;
uint64_t CellLoopbackChannel::s_cellMessages = 0;
uint32_t CellLoopbackChannel::s_largest = 0;

NS_OBJECT_ENSURE_REGISTERED(CellLoopbackChannel);

/**
 * \ingroup ai-fabric-tests
 * Every field of a cell and of an indication survives serialisation; a data
 * cell's packet goes with the packet's first cell only, and the header's size is
 * the one it declares.
 */
class MessageHeaderTestCase : public TestCase
{
  public:
    MessageHeaderTestCase()
        : TestCase("cell and indication messages: every field survives serialisation")
    {
    }

  private:
    /// \param message a message \return it serialised to bytes and rebuilt, as MPI does
    static Ptr<Packet> Rebuild(Ptr<Packet> message)
    {
        std::vector<uint8_t> bytes(message->GetSerializedSize());
        message->Serialize(bytes.data(), bytes.size());
        return Create<Packet>(bytes.data(), bytes.size(), true);
    }

    /// Round-trip a data cell (first and later), a grant and an indication.
    void DoRun() override
    {
        FabricCell cell;
        cell.type = FabricCell::DATA;
        cell.tc = 3;
        cell.refresh = true;
        cell.srcLeaf = 513;
        cell.dstLeaf = 1027;
        cell.dstPort = 7;
        cell.cellCount = 17;
        cell.wireBytes = 272;
        cell.offset = 3840;
        cell.payload = 256;
        cell.packetId = 4000000001U;
        cell.bytes = 0x123456789abULL;
        cell.packet = Create<Packet>(4096);
        for (uint16_t index : {uint16_t{0}, uint16_t{15}})
        {
            cell.cellIndex = index;
            const bool first = index == 0;
            const uint32_t packetBytes = first ? 4096 : 0;
            CellMessageHeader sent;
            sent.SetCell(cell, 9, NanoSeconds(123456789012LL));
            sent.SetPacketBytes(packetBytes);
            NS_TEST_EXPECT_MSG_EQ(sent.HasPacket(), first, "the packet goes with cell 0");
            Ptr<Packet> message = sent.HasPacket() ? cell.packet->Copy() : Create<Packet>();
            message->AddHeader(sent);
            NS_TEST_EXPECT_MSG_EQ(message->GetSize(),
                                  CellMessageHeader::CELL_SIZE + packetBytes,
                                  "the declared size, and the packet's bytes after it");
            Ptr<Packet> received = Rebuild(message);
            CellMessageHeader header;
            NS_TEST_EXPECT_MSG_EQ(received->RemoveHeader(header),
                                  CellMessageHeader::CELL_SIZE,
                                  "header bytes read");
            const FabricCell& c = header.GetCell();
            NS_TEST_EXPECT_MSG_EQ(header.GetKind(), CellMessageHeader::CELL, "kind");
            NS_TEST_EXPECT_MSG_EQ(header.GetEpoch(), 9, "epoch");
            NS_TEST_EXPECT_MSG_EQ(header.HasPacket(), first, "packet flag");
            NS_TEST_EXPECT_MSG_EQ(header.GetPacketBytes(), packetBytes, "packet bytes declared");
            NS_TEST_EXPECT_MSG_EQ(header.GetArrival(), NanoSeconds(123456789012LL), "arrival");
            NS_TEST_EXPECT_MSG_EQ(received->GetSize(), packetBytes, "packet bytes");
            NS_TEST_EXPECT_MSG_EQ(+c.type, +cell.type, "type");
            NS_TEST_EXPECT_MSG_EQ(+c.tc, +cell.tc, "tc");
            NS_TEST_EXPECT_MSG_EQ(c.refresh, cell.refresh, "refresh");
            NS_TEST_EXPECT_MSG_EQ(c.srcLeaf, cell.srcLeaf, "srcLeaf");
            NS_TEST_EXPECT_MSG_EQ(c.dstLeaf, cell.dstLeaf, "dstLeaf");
            NS_TEST_EXPECT_MSG_EQ(c.dstPort, cell.dstPort, "dstPort");
            NS_TEST_EXPECT_MSG_EQ(c.cellIndex, index, "cellIndex");
            NS_TEST_EXPECT_MSG_EQ(c.cellCount, cell.cellCount, "cellCount");
            NS_TEST_EXPECT_MSG_EQ(c.wireBytes, cell.wireBytes, "wireBytes");
            NS_TEST_EXPECT_MSG_EQ(c.offset, cell.offset, "offset");
            NS_TEST_EXPECT_MSG_EQ(c.payload, cell.payload, "payload");
            NS_TEST_EXPECT_MSG_EQ(c.packetId, cell.packetId, "packetId");
            NS_TEST_EXPECT_MSG_EQ(c.bytes, cell.bytes, "bytes");
            NS_TEST_EXPECT_MSG_EQ(c.packet, nullptr, "the header holds no packet");
        }

        FabricCell grant;
        grant.type = FabricCell::CREDIT_GRANT;
        grant.bytes = 1ULL << 40;
        CellMessageHeader sentGrant;
        sentGrant.SetCell(grant, 0, Time(0));
        Ptr<Packet> grantMessage = Create<Packet>();
        grantMessage->AddHeader(sentGrant);
        CellMessageHeader receivedGrant;
        Rebuild(grantMessage)->RemoveHeader(receivedGrant);
        NS_TEST_EXPECT_MSG_EQ(+receivedGrant.GetCell().type, +FabricCell::CREDIT_GRANT, "grant");
        NS_TEST_EXPECT_MSG_EQ(receivedGrant.GetCell().bytes, 1ULL << 40, "granted bytes");
        NS_TEST_EXPECT_MSG_EQ(receivedGrant.HasPacket(), false, "a control cell has no packet");

        for (bool stop : {true, false})
        {
            CellMessageHeader sent;
            sent.SetIndication(65535, 4095, stop);
            Ptr<Packet> message = Create<Packet>();
            message->AddHeader(sent);
            NS_TEST_EXPECT_MSG_EQ(message->GetSize(),
                                  CellMessageHeader::INDICATION_SIZE,
                                  "the declared size");
            CellMessageHeader header;
            Rebuild(message)->RemoveHeader(header);
            NS_TEST_EXPECT_MSG_EQ(header.GetKind(), CellMessageHeader::INDICATION, "kind");
            NS_TEST_EXPECT_MSG_EQ(header.GetSpine(), 65535, "spine");
            NS_TEST_EXPECT_MSG_EQ(header.GetLeaf(), 4095, "leaf");
            NS_TEST_EXPECT_MSG_EQ(header.IsStop(), stop, "stop or go on");
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * Five cells of 250 B over a 100 Gb/s link with a 1 us delay, three sent at t = 0
 * and two at 25 ns, behind them: 20 ns each, back to back, so they arrive at 1020,
 * 1040, 1060, 1080 and 1100 ns. The link fails at 1050 ns: two arrive, the three
 * still on the wire are lost. A direct link counts them at the sending end when
 * it fails; a link between processes at the receiving end when each would have
 * arrived (the sending process cannot see the other's wire). Either way the
 * link's two ends count three. Between processes the first three go as one
 * message, sent at 20 ns when the first finishes serialising, the last two as a
 * second, sent at 80 ns.
 */
class MessageLinkFailureTestCase : public TestCase
{
  public:
    /// \param crossing whether the link's ends stand for two processes
    explicit MessageLinkFailureTestCase(bool crossing)
        : TestCase(std::string(crossing ? "a link between processes" : "a direct link") +
                   " fails with three cells on it: two arrive, three lost"),
          m_crossing(crossing)
    {
    }

  private:
    /// Send the five cells, fail the link at 1050 ns, count.
    void DoRun() override
    {
        Ptr<Node> a = CreateObject<Node>();
        Ptr<Node> b = CreateObject<Node>();
        Ptr<CellChannel> channel = m_crossing
                                       ? Ptr<CellChannel>(CreateObject<CellLoopbackChannel>())
                                       : CreateObject<CellChannel>();
        channel->SetAttribute("Delay", TimeValue(MicroSeconds(1)));
        Ptr<CellNetDevice> from = CreateObject<CellNetDevice>();
        Ptr<CellNetDevice> to = CreateObject<CellNetDevice>();
        for (const auto& [node, dev] : {std::pair{a, from}, std::pair{b, to}})
        {
            dev->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
            node->AddDevice(dev);
            dev->Attach(channel);
        }
        std::vector<int64_t> arrivals;
        to->SetCellReceiveCallback([&arrivals](uint32_t, const FabricCell& cell) {
            arrivals.push_back(Simulator::Now().GetNanoSeconds());
        });
        auto send = [from](uint16_t first, uint16_t count) {
            for (uint16_t i = first; i < first + count; ++i)
            {
                FabricCell cell;
                cell.cellIndex = i;
                cell.wireBytes = 250;
                cell.payload = 234;
                from->SendCell(cell);
            }
        };
        send(0, 3);
        Simulator::Schedule(NanoSeconds(25), [send]() { send(3, 2); });
        Simulator::Schedule(NanoSeconds(1050), &CellChannel::SetUp, channel, false);
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(arrivals.size(), 2, "two arrived");
        NS_TEST_EXPECT_MSG_EQ((arrivals == std::vector<int64_t>{1020, 1040}),
                              true,
                              "at their own times");
        NS_TEST_EXPECT_MSG_EQ(from->GetCellsLost() + to->GetCellsLost(), 3, "three lost");
        NS_TEST_EXPECT_MSG_EQ(from->GetPayloadLost() + to->GetPayloadLost(),
                              3 * 234,
                              "their payload lost");
        NS_TEST_EXPECT_MSG_EQ((m_crossing ? to : from)->GetCellsLost(),
                              3,
                              "counted where the loss is seen");
        if (m_crossing)
        {
            NS_TEST_EXPECT_MSG_EQ(DynamicCast<CellLoopbackChannel>(channel)->GetMessages(),
                                  2,
                                  "one message per cell sent before the first finished");
        }
        Simulator::Destroy();
    }

    bool m_crossing; //!< the link's ends stand for two processes
};

/**
 * Every leaf-spine link by messages. A message arrives with its first cell and
 * each of its cells is delivered at its own arrival (computed at sending, rounded
 * as a direct link rounds it), so the cells and their times are those of direct
 * links; only events at the same instant may run in another order, since a cell
 * from a message is scheduled when the message arrives, as when MPI hands a
 * process the messages of another. Cells of equal size on links of equal rate tie
 * often (two leaves' cells reach a spine port in the same nanosecond), and which
 * goes first is a different, equally valid schedule: the scenarios must agree as
 * closely as an approximation must.
 * \return the mode
 */
Approximation
Messages()
{
    return {"links by messages",
            [](ScheduledFabricHelper& f) { f.SetFabricChannelType("ns3::CellLoopbackChannel"); },
            // Each cell's arrival is an event as on a direct link, and each
            // message adds one, to send it: at most twice the events, when every
            // message holds a single cell (and an indication is one message per
            // leaf where direct links have one event per spine).
            2.0,
            // A cell that ties with the failure instant may go either side of it,
            // one per failed link end; and the cells on a link when it fails were
            // scheduled by a different order of ties before it: 2 cells.
            2};
}

/**
 * An 8:1 RDMA incast of 1 MiB into a leaf whose fabric links bind (2 spines at
 * 50 Gb/s for a 100 Gb/s host port), with the spines' flow control at 16 KiB
 * (go on at 8 KiB) rather than 256 KiB, so that it acts: the spines' stop and
 * go-on indications decide when the leaves send.
 * \param mode the mode's attributes \return every message's completion
 */
ScenarioResult
FlowControlledIncast(const Configure& mode)
{
    ClusterDescription c = SmallCluster(3, 4, 2);
    c.fabricLinkRate = DataRate("50Gbps");
    std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> flows;
    for (uint32_t s = 4; s < 12; ++s)
    {
        flows.emplace_back(s, 0, 1 << 20);
    }
    return RunMessages(
        c,
        [mode](ScheduledFabricHelper& f) {
            if (mode)
            {
                mode(f);
            }
            f.SetSpineAttribute("FlowControlXoff", UintegerValue(16384));
            f.SetSpineAttribute("FlowControlXon", UintegerValue(8192));
        },
        flows);
}

/**
 * \ingroup ai-fabric-tests
 * The flow-controlled incast by messages: the spines' indications reach the
 * leaves as messages (none of them would show in the other scenarios, whose
 * spine queues stay below 256 KiB).
 */
class IndicationMessagesTestCase : public TestCase
{
  public:
    IndicationMessagesTestCase()
        : TestCase("flow-controlled incast: the spines' indications go as messages")
    {
    }

  private:
    /// Run the incast by messages, count indication messages.
    void DoRun() override
    {
        CellLoopbackChannel::ResetCounts();
        const ScenarioResult r = FlowControlledIncast(Messages().configure);
        NS_TEST_EXPECT_MSG_EQ(r.completions.size(), 8, "every message completed");
        NS_TEST_EXPECT_MSG_GT(CellLoopbackChannel::GetIndications(), 0, "indications sent");
        std::cout << GetName() << ": " << CellLoopbackChannel::GetIndications()
                  << " indication messages" << std::endl;
    }
};

/**
 * \ingroup ai-fabric-tests
 * The 16-host permutation of 1 MiB by messages: the cells sent on a link before
 * the first of them finishes serialising share a message (more than one cell per
 * message on the whole), and every message fits ns-3's MPI receive buffer
 * (CellNetDevice::MAX_MESSAGE_BYTES; the test channel also refuses any larger).
 */
class MessageBatchTestCase : public TestCase
{
  public:
    MessageBatchTestCase()
        : TestCase("permutation: cells share messages, each fits an MPI receive buffer")
    {
    }

  private:
    /// Run the permutation by messages, count cells and messages.
    void DoRun() override
    {
        const ClusterDescription c = SmallCluster(4, 4, 4);
        CellLoopbackChannel::ResetCounts();
        RdmaFabric f(c, Messages().configure);
        for (const auto& [src, dst, bytes] : Permutation(c, 1 << 20))
        {
            f.Post(src, dst, bytes);
        }
        Simulator::Run();
        uint64_t cells = 0;
        const NetDeviceContainer ends = f.fabric.GetFabricDevices();
        for (auto end = ends.Begin(); end != ends.End(); ++end)
        {
            cells += DynamicCast<CellNetDevice>(*end)->GetCellsSent();
        }
        const uint64_t messages = CellLoopbackChannel::GetCellMessages();
        std::cout << GetName() << ": " << cells << " cells in " << messages << " messages ("
                  << double(cells) / messages << " per message), the largest "
                  << CellLoopbackChannel::GetLargest() << " B" << std::endl;
        NS_TEST_EXPECT_MSG_EQ(f.completions.count, 16, "every message completed");
        NS_TEST_EXPECT_MSG_GT(cells, messages, "more than one cell per message");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(CellLoopbackChannel::GetLargest(),
                                    CellNetDevice::MAX_MESSAGE_BYTES,
                                    "every message fits");
        Simulator::Destroy();
    }
};

/// The suite.
class CellMessageTestSuite : public TestSuite
{
  public:
    CellMessageTestSuite()
        : TestSuite("ai-fabric-cell-messages", TestSuite::Type::UNIT)
    {
        AddTestCase(new MessageHeaderTestCase());
        AddTestCase(new MessageLinkFailureTestCase(false));
        AddTestCase(new MessageLinkFailureTestCase(true));
        AddTestCase(new IndicationMessagesTestCase());
        AddTestCase(new MessageBatchTestCase());
        for (TestCase* c : AgreementCases({Messages()}))
        {
            AddTestCase(c);
        }
        AddTestCase(new ApproximationAgreementTestCase("RDMA 8:1 incast, spine flow control at "
                                                       "16 KiB",
                                                       &FlowControlledIncast,
                                                       {Messages()}));
    }
};

/// Registers the suite.
CellMessageTestSuite g_cellMessageTestSuite;

} // namespace
