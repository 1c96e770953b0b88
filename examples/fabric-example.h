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

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace ns3
{

/**
 * Reads an example's options given as text and refuses bad ones: the message names
 * the example, the option and its value, goes to standard error, and the example
 * leaves with exit status 1 before it has built or run anything.
 */
class ExampleInput
{
  public:
    /// \param program the example's name, which starts every refusal
    explicit ExampleInput(std::string program)
        : m_program(std::move(program))
    {
    }

    /// \return the example's name
    const std::string& GetProgram() const
    {
        return m_program;
    }

    /**
     * Print the reason and leave with exit status 1.
     * \param reason what is wrong, naming the option and its value
     */
    [[noreturn]] void Refuse(const std::string& reason) const
    {
        std::cerr << m_program << ": " << reason << std::endl;
        std::exit(1);
    }

    /**
     * Read a whole number, optionally with nccl-tests' binary suffix (K, M, G, T:
     * powers of 1024, optionally followed by B).
     * \param option the option's name, for the message
     * \param text what was given
     * \param allowSuffix whether K/M/G/T are accepted
     * \param item the whole option value when text is one field of it (for the message)
     * \return the number (refuses anything else, and values beyond 64 bits)
     */
    uint64_t ParseNumber(const std::string& option,
                         const std::string& text,
                         bool allowSuffix,
                         const std::string& item = "") const
    {
        std::size_t digits = 0;
        uint64_t value = 0;
        bool overflow = false;
        while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
        {
            const uint64_t digit = text[digits] - '0';
            overflow |= value > (std::numeric_limits<uint64_t>::max() - digit) / 10;
            value = value * 10 + digit;
            ++digits;
        }
        std::string suffix = text.substr(digits);
        std::transform(suffix.begin(), suffix.end(), suffix.begin(), [](unsigned char c) {
            return std::toupper(c);
        });
        uint64_t scale = 1;
        if (allowSuffix && !suffix.empty())
        {
            const std::string units = "KMGT";
            const std::size_t unit = units.find(suffix[0]);
            if (unit != std::string::npos && (suffix.size() == 1 || suffix.substr(1) == "B"))
            {
                scale = uint64_t{1} << (10 * (unit + 1));
                suffix.clear();
            }
        }
        if (digits == 0 || !suffix.empty())
        {
            Refuse(Name(option, text, item) + " is not a whole number" +
                   (allowSuffix ? " of bytes (digits, optionally with K, M, G or T: 8, 64K, 1M, 1G)"
                                : ""));
        }
        if (overflow || value > std::numeric_limits<uint64_t>::max() / scale)
        {
            Refuse(Name(option, text, item) + " is too large");
        }
        return value * scale;
    }

    /**
     * Read a whole number in a range.
     * \param option the option's name \param text what was given
     * \param min smallest accepted \param max largest accepted
     * \param allowSuffix whether K/M/G/T are accepted
     * \return the number (refuses one outside [min, max])
     */
    uint64_t ParseNumberIn(const std::string& option,
                           const std::string& text,
                           uint64_t min,
                           uint64_t max,
                           bool allowSuffix = false) const
    {
        const uint64_t value = ParseNumber(option, text, allowSuffix);
        if (value < min || value > max)
        {
            Refuse("--" + option + "=" + text + " must be in " + std::to_string(min) + ".." +
                   std::to_string(max));
        }
        return value;
    }

    /**
     * Read a decimal number (digits with an optional fraction and exponent).
     * \param option the option's name, for the message \param text what was given
     * \param item the whole option value when text is one field of it (for the message)
     * \return the number (refuses anything else, infinities and NaN)
     */
    double ParseReal(const std::string& option,
                     const std::string& text,
                     const std::string& item = "") const
    {
        std::size_t used = 0;
        double value = 0;
        try
        {
            value = std::stod(text, &used);
        }
        catch (const std::exception&)
        {
            used = 0;
        }
        if (text.empty() || used != text.size() || !std::isfinite(value) ||
            !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-' ||
              text[0] == '.'))
        {
            Refuse(Name(option, text, item) + " is not a number");
        }
        return value;
    }

    /**
     * Read a time that is not negative: a number and a unit, s, ms, us or ns (10ms,
     * 0.5s, 300us); 0 alone is accepted.
     * \param option the option's name, for the message \param text what was given
     * \param item the whole option value when text is one field of it (for the message)
     * \return the time (refuses anything else)
     */
    Time ParseTime(const std::string& option,
                   const std::string& text,
                   const std::string& item = "") const
    {
        static const std::pair<const char*, double> units[] = {{"ns", 1e-9},
                                                               {"us", 1e-6},
                                                               {"ms", 1e-3},
                                                               {"s", 1.0}};
        for (const auto& [unit, scale] : units)
        {
            const std::string suffix(unit);
            if (text.size() > suffix.size() &&
                text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0)
            {
                const std::string number = text.substr(0, text.size() - suffix.size());
                if (number.back() == 'm' || number.back() == 'u' || number.back() == 'n')
                {
                    continue; // "ms" ends in "s" too
                }
                const double value = ParseTimeNumber(Name(option, text, item), number);
                return Seconds(value * scale);
            }
        }
        if (text == "0")
        {
            return Time(0);
        }
        Refuse(Name(option, text, item) +
               " is not a time (a number and a unit: s, ms, us or ns, as in 10ms)");
    }

  private:
    /**
     * \param option an option \param text a value \param item the option's whole value
     *        when text is one field of it, or ""
     * \return how a refusal names the value: --option=text, or --option=item: text
     */
    static std::string Name(const std::string& option,
                            const std::string& text,
                            const std::string& item)
    {
        return "--" + option + "=" + (item.empty() ? text : item + ": " + text);
    }

    /**
     * \param name the value as a refusal names it \param number its number part
     * \return the number (refuses a bad or negative one)
     */
    double ParseTimeNumber(const std::string& name, const std::string& number) const
    {
        std::size_t used = 0;
        double value = -1;
        try
        {
            value = std::stod(number, &used);
        }
        catch (const std::exception&)
        {
            used = 0;
        }
        if (number.empty() || used != number.size() || !std::isfinite(value) ||
            !(std::isdigit(static_cast<unsigned char>(number[0])) || number[0] == '.' ||
              number[0] == '-'))
        {
            Refuse(name + " is not a time (a number and a unit: s, ms, us or ns, as in 10ms)");
        }
        if (value < 0)
        {
            Refuse(name + " must not be negative");
        }
        return value;
    }

    std::string m_program; //!< the example's name
};

/// Fabric options of the examples; they start at the models' attribute defaults.
/// An option left at the model's built-in default is not applied, so a
/// --ns3::\<Type\>::\<Attribute\> default on the same command line takes effect.
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
        /// ScheduledLeafSwitch::CellPayload
        uint32_t cellPayload{Default<uint32_t>(ScheduledLeafSwitch::GetTypeId(), "CellPayload")};
        /// ScheduledLeafSwitch::CellHeader
        uint32_t cellHeader{Default<uint32_t>(ScheduledLeafSwitch::GetTypeId(), "CellHeader")};
        /// CreditScheduler::CreditSize
        uint32_t creditSize{Default<uint32_t>(CreditScheduler::GetTypeId(), "CreditSize")};
        /// CreditScheduler::OverGrant
        double overGrant{Default<double>(CreditScheduler::GetTypeId(), "OverGrant")};
        // Ethernet Clos
        std::string loadBalancing{"Ecmp"}; //!< EthernetSwitch::LoadBalancing
        /// SharedBufferMmu::BufferSize
        uint64_t bufferSize{Default<uint64_t>(SharedBufferMmu::GetTypeId(), "BufferSize")};
        bool pfc{true}; //!< SharedBufferMmu::PfcEnabled
        bool ecn{true}; //!< EthernetSwitch::EcnEnabled
    };

    std::string fabric{"scheduled"}; //!< scheduled or ethernet
    Tunables values;                 //!< bound to the command line
    const Tunables builtin;          //!< the models' defaults, before the command line
    // Traffic
    uint32_t udpDscp{26}; //!< DSCP of UDP sources: 26 is the RoCE data class, priority 3
    Time udpGapJitter{0}; //!< UdpLineRateSource::GapJitter (0: back to back)
    // Output
    std::string json;                //!< JSON results file (empty: none)
    std::string stats;               //!< CSV file of every fabric counter (empty: none)
    mutable int64_t m_nextStream{0}; //!< the next random stream after the fabric's (Install)

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
                     "ethernet: Ecmp, PacketSpray, Adaptive or CongestionAware",
                     values.loadBalancing);
        cmd.AddValue("bufferSize",
                     "ethernet: packet buffer of each switch, bytes",
                     values.bufferSize);
        cmd.AddValue("pfc", "ethernet: PFC on the lossless priority (3: DSCP 24-31)", values.pfc);
        cmd.AddValue("udpDscp",
                     "DSCP of the UDP sources (26: priority 3, lossless on the Ethernet Clos "
                     "as RDMA data is; 0: priority 0, lossy)",
                     udpDscp);
        cmd.AddValue("udpGapJitter",
                     "idle gap before each UDP packet, uniform in [0, this), so that identical "
                     "sources share a full tail-drop queue instead of one winning every slot "
                     "(a lossy UDP incast needs about 1ns; 0: back to back)",
                     udpGapJitter);
        cmd.AddValue("ecn", "ethernet: ECN marking", values.ecn);
        cmd.AddValue("json", "JSON results file", json);
        cmd.AddValue("stats", "CSV file of every fabric counter (none if not given)", stats);
    }

    /**
     * Resolve a --congestionControl value for this fabric: auto (None on the
     * scheduled fabric, Dcqcn on the Ethernet Clos), None, Dcqcn, or the TypeId name
     * of an RdmaCongestionControl subclass (RdmaHelper::LookupCongestionControl).
     * \param text the value (auto is replaced by what it means here)
     * \param tid set to the congestion control's TypeId
     * \return why the value is refused, or ""
     */
    std::string ResolveCongestionControl(std::string& text, TypeId* tid) const
    {
        if (text == "auto")
        {
            text = fabric == "ethernet" ? "Dcqcn" : "None";
        }
        if (!RdmaHelper::LookupCongestionControl(text, tid))
        {
            return "--congestionControl=" + text +
                   " is not a congestion control (None, Dcqcn, auto or an "
                   "RdmaCongestionControl TypeId)";
        }
        return "";
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
                    << " is not a load balancing (Ecmp, PacketSpray, Adaptive or CongestionAware)";
        }
        else if (udpGapJitter.IsStrictlyNegative())
        {
            problem << "--udpGapJitter=" << udpGapJitter.As(Time::NS) << " must be >= 0";
        }
        return problem.str();
    }

    /// \param source a UDP source of the example: its Dscp and GapJitter options
    ///        applied, its random stream the next after the fabric's (Build first)
    void Configure(Ptr<UdpLineRateSource> source)
    {
        source->AssignStreams(m_nextStream++);
        source->SetAttribute("Dscp", UintegerValue(udpDscp));
        if (udpGapJitter.IsStrictlyPositive())
        {
            source->SetAttribute("GapJitter", TimeValue(udpGapJitter));
        }
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
        m_nextStream = 1 + helper->AssignStreams(1);
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
        results["runRecord"] = RunRecord::Get();
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
