/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CHECKED_VALUE_H
#define AI_FABRIC_CHECKED_VALUE_H

#include "ns3/command-line.h"
#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <limits>
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
 * Read a whole number: digits only, optionally followed (allowSuffix) by a binary
 * unit K, M, G or T (powers of 1024, optionally followed by B).
 * \param text the value given
 * \param max the largest value accepted
 * \param allowSuffix whether K, M, G and T are accepted
 * \param value set to the number when it is accepted
 * \return why the text is refused ("is not a whole number ...", "is too large",
 *         "must be at most ..."), to follow "--option=text", or "" if accepted
 */
std::string FindWholeNumberProblem(const std::string& text,
                                   uint64_t max,
                                   bool allowSuffix,
                                   uint64_t* value);

/**
 * \ingroup ai-fabric
 * Read a signed whole number: an optional minus sign and digits.
 * \param text the value given
 * \param min the smallest value accepted
 * \param max the largest value accepted
 * \param value set to the number when it is accepted
 * \return why the text is refused, to follow "--option=text", or ""
 */
std::string FindIntegerProblem(const std::string& text, int64_t min, int64_t max, int64_t* value);

/**
 * \ingroup ai-fabric
 * Read a decimal number (digits with an optional sign, fraction and exponent).
 * \param text the value given
 * \param value set to the number when it is accepted
 * \return why the text is refused (also infinities and NaN), or ""
 */
std::string FindRealProblem(const std::string& text, double* value);

/**
 * \ingroup ai-fabric
 * Read a time that is not negative: a number and a unit, s, ms, us, ns, ps or fs
 * (10ms, 0.5s, 300us); 0 alone is accepted.
 * \param text the value given
 * \param value set to the time when it is accepted
 * \return why the text is refused ("is not a time ...", "must not be negative"),
 *         to follow "--option=text", or ""
 */
std::string FindTimeProblem(const std::string& text, Time* value);

/**
 * \ingroup ai-fabric
 * Read a data rate as ns-3 writes one: a number and a unit (bps, kbps, Mbps,
 * Gbps, Gb/s, GB/s, ...), as in 400Gbps. The unit is required: ns-3 reads a
 * bare 100 as 100 bit/s, which is never what a fabric's user meant.
 * \param text the value given
 * \param value set to the rate when it is accepted
 * \return why the text is refused, to follow "--option=text", or ""
 */
std::string FindDataRateProblem(const std::string& text, DataRate* value);

/**
 * \ingroup ai-fabric
 * Read an IPv4 address in dotted-quad form (10.0.0.0): four numbers of 0..255.
 * \param text the value given
 * \param value set to the address when it is accepted
 * \return why the text is refused, to follow "--option=text", or ""
 */
std::string FindIpv4AddressProblem(const std::string& text, Ipv4Address* value);

/**
 * \ingroup ai-fabric
 * \param rate a data rate
 * \return the rate in the largest of bps, kbps, Mbps, Gbps and Tbps that shows it
 *         exactly (400Gbps)
 */
std::string ShowDataRate(DataRate rate);

/**
 * \ingroup ai-fabric
 * Check, without creating anything, that a file can be written at path, or files
 * named path + suffix when path is a prefix: its directory (the working directory
 * when it names none) exists and is writable, and a file already at path is not
 * a directory and is writable.
 * \param path the file or file prefix given
 * \return why it cannot be written, to follow "--option=path", or ""
 */
std::string FindOutputPathProblem(const std::string& path);

/**
 * \ingroup ai-fabric
 * \param time a time
 * \return the time in the largest unit (s, ms, us, ns, ps, fs) that shows it
 *         exactly, as FindTimeProblem reads it back (200us; 0 for zero)
 */
std::string ShowTime(Time time);

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

} // namespace ns3

#endif /* AI_FABRIC_CHECKED_VALUE_H */
