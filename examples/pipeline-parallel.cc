/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Pipeline parallelism on either fabric: --stages stages on GPUs (--gpus; by default
// spread evenly over the cluster, so consecutive stages talk over the scale-up
// domain or the fabric), --microbatches microbatches per iteration in the order of
// --schedule (gpipe or 1f1b), --activationBytes forward and --gradientBytes
// backward per microbatch between consecutive stages, --forwardTime and
// --backwardTime per pass (PipelineParallelApplication).
//
// Prints each iteration's time, every stage's bubble fraction (idle / total) and the
// most microbatches it held at once, and the stage-to-stage transfer latency
// percentiles; writes the results as JSON and CSV in --resultsDir.
//
//   ./pipeline-parallel
//   ./pipeline-parallel --schedule=gpipe --microbatches=16 --fabric=ethernet
//   ./pipeline-parallel --stages=3 --gpus=0,9,15 --slowGpu=9:2:5ms
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
    WorkloadExampleOptions options("pipeline-parallel");
    std::string stagesText = "4";
    std::string gpusText;
    std::string microbatchesText = "8";
    std::string schedule = "1f1b";
    std::string activationBytesText = "4M";
    std::string gradientBytesText = "0";
    std::string forwardTimeText = "1ms";
    std::string backwardTimeText = "2ms";
    std::string iterationsText = "2";

    CommandLine cmd(__FILE__);
    AddCheckedValue(cmd, "stages", "S, the pipeline stages (at least 2)", stagesText);
    AddCheckedValue(cmd,
                    "gpus",
                    "the stages' GPUs in stage order, S of them (0,4,8,12 or 0-3); empty: S GPUs "
                    "spread evenly over the cluster",
                    gpusText);
    AddCheckedValue(cmd,
                    "microbatches",
                    "M, microbatches per iteration (at least 1)",
                    microbatchesText);
    AddCheckedValue(cmd, "schedule", "order of each stage's passes: gpipe or 1f1b", schedule);
    AddCheckedValue(cmd,
                    "activationBytes",
                    "bytes a stage sends the next per microbatch, forward (K, M, G suffixes)",
                    activationBytesText);
    AddCheckedValue(
        cmd,
        "gradientBytes",
        "bytes a stage sends the previous per microbatch, backward (0: activationBytes)",
        gradientBytesText);
    AddCheckedValue(cmd,
                    "forwardTime",
                    "one stage's forward pass of one microbatch (1ms)",
                    forwardTimeText);
    AddCheckedValue(cmd,
                    "backwardTime",
                    "one stage's backward pass of one microbatch",
                    backwardTimeText);
    AddCheckedValue(cmd, "iterations", "training iterations", iterationsText);
    options.AddToCommandLine(cmd);
    cmd.Parse(argc, argv);

    // Refuse bad input before anything is built.
    const ExampleInput& input = options.input;
    options.Check();
    const uint32_t hosts = options.cluster.GetHosts();
    const auto stages = static_cast<uint32_t>(input.ParseNumberIn("stages", stagesText, 2, hosts));
    const uint64_t microbatches =
        input.ParseNumberIn("microbatches", microbatchesText, 1, UINT32_MAX / 2);
    TypeId scheduleType;
    if (schedule == "gpipe")
    {
        scheduleType = GpipeSchedule::GetTypeId();
    }
    else if (schedule == "1f1b")
    {
        scheduleType = OneFOneBSchedule::GetTypeId();
    }
    else
    {
        input.Refuse("--schedule=" + schedule + " is not a schedule (gpipe or 1f1b)");
    }
    const uint64_t activationBytes =
        input.ParseNumberIn("activationBytes", activationBytesText, 1, UINT64_MAX, true);
    const uint64_t gradientBytes = input.ParseNumber("gradientBytes", gradientBytesText, true);
    const Time forwardTime = input.ParseTime("forwardTime", forwardTimeText);
    const Time backwardTime = input.ParseTime("backwardTime", backwardTimeText);
    const uint64_t iterations = input.ParseNumberIn("iterations", iterationsText, 1, UINT32_MAX);
    std::vector<uint32_t> spread;
    for (uint32_t s = 0; s < stages; ++s)
    {
        spread.push_back(s * (hosts / stages));
    }
    const std::vector<uint32_t> gpus =
        options.ParseGroup("gpus", gpusText, stages, "stages", spread);

    WorkloadSimulation simulation(options);
    TrainingApplicationHelper pp("ns3::PipelineParallelApplication");
    pp.SetAttribute("Stages", UintegerValue(stages));
    pp.SetAttribute("Microbatches", UintegerValue(microbatches));
    pp.SetAttribute("Schedule", TypeIdValue(scheduleType));
    pp.SetAttribute("ActivationBytes", UintegerValue(activationBytes));
    pp.SetAttribute("GradientBytes", UintegerValue(gradientBytes));
    pp.SetAttribute("ForwardTime", TimeValue(forwardTime));
    pp.SetAttribute("BackwardTime", TimeValue(backwardTime));
    pp.SetAttribute("Iterations", UintegerValue(iterations));
    ApplicationContainer apps =
        pp.Install(simulation.collectives.CreateCommunicator(gpus), simulation.collectives);
    Ptr<PipelineParallelApplication> app = DynamicCast<PipelineParallelApplication>(apps.Get(0));

    std::ostringstream what;
    what << stages << " stages on GPUs";
    for (uint32_t gpu : gpus)
    {
        what << " " << gpu;
    }
    what << ", " << microbatches << " microbatches, " << schedule << ", " << activationBytes
         << " B activations, forward " << forwardTime.As(Time::MS) << ", backward "
         << backwardTime.As(Time::MS) << ", " << iterations << " iterations";
    PrintHeader(options, what.str());
    simulation.Run(apps);

    PrintIterationTimes(*app);
    const double ideal = double(stages - 1) / (microbatches + stages - 1);
    std::printf("  bubble fraction per stage (idle / total; (S-1)/(M+S-1) = %.3f without "
                "transfers):",
                ideal);
    for (uint32_t s = 0; s < stages; ++s)
    {
        std::printf(" %.3f", app->GetBubbleFraction(s));
    }
    std::cout << std::endl << "  most microbatches held per stage:";
    for (uint32_t s = 0; s < stages; ++s)
    {
        std::cout << " " << app->GetMaxInFlight(s);
    }
    const SampleStatistics& latency = app->GetTransferLatency();
    std::cout << std::endl
              << "  stage-to-stage transfers: " << FormatStatistics(latency) << ", p99.9 "
              << FormatMicroseconds(latency.GetPercentile(0.999)) << std::endl;
    simulation.PrintFabricTotals();
    WriteWorkloadResults(apps, options, "pipeline-parallel-" + options.fabric.fabric);
    Simulator::Destroy();
    return simulation.GetExitStatus();
}
