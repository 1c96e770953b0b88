/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Tensor parallelism on either fabric: a group of --tp GPUs (by default GPUs 0 ..
// tp-1: one server's scale-up domain, or across servers when tp is larger than a
// server) runs --layers layers forward and backward; every layer has
// --collectivesPerLayer blocks, each a compute phase (--forwardTime or
// --backwardTime, plus a normal draw of standard deviation --computeJitter) and an
// AllReduce of --activationBytes (a ReduceScatter and an AllGather with
// --sequenceParallel), all on the critical path (TensorParallelApplication).
//
// Prints each iteration's time and the operations' latency percentiles and jitter
// (standard deviation, p99 / p50); writes the results as JSON and CSV in
// --resultsDir.
//
//   ./tensor-parallel
//   ./tensor-parallel --tp=16 --fabric=ethernet --sequenceParallel
//   ./tensor-parallel --computeJitter=20us --slowGpu=2:2:0
//
// Sizes take binary suffixes (K, M, G); times a unit (s, ms, us, ns). Every cluster
// field and fabric option is an option too, and any model attribute can be set as
// --ns3::<Type>::<Attribute>=<value>. Bad input is refused before anything is
// built, with a message naming the option and its value and exit status 1.

#include "workload-example.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

int
main(int argc, char* argv[])
{
    RunRecord::Begin(argc, argv);
    WorkloadExampleOptions options("tensor-parallel");
    std::string tpText = "8";
    std::string gpusText;
    std::string layersText = "32";
    std::string collectivesPerLayerText = "2";
    std::string activationBytesText = "32M";
    std::string forwardTimeText = "300us";
    std::string backwardTimeText = "600us";
    std::string computeJitterText = "0";
    bool sequenceParallel = false;
    std::string iterationsText = "2";

    CommandLine cmd(__FILE__);
    AddCheckedValue(cmd, "tp", "T, the tensor-parallel group's size (at least 2)", tpText);
    AddCheckedValue(cmd,
                    "gpus",
                    "the group's GPUs, T of them (0-7); empty: GPUs 0 .. T-1",
                    gpusText);
    AddCheckedValue(cmd, "layers", "transformer layers per iteration", layersText);
    AddCheckedValue(cmd,
                    "collectivesPerLayer",
                    "blocks per layer, each compute then a collective (Megatron: 2)",
                    collectivesPerLayerText);
    AddCheckedValue(cmd,
                    "activationBytes",
                    "S of every collective: sequence x hidden x bytes per element x microbatch "
                    "(K, M, G suffixes)",
                    activationBytesText);
    AddCheckedValue(cmd,
                    "forwardTime",
                    "compute of one forward block on each rank (300us)",
                    forwardTimeText);
    AddCheckedValue(cmd,
                    "backwardTime",
                    "compute of one backward block on each rank",
                    backwardTimeText);
    AddCheckedValue(cmd,
                    "computeJitter",
                    "standard deviation of a normal draw added to every compute block (0: none)",
                    computeJitterText);
    AddCheckedValue(cmd,
                    "sequenceParallel",
                    "a ReduceScatter and an AllGather in place of each AllReduce",
                    sequenceParallel);
    AddCheckedValue(cmd, "iterations", "training iterations", iterationsText);
    options.AddToCommandLine(cmd);
    cmd.Parse(argc, argv);

    // Refuse bad input before anything is built.
    const ExampleInput& input = options.input;
    options.Check();
    const uint32_t hosts = options.cluster.GetHosts();
    const auto tp = static_cast<uint32_t>(input.ParseNumberIn("tp", tpText, 2, hosts));
    const uint64_t layers = input.ParseNumberIn("layers", layersText, 1, 1 << 20);
    const uint64_t collectivesPerLayer =
        input.ParseNumberIn("collectivesPerLayer", collectivesPerLayerText, 1, 1 << 10);
    const uint64_t activationBytes =
        input.ParseNumberIn("activationBytes", activationBytesText, 1, UINT64_MAX, true);
    const Time forwardTime = input.ParseTime("forwardTime", forwardTimeText);
    const Time backwardTime = input.ParseTime("backwardTime", backwardTimeText);
    const Time computeJitter = input.ParseTime("computeJitter", computeJitterText);
    const uint64_t iterations = input.ParseNumberIn("iterations", iterationsText, 1, UINT32_MAX);
    std::vector<uint32_t> firstGpus(tp);
    for (uint32_t g = 0; g < tp; ++g)
    {
        firstGpus[g] = g;
    }
    const std::vector<uint32_t> gpus = options.ParseGroup("gpus", gpusText, tp, "tp", firstGpus);

    WorkloadSimulation simulation(options);
    TrainingApplicationHelper tensor("ns3::TensorParallelApplication");
    tensor.SetAttribute("Layers", UintegerValue(layers));
    tensor.SetAttribute("CollectivesPerLayer", UintegerValue(collectivesPerLayer));
    tensor.SetAttribute("ActivationBytes", UintegerValue(activationBytes));
    tensor.SetAttribute("ForwardComputeTime", TimeValue(forwardTime));
    tensor.SetAttribute("BackwardComputeTime", TimeValue(backwardTime));
    tensor.SetAttribute("SequenceParallel", BooleanValue(sequenceParallel));
    tensor.SetAttribute("Iterations", UintegerValue(iterations));
    if (computeJitter.IsStrictlyPositive())
    {
        std::ostringstream jitter;
        jitter.precision(17);
        jitter << "ns3::NormalRandomVariable[Mean=0|Variance="
               << computeJitter.GetSeconds() * computeJitter.GetSeconds() << "]";
        tensor.SetAttribute("ComputeJitter", StringValue(jitter.str()));
    }
    ApplicationContainer apps =
        tensor.Install(simulation.collectives.CreateCommunicator(gpus), simulation.collectives);
    Ptr<TensorParallelApplication> app = DynamicCast<TensorParallelApplication>(apps.Get(0));
    app->AssignStreams(100);

    std::ostringstream what;
    what << "a group of " << tp << " GPUs (" << gpus.front() << " .. " << gpus.back() << "), "
         << layers << " layers x " << collectivesPerLayer << " blocks, "
         << (sequenceParallel ? "ReduceScatter + AllGather" : "AllReduce") << " of "
         << activationBytes << " B, forward " << forwardTime.As(Time::US) << ", backward "
         << backwardTime.As(Time::US) << ", jitter " << computeJitter.As(Time::US) << ", "
         << iterations << " iterations";
    PrintHeader(options, what.str());
    simulation.Run(apps);

    PrintIterationTimes(*app);
    std::cout << "  " << app->GetOperationsPerIteration()
              << " operations per iteration: " << FormatStatistics(app->GetOperationLatency())
              << std::endl;
    std::printf("  jitter: standard deviation %.2f us, p99 / p50 %.4f; compute jitter applied "
                "%.1f us in total\n",
                app->GetLatencyStdDev() * 1e6,
                app->GetLatencyTailRatio(),
                app->GetComputeJitterTotal().GetSeconds() * 1e6);
    simulation.PrintFabricTotals();
    WriteWorkloadResults(apps, options, "tensor-parallel-" + options.fabric.fabric);
    Simulator::Destroy();
    return simulation.GetExitStatus();
}
