/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-training-job: a job combining tensor, pipeline, expert and data
// parallelism (TrainingJobApplication) against the model arithmetic: presets'
// parameter counts, compute time, bytes per kind of traffic, the pipeline bubble,
// MoE dispatch sizes and gradient overlap.

#include "collective-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/test.h"

#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// The degrees of a job.
struct Degrees
{
    uint32_t tp{1}; //!< TensorParallel
    uint32_t pp{1}; //!< PipelineParallel
    uint32_t dp{1}; //!< DataParallel
    uint32_t ep{1}; //!< ExpertParallel
};

/**
 * Install a job on GPUs 0 .. tp pp dp - 1 and run it.
 * \param collectives the cluster's \param degrees the layout \param model the model
 * \param configure sets application attributes \param before called with the
 * application before the run (to connect traces) \return the application, after the run
 */
Ptr<TrainingJobApplication>
RunJob(const CollectiveHelper& collectives,
       const Degrees& degrees,
       Ptr<TransformerModel> model,
       const std::function<void(TrainingJobHelper&)>& configure = {},
       const std::function<void(Ptr<TrainingJobApplication>)>& before = {})
{
    TrainingJobHelper job;
    job.SetLayoutAttribute("TensorParallel", UintegerValue(degrees.tp));
    job.SetLayoutAttribute("PipelineParallel", UintegerValue(degrees.pp));
    job.SetLayoutAttribute("DataParallel", UintegerValue(degrees.dp));
    job.SetLayoutAttribute("ExpertParallel", UintegerValue(degrees.ep));
    job.SetAttribute("Model", PointerValue(model));
    job.SetAttribute("Iterations", UintegerValue(2));
    if (configure)
    {
        configure(job);
    }
    std::vector<uint32_t> gpus(degrees.tp * degrees.pp * degrees.dp);
    for (uint32_t g = 0; g < gpus.size(); ++g)
    {
        gpus[g] = g;
    }
    ApplicationContainer apps = job.Install(gpus, collectives);
    Ptr<TrainingJobApplication> app = DynamicCast<TrainingJobApplication>(apps.Get(0));
    app->AssignStreams(7);
    if (before)
    {
        before(app);
    }
    apps.Start(MicroSeconds(10));
    Simulator::Run();
    return app;
}

/**
 * A small dense model: Layers layers, h 1024, f 4096 (plain MLP), vocabulary 1000,
 * s 512, b 1, bf16. By hand: attention 4 h^2 = 4,194,304 parameters, MLP 2 h f =
 * 8,388,608, embedding 1,024,000; activation b s h x 2 = 1,048,576 B.
 * \param layers Layers \return the model
 */
Ptr<TransformerModel>
SmallDenseModel(uint32_t layers)
{
    Ptr<TransformerModel> model = TransformerModel::CreatePreset("custom");
    model->SetAttribute("Layers", UintegerValue(layers));
    model->SetAttribute("Hidden", UintegerValue(1024));
    model->SetAttribute("FfnHidden", UintegerValue(4096));
    model->SetAttribute("Vocabulary", UintegerValue(1000));
    model->SetAttribute("SequenceLength", UintegerValue(512));
    return model;
}

} // namespace

/**
 * Presets against the published sizes. By hand, with the formulas of
 * TransformerModel (biases and norms left out):
 * - gpt3-175b: 96 x 12 x 12288^2 = 173,946,175,488 in the layers + 2 x 50257 x 12288
 *   = 1,235,116,032 embedding = 175,181,291,520 (published: 175 B);
 * - llama2-70b: attention 2 x 8192^2 + 2 x 8192 x 1024 = 150,994,944, MLP 3 x 8192 x
 *   28672 = 704,643,072, x 80 layers = 68,451,041,280, + 2 x 32000 x 8192 =
 *   524,288,000: 68,975,329,280 (published: 69 B with norms);
 * - mixtral-8x7b: attention 2 x 4096^2 + 2 x 4096 x 1024 = 41,943,040, 8 experts of
 *   3 x 4096 x 14336 = 176,160,768, x 32 layers = 46,439,333,888, + 2 x 32000 x 4096
 *   = 262,144,000: 46,701,477,888 (published: 46.7 B);
 * - gpt3-1.3b (the defaults): 24 x 12 x 2048^2 = 1,207,959,552 + 2 x 50257 x 2048 =
 *   205,852,672: 1,413,812,224 (published 1.3 B, embeddings tied).
 */
class TransformerPresetTestCase : public TestCase
{
  public:
    TransformerPresetTestCase()
        : TestCase("presets: parameter counts of GPT-3, Llama 2 70B and Mixtral by hand")
    {
    }

  private:
    /// Check the presets' parameter counts against the published sizes.
    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(TransformerModel::CreatePreset("gpt3-175b")->GetParameters(),
                              175181291520ULL,
                              "GPT-3 175B");
        NS_TEST_ASSERT_MSG_EQ(TransformerModel::CreatePreset("llama2-70b")->GetParameters(),
                              68975329280ULL,
                              "Llama 2 70B");
        Ptr<TransformerModel> mixtral = TransformerModel::CreatePreset("mixtral-8x7b");
        NS_TEST_ASSERT_MSG_EQ(mixtral->GetParameters(), 46701477888ULL, "Mixtral 8x7B");
        NS_TEST_ASSERT_MSG_EQ(mixtral->GetMoeLayers(), 32u, "every Mixtral layer is MoE");
        NS_TEST_ASSERT_MSG_EQ(TransformerModel::CreatePreset("gpt3-1.3b")->GetParameters(),
                              CreateObject<TransformerModel>()->GetParameters(),
                              "the defaults are gpt3-1.3b");
        NS_TEST_ASSERT_MSG_EQ(CreateObject<TransformerModel>()->GetParameters(),
                              1413812224ULL,
                              "GPT-3 1.3B");
        // Mixtral's activation per 4096-token sequence: 4096 x 4096 x 2 B.
        NS_TEST_ASSERT_MSG_EQ(mixtral->GetActivationBytes(), 33554432ULL, "activation");
        // Every fourth layer MoE: layers 3, 7, ..., 31.
        mixtral->SetAttribute("MoeLayerInterval", UintegerValue(4));
        NS_TEST_ASSERT_MSG_EQ(mixtral->GetMoeLayers(), 8u, "every fourth layer");
        NS_TEST_ASSERT_MSG_EQ(mixtral->IsMoeLayer(3), true, "layer 3");
        NS_TEST_ASSERT_MSG_EQ(mixtral->IsMoeLayer(4), false, "layer 4");
        NS_TEST_ASSERT_MSG_EQ(mixtral->GetMoeLayerIndex(31), 7u, "layer 31");
    }
};

/**
 * One GPU (tp = pp = dp = 1): the iteration is pure compute. SmallDenseModel(2) at
 * 1e12 FLOP/s, by hand: attention forward 2 s P + 4 s^2 h = 4,294,967,296 +
 * 1,073,741,824 = 5,368,709,120 FLOPs per layer; MLP 2 s P = 8,589,934,592; output
 * 2 s V h = 1,048,576,000. Forward of a microbatch: 2 x 13,958,643,712 + 1,048,576,000
 * = 28,965,863,424 FLOPs; training 3 x that = 86,897,590,272. With M = 2, an
 * iteration is 2 x 86.897590272 ms = 173.795180544 ms (each block's time rounds to
 * the nanosecond: 5 blocks x 3 passes... under 30 ns, 2e-7 relative).
 */
class TrainingJobComputeTestCase : public TestCase
{
  public:
    TrainingJobComputeTestCase()
        : TestCase("one GPU: the iteration is the model's FLOPs at the GPU's rate")
    {
    }

  private:
    /// Run one GPU and check the iteration is the compute by hand.
    void DoRun() override
    {
        ClusterDescription c = SmallCluster(2, 1, 1);
        c.gpusPerServer = 1;
        GpuCluster<ScheduledFabricHelper> f(c);
        Ptr<TransformerModel> model = SmallDenseModel(2);
        NS_TEST_ASSERT_MSG_EQ(model->GetTrainingFlopsPerMicrobatch(),
                              86897590272.0,
                              "FLOPs by hand");
        Ptr<TrainingJobApplication> app = RunJob(f.collectives, {}, model, [](auto& job) {
            job.SetAttribute("Microbatches", UintegerValue(2));
            job.SetAttribute("GpuFlopRate", DoubleValue(1e12));
        });
        NS_TEST_ASSERT_MSG_EQ(app->GetIterationsDone(), 2u, "two iterations");
        for (Time t : app->GetIterationTimes())
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(t.GetSeconds() / 0.173795180544, 1.0, 1e-6, "iteration");
        }
        NS_TEST_EXPECT_MSG_EQ(app->GetBytes(TrainingJobApplication::TP_TRAFFIC), 0u, "no TP");
        NS_TEST_EXPECT_MSG_EQ(app->GetBytes(TrainingJobApplication::DP_TRAFFIC), 0u, "no DP");
        NS_TEST_EXPECT_MSG_EQ_TOL(app->GetBubbleFraction(0), 0.0, 1e-6, "never idle");
        Simulator::Destroy();
    }
};

/**
 * tp 2, pp 2, dp 2 on GPUs 0..7 of 4-GPU servers (stage 0 on server 0, stage 1 on
 * server 1), SmallDenseModel(4), M = 4, BucketBytes 10,000,000. Per iteration, by
 * hand (A = 1,048,576 B):
 * - TP: 2 AllReduces per layer x 2 layers per stage x 2M = 8 passes x 4 replicas =
 *   128 operations of S = A: 134,217,728 B (with SequenceParallel, a ReduceScatter
 *   and an AllGather each: 256 of S = A);
 * - PP: 2 M (pp - 1) = 8 transfers per replica pair x dp 2 x tp 2 pieces of A / 2:
 *   32 x 524,288 = 16,777,216 B;
 * - DP, per GPU of stage 0: (2 x 4,194,304 + 2 x 8,388,608) / tp x 2 B = 25,165,824
 *   + the input embedding 1,024,000 / tp x 2 = 1,024,000: 26,189,824 B; stage 1 the
 *   same with the output layer's. Summed over 2 stages x 2 TP ranks: 104,759,296 B.
 *   Buckets of stage 0, in backward order: layer 1 (12,582,912 B) fills one of 10 M,
 *   2,582,912 left; layer 0's MLP brings 10,971,520: a second, 971,520 left; layer 0's
 *   attention and the embedding: 6,189,824 at the end. Stage 1: output 1,024,000 +
 *   layer 3 = 13,606,912: one, 3,606,912 left; layer 2's MLP: 11,995,520, one; then
 *   6,189,824. 3 buckets per stage x 2 stages x 2 TP ranks: 12 AllReduces.
 * The counts are arithmetic, the same on either fabric.
 */
template <typename FabricHelper>
class TrainingJobTrafficTestCase : public TestCase
{
  public:
    /// \param fabric the fabric's name, in the test name
    /// \param sequenceParallel sequence parallel TP
    TrainingJobTrafficTestCase(const std::string& fabric, bool sequenceParallel)
        : TestCase("tp 2 x pp 2 x dp 2 on the " + fabric + " fabric" +
                   (sequenceParallel ? " with sequence parallelism" : "") +
                   ": bytes of every kind of traffic by hand"),
          m_sequenceParallel(sequenceParallel)
    {
    }

  private:
    /// Run the job and check every group's traffic by hand.
    void DoRun() override
    {
        ClusterDescription c = SmallCluster(4, 4, 4);
        c.gpusPerServer = 4;
        GpuCluster<FabricHelper> f(c);
        const bool sp = m_sequenceParallel;
        Ptr<TrainingJobApplication> app =
            RunJob(f.collectives, {2, 2, 2, 1}, SmallDenseModel(4), [sp](auto& job) {
                job.SetAttribute("Microbatches", UintegerValue(4));
                job.SetAttribute("GpuFlopRate", DoubleValue(1e12));
                job.SetAttribute("BucketBytes", UintegerValue(10000000));
                job.SetAttribute("SequenceParallel", BooleanValue(sp));
            });
        using J = TrainingJobApplication;
        NS_TEST_ASSERT_MSG_EQ(app->GetIterationsDone(), 2u, "two iterations");
        const uint64_t a = 1048576;
        const uint64_t tpOps = sp ? 256 : 128;
        NS_TEST_EXPECT_MSG_EQ(app->GetOperationTimes(J::TP_TRAFFIC).GetCount(),
                              2 * tpOps,
                              "TP operations");
        NS_TEST_EXPECT_MSG_EQ(app->GetBytes(J::TP_TRAFFIC), 2 * tpOps * a, "TP");
        NS_TEST_EXPECT_MSG_EQ(app->GetOperationTimes(J::PP_TRAFFIC).GetCount(),
                              2 * 32u,
                              "PP transfers");
        NS_TEST_EXPECT_MSG_EQ(app->GetBytes(J::PP_TRAFFIC), 2 * 32 * a / 2, "PP");
        NS_TEST_EXPECT_MSG_EQ(app->GetDenseGradientBytes(0), 26189824u, "stage 0 gradients");
        NS_TEST_EXPECT_MSG_EQ(app->GetDenseGradientBytes(1), 26189824u, "stage 1 gradients");
        NS_TEST_EXPECT_MSG_EQ(app->GetOperationTimes(J::DP_TRAFFIC).GetCount(),
                              2 * 12u,
                              "DP buckets");
        NS_TEST_EXPECT_MSG_EQ(app->GetBytes(J::DP_TRAFFIC), 2 * 104759296u, "DP");
        NS_TEST_EXPECT_MSG_EQ(app->GetBytes(J::EP_TRAFFIC), 0u, "no experts");
        // Compute bounds the iteration from below: stage 1's M (fwd + bwd) passes.
        const double least = 4 * app->GetStageComputeTime(1).GetSeconds();
        for (Time t : app->GetIterationTimes())
        {
            NS_TEST_EXPECT_MSG_GT(t.GetSeconds(), least, "at least the compute");
        }
        std::cout << GetName() << ": iteration " << app->GetIterationTimes().back().As(Time::MS)
                  << ", compute of stage 1 " << least * 1e3 << " ms, bubble "
                  << app->GetBubbleFraction(0) << " / " << app->GetBubbleFraction(1) << ", TP p50 "
                  << app->GetOperationTimes(J::TP_TRAFFIC).GetPercentile(0.5) * 1e6
                  << " us, exposed gradient " << app->GetExposedGradientTime().GetMean() * 1e6
                  << " us" << std::endl;
        Simulator::Destroy();
    }

    bool m_sequenceParallel; //!< SequenceParallel
};

/**
 * pp 4 on four one-GPU servers (transfers cross the fabric), tp = dp = 1, 1F1B and
 * GPipe, M = 6: with compute far above the transfers, the bubble of every stage is
 * (S - 1) / (M + S - 1) = 3 / 9 within 1%, as for PipelineParallelApplication. The
 * model: 4 layers of h 256, f 1024, s 64, vocabulary 1 (an output layer of 98 us per
 * microbatch against 314.6 ms of layers: 3e-4); at 1e9 FLOP/s a layer's forward is
 * 2 x 64 x (262,144 + 524,288) + 4 x 64^2 x 256 = 104,857,600 FLOPs, 104.9 ms; a
 * transfer of 64 x 256 x 2 = 32 KiB takes microseconds.
 */
class TrainingJobBubbleTestCase : public TestCase
{
  public:
    /// \param schedule the pipeline schedule's TypeId name
    explicit TrainingJobBubbleTestCase(const std::string& schedule)
        : TestCase("pp 4, " + schedule + ", M 6: bubble (S-1) over (M+S-1) on every stage"),
          m_schedule(schedule)
    {
    }

  private:
    /// Run the job and check every stage's bubble.
    void DoRun() override
    {
        ClusterDescription c = SmallCluster(4, 1, 2);
        c.gpusPerServer = 1;
        GpuCluster<ScheduledFabricHelper> f(c);
        Ptr<TransformerModel> model = TransformerModel::CreatePreset("custom");
        model->SetAttribute("Layers", UintegerValue(4));
        model->SetAttribute("Hidden", UintegerValue(256));
        model->SetAttribute("FfnHidden", UintegerValue(1024));
        model->SetAttribute("SequenceLength", UintegerValue(64));
        model->SetAttribute("Vocabulary", UintegerValue(1));
        const std::string schedule = m_schedule;
        Ptr<TrainingJobApplication> app =
            RunJob(f.collectives, {1, 4, 1, 1}, model, [schedule](auto& job) {
                job.SetAttribute("Microbatches", UintegerValue(6));
                job.SetAttribute("GpuFlopRate", DoubleValue(1e9));
                job.SetAttribute("Schedule", TypeIdValue(TypeId::LookupByName(schedule)));
            });
        for (uint32_t s = 0; s < 4; ++s)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(app->GetBubbleFraction(s) / (3.0 / 9.0),
                                      1.0,
                                      0.01,
                                      "bubble of stage " << s);
        }
        // T = (M + S - 1) (tF + tB) = 9 x 3 x 104.8576 ms.
        NS_TEST_EXPECT_MSG_EQ_TOL(app->GetIterationTimes().back().GetSeconds() / (27 * 0.1048576),
                                  1.0,
                                  0.01,
                                  "iteration");
        NS_TEST_EXPECT_MSG_EQ(app->GetOperationTimes(TrainingJobApplication::PP_TRAFFIC).GetCount(),
                              2 * 2 * 6 * 3u,
                              "2 M (S - 1) transfers per iteration");
        std::cout << GetName() << ": bubble " << app->GetBubbleFraction(0) << ", iteration "
                  << app->GetIterationTimes().back().As(Time::MS) << std::endl;
        Simulator::Destroy();
    }

    std::string m_schedule; //!< TypeId name
};

/**
 * MoE on four one-GPU servers: dp 4, 2 layers, both MoE, 8 experts, top-2, h 512,
 * f 1024 (plain), s 128, vocabulary 1000, M 2. By hand (token 512 x 2 = 1,024 B,
 * each GPU routes 128 tokens twice):
 * - every dispatch AlltoAllv has S = 128 x 2 x 1,024 = 262,144 B (each row of the
 *   drawn matrix sums to the GPU's 256 routings); the combine's S is the largest
 *   number of routings a GPU received, x 1,024, at least 262,144;
 * - per iteration, each EP set runs 2 layers x 2 M passes = 8 MoE blocks of a
 *   dispatch and a combine: ep 4 (one set) 16 AlltoAllv, ep 2 (two sets) 32;
 * - dense gradients per GPU: 2 layers x 4 x 512^2 = 2,097,152 + 2 x 512,000
 *   embedding = 3,121,152 parameters x 2 B = 6,242,304 B, one bucket over dp 4;
 * - expert gradients: E / ep experts of 2 x 512 x 1024 = 1,048,576 parameters, 2
 *   layers, x 2 B: ep 4: 2 experts, 8,388,608 B per GPU, no replica to reduce with
 *   (dp / ep = 1); ep 2: 4 experts, 16,777,216 B per GPU over 2 expert data
 *   parallel groups of 2. DP bytes: ep 4: 6,242,304; ep 2: 6,242,304 + 2 x
 *   16,777,216 = 39,796,736; AllReduces 1 and 3;
 * - one imbalance sample per EP set and MoE layer per iteration, each at least 1;
 *   Zipf gating (exponent 1.5) raises its mean above uniform's.
 */
class TrainingJobMoeTestCase : public TestCase
{
  public:
    /// \param ep the expert-parallel degree
    explicit TrainingJobMoeTestCase(uint32_t ep)
        : TestCase("MoE, dp 4, ep " + std::to_string(ep) +
                   ": dispatch sizes, expert gradients and imbalance by hand"),
          m_ep(ep)
    {
    }

  private:
    /// Record the bytes of an operation if it is EP traffic.
    /// \param traffic the operation's traffic kind \param result its result
    void RecordEp(uint32_t traffic, const CollectiveResult& result)
    {
        if (traffic == TrainingJobApplication::EP_TRAFFIC)
        {
            m_sizes.push_back(result.bytes);
        }
    }

    /// \param gating Gating \return the application after a run (m_sizes: every EP
    /// operation's S)
    Ptr<TrainingJobApplication> Run(const std::string& gating)
    {
        ClusterDescription c = SmallCluster(4, 1, 2);
        c.gpusPerServer = 1;
        GpuCluster<ScheduledFabricHelper> f(c);
        Ptr<TransformerModel> model = TransformerModel::CreatePreset("custom");
        model->SetAttribute("Layers", UintegerValue(2));
        model->SetAttribute("Hidden", UintegerValue(512));
        model->SetAttribute("FfnHidden", UintegerValue(1024));
        model->SetAttribute("SequenceLength", UintegerValue(128));
        model->SetAttribute("Vocabulary", UintegerValue(1000));
        model->SetAttribute("Experts", UintegerValue(8));
        model->SetAttribute("TopK", UintegerValue(2));
        m_sizes.clear();
        return RunJob(
            f.collectives,
            {1, 1, 4, m_ep},
            model,
            [&gating](TrainingJobHelper& job) {
                job.SetAttribute("Microbatches", UintegerValue(2));
                job.SetAttribute("GpuFlopRate", DoubleValue(1e12));
                job.SetAttribute("Gating", StringValue(gating));
            },
            [this](Ptr<TrainingJobApplication> app) {
                app->TraceConnectWithoutContext(
                    "Collective",
                    MakeCallback(&TrainingJobMoeTestCase::RecordEp, this));
            });
    }

    /// Run the job and check dispatch sizes, expert gradients and imbalance.
    void DoRun() override
    {
        using J = TrainingJobApplication;
        Ptr<J> app = Run("ns3::UniformGating");
        NS_TEST_ASSERT_MSG_EQ(app->GetIterationsDone(), 2u, "two iterations");
        const uint32_t sets = 4 / m_ep;
        const uint64_t dpBytes = m_ep == 4 ? 6242304 : 39796736;
        const uint32_t dpOps = m_ep == 4 ? 1 : 3;
        const SampleStatistics& ep = app->GetOperationTimes(J::EP_TRAFFIC);
        NS_TEST_EXPECT_MSG_EQ(ep.GetCount(), 2 * sets * 16u, "AlltoAllv operations");
        NS_TEST_EXPECT_MSG_EQ(app->GetExpertGradientBytes(0),
                              (m_ep == 4 ? 8388608u : 16777216u),
                              "expert gradients per GPU");
        NS_TEST_EXPECT_MSG_EQ(app->GetDenseGradientBytes(0), 6242304u, "dense gradients");
        NS_TEST_EXPECT_MSG_EQ(app->GetBytes(J::DP_TRAFFIC), 2 * dpBytes, "DP bytes");
        NS_TEST_EXPECT_MSG_EQ(app->GetOperationTimes(J::DP_TRAFFIC).GetCount(),
                              2 * dpOps,
                              "DP AllReduces");
        NS_TEST_EXPECT_MSG_EQ(app->GetExpertImbalance().GetCount(), 2 * sets * 2u, "draws");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(app->GetExpertImbalance().GetMin(), 1.0, "max >= mean");
        // Dispatches move exactly the routings (S = 262,144); combines at least as much.
        const uint64_t dispatchS = 262144;
        NS_TEST_ASSERT_MSG_EQ(m_sizes.size(), ep.GetCount(), "traced");
        uint32_t exact = 0;
        for (uint64_t size : m_sizes)
        {
            NS_TEST_EXPECT_MSG_GT_OR_EQ(size, dispatchS, "S of an AlltoAllv");
            exact += size == dispatchS ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_GT_OR_EQ(exact, m_sizes.size() / 2, "every dispatch");
        const double uniform = app->GetExpertImbalance().GetMean();
        const Time uniformTime = app->GetIterationTimes().back();
        Simulator::Destroy();

        Ptr<J> skewed = Run("ns3::ZipfGating[Exponent=1.5]");
        std::cout << GetName() << ": imbalance uniform " << uniform << ", Zipf 1.5 "
                  << skewed->GetExpertImbalance().GetMean() << "; iteration uniform "
                  << uniformTime.As(Time::US) << ", Zipf "
                  << skewed->GetIterationTimes().back().As(Time::US) << std::endl;
        NS_TEST_EXPECT_MSG_GT(skewed->GetExpertImbalance().GetMean(), uniform, "Zipf skews");
        Simulator::Destroy();
    }

    std::vector<uint64_t> m_sizes; //!< S of every EP operation of the last run
    uint32_t m_ep;                 //!< ExpertParallel
};

/**
 * Gradient overlap: the job of TrainingJobTrafficTestCase with its buckets started
 * as they fill during the last backward pass (OverlapGradientReduce) exposes less
 * reduction time after the last pass than with every bucket at the end of it.
 */
class TrainingJobOverlapTestCase : public TestCase
{
  public:
    TrainingJobOverlapTestCase()
        : TestCase("gradient buckets under the last backward pass expose less time")
    {
    }

  private:
    /// \param overlap OverlapGradientReduce \return mean exposed gradient time, s
    double Exposed(bool overlap)
    {
        ClusterDescription c = SmallCluster(4, 4, 4);
        c.gpusPerServer = 2;
        GpuCluster<ScheduledFabricHelper> f(c);
        Ptr<TrainingJobApplication> app =
            RunJob(f.collectives, {2, 2, 2, 1}, SmallDenseModel(4), [overlap](auto& job) {
                job.SetAttribute("Microbatches", UintegerValue(4));
                job.SetAttribute("GpuFlopRate", DoubleValue(1e12));
                job.SetAttribute("BucketBytes", UintegerValue(10000000));
                job.SetAttribute("OverlapGradientReduce", BooleanValue(overlap));
            });
        const double exposed = app->GetExposedGradientTime().GetMean();
        Simulator::Destroy();
        return exposed;
    }

    /// Run with and without overlap and compare the exposed time.
    void DoRun() override
    {
        const double with = Exposed(true);
        const double without = Exposed(false);
        std::cout << GetName() << ": exposed " << with * 1e6 << " us with overlap, "
                  << without * 1e6 << " us without" << std::endl;
        NS_TEST_EXPECT_MSG_GT(with, 0.0, "the last bucket is exposed");
        NS_TEST_EXPECT_MSG_LT(with, without, "overlap hides reduction");
    }
};

/// The suite.
class TrainingJobTestSuite : public TestSuite
{
  public:
    TrainingJobTestSuite()
        : TestSuite("ai-fabric-training-job", TestSuite::Type::UNIT)
    {
        AddTestCase(new TransformerPresetTestCase);
        AddTestCase(new TrainingJobComputeTestCase);
        AddTestCase(new TrainingJobTrafficTestCase<ScheduledFabricHelper>("scheduled", false));
        AddTestCase(new TrainingJobTrafficTestCase<EthernetClosHelper>("Ethernet", false));
        AddTestCase(new TrainingJobTrafficTestCase<ScheduledFabricHelper>("scheduled", true));
        AddTestCase(new TrainingJobBubbleTestCase("ns3::OneFOneBSchedule"));
        AddTestCase(new TrainingJobBubbleTestCase("ns3::GpipeSchedule"));
        AddTestCase(new TrainingJobMoeTestCase(4));
        AddTestCase(new TrainingJobMoeTestCase(2));
        AddTestCase(new TrainingJobOverlapTestCase);
    }
};

/// Registers the suite.
static TrainingJobTestSuite g_trainingJobTestSuite;
