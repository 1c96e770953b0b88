/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-tensor-parallel: a tensor-parallel group's collectives against the ring
// arithmetic on an idle server, their jitter when another job shares the NICs, and
// compute jitter adding to the iteration time.

#include "collective-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/test.h"

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// What the traces of one application saw.
struct TensorParallelTraces
{
    std::vector<Time> latency; //!< per operation, by index
    std::vector<Time> jitter;  //!< per compute block, by index
    std::vector<Time> compute; //!< per compute block: its duration

    /// \param index operation \param latency its latency
    void Operation(uint32_t index, Time latency)
    {
        NS_ABORT_MSG_IF(index != this->latency.size(), "operations out of order");
        this->latency.push_back(latency);
    }

    /// \param index block \param duration its time \param jitter the jitter in it
    void Compute(uint32_t index, Time duration, Time jitter)
    {
        NS_ABORT_MSG_IF(index != this->jitter.size(), "blocks out of order");
        compute.push_back(duration);
        this->jitter.push_back(jitter);
    }

    /// \param app the application to watch
    void Connect(Ptr<TensorParallelApplication> app)
    {
        app->TraceConnectWithoutContext("Operation",
                                        MakeCallback(&TensorParallelTraces::Operation, this));
        app->TraceConnectWithoutContext("Compute",
                                        MakeCallback(&TensorParallelTraces::Compute, this));
    }
};

/// \param f a cluster \param bytes S: one channel, and S / n in one piece, for the
/// tensor-parallel collectives
template <typename FabricHelper>
void
OneChannelOnePiece(GpuCluster<FabricHelper>& f, uint64_t bytes)
{
    for (const std::string collective : {"AllReduce", "ReduceScatter", "AllGather"})
    {
        f.collectives.SetAlgorithmAttribute(collective, "Channels", UintegerValue(1));
        f.collectives.SetAlgorithmAttribute(collective, "ChunkSize", UintegerValue(bytes));
    }
}

/// \param comm a communicator inside one server \return the duration of one lock-step
/// ring step of D = S / n on its scale-up switch, D / R + L, in seconds
double
ScaleUpStep(Ptr<Communicator> comm, uint64_t bytes)
{
    DataRateValue rate;
    TimeValue latency;
    comm->GetMember(0).scaleUp->GetAttribute("PortRate", rate);
    comm->GetMember(0).scaleUp->GetAttribute("Latency", latency);
    return bytes / comm->GetSize() * 8.0 / rate.Get().GetBitRate() + latency.Get().GetSeconds();
}

} // namespace

/**
 * T = 8 on an idle 8-GPU server, the defaults (Llama 2 7B: 32 layers, 2 blocks each,
 * S = 4096 x 4096 x 2 B = 32 MiB, 300 us forward and 600 us backward per block), one
 * channel and S / T = 4 MiB in one piece, so the ring runs in lock-step on the
 * scale-up ports (R = 3.6 Tb/s, L = 1 us):
 *
 *   step         D / R + L = 4 MiB x 8 / 3.6 Tb/s + 1 us = 9.3207 + 1 = 10.3207 us
 *   AllReduce    2 (T-1) steps = 14 x 10.3207 = 144.49 us
 *   RS, AG       (T-1) steps each = 72.245 us        (SequenceParallel)
 *   iteration    Layers x CollectivesPerLayer x (fwd + bwd + 2 t_op)
 *                = 64 x (900 + 288.98) us = 76.09 ms (the same with SP: RS + AG = AR)
 *
 * Each within 1% (the switch rounds every transfer up to the nanosecond: under
 * 1 ns per step). Every operation takes the same time, so the jitter is zero:
 * standard deviation under 1 ns, p99 / p50 = 1.
 */
class TensorParallelIdleServerTestCase : public TestCase
{
  public:
    /// \param sequenceParallel ReduceScatter and AllGather instead of AllReduce
    explicit TensorParallelIdleServerTestCase(bool sequenceParallel)
        : TestCase(std::string("T = 8 on an idle server") +
                   (sequenceParallel ? " with sequence parallelism" : "") +
                   ": every operation at its formula, no jitter"),
          m_sequenceParallel(sequenceParallel)
    {
    }

  private:
    /// Run one iteration and check its time by hand.
    void DoRun() override
    {
        GpuCluster<ScheduledFabricHelper> f(SmallCluster(8, 1, 1));
        const uint64_t bytes = 4096 * 4096 * 2;
        OneChannelOnePiece(f, bytes);
        Ptr<Communicator> comm = f.FirstGpus(8);
        TrainingApplicationHelper tp("ns3::TensorParallelApplication");
        tp.SetAttribute("SequenceParallel", BooleanValue(m_sequenceParallel));
        tp.SetAttribute("Iterations", UintegerValue(2));
        ApplicationContainer apps = tp.Install(comm, f.collectives);
        auto app = DynamicCast<TensorParallelApplication>(apps.Get(0));
        TensorParallelTraces traces;
        traces.Connect(app);
        Simulator::Run();

        const double t = 8;
        const double allReduce = 2 * (t - 1) * ScaleUpStep(comm, bytes);
        const double op = m_sequenceParallel ? allReduce / 2 : allReduce; // RS, AG: half each
        const double iteration = 32 * 2 * (300e-6 + 600e-6 + 2 * allReduce);
        const SampleStatistics& latency = app->GetOperationLatency();
        const uint32_t ops = 2 * 32 * 2 * (m_sequenceParallel ? 2 : 1);
        NS_TEST_ASSERT_MSG_EQ(app->GetIterationsDone(), 2u, "two iterations");
        NS_TEST_EXPECT_MSG_EQ(app->GetOperationsPerIteration(), ops, "operations per iteration");
        NS_TEST_ASSERT_MSG_EQ(latency.GetCount(), 2 * ops, "every operation measured");
        NS_TEST_EXPECT_MSG_EQ(traces.latency.size(), 2 * ops, "every operation traced");
        NS_TEST_EXPECT_MSG_EQ(traces.jitter.size(), 2 * 2 * 32 * 2, "every block traced");
        for (uint32_t i = 0; i < latency.GetCount(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(latency.GetSamples()[i] / op, 1.0, 0.01, "operation " << i);
            NS_TEST_EXPECT_MSG_EQ(traces.latency[i].GetSeconds(),
                                  latency.GetSamples()[i],
                                  "trace and statistics agree");
        }
        for (Time it : app->GetIterationTimes())
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(it.GetSeconds() / iteration, 1.0, 0.01, "iteration");
        }
        NS_TEST_EXPECT_MSG_LT(app->GetLatencyStdDev(), 1e-9, "no jitter: standard deviation");
        NS_TEST_EXPECT_MSG_EQ_TOL(app->GetLatencyTailRatio(), 1.0, 1e-12, "no jitter: p99/p50");
        NS_TEST_EXPECT_MSG_EQ(app->GetComputeJitterTotal(), Time(0), "no compute jitter");
        std::cout << GetName() << ": operation p50 " << latency.GetPercentile(0.5) * 1e6
                  << " us (formula " << op * 1e6 << " us), iteration "
                  << app->GetIterationTimes().front().As(Time::MS) << " (formula "
                  << iteration * 1e3 << " ms), stddev " << app->GetLatencyStdDev() * 1e9
                  << " ns, p99/p50 " << app->GetLatencyTailRatio() << std::endl;
    }

    bool m_sequenceParallel; //!< ReduceScatter + AllGather
};

/**
 * T = 16 across two 8-GPU servers (rail placement, 8 leaves of 2, 200 Gb/s fabric
 * links): the ring 0 -> 1 -> .. -> 15 -> 0 crosses the NICs on 7 -> 8 and 15 -> 0,
 * every other hop on a scale-up switch. S = 2 MiB (128 KiB per step), 4 layers of
 * 2 blocks, 50 us forward and 100 us backward, two iterations (32 AllReduces).
 *
 * Idle, every AllReduce takes about 2 (T-1) steps of a 128 KiB RDMA message, nearly
 * alike (the fabric's clocks and the queue pairs' state make them differ a little).
 * Contended: another job runs a 32 MiB AllReduce, started with the TP group, on a
 * communicator of the same GPUs in the order 8 .. 15, 0 .. 7, whose ring crosses
 * the NICs on the same hops 15 -> 0 and 7 -> 8 in the same directions (its own
 * queue pairs). While it runs (about 30 steps of 2 MiB: several milliseconds) the
 * TP hops over the NICs share their links with it; afterwards they run alone. So
 * the TP latencies spread: the jitter (standard deviation, and p99 / p50) is above
 * the idle one, and so is p99. Both measured and printed.
 */
template <typename FabricHelper>
class TensorParallelContendedTestCase : public TestCase
{
  public:
    /// \param fabric the fabric's name, in the test name
    explicit TensorParallelContendedTestCase(const std::string& fabric)
        : TestCase("T = 16 across two servers, " + fabric +
                   ": another job on the same NICs adds jitter")
    {
    }

  private:
    /// Result of one run.
    struct Run
    {
        double stddev;     //!< seconds
        double p50;        //!< seconds
        double p99;        //!< seconds
        double tail;       //!< p99 / p50
        double max;        //!< seconds
        Time iteration;    //!< the first iteration
        Time competitor;   //!< the other job's AllReduce (0: none)
        uint64_t count;    //!< operations
        uint64_t nicBytes; //!< bytes GPU 7 sent over its NIC
    };

    /// \param contended with the other job \return what the TP group saw
    Run RunOnce(bool contended)
    {
        ClusterDescription c = SmallCluster(8, 2, 2);
        c.nicPlacement = "rail";
        c.fabricLinkRate = DataRate("200Gbps");
        GpuCluster<FabricHelper> f(c);
        Ptr<Communicator> comm = f.FirstGpus(16);
        TrainingApplicationHelper tp("ns3::TensorParallelApplication");
        tp.SetAttribute("Layers", UintegerValue(4));
        tp.SetAttribute("ActivationBytes", UintegerValue(2 << 20));
        tp.SetAttribute("ForwardTime", TimeValue(MicroSeconds(50)));
        tp.SetAttribute("BackwardTime", TimeValue(MicroSeconds(100)));
        tp.SetAttribute("Iterations", UintegerValue(2));
        ApplicationContainer apps = tp.Install(comm, f.collectives);
        apps.Start(MicroSeconds(10));
        auto app = DynamicCast<TensorParallelApplication>(apps.Get(0));

        Ptr<CollectiveOperation> other;
        if (contended)
        {
            std::vector<uint32_t> gpus;
            for (uint32_t g = 0; g < 16; ++g)
            {
                gpus.push_back((g + 8) % 16);
            }
            other = f.collectives.Create("AllReduce");
            // The TP group's first compute block runs 50 us from its start: begin
            // with it, so the other job's first steps meet its first collective.
            Simulator::Schedule(MicroSeconds(10),
                                &CollectiveOperation::Start,
                                other,
                                f.collectives.CreateCommunicator(gpus),
                                uint64_t{32} << 20,
                                CollectiveOperation::DoneCallback());
        }
        Simulator::Run();
        NS_ABORT_MSG_IF(app->GetIterationsDone() != 2, "TP did not finish");
        NS_ABORT_MSG_IF(other && !other->IsFinished(), "the other job did not finish");
        const uint64_t nicBytes = comm->GetMember(7).transport->GetStats().bytesPosted;
        const SampleStatistics& l = app->GetOperationLatency();
        return Run{app->GetLatencyStdDev(),
                   l.GetPercentile(0.5),
                   l.GetPercentile(0.99),
                   app->GetLatencyTailRatio(),
                   l.GetMax(),
                   app->GetIterationTimes().front(),
                   other ? other->GetResult().GetDuration() : Time(0),
                   l.GetCount(),
                   nicBytes};
    }

    /// Run idle and with the competing traffic and compare.
    void DoRun() override
    {
        const Run idle = RunOnce(false);
        const Run busy = RunOnce(true);
        for (const auto& [name, r] : {std::make_pair("idle", idle), std::make_pair("busy", busy)})
        {
            std::cout << GetName() << ": " << name << ": " << r.count << " AllReduces, p50 "
                      << r.p50 * 1e6 << " us, p99 " << r.p99 * 1e6 << " us, max " << r.max * 1e6
                      << " us, stddev " << r.stddev * 1e6 << " us, p99/p50 " << r.tail
                      << ", iteration " << r.iteration.As(Time::US) << ", other job's AllReduce "
                      << r.competitor.As(Time::US) << std::endl;
        }
        NS_TEST_ASSERT_MSG_EQ(idle.count, 32u, "idle: every operation");
        NS_TEST_ASSERT_MSG_EQ(busy.count, 32u, "contended: every operation");
        // GPU 7 forwards 2 (T-1) = 30 chunks of S / T = 128 KiB per AllReduce, all
        // over its NIC to GPU 8 (its only hop), and nothing else uses that NIC.
        NS_TEST_EXPECT_MSG_EQ(idle.nicBytes, 32 * 30 * (uint64_t{128} << 10), "NIC bytes idle");
        NS_TEST_EXPECT_MSG_GT(busy.stddev, idle.stddev, "jitter: standard deviation");
        NS_TEST_EXPECT_MSG_GT(busy.stddev, 0.0, "jitter measured");
        NS_TEST_EXPECT_MSG_GT(busy.tail, idle.tail, "jitter: p99/p50");
        NS_TEST_EXPECT_MSG_GT(busy.p99, idle.p99, "p99 latency");
    }
};

/**
 * Compute jitter on T = 8 on an idle server: ComputeJitter uniform on [0, 20 us],
 * 4 layers of 2 blocks (16 compute blocks per iteration), three iterations, the rest
 * as in the idle case. The collectives run on an idle switch whatever the compute
 * does, so each takes what it took without jitter (lock-step: the same to the
 * nanosecond) and
 *
 *   iteration i with jitter = iteration i without + sum of its 16 drawn jitters
 *
 * within 1 ns per compute block (each draw is rounded to the nanosecond once, in the
 * application and in the replay alike). The draws are the application's own stream:
 * AssignStreams(7) makes them the first 48 values of a UniformRandomVariable on
 * stream 7, replayed here; the Compute trace must report exactly those. Their sum
 * over 48 blocks is 48 x 10 us = 480 us on average with standard deviation
 * 20 us x sqrt(48 / 12) = 40 us: within 4 sigma (160 us) of 480 us. The collectives'
 * latency jitter stays zero. GetResults records the jitter's distribution and stream,
 * and the same jitter per iteration.
 */
class TensorParallelComputeJitterTestCase : public TestCase
{
  public:
    TensorParallelComputeJitterTestCase()
        : TestCase("T = 8 with compute jitter: iterations grow by the drawn jitter")
    {
    }

  private:
    /// \param jitter ComputeJitter (may be null) \param traces filled by the run
    /// \return the iteration times
    std::vector<Time> RunOnce(Ptr<RandomVariableStream> jitter, TensorParallelTraces& traces)
    {
        GpuCluster<ScheduledFabricHelper> f(SmallCluster(8, 1, 1));
        OneChannelOnePiece(f, 4096 * 4096 * 2);
        TrainingApplicationHelper tp("ns3::TensorParallelApplication");
        tp.SetAttribute("Layers", UintegerValue(4));
        tp.SetAttribute("Iterations", UintegerValue(3));
        tp.SetAttribute("ComputeJitter", PointerValue(jitter));
        ApplicationContainer apps = tp.Install(f.FirstGpus(8), f.collectives);
        auto app = DynamicCast<TensorParallelApplication>(apps.Get(0));
        NS_ABORT_MSG_IF(app->AssignStreams(7) != (jitter ? 1 : 0), "streams assigned");
        traces.Connect(app);
        Simulator::Run();
        NS_ABORT_MSG_IF(app->GetIterationsDone() != 3, "three iterations");
        m_stddev = app->GetLatencyStdDev();
        m_jitterTotal = app->GetComputeJitterTotal();
        m_results = app->GetResults();
        return app->GetIterationTimes();
    }

    /// Run with and without jitter and check the added time.
    void DoRun() override
    {
        TensorParallelTraces plainTraces;
        const std::vector<Time> plain = RunOnce(nullptr, plainTraces);
        auto jitter = CreateObject<UniformRandomVariable>();
        jitter->SetAttribute("Min", DoubleValue(0));
        jitter->SetAttribute("Max", DoubleValue(20e-6));
        TensorParallelTraces traces;
        const std::vector<Time> jittered = RunOnce(jitter, traces);

        auto replay = CreateObject<UniformRandomVariable>();
        replay->SetAttribute("Min", DoubleValue(0));
        replay->SetAttribute("Max", DoubleValue(20e-6));
        replay->SetStream(7);
        const uint32_t blocks = 16;
        NS_TEST_ASSERT_MSG_EQ(traces.jitter.size(), 3 * blocks, "every block traced");
        Time total;
        const nlohmann::json& perIteration = m_results["perIteration"]["computeJitter_us"];
        NS_TEST_ASSERT_MSG_EQ(perIteration.size(), 3u, "results: jitter per iteration");
        for (uint32_t i = 0; i < 3; ++i)
        {
            Time sum;
            for (uint32_t b = 0; b < blocks; ++b)
            {
                const Time drawn = Seconds(replay->GetValue());
                NS_TEST_EXPECT_MSG_EQ(traces.jitter[i * blocks + b], drawn, "block " << b);
                sum += traces.jitter[i * blocks + b];
            }
            total += sum;
            NS_TEST_EXPECT_MSG_EQ_TOL(perIteration[i].get<double>(),
                                      sum.GetSeconds() * 1e6,
                                      1e-6,
                                      "results: jitter of iteration " << i);
            const Time growth = jittered[i] - plain[i];
            std::cout << GetName() << ": iteration " << i << ": " << jittered[i].As(Time::US)
                      << " against " << plain[i].As(Time::US)
                      << " without jitter: " << growth.As(Time::US) << " more, drawn jitter "
                      << sum.As(Time::US) << std::endl;
            NS_TEST_EXPECT_MSG_EQ_TOL(growth.GetNanoSeconds(),
                                      sum.GetNanoSeconds(),
                                      blocks,
                                      "iteration " << i << " grows by its jitter");
        }
        NS_TEST_EXPECT_MSG_EQ(m_jitterTotal, total, "GetComputeJitterTotal");
        NS_TEST_EXPECT_MSG_EQ_TOL(total.GetSeconds(), 480e-6, 160e-6, "mean 10 us per block");
        NS_TEST_EXPECT_MSG_LT(m_stddev, 1e-9, "collectives unaffected");
        // The results record the parameters (the jitter's distribution and stream)
        // and the metrics: 3 iterations x 16 AllReduces.
        NS_TEST_EXPECT_MSG_EQ(m_results["attributes"]["Layers"].get<std::string>(), "4", "Layers");
        const std::string jitterText = m_results["attributes"]["ComputeJitter"].get<std::string>();
        NS_TEST_EXPECT_MSG_EQ(jitterText.rfind("ns3::UniformRandomVariable[", 0), 0u, "jitter");
        NS_TEST_EXPECT_MSG_NE(jitterText.find("Stream=7"), std::string::npos, "its stream");
        NS_TEST_EXPECT_MSG_EQ(m_results["operationsPerIteration"].get<uint32_t>(), 16u, "ops");
        NS_TEST_EXPECT_MSG_EQ(m_results["operationLatency_us"]["count"].get<uint64_t>(),
                              48u,
                              "every operation in the results");
        NS_TEST_EXPECT_MSG_EQ(m_results["latencyTailRatio"].get<double>(), 1.0, "p99/p50");
        NS_TEST_EXPECT_MSG_EQ_TOL(m_results["computeJitter_us"].get<double>(),
                                  total.GetSeconds() * 1e6,
                                  1e-6,
                                  "results: total jitter");
    }

    double m_stddev{0};       //!< latency standard deviation of the last run
    Time m_jitterTotal;       //!< GetComputeJitterTotal of the last run
    nlohmann::json m_results; //!< GetResults of the last run
};

/// The suite.
class TensorParallelTestSuite : public TestSuite
{
  public:
    TensorParallelTestSuite()
        : TestSuite("ai-fabric-tensor-parallel", TestSuite::Type::UNIT)
    {
        AddTestCase(new TensorParallelIdleServerTestCase(false));
        AddTestCase(new TensorParallelIdleServerTestCase(true));
        AddTestCase(new TensorParallelComputeJitterTestCase);
        AddTestCase(new TensorParallelContendedTestCase<ScheduledFabricHelper>("scheduled"));
        AddTestCase(new TensorParallelContendedTestCase<EthernetClosHelper>("Ethernet"));
    }
};

/// Registers the suite.
static TensorParallelTestSuite g_tensorParallelTestSuite;
