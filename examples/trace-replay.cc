/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Replay a workload someone already has, on either fabric: a SimAI / AICB workload
// file (--simai=FILE) or MLCommons Chakra execution traces, one per rank
// (--chakra=PREFIX reads PREFIX.0.et, PREFIX.1.et, ..., with process groups from
// --chakraGroups=FILE or the traces' metadata). Rank r runs on the r-th GPU of --gpus
// (GPUs 0 .. N-1 by default).
//
// Prints, per rank, when it finished and its time computing, communicating and
// communicating while not computing (exposed); the slowest rank and the critical
// path that ended the iteration; and per kind of traffic (TP, DP, EP, PP for SimAI
// and for traces this module wrote; otherwise each process group and point-to-point
// for Chakra) the operations, bytes and time.
// Writes the results as JSON and CSV in --resultsDir; --writeChakra=PREFIX also
// writes the workload read as Chakra traces (a SimAI file converted).
//
//   ./trace-replay --simai=workload.txt --gpusPerServer=8 --hostsPerLeaf=16
//   ./trace-replay --chakra=traces/all_reduce --fabric=ethernet
//
// Every cluster field and fabric option is an option too, and any model attribute
// can be set as --ns3::<Type>::<Attribute>=<value> (the replay's own:
// --ns3::ReplayApplication::GpuFlopRate). Bad input (a missing or corrupt file, an
// unknown collective, a dependency on a node that does not exist, a cycle, more
// ranks than GPUs) is refused before anything is built, naming the file, line or
// node, with exit status 1.

#include "workload-example.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

using namespace ns3;

int
main(int argc, char* argv[])
{
    RunRecord::Begin(argc, argv);
    WorkloadExampleOptions options("trace-replay");
    WorkloadOptions replay =
        WorkloadOptions()
            .Word("simai", "a SimAI / AICB workload file", "")
            .Word("chakra", "Chakra execution traces: PREFIX of PREFIX.<rank>.et", "")
            .Word("chakraGroups",
                  "Chakra process groups as JSON ({\"1\": [0, 1, 2, 3]}), as ASTRA-sim's "
                  "--comm-group-configuration",
                  "")
            .Word("gpus", "the job's GPUs, rank r on the r-th: GPU ranks and ranges (0-7,16)", "")
            .Word("writeChakra",
                  "also write the workload read as Chakra traces: PREFIX of PREFIX.<rank>.et",
                  "")
            .Iterations("1", "times the workload is replayed");

    CommandLine cmd(__FILE__);
    replay.AddToCommandLine(cmd);
    options.AddToCommandLine(cmd);
    cmd.Parse(argc, argv);

    // Refuse bad input before anything is built.
    const ExampleInput& input = options.input;
    options.Check();
    replay.Parse(input, options.cluster.GetHosts());
    const std::string& simai = replay.GetText("simai");
    const std::string& chakra = replay.GetText("chakra");
    const uint32_t clusterGpus = options.cluster.GetHosts();
    std::vector<uint32_t> gpus;
    if (!replay.GetText("gpus").empty())
    {
        gpus = options.ParseGpus("gpus", replay.GetText("gpus"));
    }
    const std::string& writeChakra = replay.GetText("writeChakra");
    if (!writeChakra.empty() && !FindOutputPathProblem(writeChakra).empty())
    {
        input.Refuse("--writeChakra=" + writeChakra + FindOutputPathProblem(writeChakra));
    }
    const std::string& chakraGroups = replay.GetText("chakraGroups");
    if (!chakraGroups.empty() && !std::ifstream(chakraGroups))
    {
        input.Refuse("--chakraGroups=" + chakraGroups + ": cannot be read");
    }
    options.CreateResultsDir();
    if (simai.empty() == chakra.empty())
    {
        input.Refuse(simai.empty() ? "give a workload: --simai=FILE or --chakra=PREFIX"
                                   : "--simai and --chakra: give one workload, not both");
    }
    if (!chakraGroups.empty() && chakra.empty())
    {
        input.Refuse("--chakraGroups=" + chakraGroups + " applies to --chakra only");
    }
    const uint32_t available = gpus.empty() ? clusterGpus : static_cast<uint32_t>(gpus.size());
    WorkloadGraph graph;
    if (!simai.empty())
    {
        const std::string problem = SimAiWorkloadReader::Read(simai, available, graph);
        if (!problem.empty())
        {
            input.Refuse("--simai: " + problem);
        }
    }
    else
    {
        const std::string problem = ChakraTraceReader::Read(chakra, available, chakraGroups, graph);
        if (!problem.empty())
        {
            input.Refuse("--chakra: " + problem);
        }
    }
    if (graph.GetRanks() > available)
    {
        input.Refuse((simai.empty() ? "--chakra=" + chakra : "--simai=" + simai) + ": " +
                     std::to_string(graph.GetRanks()) + " ranks, more than the " +
                     std::to_string(available) + " GPUs of " +
                     (gpus.empty() ? std::string("the cluster") : "--gpus"));
    }
    if (graph.GetRanks() < 2)
    {
        input.Refuse(graph.source + ": one rank; a replay needs at least 2");
    }
    if (gpus.empty())
    {
        for (uint32_t r = 0; r < graph.GetRanks(); ++r)
        {
            gpus.push_back(r);
        }
    }
    gpus.resize(graph.GetRanks());
    if (!writeChakra.empty())
    {
        const std::string problem = ChakraTraceWriter::Write(graph, writeChakra);
        if (!problem.empty())
        {
            input.Refuse("--writeChakra: " + problem);
        }
    }
    const auto shared = std::make_shared<const WorkloadGraph>(std::move(graph));

    WorkloadSimulation simulation(options);
    ReplayHelper helper;
    replay.Apply(helper);
    ApplicationContainer apps = helper.Install(shared,
                                               simulation.collectives.CreateCommunicator(gpus),
                                               simulation.collectives);
    Ptr<ReplayApplication> app = DynamicCast<ReplayApplication>(apps.Get(0));

    std::ostringstream what;
    what << shared->source << ": " << shared->GetRanks() << " ranks, " << shared->GetNodeCount()
         << " nodes, " << shared->operations.size() << " collectives";
    for (const auto& [key, value] : shared->description)
    {
        what << ", " << key << " " << value;
    }
    PrintHeader(options, what.str());
    for (const auto& [kind, count] : shared->unmodelled)
    {
        std::cout << "  not modelled: " << count << " x " << kind << " per iteration" << std::endl;
    }
    simulation.Run(apps);

    PrintIterationTimes(*app);
    const double iterations = std::max<uint32_t>(1, app->GetIterationsDone());
    const auto ms = [iterations](Time t) { return t.GetSeconds() * 1e3 / iterations; };
    std::cout << "  per rank, mean per iteration (ms): rank gpu finish compute communication "
                 "exposed"
              << std::endl;
    for (uint32_t r = 0; r < shared->GetRanks(); ++r)
    {
        const ReplayApplication::RankTimes& t = app->GetRankTimes(r);
        std::printf("    %4u %4u %10.3f %10.3f %10.3f %10.3f\n",
                    r,
                    gpus[r],
                    ms(t.finish),
                    ms(t.compute),
                    ms(t.communication),
                    ms(t.exposed));
    }
    const ReplayApplication::CriticalPath& path = app->GetCriticalPath();
    std::printf("  slowest rank %u (GPU %u); its critical path: %u nodes, %.3f ms = %.3f ms "
                "compute + %.3f ms communication (last iteration)\n",
                path.rank,
                gpus[path.rank],
                path.nodes,
                path.length.GetSeconds() * 1e3,
                path.compute.GetSeconds() * 1e3,
                path.communication.GetSeconds() * 1e3);
    std::cout << "  per kind of traffic, per iteration:" << std::endl;
    for (uint32_t k = 0; k < shared->trafficNames.size(); ++k)
    {
        const ReplayApplication::TrafficTotals& t = app->GetTrafficTotals(k);
        if (t.operations == 0)
        {
            continue; // a kind the workload does not have (no messages, say)
        }
        std::printf("    %-14s %8.0f operations %16.0f B %12.3f ms\n",
                    shared->trafficNames[k].c_str(),
                    t.operations / iterations,
                    t.bytes / iterations,
                    ms(t.time));
    }
    simulation.PrintFabricTotals();
    WriteWorkloadResults(apps, options, "trace-replay-" + options.fabric.fabric);
    Simulator::Destroy();
    return simulation.GetExitStatus();
}
