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
    PipelineParallelOptions workload;
    ChakraOutputOption chakra;

    CommandLine cmd(__FILE__);
    workload.AddToCommandLine(cmd);
    chakra.AddToCommandLine(cmd);
    options.AddToCommandLine(cmd);
    cmd.Parse(argc, argv);

    // Refuse bad input before anything is built.
    options.Check();
    workload.Parse(options);
    chakra.Check(options.input);

    WorkloadSimulation simulation(options);
    const TrainingApplicationHelper pp = workload.CreateHelper();
    ApplicationContainer apps = pp.Install(simulation.collectives.CreateCommunicator(workload.gpus),
                                           simulation.collectives);
    Ptr<PipelineParallelApplication> app = DynamicCast<PipelineParallelApplication>(apps.Get(0));

    PrintHeader(options, workload.Describe());
    chakra.Write(options.input, *app);
    simulation.Run(apps);

    PrintIterationTimes(*app);
    const auto stages = static_cast<uint32_t>(workload.options.GetNumber("stages"));
    const uint64_t microbatches = workload.options.GetNumber("microbatches");
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
