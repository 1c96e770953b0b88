/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_COMPARISON_SCENARIO_H
#define AI_FABRIC_COMPARISON_SCENARIO_H

// One scenario of the fabric comparison (examples/fabric-comparison.cc): a
// workload on one fabric under one condition, built from the shared cluster
// description, run to the end in a fresh simulation, and its metrics, counters and
// time series returned as JSON.

#include "fabric-example.h"
#include "workload-example.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/// The fabrics compared, in report order; ideal is the reference.
inline const std::vector<std::string>&
ComparisonFabrics()
{
    static const std::vector<std::string> fabrics{"ideal", "scheduled", "ethernet", "ai-ethernet"};
    return fabrics;
}

/// The workloads, one per kind of parallelism (tensor twice), then the combined job.
inline const std::vector<std::string>&
ComparisonWorkloads()
{
    static const std::vector<std::string> workloads{"dp",
                                                    "pp",
                                                    "tp-server",
                                                    "tp-fabric",
                                                    "ep",
                                                    "job"};
    return workloads;
}

/// The conditions.
inline const std::vector<std::string>&
ComparisonConditions()
{
    static const std::vector<std::string> conditions{"alone",
                                                     "neighbour",
                                                     "failure",
                                                     "nic",
                                                     "linkspeed"};
    return conditions;
}

/**
 * A parameter that may favour one fabric, swept by --sweep=NAME: the attributes it
 * sets (all to the same value), the values tried, the fabrics it applies to and the
 * condition under which it matters.
 */
struct SweepParameter
{
    std::string name;                    //!< --sweep value
    std::vector<std::string> attributes; //!< full attribute paths for Config::SetDefault
    std::vector<std::string> values;     //!< the values tried
    std::vector<std::string> fabrics;    //!< the fabrics it applies to
    std::string condition;               //!< where it matters: "alone", "failure" or "" (any)
    std::string why;                     //!< why it is swept, one line
};

/// \return the parameters --sweep knows
inline const std::vector<SweepParameter>&
ComparisonSweeps()
{
    static const std::vector<SweepParameter> sweeps{
        {"requestInterval",
         {"ns3::ScheduledLeafSwitch::RequestInterval"},
         {"500ns", "1us", "2us", "4us"},
         {"scheduled"},
         "alone",
         "no public figure: how long a VOQ coalesces credit requests (a message's tail waits "
         "for it)"},
        {"creditSize",
         {"ns3::CreditScheduler::CreditSize"},
         {"512", "1024", "2048"},
         {"scheduled"},
         "alone",
         "Jericho-family credits are up to 1 KB; smaller credits cost more control cells"},
        {"dcqcnTimer",
         {"ns3::DcqcnCongestionControl::RateIncreaseTimer"},
         {"55us", "300us"},
         {"ethernet", "ai-ethernet"},
         "alone",
         "DCQCN's rate-increase timer: 55 us in the paper, 300 us in NIC firmware"},
        {"bufferSize",
         {"ns3::SharedBufferMmu::BufferSize"},
         {"16777216", "33554432", "67108864"},
         {"ethernet", "ai-ethernet"},
         "alone",
         "switch packet buffer: merchant chips carry tens of MB; the chip modelled decides"},
        {"linkDetection",
         {"ns3::ScheduledLeafSwitch::LinkDetectionDelay",
          "ns3::CellSpineSwitch::LinkDetectionDelay",
          "ns3::EthernetSwitch::LinkDetectionDelay"},
         {"1us", "10us", "100us"},
         {"scheduled", "ethernet", "ai-ethernet"},
         "failure",
         "how long a switch sends onto a link that has failed: local loss of signal has no "
         "public figure; Broadcom's open SDK (OpenBCM 6.5.27) defaults its fabric reachability "
         "watchdog to 100 us"},
        {"routeWithdraw",
         {"ns3::EthernetSwitch::RouteWithdrawDelay"},
         {"100us", "1ms", "10ms"},
         {"ethernet", "ai-ethernet"},
         "failure",
         "no public figure: how long the other Ethernet switches keep routing to a leaf "
         "through a spine that lost its link to it (a routing update; no routing protocol "
         "is simulated)"},
        {"reorderWindow",
         {"ns3::OutOfOrderPlacementRecovery::ReorderWindow"},
         {"64", "256", "4096"},
         {"ai-ethernet"},
         "",
         "no public figure: packets beyond a PSN gap a NIC holds (its out-of-order "
         "placement tracking); per-packet routing reorders more than that under deep queues, "
         "the receiver discards the rest and a lost tail waits for the retransmission timeout"},
        {"retransmitTimeout",
         {"ns3::RdmaTransport::RetransmitTimeout"},
         {"131072ns", "1048576ns", "67108864ns", "268435456ns"},
         {"scheduled", "ethernet", "ai-ethernet"},
         "",
         "RoCE local ACK timeout 4.096 us x 2^n (n = 5, 8, 14, 16; perftest's default and "
         "this comparison's is 14, Linux bnxt_re's 16, "
         "NCCL's and HCCL's 20, 4.3 s): a lost tail waits for it, and a packet held longer "
         "in PFC-paused queues is resent"},
    };
    return sweeps;
}

/// What a scenario's workload is made of: sizes and times of each kind of parallelism.
/// Every field is set from fabric-comparison's options, whose texts hold the defaults.
struct ComparisonWorkloadSizes
{
    // Data parallel: gradient AllReduce in buckets under the backward pass.
    uint64_t dpGradientBytes{}; //!< bytes of gradients per iteration
    uint64_t dpBucketBytes{};   //!< bytes per bucket
    Time dpForwardTime{};       //!< forward pass
    Time dpBackwardTime{};      //!< backward pass
    // Pipeline parallel.
    uint32_t ppStages{};          //!< stages (one server each)
    uint32_t ppMicrobatches{};    //!< microbatches per iteration
    uint64_t ppActivationBytes{}; //!< bytes per microbatch between stages
    Time ppForwardTime{};         //!< one stage's forward pass of a microbatch
    Time ppBackwardTime{};        //!< its backward pass
    // Tensor parallel.
    uint32_t tpLayers{};          //!< layers per iteration
    uint64_t tpActivationBytes{}; //!< bytes per AllReduce
    Time tpForwardTime{};         //!< compute before each forward AllReduce
    Time tpBackwardTime{};        //!< and each backward one
    // Expert parallel.
    uint64_t epTokensPerRank{}; //!< tokens each rank routes
    uint64_t epBytesPerToken{}; //!< hidden state bytes per token
    double epZipf{};            //!< Zipf exponent of the gate
    Time epComputePerToken{};   //!< expert compute per token
    // The combined job.
    std::string jobModel;       //!< transformer preset
    uint32_t jobLayers{};       //!< layers (overrides the preset's)
    uint32_t jobMicrobatches{}; //!< microbatches per iteration
    uint32_t jobPipeline{};     //!< pipeline stages
    // The noisy neighbour: a data-parallel job on the other servers.
    uint64_t neighbourGradientBytes{}; //!< its gradients per iteration
    uint32_t neighbourIterations{};    //!< its iterations
    // Every workload.
    uint32_t iterations{}; //!< iterations of the workload measured
};

/// One cell of the matrix.
struct Scenario
{
    std::string workload;  //!< one of ComparisonWorkloads(), or "neighbour" (its baseline)
    std::string fabric;    //!< one of ComparisonFabrics()
    std::string condition; //!< one of ComparisonConditions()
    std::string variant;   //!< within the condition: "spine", "links2", "2x", ""
    std::string sweep;     //!< a swept parameter's setting, "name=value", or ""

    /// \return a file-name-safe identifier
    std::string GetId() const
    {
        std::string id = workload + "_" + fabric + "_" + condition;
        for (const std::string& part : {variant, sweep})
        {
            if (!part.empty())
            {
                id += "_" + part;
            }
        }
        for (char& c : id)
        {
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
            {
                c = '-';
            }
        }
        return id;
    }

    /// \return whether the neighbour job runs beside the workload
    bool HasNeighbour() const
    {
        return condition == "neighbour" || condition == "nic";
    }

    /// \return leaf-spine links failed (0 if none; a spine's links: see IsSpineFailure)
    uint32_t GetFailedLinks() const
    {
        return condition == "failure" && variant.rfind("links", 0) == 0
                   ? static_cast<uint32_t>(std::stoul(variant.substr(5)))
                   : 0;
    }

    /// \return whether every link of spine 0 fails
    bool IsSpineFailure() const
    {
        return condition == "failure" && variant == "spine";
    }
};

/// The settings every scenario shares (checked before anything runs).
struct ComparisonSettings
{
    ClusterDescription cluster;    //!< the cluster every fabric is built from
    ComparisonWorkloadSizes sizes; //!< the workloads
    // Set from the options (--failAt, --timeBin, --maxSimTime, --nicFraction, --allReduce).
    Time failAt;                       //!< when links fail under the failure condition
    Time timeBin;                      //!< throughput and queue sampling period
    Time maxSimTime;                   //!< a scenario still running then is stopped, incomplete
    Time drainTime{MicroSeconds(100)}; //!< run on after the jobs end: the last ACKs arrive
    double nicFraction{0};             //!< the throttled NIC's share of its rate
    std::string allReduce;             //!< AllReduce algorithm's TypeId name
};

/**
 * The GPUs of the two jobs: the workload's job takes the even servers, the
 * neighbour the odd ones, so that with two servers per leaf both jobs share every
 * leaf's uplinks and every spine.
 */
struct JobPlacement
{
    std::vector<std::vector<uint32_t>> workloadServers; //!< GPUs of each of its servers
    std::vector<uint32_t> workloadGpus;                 //!< all of them, in order
    std::vector<uint32_t> neighbourGpus;                //!< the neighbour's GPUs
    /// tp-fabric's servers, as indices into workloadServers in server order
    std::array<std::size_t, 2> tensorFabricServers{0, 1};

    /// \param cluster the cluster (servers checked)
    explicit JobPlacement(const ClusterDescription& cluster)
    {
        for (uint32_t server = 0; server < cluster.GetServers(); ++server)
        {
            std::vector<uint32_t> gpus;
            for (uint32_t g = 0; g < cluster.gpusPerServer; ++g)
            {
                gpus.push_back(server * cluster.gpusPerServer + g);
            }
            if (server % 2 == 0)
            {
                workloadServers.push_back(gpus);
                workloadGpus.insert(workloadGpus.end(), gpus.begin(), gpus.end());
            }
            else
            {
                neighbourGpus.insert(neighbourGpus.end(), gpus.begin(), gpus.end());
            }
        }
        // tp-fabric spans the second server, whose first NIC the nic condition
        // throttles, and the first other one on another leaf: with more than two
        // servers per leaf the first two share a leaf and no spine would be crossed.
        const auto leafOf = [&cluster](const std::vector<uint32_t>& server) {
            return cluster.GetLeafOfHost(cluster.GetHostOfGpu(server.front()));
        };
        for (std::size_t other = 0; other < workloadServers.size(); ++other)
        {
            if (leafOf(workloadServers[other]) != leafOf(workloadServers[1]))
            {
                tensorFabricServers = {std::min<std::size_t>(other, 1),
                                       std::max<std::size_t>(other, 1)};
                break;
            }
        }
    }

    /**
     * \param workload a workload name
     * \param sizes the workload sizes (stages)
     * \return the GPUs it runs on
     */
    std::vector<uint32_t> GetGpus(const std::string& workload,
                                  const ComparisonWorkloadSizes& sizes) const
    {
        std::vector<uint32_t> gpus;
        if (workload == "pp")
        {
            for (uint32_t s = 0; s < sizes.ppStages; ++s)
            {
                gpus.push_back(workloadServers[s].front());
            }
            return gpus;
        }
        if (workload == "tp-server")
        {
            return workloadServers[0];
        }
        if (workload == "tp-fabric")
        {
            // A group of a server's size, half on each of two servers on two leaves.
            const std::size_t half = workloadServers[0].size() / 2;
            for (std::size_t server : tensorFabricServers)
            {
                gpus.insert(gpus.end(),
                            workloadServers[server].begin(),
                            workloadServers[server].begin() + half);
            }
            return gpus;
        }
        if (workload == "neighbour")
        {
            return neighbourGpus;
        }
        return workloadGpus;
    }
};

/**
 * Builds and runs one scenario. Construct, then Run() once, in a process that runs
 * no other simulation (the comparison forks one process per scenario, so random
 * streams and static state never depend on what ran before).
 */
class ComparisonSimulation
{
  public:
    /// \param settings the shared settings \param scenario the cell of the matrix
    ComparisonSimulation(const ComparisonSettings& settings, const Scenario& scenario)
        : m_settings(settings),
          m_scenario(scenario),
          m_placement(settings.cluster)
    {
    }

    /// \return the cluster the fabric is built from (ideal: one switch holding every NIC)
    ClusterDescription GetFabricCluster() const
    {
        ClusterDescription cluster = m_settings.cluster;
        if (m_scenario.fabric == "ideal")
        {
            // Every NIC on one non-blocking output-queued switch: the GPUs and servers
            // stay as they are, only their leaf changes (one spine, never used).
            const uint32_t hosts = cluster.GetHosts();
            cluster.leaves = 1;
            cluster.hostsPerLeaf = hosts;
            cluster.hostPortsPerLeaf = hosts;
            cluster.spines = 1;
            cluster.linksPerLeafSpine = 1;
            cluster.nicPlacement = "server";
        }
        else if (m_scenario.condition == "linkspeed")
        {
            // Fabric links at twice the rate, half as many: the same capacity.
            cluster.spines /= 2;
            cluster.fabricLinkRate = DataRate(cluster.fabricLinkRate.GetBitRate() * 2);
        }
        return cluster;
    }

    /// Build, run and measure. \return the scenario's results
    nlohmann::json Run()
    {
        for (const SweepParameter& sweep : ComparisonSweeps())
        {
            if (m_scenario.sweep.rfind(sweep.name + "=", 0) == 0)
            {
                for (const std::string& attribute : sweep.attributes)
                {
                    Config::SetDefault(attribute,
                                       StringValue(m_scenario.sweep.substr(sweep.name.size() + 1)));
                }
            }
        }
        const ClusterDescription cluster = GetFabricCluster();
        BuildFabric(cluster);
        m_collectives.SetAlgorithm("AllReduce", m_settings.allReduce);
        m_collectives.Install(cluster, m_rdma);
        InstallWorkload();
        if (m_scenario.HasNeighbour() || m_scenario.workload == "neighbour")
        {
            InstallNeighbour();
        }
        ApplyCondition(cluster);
        ConnectCounters();

        for (uint32_t gpu : m_placement.GetGpus(m_scenario.workload, m_settings.sizes))
        {
            m_measuredRanks.push_back(cluster.GetHostOfGpu(gpu));
        }
        m_apps.Start(NanoSeconds(1));
        Simulator::Schedule(m_settings.timeBin, &ComparisonSimulation::Sample, this);
        // Runs until the jobs are done and the fabric has drained (drainTime), or until
        // the sampler stops it at maxSimTime.
        Simulator::Run();

        nlohmann::json results;
        results["scenario"] = {{"id", m_scenario.GetId()},
                               {"workload", m_scenario.workload},
                               {"fabric", m_scenario.fabric},
                               {"condition", m_scenario.condition},
                               {"variant", m_scenario.variant},
                               {"sweep", m_scenario.sweep}};
        results["cluster"] = cluster.ToString();
        results["fabricSetup"] = DescribeFabric(m_scenario.fabric);
        results["simulatedTime_us"] = Simulator::Now().GetSeconds() * 1e6;
        results["jobsDone_us"] = m_jobsDone.GetSeconds() * 1e6;
        results["failAt_us"] = m_settings.failAt.GetSeconds() * 1e6;
        results["events"] = Simulator::GetEventCount();
        results["completed"] = AllDone();
        results["stalled"] = m_stalled;
        results["failures"] = GetFailures();
        results["metrics"] = CollectMetrics();
        results["counters"] = CollectCounters();
        results["series"] = {{"binWidth_us", m_settings.timeBin.GetSeconds() * 1e6},
                             {"deliveredGbps", m_deliveredGbps},
                             {"queuedBytes", m_queuedBytes}};
        results["runRecord"] = RunRecord::Get();
        Simulator::Destroy();
        return results;
    }

    /// \param fabric a fabric's name \return its setup in words, for the report
    static std::string DescribeFabric(const std::string& fabric)
    {
        if (fabric == "ideal")
        {
            return "every NIC on one non-blocking output-queued Ethernet switch, PFC, no "
                   "congestion control";
        }
        if (fabric == "scheduled")
        {
            return "VOQs, credit scheduler, cells sprayed round robin over every spine link, "
                   "reassembly; no host congestion control";
        }
        if (fabric == "ethernet")
        {
            return "Ethernet Clos: ECMP, PFC, ECN with DCQCN, go-back-N";
        }
        return "Ethernet Clos: per-packet congestion-aware routing (own and the spine's queue), "
               "PFC, ECN with DCQCN, selective repeat";
    }

  private:
    /// \param cluster the cluster to build: the fabric and RDMA transports on every NIC
    void BuildFabric(const ClusterDescription& cluster)
    {
        const std::string& fabric = m_scenario.fabric;
        TypeId cc = RdmaCongestionControl::GetTypeId();
        if (fabric == "scheduled")
        {
            auto scheduled = std::make_unique<ScheduledFabricHelper>();
            m_scheduled = scheduled.get();
            m_fabric = std::move(scheduled);
        }
        else
        {
            auto clos = std::make_unique<EthernetClosHelper>();
            if (fabric == "ideal")
            {
                // Non-blocking and output-queued: lossless by PFC, never marking.
                clos->SetSwitchAttribute("EcnEnabled", BooleanValue(false));
            }
            else
            {
                RdmaHelper::LookupCongestionControl("Dcqcn", &cc);
            }
            if (fabric == "ai-ethernet")
            {
                clos->SetSwitchAttribute("LoadBalancingPolicy",
                                         TypeIdValue(CongestionAwareLoadBalancing::GetTypeId()));
                m_rdma.SetTransportAttribute("LossRecovery",
                                             StringValue("ns3::SelectiveRepeatRecovery"));
            }
            m_clos = clos.get();
            m_fabric = std::move(clos);
        }
        m_fabric->Install(cluster);
        m_fabric->AssignStreams(1);
        m_rdma.SetTransportAttribute("CongestionControl", TypeIdValue(cc));
        m_rdma.Install(m_fabric->GetHostDevices());
    }

    /// Install the measured workload.
    void InstallWorkload()
    {
        const ComparisonWorkloadSizes& sizes = m_settings.sizes;
        const std::string& workload = m_scenario.workload;
        const std::vector<uint32_t> gpus = m_placement.GetGpus(workload, sizes);
        if (workload == "neighbour")
        {
            return; // the neighbour's baseline: InstallNeighbour alone
        }
        if (workload == "job")
        {
            const uint32_t tp = m_settings.cluster.gpusPerServer;
            const auto dp = static_cast<uint32_t>(gpus.size() / (tp * sizes.jobPipeline));
            Ptr<TransformerModel> model = TransformerModel::CreatePreset(sizes.jobModel);
            model->SetAttribute("Layers", UintegerValue(sizes.jobLayers));
            TrainingJobHelper job;
            job.SetLayoutAttribute("TensorParallel", UintegerValue(tp));
            job.SetLayoutAttribute("PipelineParallel", UintegerValue(sizes.jobPipeline));
            job.SetLayoutAttribute("DataParallel", UintegerValue(dp));
            job.SetAttribute("Model", PointerValue(model));
            job.SetAttribute("Microbatches", UintegerValue(sizes.jobMicrobatches));
            job.SetAttribute("Iterations", UintegerValue(sizes.iterations));
            m_workload = DynamicCast<TrainingApplication>(job.Install(gpus, m_collectives).Get(0));
        }
        else
        {
            TrainingApplicationHelper helper = CreateHelper(workload);
            m_workload = DynamicCast<TrainingApplication>(
                helper.Install(m_collectives.CreateCommunicator(gpus), m_collectives).Get(0));
        }
        if (auto experts = DynamicCast<ExpertParallelApplication>(m_workload))
        {
            experts->AssignStreams(100); // the same gate draws on every fabric
        }
        m_apps.Add(m_workload);
    }

    /// \param workload dp, pp, tp-server, tp-fabric or ep \return its application helper
    TrainingApplicationHelper CreateHelper(const std::string& workload) const
    {
        const ComparisonWorkloadSizes& sizes = m_settings.sizes;
        if (workload == "pp")
        {
            TrainingApplicationHelper pp("ns3::PipelineParallelApplication");
            pp.SetAttribute("Stages", UintegerValue(sizes.ppStages));
            pp.SetAttribute("Microbatches", UintegerValue(sizes.ppMicrobatches));
            pp.SetAttribute("ActivationBytes", UintegerValue(sizes.ppActivationBytes));
            pp.SetAttribute("ForwardTime", TimeValue(sizes.ppForwardTime));
            pp.SetAttribute("BackwardTime", TimeValue(sizes.ppBackwardTime));
            pp.SetAttribute("Iterations", UintegerValue(sizes.iterations));
            return pp;
        }
        if (workload == "tp-server" || workload == "tp-fabric")
        {
            TrainingApplicationHelper tp("ns3::TensorParallelApplication");
            tp.SetAttribute("Layers", UintegerValue(sizes.tpLayers));
            tp.SetAttribute("ActivationBytes", UintegerValue(sizes.tpActivationBytes));
            tp.SetAttribute("ForwardTime", TimeValue(sizes.tpForwardTime));
            tp.SetAttribute("BackwardTime", TimeValue(sizes.tpBackwardTime));
            tp.SetAttribute("Iterations", UintegerValue(sizes.iterations));
            return tp;
        }
        if (workload == "ep")
        {
            const auto ranks = static_cast<uint32_t>(m_placement.workloadGpus.size());
            std::ostringstream gate;
            gate.precision(17);
            gate << "ns3::ZipfGating[Exponent=" << sizes.epZipf << "]";
            TrainingApplicationHelper ep("ns3::ExpertParallelApplication");
            ep.SetAttribute("Experts", UintegerValue(2 * ranks));
            ep.SetAttribute("TokensPerRank", UintegerValue(sizes.epTokensPerRank));
            ep.SetAttribute("TopK", UintegerValue(2));
            ep.SetAttribute("BytesPerToken", UintegerValue(sizes.epBytesPerToken));
            ep.SetAttribute("ComputeTimePerToken", TimeValue(sizes.epComputePerToken));
            ep.SetAttribute("Gating", StringValue(gate.str()));
            ep.SetAttribute("Iterations", UintegerValue(sizes.iterations));
            return ep;
        }
        // Under a failure, gradients reduce back to back (no compute between them), so
        // that the throughput series shows the failure rather than compute phases.
        const bool backToBack = m_scenario.condition == "failure";
        return CreateDataParallel(sizes.dpGradientBytes, sizes.iterations, backToBack);
    }

    /**
     * \param gradientBytes gradients per iteration \param iterations iterations
     * \param backToBack no compute: every bucket reduces at once
     * \return a data-parallel helper with the dp sizes' buckets and passes
     */
    TrainingApplicationHelper CreateDataParallel(uint64_t gradientBytes,
                                                 uint32_t iterations,
                                                 bool backToBack = false) const
    {
        const ComparisonWorkloadSizes& sizes = m_settings.sizes;
        TrainingApplicationHelper dp("ns3::DataParallelApplication");
        dp.SetAttribute("GradientBytes", UintegerValue(gradientBytes));
        dp.SetAttribute("BucketBytes", UintegerValue(std::min(sizes.dpBucketBytes, gradientBytes)));
        const Time forward = backToBack ? Time(0) : sizes.dpForwardTime;
        const Time backward = backToBack ? Time(0) : sizes.dpBackwardTime;
        dp.SetAttribute("ForwardTime", StringValue(WorkloadOptions::ConstantSeconds(forward)));
        dp.SetAttribute("BackwardTime", StringValue(WorkloadOptions::ConstantSeconds(backward)));
        dp.SetAttribute("Iterations", UintegerValue(iterations));
        return dp;
    }

    /// Install the noisy neighbour: data parallel on the odd servers.
    void InstallNeighbour()
    {
        const ComparisonWorkloadSizes& sizes = m_settings.sizes;
        TrainingApplicationHelper dp =
            CreateDataParallel(sizes.neighbourGradientBytes, sizes.neighbourIterations);
        m_neighbour = DynamicCast<TrainingApplication>(
            dp.Install(m_collectives.CreateCommunicator(m_placement.neighbourGpus), m_collectives)
                .Get(0));
        m_apps.Add(m_neighbour);
    }

    /// \param cluster the cluster built: schedule the condition's failures and impairments
    void ApplyCondition(const ClusterDescription& cluster)
    {
        if (m_scenario.IsSpineFailure())
        {
            for (uint32_t leaf = 0; leaf < cluster.leaves; ++leaf)
            {
                for (uint32_t link = 0; link < cluster.linksPerLeafSpine; ++link)
                {
                    m_fabric->ScheduleLinkState(leaf, 0, link, m_settings.failAt, false);
                }
            }
        }
        // k failed links: leaf 0's links to spines 0 .. k-1 (then their parallel links).
        for (uint32_t i = 0; i < m_scenario.GetFailedLinks(); ++i)
        {
            m_fabric->ScheduleLinkState(0,
                                        i % cluster.spines,
                                        i / cluster.spines,
                                        m_settings.failAt,
                                        false);
        }
        if (m_scenario.condition == "nic")
        {
            // The NIC of the workload's first GPU on its second server: it crosses the
            // fabric in every workload that does.
            const uint32_t gpu = m_placement.workloadServers[1].front();
            m_fabric->ScheduleNicSlowdown(cluster.GetHostOfGpu(gpu),
                                          m_settings.nicFraction,
                                          Seconds(0));
        }
    }

    /// Count control cells and per-uplink bytes through trace sources.
    void ConnectCounters()
    {
        if (m_scheduled)
        {
            for (uint32_t leaf = 0; leaf < m_scheduled->GetLeaves().GetN(); ++leaf)
            {
                Ptr<ScheduledLeafSwitch> sw = m_scheduled->GetLeaf(leaf);
                for (uint32_t port = 0; port < sw->GetNHostPorts(); ++port)
                {
                    Ptr<CreditScheduler> scheduler = sw->GetScheduler(port);
                    scheduler->TraceConnectWithoutContext(
                        "CreditRequest",
                        MakeCallback(&ComparisonSimulation::CountRequest, this));
                    scheduler->TraceConnectWithoutContext(
                        "CreditGrant",
                        MakeCallback(&ComparisonSimulation::CountGrant, this));
                }
            }
        }
        if (m_clos && m_scenario.fabric != "ideal")
        {
            // Leaf ends of the leaf-spine links: the uplinks ECMP chooses among.
            std::set<uint32_t> leafNodes;
            for (uint32_t leaf = 0; leaf < m_clos->GetLeaves().GetN(); ++leaf)
            {
                leafNodes.insert(m_clos->GetLeaves().Get(leaf)->GetId());
            }
            const NetDeviceContainer& devices = m_clos->GetFabricDevices();
            for (uint32_t i = 0; i < devices.GetN(); ++i)
            {
                if (leafNodes.count(devices.Get(i)->GetNode()->GetId()))
                {
                    const uint32_t leaf = devices.Get(i)->GetNode()->GetId();
                    m_uplinkLeaf.push_back(leaf);
                    m_uplinkBytes.push_back(0);
                    devices.Get(i)->TraceConnectWithoutContext(
                        "TxEnd",
                        MakeBoundCallback(&ComparisonSimulation::CountUplink,
                                          &m_uplinkBytes.back()));
                }
            }
        }
    }

    /**
     * \param bytes an uplink's counter \param frame a frame sent \param priority its priority
     */
    static void CountUplink(uint64_t* bytes, Ptr<const Packet> frame, uint8_t priority)
    {
        *bytes += frame->GetSize();
    }

    /// \param source requester \param tc class \param cumulative bytes: one request cell
    void CountRequest(uint32_t source, uint8_t tc, uint64_t cumulative)
    {
        ++m_requests;
    }

    /// \param source requester \param tc class \param bytes granted: one grant cell
    void CountGrant(uint32_t source, uint8_t tc, uint64_t bytes)
    {
        ++m_grants;
    }

    /// \return whether every application finished its iterations
    bool AllDone() const
    {
        for (uint32_t i = 0; i < m_apps.GetN(); ++i)
        {
            Ptr<TrainingApplication> app = DynamicCast<TrainingApplication>(m_apps.Get(i));
            UintegerValue iterations;
            app->GetAttribute("Iterations", iterations);
            if (app->GetIterationsDone() != iterations.Get())
            {
                return false;
            }
        }
        return true;
    }

    /// \return whether every application has finished or failed
    bool AllEnded() const
    {
        for (uint32_t i = 0; i < m_apps.GetN(); ++i)
        {
            if (!DynamicCast<TrainingApplication>(m_apps.Get(i))->HasEnded())
            {
                return false;
            }
        }
        return true;
    }

    /// \return why the applications that failed did, one line each
    nlohmann::json GetFailures() const
    {
        nlohmann::json failures = nlohmann::json::array();
        for (uint32_t i = 0; i < m_apps.GetN(); ++i)
        {
            Ptr<TrainingApplication> app = DynamicCast<TrainingApplication>(m_apps.Get(i));
            if (app->HasFailed())
            {
                failures.push_back(app->GetFailure());
            }
        }
        return failures;
    }

    /// One sample per bin: bytes delivered to the measured GPUs, bytes queued in the fabric.
    void Sample()
    {
        uint64_t delivered = 0;
        for (uint32_t rank : m_measuredRanks)
        {
            delivered += m_rdma.GetTransport(rank)->GetStats().bytesDelivered;
        }
        m_deliveredGbps.push_back((delivered - m_lastDelivered) * 8.0 /
                                  m_settings.timeBin.GetSeconds() / 1e9);
        m_lastDelivered = delivered;
        m_queuedBytes.push_back(m_scheduled ? m_scheduled->GetTotals().queuedBytes
                                            : m_clos->GetTotals().queuedBytes);
        if (AllDone())
        {
            // Sampling ends. What is still on the wires (the last ACKs) drains in
            // microseconds; congestion-control timers would run on for as long as
            // rates take to climb back, so the run stops after the drain time.
            m_jobsDone = Simulator::Now();
            Simulator::Stop(m_settings.drainTime);
            return;
        }
        if (AllEnded())
        {
            // A job failed (the transport gave up a message) and the others have
            // ended: nothing more can progress, the run stops.
            m_stalled = true;
            Simulator::Stop();
            return;
        }
        if (Simulator::Now() >= m_settings.maxSimTime)
        {
            Simulator::Stop();
            return;
        }
        Simulator::Schedule(m_settings.timeBin, &ComparisonSimulation::Sample, this);
    }

    /// \param stats samples in seconds \param name prefix \param metrics filled in us
    static void AddPercentiles(const SampleStatistics& stats,
                               const std::string& name,
                               nlohmann::json& metrics)
    {
        metrics[name + "P50_us"] = stats.GetCount() ? stats.GetPercentile(0.5) * 1e6 : 0.0;
        metrics[name + "P99_us"] = stats.GetCount() ? stats.GetPercentile(0.99) * 1e6 : 0.0;
    }

    /// \param samples in seconds \return them in microseconds, sorted
    static std::vector<double> SortedMicroseconds(const std::vector<double>& samples)
    {
        std::vector<double> us;
        for (double s : samples)
        {
            us.push_back(s * 1e6);
        }
        std::sort(us.begin(), us.end());
        return us;
    }

    /// \param app a workload \return its mean iteration time in us (0 if none finished)
    static double MeanIteration(Ptr<TrainingApplication> app)
    {
        const std::vector<Time>& times = app->GetIterationTimes();
        double sum = 0;
        for (const Time& t : times)
        {
            sum += t.GetSeconds();
        }
        return times.empty() ? 0 : sum / times.size() * 1e6;
    }

    /// \return the workload's metrics: iteration time and what its parallelism cares about
    nlohmann::json CollectMetrics() const
    {
        nlohmann::json metrics;
        if (m_neighbour)
        {
            metrics["neighbourIteration_us"] = MeanIteration(m_neighbour);
        }
        if (!m_workload)
        {
            metrics["iteration_us"] = MeanIteration(m_neighbour);
            return metrics;
        }
        metrics["iteration_us"] = MeanIteration(m_workload);
        if (auto dp = DynamicCast<DataParallelApplication>(m_workload))
        {
            // nccl-tests' bus bandwidth of one bucket's AllReduce: S / t x 2(n-1)/n.
            const double n = dp->GetCommunicator()->GetSize();
            const double bucket =
                std::min(m_settings.sizes.dpBucketBytes, m_settings.sizes.dpGradientBytes);
            const double t = dp->GetBucketStatistics().GetMean();
            metrics["busbw_GBps"] = t > 0 ? bucket / t * 2 * (n - 1) / n / 1e9 : 0.0;
            double exposed = 0;
            for (const Time& e : dp->GetExposedCommunication())
            {
                exposed += e.GetSeconds();
            }
            const auto count = dp->GetExposedCommunication().size();
            metrics["exposedComm_us"] = count ? exposed / count * 1e6 : 0.0;
        }
        else if (auto pp = DynamicCast<PipelineParallelApplication>(m_workload))
        {
            double bubble = 0;
            for (uint32_t s = 0; s < pp->GetStages(); ++s)
            {
                bubble += pp->GetBubbleFraction(s);
            }
            metrics["bubbleFraction"] = bubble / pp->GetStages();
            const SampleStatistics& latency = pp->GetTransferLatency();
            AddPercentiles(latency, "transfer", metrics);
            metrics["transferP999_us"] =
                latency.GetCount() ? latency.GetPercentile(0.999) * 1e6 : 0.0;
            metrics["latencySamples_us"] = SortedMicroseconds(latency.GetSamples());
        }
        else if (auto tp = DynamicCast<TensorParallelApplication>(m_workload))
        {
            AddPercentiles(tp->GetOperationLatency(), "op", metrics);
            metrics["jitterRatio"] = tp->GetLatencyTailRatio();
            metrics["opStdDev_us"] = tp->GetLatencyStdDev() * 1e6;
            metrics["latencySamples_us"] =
                SortedMicroseconds(tp->GetOperationLatency().GetSamples());
        }
        else if (auto ep = DynamicCast<ExpertParallelApplication>(m_workload))
        {
            AddPercentiles(ep->GetDispatchTime(), "dispatch", metrics);
            AddPercentiles(ep->GetCombineTime(), "combine", metrics);
            metrics["imbalance"] = ep->GetRankImbalance().GetMean();
        }
        else if (auto job = DynamicCast<TrainingJobApplication>(m_workload))
        {
            const std::vector<std::pair<const char*, TrainingJobApplication::Traffic>> kinds{
                {"tpTime_us", TrainingJobApplication::TP_TRAFFIC},
                {"ppTime_us", TrainingJobApplication::PP_TRAFFIC},
                {"epTime_us", TrainingJobApplication::EP_TRAFFIC},
                {"dpTime_us", TrainingJobApplication::DP_TRAFFIC}};
            for (const auto& [name, traffic] : kinds)
            {
                const SampleStatistics& ops = job->GetOperationTimes(traffic);
                // Operation time per iteration, summed over the job's operations.
                metrics[name] = ops.GetMean() * ops.GetCount() / m_settings.sizes.iterations * 1e6;
            }
        }
        return metrics;
    }

    /// \return the fabric's and the transports' counters, the same keys on every fabric
    nlohmann::json CollectCounters() const
    {
        nlohmann::json counters;
        RdmaTransport::Stats rdma;
        for (uint32_t rank = 0; rank < m_rdma.GetNRanks(); ++rank)
        {
            const RdmaTransport::Stats& s = m_rdma.GetTransport(rank)->GetStats();
            rdma.retransmittedPackets += s.retransmittedPackets;
            rdma.timeouts += s.timeouts;
            rdma.cnpsReceived += s.cnpsReceived;
            rdma.qpFailures += s.qpFailures;
            rdma.dataPacketsSent += s.dataPacketsSent;
            rdma.naksSent += s.naksSent;
            rdma.outOfOrderDropped += s.outOfOrderDropped;
        }
        counters["rdmaDataPackets"] = rdma.dataPacketsSent;
        counters["retransmissions"] = rdma.retransmittedPackets;
        counters["timeouts"] = rdma.timeouts;
        counters["naks"] = rdma.naksSent;
        // Discarded by receivers: beyond a PSN gap (go-back-N) or beyond the reorder window.
        counters["receiverDiscards"] = rdma.outOfOrderDropped;
        counters["cnps"] = rdma.cnpsReceived;
        counters["qpFailures"] = rdma.qpFailures;
        counters["maxQueuedBytes"] =
            m_queuedBytes.empty() ? 0
                                  : *std::max_element(m_queuedBytes.begin(), m_queuedBytes.end());
        nlohmann::json drops;
        if (m_scheduled)
        {
            const ScheduledFabricHelper::Totals t = m_scheduled->GetTotals();
            counters["offeredPackets"] = t.offeredPackets;
            counters["deliveredPackets"] = t.deliveredPackets;
            counters["queuedPackets"] =
                t.queuedPackets + t.transmitPendingPackets + t.fabricPackets + t.reassemblyPackets;
            counters["droppedPackets"] = t.GetDroppedPackets();
            counters["unaccountedPackets"] = t.GetUnaccountedPackets();
            for (const DropPlace& place : GetDropsByPlace(t))
            {
                drops[place.key] = place.packets;
            }
            counters["cellsLostOnFailedLinks"] = t.linkLostCells;
            counters["spineDroppedCells"] = t.spineDroppedCells;
            counters["pfcPauses"] = t.voqPauses;
            counters["ecnMarks"] = 0;
            counters["fabricPortHighWaterBytes"] = t.fabricPortHighWater;
            counters["spineQueueHighWaterBytes"] = t.spineQueueHighWater;
            counters["grantedBytes"] = t.grantedBytes;
            counters["creditRequests"] = m_requests;
            counters["creditGrants"] = m_grants;
            UintegerValue control;
            m_scheduled->GetLeaf(0)->GetAttribute("ControlCellSize", control);
            counters["controlBytes"] = (m_requests + m_grants) * control.Get();
            counters["uplinkImbalance"] = 0.0;
        }
        else
        {
            const EthernetClosHelper::Totals t = m_clos->GetTotals();
            counters["offeredPackets"] = t.offeredPackets;
            counters["deliveredPackets"] = t.deliveredPackets;
            counters["queuedPackets"] = t.queuedPackets + t.inTransitPackets;
            counters["droppedPackets"] = t.GetDroppedPackets();
            counters["unaccountedPackets"] = t.GetUnaccountedPackets();
            for (const DropPlace& place : GetDropsByPlace(t))
            {
                drops[place.key] = place.packets;
            }
            counters["cellsLostOnFailedLinks"] = 0;
            counters["spineDroppedCells"] = 0;
            counters["pfcPauses"] = t.pfcPauses;
            counters["ecnMarks"] = t.ecnMarked;
            counters["bufferHighWaterBytes"] = t.bufferHighWater;
            counters["grantedBytes"] = 0;
            counters["controlBytes"] = 0;
            counters["uplinkImbalance"] = GetUplinkImbalance();
        }
        counters["drops"] = drops;
        return counters;
    }

    /// \return over the leaves, the largest ratio of an uplink's bytes to its leaf's
    ///         mean uplink bytes (1: even; ECMP collisions show above 1)
    double GetUplinkImbalance() const
    {
        double worst = 0;
        std::set<uint32_t> leaves(m_uplinkLeaf.begin(), m_uplinkLeaf.end());
        for (uint32_t leaf : leaves)
        {
            double sum = 0;
            double most = 0;
            uint32_t count = 0;
            for (std::size_t i = 0; i < m_uplinkLeaf.size(); ++i)
            {
                if (m_uplinkLeaf[i] == leaf)
                {
                    sum += m_uplinkBytes[i];
                    most = std::max(most, double(m_uplinkBytes[i]));
                    ++count;
                }
            }
            if (sum > 0)
            {
                worst = std::max(worst, most / (sum / count));
            }
        }
        return worst;
    }

    const ComparisonSettings& m_settings;          //!< shared settings
    const Scenario m_scenario;                     //!< this cell
    const JobPlacement m_placement;                //!< who runs where
    std::unique_ptr<ClusterFabricHelper> m_fabric; //!< the fabric
    ScheduledFabricHelper* m_scheduled{nullptr};   //!< it, if scheduled
    EthernetClosHelper* m_clos{nullptr};           //!< it, if Ethernet (ideal too)
    RdmaHelper m_rdma;                             //!< transports
    CollectiveHelper m_collectives;                //!< GPU servers and collectives
    ApplicationContainer m_apps;                   //!< every job
    Ptr<TrainingApplication> m_workload;           //!< the measured workload
    Ptr<TrainingApplication> m_neighbour;          //!< the neighbour, if any
    std::vector<uint32_t> m_measuredRanks;         //!< hosts of the measured GPUs
    uint64_t m_lastDelivered{0};                   //!< bytes at the previous sample
    std::vector<double> m_deliveredGbps;           //!< per bin
    std::vector<uint64_t> m_queuedBytes;           //!< per bin
    std::deque<uint64_t> m_uplinkBytes;            //!< per leaf uplink (stable addresses)
    std::vector<uint32_t> m_uplinkLeaf;            //!< its leaf's node id
    Time m_jobsDone;                               //!< when the sampler saw every job done
    bool m_stalled{false};                         //!< stopped: jobs failed, nothing could progress
    uint64_t m_requests{0};                        //!< credit request cells
    uint64_t m_grants{0};                          //!< credit grant cells
};

} // namespace ns3

#endif /* AI_FABRIC_COMPARISON_SCENARIO_H */
