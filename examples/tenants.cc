/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Tenants on either fabric: --jobs jobs of --jobGpus GPUs each, every one on its
// own GPUs with its own communicator and metrics, sharing one fabric. --workloads
// lists the jobs' kinds, cycled over the jobs: dp (data parallel: gradient
// AllReduce in buckets) or moe (expert parallel: dispatch and combine AlltoAllv);
// dp,moe makes job 0 data parallel and job 1 an MoE layer.
// Each job first runs alone (a fresh simulation each, on the same GPUs), then all
// run together; the slowdown of a job is its mean iteration time shared over alone.
//
// Jobs own whole servers (--jobGpus a multiple of --gpusPerServer); --placement
// chooses which, k = jobGpus / gpusPerServer servers per job:
//
//   disjoint     job j takes servers j x k .. j x k + k - 1: with the default
//                server NIC placement, whole leaves of its own when a leaf's servers
//                divide k (the jobs still meet in the spines, as every
//                leaf-to-leaf flow does);
//   interleaved  job j takes servers j, j + jobs, j + 2 x jobs, ...: the jobs share
//                every leaf's fabric ports and the spines.
//
// Default cluster: 4 leaves of 8 hosts (two 4-GPU servers a leaf, NICs on their
// server's leaf), 4 spines, 400 Gb/s: leaf uplinks at 2:1.
// A job's ranks are its GPUs in GPU order. Prints each job's GPUs and its iteration
// time alone and shared with the slowdown; writes every run's workload results and
// a table of the slowdowns (JSON and CSV) in --resultsDir.
//
//   ./tenants
//   ./tenants --placement=interleaved --fabric=ethernet
//   ./tenants --jobs=4 --jobGpus=8 --spines=2
//   ./tenants --workloads=dp,moe --placement=interleaved --fabric=ethernet
//
// The data-parallel workload's options (--gradientBytes, default 16M here,
// --bucketBytes, default 4M, ...) apply to every dp job, the expert-parallel
// ones (--experts, --tokensPerRank, --gating, ...) to every moe job, and
// --iterations to both; sizes take binary suffixes (K, M, G), times a
// unit (s, ms, us, ns). Every cluster field and fabric option is an option too. Bad input is
// refused before anything is built, with a message naming the option and its value and exit
// status 1.

#include "workload-example.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/**
 * \param cluster the cluster \param jobs how many \param jobGpus GPUs per job, a
 *        multiple of the GPUs of a server
 * \param interleaved interleaved (else disjoint) placement
 * \return every job's GPUs, in GPU order (see the placements above)
 */
std::vector<std::vector<uint32_t>>
PlaceJobs(const ClusterDescription& cluster, uint32_t jobs, uint32_t jobGpus, bool interleaved)
{
    const uint32_t serversPerJob = jobGpus / cluster.gpusPerServer;
    std::vector<std::vector<uint32_t>> placement(jobs);
    for (uint32_t job = 0; job < jobs; ++job)
    {
        for (uint32_t i = 0; i < serversPerJob; ++i)
        {
            const uint32_t server = interleaved ? job + i * jobs : job * serversPerJob + i;
            for (uint32_t local = 0; local < cluster.gpusPerServer; ++local)
            {
                placement[job].push_back(server * cluster.gpusPerServer + local);
            }
        }
        std::sort(placement[job].begin(), placement[job].end());
    }
    return placement;
}

/**
 * \param simulation the simulation the jobs run in
 * \param dp the data-parallel workload \param moe the expert-parallel workload
 * \param kinds every job's kind ("dp" or "moe")
 * \param gpus the GPUs of each job to install
 * \param jobs the jobs to install (indices into kinds and gpus)
 * \return the jobs' applications, in the order given
 */
ApplicationContainer
InstallJobs(WorkloadSimulation& simulation,
            const DataParallelOptions& dp,
            const ExpertParallelOptions& moe,
            const std::vector<std::string>& kinds,
            const std::vector<std::vector<uint32_t>>& gpus,
            const std::vector<uint32_t>& jobs)
{
    const TrainingApplicationHelper dpHelper = dp.CreateHelper();
    const TrainingApplicationHelper moeHelper = moe.CreateHelper();
    ApplicationContainer apps;
    for (uint32_t job : jobs)
    {
        const TrainingApplicationHelper& helper = kinds[job] == "moe" ? moeHelper : dpHelper;
        ApplicationContainer app =
            helper.Install(simulation.collectives.CreateCommunicator(gpus[job]),
                           simulation.collectives);
        if (auto experts = DynamicCast<ExpertParallelApplication>(app.Get(0)))
        {
            experts->AssignStreams(100 + job); // the same draws alone and shared
        }
        apps.Add(app);
    }
    return apps;
}

/// \param gpus some GPUs \return them as text, ranges folded (0-3,8-11)
std::string
FormatGpus(const std::vector<uint32_t>& gpus)
{
    std::string text;
    for (std::size_t i = 0; i < gpus.size();)
    {
        std::size_t j = i;
        while (j + 1 < gpus.size() && gpus[j + 1] == gpus[j] + 1)
        {
            ++j;
        }
        text += (text.empty() ? "" : ",") + std::to_string(gpus[i]) +
                (j > i ? "-" + std::to_string(gpus[j]) : "");
        i = j + 1;
    }
    return text;
}

} // namespace

int
main(int argc, char* argv[])
{
    RunRecord::Begin(argc, argv);
    WorkloadExampleOptions options("tenants");
    options.cluster.leaves = 4;
    options.cluster.hostsPerLeaf = 8;
    options.cluster.spines = 4;
    options.cluster.gpusPerServer = 4;
    options.cluster.nicPlacement = "server";
    DataParallelOptions workload;
    workload.options.SetDefault("gradientBytes", "16M"); // a few seconds for the three simulations
    workload.options.SetDefault("bucketBytes", "4M");
    std::string jobsText = "2";
    std::string jobGpusText = "16";
    std::string placement = "disjoint";
    std::string workloadsText = "dp";
    ExpertParallelOptions moe;

    CommandLine cmd(__FILE__);
    AddCheckedValue(cmd, "jobs", "jobs sharing the fabric (at least 2)", jobsText);
    AddCheckedValue(cmd,
                    "workloads",
                    "the jobs' kinds, cycled over the jobs: dp or moe (dp,moe: job 0 data "
                    "parallel, job 1 an MoE layer, ...)",
                    workloadsText);
    AddCheckedValue(cmd,
                    "jobGpus",
                    "GPUs of each job, whole servers (a multiple of gpusPerServer)",
                    jobGpusText);
    AddCheckedValue(cmd,
                    "placement",
                    "disjoint (each job on leaves of its own) or interleaved (every job on every "
                    "leaf)",
                    placement);
    workload.AddToCommandLine(cmd);
    moe.AddToCommandLine(cmd, false);
    options.AddToCommandLine(cmd);
    cmd.Parse(argc, argv);

    // Refuse bad input before anything is built.
    const ExampleInput& input = options.input;
    options.Check();
    workload.Parse(input);
    const uint32_t hosts = options.cluster.GetHosts();
    const auto jobs = static_cast<uint32_t>(input.ParseNumberIn("jobs", jobsText, 2, hosts / 2));
    const auto jobGpus =
        static_cast<uint32_t>(input.ParseNumberIn("jobGpus", jobGpusText, 2, hosts));
    if (uint64_t{jobs} * jobGpus > hosts)
    {
        input.Refuse("--jobs=" + jobsText + " of --jobGpus=" + jobGpusText + " need " +
                     std::to_string(uint64_t{jobs} * jobGpus) + " GPUs, the cluster has " +
                     std::to_string(hosts));
    }
    if (jobGpus % options.cluster.gpusPerServer != 0)
    {
        input.Refuse("--jobGpus=" + jobGpusText + " is not a multiple of gpusPerServer=" +
                     std::to_string(options.cluster.gpusPerServer) + " (jobs own whole servers)");
    }
    if (placement != "disjoint" && placement != "interleaved")
    {
        input.Refuse("--placement=" + placement + " is not a placement (disjoint or interleaved)");
    }
    const auto gpus = PlaceJobs(options.cluster, jobs, jobGpus, placement == "interleaved");
    std::vector<std::string> listed;
    {
        std::stringstream list(workloadsText);
        std::string item;
        while (std::getline(list, item, ','))
        {
            if (item != "dp" && item != "moe")
            {
                input.Refuse("--workloads=" + workloadsText + ": " + item +
                             " is not a workload (dp or moe)");
            }
            listed.push_back(item);
        }
        if (listed.empty() || workloadsText.back() == ',')
        {
            input.Refuse("--workloads=" + workloadsText + " has an empty item");
        }
    }
    std::vector<std::string> kinds(jobs);
    std::vector<uint32_t> all(jobs);
    for (uint32_t job = 0; job < jobs; ++job)
    {
        kinds[job] = listed[job % listed.size()];
        all[job] = job;
    }
    moe.options.SetDefault("iterations", workload.options.GetText("iterations"));
    moe.Parse(input, jobGpus, "jobGpus");

    std::ostringstream what;
    what << jobs << " jobs (" << workloadsText << ") of " << jobGpus << " GPUs, " << placement;
    if (std::find(kinds.begin(), kinds.end(), "dp") != kinds.end())
    {
        what << "; dp: " << workload.Describe();
    }
    if (std::find(kinds.begin(), kinds.end(), "moe") != kinds.end())
    {
        what << "; moe: " << moe.Describe();
    }
    options.CreateResultsDir();
    PrintHeader(options, what.str());
    const std::string name = "tenants-" + placement + "-" + options.fabric.fabric;

    // Each job alone, in a simulation of its own.
    std::vector<double> alone(jobs);
    std::vector<bool> aloneCompleted(jobs);
    std::vector<bool> sharedCompleted(jobs);
    bool completed = true;
    for (uint32_t job = 0; job < jobs; ++job)
    {
        {
            WorkloadSimulation simulation(options);
            ApplicationContainer apps = InstallJobs(simulation, workload, moe, kinds, gpus, {job});
            aloneCompleted[job] = simulation.Run(apps);
            completed = completed && aloneCompleted[job];
            alone[job] = GetMeanIterationTime(*DynamicCast<TrainingApplication>(apps.Get(0)));
            std::printf("  job %u (%s) alone on GPUs %s: iteration %.3f ms%s\n",
                        job,
                        kinds[job].c_str(),
                        FormatGpus(gpus[job]).c_str(),
                        alone[job] * 1e3,
                        aloneCompleted[job] ? "" : " (did not complete)");
            WriteWorkloadResults(apps, options, name + "-alone-job" + std::to_string(job));
        }
        Simulator::Destroy();
    }

    // All together.
    std::vector<double> shared(jobs);
    {
        WorkloadSimulation simulation(options);
        ApplicationContainer apps = InstallJobs(simulation, workload, moe, kinds, gpus, all);
        completed = simulation.Run(apps) && completed;
        std::cout << "  all " << jobs << " jobs together:" << std::endl;
        simulation.PrintFabricTotals();
        for (uint32_t job = 0; job < jobs; ++job)
        {
            Ptr<TrainingApplication> app = DynamicCast<TrainingApplication>(apps.Get(job));
            shared[job] = GetMeanIterationTime(*app);
            sharedCompleted[job] = !app->HasFailed();
        }
        WriteWorkloadResults(apps, options, name + "-shared");
    }
    Simulator::Destroy();

    nlohmann::json rows = nlohmann::json::array();
    std::ofstream csv(options.GetResultsPrefix(name + "-slowdown") + ".csv");
    csv << "job,workload,gpus,alone_us,shared_us,slowdown\n";
    std::printf("  %4s  %-4s  %-24s  %12s  %12s  %8s\n",
                "job",
                "kind",
                "GPUs",
                "alone (ms)",
                "shared (ms)",
                "slowdown");
    for (uint32_t job = 0; job < jobs; ++job)
    {
        // No slowdown of a job that did not complete alone or beside the others.
        const double slowdown =
            alone[job] > 0 && shared[job] > 0 && aloneCompleted[job] && sharedCompleted[job]
                ? shared[job] / alone[job]
                : 0;
        std::printf("  %4u  %-4s  %-24s  %12.3f  %12.3f  %8.4f\n",
                    job,
                    kinds[job].c_str(),
                    FormatGpus(gpus[job]).c_str(),
                    alone[job] * 1e3,
                    shared[job] * 1e3,
                    slowdown);
        csv << job << "," << kinds[job] << ",\"" << FormatGpus(gpus[job]) << "\","
            << alone[job] * 1e6 << "," << shared[job] * 1e6 << "," << slowdown << "\n";
        rows.push_back({{"job", job},
                        {"workload", kinds[job]},
                        {"gpus", gpus[job]},
                        {"aloneIterationTime_us", alone[job] * 1e6},
                        {"sharedIterationTime_us", shared[job] * 1e6},
                        {"aloneCompleted", bool(aloneCompleted[job])},
                        {"sharedCompleted", bool(sharedCompleted[job])},
                        {"slowdown", slowdown}});
    }
    const nlohmann::json summary = {
        {"scenario", "tenants"},
        {"fabric", options.fabric.fabric},
        {"congestionControl", options.congestionControl},
        {"cluster", options.cluster.ToString()},
        {"placement", placement},
        {"jobs", jobs},
        {"jobGpus", jobGpus},
        {"workloads", workloadsText},
        {"dataParallel", workload.Describe()},
        {"expertParallel", moe.Describe()},
        {"seed", RngSeedManager::GetSeed()},
        {"run", RngSeedManager::GetRun()},
        {"results", rows},
        {"runRecord", RunRecord::Get()},
    };
    std::ofstream(options.GetResultsPrefix(name + "-slowdown") + ".json")
        << summary.dump(2) << std::endl;
    std::cout << "  slowdowns in " << options.GetResultsPrefix(name + "-slowdown")
              << ".json and .csv" << std::endl;
    return completed ? 0 : 1;
}
