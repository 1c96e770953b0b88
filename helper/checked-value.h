/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CHECKED_VALUE_H
#define AI_FABRIC_CHECKED_VALUE_H

#include "ns3/cluster-description.h"
#include "ns3/command-line.h"
#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/value-text.h"

#include <cstdint>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>

/**
 * \file
 * \ingroup ai-fabric
 * Command-line options that refuse a value their field cannot hold.
 *
 * ns-3's CommandLine reads a number with an istream: "-1" given to an unsigned
 * field wraps to its largest value, "4x" is read as 4, and a time that does not
 * parse stops the program with an abort. AddCheckedValue binds the same fields
 * through a parser that reads the whole text or refuses it: one line on standard
 * error naming the program, the option, its value and what is allowed, and exit
 * status 1, before anything is built.
 */

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Print "program: reason" on standard error and leave with exit status 1.
 * \param program the program's name
 * \param reason what is wrong, naming the option and its value
 */
[[noreturn]] void RefuseOption(const std::string& program, const std::string& reason);

/**
 * \ingroup ai-fabric
 * Add --name to a command line as CommandLine::AddValue does, with the field's
 * value at this call shown as its default in --help; whole numbers, decimal
 * numbers, times, data rates and IPv4 addresses are read by the parsers above, and a value that
 * does not parse or does not fit the field is refused (RefuseOption, naming the
 * option and the allowed range). Other field types (bool, strings) are
 * read by ns-3, which refuses what it cannot parse with exit status 1 too.
 *
 * \tparam T the field's type
 * \param cmd the command line
 * \param name the option, without the leading --
 * \param help its help text
 * \param value the field, which must outlive cmd.Parse
 */
template <typename T>
void
AddCheckedValue(CommandLine& cmd, const std::string& name, const std::string& help, T& value)
{
    constexpr bool isNumber = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;
    if constexpr (!isNumber && !std::is_same_v<T, Time> && !std::is_same_v<T, DataRate> &&
                  !std::is_same_v<T, Ipv4Address>)
    {
        cmd.AddValue(name, help, value);
    }
    else
    {
        std::string shown;
        if constexpr (std::is_same_v<T, Time>)
        {
            shown = ShowTime(value);
        }
        else if constexpr (std::is_same_v<T, DataRate>)
        {
            shown = ShowDataRate(value);
        }
        else if constexpr (std::is_same_v<T, Ipv4Address>)
        {
            std::ostringstream address;
            value.Print(address);
            shown = address.str();
        }
        else if constexpr (std::is_floating_point_v<T>)
        {
            shown = std::to_string(value);
            shown.erase(shown.find_last_not_of('0') + 1);
            shown.erase(shown.find_last_not_of('.') + 1);
        }
        else
        {
            shown = std::to_string(value);
        }
        T* field = &value;
        const std::string program = cmd.GetName();
        cmd.AddValue(
            name,
            help,
            [field, name, program](const std::string& text) {
                std::string problem;
                if constexpr (std::is_same_v<T, Time>)
                {
                    problem = FindTimeProblem(text, field);
                }
                else if constexpr (std::is_same_v<T, DataRate>)
                {
                    problem = FindDataRateProblem(text, field);
                }
                else if constexpr (std::is_same_v<T, Ipv4Address>)
                {
                    problem = FindIpv4AddressProblem(text, field);
                }
                else if constexpr (std::is_floating_point_v<T>)
                {
                    double number = 0;
                    problem = FindRealProblem(text, &number);
                    *field = static_cast<T>(number);
                }
                else if constexpr (std::is_unsigned_v<T>)
                {
                    uint64_t number = 0;
                    problem =
                        FindWholeNumberProblem(text, std::numeric_limits<T>::max(), false, &number);
                    *field = static_cast<T>(number);
                }
                else
                {
                    int64_t number = 0;
                    problem = FindIntegerProblem(text,
                                                 std::numeric_limits<T>::min(),
                                                 std::numeric_limits<T>::max(),
                                                 &number);
                    *field = static_cast<T>(number);
                }
                if (!problem.empty())
                {
                    RefuseOption(program, "--" + name + "=" + text + problem);
                }
                return true;
            },
            shown);
    }
}

/**
 * \ingroup ai-fabric
 * Add --name, a size in bytes, to a command line: a whole number with an optional
 * binary unit K, M, G or T (powers of 1024, optionally followed by B), read by
 * FindWholeNumberProblem as the examples' other size options are (64K, 1M). A
 * value that does not parse or does not fit is refused (RefuseOption, naming the
 * option).
 *
 * \param cmd the command line
 * \param name the option, without the leading --
 * \param help its help text
 * \param value the field, which must outlive cmd.Parse; its value at this call is
 *        shown as the default
 */
void AddCheckedBytes(CommandLine& cmd,
                     const std::string& name,
                     const std::string& help,
                     uint64_t& value);

/**
 * \ingroup ai-fabric
 * Add every field of a cluster to a command line as --\<prefix\>\<name\>
 * (AddCheckedValue), so an example exposes the whole cluster with one call.
 * \param cmd the command line
 * \param cluster the cluster, which must outlive cmd.Parse; its fields' values at
 *        this call are shown as the defaults
 * \param prefix prepended to each option name
 * \param help help texts, by field name, that replace the cluster's own (for a
 *        program that gives a field a meaning of its own, as 0 leaves for "as many
 *        as the traffic needs"); a field given an empty text is left off the
 *        command line (for a program that does not use it, as one without GPU
 *        servers has no use for gpusPerServer)
 */
void AddClusterToCommandLine(CommandLine& cmd,
                             ClusterDescription& cluster,
                             const std::string& prefix = "",
                             const std::map<std::string, std::string>& help = {});

} // namespace ns3

#endif /* AI_FABRIC_CHECKED_VALUE_H */
