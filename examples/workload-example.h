/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_WORKLOAD_EXAMPLE_H
#define AI_FABRIC_WORKLOAD_EXAMPLE_H

// What the parallelism workload examples (data-parallel, pipeline-parallel,
// tensor-parallel, tenants) share: the cluster, fabric and transport options, the
// straggler options (--slowGpu, --slowNic), the results folder, the build of one
// simulation (fabric, RDMA, GPU servers, stragglers), and the summary lines they
// print.

#include "fabric-example.h"
#include "workload-options.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{

/// A GPU computing slower from a time on (--slowGpu=GPU:FACTOR:TIME).
struct GpuSlowdown
{
    uint32_t gpu{0};  //!< global GPU rank
    double factor{1}; //!< compute time multiplier (> 0; 2 is half speed)
    Time at;          //!< simulation time from which it holds
};

/// A NIC transmitting at a fraction of its rate from a time on
/// (--slowNic=HOST:FRACTION:TIME).
struct NicSlowdown
{
    uint32_t host{0};   //!< dense host index (the NIC)
    double fraction{1}; //!< of the host link rate, in (0, 1]
    Time at;            //!< simulation time from which it holds
};

/**
 * The options every workload example has, read and checked before anything is
 * built: the cluster (AddClusterToCommandLine), the fabric
 * (FabricExampleOptions), the RDMA congestion control, the stragglers and the
 * results folder.
 */
class WorkloadExampleOptions
{
  public:
    /// \param program the example's name: refusals start with it, results go to
    ///        results/\<program\>/ by default
    explicit WorkloadExampleOptions(const std::string& program)
        : input(program),
          resultsDir("results/" + program)
    {
        // Two servers of 8 GPUs, rail-optimised: rail g is leaf g, with one NIC of
        // each server; 400 Gb/s NICs and fabric links.
        cluster.leaves = 8;
        cluster.hostsPerLeaf = 2;
        cluster.spines = 4;
    }

    /// \param cmd the command line to add the shared options to
    void AddToCommandLine(CommandLine& cmd)
    {
        AddClusterToCommandLine(cmd, cluster);
        fabric.AddToCommandLine(cmd);
        AddCheckedValue(cmd,
                        "congestionControl",
                        "RDMA congestion control: None, Dcqcn, or auto (None on the scheduled "
                        "fabric, Dcqcn on the Ethernet Clos)",
                        congestionControl);
        AddCheckedValue(cmd,
                        "slowGpu",
                        "stragglers: GPU:FACTOR:TIME[,GPU:FACTOR:TIME...], GPU (global rank) "
                        "computing FACTOR times slower from TIME on (2:1.5:0 = GPU 2 at two thirds "
                        "of its speed from the start)",
                        slowGpuText);
        AddCheckedValue(cmd,
                        "slowNic",
                        "impaired NICs: HOST:FRACTION:TIME[,...], host HOST's NIC sending at "
                        "FRACTION (0..1] of the host link rate from TIME on (5:0.5:10ms)",
                        slowNicText);
        AddCheckedValue(cmd, "resultsDir", "folder of the JSON and CSV results", resultsDir);
    }

    /**
     * Check the shared options after CommandLine::Parse, refusing bad ones by name:
     * the fabric and cluster, the congestion control, every straggler (GPU and host
     * in the cluster, factor above 0, fraction in (0, 1], time not negative). The results
     * folder is created later (CreateResultsDir).
     */
    void Check()
    {
        for (const std::string& problem : {fabric.FindProblem(),
                                           cluster.FindProblem(),
                                           cluster.FindServerProblem(),
                                           FindRdmaLinkProblem(cluster)})
        {
            if (!problem.empty())
            {
                input.Refuse(problem);
            }
        }
        const std::string ccProblem =
            fabric.ResolveCongestionControl(congestionControl, &congestionControlType);
        if (!ccProblem.empty())
        {
            input.Refuse(ccProblem);
        }
        for (const auto& fields : SplitStragglers("slowGpu", slowGpuText))
        {
            GpuSlowdown slow;
            slow.gpu =
                static_cast<uint32_t>(ParseIndex("slowGpu", fields, cluster.GetHosts(), "GPU"));
            slow.factor = input.ParseReal("slowGpu", fields[1], Join(fields));
            if (!(slow.factor > 0))
            {
                input.Refuse("--slowGpu=" + Join(fields) + ": factor " + fields[1] +
                             " must be above 0");
            }
            slow.at = input.ParseTime("slowGpu", fields[2], Join(fields));
            slowGpus.push_back(slow);
        }
        for (const auto& fields : SplitStragglers("slowNic", slowNicText))
        {
            NicSlowdown slow;
            slow.host =
                static_cast<uint32_t>(ParseIndex("slowNic", fields, cluster.GetHosts(), "host"));
            slow.fraction = input.ParseReal("slowNic", fields[1], Join(fields));
            if (!(slow.fraction > 0 && slow.fraction <= 1))
            {
                input.Refuse("--slowNic=" + Join(fields) + ": fraction " + fields[1] +
                             " must be in (0, 1]");
            }
            slow.at = input.ParseTime("slowNic", fields[2], Join(fields));
            slowNics.push_back(slow);
        }
    }

    /// Create the results folder (refuses --resultsDir if it cannot be); the last
    /// check, after every option has been read.
    void CreateResultsDir() const
    {
        std::error_code error;
        std::filesystem::create_directories(resultsDir, error);
        if (error || !std::filesystem::is_directory(resultsDir))
        {
            input.Refuse("--resultsDir=" + resultsDir + " cannot be created: " + error.message());
        }
    }

    /**
     * Read a list of global GPU ranks: comma-separated ranks and ranges (0-7,16,18).
     * \param option the option's name \param text what was given
     * \return the GPUs, in the order given (refuses a bad, unknown or repeated GPU)
     */
    std::vector<uint32_t> ParseGpus(const std::string& option, const std::string& text) const
    {
        std::vector<uint32_t> gpus;
        std::vector<bool> seen(cluster.GetHosts(), false);
        std::stringstream list(text);
        std::string item;
        while (std::getline(list, item, ','))
        {
            const std::size_t dash = item.find('-');
            const uint64_t first = input.ParseNumber(option, item.substr(0, dash), false);
            const uint64_t last = dash == std::string::npos
                                      ? first
                                      : input.ParseNumber(option, item.substr(dash + 1), false);
            if (last < first)
            {
                input.Refuse("--" + option + "=" + text + ": range " + item + " is empty");
            }
            for (uint64_t gpu = first; gpu <= last; ++gpu)
            {
                if (gpu >= cluster.GetHosts())
                {
                    input.Refuse("--" + option + "=" + text + ": GPU " + std::to_string(gpu) +
                                 " is not in the cluster (" + std::to_string(cluster.GetHosts()) +
                                 " GPUs)");
                }
                if (seen[gpu])
                {
                    input.Refuse("--" + option + "=" + text + ": GPU " + std::to_string(gpu) +
                                 " is listed twice");
                }
                seen[gpu] = true;
                gpus.push_back(static_cast<uint32_t>(gpu));
            }
        }
        if (gpus.empty())
        {
            input.Refuse("--" + option + "=" + text + " lists no GPU");
        }
        return gpus;
    }

    /**
     * Read the GPUs of a group of a given size.
     * \param option the list's option \param text the list (empty: the default)
     * \param count the group's size \param countOption the option that gave it
     * \param defaultGpus the group when the list is empty
     * \return the GPUs (refuses a list that is bad or not of count GPUs)
     */
    std::vector<uint32_t> ParseGroup(const std::string& option,
                                     const std::string& text,
                                     uint32_t count,
                                     const std::string& countOption,
                                     const std::vector<uint32_t>& defaultGpus) const
    {
        if (text.empty())
        {
            return defaultGpus;
        }
        std::vector<uint32_t> gpus = ParseGpus(option, text);
        if (gpus.size() != count)
        {
            input.Refuse("--" + option + "=" + text + " lists " + std::to_string(gpus.size()) +
                         " GPUs for --" + countOption + "=" + std::to_string(count));
        }
        return gpus;
    }

    /**
     * \param name a result file's name, without extension
     * \return its path in the results folder, without extension
     */
    std::string GetResultsPrefix(const std::string& name) const
    {
        return (std::filesystem::path(resultsDir) / name).string();
    }

    ExampleInput input;                    //!< refusals and number parsing
    ClusterDescription cluster;            //!< the cluster (--leaves, --gpusPerServer, ...)
    FabricExampleOptions fabric;           //!< the fabric (--fabric, ...)
    std::string congestionControl{"auto"}; //!< --congestionControl (auto resolved by Check)
    TypeId congestionControlType;          //!< its TypeId, after Check
    std::string slowGpuText;               //!< --slowGpu as given
    std::string slowNicText;               //!< --slowNic as given
    std::string resultsDir;                //!< --resultsDir
    std::vector<GpuSlowdown> slowGpus;     //!< after Check()
    std::vector<NicSlowdown> slowNics;     //!< after Check()

  private:
    /**
     * \param option slowGpu or slowNic \param text its value
     * \return each comma-separated item split at ':' into three fields (refuses an
     *         item with another number of fields)
     */
    std::vector<std::vector<std::string>> SplitStragglers(const std::string& option,
                                                          const std::string& text) const
    {
        std::vector<std::vector<std::string>> items;
        if (text.empty())
        {
            return items;
        }
        std::stringstream list(text);
        std::string item;
        while (std::getline(list, item, ','))
        {
            std::vector<std::string> fields;
            std::stringstream parts(item);
            std::string field;
            while (std::getline(parts, field, ':'))
            {
                fields.push_back(field);
            }
            if (fields.size() != 3 || item.back() == ':')
            {
                input.Refuse("--" + option + "=" + item + " is not " +
                             (option == "slowGpu" ? "GPU:FACTOR:TIME" : "HOST:FRACTION:TIME") +
                             " (as in " + (option == "slowGpu" ? "2:1.5:10ms" : "5:0.5:10ms") +
                             ")");
            }
            items.push_back(fields);
        }
        if (text.back() == ',')
        {
            input.Refuse("--" + option + "=" + text + " ends with an empty item");
        }
        return items;
    }

    /// \param fields a straggler's fields \return them joined with ':'
    static std::string Join(const std::vector<std::string>& fields)
    {
        std::string out;
        for (const auto& field : fields)
        {
            out += (out.empty() ? "" : ":") + field;
        }
        return out;
    }

    /**
     * \param option the option \param fields a straggler's fields
     * \param count GPUs or hosts in the cluster \param what "GPU" or "host"
     * \return its first field, a GPU or host of the cluster (refuses others)
     */
    uint64_t ParseIndex(const std::string& option,
                        const std::vector<std::string>& fields,
                        uint32_t count,
                        const std::string& what) const
    {
        const uint64_t index = input.ParseNumber(option, fields[0], false, Join(fields));
        if (index >= count)
        {
            input.Refuse("--" + option + "=" + Join(fields) + ": " + what + " " + fields[0] +
                         " is not in the cluster (" + std::to_string(count) + " " + what + "s)");
        }
        return index;
    }
};

/**
 * One simulation of a workload example: the fabric, RDMA transports on every NIC,
 * the GPU servers and their collectives, and the stragglers scheduled. Build a new
 * one for each run (after Simulator::Destroy()).
 */
class WorkloadSimulation
{
  public:
    /// \param options the checked options (WorkloadExampleOptions::Check)
    explicit WorkloadSimulation(const WorkloadExampleOptions& options)
        : m_options(options)
    {
        options.CreateResultsDir();
        m_fabric = options.fabric.Install(options.cluster);
        m_rdma.SetTransportAttribute("CongestionControl",
                                     TypeIdValue(options.congestionControlType));
        m_rdma.Install(m_fabric->GetHostDevices());
        collectives.Install(options.cluster, m_rdma);
        for (const GpuSlowdown& slow : options.slowGpus)
        {
            collectives.GetGpuCompute(slow.gpu)->ScheduleSlowdown(slow.factor, slow.at);
        }
        for (const NicSlowdown& slow : options.slowNics)
        {
            m_fabric->ScheduleNicSlowdown(slow.host, slow.fraction, slow.at);
        }
    }

    /**
     * Run the workloads to the end. They start 1 ns in, after any straggler that
     * holds from time 0 has taken effect. A workload whose communicator failed (the
     * RDMA transport gave up a message) stops; once every workload has finished or
     * stopped so, the run ends at once (nothing more can progress) and says why.
     * \param apps the TrainingApplications
     * \return whether every workload ran all its iterations (GetExitStatus)
     */
    bool Run(ApplicationContainer apps)
    {
        m_apps = apps;
        for (uint32_t i = 0; i < apps.GetN(); ++i)
        {
            Ptr<TrainingApplication> app = DynamicCast<TrainingApplication>(apps.Get(i));
            // Bound as the sinks take it (a pointer to const): a mismatched bound
            // type is undefined behaviour the sanitizers report.
            const ApplicationContainer* all = &m_apps;
            app->TraceConnectWithoutContext("Failed", MakeBoundCallback(&OnWorkloadFailed, all));
            app->TraceConnectWithoutContext("IterationDone",
                                            MakeBoundCallback(&OnIterationDone, all));
        }
        apps.Start(NanoSeconds(1));
        Simulator::Run();
        m_completed = true;
        for (uint32_t i = 0; i < apps.GetN(); ++i)
        {
            Ptr<TrainingApplication> app = DynamicCast<TrainingApplication>(apps.Get(i));
            UintegerValue iterations;
            app->GetAttribute("Iterations", iterations);
            if (app->HasFailed())
            {
                m_completed = false;
                m_failures.push_back(
                    "workload " + std::to_string(i) + " (" + app->GetInstanceTypeId().GetName() +
                    ") stopped after " + std::to_string(app->GetIterationsDone()) + " of " +
                    std::to_string(iterations.Get()) + " iterations: " + app->GetFailure());
                continue;
            }
            NS_ABORT_MSG_UNLESS(app->GetIterationsDone() == iterations.Get(),
                                m_options.input.GetProgram() << ": workload " << i << " completed "
                                                             << app->GetIterationsDone() << " of "
                                                             << iterations.Get() << " iterations");
        }
        if (!m_completed)
        {
            std::cout << "  the run ended at " << Simulator::Now().As(Time::MS)
                      << " without completing: nothing more could progress" << std::endl;
            for (const std::string& failure : m_failures)
            {
                std::cout << "  " << failure << std::endl;
            }
            std::cout << "  " << RdmaHelper::DescribeFailures(m_rdma.GetTotals()) << std::endl;
        }
        return m_completed;
    }

    /// \return the program's exit status: 0 if every workload completed (Run), else 1
    int GetExitStatus() const
    {
        return m_completed ? 0 : 1;
    }

    /// \return the fabric
    const ClusterFabricHelper& GetFabric() const
    {
        return *m_fabric;
    }

    /// Print the fabric's totals (offered, delivered, dropped, queues, events) and
    /// write the --json and --stats files, if asked for, with whether the workloads
    /// completed, why not, and the transports' failures.
    void PrintFabricTotals() const
    {
        nlohmann::json results = {{"scenario", m_options.input.GetProgram()},
                                  {"completed", m_completed}};
        if (!m_completed)
        {
            results["failures"] = m_failures;
        }
        AddRdmaTotals(m_rdma.GetTotals(), results);
        m_options.fabric.Report(*m_fabric, results);
    }

    CollectiveHelper collectives; //!< GPU servers, communicators, algorithms

  private:
    /// Stop the run once every workload has ended and one has failed (nothing more
    /// can progress; a run without failures ends when its events run out, as before).
    /// \param apps the workloads
    static void StopIfStalled(const ApplicationContainer* apps)
    {
        bool failed = false;
        for (uint32_t i = 0; i < apps->GetN(); ++i)
        {
            Ptr<TrainingApplication> app = DynamicCast<TrainingApplication>(apps->Get(i));
            if (!app->HasEnded())
            {
                return;
            }
            failed = failed || app->HasFailed();
        }
        if (failed)
        {
            Simulator::Stop();
        }
    }

    /// TrainingApplication::Failed sink. \param apps the workloads
    static void OnWorkloadFailed(const ApplicationContainer* apps, uint32_t, const std::string&)
    {
        StopIfStalled(apps);
    }

    /// TrainingApplication::IterationDone sink. \param apps the workloads
    static void OnIterationDone(const ApplicationContainer* apps, uint32_t, Time)
    {
        StopIfStalled(apps);
    }

    const WorkloadExampleOptions& m_options;       //!< the options
    std::unique_ptr<ClusterFabricHelper> m_fabric; //!< the fabric
    RdmaHelper m_rdma;                             //!< transports on every NIC
    ApplicationContainer m_apps;                   //!< the workloads (Run)
    bool m_completed{true};                        //!< every workload ran to its end
    std::vector<std::string> m_failures;           //!< why the workloads that failed did
};

/**
 * The data-parallel workload's options (DataParallelApplication's attributes), for
 * the examples that run data-parallel jobs.
 */
struct DataParallelOptions
{
    /// The options, each declared once.
    WorkloadOptions options =
        WorkloadOptions()
            .Bytes("gradientBytes",
                   "gradient bytes AllReduced per iteration (K, M, G suffixes)",
                   "32M",
                   1,
                   UINT64_MAX,
                   "GradientBytes")
            .Bytes("bucketBytes",
                   "bytes per gradient bucket (DDP's bucket_cap_mb)",
                   "8M",
                   1,
                   UINT64_MAX,
                   "BucketBytes")
            .Duration("forwardTime",
                      "forward pass of one iteration on each rank (10ms)",
                      "2ms",
                      "ForwardTime",
                      Time::MS,
                      true)
            .Duration("backwardTime",
                      "backward pass of one iteration on each rank",
                      "4ms",
                      "BackwardTime",
                      Time::MS,
                      true)
            .Iterations("2");

    /// \param cmd the command line to add the options to
    void AddToCommandLine(CommandLine& cmd)
    {
        options.AddToCommandLine(cmd);
    }

    /// Read the options, refusing bad ones by name. \param input the example's input
    void Parse(const ExampleInput& input)
    {
        options.Parse(input, 0);
    }

    /// \return a helper of DataParallelApplications with these attributes
    TrainingApplicationHelper CreateHelper() const
    {
        TrainingApplicationHelper dp("ns3::DataParallelApplication");
        options.Apply(dp);
        return dp;
    }

    /// \return the workload in words, one line
    std::string Describe() const
    {
        return options.Describe("{gradientBytes} B of gradients in buckets of {bucketBytes} B, "
                                "forward {forwardTime}, backward {backwardTime}, {iterations} "
                                "iterations");
    }
};

/**
 * --writeChakra: write one iteration of the workload as Chakra execution traces
 * (TrainingApplication::DescribeIteration, ChakraTraceWriter) for another simulator
 * or trace-replay, before the run.
 */
struct ChakraOutputOption
{
    std::string prefix; //!< --writeChakra ("" for none)

    /// \param cmd the command line to add the option to
    void AddToCommandLine(CommandLine& cmd)
    {
        AddCheckedValue(cmd,
                        "writeChakra",
                        "also write one iteration of the workload as Chakra traces: PREFIX of "
                        "PREFIX.<rank>.et",
                        prefix);
    }

    /// Refuse a prefix nothing can be written at. \param input the example's input
    void Check(const ExampleInput& input) const
    {
        if (!prefix.empty() && !FindOutputPathProblem(prefix).empty())
        {
            input.Refuse("--writeChakra=" + prefix + FindOutputPathProblem(prefix));
        }
    }

    /**
     * Write the traces if asked, refusing what cannot be written.
     * \param input the example's input \param app the workload, installed
     */
    void Write(const ExampleInput& input, TrainingApplication& app) const
    {
        if (prefix.empty())
        {
            return;
        }
        WorkloadGraph graph;
        std::string problem = app.DescribeIteration(graph);
        if (problem.empty())
        {
            problem = ChakraTraceWriter::Write(graph, prefix);
        }
        if (!problem.empty())
        {
            input.Refuse("--writeChakra=" + prefix + ": " + problem);
        }
        std::cout << "  one iteration written as Chakra traces: " << prefix << ".0.et .. " << prefix
                  << "." << graph.GetRanks() - 1 << ".et" << std::endl;
    }
};

/**
 * The pipeline-parallel workload's options (PipelineParallelApplication's
 * attributes, the stages' GPUs included).
 */
struct PipelineParallelOptions
{
    /// The options, each declared once.
    WorkloadOptions options =
        WorkloadOptions()
            .Count("stages",
                   "S, the pipeline stages (at least 2)",
                   "4",
                   2,
                   WorkloadOptions::HOSTS,
                   "Stages")
            .Word("gpus",
                  "the stages' GPUs in stage order, S of them (0,4,8,12 or 0-3); empty: S GPUs "
                  "spread evenly over the cluster",
                  "")
            .Count("microbatches",
                   "M, microbatches per iteration (at least 1)",
                   "8",
                   1,
                   UINT32_MAX / 2,
                   "Microbatches")
            .Word("schedule",
                  "order of each stage's passes: gpipe or 1f1b",
                  "1f1b",
                  {"gpipe", "1f1b"},
                  "a schedule")
            .Bytes("activationBytes",
                   "bytes a stage sends the next per microbatch, forward (K, M, G suffixes)",
                   "4M",
                   1,
                   UINT64_MAX,
                   "ActivationBytes")
            .Bytes("gradientBytes",
                   "bytes a stage sends the previous per microbatch, backward (0: activationBytes)",
                   "0",
                   0,
                   UINT64_MAX,
                   "GradientBytes")
            .Duration("forwardTime",
                      "one stage's forward pass of one microbatch (1ms)",
                      "1ms",
                      "ForwardTime",
                      Time::MS)
            .Duration("backwardTime",
                      "one stage's backward pass of one microbatch",
                      "2ms",
                      "BackwardTime",
                      Time::MS)
            .Iterations("2");
    std::vector<uint32_t> gpus; //!< the stages' GPUs, after Parse

    /// \param cmd the command line to add the options to
    void AddToCommandLine(CommandLine& cmd)
    {
        options.AddToCommandLine(cmd);
    }

    /// Read the options, refusing bad ones by name. \param shared the checked
    /// shared options (the cluster)
    void Parse(const WorkloadExampleOptions& shared)
    {
        const uint32_t hosts = shared.cluster.GetHosts();
        options.Parse(shared.input, hosts);
        const auto stages = static_cast<uint32_t>(options.GetNumber("stages"));
        std::vector<uint32_t> spread;
        for (uint32_t s = 0; s < stages; ++s)
        {
            spread.push_back(s * (hosts / stages));
        }
        gpus = shared.ParseGroup("gpus", options.GetText("gpus"), stages, "stages", spread);
    }

    /// \return a helper of PipelineParallelApplications with these attributes
    TrainingApplicationHelper CreateHelper() const
    {
        TrainingApplicationHelper pp("ns3::PipelineParallelApplication");
        options.Apply(pp);
        pp.SetAttribute("Schedule",
                        TypeIdValue(options.GetText("schedule") == "gpipe"
                                        ? GpipeSchedule::GetTypeId()
                                        : OneFOneBSchedule::GetTypeId()));
        return pp;
    }

    /// \return the workload in words, one line
    std::string Describe() const
    {
        std::ostringstream what;
        what << options.Describe("{stages} stages on GPUs");
        for (uint32_t gpu : gpus)
        {
            what << " " << gpu;
        }
        what << options.Describe(", {microbatches} microbatches, {schedule}, {activationBytes} B "
                                 "activations, forward {forwardTime}, backward {backwardTime}, "
                                 "{iterations} iterations");
        return what.str();
    }
};

/**
 * The tensor-parallel workload's options (TensorParallelApplication's attributes,
 * the group's GPUs included).
 */
struct TensorParallelOptions
{
    /// The options, each declared once.
    WorkloadOptions options =
        WorkloadOptions()
            .Count("tp",
                   "T, the tensor-parallel group's size (at least 2)",
                   "8",
                   2,
                   WorkloadOptions::HOSTS)
            .Word("gpus", "the group's GPUs, T of them (0-7); empty: GPUs 0 .. T-1", "")
            .Count("layers", "transformer layers per iteration", "32", 1, 1 << 20, "Layers")
            .Count("collectivesPerLayer",
                   "blocks per layer, each compute then a collective (Megatron: 2)",
                   "2",
                   1,
                   1 << 10,
                   "CollectivesPerLayer")
            .Bytes("activationBytes",
                   "S of every collective: sequence x hidden x bytes per element x microbatch "
                   "(K, M, G suffixes)",
                   "32M",
                   1,
                   UINT64_MAX,
                   "ActivationBytes")
            .Duration("forwardTime",
                      "compute of one forward block on each rank (300us)",
                      "300us",
                      "ForwardTime",
                      Time::US)
            .Duration("backwardTime",
                      "compute of one backward block on each rank",
                      "600us",
                      "BackwardTime",
                      Time::US)
            .Duration("computeJitter",
                      "standard deviation of a normal draw added to every compute block (0: none)",
                      "0",
                      "",
                      Time::US)
            .Flag("sequenceParallel",
                  "a ReduceScatter and an AllGather in place of each AllReduce",
                  false,
                  "SequenceParallel",
                  {"AllReduce", "ReduceScatter + AllGather"})
            .Iterations("2");
    std::vector<uint32_t> gpus; //!< the group's GPUs, after Parse

    /// \param cmd the command line to add the options to
    void AddToCommandLine(CommandLine& cmd)
    {
        options.AddToCommandLine(cmd);
    }

    /// Read the options, refusing bad ones by name. \param shared the checked
    /// shared options (the cluster)
    void Parse(const WorkloadExampleOptions& shared)
    {
        options.Parse(shared.input, shared.cluster.GetHosts());
        const auto tp = static_cast<uint32_t>(options.GetNumber("tp"));
        std::vector<uint32_t> firstGpus(tp);
        for (uint32_t g = 0; g < tp; ++g)
        {
            firstGpus[g] = g;
        }
        gpus = shared.ParseGroup("gpus", options.GetText("gpus"), tp, "tp", firstGpus);
    }

    /// \return a helper of TensorParallelApplications with these attributes
    TrainingApplicationHelper CreateHelper() const
    {
        TrainingApplicationHelper tensor("ns3::TensorParallelApplication");
        options.Apply(tensor);
        const Time jitter = options.GetTime("computeJitter");
        if (jitter.IsStrictlyPositive())
        {
            std::ostringstream normal;
            normal.precision(17);
            normal << "ns3::NormalRandomVariable[Mean=0|Variance="
                   << jitter.GetSeconds() * jitter.GetSeconds() << "]";
            tensor.SetAttribute("ComputeJitter", StringValue(normal.str()));
        }
        return tensor;
    }

    /// \return the workload in words, one line
    std::string Describe() const
    {
        std::ostringstream what;
        what << options.Describe("a group of {tp} GPUs (") << gpus.front() << " .. " << gpus.back()
             << options.Describe("), {layers} layers x {collectivesPerLayer} blocks, "
                                 "{sequenceParallel} of {activationBytes} B, forward "
                                 "{forwardTime}, backward {backwardTime}, jitter "
                                 "{computeJitter}, {iterations} iterations");
        return what.str();
    }
};

/**
 * The MoE gate's options (--gating, --skew), for the examples with experts: a
 * uniform gate, Zipf with exponent --skew, or one hot expert taking --skew of the
 * first choices.
 */
struct GatingOptions
{
    /// The options, each declared once.
    WorkloadOptions options =
        WorkloadOptions()
            .Word("gating",
                  "expert popularity: uniform, zipf (weight 1/(i+1)^skew) or hot (one "
                  "expert takes --skew of the first choices), redrawn every iteration",
                  "uniform",
                  {"uniform", "zipf", "hot"},
                  "a gate")
            .Real("skew", "the Zipf exponent (>= 0) or the hot fraction (0..1)", "1.2");

    /// \param cmd the command line to add the options to
    void AddToCommandLine(CommandLine& cmd)
    {
        options.AddToCommandLine(cmd);
    }

    /// Read the options, refusing bad ones by name. \param input the example's input
    void Parse(const ExampleInput& input)
    {
        options.Parse(input, 0);
        const double skew = options.GetReal("skew");
        if (skew < 0)
        {
            input.Refuse("--skew=" + options.GetText("skew") + " must not be negative");
        }
        if (options.GetText("gating") == "hot" && skew > 1)
        {
            input.Refuse("--skew=" + options.GetText("skew") + " is a hot fraction above 1");
        }
    }

    /// \return the Gating attribute's value
    std::string GetSpec() const
    {
        std::ostringstream spec;
        spec.precision(17);
        if (options.GetText("gating") == "zipf")
        {
            spec << "ns3::ZipfGating[Exponent=" << options.GetReal("skew") << "]";
        }
        else if (options.GetText("gating") == "hot")
        {
            spec << "ns3::HotExpertGating[HotFraction=" << options.GetReal("skew") << "]";
        }
        else
        {
            spec << "ns3::UniformGating";
        }
        return spec.str();
    }

    /// \return the gate in words
    std::string Describe() const
    {
        return options.Describe(options.GetText("gating") == "uniform" ? "{gating}"
                                                                       : "{gating} {skew}");
    }
};

/**
 * The expert-parallel workload's options (ExpertParallelApplication's attributes,
 * the gate included), for the examples that run MoE layers.
 */
struct ExpertParallelOptions
{
    /// The options, each declared once (--iterations last, left off the command line
    /// by AddToCommandLine(cmd, false)).
    WorkloadOptions options =
        WorkloadOptions()
            .Count("experts",
                   "experts of the layer, a multiple of the ranks",
                   "64",
                   1,
                   UINT32_MAX,
                   "Experts")
            .Count("tokensPerRank",
                   "tokens each rank routes per iteration",
                   "1024",
                   1,
                   UINT32_MAX,
                   "TokensPerRank")
            .Count("topK",
                   "distinct experts each token goes to (1 .. experts)",
                   "2",
                   1,
                   UINT32_MAX,
                   "TopK")
            .Bytes("bytesPerToken",
                   "bytes of a token's hidden state (hidden size x bytes per element)",
                   "8K",
                   1,
                   uint64_t{1} << 40,
                   "BytesPerToken")
            .Duration("computePerToken",
                      "expert compute per token received (1us)",
                      "1us",
                      "ComputeTimePerToken",
                      Time::NS)
            .Iterations("2", "training iterations (one MoE layer each)");
    GatingOptions gate; //!< --gating, --skew

    /**
     * \param cmd the command line
     * \param withIterations add --iterations too (false: it keeps its default, or
     *        the value SetDefault gives it)
     */
    void AddToCommandLine(CommandLine& cmd, bool withIterations = true)
    {
        if (!withIterations)
        {
            options.Leave("iterations");
        }
        options.AddToCommandLine(cmd);
        gate.AddToCommandLine(cmd);
    }

    /**
     * Read the options, refusing bad ones by name.
     * \param input the example's input \param ranks the EP group's size
     * \param ranksOption the option that gave it
     */
    void Parse(const ExampleInput& input, uint32_t ranks, const std::string& ranksOption)
    {
        options.Parse(input, 0);
        if (options.GetNumber("experts") % ranks != 0)
        {
            input.Refuse("--experts=" + options.GetText("experts") + " is not a multiple of --" +
                         ranksOption + "=" + std::to_string(ranks));
        }
        if (options.GetNumber("topK") > options.GetNumber("experts"))
        {
            input.Refuse("--topK=" + options.GetText("topK") +
                         " is above --experts=" + options.GetText("experts"));
        }
        gate.Parse(input);
    }

    /// \return a helper of ExpertParallelApplications with these attributes
    TrainingApplicationHelper CreateHelper() const
    {
        TrainingApplicationHelper moe("ns3::ExpertParallelApplication");
        options.Apply(moe);
        moe.SetAttribute("Gating", StringValue(gate.GetSpec()));
        return moe;
    }

    /// \return the workload in words, one line
    std::string Describe() const
    {
        return options.Describe("{experts} experts, {tokensPerRank} tokens per rank to the top "
                                "{topK}, {bytesPerToken} B each, gating ") +
               gate.Describe() +
               options.Describe(", compute {computePerToken} per token, {iterations} iterations");
    }
};

/**
 * \param app a data-parallel workload after the run
 * \return its mean iteration time, in seconds
 */
inline double
GetMeanIterationTime(const TrainingApplication& app)
{
    double sum = 0;
    for (const Time& t : app.GetIterationTimes())
    {
        sum += t.GetSeconds();
    }
    return app.GetIterationTimes().empty() ? 0 : sum / app.GetIterationTimes().size();
}

/// \param seconds a time in seconds \return it in microseconds, printed compactly
inline std::string
FormatMicroseconds(double seconds)
{
    char text[32];
    std::snprintf(text, sizeof(text), "%.1f us", seconds * 1e6);
    return text;
}

/**
 * \param stats samples in seconds
 * \return "n N, mean M, p50 A, p99 B, max C" in microseconds
 */
inline std::string
FormatStatistics(const SampleStatistics& stats)
{
    char text[160];
    std::snprintf(text,
                  sizeof(text),
                  "n %" PRIu64 ", mean %.1f us, p50 %.1f us, p99 %.1f us, max %.1f us",
                  stats.GetCount(),
                  stats.GetMean() * 1e6,
                  stats.GetPercentile(0.5) * 1e6,
                  stats.GetPercentile(0.99) * 1e6,
                  stats.GetMax() * 1e6);
    return text;
}

/**
 * Print a workload's iteration times, one line.
 * \param app the workload after the run
 */
inline void
PrintIterationTimes(const TrainingApplication& app)
{
    std::cout << "  iteration times:";
    for (const Time& t : app.GetIterationTimes())
    {
        std::printf(" %.3f ms", t.GetSeconds() * 1e3);
    }
    std::cout << std::endl;
}

/**
 * Print the simulation's header: the example, the fabric, the cluster and the
 * stragglers.
 * \param options the checked options \param what the workload, one line
 */
inline void
PrintHeader(const WorkloadExampleOptions& options, const std::string& what)
{
    std::cout << options.input.GetProgram() << " on the " << options.fabric.fabric
              << " fabric (congestion control " << options.congestionControl << "): " << what
              << std::endl
              << "  " << options.cluster.ToString() << std::endl;
    for (const GpuSlowdown& slow : options.slowGpus)
    {
        std::cout << "  straggler: GPU " << slow.gpu << " computes " << slow.factor
                  << " x slower from " << slow.at.As(Time::MS) << std::endl;
    }
    for (const NicSlowdown& slow : options.slowNics)
    {
        std::cout << "  impaired NIC: host " << slow.host << " (GPU "
                  << options.cluster.GetGpuOfHost(slow.host) << ") sends at " << slow.fraction
                  << " of the link rate from " << slow.at.As(Time::MS) << std::endl;
    }
}

/**
 * Write the workloads' results (TrainingApplicationHelper::WriteResults) and say
 * where.
 * \param apps the workloads \param options the options \param name file name,
 *        without extension
 */
inline void
WriteWorkloadResults(const ApplicationContainer& apps,
                     const WorkloadExampleOptions& options,
                     const std::string& name)
{
    const std::string prefix = options.GetResultsPrefix(name);
    TrainingApplicationHelper::WriteResults(apps, prefix);
    std::cout << "  results in " << prefix << ".json and " << prefix << ".csv" << std::endl;
}

} // namespace ns3

#endif /* AI_FABRIC_WORKLOAD_EXAMPLE_H */
