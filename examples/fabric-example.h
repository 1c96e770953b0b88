/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_FABRIC_EXAMPLE_H
#define AI_FABRIC_FABRIC_EXAMPLE_H

// What the fabric examples share: the choice of fabric (scheduled or Ethernet Clos)
// and its options on their command line, and the fabric-wide results they print
// and write (JSON and CSV).

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace ns3
{

/// Fabric options of the examples; they start at the models' attribute defaults.
/// An option left at the model's built-in default is not applied, so a
/// --ns3::<Type>::<Attribute> default on the same command line takes effect.
struct FabricExampleOptions
{
    /// \param tid a TypeId \param name a numeric attribute \return its default
    template <typename T>
    static T Default(TypeId tid, const std::string& name)
    {
        TypeId::AttributeInformation info;
        tid.LookupAttributeByName(name, &info);
        if constexpr (std::is_same_v<T, double>)
        {
            return DynamicCast<const DoubleValue>(info.initialValue)->Get();
        }
        else
        {
            return static_cast<T>(DynamicCast<const UintegerValue>(info.initialValue)->Get());
        }
    }

    /// The fabric tunables the examples expose.
    struct Tunables
    {
        // Scheduled fabric
        std::string sprayPolicy{
            "RoundRobin"}; //!< ScheduledLeafSwitch::SprayPolicy, without ns3:: and Spray
        uint32_t cellPayload{Default<uint32_t>(ScheduledLeafSwitch::GetTypeId(), "CellPayload")};
        uint32_t cellHeader{Default<uint32_t>(ScheduledLeafSwitch::GetTypeId(), "CellHeader")};
        uint32_t creditSize{Default<uint32_t>(CreditScheduler::GetTypeId(), "CreditSize")};
        double overGrant{Default<double>(CreditScheduler::GetTypeId(), "OverGrant")};
        // Ethernet Clos
        std::string loadBalancing{"Ecmp"}; //!< EthernetSwitch::LoadBalancing
        uint64_t bufferSize{Default<uint64_t>(SharedBufferMmu::GetTypeId(), "BufferSize")};
        bool pfc{true}; //!< SharedBufferMmu::PfcEnabled
        bool ecn{true}; //!< EthernetSwitch::EcnEnabled
    };

    std::string fabric{"scheduled"}; //!< scheduled or ethernet
    Tunables values;                 //!< bound to the command line
    const Tunables builtin;          //!< the models' defaults, before the command line
    // Traffic
    uint32_t udpDscp{26}; //!< DSCP of UDP sources: 26 is the RoCE data class, priority 3
    // Output
    std::string json;  //!< JSON results file (empty: none)
    std::string stats; //!< CSV file of every fabric counter (empty: none)

    /// \param cmd the command line to add the options to
    void AddToCommandLine(CommandLine& cmd)
    {
        cmd.AddValue("fabric", "scheduled (VOQs, credits, cells) or ethernet (Clos)", fabric);
        cmd.AddValue("sprayPolicy",
                     "scheduled: RoundRobin, Random or LeastLoaded (ns3::<name>Spray)",
                     values.sprayPolicy);
        cmd.AddValue("cellPayload", "scheduled: cell payload bytes", values.cellPayload);
        cmd.AddValue("cellHeader", "scheduled: cell header bytes", values.cellHeader);
        cmd.AddValue("creditSize", "scheduled: credit grant bytes", values.creditSize);
        cmd.AddValue("overGrant", "scheduled: credit rate / port rate", values.overGrant);
        cmd.AddValue("loadBalancing",
                     "ethernet: Ecmp, PacketSpray or Adaptive",
                     values.loadBalancing);
        cmd.AddValue("bufferSize",
                     "ethernet: packet buffer of each switch, bytes",
                     values.bufferSize);
        cmd.AddValue("pfc", "ethernet: PFC on the lossless priority (3: DSCP 24-31)", values.pfc);
        cmd.AddValue("udpDscp",
                     "DSCP of the UDP sources (26: priority 3, lossless on the Ethernet Clos "
                     "as RDMA data is; 0: priority 0, lossy)",
                     udpDscp);
        cmd.AddValue("ecn", "ethernet: ECN marking", values.ecn);
        cmd.AddValue("json", "JSON results file", json);
        cmd.AddValue("stats", "CSV file of every fabric counter (none if not given)", stats);
    }

    /**
     * What is wrong with the fabric options, for an example that refuses bad input
     * before it builds anything: an unknown --fabric, --sprayPolicy or
     * --loadBalancing.
     * \return a message naming the option and its value, or "" if they are usable
     */
    std::string FindProblem() const
    {
        std::ostringstream problem;
        TypeId policy;
        TypeId::AttributeInformation loadBalancing;
        EthernetSwitch::GetTypeId().LookupAttributeByName("LoadBalancing", &loadBalancing);
        if (fabric != "scheduled" && fabric != "ethernet")
        {
            problem << "--fabric must be scheduled or ethernet, got " << fabric;
        }
        else if (values.sprayPolicy != builtin.sprayPolicy &&
                 !TypeId::LookupByNameFailSafe("ns3::" + values.sprayPolicy + "Spray", &policy))
        {
            problem << "--sprayPolicy=" << values.sprayPolicy
                    << " is not a spray policy (RoundRobin, Random or LeastLoaded)";
        }
        else if (!loadBalancing.checker->CreateValidValue(StringValue(values.loadBalancing)))
        {
            problem << "--loadBalancing=" << values.loadBalancing
                    << " is not a load balancing (Ecmp, PacketSpray or Adaptive)";
        }
        return problem.str();
    }

    /**
     * Build the chosen fabric (stops on an unknown --fabric).
     * \param cluster the cluster
     * \param mtu Mtu of every RoceNetDevice (0: the default)
     * \return the installed fabric
     */
    std::unique_ptr<ClusterFabricHelper> Install(const ClusterDescription& cluster,
                                                 uint32_t mtu = 0) const
    {
        std::unique_ptr<ClusterFabricHelper> helper;
        if (fabric == "scheduled")
        {
            auto scheduled = std::make_unique<ScheduledFabricHelper>();
            if (values.sprayPolicy != builtin.sprayPolicy)
            {
                TypeId policy;
                NS_ABORT_MSG_UNLESS(
                    TypeId::LookupByNameFailSafe("ns3::" + values.sprayPolicy + "Spray", &policy),
                    "--sprayPolicy=" << values.sprayPolicy
                                     << " is not a spray policy (RoundRobin, "
                                        "Random or LeastLoaded)");
                scheduled->SetLeafAttribute("SprayPolicy", TypeIdValue(policy));
            }
            if (values.cellPayload != builtin.cellPayload)
            {
                scheduled->SetLeafAttribute("CellPayload", UintegerValue(values.cellPayload));
            }
            if (values.cellHeader != builtin.cellHeader)
            {
                scheduled->SetLeafAttribute("CellHeader", UintegerValue(values.cellHeader));
            }
            if (values.creditSize != builtin.creditSize)
            {
                scheduled->SetSchedulerAttribute("CreditSize", UintegerValue(values.creditSize));
            }
            if (values.overGrant != builtin.overGrant)
            {
                scheduled->SetSchedulerAttribute("OverGrant", DoubleValue(values.overGrant));
            }
            helper = std::move(scheduled);
        }
        else if (fabric == "ethernet")
        {
            auto clos = std::make_unique<EthernetClosHelper>();
            if (values.loadBalancing != builtin.loadBalancing)
            {
                clos->SetSwitchAttribute("LoadBalancing", StringValue(values.loadBalancing));
            }
            if (values.ecn != builtin.ecn)
            {
                clos->SetSwitchAttribute("EcnEnabled", BooleanValue(values.ecn));
            }
            if (values.bufferSize != builtin.bufferSize)
            {
                clos->SetMmuAttribute("BufferSize", UintegerValue(values.bufferSize));
            }
            if (values.pfc != builtin.pfc)
            {
                clos->SetMmuAttribute("PfcEnabled", BooleanValue(values.pfc));
            }
            helper = std::move(clos);
        }
        NS_ABORT_MSG_IF(!helper, "--fabric must be scheduled or ethernet, got " << fabric);
        if (mtu != 0)
        {
            helper->SetDeviceAttribute("Mtu", UintegerValue(mtu));
        }
        helper->Install(cluster);
        helper->AssignStreams(1);
        return helper;
    }

    /**
     * Print the fabric-wide results, add them to a scenario's JSON results and
     * write the JSON and CSV files that were asked for.
     * \param helper the fabric after the run
     * \param results the scenario's own results, completed here
     */
    void Report(const ClusterFabricHelper& helper, nlohmann::json results) const
    {
        const uint64_t events = Simulator::GetEventCount();
        results["fabric"] = fabric;
        results["cluster"] = helper.GetCluster().ToString();
        results["events"] = events;
        if (const auto* scheduled = dynamic_cast<const ScheduledFabricHelper*>(&helper))
        {
            const auto totals = scheduled->GetTotals();
            const double eventsPerCell = totals.dataCells ? double(events) / totals.dataCells : 0;
            std::cout << "  spine queue high water " << totals.spineQueueHighWater << " B; offered "
                      << totals.offeredPackets << " packets, delivered " << totals.deliveredPackets
                      << ", dropped " << totals.GetDroppedPackets() << ", VOQ bytes left "
                      << totals.queuedBytes << std::endl
                      << "  " << events << " events for " << totals.dataCells << " data cells ("
                      << eventsPerCell << " per cell, all hops and host frames included)"
                      << std::endl;
            std::cout << "  fabric-port queue high water " << totals.fabricPortHighWater
                      << " B; conservation: " << totals.GetUnaccountedPackets() << " packets and "
                      << totals.GetUnaccountedBytes() << " bytes unaccounted" << std::endl;
            nlohmann::json all;
            totals.ForEach([&all](const char* name, int64_t value) { all[name] = value; });
            results["totals"] = all;
            results["spineQueueHighWaterBytes"] = totals.spineQueueHighWater;
            results["offeredPackets"] = totals.offeredPackets;
            results["deliveredPackets"] = totals.deliveredPackets;
            results["droppedPackets"] = totals.GetDroppedPackets();
            results["dataCells"] = totals.dataCells;
            results["eventsPerDataCell"] = eventsPerCell;
        }
        if (const auto* clos = dynamic_cast<const EthernetClosHelper*>(&helper))
        {
            const auto totals = clos->GetTotals();
            const double eventsPerPacket =
                totals.offeredPackets ? double(events) / totals.offeredPackets : 0;
            std::cout << "  switch buffer high water " << totals.bufferHighWater << " B; offered "
                      << totals.offeredPackets << " packets, delivered " << totals.deliveredPackets
                      << ", dropped " << totals.droppedPackets << " (beyond PFC headroom "
                      << totals.headroomDrops << "), still queued " << totals.queuedPackets
                      << "; ECN marks " << totals.ecnMarked << ", PFC pauses " << totals.pfcPauses
                      << ", resumes " << totals.pfcResumes << std::endl
                      << "  " << events << " events for " << totals.offeredPackets
                      << " packets offered (" << eventsPerPacket << " per packet)" << std::endl;
            results["bufferHighWaterBytes"] = totals.bufferHighWater;
            results["offeredPackets"] = totals.offeredPackets;
            results["deliveredPackets"] = totals.deliveredPackets;
            results["droppedPackets"] = totals.droppedPackets;
            results["headroomDrops"] = totals.headroomDrops;
            results["queuedPackets"] = totals.queuedPackets;
            results["ecnMarked"] = totals.ecnMarked;
            results["pfcPauses"] = totals.pfcPauses;
            results["pfcResumes"] = totals.pfcResumes;
            results["eventsPerOfferedPacket"] = eventsPerPacket;
        }
        if (!json.empty())
        {
            std::ofstream(json) << results.dump(2) << std::endl;
            std::cout << "  results in " << json << std::endl;
        }
        if (!stats.empty())
        {
            std::ofstream out(stats);
            helper.WriteStats(out);
            std::cout << "  counters in " << stats << std::endl;
        }
    }
};

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_EXAMPLE_H */
