/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-roce-headers: header round trips, the kept Ethernet header, and exact frame sizes and
// wire times of every RoCEv2 frame the transport and the NIC produce.

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/test.h"

#include <map>
#include <vector>

using namespace ns3;

/**
 * Every header survives serialisation; sizes are those of the specifications.
 */
class RoceHeaderRoundTripTestCase : public TestCase
{
  public:
    RoceHeaderRoundTripTestCase()
        : TestCase("BTH, AETH, RETH, CNP, PFC and ICRC round trips")
    {
    }

  private:
    /// Serialise and read back every header and check the fields and sizes.
    void DoRun() override
    {
        BthHeader bth;
        bth.SetOpcode(BthHeader::CNP);
        bth.SetBecn(true);
        bth.SetFecn(true);
        bth.SetSolicitedEvent(true);
        bth.SetPKey(0x1234);
        bth.SetDestQp(0xFFFFFF);
        bth.SetPsn(0xFFFFFF);
        AethHeader aeth;
        aeth.SetMsn(0xABCDEF);
        RethHeader reth;
        reth.SetDmaLength(0xFFFFFFFF);
        PfcHeader pfc;
        pfc.SetPauseTime(0, 1);
        pfc.SetPauseTime(7, 0);
        IcrcTrailer icrc;
        icrc.SetIcrc(0xDEADBEEF);

        Ptr<Packet> p = Create<Packet>(10);
        p->AddTrailer(icrc);
        p->AddHeader(pfc);
        p->AddHeader(reth);
        p->AddHeader(aeth);
        p->AddHeader(bth);
        NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 10 + 4 + 46 + 16 + 4 + 12, "sizes");
        BthHeader bth2;
        AethHeader aeth2;
        RethHeader reth2;
        PfcHeader pfc2;
        IcrcTrailer icrc2;
        p->RemoveHeader(bth2);
        p->RemoveHeader(aeth2);
        p->RemoveHeader(reth2);
        p->RemoveHeader(pfc2);
        p->RemoveTrailer(icrc2);
        NS_TEST_EXPECT_MSG_EQ(+bth2.GetOpcode(), 0x81, "opcode");
        NS_TEST_EXPECT_MSG_EQ(bth2.GetBecn(), true, "BECN");
        NS_TEST_EXPECT_MSG_EQ(bth2.GetFecn(), true, "FECN");
        NS_TEST_EXPECT_MSG_EQ(bth2.GetSolicitedEvent(), true, "SE");
        NS_TEST_EXPECT_MSG_EQ(bth2.GetPKey(), 0x1234, "P_Key");
        NS_TEST_EXPECT_MSG_EQ(bth2.GetDestQp(), 0xFFFFFF, "QP");
        NS_TEST_EXPECT_MSG_EQ(bth2.GetPsn(), 0xFFFFFF, "PSN");
        NS_TEST_EXPECT_MSG_EQ(aeth2.GetMsn(), 0xABCDEF, "MSN");
        NS_TEST_EXPECT_MSG_EQ(aeth2.IsAck(), true, "ACK syndrome by default");
        NS_TEST_EXPECT_MSG_EQ(reth2.GetDmaLength(), 0xFFFFFFFF, "DMA length");
        NS_TEST_EXPECT_MSG_EQ(pfc2.GetClassEnableVector(), 0x81, "priorities 0 and 7");
        NS_TEST_EXPECT_MSG_EQ(pfc2.GetPauseTime(0), 1, "quanta");
        NS_TEST_EXPECT_MSG_EQ(pfc2.IsEnabled(7), true, "resume is enabled with time 0");
        NS_TEST_EXPECT_MSG_EQ(icrc2.GetIcrc(), 0xDEADBEEF, "ICRC");
        NS_TEST_EXPECT_MSG_EQ(p->GetSize(), 10, "payload left");
    }
};

/**
 * Frames on a plain wire: data (First with RETH,
 * Middle, Last), ACK and PFC frames have their exact sizes, and each takes
 * (size + FCS 4 + preamble/IFG 20) x 8 / rate on the wire.
 */
class RoceFrameSizeTestCase : public TestCase
{
  public:
    RoceFrameSizeTestCase()
        : TestCase("frame sizes and wire times are exact")
    {
    }

  private:
    /// Frames seen on the wire.
    struct Seen
    {
        std::map<uint32_t, uint32_t> sizes; //!< frame size -> count
        Time begin;                         //!< start of the current frame
        uint32_t badTimes{0};               //!< frames whose wire time was wrong
        double rate{0};                     //!< line rate
    };

    /// TxBegin trace sink. \param s what the device saw \param frame the frame
    static void Begin(Seen* s, Ptr<const Packet> frame, uint8_t)
    {
        s->begin = Simulator::Now();
        s->sizes[frame->GetSize()]++;
    }

    /// TxEnd trace sink: check the frame's wire time.
    /// \param s what the device saw \param frame the frame
    static void End(Seen* s, Ptr<const Packet> frame, uint8_t)
    {
        double expect = (std::max<uint32_t>(frame->GetSize(), 60) + 24) * 8 / s->rate;
        // The device carries sub-nanosecond remainders: each frame is within 1 ns.
        if (std::abs((Simulator::Now() - s->begin).GetSeconds() - expect) > 1e-9)
        {
            ++s->badTimes;
        }
    }

    /// Send messages and a PFC frame and check every frame's size and wire time.
    void DoRun() override
    {
        NodeContainer hosts;
        hosts.Create(2);
        RocePointToPointHelper wire;
        wire.SetDeviceAttribute("DataRate", DataRateValue(DataRate("25Gbps")));
        NetDeviceContainer nics = wire.Install(hosts);
        RdmaHelper rdma;
        rdma.SetTransportAttribute("Mtu", UintegerValue(2048));
        rdma.SetTransportAttribute("AckInterval", UintegerValue(1000));
        rdma.Install(nics);
        Seen tx;
        Seen rx;
        tx.rate = rx.rate = 25e9;
        nics.Get(0)->TraceConnectWithoutContext("TxBegin", MakeBoundCallback(&Begin, &tx));
        nics.Get(0)->TraceConnectWithoutContext("TxEnd", MakeBoundCallback(&End, &tx));
        nics.Get(1)->TraceConnectWithoutContext("TxBegin", MakeBoundCallback(&Begin, &rx));
        nics.Get(1)->TraceConnectWithoutContext("TxEnd", MakeBoundCallback(&End, &rx));
        rdma.Post(0, 1, 3 * 2048 - 48, 0, RdmaCompletionCallback());
        Simulator::Schedule(MicroSeconds(10),
                            &RoceNetDevice::SendPfc,
                            DynamicCast<RoceNetDevice>(nics.Get(1)),
                            3,
                            0);
        Simulator::Run();
        // Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 (+ RETH 16) + payload + ICRC 4.
        NS_TEST_EXPECT_MSG_EQ(tx.sizes[2048 + 74], 1, "WRITE First: 2048 + 74 B");
        NS_TEST_EXPECT_MSG_EQ(tx.sizes[2048 + 58], 1, "WRITE Middle: 2048 + 58 B");
        NS_TEST_EXPECT_MSG_EQ(tx.sizes[2000 + 58], 1, "WRITE Last: 2000 + 58 B");
        NS_TEST_EXPECT_MSG_EQ(tx.sizes.size(), 3, "nothing else");
        // ACK: 14 + 20 + 8 + 12 + AETH 4 + ICRC 4 = 62 B; PFC: 60 B.
        NS_TEST_EXPECT_MSG_EQ(rx.sizes[62], 1, "one ACK of 62 B (message end)");
        NS_TEST_EXPECT_MSG_EQ(rx.sizes[60], 1, "one PFC frame of 60 B");
        NS_TEST_EXPECT_MSG_EQ(tx.badTimes + rx.badTimes, 0, "wire times exact within 1 ns");
        Simulator::Destroy();
    }
};

/**
 * FixedEthernetHeader writes exactly EthernetHeader's bytes, also after its fields
 * change, and is an EthernetHeader to packet metadata.
 */
class FixedEthernetHeaderTestCase : public TestCase
{
  public:
    FixedEthernetHeaderTestCase()
        : TestCase("FixedEthernetHeader writes EthernetHeader's bytes")
    {
    }

  private:
    /// \return the bytes of a 4-byte packet under the header
    /// \param header the header
    static std::vector<uint8_t> Frame(const Header& header)
    {
        Ptr<Packet> packet = Create<Packet>(4);
        packet->AddHeader(header);
        std::vector<uint8_t> bytes(packet->GetSize());
        packet->CopyData(bytes.data(), bytes.size());
        return bytes;
    }

    /// \return the header EthernetHeader itself writes
    /// \param source source MAC \param destination destination MAC \param type ethertype
    static EthernetHeader Reference(Mac48Address source, Mac48Address destination, uint16_t type)
    {
        EthernetHeader reference(false);
        reference.SetSource(source);
        reference.SetDestination(destination);
        reference.SetLengthType(type);
        return reference;
    }

    /// Compare the two headers' frames over a run of field changes.
    void DoRun() override
    {
        const Mac48Address a("02:00:00:00:00:01");
        const Mac48Address b("02:00:00:00:00:02");
        const Mac48Address pause("01:80:c2:00:00:01");
        FixedEthernetHeader fixed;
        NS_TEST_EXPECT_MSG_EQ(fixed.GetSerializedSize(), 14, "no preamble: 14 bytes");
        NS_TEST_EXPECT_MSG_EQ(fixed.GetInstanceTypeId(),
                              EthernetHeader::GetTypeId(),
                              "metadata records an EthernetHeader");
        NS_TEST_EXPECT_MSG_EQ((Frame(fixed) == Frame(EthernetHeader(false))),
                              true,
                              "a new header writes the default fields");

        // Each step changes one field (or none), so a kept byte left stale shows.
        struct Step
        {
            Mac48Address source;
            Mac48Address destination;
            uint16_t type;
        };

        const std::vector<Step> steps{{a, b, 0x0800},
                                      {a, b, 0x0800},
                                      {a, pause, 0x0800},
                                      {a, pause, 0x8808},
                                      {b, pause, 0x8808},
                                      {a, b, 0x0800}};
        for (std::size_t i = 0; i < steps.size(); ++i)
        {
            const Step& step = steps[i];
            fixed.Set(step.source, step.destination, step.type);
            const EthernetHeader reference = Reference(step.source, step.destination, step.type);
            NS_TEST_EXPECT_MSG_EQ((Frame(fixed) == Frame(reference)),
                                  true,
                                  "step " << i << ": the same bytes as EthernetHeader's");
            Ptr<Packet> packet = Create<Packet>(4);
            packet->AddHeader(fixed);
            EthernetHeader read(false);
            packet->RemoveHeader(read);
            NS_TEST_EXPECT_MSG_EQ(read.GetSource(), step.source, "step " << i << ": source");
            NS_TEST_EXPECT_MSG_EQ(read.GetDestination(),
                                  step.destination,
                                  "step " << i << ": destination");
            NS_TEST_EXPECT_MSG_EQ(read.GetLengthType(), step.type, "step " << i << ": type");
            NS_TEST_EXPECT_MSG_EQ(packet->GetSize(), 4, "step " << i << ": 14 bytes removed");
        }
    }
};

/// The suite.
class RoceHeadersTestSuite : public TestSuite
{
  public:
    RoceHeadersTestSuite()
        : TestSuite("ai-fabric-roce-headers", TestSuite::Type::UNIT)
    {
        AddTestCase(new RoceHeaderRoundTripTestCase());
        AddTestCase(new FixedEthernetHeaderTestCase());
        AddTestCase(new RoceFrameSizeTestCase());
    }
};

static RoceHeadersTestSuite g_roceHeadersTestSuite; //!< registers the suite
