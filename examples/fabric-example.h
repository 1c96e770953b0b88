/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_FABRIC_EXAMPLE_H
#define AI_FABRIC_FABRIC_EXAMPLE_H

// What the fabric examples share: the choice of fabric (scheduled or Ethernet Clos)
// and its options on their command line, and the fabric-wide results they print
// and write (JSON and CSV).

#include "abort-line-filter.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * Reads an example's options given as text and refuses bad ones: the message names
 * the example, the option and its value, goes to standard error, and the example
 * leaves with exit status 1 before it has built or run anything.
 *
 * A value only a model can judge (a buffer too small for its ports' PFC headroom,
 * a --ns3::Class::Attribute default out of range) stops the model with NS_ABORT
 * while the example builds the simulation. Until the first event runs, such a stop
 * is a refusal too: the model's message is followed by one line naming the example
 * and the exit status is 1, not an abort signal. From the first event on, and for
 * an uncaught exception, ns-3's abort is left as it is (that is a fault, not bad
 * input).
 */
class ExampleInput
{
  public:
    /// \param program the example's name, which starts every refusal
    explicit ExampleInput(std::string program)
        : m_program(std::move(program))
    {
        SetupProgram() = m_program;
        static const std::terminate_handler previous = std::set_terminate(&OnSetupStop);
        PreviousHandler() = previous;
        // Never deleted: standard error may be written to until the program ends.
        static AbortLineFilter* const filter = new AbortLineFilter(std::cerr.rdbuf());
        std::cerr.rdbuf(filter);
        std::clog.rdbuf(filter); // an abort's time prefix goes to std::clog
        Filter() = filter;
    }

    /**
     * Name, in a refusal by a model while the simulation is built, the example's
     * options that set the model's attributes (FabricExampleOptions::Install).
     * \param options the options given, as on the command line ("" for none)
     */
    static void NoteModelOptions(const std::string& options)
    {
        ModelOptions() = options;
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
        RefuseOption(m_program, reason);
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
        uint64_t value = 0;
        Check(option,
              text,
              item,
              FindWholeNumberProblem(text,
                                     std::numeric_limits<uint64_t>::max(),
                                     allowSuffix,
                                     &value));
        return value;
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
        double value = 0;
        Check(option, text, item, FindRealProblem(text, &value));
        return value;
    }

    /**
     * Read a time that is not negative: a number and a unit, s, ms, us, ns, ps or
     * fs (10ms, 0.5s, 300us); 0 alone is accepted.
     * \param option the option's name, for the message \param text what was given
     * \param item the whole option value when text is one field of it (for the message)
     * \return the time (refuses anything else)
     */
    Time ParseTime(const std::string& option,
                   const std::string& text,
                   const std::string& item = "") const
    {
        Time value;
        Check(option, text, item, FindTimeProblem(text, &value));
        return value;
    }

  private:
    /// \return the name of the example whose set-up is watched
    static std::string& SetupProgram()
    {
        static std::string program;
        return program;
    }

    /// \return the terminate handler in place before ExampleInput's
    static std::terminate_handler& PreviousHandler()
    {
        static std::terminate_handler previous = nullptr;
        return previous;
    }

    /// \return the filter of standard error (null before the first ExampleInput)
    static AbortLineFilter*& Filter()
    {
        static AbortLineFilter* filter = nullptr;
        return filter;
    }

    /// \return the options that set model attributes (NoteModelOptions)
    static std::string& ModelOptions()
    {
        static std::string options;
        return options;
    }

    /// std::terminate handler: a model's NS_ABORT before the first event is a refusal,
    /// one line naming the example, the options that set the model and its message.
    [[noreturn]] static void OnSetupStop()
    {
        AbortLineFilter* filter = Filter();
        if (!std::current_exception() && Simulator::GetEventCount() == 0)
        {
            const std::string message = filter ? filter->GetHeldMessage() : "";
            if (filter)
            {
                filter->DiscardHeld();
            }
            std::cerr << SetupProgram() << ": the model refused the configuration"
                      << (ModelOptions().empty() ? "" : " (" + ModelOptions() + ")")
                      << (message.empty() ? " (message above)" : ": " + message) << "; nothing ran"
                      << std::endl;
            std::_Exit(1);
        }
        if (filter)
        {
            filter->ReleaseHeld();
        }
        if (PreviousHandler())
        {
            PreviousHandler()();
        }
        std::abort();
    }

    /**
     * Refuse a value a parser found a problem with.
     * \param option an option \param text a value \param item the option's whole
     *        value when text is one field of it, or ""
     * \param problem what the parser said ("" if the value is accepted)
     */
    void Check(const std::string& option,
               const std::string& text,
               const std::string& item,
               const std::string& problem) const
    {
        if (!problem.empty())
        {
            Refuse("--" + option + "=" + (item.empty() ? text : item + ": " + text) + problem);
        }
    }

    std::string m_program; //!< the example's name
};

/**
 * What is wrong with the host link rate for the RDMA transport: a rate at which
 * every packet would time out (RdmaTransport::FindLinkRateProblem).
 * \param cluster the cluster, already checked (a zero rate is its problem)
 * \return a message naming --hostLinkRate and its value, or "" if the rate works
 */
inline std::string
FindRdmaLinkProblem(const ClusterDescription& cluster)
{
    const std::string problem = RdmaTransport::FindLinkRateProblem(cluster.hostLinkRate);
    if (problem.empty())
    {
        return "";
    }
    std::ostringstream message;
    message << "--hostLinkRate=" << ShowDataRate(cluster.hostLinkRate) << ": " << problem;
    return message.str();
}

/**
 * Add the RDMA transports' totals to an example's JSON results, as "rdma": the
 * messages posted, completed at their senders and receivers and given up (their
 * queue pair failed), the bytes given up, queue-pair failures, timeouts and
 * retransmissions.
 * \param totals the transports' counters summed (RdmaHelper::GetTotals)
 * \param results the results to add them to
 */
inline void
AddRdmaTotals(const RdmaTransport::Stats& totals, nlohmann::json& results)
{
    results["rdma"] = {{"messagesPosted", totals.messagesPosted},
                       {"messagesSent", totals.messagesSent},
                       {"messagesReceived", totals.messagesReceived},
                       {"messagesFailed", totals.messagesFailed},
                       {"bytesFailed", totals.bytesFailed},
                       {"qpFailures", totals.qpFailures},
                       {"timeouts", totals.timeouts},
                       {"retransmittedPackets", totals.retransmittedPackets}};
}

/// Packets lost in one place for one reason.
struct DropPlace
{
    const char* key;    //!< its name in the JSON results
    const char* place;  //!< where, in words
    const char* reason; //!< why, in words
    uint64_t packets;   //!< how many
};

/// \param t the scheduled fabric's totals \return every place it loses packets
inline std::vector<DropPlace>
GetDropsByPlace(const ScheduledFabricHelper::Totals& t)
{
    return {
        {"voqFull", "leaf VOQ", "buffer full", t.voqDropPackets},
        {"egressPort", "leaf host port", "refused, queue full", t.egressDropPackets},
        {"unroutable", "ingress leaf", "no route", t.unroutablePackets},
        {"reassemblyTimeout", "egress leaf", "reassembly timed out", t.reassemblyTimeouts},
        {"leafPortErrorModel", "leaf host port", "receive error model", t.leafPortErrorDropPackets},
        {"hostNicErrorModel", "host NIC", "receive error model", t.hostNicErrorDropPackets}};
}

/// \param t the Ethernet Clos's totals \return every place it loses packets
inline std::vector<DropPlace>
GetDropsByPlace(const EthernetClosHelper::Totals& t)
{
    return {
        {"switchBuffer", "switch", "buffer full", t.bufferDrops - t.headroomDrops},
        {"pfcHeadroom", "switch", "beyond PFC headroom", t.headroomDrops},
        {"noRoute", "switch", "no route", t.noRouteDrops},
        {"linkDown", "switch", "egress link down", t.linkDownDrops},
        {"failedLink", "leaf-spine link", "sent while it was down", t.linkLostPackets},
        {"leafPortErrorModel", "leaf host port", "receive error model", t.leafPortErrorDropPackets},
        {"fabricPortErrorModel",
         "leaf-spine port",
         "receive error model",
         t.fabricPortErrorDropPackets},
        {"hostNicErrorModel", "host NIC", "receive error model", t.hostNicErrorDropPackets}};
}

/**
 * Print the places that lost packets (one line, none if nothing was lost) and put
 * every place in the JSON results as dropsByPlace.
 * \param drops the places \param results the results
 */
inline void
ReportDropsByPlace(const std::vector<DropPlace>& drops, nlohmann::json& results)
{
    nlohmann::json byPlace = nlohmann::json::object();
    std::ostringstream line;
    for (const DropPlace& d : drops)
    {
        byPlace[d.key] = {{"place", d.place}, {"reason", d.reason}, {"packets", d.packets}};
        if (d.packets > 0)
        {
            line << (line.tellp() > 0 ? ", " : "") << d.place << " (" << d.reason << ") "
                 << d.packets;
        }
    }
    results["dropsByPlace"] = byPlace;
    if (line.tellp() > 0)
    {
        std::cout << "  dropped by place: " << line.str() << std::endl;
    }
}

/// Fabric options of the examples; they start at the models' attribute defaults.
/// An option left at the model's built-in default is not applied, so a
/// --ns3::\<Type\>::\<Attribute\> default on the same command line takes effect.
struct FabricExampleOptions
{
    /**
     * A load-balancing policy by its short name: ns3::NameLoadBalancing (Ecmp,
     * PacketSpray, Adaptive, CongestionAware, or any policy added the same way).
     * \param name the short name \param tid set to the policy's TypeId
     * \return whether it names a LoadBalancingPolicy
     */
    static bool LookupLoadBalancing(const std::string& name, TypeId* tid)
    {
        return TypeId::LookupByNameFailSafe("ns3::" + name + "LoadBalancing", tid) &&
               tid->IsChildOf(LoadBalancingPolicy::GetTypeId()) && tid->HasConstructor();
    }

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
        /// EthernetSwitch::LoadBalancingPolicy, without ns3:: and LoadBalancing
        std::string loadBalancing{"Ecmp"};
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
    bool m_udpSources{false};        //!< whether the UDP options are offered

    /**
     * \param cmd the command line to add the options to
     * \param udpSources whether the example has UDP sources (Configure): only then
     *        are --udpDscp and --udpGapJitter offered
     */
    void AddToCommandLine(CommandLine& cmd, bool udpSources = false)
    {
        m_udpSources = udpSources;
        AddCheckedValue(cmd,
                        "fabric",
                        "scheduled (VOQs, credits, cells) or ethernet (Clos)",
                        fabric);
        AddCheckedValue(cmd,
                        "sprayPolicy",
                        "scheduled: RoundRobin, Random or LeastLoaded (ns3::<name>Spray)",
                        values.sprayPolicy);
        AddCheckedValue(cmd,
                        "cellPayload",
                        "scheduled: packet bytes per cell (at least 1)",
                        values.cellPayload);
        AddCheckedValue(cmd,
                        "cellHeader",
                        "scheduled: header bytes per cell (below cellPayload)",
                        values.cellHeader);
        AddCheckedValue(cmd,
                        "creditSize",
                        "scheduled: credit grant bytes (at least cellPayload)",
                        values.creditSize);
        AddCheckedValue(cmd,
                        "overGrant",
                        "scheduled: credit rate / port rate (at least 1)",
                        values.overGrant);
        AddCheckedValue(cmd,
                        "loadBalancing",
                        "ethernet: Ecmp, PacketSpray, Adaptive or CongestionAware",
                        values.loadBalancing);
        AddCheckedValue(cmd,
                        "bufferSize",
                        "ethernet: packet buffer of each switch, bytes",
                        values.bufferSize);
        AddCheckedValue(cmd,
                        "pfc",
                        "ethernet: PFC on the lossless priority (3: DSCP 24-31)",
                        values.pfc);
        if (udpSources)
        {
            AddCheckedValue(cmd,
                            "udpDscp",
                            "DSCP of the UDP sources, 0..63 (26: priority 3, lossless on the "
                            "Ethernet Clos as RDMA data is; 0: priority 0, lossy)",
                            udpDscp);
            AddCheckedValue(cmd,
                            "udpGapJitter",
                            "idle gap before each UDP packet, uniform in [0, this), so that "
                            "identical sources share a full tail-drop queue instead of one "
                            "winning every slot (a lossy UDP incast needs about 1ns; 0: back to "
                            "back)",
                            udpGapJitter);
        }
        AddCheckedValue(cmd, "ecn", "ethernet: ECN marking", values.ecn);
        AddCheckedValue(cmd, "json", "JSON results file", json);
        AddCheckedValue(cmd,
                        "stats",
                        "CSV file of every fabric counter (none if not given)",
                        stats);
    }

    /**
     * Resolve a --congestionControl value for this fabric: auto (the default of
     * ns3::RdmaTransport::CongestionControl if the command line set it, else None on
     * the scheduled fabric and Dcqcn on the Ethernet Clos), None, Dcqcn, or the
     * TypeId name of an RdmaCongestionControl subclass
     * (RdmaHelper::LookupCongestionControl).
     * \param text the value (auto is replaced by what it means here)
     * \param tid set to the congestion control's TypeId
     * \return why the value is refused, or ""
     */
    std::string ResolveCongestionControl(std::string& text, TypeId* tid) const
    {
        if (text == "auto")
        {
            // The example sets the attribute on its helper, which would override a
            // default given as --ns3::RdmaTransport::CongestionControl: keep that one.
            TypeId::AttributeInformation info;
            RdmaTransport::GetTypeId().LookupAttributeByName("CongestionControl", &info);
            const std::string given = info.initialValue->SerializeToString(info.checker);
            text = given != info.originalInitialValue->SerializeToString(info.checker) ? given
                   : fabric == "ethernet"                                              ? "Dcqcn"
                                                                                       : "None";
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
     * --loadBalancing, a tunable out of its model's range, a tunable of the other
     * fabric, or an output file that cannot be written.
     * \return a message naming the option and its value, or "" if they are usable
     */
    std::string FindProblem() const
    {
        std::ostringstream problem;
        TypeId policy;
        // Options of one fabric that another leaves unused: refused, not ignored.
        const std::vector<std::pair<const char*, bool>> scheduledOnly{
            {"sprayPolicy", values.sprayPolicy != builtin.sprayPolicy},
            {"cellPayload", values.cellPayload != builtin.cellPayload},
            {"cellHeader", values.cellHeader != builtin.cellHeader},
            {"creditSize", values.creditSize != builtin.creditSize},
            {"overGrant", values.overGrant != builtin.overGrant}};
        const std::vector<std::pair<const char*, bool>> ethernetOnly{
            {"loadBalancing", values.loadBalancing != builtin.loadBalancing},
            {"bufferSize", values.bufferSize != builtin.bufferSize},
            {"pfc", values.pfc != builtin.pfc},
            {"ecn", values.ecn != builtin.ecn}};
        std::string unused;
        for (const auto& [option, given] : fabric == "ethernet" ? scheduledOnly : ethernetOnly)
        {
            if (given && unused.empty())
            {
                unused = option;
            }
        }
        if (fabric != "scheduled" && fabric != "ethernet")
        {
            problem << "--fabric must be scheduled or ethernet, got " << fabric;
        }
        else if (!unused.empty())
        {
            problem << "--" << unused
                    << " applies to --fabric=" << (fabric == "ethernet" ? "scheduled" : "ethernet")
                    << " only (this run uses "
                    << "--fabric=" << fabric << ")";
        }
        else if (values.sprayPolicy != builtin.sprayPolicy &&
                 !TypeId::LookupByNameFailSafe("ns3::" + values.sprayPolicy + "Spray", &policy))
        {
            problem << "--sprayPolicy=" << values.sprayPolicy
                    << " is not a spray policy (RoundRobin, Random or LeastLoaded)";
        }
        else if (!LookupLoadBalancing(values.loadBalancing, &policy))
        {
            problem << "--loadBalancing=" << values.loadBalancing
                    << " is not a load balancing (Ecmp, PacketSpray, Adaptive or CongestionAware)";
        }
        else if (values.cellPayload < 1)
        {
            problem << "--cellPayload=0 must be at least 1";
        }
        else if (values.cellHeader >= values.cellPayload)
        {
            problem << "--cellHeader=" << values.cellHeader
                    << " must be below --cellPayload=" << values.cellPayload
                    << " (a cell must carry more payload than header)";
        }
        else if (values.creditSize < values.cellPayload)
        {
            problem << "--creditSize=" << values.creditSize
                    << " must be at least one cell's payload (--cellPayload=" << values.cellPayload
                    << ")";
        }
        else if (values.creditSize >
                 Default<uint32_t>(CreditScheduler::GetTypeId(), "SourceQuantum"))
        {
            problem << "--creditSize=" << values.creditSize
                    << " must be at most the credit scheduler's SourceQuantum ("
                    << Default<uint32_t>(CreditScheduler::GetTypeId(), "SourceQuantum") << ")";
        }
        else if (!(values.overGrant >= 1))
        {
            problem << "--overGrant=" << values.overGrant << " must be at least 1";
        }
        else if (const std::string range = FindTunableRangeProblem(); !range.empty())
        {
            problem << range;
        }
        else if (m_udpSources && udpDscp > 63)
        {
            problem << "--udpDscp=" << udpDscp << " must be in 0..63";
        }
        else if (!json.empty() && !FindOutputPathProblem(json).empty())
        {
            problem << "--json=" << json << FindOutputPathProblem(json);
        }
        else if (!stats.empty() && !FindOutputPathProblem(stats).empty())
        {
            problem << "--stats=" << stats << FindOutputPathProblem(stats);
        }
        return problem.str();
    }

    /**
     * What the models' attribute checkers refuse of the tunables given, named by
     * option, so that a value out of an attribute's range is refused before anything
     * is built and not by the attribute's name while the fabric is.
     * \return "--option=value must be in min..max (Type::Attribute)", or ""
     */
    std::string FindTunableRangeProblem() const
    {
        struct Tunable
        {
            const char* option;        //!< the option
            TypeId tid;                //!< the model
            const char* attribute;     //!< its attribute
            std::string text;          //!< the value given, as text
            bool given;                //!< whether it differs from the model's default
            Ptr<AttributeValue> value; //!< the value given
        };

        const Tunable tunables[] = {
            {"cellPayload",
             ScheduledLeafSwitch::GetTypeId(),
             "CellPayload",
             std::to_string(values.cellPayload),
             values.cellPayload != builtin.cellPayload,
             Create<UintegerValue>(values.cellPayload)},
            {"cellHeader",
             ScheduledLeafSwitch::GetTypeId(),
             "CellHeader",
             std::to_string(values.cellHeader),
             values.cellHeader != builtin.cellHeader,
             Create<UintegerValue>(values.cellHeader)},
            {"creditSize",
             CreditScheduler::GetTypeId(),
             "CreditSize",
             std::to_string(values.creditSize),
             values.creditSize != builtin.creditSize,
             Create<UintegerValue>(values.creditSize)},
            {"bufferSize",
             SharedBufferMmu::GetTypeId(),
             "BufferSize",
             std::to_string(values.bufferSize),
             values.bufferSize != builtin.bufferSize,
             Create<UintegerValue>(values.bufferSize)},
        };
        for (const Tunable& t : tunables)
        {
            TypeId::AttributeInformation info;
            if (!t.given || !t.tid.LookupAttributeByName(t.attribute, &info) ||
                info.checker->Check(*t.value))
            {
                continue;
            }
            // The checker says "uint64_t 1:18446744073709551615": shown as 1..max.
            std::string range = info.checker->GetUnderlyingTypeInformation();
            const std::size_t space = range.find(' ');
            const std::size_t colon = range.rfind(':');
            if (space != std::string::npos && colon != std::string::npos && colon > space)
            {
                range = range.substr(space + 1, colon - space - 1) + ".." + range.substr(colon + 1);
            }
            std::string name = t.tid.GetName();
            name = name.rfind("ns3::", 0) == 0 ? name.substr(5) : name;
            return "--" + std::string(t.option) + "=" + t.text + " must be in " + range + " (" +
                   name + "::" + t.attribute + ")";
        }
        return "";
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
                TypeId policy;
                NS_ABORT_MSG_UNLESS(LookupLoadBalancing(values.loadBalancing, &policy),
                                    "--loadBalancing=" << values.loadBalancing
                                                       << " is not a load balancing (Ecmp, "
                                                          "PacketSpray, Adaptive or "
                                                          "CongestionAware)");
                clos->SetSwitchAttribute("LoadBalancingPolicy", TypeIdValue(policy));
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
        ExampleInput::NoteModelOptions(DescribeTunablesGiven());
        if (mtu != 0)
        {
            helper->SetDeviceAttribute("Mtu", UintegerValue(mtu));
        }
        helper->Install(cluster);
        m_nextStream = 1 + helper->AssignStreams(1);
        return helper;
    }

    /// \return the tunables given that set model attributes, as on the command line
    ///         ("--bufferSize=1000 --pfc=false"; "" if none)
    std::string DescribeTunablesGiven() const
    {
        std::ostringstream given;
        const auto add = [&given](bool changed, const char* option, const auto& value) {
            if (changed)
            {
                given << (given.tellp() > 0 ? " " : "") << "--" << option << "=" << value;
            }
        };
        add(values.sprayPolicy != builtin.sprayPolicy, "sprayPolicy", values.sprayPolicy);
        add(values.cellPayload != builtin.cellPayload, "cellPayload", values.cellPayload);
        add(values.cellHeader != builtin.cellHeader, "cellHeader", values.cellHeader);
        add(values.creditSize != builtin.creditSize, "creditSize", values.creditSize);
        add(values.overGrant != builtin.overGrant, "overGrant", values.overGrant);
        add(values.loadBalancing != builtin.loadBalancing, "loadBalancing", values.loadBalancing);
        add(values.bufferSize != builtin.bufferSize, "bufferSize", values.bufferSize);
        add(values.pfc != builtin.pfc, "pfc", values.pfc ? "true" : "false");
        add(values.ecn != builtin.ecn, "ecn", values.ecn ? "true" : "false");
        return given.str();
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
            ReportDropsByPlace(GetDropsByPlace(totals), results);
            nlohmann::json all;
            totals.ForEach([&all](const char* name, int64_t value) { all[name] = value; });
            results["totals"] = all;
            results["spineQueueHighWaterBytes"] = totals.spineQueueHighWater;
            results["offeredPackets"] = totals.offeredPackets;
            results["deliveredPackets"] = totals.deliveredPackets;
            results["droppedPackets"] = totals.GetDroppedPackets();
            results["unaccountedPackets"] = totals.GetUnaccountedPackets();
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
                      << ", dropped " << totals.GetDroppedPackets() << " (beyond PFC headroom "
                      << totals.headroomDrops << "), still queued " << totals.queuedPackets
                      << ", in transit " << totals.inTransitPackets << "; ECN marks "
                      << totals.ecnMarked << ", PFC pauses " << totals.pfcPauses << ", resumes "
                      << totals.pfcResumes << std::endl
                      << "  " << events << " events for " << totals.offeredPackets
                      << " packets offered (" << eventsPerPacket
                      << " per packet); conservation: " << totals.GetUnaccountedPackets()
                      << " packets unaccounted" << std::endl;
            ReportDropsByPlace(GetDropsByPlace(totals), results);
            results["bufferHighWaterBytes"] = totals.bufferHighWater;
            results["offeredPackets"] = totals.offeredPackets;
            results["deliveredPackets"] = totals.deliveredPackets;
            results["droppedPackets"] = totals.GetDroppedPackets();
            results["unaccountedPackets"] = totals.GetUnaccountedPackets();
            results["linkLostFrames"] = totals.linkLostFrames;
            results["headroomDrops"] = totals.headroomDrops;
            results["queuedPackets"] = totals.queuedPackets;
            results["inTransitPackets"] = totals.inTransitPackets;
            results["ecnMarked"] = totals.ecnMarked;
            results["pfcPauses"] = totals.pfcPauses;
            results["pfcResumes"] = totals.pfcResumes;
            results["eventsPerOfferedPacket"] = eventsPerPacket;
        }
        results["runRecord"] = RunRecord::Get();
        if (!json.empty())
        {
            std::ofstream out(json);
            out << results.dump(2) << std::endl;
            NS_ABORT_MSG_UNLESS(out, "could not write --json=" << json);
            std::cout << "  results in " << json << std::endl;
        }
        if (!stats.empty())
        {
            std::ofstream out(stats);
            helper.WriteStats(out);
            NS_ABORT_MSG_UNLESS(out, "could not write --stats=" << stats);
            std::cout << "  counters in " << stats << std::endl;
        }
    }
};

/**
 * The traffic options of the examples that send either line-rate UDP or RDMA
 * messages (fabric-incast, fabric-permutation), and the refusal of an option that
 * belongs to the other transport.
 */
struct FabricTransportOptions
{
  private:
    // First: the public fields' initialisers read them.
    /// UdpLineRateSource::PacketSize's default
    const uint32_t m_defaultPacketSize{
        FabricExampleOptions::Default<uint32_t>(UdpLineRateSource::GetTypeId(), "PacketSize")};
    const uint64_t m_defaultMessageSize; //!< the example's --messageSize default

  public:
    /// \param defaultMessageSize the example's --messageSize default
    explicit FabricTransportOptions(uint64_t defaultMessageSize)
        : m_defaultMessageSize(defaultMessageSize),
          messageSize(defaultMessageSize)
    {
    }

    std::string transport{"udp"}; //!< udp or rdma
    /// udp: IPv4 packet bytes (UdpLineRateSource::PacketSize)
    uint32_t packetSize{m_defaultPacketSize};
    uint64_t messageSize;                  //!< rdma: bytes each sender posts
    std::string congestionControl{"auto"}; //!< rdma: FabricExampleOptions::ResolveCongestionControl

    /**
     * \param cmd the command line to add the options to
     * \param messageHelp the help text of --messageSize
     */
    void AddToCommandLine(CommandLine& cmd, const std::string& messageHelp)
    {
        AddCheckedValue(cmd,
                        "transport",
                        "udp (line-rate UDP sources) or rdma (RDMA messages)",
                        transport);
        AddCheckedValue(cmd,
                        "packetSize",
                        "udp: IPv4 packet size in bytes, 28..9000 (above 4200, jumbo frames)",
                        packetSize);
        AddCheckedBytes(cmd, "messageSize", messageHelp, messageSize);
        AddCheckedValue(cmd,
                        "congestionControl",
                        "RDMA congestion control: None, Dcqcn, or auto (None on the scheduled "
                        "fabric, Dcqcn on the Ethernet Clos)",
                        congestionControl);
    }

    /// \return whether the example posts RDMA messages (else UDP)
    bool IsRdma() const
    {
        return transport == "rdma";
    }

    /**
     * What is wrong with the traffic options: an unknown --transport, an option of
     * the other transport, a UDP packet size outside UdpLineRateSource's 28..9000,
     * a zero message size, an unknown congestion control (resolved here for the
     * fabric, auto included).
     * \param fabric the fabric options \param congestionControlType set to the
     *        RDMA congestion control's TypeId (rdma only)
     * \return a message naming the option and its value, or "" if they are usable
     */
    std::string FindProblem(const FabricExampleOptions& fabric, TypeId* congestionControlType)
    {
        if (transport != "udp" && transport != "rdma")
        {
            return "--transport=" + transport + " is not a transport (udp or rdma)";
        }
        if (!IsRdma() && messageSize != m_defaultMessageSize)
        {
            return "--messageSize applies to --transport=rdma only";
        }
        if (!IsRdma() && congestionControl != "auto")
        {
            return "--congestionControl applies to --transport=rdma only";
        }
        if (IsRdma() && packetSize != m_defaultPacketSize)
        {
            return "--packetSize applies to --transport=udp only (RDMA packets carry 4096 B)";
        }
        if (packetSize < 28 || packetSize > 9000)
        {
            return "--packetSize=" + std::to_string(packetSize) +
                   " must be in 28..9000 (IPv4 and UDP headers included)";
        }
        if (messageSize < 1)
        {
            return "--messageSize=0 must be at least 1";
        }
        return IsRdma() ? fabric.ResolveCongestionControl(congestionControl, congestionControlType)
                        : "";
    }
};

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_EXAMPLE_H */
