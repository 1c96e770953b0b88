/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Pure logic of the RoCE headers, the queue pair and the DCQCN rate controller, and
// death tests for bad input (the message names the attribute and the value).

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/network-module.h"
#include "ns3/udp-header.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <set>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

/// Serialise a header alone and return its bytes.
template <typename H>
std::vector<uint8_t>
Bytes(const H& header)
{
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(header);
    std::vector<uint8_t> out(p->GetSize());
    p->CopyData(out.data(), out.size());
    return out;
}

/**
 * Two hosts on a wire with transports (for the death tests).
 * \param mtu the transports' Mtu \param configure sets more helper attributes
 * \return the helper, installed
 */
RdmaHelper
MakePair(uint32_t mtu = 4096, const std::function<void(RdmaHelper&)>& configure = {})
{
    NodeContainer hosts;
    hosts.Create(2);
    RocePointToPointHelper wire;
    NetDeviceContainer nics = wire.Install(hosts);
    RdmaHelper rdma;
    rdma.SetTransportAttribute("Mtu", UintegerValue(mtu));
    if (configure)
    {
        configure(rdma);
    }
    rdma.Install(nics);
    return rdma;
}

/**
 * Hand a crafted RoCE packet to a transport's NIC as if it came off the wire:
 * Ethernet, IPv4, UDP 4791, a BTH with the given opcode and destination QP, then body.
 * \param to the receiving transport
 * \param opcode BTH opcode
 * \param qpn local QP number at the receiver (QPN_BASE is added)
 * \param body what follows the BTH (headers, payload, ICRC) - may be short on purpose
 */
void
InjectRoce(Ptr<RdmaTransport> to, uint8_t opcode, uint32_t qpn, Ptr<Packet> body)
{
    BthHeader bth;
    bth.SetOpcode(opcode);
    bth.SetDestQp(qpn + RdmaTransport::QPN_BASE);
    body->AddHeader(bth);
    UdpHeader udp;
    udp.SetSourcePort(0xC000);
    udp.SetDestinationPort(RdmaTransport::ROCE_UDP_PORT);
    body->AddHeader(udp);
    Ipv4Header ip;
    ip.SetProtocol(17);
    ip.SetPayloadSize(body->GetSize());
    body->AddHeader(ip);
    EthernetHeader eth(false);
    eth.SetLengthType(RoceNetDevice::IPV4_PROTOCOL);
    body->AddHeader(eth);
    to->GetDevice()->Receive(body);
}

} // namespace

TEST(RoceHeaders, BthBytesAreBigEndianAsOnTheWire)
{
    BthHeader bth;
    bth.SetOpcode(BthHeader::RC_WRITE_ONLY);
    bth.SetDestQp(0x123456);
    bth.SetPsn(0x1ABCDEF); // only the low 24 bits travel
    bth.SetAckReq(true);
    std::vector<uint8_t>
        expect{0x0A, 0x40, 0xFF, 0xFF, 0x00, 0x12, 0x34, 0x56, 0x80, 0xAB, 0xCD, 0xEF};
    EXPECT_EQ(Bytes(bth), expect);

    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(bth);
    BthHeader back;
    p->RemoveHeader(back);
    EXPECT_EQ(back.GetOpcode(), 0x0A);
    EXPECT_EQ(back.GetDestQp(), 0x123456u);
    EXPECT_EQ(back.GetPsn(), 0xABCDEFu);
    EXPECT_TRUE(back.GetAckReq());
    EXPECT_FALSE(back.GetBecn());
}

TEST(RoceHeaders, AethRethPfcCnpLayouts)
{
    AethHeader nak;
    nak.SetSyndrome(AethHeader::NAK_PSN_ERROR);
    nak.SetMsn(5);
    EXPECT_EQ(Bytes(nak), (std::vector<uint8_t>{0x60, 0x00, 0x00, 0x05}));
    EXPECT_TRUE(nak.IsNak());
    EXPECT_FALSE(nak.IsAck());

    RethHeader reth;
    reth.SetVirtualAddress(0x0102030405060708ULL);
    reth.SetRKey(0x0A0B0C0D);
    reth.SetDmaLength(4096);
    EXPECT_EQ(
        Bytes(reth),
        (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8, 0x0A, 0x0B, 0x0C, 0x0D, 0, 0, 0x10, 0}));

    PfcHeader pfc;
    pfc.SetPauseTime(3, 0xFFFF);
    auto b = Bytes(pfc);
    ASSERT_EQ(b.size(), 46u); // + 14 Ethernet = 60 B, the minimum frame without FCS
    EXPECT_EQ(b[0], 0x01);
    EXPECT_EQ(b[1], 0x01); // opcode 0x0101
    EXPECT_EQ(b[2], 0x00);
    EXPECT_EQ(b[3], 0x08); // class-enable vector: priority 3
    EXPECT_EQ(b[4 + 2 * 3], 0xFF);
    EXPECT_EQ(b[5 + 2 * 3], 0xFF);
    EXPECT_EQ(Bytes(CnpHeader()).size(), 16u);

    Ptr<Packet> p = Create<Packet>(100);
    p->AddTrailer(IcrcTrailer());
    EXPECT_EQ(p->GetSize(), 104u);
}

TEST(RdmaQueuePair, SegmentsToTheMtuWithOpcodes)
{
    RdmaQueuePair qp(0, 0, 1, 4096);
    RdmaCompletion m;
    m.size = 10000;
    qp.PostSend(m, RdmaCompletionCallback());
    m.size = 1;
    qp.PostSend(m, RdmaCompletionCallback());
    std::vector<uint8_t> opcodes;
    std::vector<uint32_t> payloads;
    while (qp.HasSendable(0))
    {
        auto s = qp.NextSegment();
        opcodes.push_back(s.opcode);
        payloads.push_back(s.payload);
    }
    EXPECT_EQ(opcodes,
              (std::vector<uint8_t>{BthHeader::RC_WRITE_FIRST,
                                    BthHeader::RC_WRITE_MIDDLE,
                                    BthHeader::RC_WRITE_LAST,
                                    BthHeader::RC_WRITE_ONLY}));
    EXPECT_EQ(payloads, (std::vector<uint32_t>{4096, 4096, 1808, 1}));
}

TEST(RdmaQueuePair, PsnUnwrapsModulo24Bits)
{
    const uint64_t wrap = 1ULL << 24;
    EXPECT_EQ(RdmaQueuePair::Unwrap(5, 5), 5);
    EXPECT_EQ(RdmaQueuePair::Unwrap(0, wrap - 2), static_cast<int64_t>(wrap)); // across the wrap
    EXPECT_EQ(RdmaQueuePair::Unwrap(0xFFFFFF, wrap + 3), static_cast<int64_t>(wrap - 1));
    EXPECT_EQ(RdmaQueuePair::Unwrap(10, 3 * wrap + 8), static_cast<int64_t>(3 * wrap + 10));
}

TEST(RdmaQueuePair, ReceiverNaksOnceThenDropsAndReacksDuplicates)
{
    RdmaQueuePair rx(0, 1, 0, 1024);
    RdmaCompletion m;
    m.size = 4096; // four packets
    rx.PostReceive(m, RdmaCompletionCallback());
    std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>> done;
    EXPECT_EQ(rx.OnData(0, 1024, false, done), RdmaQueuePair::RX_ACCEPTED);
    EXPECT_EQ(rx.OnData(2, 1024, false, done), RdmaQueuePair::RX_OUT_OF_ORDER_NAK);
    EXPECT_EQ(rx.OnData(3, 1024, true, done), RdmaQueuePair::RX_OUT_OF_ORDER_DROP);
    EXPECT_EQ(rx.OnData(0, 1024, false, done), RdmaQueuePair::RX_DUPLICATE);
    EXPECT_EQ(rx.OnData(1, 1024, false, done), RdmaQueuePair::RX_ACCEPTED);
    EXPECT_EQ(rx.OnData(2, 1024, false, done), RdmaQueuePair::RX_ACCEPTED);
    EXPECT_TRUE(done.empty());
    EXPECT_EQ(rx.OnData(3, 1024, true, done), RdmaQueuePair::RX_ACCEPTED);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].first.size, 4096u);
    EXPECT_EQ(rx.GetDeliveredBytes(), 4096u);
    EXPECT_EQ(rx.GetMsn(), 1u);
}

TEST(RdmaQueuePair, OutOfOrderPlacementHoldsAndReleasesWithoutNak)
{
    // Window 4: two messages of 3 packets (PSN 0-2, 3-5). Arrivals 1, 2, 4, 5, 3, 0:
    // each of 1..5 is held (never a NAK); 0 fills the gap and releases 0..5, which
    // completes both messages at once. PSN 6 is 6 ahead of the expected 0 when it is
    // the first to arrive in another queue pair: beyond the window, dropped silently.
    RdmaQueuePair rx(0, 1, 0, 1000);
    RdmaCompletion m;
    m.size = 3000;
    m.tag = 1;
    rx.PostReceive(m, RdmaCompletionCallback());
    m.tag = 2;
    rx.PostReceive(m, RdmaCompletionCallback());
    rx.SetReorderWindow(5);
    std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>> done;
    for (uint32_t psn : {1, 2, 4, 5, 3})
    {
        EXPECT_EQ(rx.OnData(psn, 1000, psn == 2 || psn == 5, done), RdmaQueuePair::RX_PLACED)
            << "PSN " << psn;
    }
    EXPECT_EQ(rx.OnData(4, 1000, false, done), RdmaQueuePair::RX_DUPLICATE) << "held already";
    EXPECT_EQ(rx.GetDeliveredBytes(), 0u);
    EXPECT_EQ(rx.OnData(0, 1000, false, done), RdmaQueuePair::RX_ACCEPTED);
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[0].first.tag, 1u);
    EXPECT_EQ(done[1].first.tag, 2u);
    EXPECT_EQ(rx.GetExpectedPsn(), 6u);
    EXPECT_EQ(rx.GetDeliveredBytes(), 6000u);
    EXPECT_EQ(rx.GetMsn(), 2u);

    RdmaQueuePair other(1, 1, 0, 1000);
    other.PostReceive(m, RdmaCompletionCallback());
    other.SetReorderWindow(5);
    EXPECT_EQ(other.OnData(6, 1000, false, done), RdmaQueuePair::RX_OUT_OF_ORDER_DROP);
}

TEST(RdmaQueuePair, NakRewindsAndAckCompletes)
{
    RdmaQueuePair tx(0, 0, 1, 1000);
    RdmaCompletion m;
    m.size = 5000; // PSN 0..4
    tx.PostSend(m, RdmaCompletionCallback());
    for (int i = 0; i < 5; ++i)
    {
        tx.NextSegment();
    }
    std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>> done;
    EXPECT_TRUE(tx.OnAck(1, false, done)); // PSN 0 and 1 received
    EXPECT_EQ(tx.GetSndUna(), 2u);
    EXPECT_TRUE(tx.OnAck(3, true, done)); // NAK: expected 3
    EXPECT_EQ(tx.GetSndUna(), 3u);
    EXPECT_EQ(tx.GetSndNxt(), 3u); // go back N
    auto s = tx.NextSegment();
    EXPECT_EQ(s.psn, 3u);
    EXPECT_TRUE(s.retransmission);
    EXPECT_EQ(s.offset, 3000u);
    EXPECT_TRUE(done.empty());
    EXPECT_FALSE(tx.OnAck(7, false, done)); // beyond anything sent: ignored
    tx.NextSegment();
    EXPECT_TRUE(tx.OnAck(4, false, done));
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].first.size, 5000u);
    EXPECT_FALSE(tx.HasOutstanding());
}

// Selective repeat under reordering (no loss), as fabric-comparison's expert-parallel
// run on per-packet routing met it: PSN 3 overtakes PSN 2, the receiver NAKs 2,
// then 2 arrives and the ACK covers the whole message before the sender has resent
// 2. The resend is needless, and with nothing else to send the queue pair must say
// so: it used to report the stale resend as sendable, and NextSegment then built a
// packet past the last message (PSN 5 of a 5-packet message).
TEST(RdmaQueuePair, SelectiveRepeatDropsAResendAnAckMadeNeedless)
{
    RdmaQueuePair tx(0, 0, 1, 1000);
    tx.SetReorderWindow(4);
    tx.SetNakThreshold(1);
    RdmaCompletion m;
    m.size = 5000; // PSN 0..4
    tx.PostSend(m, RdmaCompletionCallback());
    while (tx.HasSendable(0))
    {
        tx.NextSegment();
    }
    std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>> done;
    EXPECT_TRUE(tx.OnAck(2, true, done)); // NAK: PSN 2 missing, 3 held
    EXPECT_TRUE(tx.HasSendable(0)) << "PSN 2 to be resent";
    EXPECT_TRUE(tx.OnAck(4, false, done)); // PSN 2 came after all: everything received
    ASSERT_EQ(done.size(), 1u);
    EXPECT_FALSE(tx.HasSendable(0)) << "the resend of PSN 2 is needless";
    EXPECT_FALSE(tx.HasOutstanding());
    EXPECT_EQ(tx.GetSndMax(), 5u);
}

TEST(RoceHeaders, SackLayoutAndRoundTrip)
{
    SackHeader sack;
    sack.SetBasePsn(0x1123456); // only the low 24 bits travel
    sack.SetBitmap(0x8000000000000005ULL);
    // A reserved byte, the 24-bit base PSN, the bitmap: all big-endian.
    EXPECT_EQ(Bytes(sack),
              (std::vector<uint8_t>{0x00, 0x12, 0x34, 0x56, 0x80, 0, 0, 0, 0, 0, 0, 0x05}));
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(sack);
    EXPECT_EQ(p->GetSize(), SackHeader::SIZE);
    SackHeader back;
    p->RemoveHeader(back);
    EXPECT_EQ(back.GetBasePsn(), 0x123456u);
    EXPECT_EQ(back.GetBitmap(), 0x8000000000000005ULL);
}

namespace
{

/**
 * The two ends of one selective-repeat connection joined by hand: the test carries
 * (or loses) each segment and each acknowledgement. An acknowledgement is built as
 * RdmaTransport::SendAck builds it: the BTH PSN (a NAK's the expected PSN, an ACK's
 * the last in order) and, while the receiver holds packets, its SACK.
 */
struct SelectiveRepeatEnds
{
    RdmaQueuePair tx{0, 0, 1, 1000};                                     //!< sender
    RdmaQueuePair rx{0, 1, 0, 1000};                                     //!< receiver
    std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>> done; //!< completions
    uint32_t resent{0};                                                  //!< retransmissions sent

    /// What the receiver answers.
    struct Answer
    {
        bool nak{false};    //!< NAK (else ACK)
        uint32_t psn24{0};  //!< BTH PSN
        uint32_t base{0};   //!< SACK base PSN
        uint64_t bitmap{0}; //!< SACK bitmap (0: none)
    };

    /// \param threshold NakThreshold \param packets one message of this many packets
    SelectiveRepeatEnds(uint32_t threshold, uint32_t packets)
    {
        for (RdmaQueuePair* qp : {&tx, &rx})
        {
            qp->SetReorderWindow(16);
            qp->SetNakThreshold(threshold);
        }
        RdmaCompletion m;
        m.size = packets * 1000ULL;
        tx.PostSend(m, RdmaCompletionCallback());
        rx.PostReceive(m, RdmaCompletionCallback());
    }

    /// \return the PSN of the next segment the sender sends
    uint64_t Send()
    {
        EXPECT_TRUE(tx.HasSendable(0));
        const auto s = tx.NextSegment();
        resent += s.retransmission ? 1 : 0;
        return s.psn;
    }

    /// \param psn a data packet that reaches the receiver \return the receiver's verdict
    RdmaQueuePair::RxResult Arrive(uint32_t psn)
    {
        return rx.OnData(psn, 1000, false, done);
    }

    /// \param nak a NAK (else an ACK) \return the receiver's acknowledgement now
    Answer Acknowledge(bool nak) const
    {
        Answer a;
        a.nak = nak;
        a.psn24 = static_cast<uint32_t>(nak ? rx.GetExpectedPsn() : rx.GetExpectedPsn() - 1);
        if (rx.GetHeldCount() > 0)
        {
            a.base = static_cast<uint32_t>(rx.GetSack().basePsn);
            a.bitmap = rx.GetSack().bitmap;
        }
        return a;
    }

    /// \param a an acknowledgement that reaches the sender \return OnAck's progress
    bool Deliver(const Answer& a)
    {
        return tx.OnAck(a.psn24, a.nak, done, a.base, a.bitmap);
    }

    /// \param psn a data packet that reaches the receiver, which NAKs it (delivered)
    void ArriveAndNak(uint32_t psn)
    {
        ASSERT_EQ(Arrive(psn), RdmaQueuePair::RX_PLACED_NAK) << "PSN " << psn;
        Deliver(Acknowledge(true));
    }
};

} // namespace

// The receiver's SACK: the held PSNs among the 64 that end at the last arrival.
// Window 256, PSN 0 missing, 1..100 held: the last arrival, 100, gives base 100 - 63
// = 37 and all 64 bits set; PSN 0 then arrives and releases them all (no SACK).
TEST(RdmaQueuePair, SackCoversThe64PsnsEndingAtTheArrival)
{
    RdmaQueuePair rx(0, 1, 0, 1000);
    rx.SetReorderWindow(256);
    rx.SetNakThreshold(1);
    RdmaCompletion m;
    m.size = 101000;
    rx.PostReceive(m, RdmaCompletionCallback());
    std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>> done;
    EXPECT_EQ(rx.OnData(2, 1000, false, done), RdmaQueuePair::RX_PLACED_NAK);
    // Only 2 held: base = expected + 1 = 1, bit 1 (PSN 2) set.
    EXPECT_EQ(rx.GetSack().basePsn, 1u);
    EXPECT_EQ(rx.GetSack().bitmap, 0x2u);
    for (uint32_t psn = 1; psn <= 100; ++psn)
    {
        if (psn != 2)
        {
            EXPECT_EQ(rx.OnData(psn, 1000, false, done), RdmaQueuePair::RX_PLACED_NAK)
                << "every arrival beyond the gap is NAKed";
        }
    }
    EXPECT_EQ(rx.GetSack().basePsn, 37u);
    EXPECT_EQ(rx.GetSack().bitmap, ~uint64_t{0});
    // A duplicate of PSN 50 is NAKed too (the gap persists), with its own SACK: base
    // 50 - 63 < 1, so base 1 and PSNs 1..64 all held.
    EXPECT_EQ(rx.OnData(50, 1000, false, done), RdmaQueuePair::RX_DUPLICATE_NAK);
    EXPECT_EQ(rx.GetSack().basePsn, 1u);
    EXPECT_EQ(rx.GetSack().bitmap, ~uint64_t{0});
    EXPECT_EQ(rx.OnData(0, 1000, false, done), RdmaQueuePair::RX_ACCEPTED);
    EXPECT_EQ(rx.GetExpectedPsn(), 101u);
    EXPECT_EQ(rx.GetHeldCount(), 0u);
}

// A lost NAK costs nothing. One message of 8 packets (PSN 0..7, transmissions 1..8),
// NakThreshold 1. PSN 2 is lost; 0 and 1 arrive in order; 3 arrives and is NAKed
// (expected 2, SACK 3), and that NAK is lost. 4 arrives: NAK, expected 2, SACK base 3
// with bits 0 and 1 (PSN 3 and 4, transmissions 4 and 5). The sender marks them; PSN
// 2's transmission 3 is followed by received ones (at least NakThreshold = 1): lost,
// queued. The NAK of 5 finds it queued already: one resend (transmission 9). The
// NAKs of 6 and 7 (transmissions 7, 8 received) tell of nothing sent after the
// resend: not lost again. The resend arrives and releases 2..7.
TEST(RdmaQueuePair, SelectiveRepeatALostNakCostsNothing)
{
    SelectiveRepeatEnds c(1, 8);
    for (uint64_t psn = 0; psn < 8; ++psn)
    {
        EXPECT_EQ(c.Send(), psn);
    }
    EXPECT_FALSE(c.tx.HasSendable(0));
    EXPECT_EQ(c.Arrive(0), RdmaQueuePair::RX_ACCEPTED);
    EXPECT_EQ(c.Arrive(1), RdmaQueuePair::RX_ACCEPTED);
    EXPECT_EQ(c.Arrive(3), RdmaQueuePair::RX_PLACED_NAK);
    c.Acknowledge(true); // lost
    EXPECT_EQ(c.Arrive(4), RdmaQueuePair::RX_PLACED_NAK) << "NAKed again: the gap persists";
    const auto nak = c.Acknowledge(true);
    EXPECT_TRUE(nak.nak);
    EXPECT_EQ(nak.psn24, 2u);
    EXPECT_EQ(nak.base, 3u);
    EXPECT_EQ(nak.bitmap, 0x3u);
    EXPECT_TRUE(c.Deliver(nak));
    EXPECT_EQ(c.tx.GetSndUna(), 2u);
    EXPECT_TRUE(c.tx.GetScoreboard().IsSacked(3));
    EXPECT_TRUE(c.tx.GetScoreboard().IsSacked(4));
    EXPECT_EQ(c.tx.GetScoreboard().GetDeliveredTransmission(), 5u);
    EXPECT_TRUE(c.tx.HasSendable(0)) << "PSN 2 found lost";
    c.ArriveAndNak(5);
    EXPECT_EQ(c.Send(), 2u);
    EXPECT_EQ(c.resent, 1u);
    EXPECT_FALSE(c.tx.HasSendable(0)) << "PSN 2 queued once";
    c.ArriveAndNak(6);
    c.ArriveAndNak(7);
    EXPECT_FALSE(c.tx.HasSendable(0)) << "the resend, sent after 6 and 7, is not lost";
    EXPECT_EQ(c.Arrive(2), RdmaQueuePair::RX_ACCEPTED);
    EXPECT_EQ(c.rx.GetExpectedPsn(), 8u);
    EXPECT_TRUE(c.Deliver(c.Acknowledge(false)));
    EXPECT_FALSE(c.tx.HasOutstanding());
    EXPECT_EQ(c.resent, 1u);
}

// A lost resend is found from later SACKs, without a timeout. One message of 10
// packets, NakThreshold 1. PSN 0..5 go (transmissions 1..6); PSN 1 is lost. 2 arrives:
// NAK (expected 1, SACK 2, transmission 3, sent after PSN 1's 2): PSN 1 lost, resent
// (transmission 7), and that resend is lost too. PSN 6 and 7 go (transmissions 8, 9).
// 3, 4 and 5 arrive (transmissions 4..6, all before 7): the resend is not yet lost. 6
// arrives (transmission 8 received, after 7): PSN 1 lost again and resent
// (transmission 10) before the new PSN 8. 7 arrives (transmission 9, before 10): not
// again. The second resend arrives and releases 1..7: two resends for two losses.
TEST(RdmaQueuePair, SelectiveRepeatALostResendIsFoundFromLaterSacks)
{
    SelectiveRepeatEnds c(1, 10);
    for (uint64_t psn = 0; psn < 6; ++psn)
    {
        EXPECT_EQ(c.Send(), psn);
    }
    EXPECT_EQ(c.Arrive(0), RdmaQueuePair::RX_ACCEPTED);
    c.ArriveAndNak(2);
    EXPECT_TRUE(c.tx.GetScoreboard().HasResend());
    EXPECT_EQ(c.Send(), 1u); // lost
    EXPECT_EQ(c.Send(), 6u);
    EXPECT_EQ(c.Send(), 7u);
    for (uint32_t psn : {3, 4, 5})
    {
        c.ArriveAndNak(psn);
        EXPECT_FALSE(c.tx.GetScoreboard().HasResend()) << "PSN " << psn << " was sent before";
    }
    c.ArriveAndNak(6);
    EXPECT_TRUE(c.tx.GetScoreboard().HasResend()) << "sent after the resend, received";
    EXPECT_EQ(c.Send(), 1u) << "the lost PSN before new data";
    c.ArriveAndNak(7);
    EXPECT_FALSE(c.tx.GetScoreboard().HasResend());
    EXPECT_EQ(c.Arrive(1), RdmaQueuePair::RX_ACCEPTED);
    EXPECT_EQ(c.rx.GetExpectedPsn(), 8u);
    EXPECT_EQ(c.resent, 2u);
    EXPECT_EQ(c.Send(), 8u);
    EXPECT_EQ(c.Send(), 9u);
    EXPECT_FALSE(c.tx.HasSendable(0));
}

// A lost tail costs one timeout and resends only what is missing. One message of 10
// packets (transmissions 1..10), NakThreshold 1. PSN 3 and the tail, PSN 9, are lost.
// 0..2 arrive in order (not yet acknowledged); 4..8 arrive and are NAKed (expected 3,
// SACK 4..8, transmissions 5..9): PSN 3 (transmission 4) lost, resent (transmission
// 11), and lost again; PSN 9's transmission 10 is followed by none received. Nothing is left to
// send; the timeout resends the PSNs of [3, 10) not SACKed: 3 and 9, not the 7 of
// go-back-N (3..9). Both arrive; the message completes with 3 resends.
TEST(RdmaQueuePair, SelectiveRepeatATimeoutResendsOnlyWhatIsNotSacked)
{
    SelectiveRepeatEnds c(1, 10);
    for (uint64_t psn = 0; psn < 10; ++psn)
    {
        EXPECT_EQ(c.Send(), psn);
    }
    for (uint32_t psn : {0, 1, 2})
    {
        EXPECT_EQ(c.Arrive(psn), RdmaQueuePair::RX_ACCEPTED);
    }
    for (uint32_t psn = 4; psn <= 8; ++psn)
    {
        c.ArriveAndNak(psn);
    }
    EXPECT_EQ(c.tx.GetSndUna(), 3u);
    EXPECT_EQ(c.Send(), 3u); // lost
    EXPECT_FALSE(c.tx.HasSendable(0)) << "PSN 9 not known to be lost";
    c.tx.OnTimeout();
    EXPECT_EQ(c.Send(), 3u);
    EXPECT_EQ(c.Send(), 9u);
    EXPECT_FALSE(c.tx.HasSendable(0)) << "4..8 were SACKed: not resent";
    EXPECT_EQ(c.resent, 3u);
    EXPECT_EQ(c.Arrive(3), RdmaQueuePair::RX_ACCEPTED);
    EXPECT_EQ(c.Arrive(9), RdmaQueuePair::RX_ACCEPTED);
    EXPECT_EQ(c.rx.GetExpectedPsn(), 10u);
    EXPECT_TRUE(c.Deliver(c.Acknowledge(false)));
    EXPECT_FALSE(c.tx.HasOutstanding());
}

// A needless resend does not make the packets sent before it look lost when its
// original arrives: which copy arrived is unknown, so a received PSN counts by its
// first transmission (Karn's rule). Tolerance 1, PSN 0..3 sent (transmissions 1..4);
// 1 (transmission 2) overtakes 0, which is deemed lost and resent (transmission 5);
// 4 and 5 go (6, 7). Then the original 0 arrives: the cumulative acknowledgement of
// 0 and 1 tells of transmissions 1 and 2 (not 5), so 2 and 3 (3, 4), still in
// flight, are not lost. 4 SACKed (transmission 6, after 3 and 4): both are.
TEST(SackScoreboard, ANeedlessResendDoesNotMakeEarlierPacketsLost)
{
    SackScoreboard sb;
    sb.Reset(0);
    sb.SetReorderTolerance(1);
    for (uint64_t psn = 0; psn < 4; ++psn)
    {
        sb.OnTransmit(psn);
    }
    EXPECT_TRUE(sb.Sack(1));
    EXPECT_EQ(sb.DetectLosses(), 1u);
    EXPECT_EQ(sb.PopResend(), 0u);
    sb.OnTransmit(0);
    sb.OnTransmit(4);
    sb.OnTransmit(5);
    EXPECT_EQ(sb.GetTransmissions(), 7u);
    EXPECT_TRUE(sb.Acknowledge(2));
    EXPECT_EQ(sb.GetDeliveredTransmission(), 2u);
    EXPECT_EQ(sb.DetectLosses(), 0u);
    EXPECT_TRUE(sb.Sack(4));
    EXPECT_EQ(sb.GetDeliveredTransmission(), 6u);
    EXPECT_EQ(sb.DetectLosses(), 2u);
    EXPECT_EQ(sb.PopResend(), 2u);
    EXPECT_EQ(sb.PopResend(), 3u);
    EXPECT_FALSE(sb.HasResend());
}

// NakThreshold 3: a PSN is lost once 3 packets sent after it are received. PSN 0..5
// are sent (transmissions 1..6); PSN 0 is overtaken by 1 and 2 (SACKed transmissions
// 2 and 3, two after it): not lost. When 3 (transmission 4) is SACKed too: lost.
TEST(SackScoreboard, ReorderingWithinTheToleranceIsNotLoss)
{
    SackScoreboard sb;
    sb.Reset(0);
    sb.SetReorderTolerance(3);
    for (uint64_t psn = 0; psn < 6; ++psn)
    {
        sb.OnTransmit(psn);
    }
    EXPECT_EQ(sb.GetMax(), 6u);
    EXPECT_TRUE(sb.Sack(1));
    EXPECT_TRUE(sb.Sack(2));
    EXPECT_FALSE(sb.Sack(2)) << "known already";
    EXPECT_EQ(sb.DetectLosses(), 0u);
    EXPECT_TRUE(sb.Sack(3));
    EXPECT_EQ(sb.DetectLosses(), 1u);
    ASSERT_TRUE(sb.HasResend());
    EXPECT_EQ(sb.PopResend(), 0u);
    EXPECT_FALSE(sb.HasResend());
    // The cumulative acknowledgement of 0..3 (PSN 0 arrived after all) changes nothing
    // queued; a resend queued for 4 (timeout) goes when it is acknowledged.
    EXPECT_TRUE(sb.Acknowledge(4));
    EXPECT_EQ(sb.MarkAllUnsackedLost(), 2u); // 4 and 5
    EXPECT_TRUE(sb.Acknowledge(5));
    ASSERT_TRUE(sb.HasResend());
    EXPECT_EQ(sb.PopResend(), 5u);
    EXPECT_FALSE(sb.HasResend());
}

TEST(DcqcnRateController, CutRecoveryAdditiveHyperAndCeiling)
{
    DcqcnConfig c;
    c.lineRateBps = 100e9;
    DcqcnRateController cc(c, Time(0));
    EXPECT_DOUBLE_EQ(cc.GetRate(), 100e9);
    EXPECT_FALSE(cc.IsLimited());
    cc.OnCnp(MicroSeconds(10)); // alpha = 1: RC halves
    EXPECT_DOUBLE_EQ(cc.GetRate(), 50e9);
    EXPECT_DOUBLE_EQ(cc.GetTargetRate(), 100e9);
    EXPECT_DOUBLE_EQ(cc.GetAlpha(MicroSeconds(10)), 1.0); // (1-g) 1 + g
    // alpha decays by (1-g) per alpha period without CNP.
    EXPECT_NEAR(cc.GetAlpha(MicroSeconds(10 + 55 * 10)), std::pow(1 - 1.0 / 256, 10), 1e-12);
    // Fast recovery: F = 5 timer events halve the distance to RT each time.
    for (int i = 0; i < 5; ++i)
    {
        cc.OnTimer();
    }
    EXPECT_NEAR(cc.GetRate(), 100e9 - 50e9 / 32, 1);
    EXPECT_DOUBLE_EQ(cc.GetTargetRate(), 100e9); // RT not raised in fast recovery, capped
    // Second cut with a smaller alpha, then additive increase raises RT by R_AI.
    cc.OnCnp(MicroSeconds(1000));
    double rt = cc.GetTargetRate();
    for (int i = 0; i < 6; ++i)
    {
        cc.OnTimer();
    }
    EXPECT_NEAR(cc.GetTargetRate(), rt + 40e6, 1); // one additive step (6th event)
    // Hyper increase needs both counters past F: drive the byte counter too.
    for (int i = 0; i < 3; ++i)
    {
        cc.OnBytesSent(c.byteCounter);
    }
    for (int i = 0; i < 1000; ++i)
    {
        cc.OnTimer();
        cc.OnBytesSent(c.byteCounter);
        ASSERT_LE(cc.GetRate(), 100e9);
        ASSERT_LE(cc.GetTargetRate(), 100e9);
    }
    EXPECT_DOUBLE_EQ(cc.GetRate(), 100e9); // back at line rate, never above
    EXPECT_FALSE(cc.IsLimited());
    EXPECT_EQ(cc.GetCuts(), 2u);
}

TEST(DcqcnRateController, DecreasePeriodAndTargetKeptUntilAnIncrease)
{
    // The vendor behaviours by hand: at most one cut per 4 us; RT = RC only at the
    // first cut after an increase.
    DcqcnConfig c;
    c.lineRateBps = 100e9;
    c.decreasePeriod = MicroSeconds(4);
    c.clampTargetRate = false;
    DcqcnRateController cc(c, Time(0));
    EXPECT_TRUE(cc.OnCnp(MicroSeconds(10))); // alpha 1: RC 50e9, RT stays 100e9
    EXPECT_DOUBLE_EQ(cc.GetRate(), 50e9);
    EXPECT_DOUBLE_EQ(cc.GetTargetRate(), 100e9);
    EXPECT_FALSE(cc.OnCnp(MicroSeconds(12))); // 2 us later: alpha only
    EXPECT_DOUBLE_EQ(cc.GetRate(), 50e9);
    EXPECT_EQ(cc.GetCuts(), 1u);
    // 4 us after the first cut: alpha = 1 still (each CNP: (1-g) 1 + g), RC halves,
    // RT is not clamped (no increase since the last cut).
    EXPECT_TRUE(cc.OnCnp(MicroSeconds(14)));
    EXPECT_DOUBLE_EQ(cc.GetRate(), 25e9);
    EXPECT_DOUBLE_EQ(cc.GetTargetRate(), 100e9);
    cc.OnTimer(); // fast recovery: RC = (100 + 25) / 2 = 62.5e9
    EXPECT_DOUBLE_EQ(cc.GetRate(), 62.5e9);
    // A cut after that increase clamps RT to RC.
    EXPECT_TRUE(cc.OnCnp(MicroSeconds(30)));
    EXPECT_DOUBLE_EQ(cc.GetTargetRate(), 62.5e9);
    EXPECT_EQ(cc.GetCuts(), 3u);
}

TEST(DcqcnRateController, AlphaClockStartsAtCreation)
{
    // Paper (Zhu et al. 2015): alpha starts at 1, so the first cut is alpha/2 = 50%,
    // however late the QP was created.
    DcqcnConfig c;
    c.lineRateBps = 100e9;
    DcqcnRateController cc(c, MilliSeconds(2));
    EXPECT_DOUBLE_EQ(cc.GetAlpha(MilliSeconds(2) + MicroSeconds(54)), 1.0); // < one period
    // Ten whole periods after creation: (1-g)^10, counted from 2 ms, not from 0.
    EXPECT_NEAR(cc.GetAlpha(MilliSeconds(2) + MicroSeconds(55 * 10)),
                std::pow(1 - 1.0 / 256, 10),
                1e-12);
    cc.OnCnp(MilliSeconds(2) + MicroSeconds(10));
    EXPECT_DOUBLE_EQ(cc.GetRate(), 50e9);
}

TEST(DcqcnRateController, QpCreatedLateCutsByHalfOnItsFirstCnp)
{
    // The transport passes the QP's creation time: a QP created at 2 ms would have
    // alpha (1-1/256)^2001 = 0.0004 and a cut of 0.02% if its alpha clock (1 us
    // periods) started at 0.
    NodeContainer hosts;
    hosts.Create(2);
    RocePointToPointHelper wire;
    wire.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
    NetDeviceContainer nics = wire.Install(hosts);
    RdmaHelper rdma;
    rdma.SetTransportAttribute("CongestionControl", StringValue("ns3::DcqcnCongestionControl"));
    rdma.Install(nics);
    Ptr<RdmaTransport> tx = rdma.GetTransport(0);
    Simulator::Schedule(MilliSeconds(2),
                        [&]() { rdma.Post(0, 1, 1000000, 0, RdmaCompletionCallback()); });
    double rateBefore = 0;
    double rateAfter = 0;
    Simulator::Schedule(MilliSeconds(2) + MicroSeconds(1), [&]() {
        rateBefore = tx->GetQpRate(0);
        InjectRoce(tx, BthHeader::CNP, 0, Create<Packet>(CnpHeader::SIZE + IcrcTrailer::SIZE));
        rateAfter = tx->GetQpRate(0);
    });
    Simulator::Stop(MilliSeconds(3));
    Simulator::Run();
    EXPECT_EQ(tx->GetStats().cnpsReceived, 1u);
    EXPECT_DOUBLE_EQ(rateBefore, 100e9);
    // RC (1 - alpha/2) with alpha = 1 decayed over the one 1 us alpha period since the
    // QP's creation: 100e9 x (1 - (255/256) / 2).
    EXPECT_DOUBLE_EQ(rateAfter, 100e9 * (1 - (255.0 / 256) / 2));
    Simulator::Destroy();
}

TEST(RdmaTransport, ShortAndMalformedFramesAreCountedNeverParsed)
{
    NodeContainer hosts;
    hosts.Create(2);
    RocePointToPointHelper wire;
    NetDeviceContainer nics = wire.Install(hosts);
    RdmaHelper rdma;
    rdma.SetTransportAttribute("CongestionControl", StringValue("ns3::DcqcnCongestionControl"));
    rdma.Install(nics);
    Ptr<RdmaTransport> tx = rdma.GetTransport(0);
    Ptr<RdmaTransport> rx = rdma.GetTransport(1);
    uint64_t traced = 0;
    auto count = [&traced](Ptr<const Packet>) { ++traced; };
    tx->TraceConnectWithoutContext("MalformedDrop",
                                   MakeCallback(&decltype(count)::operator(), &count));
    rx->TraceConnectWithoutContext("MalformedDrop",
                                   MakeCallback(&decltype(count)::operator(), &count));
    uint64_t deviceTraced = 0;
    auto countDevice = [&deviceTraced](Ptr<const Packet>) { ++deviceTraced; };
    tx->GetDevice()->TraceConnectWithoutContext(
        "RxMalformed",
        MakeCallback(&decltype(countDevice)::operator(), &countDevice));
    rdma.Post(0, 1, 100000, 0, RdmaCompletionCallback());

    Simulator::Schedule(NanoSeconds(1), [&]() {
        // To the sender (QP 0 exists): an ACK whose 4 bytes are an ICRC and no AETH,
        // a CNP without its 16 reserved bytes, a frame shorter than a BTH, and an ACK
        // with an AETH and a SACK cut short.
        InjectRoce(tx, BthHeader::RC_ACKNOWLEDGE, 0, Create<Packet>(IcrcTrailer::SIZE));
        InjectRoce(tx, BthHeader::CNP, 0, Create<Packet>(IcrcTrailer::SIZE));
        InjectRoce(tx, BthHeader::RC_ACKNOWLEDGE, 0, Create<Packet>(0));
        InjectRoce(tx,
                   BthHeader::RC_ACKNOWLEDGE,
                   0,
                   Create<Packet>(AethHeader::SIZE + SackHeader::SIZE - 1 + IcrcTrailer::SIZE));
        // To the receiver: WRITE First cut inside its RETH, WRITE Middle with only an
        // ICRC (no payload), WRITE Last with more than the largest path MTU.
        InjectRoce(rx, BthHeader::RC_WRITE_FIRST, 0, Create<Packet>(10));
        InjectRoce(rx, BthHeader::RC_WRITE_MIDDLE, 0, Create<Packet>(IcrcTrailer::SIZE));
        InjectRoce(rx, BthHeader::RC_WRITE_LAST, 0, Create<Packet>(4096 + IcrcTrailer::SIZE + 1));
        // Fewer bytes than an IPv4 header, and an IPv4 header that claims more bytes
        // than the frame holds.
        Ptr<Packet> tiny = Create<Packet>(10);
        EthernetHeader eth(false);
        eth.SetLengthType(RoceNetDevice::IPV4_PROTOCOL);
        tiny->AddHeader(eth);
        rx->GetDevice()->Receive(tiny);
        Ptr<Packet> truncated = Create<Packet>(8);
        Ipv4Header ip;
        ip.SetProtocol(17);
        ip.SetPayloadSize(100);
        truncated->AddHeader(ip);
        truncated->AddHeader(eth);
        rx->GetDevice()->Receive(truncated);
        // At the device: shorter than Ethernet, and a PFC frame cut short.
        tx->GetDevice()->Receive(Create<Packet>(10));
        Ptr<Packet> pfc = Create<Packet>(10);
        EthernetHeader pfcEth(false);
        pfcEth.SetLengthType(PfcHeader::ETHERTYPE);
        pfc->AddHeader(pfcEth);
        tx->GetDevice()->Receive(pfc);
    });
    Simulator::Run();
    EXPECT_EQ(tx->GetStats().malformedDropped, 4u);
    EXPECT_EQ(rx->GetStats().malformedDropped, 5u);
    EXPECT_EQ(traced, 9u);
    EXPECT_EQ(tx->GetDevice()->GetCounters().rxMalformed, 2u);
    EXPECT_EQ(deviceTraced, 2u);
    EXPECT_EQ(tx->GetDevice()->GetCounters().pfcReceived, 0u);
    // None was taken for what it claimed: no CNP, no extra ACK, no NAK; the real
    // message still arrives whole.
    EXPECT_EQ(tx->GetStats().cnpsReceived, 0u);
    EXPECT_EQ(tx->GetStats().acksReceived, rx->GetStats().acksSent);
    EXPECT_EQ(rx->GetStats().naksSent, 0u);
    EXPECT_EQ(rx->GetStats().bytesDelivered, 100000u);
    EXPECT_EQ(rx->GetStats().messagesReceived, 1u);
    EXPECT_EQ(tx->GetStats().messagesSent, 1u);
    Simulator::Destroy();
}

TEST(RdmaDisposeDeathTest, DisposingMidRunCancelsEveryPendingEvent)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    // In a child process: a crash (a disposed device finishing its frame) fails the
    // test without stopping the others.
    EXPECT_EXIT(
        {
            NodeContainer hosts;
            hosts.Create(2);
            RocePointToPointHelper wire;
            wire.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
            wire.SetChannelAttribute("Delay", TimeValue(NanoSeconds(500)));
            NetDeviceContainer nics = wire.Install(hosts);
            RdmaHelper rdma;
            rdma.SetTransportAttribute("CongestionControl",
                                       StringValue("ns3::DcqcnCongestionControl"));
            rdma.Install(nics);
            Ptr<RdmaTransport> tx = rdma.GetTransport(0);
            rdma.Post(0, 1, 1000000, 0, RdmaCompletionCallback()); // 80 us at 100G
            rdma.Post(1, 0, 1000000, 0, RdmaCompletionCallback());
            const Time disposeAt = MicroSeconds(5);
            Simulator::Schedule(MicroSeconds(4), [&]() {
                // Pending now: frames on both wires, retransmission timers, a DCQCN
                // rate-increase timer, a pause expiry of a priority that is not in use.
                InjectRoce(tx,
                           BthHeader::CNP,
                           0,
                           Create<Packet>(CnpHeader::SIZE + IcrcTrailer::SIZE));
                DynamicCast<RoceNetDevice>(nics.Get(1))->SendPfc(1, 0xFFFF);
            });
            Simulator::Schedule(disposeAt, [&]() {
                hosts.Get(0)->Dispose(); // the NIC and the transport aggregated to it
                hosts.Get(1)->Dispose();
            });
            Simulator::Run();
            // With everything cancelled nothing runs after the disposal but the frames
            // still on the wire: one delay plus one frame time (4178 B at 100G, 0.33 us).
            // An uncancelled timer would run at 55 us (DCQCN), 1 ms (retransmission) or
            // 335 us (pause of 0xFFFF quanta).
            bool quiet = Simulator::Now() <= disposeAt + NanoSeconds(500 + 335);
            Simulator::Destroy();
            std::exit(quiet ? 0 : 1);
        },
        ::testing::ExitedWithCode(0),
        "");
}

TEST(DcqcnRateController, MinRateFloor)
{
    DcqcnConfig c;
    c.lineRateBps = 10e9;
    c.minRateBps = 4e9;
    DcqcnRateController cc(c, Time(0));
    for (int i = 0; i < 10; ++i)
    {
        cc.OnCnp(MicroSeconds(i));
    }
    EXPECT_DOUBLE_EQ(cc.GetRate(), 4e9);
}

TEST(RoceNetDevice, FrameTimeCountsFcsPreambleAndMinimumFrame)
{
    Ptr<RoceNetDevice> dev = CreateObject<RoceNetDevice>();
    dev->SetDataRate(DataRate("100Gbps"));
    // 4096 B payload: 4096 + 58 B in the packet, + 24 B on the wire = 4178 B.
    EXPECT_EQ(dev->GetFrameTxTime(4096 + 58), DataRate("100Gbps").CalculateBytesTxTime(4178));
    // Short frames are padded to 60 B + 24.
    EXPECT_EQ(dev->GetFrameTxTime(20), DataRate("100Gbps").CalculateBytesTxTime(84));
    EXPECT_EQ(RoceNetDevice::PriorityFromDscp(26), 3);
    EXPECT_EQ(RoceNetDevice::PriorityFromDscp(48), 6);
    dev->Dispose();
}

TEST(RdmaCongestionControl, ChosenByTypeIdWithItsAttributes)
{
    for (const std::string type : {"ns3::RdmaCongestionControl", "ns3::DcqcnCongestionControl"})
    {
        NodeContainer hosts;
        hosts.Create(2);
        RocePointToPointHelper wire;
        wire.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        NetDeviceContainer nics = wire.Install(hosts);
        RdmaHelper rdma;
        rdma.SetTransportAttribute("CongestionControl", StringValue(type));
        if (type == "ns3::DcqcnCongestionControl")
        {
            rdma.SetCongestionControlAttribute("MinRate", DataRateValue(DataRate("2Gbps")));
        }
        rdma.Install(nics);
        rdma.Post(0, 1, 100000, 0, RdmaCompletionCallback());
        Ptr<RdmaTransport> tx = rdma.GetTransport(0);
        const uint32_t qpn = tx->FindQueuePair(1);
        ASSERT_NE(qpn, UINT32_MAX);
        Ptr<RdmaCongestionControl> cc = tx->GetQpCongestionControl(qpn);
        EXPECT_EQ(cc->GetInstanceTypeId().GetName(), type);
        EXPECT_DOUBLE_EQ(cc->GetRate(), 100e9); // both start at the line rate
        EXPECT_EQ(cc->UsesCnp(), type == "ns3::DcqcnCongestionControl");
        if (type == "ns3::DcqcnCongestionControl")
        {
            DataRateValue minRate;
            cc->GetAttribute("MinRate", minRate);
            EXPECT_EQ(minRate.Get(), DataRate("2Gbps"));
        }
        Simulator::Run();
        Simulator::Destroy();
    }
}

TEST(RdmaCongestionControlDeathTest, BadChoicesAreRefusedByName)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            MakePair(4096, [](RdmaHelper& rdma) {
                rdma.SetTransportAttribute("CongestionControl", StringValue("ns3::Node"));
            });
            Simulator::Run();
        },
        "CongestionControl ns3::Node is not an RdmaCongestionControl");
    EXPECT_DEATH(MakePair(4096,
                          [](RdmaHelper& rdma) {
                              rdma.SetCongestionControlAttribute("MinRate",
                                                                 DataRateValue(DataRate("1Gbps")));
                          }),
                 "the congestion control ns3::RdmaCongestionControl has no attribute MinRate");
    for (const auto& [attribute, value, message] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"TargetDelay", "0s", "TargetDelay .* must be above 0"},
             {"MaxDecrease", "1", "MaxDecrease 1 must be in \\(0, 1\\)"},
             {"MinRate", "1000Gbps", "MinRate 1000000000000bps must be in \\(0, line rate\\]"},
         })
    {
        EXPECT_DEATH(
            {
                MakePair(4096, [&](RdmaHelper& rdma) {
                    rdma.SetTransportAttribute("CongestionControl",
                                               StringValue("ns3::SwiftCongestionControl"));
                    rdma.SetCongestionControlAttribute(attribute, StringValue(value));
                });
                Simulator::Run();
            },
            "SwiftCongestionControl: " + message);
    }
    TypeId tid;
    EXPECT_TRUE(RdmaHelper::LookupCongestionControl("Dcqcn", &tid));
    EXPECT_EQ(tid.GetName(), "ns3::DcqcnCongestionControl");
    EXPECT_TRUE(RdmaHelper::LookupCongestionControl("None", &tid));
    EXPECT_EQ(tid.GetName(), "ns3::RdmaCongestionControl");
    EXPECT_FALSE(RdmaHelper::LookupCongestionControl("Reno", &tid));
    EXPECT_FALSE(RdmaHelper::LookupCongestionControl("ns3::Node", &tid));
}

TEST(RdmaTransport, EntropyValuesSpreadAMessageOverQueuePairs)
{
    // EntropyValues 4: a 10-packet message (40,960 B at the 4096 B Mtu) goes as 4
    // parts of 2, 3, 2 and 3 packets (boundaries 10 k / 4 rounded down: 0, 2, 5, 7, 10) on
    // 4 queue pairs with 4 UDP source ports; sender and receiver each complete it
    // once, with its whole size. A 1-packet message needs one part only.
    NodeContainer hosts;
    hosts.Create(2);
    RocePointToPointHelper wire;
    NetDeviceContainer nics = wire.Install(hosts);
    RdmaHelper rdma;
    rdma.SetTransportAttribute("EntropyValues", UintegerValue(4));
    rdma.Install(nics);
    std::vector<RdmaCompletion> sent;
    std::vector<RdmaCompletion> received;
    auto onSent = [&sent](const RdmaCompletion& c) { sent.push_back(c); };
    auto onReceived = [&received](const RdmaCompletion& c) { received.push_back(c); };
    rdma.Post(0,
              1,
              10 * 4096,
              7,
              MakeCallback(&decltype(onSent)::operator(), &onSent),
              MakeCallback(&decltype(onReceived)::operator(), &onReceived));
    rdma.Post(0, 1, 100, 8, MakeCallback(&decltype(onSent)::operator(), &onSent));
    Simulator::Run();
    Ptr<RdmaTransport> tx = rdma.GetTransport(0);
    ASSERT_EQ(tx->GetNQueuePairs(), 4u);
    std::set<uint16_t> ports;
    for (uint32_t q = 0; q < 4; ++q)
    {
        ports.insert(tx->GetQueuePair(q).udpSourcePort);
    }
    EXPECT_EQ(ports.size(), 4u);
    // Queue pair 0 carried 2 packets and the 1-packet message, queue pair 2 two.
    EXPECT_EQ(tx->GetQueuePair(0).GetSndUna() - tx->GetQueuePair(2).GetSndUna(), 1u);
    EXPECT_EQ(tx->GetQueuePair(1).GetSndUna() - tx->GetQueuePair(2).GetSndUna(), 1u);
    ASSERT_EQ(sent.size(), 2u);
    // The 1-packet message, behind 2 packets on queue pair 0, completes first.
    std::sort(sent.begin(), sent.end(), [](const RdmaCompletion& a, const RdmaCompletion& b) {
        return a.tag < b.tag;
    });
    EXPECT_EQ(sent[0].size, 10u * 4096);
    EXPECT_EQ(sent[0].tag, 7u);
    EXPECT_EQ(sent[0].parts, 4u);
    EXPECT_EQ(sent[1].size, 100u);
    EXPECT_EQ(sent[1].parts, 1u);
    ASSERT_EQ(received.size(), 1u);
    EXPECT_EQ(received[0].size, 10u * 4096);
    EXPECT_EQ(rdma.GetTransport(1)->GetStats().messagesReceived, 2u);
    EXPECT_EQ(rdma.GetTransport(1)->GetStats().bytesDelivered, 10u * 4096 + 100);
    EXPECT_EQ(tx->GetStats().messagesSent, 2u);
    EXPECT_EQ(tx->GetStats().messagesPosted, 2u);
    Simulator::Destroy();
}

TEST(RdmaDeathTest, BadInputIsRefusedByName)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(MakePair(5000), "Mtu 5000 is outside 256..4096");
    EXPECT_DEATH(MakePair(255), "Mtu 255 is outside 256..4096");
    EXPECT_DEATH(
        {
            auto rdma = MakePair();
            rdma.Post(0, 1, 0, 0, RdmaCompletionCallback());
        },
        "message size 0 .* not allowed");
    EXPECT_DEATH(
        {
            auto rdma = MakePair();
            rdma.Post(0, 7, 100, 0, RdmaCompletionCallback());
        },
        "destination rank 7 is unknown \\(ranks 0..1\\)");
    EXPECT_DEATH(
        {
            auto rdma = MakePair();
            rdma.Post(1, 1, 100, 0, RdmaCompletionCallback());
        },
        "destination rank 1 is the sending rank");
    EXPECT_DEATH(MakePair().GetTransport(2), "rank 2 is unknown");
    // At the wire's default 400 Gb/s a full frame (4,194 B on the wire) takes 83.88
    // ns (84 at ns resolution); two host links take 168 ns, more than a
    // RetransmitTimeout of 100 ns.
    EXPECT_DEATH(
        {
            auto rdma = MakePair(4096, [](RdmaHelper& helper) {
                helper.SetTransportAttribute("RetransmitTimeout", TimeValue(NanoSeconds(100)));
            });
            rdma.Post(0, 1, 100, 0, RdmaCompletionCallback());
        },
        "RdmaTransport: a full RDMA frame \\(4194 B on the wire\\) takes \\+0.168us over "
        "the sender's and the receiver's host links at 400Gbps, not below the "
        "transport's RetransmitTimeout \\+0.1us: every packet would time out");
    EXPECT_DEATH(
        {
            auto rdma = MakePair();
            rdma.GetTransport(0)->SetAttribute("EntropyValues", UintegerValue(0));
            rdma.Post(0, 1, 100, 0, RdmaCompletionCallback());
        },
        "EntropyValues 0 must be in 1..255");
    // Each loss recovery refuses its own bad attributes by name, before anything runs.
    const std::vector<std::pair<std::string, std::string>> badRecoveries{
        {"ns3::OutOfOrderPlacementRecovery[ReorderWindow=0]",
         "OutOfOrderPlacementRecovery: ReorderWindow 0 must be in 1..1048576"},
        {"ns3::OutOfOrderPlacementRecovery[ReorderWindow=1048577]",
         "OutOfOrderPlacementRecovery: ReorderWindow 1048577 must be in 1..1048576"},
        {"ns3::SelectiveRepeatRecovery[ReorderWindow=0]",
         "SelectiveRepeatRecovery: ReorderWindow 0 must be in 1..1048576"},
        {"ns3::SelectiveRepeatRecovery[NakThreshold=0]",
         "SelectiveRepeatRecovery: NakThreshold 0 must be in 1..ReorderWindow \\(256\\)"},
        {"ns3::SelectiveRepeatRecovery[ReorderWindow=8|NakThreshold=9]",
         "SelectiveRepeatRecovery: NakThreshold 9 must be in 1..ReorderWindow \\(8\\)"},
        {"ns3::DcqcnCongestionControl",
         "LossRecovery ns3::DcqcnCongestionControl is not an "
         "RdmaLossRecovery"},
    };
    for (const auto& [recovery, message] : badRecoveries)
    {
        EXPECT_DEATH(MakePair(4096,
                              [recovery = recovery](RdmaHelper& rdma) {
                                  rdma.SetTransportAttribute("LossRecovery", StringValue(recovery));
                              }),
                     message)
            << recovery;
    }
    EXPECT_DEATH(MakePair(4096,
                          [](RdmaHelper& rdma) {
                              rdma.SetTransportAttribute(
                                  "CongestionControl",
                                  StringValue("ns3::DcqcnCongestionControl"));
                              rdma.SetCongestionControlAttribute("ReferenceRate",
                                                                 DataRateValue(DataRate(0)));
                          }),
                 "ReferenceRate 0bps must be above 0");
}

TEST(RoceDeathTest, BadDeviceAndRateConfigurationIsRefused)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(CreateObject<RoceNetDevice>()->SetDataRate(DataRate(0)),
                 "DataRate 0bps must be > 0");
    // ns-3's DataRate parser refuses a negative rate and names it.
    EXPECT_DEATH(CreateObject<RoceNetDevice>()->SetDataRate(DataRate("-10Gbps")),
                 "Could not parse rate: -10Gbps");
    EXPECT_DEATH(CreateObject<RoceNetDevice>()->SetMtu(10000), "Mtu 10000 is outside 68..9216");
    EXPECT_DEATH(CreateObject<RoceNetDevice>()->SendPfc(8, 1), "priority 8 is not in 0..7");
    EXPECT_DEATH(CreateObject<RoceChannel>()->SetDelay(NanoSeconds(-1)), "Delay .* is negative");
    EXPECT_DEATH(
        {
            DcqcnConfig c;
            c.minRateBps = 0;
            c.Validate();
        },
        "MinRate 0 bps must be in");
    EXPECT_DEATH(
        {
            NodeContainer hosts;
            hosts.Create(2);
            RocePointToPointHelper wire;
            wire.SetDeviceAttribute("Mtu", UintegerValue(1500));
            NetDeviceContainer nics = wire.Install(hosts);
            RdmaHelper rdma;
            rdma.Install(nics);
        },
        "Mtu 4096 needs an IPv4 MTU of 4156 but the RoceNetDevice Mtu is 1500");
    EXPECT_DEATH(
        {
            NodeContainer hosts;
            hosts.Create(2);
            RocePointToPointHelper wire;
            NetDeviceContainer nics = wire.Install(hosts);
            DynamicCast<RoceNetDevice>(nics.Get(1))->SetIpv4Address(Ipv4Address("10.0.0.1"));
            RdmaHelper rdma;
            rdma.Install(nics);
        },
        "ranks 0 and 1 share the Ipv4Address 10.0.0.1");
}
