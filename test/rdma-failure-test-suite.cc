/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-rdma-failure: a queue pair that fails gives up its messages and says so
// (the transport's MessageFailed, Stats and onFailed callbacks), a run in which
// nothing can progress any more ends (RdmaHelper::StopWhenStalled), and a failure
// reaches the communicator and the application waiting for the message.

#include "collective-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/test.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Completions and failures, in the order they happen.
struct MessageLog
{
    std::vector<RdmaCompletion> sent;     //!< sender completions
    std::vector<RdmaCompletion> received; //!< receiver completions
    std::vector<RdmaCompletion> failed;   //!< messages given up (onFailed)
    std::vector<RdmaCompletion> traced;   //!< MessageFailed trace

    void OnSent(const RdmaCompletion& c)
    {
        sent.push_back(c);
    }

    void OnReceived(const RdmaCompletion& c)
    {
        received.push_back(c);
    }

    void OnFailed(const RdmaCompletion& c)
    {
        failed.push_back(c);
    }

    void OnTraced(const RdmaCompletion& c)
    {
        traced.push_back(c);
    }
};

/// Two hosts on one wire, host 1's NIC losing every frame it receives.
struct DeadPair
{
    NodeContainer hosts;
    NetDeviceContainer nics;
    RdmaHelper rdma;
    MessageLog log;

    /**
     * \param configure sets transport attributes before Install
     * \param lossy whether host 1's NIC loses every frame
     */
    explicit DeadPair(const std::function<void(RdmaHelper&)>& configure = {}, bool lossy = true)
    {
        hosts.Create(2);
        RocePointToPointHelper wire;
        wire.SetDeviceAttribute("DataRate", DataRateValue(DataRate("25Gbps")));
        wire.SetChannelAttribute("Delay", TimeValue(MicroSeconds(2)));
        nics = wire.Install(hosts);
        rdma.SetTransportAttribute("RetransmitTimeout", TimeValue(MicroSeconds(30)));
        rdma.SetTransportAttribute("RetryLimit", UintegerValue(3));
        if (configure)
        {
            configure(rdma);
        }
        rdma.Install(nics);
        if (lossy)
        {
            auto all = CreateObject<RateErrorModel>();
            all->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            all->SetRate(1.0);
            DynamicCast<RoceNetDevice>(nics.Get(1))->SetReceiveErrorModel(all);
        }
        rdma.GetTransport(0)->TraceConnectWithoutContext("MessageFailed",
                                                         MakeCallback(&MessageLog::OnTraced, &log));
    }

    /// Post from host 0 to host 1. \param size bytes \param tag tag \param connection QP
    void Post(uint64_t size, uint64_t tag, uint32_t connection = 0)
    {
        rdma.Post(0,
                  1,
                  size,
                  tag,
                  MakeCallback(&MessageLog::OnSent, &log),
                  MakeCallback(&MessageLog::OnReceived, &log),
                  connection,
                  MakeCallback(&MessageLog::OnFailed, &log));
    }

    ~DeadPair()
    {
        Simulator::Destroy();
    }
};

/// A no-op that schedules itself again for ever, as a sampler does.
/// \param period its period
void
Tick(Time period)
{
    Simulator::Schedule(period, &Tick, period);
}

} // namespace

/**
 * Every message a failed queue pair held is given up once, in posting order, with
 * neither completion, at the failure; one posted on the failed queue pair later is
 * given up at once; another queue pair's messages fail with their own queue pair.
 */
class RdmaQpFailureTestCase : public TestCase
{
  public:
    RdmaQpFailureTestCase()
        : TestCase("failed queue pair: every message given up once, in order, and reported")
    {
    }

  private:
    /// Post five messages on two queue pairs that fail; check each is given up once.
    void DoRun() override
    {
        DeadPair f;
        f.Post(9000, 11);
        f.Post(4096, 12);
        f.Post(1, 13);
        f.Post(7000, 14, 1); // its own queue pair
        const Time late = MilliSeconds(2);
        Simulator::Schedule(late, &DeadPair::Post, &f, 2500, 15, 0);
        uint32_t errors = 0;
        f.rdma.GetTransport(0)->TraceConnectWithoutContext(
            "QpError",
            MakeBoundCallback(
                +[](uint32_t* n, uint32_t, uint32_t) { ++*n; },
                &errors));
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(f.log.failed.size(), 5, "every message given up once");
        NS_TEST_EXPECT_MSG_EQ(f.log.sent.size(), 0, "none completed at the sender");
        NS_TEST_EXPECT_MSG_EQ(f.log.received.size(), 0, "none completed at the receiver");
        NS_TEST_EXPECT_MSG_EQ(f.log.traced.size(), 5, "MessageFailed fired for each");
        NS_TEST_EXPECT_MSG_EQ(errors, 2, "both queue pairs failed");
        std::vector<uint64_t> connection0;
        for (const RdmaCompletion& c : f.log.failed)
        {
            if (c.connection == 0)
            {
                connection0.push_back(c.tag);
            }
            NS_TEST_EXPECT_MSG_EQ(c.srcRank, 0, "reported at the sender");
            NS_TEST_EXPECT_MSG_EQ(c.dstRank, 1, "its destination");
        }
        NS_TEST_EXPECT_MSG_EQ((connection0 == std::vector<uint64_t>{11, 12, 13, 15}),
                              true,
                              "one connection's messages given up in posting order");
        const RdmaCompletion& later = f.log.failed.back();
        NS_TEST_EXPECT_MSG_EQ(later.tag, 15, "the message posted after the failure is last");
        NS_TEST_EXPECT_MSG_EQ(later.postTime, late, "posted at 2 ms");
        NS_TEST_EXPECT_MSG_EQ(later.doneTime, late, "given up at once");
        NS_TEST_EXPECT_MSG_EQ(later.size, 2500, "its size");
        // RetryLimit 3: the 4th timeout of 30 us fails each queue pair, within 200 us.
        for (std::size_t i = 0; i + 1 < f.log.failed.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_LT(f.log.failed[i].doneTime,
                                  MicroSeconds(200),
                                  "given up when its queue pair failed");
        }
        const RdmaTransport::Stats s = f.rdma.GetTransport(0)->GetStats();
        NS_TEST_EXPECT_MSG_EQ(s.messagesFailed, 5, "counted");
        NS_TEST_EXPECT_MSG_EQ(s.bytesFailed, 9000 + 4096 + 1 + 7000 + 2500, "their bytes");
        NS_TEST_EXPECT_MSG_EQ(s.qpFailures, 2, "two queue pairs failed");
        NS_TEST_EXPECT_MSG_EQ(s.messagesSent, 0, "none acknowledged");
        NS_TEST_EXPECT_MSG_EQ(f.rdma.GetTotals().messagesFailed, 5, "RdmaHelper::GetTotals");
        NS_TEST_EXPECT_MSG_EQ(Simulator::Now(), late, "nothing runs after the last post");
        NS_TEST_EXPECT_MSG_NE(RdmaHelper::DescribeFailures(s).find("5 messages (22597 B)"),
                              std::string::npos,
                              "the failures in words: " << RdmaHelper::DescribeFailures(s));
    }
};

/**
 * A message spread over several queue pairs (EntropyValues) is given up once when
 * one of them fails, in equal parts and in chunks.
 */
class RdmaSplitFailureTestCase : public TestCase
{
  public:
    /// \param chunk EntropyChunkPackets (0: equal parts)
    explicit RdmaSplitFailureTestCase(uint32_t chunk)
        : TestCase("failed queue pairs: a message over 3 of them given up once (chunks of " +
                   std::to_string(chunk) + " packets)"),
          m_chunk(chunk)
    {
    }

  private:
    /// Post two messages spread over three failing queue pairs; check each is given up once.
    void DoRun() override
    {
        DeadPair f([this](RdmaHelper& rdma) {
            rdma.SetTransportAttribute("EntropyValues", UintegerValue(3));
            rdma.SetTransportAttribute("EntropyChunkPackets", UintegerValue(m_chunk));
        });
        const uint64_t size = 11 * 4096 + 100; // 12 packets
        f.Post(size, 21);
        f.Post(3 * 4096, 22);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(f.log.failed.size(), 2, "each message given up once");
        NS_TEST_EXPECT_MSG_EQ(f.log.failed[0].tag, 21, "the first");
        NS_TEST_EXPECT_MSG_EQ(f.log.failed[0].size, size, "its whole size");
        NS_TEST_EXPECT_MSG_EQ(f.log.failed[1].tag, 22, "the second");
        NS_TEST_EXPECT_MSG_EQ(f.log.traced.size(), 2, "MessageFailed once each");
        const RdmaTransport::Stats s = f.rdma.GetTransport(0)->GetStats();
        NS_TEST_EXPECT_MSG_EQ(s.messagesFailed, 2, "counted once each");
        NS_TEST_EXPECT_MSG_EQ(s.bytesFailed, size + 3 * 4096, "their bytes");
        NS_TEST_EXPECT_MSG_EQ(s.qpFailures, 3, "the three queue pairs failed");
        NS_TEST_EXPECT_MSG_EQ(f.log.sent.size() + f.log.received.size(), 0, "no completion");
    }

    uint32_t m_chunk; //!< EntropyChunkPackets
};

/**
 * The run that never ended: an event that reschedules itself for ever (a sampler
 * waiting for messages that cannot come) no longer keeps a run whose queue pairs
 * have all failed going; a run without failures is not cut short.
 */
class RdmaStopWhenStalledTestCase : public TestCase
{
  public:
    /// \param lossy whether every frame to host 1 is lost
    explicit RdmaStopWhenStalledTestCase(bool lossy)
        : TestCase(std::string("StopWhenStalled: ") +
                   (lossy ? "every queue pair failed, the run ends"
                          : "no failure, the run is not cut short")),
          m_lossy(lossy)
    {
    }

  private:
    /// Post two messages beside a never-ending ticker; check when the run ends.
    void DoRun() override
    {
        DeadPair f({}, m_lossy);
        f.Post(50000, 31);
        f.Post(20000, 32, 2);
        f.rdma.StopWhenStalled();
        Simulator::Schedule(MicroSeconds(5), &Tick, MicroSeconds(5));
        // A guard: without StopWhenStalled a lossy run would reach it.
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();
        if (m_lossy)
        {
            NS_TEST_EXPECT_MSG_EQ(f.log.failed.size(), 2, "both given up");
            NS_TEST_EXPECT_MSG_LT(Simulator::Now(),
                                  MicroSeconds(300),
                                  "the run ended when the last message was given up");
            NS_TEST_EXPECT_MSG_EQ(Simulator::Now(),
                                  std::max(f.log.failed[0].doneTime, f.log.failed[1].doneTime),
                                  "at that moment");
        }
        else
        {
            NS_TEST_EXPECT_MSG_EQ(f.log.received.size(), 2, "both delivered");
            NS_TEST_EXPECT_MSG_EQ(f.log.failed.size(), 0, "none given up");
            NS_TEST_EXPECT_MSG_EQ(Simulator::Now(), MilliSeconds(20), "ran to its limit");
        }
    }

    bool m_lossy; //!< every frame to host 1 lost
};

/**
 * A failure reaches the workload: the communicator whose message was given up fails
 * (Failed, once, with the reason), and the data-parallel application waiting for
 * the AllReduce stops with that reason instead of waiting for ever.
 */
class WorkloadFailureTestCase : public TestCase
{
  public:
    WorkloadFailureTestCase()
        : TestCase("a failed queue pair fails the communicator and stops the application")
    {
    }

  private:
    /// Run a data-parallel job on a fabric that loses every frame; check the failure reaches it.
    void DoRun() override
    {
        auto all = CreateObject<RateErrorModel>();
        all->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        all->SetRate(1.0);
        GpuCluster<EthernetClosHelper> f(OneGpuServers(), [all](EthernetClosHelper& fabric) {
            fabric.SetDeviceAttribute("ReceiveErrorModel", PointerValue(all));
        });
        TrainingApplicationHelper dp("ns3::DataParallelApplication");
        dp.SetAttribute("ForwardTime", StringValue("ns3::ConstantRandomVariable[Constant=0.0001]"));
        dp.SetAttribute("BackwardTime",
                        StringValue("ns3::ConstantRandomVariable[Constant=0.0002]"));
        dp.SetAttribute("GradientBytes", UintegerValue(1 << 20));
        dp.SetAttribute("BucketBytes", UintegerValue(1 << 19));
        dp.SetAttribute("Iterations", UintegerValue(3));
        Ptr<Communicator> comm = f.FirstGpus(6);
        std::vector<std::string> communicatorFailures;
        comm->TraceConnectWithoutContext(
            "Failed",
            MakeBoundCallback(
                +[](std::vector<std::string>* out, const std::string& reason) {
                    out->push_back(reason);
                },
                &communicatorFailures));
        ApplicationContainer apps = dp.Install(comm, f.collectives);
        Ptr<TrainingApplication> app = DynamicCast<TrainingApplication>(apps.Get(0));
        uint32_t applicationFailures = 0;
        app->TraceConnectWithoutContext(
            "Failed",
            MakeBoundCallback(
                +[](uint32_t* n, uint32_t, const std::string&) { ++*n; },
                &applicationFailures));
        Simulator::Run();

        NS_TEST_EXPECT_MSG_EQ(communicatorFailures.size(), 1, "the communicator failed once");
        NS_TEST_EXPECT_MSG_EQ(comm->HasFailed(), true, "and says so");
        NS_TEST_EXPECT_MSG_EQ(applicationFailures, 1, "the application failed once");
        NS_TEST_EXPECT_MSG_EQ(app->HasFailed(), true, "HasFailed");
        NS_TEST_EXPECT_MSG_EQ(app->HasEnded(), true, "nothing more will come of it");
        NS_TEST_EXPECT_MSG_EQ(app->GetIterationsDone(), 0, "no iteration completed");
        NS_TEST_EXPECT_MSG_EQ(app->GetFailure(), comm->GetFailure(), "the communicator's reason");
        NS_TEST_EXPECT_MSG_NE(app->GetFailure().find("its RDMA queue pair failed"),
                              std::string::npos,
                              "the reason names the queue pair: " << app->GetFailure());
        NS_TEST_EXPECT_MSG_EQ(app->GetResults()["failure"].get<std::string>(),
                              app->GetFailure(),
                              "and is in the results");
        NS_TEST_EXPECT_MSG_GT(f.rdma.GetTotals().messagesFailed, 0, "messages given up");
    }
};

/// The suite.
class RdmaFailureTestSuite : public TestSuite
{
  public:
    RdmaFailureTestSuite()
        : TestSuite("ai-fabric-rdma-failure", TestSuite::Type::UNIT)
    {
        AddTestCase(new RdmaQpFailureTestCase());
        AddTestCase(new RdmaSplitFailureTestCase(0));
        AddTestCase(new RdmaSplitFailureTestCase(2));
        AddTestCase(new RdmaStopWhenStalledTestCase(true));
        AddTestCase(new RdmaStopWhenStalledTestCase(false));
        AddTestCase(new WorkloadFailureTestCase());
    }
};

static RdmaFailureTestSuite g_rdmaFailureTestSuite; //!< registers the suite
