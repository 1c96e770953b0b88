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
    TensorParallelOptions workload;
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
    const TrainingApplicationHelper tensor = workload.CreateHelper();
    ApplicationContainer apps =
        tensor.Install(simulation.collectives.CreateCommunicator(workload.gpus),
                       simulation.collectives);
    Ptr<TensorParallelApplication> app = DynamicCast<TensorParallelApplication>(apps.Get(0));
    app->AssignStreams(100);

    PrintHeader(options, workload.Describe());
    chakra.Write(options.input, *app);
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
