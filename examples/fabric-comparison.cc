/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The flagship comparison: how each fabric serves each kind of AI parallelism.
//
// Runs a matrix of scenarios, each a fresh simulation in a process of its own:
//
//   fabrics     ideal (every NIC on one non-blocking switch: the reference every
//               time is normalised to), scheduled (VOQs, credits, cells sprayed),
//               ethernet (ECMP, PFC, DCQCN, go-back-N) and ai-ethernet (per-packet
//               congestion-aware routing, PFC, DCQCN, selective repeat), all built
//               from the same cluster description;
//   workloads   dp (data parallel: gradient AllReduce under the backward pass), pp
//               (pipeline: one stage per server), tp-server (tensor parallel inside
//               a server), tp-fabric (the same group split over two servers), ep
//               (MoE dispatch and combine, Zipf-skewed gate) and job (a transformer
//               preset in tensor x pipeline x data parallel);
//   conditions  alone; neighbour (a data-parallel job on the other servers, which
//               share every leaf and spine); failure (every link of a spine, and
//               1, 2, 4 of one leaf's links, failing mid-run); nic (one NIC of the
//               workload at half its rate, beside the neighbour); linkspeed (fabric
//               links at twice the rate, half as many).
//
// The workload's job takes the even servers, the neighbour the odd ones. Writes,
// in --resultsDir: scenarios/<id>.json (metrics, counters, throughput and queue
// series, the run record), summary.csv (one row per scenario) and report.md (the
// table of times normalised to ideal, one finding per workload and condition with
// the counters behind each difference, the parameters and their sources);
// scripts/plot-fabric-comparison.py adds the plots.
//
//   ./fabric-comparison                                  # --scale=small, focused matrix
//   ./fabric-comparison --workloads=dp,ep --conditions=alone,failure --jobs=2
//   ./fabric-comparison --sweep=requestInterval --workloads=pp --conditions=alone
//   ./fabric-comparison --sweep=retransmitTimeout --workloads=dp --conditions=failure
//   ./fabric-comparison --scale=large --jobs=2           # 512 GPUs, full matrix
//   ./fabric-comparison --scale=large --matrix=focused --list   # its scenarios
//
// Sizes take binary suffixes (K, M, G), times a unit. Bad input is refused before
// anything runs, with a message naming the option and its value and exit status 1.

#include "comparison-report.h"
#include "comparison-scenario.h"
#include "fabric-example.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/// An option given as text, read after CommandLine::Parse.
struct TextOption
{
    const char* name; //!< option name
    const char* help; //!< help text
    std::string text; //!< as given (the preset's value by default)
};

/**
 * The scale presets: the cluster and the workload sizes. Applied before the command
 * line is read, so that any option given overrides them.
 */
void
ApplyScale(const std::string& scale,
           ClusterDescription& cluster,
           std::map<std::string, std::string>& sizes)
{
    // 400 Gb/s NICs and fabric links, two servers per leaf (one of each job), as many
    // fabric links as host links: 1:1.
    if (scale == "large")
    {
        // 512 GPUs: 16 leaves of 32, 8-GPU servers, 32 spines.
        cluster.leaves = 16;
        cluster.hostsPerLeaf = 32;
        cluster.hostPortsPerLeaf = 32;
        cluster.fabricPortsPerLeaf = 32;
        cluster.spines = 32;
        cluster.gpusPerServer = 8;
        sizes["dpGradientBytes"] = "128M";
        sizes["dpBucketBytes"] = "32M";
        sizes["ppStages"] = "8";
        sizes["ppMicrobatches"] = "16";
        sizes["tpActivationBytes"] = "16M";
        sizes["neighbourGradientBytes"] = "256M";
    }
    else
    {
        // 32 GPUs: 4 leaves of 8, 4-GPU servers, 8 spines.
        cluster.leaves = 4;
        cluster.hostsPerLeaf = 8;
        cluster.spines = 8;
        cluster.gpusPerServer = 4;
    }
    cluster.nicPlacement = "server";
}

/// \param text a comma-separated list \return its items
std::vector<std::string>
SplitList(const std::string& text)
{
    std::vector<std::string> items;
    std::stringstream list(text);
    std::string item;
    while (std::getline(list, item, ','))
    {
        items.push_back(item);
    }
    return items;
}

/**
 * Read a list of names, refusing an unknown or repeated one.
 * \param input the example's input \param option the option \param text its value
 * \param known the names it takes ("all" takes every one)
 * \return the names, in the order of known
 */
std::vector<std::string>
ParseNames(const ExampleInput& input,
           const std::string& option,
           const std::string& text,
           const std::vector<std::string>& known)
{
    if (text == "all")
    {
        return known;
    }
    std::string list;
    for (const std::string& name : known)
    {
        list += (list.empty() ? "" : ", ") + name;
    }
    const std::vector<std::string> items = SplitList(text);
    if (items.empty() || text.back() == ',')
    {
        input.Refuse("--" + option + "=" + text + " has an empty item (" + list + " or all)");
    }
    for (const std::string& item : items)
    {
        if (std::find(known.begin(), known.end(), item) == known.end())
        {
            input.Refuse("--" + option + "=" + text + ": " + item + " is not one of " + list);
        }
        if (std::count(items.begin(), items.end(), item) > 1)
        {
            input.Refuse("--" + option + "=" + text + ": " + item + " is listed twice");
        }
    }
    std::vector<std::string> ordered;
    for (const std::string& name : known)
    {
        if (std::find(items.begin(), items.end(), name) != items.end())
        {
            ordered.push_back(name);
        }
    }
    return ordered;
}

/**
 * The matrix: every selected workload alone on every selected fabric, and each
 * condition on the workloads it matters most to (focused) or on every selected
 * workload (full).
 * \param fabrics the fabrics \param workloads the workloads \param conditions the
 * conditions \param full run each condition on every workload
 * \param sweep the parameter swept, or nullptr
 * \return the scenarios, in the order they run
 */
std::vector<Scenario>
BuildMatrix(const std::vector<std::string>& fabrics,
            const std::vector<std::string>& workloads,
            const std::vector<std::string>& conditions,
            bool full,
            const SweepParameter* sweep)
{
    std::vector<Scenario> matrix;
    const auto has = [](const std::vector<std::string>& list, const std::string& name) {
        return std::find(list.begin(), list.end(), name) != list.end();
    };
    // The workloads a condition is run on, of those selected.
    const auto subset = [&](std::vector<std::string> mostAffected) {
        std::vector<std::string> chosen;
        for (const std::string& w : workloads)
        {
            if (full || has(mostAffected, w))
            {
                chosen.push_back(w);
            }
        }
        return chosen;
    };
    // Normalising needs ideal alone, slowdowns this fabric alone: alone always runs.
    std::vector<std::string> withIdeal = fabrics;
    if (!has(withIdeal, "ideal"))
    {
        withIdeal.insert(withIdeal.begin(), "ideal");
    }
    for (const std::string& w : workloads)
    {
        for (const std::string& f : withIdeal)
        {
            matrix.push_back({w, f, "alone", ""});
        }
    }
    if (has(conditions, "neighbour") || has(conditions, "nic"))
    {
        for (const std::string& f : fabrics)
        {
            matrix.push_back({"neighbour", f, "alone", ""});
        }
    }
    const auto add = [&](const std::vector<std::string>& chosen,
                         const std::string& condition,
                         const std::string& variant,
                         bool withIdealFabric) {
        for (const std::string& w : chosen)
        {
            for (const std::string& f : fabrics)
            {
                if (withIdealFabric || f != "ideal")
                {
                    matrix.push_back({w, f, condition, variant});
                }
            }
        }
    };
    if (has(conditions, "neighbour"))
    {
        add(subset({"dp", "pp", "tp-fabric", "ep"}), "neighbour", "", true);
    }
    if (has(conditions, "failure"))
    {
        // dp reduces back to back under this condition: "none" is its baseline (on
        // ideal too, for normalising); ep keeps its phases and compares with alone.
        add(subset({"dp"}), "failure", "none", true);
        add(subset({"dp", "ep"}), "failure", "spine", false);
        for (const char* links : {"links1", "links2", "links4"})
        {
            add(subset({"dp"}), "failure", links, false);
        }
    }
    if (has(conditions, "nic"))
    {
        add(subset({"dp", "pp"}), "nic", "", true);
    }
    if (has(conditions, "linkspeed"))
    {
        add(subset({"dp", "ep"}), "linkspeed", "2x", false);
    }
    if (sweep)
    {
        // Every scenario of the sweep's condition (its baseline too) on the fabrics it
        // applies to, once per value.
        const std::vector<Scenario> base = matrix;
        for (const std::string& value : sweep->values)
        {
            for (Scenario scenario : base)
            {
                const bool baseline = sweep->condition != "alone" && scenario.condition == "alone";
                const bool matters =
                    sweep->condition.empty() || scenario.condition == sweep->condition || baseline;
                if (has(sweep->fabrics, scenario.fabric) && scenario.workload != "neighbour" &&
                    matters)
                {
                    scenario.sweep = sweep->name + "=" + value;
                    matrix.push_back(scenario);
                }
            }
        }
    }
    return matrix;
}

/**
 * What decides a scenario's results in a run record: the options given, less those
 * that only choose scenarios or say how to run them, the global values (the random
 * run) and the ns-3 version.
 * \param record a run record (RunRecord::Get) \return the part to compare
 */
nlohmann::json
ResultOptions(const nlohmann::json& record)
{
    static const std::vector<std::string> selectionOnly{"--fabrics",
                                                        "--workloads",
                                                        "--conditions",
                                                        "--matrix",
                                                        "--sweep",
                                                        "--jobs",
                                                        "--resultsDir",
                                                        "--reuse",
                                                        "--list",
                                                        "--scenario"};
    nlohmann::json kept = nlohmann::json::array();
    for (const nlohmann::json& argument : record.value("arguments", nlohmann::json::array()))
    {
        if (!argument.is_string())
        {
            continue;
        }
        const std::string text = argument.get<std::string>();
        const std::string name = text.substr(0, text.find('='));
        if (std::find(selectionOnly.begin(), selectionOnly.end(), name) == selectionOnly.end())
        {
            kept.push_back(text);
        }
    }
    // In any order; an option given at its default still counts as other options
    // (the scenario runs again: never wrong, at worst slower).
    std::sort(kept.begin(), kept.end());
    return {{"arguments", kept},
            {"globalValues", record.value("globalValues", nlohmann::json())},
            {"ns3Version", record.value("ns3Version", nlohmann::json())}};
}

/**
 * May --reuse take this scenario file? Only when the run that wrote it had the
 * same results-deciding options as this one: results of another scale or size
 * under the same scenario id are run again, never mixed in.
 * \param path a scenario file \param options ResultOptions of this run
 * \return whether its results are this run's
 */
bool
IsReusable(const std::filesystem::path& path, const nlohmann::json& options)
{
    std::ifstream in(path);
    const nlohmann::json earlier = nlohmann::json::parse(in, nullptr, false);
    return earlier.is_object() && earlier.contains("runRecord") &&
           earlier["runRecord"].is_object() && ResultOptions(earlier["runRecord"]) == options;
}

/// \param seconds wall seconds \return them as "1 min 05 s" or "12.3 s"
std::string
FormatWall(double seconds)
{
    char text[32];
    if (seconds >= 60)
    {
        std::snprintf(text, sizeof(text), "%d min %02d s", int(seconds) / 60, int(seconds) % 60);
    }
    else
    {
        std::snprintf(text, sizeof(text), "%.1f s", seconds);
    }
    return text;
}

/**
 * What one scenario's process cost: kept beside its results in
 * costs/<id>.json, so a matrix finished over several invocations
 * (--reuse) still reports what all of it took.
 */
struct ScenarioCost
{
    double wall{0};      //!< wall seconds from fork to exit
    double cpu{0};       //!< user + system CPU seconds
    double peakRssMb{0}; //!< peak resident set, MB (2^20 bytes)
    bool known{false};   //!< measured (false: reused without a cost file)

    /// \return as JSON
    nlohmann::json ToJson() const
    {
        return {{"wall_s", wall}, {"cpu_s", cpu}, {"peakRss_MB", peakRssMb}};
    }

    /// \param path a cost file \return its cost (unknown if it is missing or unreadable)
    static ScenarioCost Read(const std::filesystem::path& path)
    {
        ScenarioCost cost;
        std::ifstream in(path);
        const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
        if (in && j.is_object() && j.contains("wall_s") && j.contains("cpu_s") &&
            j.contains("peakRss_MB"))
        {
            cost.wall = j["wall_s"].get<double>();
            cost.cpu = j["cpu_s"].get<double>();
            cost.peakRssMb = j["peakRss_MB"].get<double>();
            cost.known = true;
        }
        return cost;
    }
};

/// The cost of a whole matrix, summed over its scenarios.
struct MatrixCost
{
    std::size_t known{0};     //!< scenarios whose cost is known
    double wall{0};           //!< their wall seconds, summed
    double cpu{0};            //!< their CPU seconds, summed
    double peakRssMb{0};      //!< the largest peak resident set, MB
    std::string peakScenario; //!< the scenario that had it

    /// \param id a scenario \param cost what it cost
    void Add(const std::string& id, const ScenarioCost& cost)
    {
        if (!cost.known)
        {
            return;
        }
        ++known;
        wall += cost.wall;
        cpu += cost.cpu;
        if (cost.peakRssMb > peakRssMb)
        {
            peakRssMb = cost.peakRssMb;
            peakScenario = id;
        }
    }
};

/// \param tid a TypeId \param name an attribute \return its default as text, as this run sets it
std::string
DefaultOf(TypeId tid, const std::string& name)
{
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name, &info))
    {
        return "?";
    }
    // Config::SetDefault (a --ns3:: option) replaces the initial value.
    return info.initialValue->SerializeToString(info.checker);
}

/**
 * \param cost what a matrix's scenarios cost \param scenarios how many it has
 * \return it in words, for the report and the terminal
 */
std::string
CostText(const MatrixCost& cost, std::size_t scenarios)
{
    if (cost.known == 0)
    {
        return "the scenarios' own cost was not recorded";
    }
    char text[256];
    std::snprintf(
        text,
        sizeof(text),
        "%s%s of the scenarios' own wall time and %s of CPU in all, the largest "
        "peak %.0f MB resident (%s)",
        cost.known < scenarios
            ? (std::to_string(cost.known) + " of " + std::to_string(scenarios) + ": ").c_str()
            : "",
        FormatWall(cost.wall).c_str(),
        FormatWall(cost.cpu).c_str(),
        cost.peakRssMb,
        cost.peakScenario.c_str());
    return text;
}

/**
 * Write report.md.
 * \param path the file \param report the results \param cluster the cluster
 * \param scale the scale \param wall the matrix's wall time \param cost what its
 *        scenarios cost \param failed scenarios that did not finish \param command the
 *        command line that made it \param versions the module versions that ran the
 *        scenarios, with how many each
 */
void
WriteMarkdown(const std::string& path,
              const ComparisonReport& report,
              const ClusterDescription& cluster,
              const std::string& scale,
              double wall,
              const MatrixCost& cost,
              const std::vector<std::string>& failed,
              const std::string& command,
              const std::map<std::string, std::size_t>& versions)
{
    std::ofstream md(path);
    std::string versionText;
    for (const auto& [version, count] : versions)
    {
        versionText += (versionText.empty() ? "" : ", ") + version + " (" + std::to_string(count) +
                       " scenarios)";
    }
    md << "# Fabric comparison\n\n"
       << "Generated by `" << command << "` (" << report.GetRows().size() << " scenarios, "
       << FormatWall(wall) << " of wall time; " << CostText(cost, report.GetRows().size())
       << "; run by module " << (versions.size() > 1 ? "versions " : "version ") << versionText
       << "). Cluster (" << scale << "): " << cluster.ToString()
       << ". The workload's job runs on the even servers, the noisy neighbour (data parallel) "
          "on the odd ones, so both share every leaf and spine.\n\n"
       << "Times are the workload's mean iteration time on a fabric over its time on the "
          "**ideal** fabric (every NIC on one non-blocking switch) under the same condition "
          "(alone where the ideal fabric cannot have it: failures, link speed): 1.000 is what "
          "the workload costs by itself, anything above is what the fabric costs. *fabric "
          "binds*: a fabric is more than 5% above ideal, or the fabrics differ by more "
          "than 5%.\n\n";
    md << "## Fabrics\n\n";
    for (const std::string& fabric : ComparisonFabrics())
    {
        md << "- **" << fabric << "**: " << ComparisonSimulation::DescribeFabric(fabric) << "\n";
    }
    md << "\n## Normalised time (against the ideal fabric)\n\n";
    report.WriteTable(md, true);
    md << "\n## Findings\n\n";
    for (const std::string& finding : report.GetFindings())
    {
        md << "- " << finding << "\n";
    }
    const std::vector<std::string> sweeps = report.GetSweepFindings();
    if (!sweeps.empty())
    {
        md << "\n## Sweeps\n\nTime against the ideal fabric at each value of a parameter "
              "that has no public figure or favours one side:\n\n";
        for (const std::string& line : sweeps)
        {
            md << "- " << line << "\n";
        }
    }
    if (!failed.empty())
    {
        md << "\n## Scenarios that did not finish\n\n";
        for (const std::string& id : failed)
        {
            md << "- " << id << " (its log: scenarios/" << id << ".log)\n";
        }
    }
    md << "\n## Plots\n\n"
       << "Made by `scripts/plot-fabric-comparison.py` from this folder (`scripts/ai-fabric "
          "demo` runs it).\n\n"
       << "![normalised time](plots/normalised-time.png)\n\n"
       << "![latency CDFs](plots/latency-cdf.png)\n\n"
       << "![throughput through the failure](plots/failure-throughput.png)\n\n"
       << "![queued bytes](plots/queue-depth.png)\n\n"
       << "![slowdown beside the neighbour and with a throttled NIC](plots/slowdown.png)\n\n"
       << "![failed links](plots/failed-links.png)\n\n";
    md << "## Parameters that could favour one side\n\n"
       << "| parameter | value | source |\n|---|---|---|\n";
    const std::vector<std::tuple<TypeId, std::string, std::string>> parameters{
        {SharedBufferMmu::GetTypeId(),
         "BufferSize",
         "assumption: merchant switch chips carry tens of MB on chip"},
        {EthernetSwitch::GetTypeId(),
         "EcnKmin",
         "per 25 Gb/s, scaled with the port rate: a widely used ns-3 RDMA simulator's DCQCN "
         "setting"},
        {EthernetSwitch::GetTypeId(), "EcnKmax", "as EcnKmin"},
        {EthernetSwitch::GetTypeId(),
         "PfcHeadroom",
         "0 = 2 x rate x link delay + 3 largest frames + a PFC frame"},
        {DcqcnCongestionControl::GetTypeId(),
         "RateIncreaseTimer",
         "NVIDIA NIC default (DOCA DCQCN parameters); the paper's is 55 us (--sweep=dcqcnTimer)"},
        {DcqcnCongestionControl::GetTypeId(), "G", "DCQCN paper (Zhu et al., SIGCOMM 2015)"},
        {CreditScheduler::GetTypeId(),
         "CreditSize",
         "Jericho-family credit size, up to 1 KB (--sweep=creditSize)"},
        {ScheduledLeafSwitch::GetTypeId(),
         "CellPayload",
         "assumption within public descriptions of cell fabrics"},
        {ScheduledLeafSwitch::GetTypeId(), "CellHeader", "as CellPayload"},
        {ScheduledLeafSwitch::GetTypeId(),
         "RequestInterval",
         "no public figure (--sweep=requestInterval)"},
        {ScheduledLeafSwitch::GetTypeId(),
         "LinkDetectionDelay",
         "model choice for hardware link-fault detection; the Ethernet switches use the same"},
        {EthernetSwitch::GetTypeId(),
         "RouteWithdrawDelay",
         "assumption: remote switches learn of a failed port by a BGP update "
         "(--sweep=routeWithdraw)"},
        {RdmaTransport::GetTypeId(),
         "RetransmitTimeout",
         "RoCE local ACK timeout 4.096 us x 2^14 (perftest's default; Linux bnxt_re 2^16, "
         "about 268 ms; NCCL 2^20, about 4.3 s; the transport's own default is 2^8) "
         "(--sweep=retransmitTimeout)"},
    };
    for (const auto& [tid, name, source] : parameters)
    {
        md << "| `" << tid.GetName().substr(5) << "::" << name << "` | " << DefaultOf(tid, name)
           << " | " << source << " |\n";
    }
    md << "\nThe full table of defaults and their sources is in `doc/ai-fabric.rst` "
          "(Attributes).\n\n"
       << "## Where the model abstracts reality\n\n"
       << "- ai-ethernet's congestion-aware routing reads the spine's queue towards the "
          "destination leaf at the moment it chooses, with no feedback delay: optimistic for "
          "ai-ethernet.\n"
       << "- The ideal fabric is an output-queued Ethernet switch with PFC: it still "
          "serialises every frame twice (host to switch, switch to host), as a single switch "
          "would.\n"
       << "- The scheduled fabric's credit-request interval, cell size and reassembly timeout "
          "have no public figures; sweep them (`--sweep=`) where a result depends on them.\n"
       << "- GPU compute is a fixed time per pass (no kernel contention with communication); "
          "the scale-up domain is an NVSwitch-like crossbar with a fixed latency.\n"
       << "- Failures: a switch notices a dead link after LinkDetectionDelay; Ethernet's "
          "remote switches learn of it after RouteWithdrawDelay.\n";
}

} // namespace

int
main(int argc, char* argv[])
{
    RunRecord::Begin(argc, argv);
    ExampleInput input("fabric-comparison");
    // The scale's presets first, so that options given override them.
    std::string scale = "small";
    for (int i = 1; i < argc; ++i)
    {
        if (std::strncmp(argv[i], "--scale=", 8) == 0)
        {
            scale = argv[i] + 8;
        }
    }
    if (scale != "small" && scale != "large")
    {
        input.Refuse("--scale=" + scale + " is not a scale (small or large)");
    }
    ClusterDescription cluster;
    std::map<std::string, std::string> preset;
    ApplyScale(scale, cluster, preset);
    std::vector<TextOption> sizeOptions{
        {"dpGradientBytes", "dp: gradient bytes AllReduced per iteration", "32M"},
        {"dpBucketBytes", "dp: bytes per gradient bucket", "8M"},
        {"dpForwardTime", "dp: forward pass", "100us"},
        {"dpBackwardTime", "dp: backward pass (buckets reduce under it)", "200us"},
        {"ppStages", "pp: stages, one server each", "4"},
        {"ppMicrobatches", "pp: microbatches per iteration (1F1B)", "8"},
        {"ppActivationBytes", "pp: bytes per microbatch between stages", "2M"},
        {"ppForwardTime", "pp: a stage's forward pass of one microbatch", "50us"},
        {"ppBackwardTime", "pp: a stage's backward pass of one microbatch", "100us"},
        {"tpLayers", "tp: layers per iteration (two AllReduces each way)", "4"},
        {"tpActivationBytes", "tp: bytes per AllReduce", "4M"},
        {"tpForwardTime", "tp: compute before each forward AllReduce", "20us"},
        {"tpBackwardTime", "tp: compute before each backward AllReduce", "40us"},
        {"epTokensPerRank",
         "ep: tokens each rank routes to its top 2 of 2 x ranks experts",
         "1024"},
        {"epBytesPerToken", "ep: bytes of a token's hidden state", "8K"},
        {"epZipf", "ep: Zipf exponent of the gate (0: uniform)", "1.2"},
        {"epComputePerToken", "ep: expert compute per token received", "100ns"},
        {"jobModel",
         "job: transformer preset (gpt3-1.3b, gpt3-175b, llama2-70b, mixtral-8x7b)",
         "gpt3-1.3b"},
        {"jobLayers", "job: layers (overrides the preset's)", "4"},
        {"jobMicrobatches", "job: microbatches per iteration", "4"},
        {"jobPipeline",
         "job: pipeline stages (tensor parallel = a server, data parallel = the rest)",
         "2"},
        {"neighbourGradientBytes", "the neighbour's gradient bytes per iteration", "64M"},
        {"neighbourIterations", "the neighbour's iterations", "4"},
        {"iterations", "iterations of every workload", "2"},
    };
    for (TextOption& option : sizeOptions)
    {
        if (preset.count(option.name))
        {
            option.text = preset[option.name];
        }
    }
    std::string fabricsText = "all";
    std::string workloadsText = "all";
    std::string conditionsText = "all";
    std::string jobsText = std::to_string(std::max(1U, std::thread::hardware_concurrency()));
    std::string resultsDir = "results/fabric-comparison";
    std::string sweepText;
    std::string failAtText = "150us";
    std::string timeBinText = "10us";
    std::string maxSimTimeText = "1s";
    std::string nicFractionText = "0.5";
    std::string only;
    bool reuse = false;
    bool list = false;
    // Every condition on every workload at large scale; at small scale only where
    // each matters most, to stay within its 2 minutes.
    std::string matrixText = scale == "large" ? "full" : "focused";
    std::string allReduce = "hierarchical";

    // RoCE's local ACK timeout as perftest and NIC drivers set it, 4.096 us x 2^14
    // (about 67 ms), not the transport's 1 ms, which PFC-paused queues and a scheduled
    // fabric's deep VOQs outlast under a large incast (so every packet would be sent
    // again). A --ns3::RdmaTransport::RetransmitTimeout option overrides it.
    Config::SetDefault("ns3::RdmaTransport::RetransmitTimeout",
                       TimeValue(NanoSeconds(uint64_t{4096} << 14)));
    CommandLine cmd(__FILE__);
    AddCheckedValue(cmd, "scale", "small (32 GPUs, under 2 minutes) or large (512 GPUs)", scale);
    AddCheckedValue(cmd,
                    "fabrics",
                    "fabrics: ideal, scheduled, ethernet, ai-ethernet, or all",
                    fabricsText);
    AddCheckedValue(cmd,
                    "workloads",
                    "workloads: dp, pp, tp-server, tp-fabric, ep, job, or all",
                    workloadsText);
    AddCheckedValue(
        cmd,
        "conditions",
        "conditions: alone, neighbour, failure, nic, linkspeed, or all (alone always runs)",
        conditionsText);
    AddCheckedValue(cmd,
                    "matrix",
                    "focused (each condition on the workloads it matters most to: dp, pp, "
                    "tp-fabric and ep beside the neighbour; dp under every failure and ep when a "
                    "spine fails; dp and pp with a slow NIC; dp and ep at link speed) or full "
                    "(every condition on every workload)",
                    matrixText);
    AddCheckedValue(cmd, "jobs", "scenarios run at once, each in a process of its own", jobsText);
    AddCheckedValue(cmd, "resultsDir", "folder of the results", resultsDir);
    // The help names each parameter --sweep knows and the condition it matters under.
    std::string sweepHelp = "also sweep a parameter that may favour one fabric:";
    for (const SweepParameter& p : ComparisonSweeps())
    {
        sweepHelp +=
            " " + p.name + " (" + (p.condition.empty() ? "every condition" : p.condition) + "),";
    }
    sweepHelp.pop_back();
    AddCheckedValue(cmd, "sweep", sweepHelp, sweepText);
    AddCheckedValue(cmd, "failAt", "when links fail under the failure condition", failAtText);
    AddCheckedValue(cmd, "timeBin", "throughput and queue sampling period", timeBinText);
    AddCheckedValue(cmd,
                    "maxSimTime",
                    "a scenario not finished by then is stopped and reported",
                    maxSimTimeText);
    AddCheckedValue(cmd,
                    "nicFraction",
                    "nic condition: the throttled NIC's share of its rate",
                    nicFractionText);
    AddCheckedValue(cmd,
                    "allReduce",
                    "AllReduce algorithm of every job: hierarchical, ring, doubleBinaryTree, "
                    "halvingDoubling or a TypeId",
                    allReduce);
    AddCheckedValue(cmd,
                    "reuse",
                    "take a scenario's results from scenarios/<id>.json where an earlier run "
                    "with the same options (all but those choosing scenarios or processes) "
                    "left one (to finish an interrupted run, or to make the report again)",
                    reuse);
    AddCheckedValue(cmd,
                    "scenario",
                    "run only the scenario of this id (as in scenarios/<id>.json), in this "
                    "process, and print its results (for NS_LOG and debuggers)",
                    only);
    AddCheckedValue(cmd,
                    "list",
                    "print the matrix's scenarios (their ids) and stop, running nothing",
                    list);
    for (TextOption& option : sizeOptions)
    {
        AddCheckedValue(cmd, option.name, option.help, option.text);
    }
    AddClusterToCommandLine(cmd, cluster);
    cmd.Parse(argc, argv);

    // Refuse bad input before anything runs.
    for (const std::string& problem :
         {cluster.FindProblem(), cluster.FindServerProblem(), FindRdmaLinkProblem(cluster)})
    {
        if (!problem.empty())
        {
            input.Refuse(problem);
        }
    }
    const std::vector<std::string> fabrics =
        ParseNames(input, "fabrics", fabricsText, ComparisonFabrics());
    const std::vector<std::string> workloads =
        ParseNames(input, "workloads", workloadsText, ComparisonWorkloads());
    const std::vector<std::string> conditions =
        ParseNames(input, "conditions", conditionsText, ComparisonConditions());
    if (matrixText != "focused" && matrixText != "full")
    {
        input.Refuse("--matrix=" + matrixText + " is not a matrix (focused or full)");
    }
    const auto jobs = static_cast<uint32_t>(input.ParseNumberIn("jobs", jobsText, 1, 256));
    const SweepParameter* sweep = nullptr;
    if (!sweepText.empty())
    {
        std::string known;
        for (const SweepParameter& p : ComparisonSweeps())
        {
            known += (known.empty() ? "" : ", ") + p.name;
            if (p.name == sweepText)
            {
                sweep = &p;
            }
        }
        if (!sweep)
        {
            input.Refuse("--sweep=" + sweepText + " is not a parameter to sweep (" + known + ")");
        }
        if (!sweep->condition.empty() && sweep->condition != "alone" &&
            std::find(conditions.begin(), conditions.end(), sweep->condition) == conditions.end())
        {
            input.Refuse("--sweep=" + sweepText + " matters under the " + sweep->condition +
                         " condition, which --conditions=" + conditionsText + " leaves out");
        }
    }
    std::map<std::string, std::string> text;
    for (const TextOption& option : sizeOptions)
    {
        text[option.name] = option.text;
    }
    ComparisonSettings settings;
    settings.cluster = cluster;
    ComparisonWorkloadSizes& sizes = settings.sizes;
    const auto bytes = [&](const char* name) {
        return input.ParseNumberIn(name, text[name], 1, uint64_t{1} << 40, true);
    };
    const auto count = [&](const char* name, uint64_t min) {
        return static_cast<uint32_t>(input.ParseNumberIn(name, text[name], min, 1 << 20));
    };
    sizes.dpGradientBytes = bytes("dpGradientBytes");
    sizes.dpBucketBytes = bytes("dpBucketBytes");
    sizes.dpForwardTime = input.ParseTime("dpForwardTime", text["dpForwardTime"]);
    sizes.dpBackwardTime = input.ParseTime("dpBackwardTime", text["dpBackwardTime"]);
    sizes.ppStages = count("ppStages", 2);
    sizes.ppMicrobatches = count("ppMicrobatches", 1);
    sizes.ppActivationBytes = bytes("ppActivationBytes");
    sizes.ppForwardTime = input.ParseTime("ppForwardTime", text["ppForwardTime"]);
    sizes.ppBackwardTime = input.ParseTime("ppBackwardTime", text["ppBackwardTime"]);
    sizes.tpLayers = count("tpLayers", 1);
    sizes.tpActivationBytes = bytes("tpActivationBytes");
    sizes.tpForwardTime = input.ParseTime("tpForwardTime", text["tpForwardTime"]);
    sizes.tpBackwardTime = input.ParseTime("tpBackwardTime", text["tpBackwardTime"]);
    sizes.epTokensPerRank = count("epTokensPerRank", 1);
    sizes.epBytesPerToken = bytes("epBytesPerToken");
    sizes.epZipf = input.ParseReal("epZipf", text["epZipf"]);
    if (sizes.epZipf < 0)
    {
        input.Refuse("--epZipf=" + text["epZipf"] + " must not be negative");
    }
    sizes.epComputePerToken = input.ParseTime("epComputePerToken", text["epComputePerToken"]);
    sizes.jobModel = text["jobModel"];
    sizes.jobLayers = count("jobLayers", 1);
    sizes.jobMicrobatches = count("jobMicrobatches", 1);
    sizes.jobPipeline = count("jobPipeline", 1);
    sizes.neighbourGradientBytes = bytes("neighbourGradientBytes");
    sizes.neighbourIterations = count("neighbourIterations", 1);
    sizes.iterations = count("iterations", 1);
    settings.failAt = input.ParseTime("failAt", failAtText);
    settings.timeBin = input.ParseTime("timeBin", timeBinText);
    settings.maxSimTime = input.ParseTime("maxSimTime", maxSimTimeText);
    settings.nicFraction = input.ParseReal("nicFraction", nicFractionText);
    if (!(settings.nicFraction > 0 && settings.nicFraction <= 1))
    {
        input.Refuse("--nicFraction=" + nicFractionText + " must be in (0, 1]");
    }
    const std::vector<std::string> algorithms = CollectiveHelper::GetAlgorithms("AllReduce");
    for (const std::string& algorithm : algorithms)
    {
        // Short names as collective-perf takes them: the TypeId less ns3:: and AllReduce.
        std::string shortName = algorithm.substr(5, algorithm.size() - 5 - 9);
        shortName[0] = static_cast<char>(std::tolower(shortName[0]));
        if (algorithm == allReduce || shortName == allReduce)
        {
            settings.allReduce = algorithm;
        }
    }
    if (settings.allReduce.empty())
    {
        input.Refuse("--allReduce=" + allReduce + " is not an AllReduce algorithm");
    }
    if (!settings.timeBin.IsStrictlyPositive())
    {
        input.Refuse("--timeBin=" + timeBinText + " must be above 0");
    }
    if (settings.maxSimTime <= settings.failAt)
    {
        input.Refuse("--maxSimTime=" + maxSimTimeText + " must be after --failAt=" + failAtText);
    }

    // Does the scale fit the cluster? The workload's job takes the even servers.
    const uint32_t servers = cluster.GetServers();
    const uint32_t workloadServers = (servers + 1) / 2;
    const std::string clusterText = "the cluster (--leaves=" + std::to_string(cluster.leaves) +
                                    " --hostsPerLeaf=" + std::to_string(cluster.hostsPerLeaf) +
                                    " --gpusPerServer=" + std::to_string(cluster.gpusPerServer) +
                                    ": " + std::to_string(servers) + " servers)";
    if (servers < 4)
    {
        input.Refuse("--scale=" + scale + ": " + clusterText +
                     " needs at least 4 servers, 2 for the workload and 2 for the neighbour");
    }
    if (cluster.gpusPerServer < 2 || cluster.gpusPerServer % 2 != 0)
    {
        input.Refuse("--gpusPerServer=" + std::to_string(cluster.gpusPerServer) +
                     " must be even (tp-fabric splits a server's group over two servers)");
    }
    if (std::find(workloads.begin(), workloads.end(), "pp") != workloads.end() &&
        sizes.ppStages > workloadServers)
    {
        input.Refuse("--ppStages=" + text["ppStages"] + " is more than the " +
                     std::to_string(workloadServers) + " servers of the workload's job in " +
                     clusterText);
    }
    if (std::find(workloads.begin(), workloads.end(), "job") != workloads.end())
    {
        const auto presets = TransformerModel::GetPresetNames();
        if (std::find(presets.begin(), presets.end(), sizes.jobModel) == presets.end())
        {
            input.Refuse("--jobModel=" + sizes.jobModel + " is not a transformer preset");
        }
        if (workloadServers % sizes.jobPipeline != 0)
        {
            input.Refuse("--jobPipeline=" + text["jobPipeline"] + " does not divide the " +
                         std::to_string(workloadServers) + " servers of the workload's job");
        }
        if (sizes.jobLayers % sizes.jobPipeline != 0)
        {
            input.Refuse("--jobLayers=" + text["jobLayers"] +
                         " is not a multiple of --jobPipeline=" + text["jobPipeline"]);
        }
    }
    const bool linkspeed =
        std::find(conditions.begin(), conditions.end(), "linkspeed") != conditions.end();
    if (linkspeed && (cluster.spines < 2 || cluster.spines % 2 != 0))
    {
        input.Refuse("--spines=" + std::to_string(cluster.spines) +
                     " must be even for the linkspeed condition (half as many at twice the rate)");
    }
    if (std::find(conditions.begin(), conditions.end(), "failure") != conditions.end() &&
        cluster.GetFabricLinksPerLeaf() <= 4)
    {
        input.Refuse(
            "--spines=" + std::to_string(cluster.spines) +
            ": the failure condition fails up to 4 of a leaf's links and needs more than 4");
    }
    const std::vector<Scenario> matrix =
        BuildMatrix(fabrics, workloads, conditions, matrixText == "full", sweep);
    if (list)
    {
        for (const Scenario& scenario : matrix)
        {
            std::cout << scenario.GetId() << std::endl;
        }
        return 0;
    }
    std::error_code error;
    for (const char* folder : {"scenarios", "costs"})
    {
        std::filesystem::create_directories(std::filesystem::path(resultsDir) / folder, error);
        if (error)
        {
            break;
        }
    }
    if (error)
    {
        input.Refuse("--resultsDir=" + resultsDir + " cannot be created: " + error.message());
    }

    if (!only.empty())
    {
        const auto chosen = std::find_if(matrix.begin(), matrix.end(), [&only](const Scenario& s) {
            return s.GetId() == only;
        });
        if (chosen == matrix.end())
        {
            input.Refuse("--scenario=" + only + " is not a scenario of this matrix");
        }
        ComparisonSimulation simulation(settings, *chosen);
        std::cout << simulation.Run().dump(1) << std::endl;
        return 0;
    }
    std::cout << "fabric-comparison (" << scale << "): " << matrix.size() << " scenarios on "
              << jobs << " processes; " << cluster.ToString() << std::endl;

    // Each scenario in a child process of its own: results never depend on which
    // scenario ran before in the same process, so any --jobs gives the same files.
    const auto start = std::chrono::steady_clock::now();
    const std::filesystem::path scenarioDir = std::filesystem::path(resultsDir) / "scenarios";
    const std::filesystem::path costDir = std::filesystem::path(resultsDir) / "costs";
    // Which earlier results --reuse may take: decided before anything runs, so that
    // files written by this run are never weighed.
    std::vector<bool> reusable(matrix.size(), false);
    if (reuse)
    {
        const nlohmann::json options = ResultOptions(RunRecord::Get());
        std::size_t other = 0;
        for (std::size_t i = 0; i < matrix.size(); ++i)
        {
            const std::filesystem::path json = scenarioDir / (matrix[i].GetId() + ".json");
            reusable[i] = IsReusable(json, options);
            other += !reusable[i] && std::filesystem::exists(json);
        }
        if (other)
        {
            std::cout << "  " << other
                      << " earlier results came from other options (scale, sizes, cluster, "
                         "attributes or random run) and run again"
                      << std::endl;
        }
    }
    const auto toRun =
        static_cast<std::size_t>(std::count(reusable.begin(), reusable.end(), false));
    std::map<pid_t, std::size_t> running;
    std::map<pid_t, std::chrono::steady_clock::time_point> forkedAt;
    MatrixCost matrixCost;
    std::size_t next = 0;
    std::size_t done = 0;
    std::size_t reused = 0;
    std::vector<nlohmann::json> results(matrix.size());
    std::vector<std::string> failed;
    // A scenario has ended (ran: its process's exit status and cost; reused: 0 and
    // the cost recorded then): read its results and print its progress line.
    const auto finish = [&](std::size_t index,
                            int status,
                            const ScenarioCost& cost,
                            bool fromEarlierRun) {
        ++done;
        const Scenario& scenario = matrix[index];
        const std::filesystem::path json = scenarioDir / (scenario.GetId() + ".json");
        matrixCost.Add(scenario.GetId(), cost);
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        char line[256];
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && std::filesystem::exists(json))
        {
            std::ifstream in(json);
            results[index] = nlohmann::json::parse(in);
            const bool completed = results[index]["completed"].get<bool>();
            std::snprintf(line,
                          sizeof(line),
                          "%.3f ms simulated%s%s%s",
                          results[index]["simulatedTime_us"].get<double>() / 1e3,
                          cost.known
                              ? (", " + std::to_string(std::lround(cost.peakRssMb)) + " MB").c_str()
                              : "",
                          completed ? "" : " (stopped: not finished)",
                          fromEarlierRun ? " (earlier run)" : "");
            if (!completed)
            {
                failed.push_back(scenario.GetId());
            }
        }
        else
        {
            std::snprintf(line,
                          sizeof(line),
                          "FAILED (see scenarios/%s.log)",
                          scenario.GetId().c_str());
            failed.push_back(scenario.GetId());
        }
        // Reused scenarios take no time: the estimate counts only those still to run.
        const std::size_t ran = done - reused;
        const std::string left = ran == toRun ? "nothing left"
                                 : ran ? "about " + FormatWall(wall / ran * (toRun - ran)) + " left"
                                       : "time left not yet known";
        std::printf("  [%3zu/%zu] %-9s on %-11s %-10s %-18s %s; wall %s, %s\n",
                    done,
                    matrix.size(),
                    scenario.workload.c_str(),
                    scenario.fabric.c_str(),
                    scenario.condition.c_str(),
                    scenario.variant.c_str(),
                    line,
                    FormatWall(wall).c_str(),
                    left.c_str());
        std::fflush(stdout);
    };
    while (done < matrix.size())
    {
        while (next < matrix.size() && running.size() < jobs)
        {
            if (reusable[next])
            {
                ++reused;
                const std::string id = matrix[next].GetId();
                finish(next++, 0, ScenarioCost::Read(costDir / (id + ".json")), true);
                continue;
            }
            std::cout.flush();
            const pid_t pid = fork();
            NS_ABORT_MSG_IF(pid < 0, "fabric-comparison: fork failed: " << std::strerror(errno));
            if (pid == 0)
            {
                const std::string id = matrix[next].GetId();
                const int log =
                    open((scenarioDir / (id + ".log")).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
                dup2(log, STDOUT_FILENO);
                dup2(log, STDERR_FILENO);
                ComparisonSimulation simulation(settings, matrix[next]);
                const nlohmann::json result = simulation.Run();
                std::ofstream out(scenarioDir / (id + ".json"));
                out << result.dump(1) << std::endl;
                std::_Exit(out ? 0 : 1);
            }
            running[pid] = next++;
            forkedAt[pid] = std::chrono::steady_clock::now();
        }
        if (running.empty())
        {
            continue; // every remaining scenario was reused
        }
        int status = 0;
        rusage usage{};
        const pid_t pid = wait4(-1, &status, 0, &usage);
        NS_ABORT_MSG_IF(pid < 0, "fabric-comparison: wait failed: " << std::strerror(errno));
        const std::size_t index = running[pid];
        running.erase(pid);
        ScenarioCost cost;
        cost.wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - forkedAt[pid]).count();
        forkedAt.erase(pid);
        cost.cpu = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec +
                   usage.ru_stime.tv_usec / 1e6;
        cost.peakRssMb = usage.ru_maxrss / 1024.0; // Linux: kilobytes
        cost.known = true;
        {
            std::ofstream out(costDir / (matrix[index].GetId() + ".json"));
            out << cost.ToJson().dump(1) << std::endl;
        }
        finish(index, status, cost, false);
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    std::vector<nlohmann::json> finished;
    std::map<std::string, std::size_t> versions;
    for (const nlohmann::json& result : results)
    {
        if (!result.is_null())
        {
            finished.push_back(result);
            ++versions[result["runRecord"].value("moduleVersion", "unknown")];
        }
    }
    const ComparisonReport report(finished, settings.failAt);
    const std::filesystem::path dir(resultsDir);
    {
        std::ofstream csv(dir / "summary.csv");
        report.WriteCsv(csv);
    }
    std::string command = "fabric-comparison";
    for (int i = 1; i < argc; ++i)
    {
        command += std::string(" ") + argv[i];
    }
    WriteMarkdown((dir / "report.md").string(),
                  report,
                  cluster,
                  scale,
                  wall,
                  matrixCost,
                  failed,
                  command,
                  versions);

    std::cout << std::endl
              << "Normalised time (mean iteration time / the ideal fabric's):" << std::endl;
    report.WriteTable(std::cout, false);
    std::cout << std::endl
              << "  " << matrix.size() << " scenarios in " << FormatWall(wall) << " ("
              << CostText(matrixCost, matrix.size()) << "); " << failed.size() << " did not finish"
              << std::endl
              << "  summary in " << (dir / "summary.csv").string() << std::endl
              << "  report in " << (dir / "report.md").string() << std::endl;
    return failed.empty() ? 0 : 1;
}
