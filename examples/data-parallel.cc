/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Data parallelism on either fabric: every GPU of --gpus holds a replica, computes a
// forward (--forwardTime) and a backward pass (--backwardTime) per iteration, and
// AllReduces --gradientBytes of gradients in buckets of --bucketBytes that overlap
// the backward pass (DataParallelApplication, as PyTorch DDP).
//
// Prints each iteration's time, its exposed communication (what the overlap did not
// hide), the bucket AllReduce times and, with a straggler, how long every rank
// waited for the slowest; writes the results as JSON and CSV in --resultsDir.
//
//   ./data-parallel
//   ./data-parallel --fabric=ethernet --gradientBytes=256M --bucketBytes=25M
//   ./data-parallel --slowGpu=3:1.5:0 --slowNic=9:0.5:5ms
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
#include <limits>
#include <string>
#include <vector>

using namespace ns3;

int
main(int argc, char* argv[])
{
    RunRecord::Begin(argc, argv);
    WorkloadExampleOptions options("data-parallel");
    WorkloadOptions group =
        WorkloadOptions().Word("gpus",
                               "the data-parallel group: all, or GPU ranks and ranges (0-7,16)",
                               "all");
    DataParallelOptions workload;
    ChakraOutputOption chakra;

    CommandLine cmd(__FILE__);
    group.AddToCommandLine(cmd);
    workload.AddToCommandLine(cmd);
    chakra.AddToCommandLine(cmd);
    options.AddToCommandLine(cmd);
    cmd.Parse(argc, argv);

    // Refuse bad input before anything is built.
    const ExampleInput& input = options.input;
    options.Check();
    workload.Parse(input);
    chakra.Check(input);
    const std::string& gpusText = group.GetText("gpus");
    const std::vector<uint32_t> gpus =
        gpusText == "all"
            ? options.ParseGpus("gpus", "0-" + std::to_string(options.cluster.GetHosts() - 1))
            : options.ParseGpus("gpus", gpusText);
    if (gpus.size() < 2)
    {
        input.Refuse("--gpus=" + gpusText + " must list at least 2 GPUs");
    }

    WorkloadSimulation simulation(options);
    const TrainingApplicationHelper dp = workload.CreateHelper();
    ApplicationContainer apps =
        dp.Install(simulation.collectives.CreateCommunicator(gpus), simulation.collectives);
    Ptr<DataParallelApplication> app = DynamicCast<DataParallelApplication>(apps.Get(0));

    std::ostringstream what;
    what << gpus.size() << " ranks, " << app->GetBuckets() << " buckets: " << workload.Describe();
    PrintHeader(options, what.str());
    chakra.Write(input, *app);
    simulation.Run(apps);

    PrintIterationTimes(*app);
    std::cout << "  exposed communication:";
    for (const Time& t : app->GetExposedCommunication())
    {
        std::printf(" %.3f ms", t.GetSeconds() * 1e3);
    }
    std::cout << std::endl
              << "  bucket AllReduce: " << FormatStatistics(app->GetBucketStatistics())
              << std::endl;
    Time mostWait;
    uint32_t mostWaited = 0;
    for (uint32_t rank = 0; rank < gpus.size(); ++rank)
    {
        if (app->GetWaitTime(rank) > mostWait)
        {
            mostWait = app->GetWaitTime(rank);
            mostWaited = rank;
        }
    }
    if (mostWait.IsStrictlyPositive())
    {
        std::cout << "  waited for the slowest rank: longest rank " << mostWaited << " (GPU "
                  << gpus[mostWaited] << ") " << mostWait.As(Time::MS)
                  << " over the run; per rank in the results" << std::endl;
    }
    else
    {
        std::cout << "  no rank waited for another's gradients" << std::endl;
    }
    simulation.PrintFabricTotals();
    WriteWorkloadResults(apps, options, "data-parallel-" + options.fabric.fabric);
    Simulator::Destroy();
    return simulation.GetExitStatus();
}
