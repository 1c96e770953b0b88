/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// A training job that combines the four kinds of parallelism on either fabric:
// --tp x --pp x --dp GPUs (expert parallelism --ep carved out of dp) laid out in
// Megatron's order (TP innermost, inside a server; then DP; then PP), training a
// transformer (--model: a preset, or custom, with any size overridden) for
// --iterations iterations of --microbatches microbatches (TrainingJobApplication):
// TP collectives in every layer, stage-to-stage sends between pipeline stages,
// dispatch and combine AlltoAllv in MoE layers, and the gradient AllReduce in
// buckets under the last backward pass. Compute time follows from the model's
// FLOPs at --gpuTflops per GPU.
//
// Prints the model and layout, each iteration's time, the model FLOP/s achieved
// per GPU, every stage's bubble, and per kind of traffic its operations' times and
// bytes; writes the results as JSON and CSV in --resultsDir. --writeChakra=PREFIX
// also writes the first iteration as Chakra traces, one per GPU.
//
//   ./training-job
//   ./training-job --fabric=ethernet --schedule=gpipe --microbatches=8
//   ./training-job --model=mixtral-8x7b --layers=4 --tp=4 --pp=1 --dp=8 --ep=8
//   ./training-job --model=custom --hidden=4096 --layers=8 --sequenceLength=4096
//
// Presets: gpt3-1.3b, gpt3-175b, llama2-70b, mixtral-8x7b (sources in
// doc/ai-fabric.rst); a preset's full size needs far more GPUs than a small
// cluster has, so --layers (a multiple of --pp) keeps the run short. Sizes take
// binary suffixes (K, M, G); times a unit. Every cluster field and fabric option
// is an option too, and any model attribute can be set as
// --ns3::<Type>::<Attribute>=<value>. Bad input is refused before anything is
// built, with a message naming the option and its value and exit status 1.

#include "workload-example.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// A TransformerModel attribute settable from the command line (empty: the preset's).
struct ModelOption
{
    const char* option;    //!< command-line name
    const char* attribute; //!< TransformerModel attribute
    const char* help;      //!< help text
    uint64_t min;          //!< smallest value
    std::string text;      //!< as given
};

} // namespace

int
main(int argc, char* argv[])
{
    RunRecord::Begin(argc, argv);
    WorkloadExampleOptions options("training-job");
    // Four 8-GPU servers, rail-optimised: rail g is leaf g, 4 hosts a leaf.
    options.cluster.leaves = 8;
    options.cluster.hostsPerLeaf = 4;
    options.cluster.spines = 4;
    std::string modelName = "gpt3-1.3b";
    std::vector<ModelOption> modelOptions{
        {"layers", "Layers", "transformer layers (a multiple of --pp)", 1, ""},
        {"hidden", "Hidden", "hidden size", 1, ""},
        {"ffnHidden", "FfnHidden", "MLP (expert) inner size", 1, ""},
        {"kvHidden", "KvHidden", "key/value size (0: hidden, no grouped-query attention)", 0, ""},
        {"vocabulary", "Vocabulary", "vocabulary size", 0, ""},
        {"sequenceLength", "SequenceLength", "tokens per sequence", 1, ""},
        {"microbatchSize", "MicrobatchSize", "sequences per microbatch", 1, ""},
        {"bytesPerElement", "BytesPerElement", "bytes per activation element", 1, ""},
        {"experts", "Experts", "experts per MoE layer (0: dense)", 0, ""},
        {"topK", "TopK", "experts per token", 1, ""},
        {"moeInterval", "MoeLayerInterval", "one MoE layer every this many", 1, ""},
    };
    // The parallelism, read before the job's options: the checks between them
    // come first.
    WorkloadOptions parallelism =
        WorkloadOptions()
            .Count("tp",
                   "tensor-parallel degree (each TP group inside a server: tp divides "
                   "gpusPerServer)",
                   "8",
                   1,
                   WorkloadOptions::HOSTS,
                   "TensorParallel")
            .Count("pp", "pipeline stages", "2", 1, WorkloadOptions::HOSTS, "PipelineParallel")
            .Count("dp", "data-parallel degree", "2", 1, WorkloadOptions::HOSTS, "DataParallel")
            .Count("ep",
                   "expert-parallel degree (divides dp and the experts)",
                   "1",
                   1,
                   WorkloadOptions::HOSTS,
                   "ExpertParallel")
            .Word("gpus", "the job's GPUs, tp x pp x dp of them (0-31); empty: GPUs 0 .. N-1", "");
    WorkloadOptions job =
        WorkloadOptions()
            .Count("microbatches",
                   "microbatches per iteration per replica",
                   "4",
                   1,
                   UINT32_MAX,
                   "Microbatches")
            .Word("schedule",
                  "pipeline schedule: 1f1b or gpipe",
                  "1f1b",
                  {"1f1b", "gpipe"},
                  "a schedule")
            .Real("gpuTflops",
                  "TFLOP/s one GPU achieves (400: an H100 at 40% of its dense BF16 peak)",
                  "400")
            .Flag("sequenceParallel",
                  "ReduceScatter + AllGather in place of each TP AllReduce",
                  false,
                  "SequenceParallel")
            .Bytes("bucketBytes",
                   "gradient bytes per GPU in one DP bucket",
                   "80000000",
                   1,
                   UINT64_MAX,
                   "BucketBytes")
            .Flag("overlap",
                  "start gradient buckets under the last backward pass (false: after it)",
                  true,
                  "OverlapGradientReduce")
            .Iterations("1");
    GatingOptions gate;
    ChakraOutputOption chakra;

    CommandLine cmd(__FILE__);
    AddCheckedValue(cmd,
                    "model",
                    "the model: gpt3-1.3b, gpt3-175b, llama2-70b, mixtral-8x7b or custom "
                    "(the sizes' defaults)",
                    modelName);
    for (ModelOption& m : modelOptions)
    {
        AddCheckedValue(cmd, m.option, std::string(m.help) + " (empty: the model's)", m.text);
    }
    parallelism.AddToCommandLine(cmd);
    job.AddToCommandLine(cmd);
    gate.AddToCommandLine(cmd);
    chakra.AddToCommandLine(cmd);
    options.AddToCommandLine(cmd);
    cmd.Parse(argc, argv);

    // Refuse bad input before anything is built.
    const ExampleInput& input = options.input;
    options.Check();
    Ptr<TransformerModel> model;
    {
        const std::vector<std::string> presets = TransformerModel::GetPresetNames();
        if (modelName != "custom" &&
            std::find(presets.begin(), presets.end(), modelName) == presets.end())
        {
            std::string known;
            for (const std::string& p : presets)
            {
                known += p + ", ";
            }
            input.Refuse("--model=" + modelName + " is not a preset (" + known + "custom)");
        }
        model = TransformerModel::CreatePreset(modelName);
    }
    for (const ModelOption& m : modelOptions)
    {
        if (!m.text.empty())
        {
            model->SetAttribute(
                m.attribute,
                UintegerValue(input.ParseNumberIn(m.option, m.text, m.min, UINT32_MAX, true)));
        }
    }
    const std::string problem = model->FindProblem();
    if (!problem.empty())
    {
        input.Refuse("the model: " + problem);
    }
    const uint32_t hosts = options.cluster.GetHosts();
    parallelism.Parse(input, hosts);
    const auto tp = static_cast<uint32_t>(parallelism.GetNumber("tp"));
    const auto pp = static_cast<uint32_t>(parallelism.GetNumber("pp"));
    const auto dp = static_cast<uint32_t>(parallelism.GetNumber("dp"));
    const auto ep = static_cast<uint32_t>(parallelism.GetNumber("ep"));
    const std::string& tpText = parallelism.GetText("tp");
    const std::string& ppText = parallelism.GetText("pp");
    const std::string& dpText = parallelism.GetText("dp");
    const std::string& epText = parallelism.GetText("ep");
    const std::string& gpusText = parallelism.GetText("gpus");
    const uint64_t n = uint64_t{tp} * pp * dp;
    if (n > hosts)
    {
        input.Refuse("--tp=" + tpText + " x --pp=" + ppText + " x --dp=" + dpText + " = " +
                     std::to_string(n) + " GPUs, more than the cluster's " + std::to_string(hosts));
    }
    if (dp % ep != 0)
    {
        input.Refuse("--ep=" + epText + " does not divide --dp=" + dpText);
    }
    if (model->GetLayers() % pp != 0)
    {
        input.Refuse("--pp=" + ppText + " does not divide the model's " +
                     std::to_string(model->GetLayers()) + " layers (--layers)");
    }
    if (model->GetExperts() == 0 && ep > 1)
    {
        input.Refuse("--ep=" + epText + " for a model without experts (--experts)");
    }
    if (model->GetExperts() % ep != 0)
    {
        input.Refuse("--ep=" + epText + " does not divide the model's " +
                     std::to_string(model->GetExperts()) + " experts");
    }
    if (model->GetExperts() > 0 && model->GetTokensPerMicrobatch() % tp != 0)
    {
        input.Refuse("--tp=" + tpText + " does not divide a microbatch's " +
                     std::to_string(model->GetTokensPerMicrobatch()) + " tokens");
    }
    job.Parse(input, hosts);
    const double gpuTflops = job.GetReal("gpuTflops");
    if (!(gpuTflops > 0) || gpuTflops > 1e9)
    {
        input.Refuse("--gpuTflops=" + job.GetText("gpuTflops") +
                     " must be above 0 (and at most 1e9)");
    }
    gate.Parse(input);
    chakra.Check(input);
    std::vector<uint32_t> gpus(n);
    for (uint32_t g = 0; g < n; ++g)
    {
        gpus[g] = g;
    }
    if (!gpusText.empty())
    {
        gpus = options.ParseGpus("gpus", gpusText);
        if (gpus.size() != n)
        {
            input.Refuse("--gpus=" + gpusText + " lists " + std::to_string(gpus.size()) +
                         " GPUs, the job has tp x pp x dp = " + std::to_string(n));
        }
    }

    // Every TP group inside one server (on its scale-up domain), as --tp says: a
    // group that spans servers would send its fine-grained collectives over the NICs.
    {
        Ptr<JobLayout> layout = CreateObject<JobLayout>();
        parallelism.ApplyWith([&layout](const std::string& name, const AttributeValue& value) {
            layout->SetAttribute(name, value);
        });
        layout->Setup(gpus);
        for (const std::vector<uint32_t>& group : layout->GetGroups(JobLayout::TENSOR))
        {
            const uint32_t server = options.cluster.GetServerOfRank(group.front());
            for (uint32_t gpu : group)
            {
                if (options.cluster.GetServerOfRank(gpu) == server)
                {
                    continue;
                }
                std::string members;
                for (uint32_t member : group)
                {
                    members += (members.empty() ? "" : ",") + std::to_string(member);
                }
                input.Refuse(
                    "--tp=" + tpText + (gpusText.empty() ? "" : " with --gpus=" + gpusText) +
                    ": TP group of GPUs " + members + " spans servers " + std::to_string(server) +
                    " and " + std::to_string(options.cluster.GetServerOfRank(gpu)) +
                    " (--gpusPerServer=" + std::to_string(options.cluster.gpusPerServer) +
                    "); a tensor-parallel group must be inside a server (tp dividing "
                    "--gpusPerServer, the job's GPUs whole servers or aligned parts)");
            }
        }
    }

    WorkloadSimulation simulation(options);
    TrainingJobHelper helper;
    parallelism.ApplyWith([&helper](const std::string& name, const AttributeValue& value) {
        helper.SetLayoutAttribute(name, value);
    });
    helper.SetAttribute("Model", PointerValue(model));
    job.Apply(helper);
    helper.SetAttribute("Schedule",
                        TypeIdValue(TypeId::LookupByName(job.GetText("schedule") == "gpipe"
                                                             ? "ns3::GpipeSchedule"
                                                             : "ns3::OneFOneBSchedule")));
    helper.SetAttribute("GpuFlopRate", DoubleValue(gpuTflops * 1e12));
    helper.SetAttribute("Gating", StringValue(gate.GetSpec()));
    ApplicationContainer apps = helper.Install(gpus, simulation.collectives);
    Ptr<TrainingJobApplication> app = DynamicCast<TrainingJobApplication>(apps.Get(0));
    app->AssignStreams(100);

    std::ostringstream what;
    what << model->GetName() << " (" << model->GetParameters() / 1e9 << " B parameters, "
         << model->GetLayers() << " layers, hidden " << model->GetHidden() << ", sequence "
         << model->GetSequenceLength();
    if (model->GetExperts() > 0)
    {
        what << ", " << model->GetMoeLayers() << " MoE layers of " << model->GetExperts()
             << " experts, top " << model->GetTopK() << ", gating " << gate.Describe();
    }
    what << ") on " << n << " GPUs: " << app->GetLayout()->ToString() << "; "
         << job.Describe("{microbatches} microbatches, {schedule}, {gpuTflops} TFLOP/s per GPU, "
                         "{iterations} iterations");
    PrintHeader(options, what.str());
    chakra.Write(input, *app); // MoE layers: the first iteration's routing
    simulation.Run(apps);

    PrintIterationTimes(*app);
    const double meanIteration = GetMeanIterationTime(*app);
    // No iteration completed (the job failed): no rate.
    const double achieved = meanIteration > 0 ? app->GetIterationFlops() / meanIteration / n : 0;
    std::printf("  model FLOP/s per GPU: %.1f TFLOP/s (%.1f%% of --gpuTflops)\n",
                achieved / 1e12,
                100 * achieved / (gpuTflops * 1e12));
    std::cout << "  bubble per stage:";
    for (uint32_t s = 0; s < pp; ++s)
    {
        std::printf(" %.3f", app->GetBubbleFraction(s));
    }
    std::cout << std::endl;
    const std::pair<const char*, TrainingJobApplication::Traffic> kinds[] = {
        {"TP", TrainingJobApplication::TP_TRAFFIC},
        {"PP", TrainingJobApplication::PP_TRAFFIC},
        {"EP", TrainingJobApplication::EP_TRAFFIC},
        {"DP", TrainingJobApplication::DP_TRAFFIC},
    };
    for (const auto& [name, traffic] : kinds)
    {
        if (app->GetOperationTimes(traffic).GetCount() == 0)
        {
            continue;
        }
        std::printf("  %s: %.3f GB per iteration; %s\n",
                    name,
                    static_cast<double>(app->GetBytes(traffic)) / 1e9 / job.GetNumber("iterations"),
                    FormatStatistics(app->GetOperationTimes(traffic)).c_str());
    }
    std::cout << "  gradient reduction exposed after the last backward pass: "
              << FormatMicroseconds(app->GetExposedGradientTime().GetMean()) << " per iteration"
              << std::endl;
    if (app->GetExpertImbalance().GetCount() > 0)
    {
        std::printf("  expert imbalance (max / mean tokens): mean %.3f, max %.3f\n",
                    app->GetExpertImbalance().GetMean(),
                    app->GetExpertImbalance().GetMax());
    }
    simulation.PrintFabricTotals();
    WriteWorkloadResults(apps, options, "training-job-" + options.fabric.fabric);
    Simulator::Destroy();
    return simulation.GetExitStatus();
}
