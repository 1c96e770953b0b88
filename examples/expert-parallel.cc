/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Expert parallelism (a Mixture-of-Experts layer) on either fabric: --experts
// experts spread evenly over the --ranks GPUs of an EP group; every iteration each
// rank routes --tokensPerRank tokens to --topK distinct experts drawn by the gate
// (--gating uniform, zipf or hot, with --skew), dispatches them with an AlltoAllv
// of the drawn, uneven sizes (--bytesPerToken each), computes for the tokens it
// received (--computePerToken each), and combines the results back with the
// transposed AlltoAllv (ExpertParallelApplication).
//
// Prints each iteration's time, the load imbalance (max / mean tokens per expert
// and per rank), the dispatch, compute and combine times, and how long each rank
// waited for the most loaded one; writes the results as JSON and CSV in
// --resultsDir. --writeChakra=PREFIX also writes the first iteration as Chakra
// traces (its AlltoAllv as ALL_TO_ALL with the bytes per peer in split_bytes).
//
//   ./expert-parallel
//   ./expert-parallel --gating=zipf --skew=1.5 --fabric=ethernet
//   ./expert-parallel --ranks=8 --experts=8 --gating=hot --skew=0.5
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
    WorkloadExampleOptions options("expert-parallel");
    WorkloadOptions group =
        WorkloadOptions()
            .Count("ranks", "GPUs of the EP group (at least 2)", "16", 2, WorkloadOptions::HOSTS)
            .Word("gpus", "the group's GPUs, --ranks of them (0-7); empty: GPUs 0 .. ranks-1", "");
    ExpertParallelOptions workload;
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
    group.Parse(input, options.cluster.GetHosts());
    const auto ranks = static_cast<uint32_t>(group.GetNumber("ranks"));
    workload.Parse(input, ranks, "ranks");
    chakra.Check(input);
    std::vector<uint32_t> firstGpus(ranks);
    for (uint32_t g = 0; g < ranks; ++g)
    {
        firstGpus[g] = g;
    }
    const std::vector<uint32_t> gpus =
        options.ParseGroup("gpus", group.GetText("gpus"), ranks, "ranks", firstGpus);

    WorkloadSimulation simulation(options);
    const TrainingApplicationHelper moe = workload.CreateHelper();
    ApplicationContainer apps =
        moe.Install(simulation.collectives.CreateCommunicator(gpus), simulation.collectives);
    Ptr<ExpertParallelApplication> app = DynamicCast<ExpertParallelApplication>(apps.Get(0));
    app->AssignStreams(100);

    std::ostringstream what;
    what << ranks << " GPUs (" << gpus.front() << " .. " << gpus.back()
         << "): " << workload.Describe();
    PrintHeader(options, what.str());
    chakra.Write(input, *app); // the first iteration's routing
    simulation.Run(apps);

    PrintIterationTimes(*app);
    std::printf("  imbalance (max / mean tokens): per expert mean %.3f max %.3f; per rank mean "
                "%.3f max %.3f\n",
                app->GetExpertImbalance().GetMean(),
                app->GetExpertImbalance().GetMax(),
                app->GetRankImbalance().GetMean(),
                app->GetRankImbalance().GetMax());
    std::cout << "  dispatch: " << FormatStatistics(app->GetDispatchTime()) << std::endl
              << "  compute:  " << FormatStatistics(app->GetComputeTime()) << std::endl
              << "  combine:  " << FormatStatistics(app->GetCombineTime()) << std::endl;
    Time mostWait;
    uint32_t mostWaiting = 0;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        if (app->GetWaitTime(r) > mostWait)
        {
            mostWait = app->GetWaitTime(r);
            mostWaiting = r;
        }
    }
    std::cout << "  waiting for the most loaded rank: up to " << mostWait.As(Time::US) << " (rank "
              << mostWaiting << ", GPU " << gpus[mostWaiting] << ")" << std::endl;
    simulation.PrintFabricTotals();
    WriteWorkloadResults(apps, options, "expert-parallel-" + options.fabric.fabric);
    Simulator::Destroy();
    return simulation.GetExitStatus();
}
