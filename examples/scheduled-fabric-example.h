/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_SCHEDULED_FABRIC_EXAMPLE_H
#define AI_FABRIC_SCHEDULED_FABRIC_EXAMPLE_H

// What the scheduled-fabric examples share: the fabric options on their command
// line, and the fabric-wide results they print and write (JSON and CSV).

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

/// Fabric options of the examples; they start at the models' attribute defaults.
struct ScheduledFabricExampleOptions
{
    std::string sprayMode{"RoundRobin"}; //!< ScheduledLeafSwitch::SprayMode
    uint32_t cellPayload{Default<uint32_t>(ScheduledLeafSwitch::GetTypeId(), "CellPayload")};
    uint32_t cellHeader{Default<uint32_t>(ScheduledLeafSwitch::GetTypeId(), "CellHeader")};
    uint32_t creditSize{Default<uint32_t>(CreditScheduler::GetTypeId(), "CreditSize")};
    double overGrant{Default<double>(CreditScheduler::GetTypeId(), "OverGrant")};
    std::string json;  //!< JSON results file (empty: none)
    std::string stats; //!< CSV file of every fabric counter (empty: none)

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

    /// \param cmd the command line to add the options to
    void AddToCommandLine(CommandLine& cmd)
    {
        cmd.AddValue("sprayMode", "RoundRobin, Random or LeastLoaded", sprayMode);
        cmd.AddValue("cellPayload", "cell payload bytes", cellPayload);
        cmd.AddValue("cellHeader", "cell header bytes", cellHeader);
        cmd.AddValue("creditSize", "credit grant bytes", creditSize);
        cmd.AddValue("overGrant", "credit rate / port rate", overGrant);
        cmd.AddValue("json", "JSON results file", json);
        cmd.AddValue("stats", "CSV file of every fabric counter (none if not given)", stats);
    }

    /// \param fabric the helper, before Install
    void Apply(ScheduledFabricHelper& fabric) const
    {
        fabric.SetLeafAttribute("SprayMode", StringValue(sprayMode));
        fabric.SetLeafAttribute("CellPayload", UintegerValue(cellPayload));
        fabric.SetLeafAttribute("CellHeader", UintegerValue(cellHeader));
        fabric.SetSchedulerAttribute("CreditSize", UintegerValue(creditSize));
        fabric.SetSchedulerAttribute("OverGrant", DoubleValue(overGrant));
    }

    /**
     * Print the fabric-wide results, add them to a scenario's JSON results and
     * write the JSON and CSV files that were asked for.
     * \param fabric the fabric after the run
     * \param results the scenario's own results, completed here
     */
    void Report(const ScheduledFabricHelper& fabric, nlohmann::json results) const
    {
        const auto totals = fabric.GetTotals();
        const uint64_t events = Simulator::GetEventCount();
        const double eventsPerCell = totals.dataCells ? double(events) / totals.dataCells : 0;
        std::cout << "  spine queue high water " << totals.spineQueueHighWater << " B; offered "
                  << totals.offeredPackets << " packets, delivered " << totals.deliveredPackets
                  << ", dropped " << totals.GetDroppedPackets() << ", VOQ bytes left "
                  << totals.queuedBytes << std::endl
                  << "  " << events << " events for " << totals.dataCells << " data cells ("
                  << eventsPerCell << " per cell, all hops and host frames included)" << std::endl;
        if (!json.empty())
        {
            results["cluster"] = fabric.GetCluster().ToString();
            results["spineQueueHighWaterBytes"] = totals.spineQueueHighWater;
            results["offeredPackets"] = totals.offeredPackets;
            results["deliveredPackets"] = totals.deliveredPackets;
            results["droppedPackets"] = totals.GetDroppedPackets();
            results["dataCells"] = totals.dataCells;
            results["events"] = events;
            results["eventsPerDataCell"] = eventsPerCell;
            std::ofstream(json) << results.dump(2) << std::endl;
            std::cout << "  results in " << json << std::endl;
        }
        if (!stats.empty())
        {
            std::ofstream out(stats);
            fabric.WriteStats(out);
            std::cout << "  counters in " << stats << std::endl;
        }
    }
};

} // namespace ns3

#endif /* AI_FABRIC_SCHEDULED_FABRIC_EXAMPLE_H */
