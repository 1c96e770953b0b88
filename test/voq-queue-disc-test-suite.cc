/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The VOQ queue disc on its own: credit gating, counters, limits, PFC requests,
// and installation through TrafficControlHelper.

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/net-device-container.h"
#include "ns3/node.h"
#include "ns3/simple-net-device.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/uinteger.h"
#include "ns3/voq-queue-disc-item.h"
#include "ns3/voq-queue-disc.h"

using namespace ns3;

namespace
{
/// \return a packet of size bytes, looked up to a VOQ, ingress port and class
Ptr<QueueDiscItem>
Item(uint32_t size, uint32_t voq = 0, uint32_t port = 0, uint8_t tc = 0)
{
    return Create<VoqQueueDiscItem>(Create<Packet>(size), Address(), 0x0800, voq, port, tc);
}

/// \return the VOQ of a dequeued item
uint32_t
VoqOf(Ptr<QueueDiscItem> item)
{
    return StaticCast<VoqQueueDiscItem>(item)->GetVoq();
}
} // namespace

/// Dequeue only with credit; the balance goes negative by the packet and grants
/// bring it back: granted = dequeued + balance.
class VoqCreditTestCase : public TestCase
{
  public:
    VoqCreditTestCase()
        : TestCase("credit gating and counters")
    {
    }

  private:
    /// Enqueue, grant and dequeue and check granted = dequeued + balance.
    void DoRun() override
    {
        auto qd = CreateObject<VoqQueueDisc>();
        qd->SetLayout(4, 2, 2);
        qd->Initialize();
        for (int i = 0; i < 3; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(qd->Enqueue(Item(1000, 1, 0, 1)), true, "enqueued");
        }
        qd->Enqueue(Item(500, 2, 1, 0));
        NS_TEST_EXPECT_MSG_EQ(qd->GetNPackets(), 4, "queue-disc packet counter");
        NS_TEST_EXPECT_MSG_EQ(qd->GetNBytes(), 3500, "queue-disc byte counter");
        NS_TEST_EXPECT_MSG_EQ(qd->GetVoqBytes(1), 3000, "VOQ 1 bytes");
        NS_TEST_EXPECT_MSG_EQ(qd->Dequeue(), nullptr, "no credit, nothing leaves");
        qd->AddCredit(1, 1024);
        Ptr<QueueDiscItem> a = qd->Dequeue();
        NS_TEST_EXPECT_MSG_NE(a, nullptr, "credit lets one out");
        NS_TEST_EXPECT_MSG_EQ(VoqOf(a), 1, "from VOQ 1");
        NS_TEST_EXPECT_MSG_EQ(qd->GetVoqCredit(1), 24, "1024 - 1000");
        NS_TEST_EXPECT_MSG_NE(qd->Dequeue(), nullptr, "positive balance lets the next out");
        NS_TEST_EXPECT_MSG_EQ(qd->GetVoqCredit(1), -976, "balance goes negative");
        NS_TEST_EXPECT_MSG_EQ(qd->Dequeue(), nullptr, "negative balance stops");
        qd->AddCredit(1, 1024);
        NS_TEST_EXPECT_MSG_NE(qd->Dequeue(), nullptr, "back above zero");
        // granted = dequeued + balance
        NS_TEST_EXPECT_MSG_EQ(int64_t(qd->GetVoqGrantedBytes(1)),
                              int64_t(qd->GetVoqDequeuedBytes(1)) + qd->GetVoqCredit(1),
                              "conservation");
        NS_TEST_EXPECT_MSG_EQ(qd->GetNPackets(), 1, "VOQ 2 still holds its packet");
        NS_TEST_EXPECT_MSG_EQ(qd->GetStats().nTotalDequeuedPackets, 3, "queue-disc stats");
        qd->Dispose();

        auto whole = CreateObject<VoqQueueDisc>();
        whole->SetAttribute("WholePacketCredit", BooleanValue(true));
        whole->SetLayout(1, 1, 1);
        whole->Initialize();
        whole->Enqueue(Item(1000, 0, 0, 0));
        whole->AddCredit(0, 600);
        NS_TEST_EXPECT_MSG_EQ(whole->Dequeue(), nullptr, "600 B do not cover 1000 B");
        whole->AddCredit(0, 400);
        NS_TEST_EXPECT_MSG_NE(whole->Dequeue(), nullptr, "1000 B do");
        NS_TEST_EXPECT_MSG_EQ(whole->GetVoqCredit(0), 0, "never negative");
        whole->Dispose();
    }
};

/// Base of the test cases that record the PFC pause and resume requests of a disc.
class PfcRecordingTestCase : public TestCase
{
  public:
    /// \param name the test case's name
    explicit PfcRecordingTestCase(std::string name)
        : TestCase(name)
    {
    }

    /// The disc's PFC callback: remember the request.
    /// \param port ingress port \param tc traffic class \param pause pause (else resume)
    void Pfc(uint32_t port, uint8_t tc, bool pause)
    {
        m_events.push_back({port, tc, pause});
    }

  protected:
    /// One PFC request.
    struct Event
    {
        /// ingress port
        uint32_t port;
        /// traffic class
        uint8_t tc;
        /// pause (else resume)
        bool pause;
    };

    std::vector<Event> m_events; //!< requests in order
};

/// Tail drop mode counts and traces; PFC mode asks for a pause and a resume.
class VoqLimitTestCase : public PfcRecordingTestCase
{
  public:
    VoqLimitTestCase()
        : PfcRecordingTestCase("buffer limits: tail drop counted, PFC pause and resume")
    {
    }

  private:
    /// Fill a tail-drop and a PFC disc past VoqLimit and check drops and PFC requests.
    void DoRun() override
    {
        auto drop = CreateObject<VoqQueueDisc>();
        drop->SetAttribute("BufferFullAction", StringValue("TailDrop"));
        drop->SetAttribute("VoqLimit", UintegerValue(2500));
        drop->SetLayout(2, 1, 1);
        drop->Initialize();
        uint32_t accepted = 0;
        for (int i = 0; i < 5; ++i)
        {
            accepted += drop->Enqueue(Item(1000, 0, 0, 0));
        }
        NS_TEST_EXPECT_MSG_EQ(accepted, 2, "VoqLimit 2500 holds two 1000-B packets");
        NS_TEST_EXPECT_MSG_EQ(drop->GetDroppedPackets(), 3, "drops counted");
        NS_TEST_EXPECT_MSG_EQ(drop->GetStats().nTotalDroppedPackets, 3, "queue-disc stats agree");
        drop->Dispose();

        auto pfc = CreateObject<VoqQueueDisc>();
        pfc->SetAttribute("PfcXoff", UintegerValue(3000));
        pfc->SetAttribute("PfcHysteresis", UintegerValue(1000));
        pfc->SetLayout(2, 2, 2);
        pfc->Initialize();
        pfc->SetPfcCallback(MakeCallback(&PfcRecordingTestCase::Pfc, this));
        for (int i = 0; i < 4; ++i)
        {
            pfc->Enqueue(Item(1000, 1, 1, 1));
        }
        NS_TEST_EXPECT_MSG_EQ(m_events.size(), 1, "one pause");
        NS_TEST_EXPECT_MSG_EQ(m_events[0].port, 1, "for ingress port 1");
        NS_TEST_EXPECT_MSG_EQ(unsigned(m_events[0].tc), 1, "class 1");
        NS_TEST_EXPECT_MSG_EQ(m_events[0].pause, true, "pause");
        NS_TEST_EXPECT_MSG_EQ(pfc->GetDroppedPackets(), 0, "PFC mode does not drop");
        pfc->AddCredit(1, 10000);
        while (pfc->Dequeue())
        {
        }
        NS_TEST_EXPECT_MSG_EQ(m_events.size(), 2, "then a resume");
        NS_TEST_EXPECT_MSG_EQ(m_events.back().pause, false, "resume");
        pfc->Dispose();
    }
};

/// A port paused because the shared buffer was full resumes when the buffer
/// drains, even though none of its own packets leave; in PFC mode VoqLimit pauses
/// the sending port and class (and resumes it once that VOQ drains).
class VoqSharedResumeTestCase : public PfcRecordingTestCase
{
  public:
    VoqSharedResumeTestCase()
        : PfcRecordingTestCase("PFC: resume when the shared buffer or a full VOQ drains")
    {
    }

  private:
    /// Fill the shared buffer and one VOQ, drain them and check the pauses and resumes.
    void DoRun() override
    {
        // Shared pause threshold = BufferSize - 2 ports x PfcHeadroom
        // = 10000 - 2 x 1000 = 8000 B; resume below 8000 - PfcHysteresis (1000)
        // = 7000 B. Per-port Xoff far away.
        auto qd = CreateObject<VoqQueueDisc>();
        qd->SetAttribute("BufferSize", UintegerValue(10000));
        qd->SetAttribute("PfcHeadroom", UintegerValue(1000));
        qd->SetAttribute("PfcHysteresis", UintegerValue(1000));
        qd->SetAttribute("PfcXoff", UintegerValue(1000000));
        qd->SetLayout(2, 2, 1);
        qd->Initialize();
        qd->SetPfcCallback(MakeCallback(&PfcRecordingTestCase::Pfc, this));
        for (int i = 0; i < 7; ++i)
        {
            qd->Enqueue(Item(1000, 0, 0, 0)); // port 0: 7000 B, below 8000
        }
        NS_TEST_EXPECT_MSG_EQ(m_events.size(), 0, "7000 B: no pause");
        qd->Enqueue(Item(1000, 1, 1, 0)); // port 1's first packet: 8000 B, paused
        NS_TEST_ASSERT_MSG_EQ(m_events.size(), 1, "shared threshold reached: one pause");
        NS_TEST_EXPECT_MSG_EQ(m_events[0].port, 1, "the port that filled it");
        // Port 1's own packet leaves: 7000 B is not below 7000, still paused.
        qd->AddCredit(1, 1000);
        NS_TEST_EXPECT_MSG_NE(qd->Dequeue(), nullptr, "port 1's packet leaves");
        NS_TEST_EXPECT_MSG_EQ(qd->IsPaused(1, 0), true, "7000 B: still paused");
        // Now only port 0's packets leave; port 1 has nothing queued, yet it must
        // resume as soon as the shared buffer is below 7000 B (one packet out).
        qd->AddCredit(0, 1000);
        NS_TEST_EXPECT_MSG_NE(qd->Dequeue(), nullptr, "port 0's packet leaves");
        NS_TEST_EXPECT_MSG_EQ(qd->GetIngressBytes(1, 0), 0, "port 1 holds nothing");
        NS_TEST_EXPECT_MSG_EQ(qd->IsPaused(1, 0), false, "6000 B: port 1 resumed");
        NS_TEST_ASSERT_MSG_EQ(m_events.size(), 2, "a resume was sent");
        NS_TEST_EXPECT_MSG_EQ(m_events[1].port, 1, "to port 1");
        NS_TEST_EXPECT_MSG_EQ(m_events[1].pause, false, "resume");
        qd->Dispose();

        // VoqLimit in PFC mode: 2500 B. The third 1000-B packet takes VOQ 0 to
        // 3000 B >= 2500: port 0 pauses (no drop, the packet is kept); it resumes
        // once VOQ 0 is PfcHysteresis (500 B) below VoqLimit, i.e. below 2000 B.
        m_events.clear();
        auto lim = CreateObject<VoqQueueDisc>();
        lim->SetAttribute("VoqLimit", UintegerValue(2500));
        lim->SetAttribute("PfcHysteresis", UintegerValue(500));
        lim->SetLayout(2, 2, 1);
        lim->Initialize();
        lim->SetPfcCallback(MakeCallback(&PfcRecordingTestCase::Pfc, this));
        lim->Enqueue(Item(1000, 0, 0, 0));
        lim->Enqueue(Item(1000, 0, 0, 0));
        NS_TEST_EXPECT_MSG_EQ(m_events.size(), 0, "2000 B: no pause");
        NS_TEST_EXPECT_MSG_EQ(lim->Enqueue(Item(1000, 0, 0, 0)), true, "kept, not dropped");
        NS_TEST_ASSERT_MSG_EQ(m_events.size(), 1, "VoqLimit reached: pause");
        NS_TEST_EXPECT_MSG_EQ(m_events[0].port, 0, "port 0");
        NS_TEST_EXPECT_MSG_EQ(m_events[0].pause, true, "pause");
        NS_TEST_EXPECT_MSG_EQ(lim->GetDroppedPackets(), 0, "PFC mode does not drop");
        lim->AddCredit(0, 1000);
        lim->Dequeue(); // 2000 B: not below 2000
        NS_TEST_EXPECT_MSG_EQ(lim->IsPaused(0, 0), true, "2000 B: still paused");
        lim->AddCredit(0, 1000);
        lim->Dequeue(); // 1000 B
        NS_TEST_EXPECT_MSG_EQ(lim->IsPaused(0, 0), false, "1000 B: resumed");
        NS_TEST_EXPECT_MSG_EQ(m_events.size(), 2, "one resume");
        lim->Dispose();

        // The same, but the packets in VOQ 0 came from port 0 and port 1 paused
        // on VOQ 0 with a single packet: port 1 resumes when port 0's packets
        // drain VOQ 0, although none of port 1's own packets left.
        m_events.clear();
        auto mix = CreateObject<VoqQueueDisc>();
        mix->SetAttribute("VoqLimit", UintegerValue(2500));
        mix->SetAttribute("PfcHysteresis", UintegerValue(500));
        mix->SetLayout(2, 2, 1);
        mix->Initialize();
        mix->SetPfcCallback(MakeCallback(&PfcRecordingTestCase::Pfc, this));
        mix->Enqueue(Item(1000, 0, 0, 0));
        mix->Enqueue(Item(1000, 0, 0, 0));
        mix->Enqueue(Item(1000, 0, 1, 0)); // 3000 B in VOQ 0: port 1 pauses
        NS_TEST_ASSERT_MSG_EQ(m_events.size(), 1, "pause");
        NS_TEST_EXPECT_MSG_EQ(m_events[0].port, 1, "port 1");
        mix->AddCredit(0, 2000);
        mix->Dequeue(); // port 0's packets leave first (FIFO): 2000 B
        mix->Dequeue(); // 1000 B, port 1's packet still queued
        NS_TEST_EXPECT_MSG_EQ(mix->GetIngressBytes(1, 0), 1000, "port 1's packet still queued");
        NS_TEST_EXPECT_MSG_EQ(mix->IsPaused(1, 0), false, "VOQ drained: port 1 resumed");
        mix->Dispose();
    }
};

/// Installed by TrafficControlHelper on a device, ungated: an ordinary queue disc.
class VoqTrafficControlTestCase : public TestCase
{
  public:
    VoqTrafficControlTestCase()
        : TestCase("usable through TrafficControlHelper")
    {
    }

  private:
    /// Install the disc with TrafficControlHelper and pass packets through it.
    void DoRun() override
    {
        Ptr<Node> node = CreateObject<Node>();
        Ptr<SimpleNetDevice> dev = CreateObject<SimpleNetDevice>();
        node->AddDevice(dev);
        node->AggregateObject(CreateObject<TrafficControlLayer>());
        TrafficControlHelper tch;
        tch.SetRootQueueDisc("ns3::VoqQueueDisc",
                             "NumVoqs",
                             UintegerValue(8),
                             "CreditGated",
                             BooleanValue(false));
        QueueDiscContainer qdc = tch.Install(dev);
        Ptr<VoqQueueDisc> qd = DynamicCast<VoqQueueDisc>(qdc.Get(0));
        NS_TEST_ASSERT_MSG_NE(qd, nullptr, "a VoqQueueDisc was installed");
        qd->Initialize();
        NS_TEST_EXPECT_MSG_EQ(qd->Enqueue(Item(100)), true, "classified to VOQ 0");
        NS_TEST_EXPECT_MSG_EQ(qd->GetNVoqs(), 8, "NumVoqs");
        NS_TEST_EXPECT_MSG_NE(qd->Dequeue(), nullptr, "ungated: leaves at once");
        Simulator::Destroy();
    }
};

/// VOQs get state only when used: a never-used VOQ reads as zeros, a dropped
/// packet leaves no state, and the totals are the sums over the used VOQs.
class VoqSparseTestCase : public TestCase
{
  public:
    VoqSparseTestCase()
        : TestCase("state only for used VOQs: idle ones read as zeros")
    {
    }

  private:
    /// Every per-VOQ getter reads zero for a VOQ. \param qd the disc \param voq the VOQ
    void CheckIdle(Ptr<VoqQueueDisc> qd, uint32_t voq)
    {
        NS_TEST_EXPECT_MSG_EQ(qd->GetVoqBytes(voq), 0, "VOQ " << voq << ": no bytes");
        NS_TEST_EXPECT_MSG_EQ(qd->GetVoqPackets(voq), 0, "VOQ " << voq << ": no packets");
        NS_TEST_EXPECT_MSG_EQ(qd->GetVoqCredit(voq), 0, "VOQ " << voq << ": no credit");
        NS_TEST_EXPECT_MSG_EQ(qd->GetVoqEnqueuedBytes(voq), 0, "VOQ " << voq << ": none enqueued");
        NS_TEST_EXPECT_MSG_EQ(qd->GetVoqDequeuedBytes(voq), 0, "VOQ " << voq << ": none dequeued");
        NS_TEST_EXPECT_MSG_EQ(qd->GetVoqGrantedBytes(voq), 0, "VOQ " << voq << ": none granted");
        NS_TEST_EXPECT_MSG_EQ(qd->GetVoqTag(voq),
                              VoqQueueDisc::NO_TAG,
                              "VOQ " << voq << ": no tag");
    }

    /// Use a few of 4096 x 8 VOQs and check the others read zero and the totals.
    void DoRun() override
    {
        // A 4096-host leaf's worth of VOQs: 4096 ports x 8 classes.
        const uint32_t voqs = 4096 * 8;
        auto qd = CreateObject<VoqQueueDisc>();
        qd->SetLayout(voqs, 2, 8);
        qd->Initialize();
        NS_TEST_EXPECT_MSG_EQ(qd->GetNVoqs(), voqs, "layout");
        NS_TEST_EXPECT_MSG_EQ(qd->GetAllocatedVoqs(), 0, "no VOQ has state before use");
        for (uint32_t voq : {0u, 12345u, voqs - 1})
        {
            CheckIdle(qd, voq);
        }
        qd->Enqueue(Item(1000, 7, 0, 7));
        qd->Enqueue(Item(600, 7, 1, 7));
        qd->Enqueue(Item(400, voqs - 2, 1, 6));
        qd->AddCredit(5000, 2048); // credit before any packet
        NS_TEST_EXPECT_MSG_EQ(qd->GetAllocatedVoqs(), 3, "three VOQs used");
        qd->AddCredit(7, 1000);
        NS_TEST_EXPECT_MSG_EQ(VoqOf(qd->Dequeue()), 7, "the VOQ with credit sends");
        NS_TEST_EXPECT_MSG_EQ(qd->GetAllocatedVoqs(), 3, "still three");
        for (uint32_t voq : {0u, 8u, 12345u, voqs - 1})
        {
            CheckIdle(qd, voq);
        }
        NS_TEST_EXPECT_MSG_EQ(qd->GetVoqCredit(5000), 2048, "credit kept by an empty VOQ");
        NS_TEST_EXPECT_MSG_EQ(qd->GetVoqEnqueuedBytes(7), 1600, "enqueued bytes");
        NS_TEST_EXPECT_MSG_EQ(qd->GetVoqDequeuedBytes(7), 1000, "dequeued bytes");
        // Totals are the sums over the VOQs.
        uint64_t bytes = 0;
        uint64_t packets = 0;
        uint64_t dequeued = 0;
        int64_t credit = 0;
        for (uint32_t v = 0; v < voqs; ++v)
        {
            bytes += qd->GetVoqBytes(v);
            packets += qd->GetVoqPackets(v);
            dequeued += qd->GetVoqDequeuedBytes(v);
            credit += qd->GetVoqCredit(v);
        }
        NS_TEST_EXPECT_MSG_EQ(qd->GetQueuedBytes(), bytes, "queued bytes total");
        NS_TEST_EXPECT_MSG_EQ(bytes, 1000, "600 + 400 B queued");
        NS_TEST_EXPECT_MSG_EQ(qd->GetQueuedPackets(), packets, "queued packets total");
        NS_TEST_EXPECT_MSG_EQ(packets, 2, "two packets queued");
        NS_TEST_EXPECT_MSG_EQ(qd->GetDequeuedBytes(), dequeued, "dequeued bytes total");
        NS_TEST_EXPECT_MSG_EQ(qd->GetCreditBalance(), credit, "credit balance total");
        NS_TEST_EXPECT_MSG_EQ(credit, 2048, "2048 + (1000 - 1000)");
        // A tag is kept with the VOQ's state (allocating it if need be).
        qd->SetVoqTag(7, 42);
        qd->SetVoqTag(9, 43);
        NS_TEST_EXPECT_MSG_EQ(qd->GetVoqTag(7), 42, "tag of a used VOQ");
        NS_TEST_EXPECT_MSG_EQ(qd->GetVoqTag(9), 43, "tag of a VOQ without packets");
        NS_TEST_EXPECT_MSG_EQ(qd->GetVoqBytes(9), 0, "a tag adds no bytes");
        NS_TEST_EXPECT_MSG_EQ(qd->GetAllocatedVoqs(), 4, "the tag allocated VOQ 9");
        qd->Dispose();

        // A packet the buffer refuses leaves no state behind.
        auto drop = CreateObject<VoqQueueDisc>();
        drop->SetAttribute("BufferFullAction", StringValue("TailDrop"));
        drop->SetAttribute("VoqLimit", UintegerValue(500));
        drop->SetLayout(voqs, 1, 8);
        drop->Initialize();
        NS_TEST_EXPECT_MSG_EQ(drop->Enqueue(Item(1000, 3, 0, 3)), false, "over VoqLimit");
        NS_TEST_EXPECT_MSG_EQ(drop->GetDroppedPackets(), 1, "counted");
        NS_TEST_EXPECT_MSG_EQ(drop->GetAllocatedVoqs(), 0, "no state for a dropped packet");
        CheckIdle(drop, 3);
        drop->Dispose();
    }
};

/// The ns-3 suite of the VOQ queue disc.
class VoqQueueDiscTestSuite : public TestSuite
{
  public:
    VoqQueueDiscTestSuite()
        : TestSuite("ai-fabric-voq-queue-disc", TestSuite::Type::UNIT)
    {
        AddTestCase(new VoqCreditTestCase());
        AddTestCase(new VoqLimitTestCase());
        AddTestCase(new VoqSharedResumeTestCase());
        AddTestCase(new VoqTrafficControlTestCase());
        AddTestCase(new VoqSparseTestCase());
    }
};

/// Static instance.
static VoqQueueDiscTestSuite g_voqQueueDiscTestSuite;
