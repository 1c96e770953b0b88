/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_VALUE_TEXT_H
#define AI_FABRIC_VALUE_TEXT_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>

/**
 * \file
 * \ingroup ai-fabric
 * Values read from text and written as text: whole, signed and decimal numbers,
 * times, data rates, IPv4 addresses and output paths.
 *
 * Each reader takes the whole text or refuses it with a reason that follows
 * "--option=text"; none of them stops the program (the command-line options that
 * do, AddCheckedValue and RefuseOption, are in helper/checked-value.h).
 */

namespace ns3
{

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

} // namespace ns3

#endif /* AI_FABRIC_VALUE_TEXT_H */
