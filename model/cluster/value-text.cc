/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "value-text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <unistd.h>

namespace ns3
{

namespace
{

/// The time units FindTimeProblem reads, largest first, and their ns-3 units.
const std::pair<const char*, Time::Unit> g_timeUnits[] = {{"s", Time::S},
                                                          {"ms", Time::MS},
                                                          {"us", Time::US},
                                                          {"ns", Time::NS},
                                                          {"ps", Time::PS},
                                                          {"fs", Time::FS}};

/**
 * \param text a value \return whether it starts as a decimal number does (a digit,
 *        a point or a minus sign), so std::stod's inf, nan, hexadecimal and leading
 *        blanks are not taken for one
 */
bool
StartsAsNumber(const std::string& text)
{
    return !text.empty() &&
           (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.' || text[0] == '-');
}

} // namespace

std::string
FindWholeNumberProblem(const std::string& text, uint64_t max, bool allowSuffix, uint64_t* value)
{
    std::size_t digits = 0;
    uint64_t number = 0;
    bool overflow = false;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
    {
        const uint64_t digit = text[digits] - '0';
        overflow |= number > (std::numeric_limits<uint64_t>::max() - digit) / 10;
        number = number * 10 + digit;
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
        return allowSuffix ? " is not a whole number of bytes (digits, optionally with K, M, G "
                             "or T: 8, 64K, 1M, 1G)"
                           : " is not a whole number (digits only, 0.." + std::to_string(max) + ")";
    }
    if (overflow || number > std::numeric_limits<uint64_t>::max() / scale)
    {
        return " is too large";
    }
    if (number * scale > max)
    {
        return " must be in 0.." + std::to_string(max);
    }
    *value = number * scale;
    return "";
}

std::string
FindIntegerProblem(const std::string& text, int64_t min, int64_t max, int64_t* value)
{
    const bool negative = !text.empty() && text[0] == '-';
    uint64_t magnitude = 0;
    const std::string range = " (0 or a whole number with an optional minus sign, " +
                              std::to_string(min) + ".." + std::to_string(max) + ")";
    if (!FindWholeNumberProblem(text.substr(negative ? 1 : 0),
                                std::numeric_limits<uint64_t>::max(),
                                false,
                                &magnitude)
             .empty())
    {
        return " is not a whole number" + range;
    }
    // The magnitude of min may exceed max by one (two's complement).
    const uint64_t limit = negative ? uint64_t(-(min + 1)) + 1 : uint64_t(max);
    if (magnitude > limit)
    {
        return " must be in " + std::to_string(min) + ".." + std::to_string(max);
    }
    *value = negative ? -int64_t(magnitude - 1) - 1 : int64_t(magnitude);
    if (*value < min || *value > max)
    {
        return " must be in " + std::to_string(min) + ".." + std::to_string(max);
    }
    return "";
}

std::string
FindRealProblem(const std::string& text, double* value)
{
    std::size_t used = 0;
    double number = 0;
    try
    {
        number = std::stod(text, &used);
    }
    catch (const std::exception&)
    {
        used = 0;
    }
    // std::stod also reads hexadecimal (0x10), which no option means.
    if (!StartsAsNumber(text) || used != text.size() || !std::isfinite(number) ||
        text.find_first_of("xX") != std::string::npos)
    {
        return " is not a number";
    }
    *value = number;
    return "";
}

std::string
FindTimeProblem(const std::string& text, Time* value)
{
    if (text == "0")
    {
        *value = Time(0);
        return "";
    }
    // The longest matching unit first: "10ms" ends in "s" too.
    const std::pair<const char*, Time::Unit>* unit = nullptr;
    for (const auto& candidate : g_timeUnits)
    {
        const std::string suffix(candidate.first);
        if (text.size() > suffix.size() &&
            text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0 &&
            (!unit || suffix.size() > std::string(unit->first).size()))
        {
            unit = &candidate;
        }
    }
    const std::string notTime =
        " is not a time (a number and a unit: s, ms, us, ns, ps or fs, as in 10ms)";
    if (!unit)
    {
        return notTime;
    }
    double number = 0;
    if (!FindRealProblem(text.substr(0, text.size() - std::string(unit->first).size()), &number)
             .empty())
    {
        return notTime;
    }
    if (number < 0)
    {
        return " must not be negative";
    }
    *value = Time::FromDouble(number, unit->second);
    return "";
}

std::string
FindDataRateProblem(const std::string& text, DataRate* value)
{
    std::istringstream in(text);
    DataRate rate;
    // DataRate's reader takes a leading minus sign for part of the number.
    const bool hasUnit = text.find_first_of("bB") != std::string::npos;
    if (!StartsAsNumber(text) || text[0] == '-' || !hasUnit || !(in >> rate))
    {
        return " is not a data rate (a number and a unit, as in 400Gbps, 100Mb/s or 1.5GB/s)";
    }
    *value = rate;
    return "";
}

std::string
FindIpv4AddressProblem(const std::string& text, Ipv4Address* value)
{
    uint32_t address = 0;
    std::size_t start = 0;
    for (int part = 0; part < 4; ++part)
    {
        const std::size_t end = part < 3 ? text.find('.', start) : text.size();
        uint64_t byte = 0;
        if (end == std::string::npos ||
            !FindWholeNumberProblem(text.substr(start, end - start), 255, false, &byte).empty())
        {
            return " is not an IPv4 address (four numbers of 0..255 with dots, as in 10.0.0.0)";
        }
        address = (address << 8) | static_cast<uint32_t>(byte);
        start = end + 1;
    }
    *value = Ipv4Address(address);
    return "";
}

std::string
ShowDataRate(DataRate rate)
{
    const std::pair<const char*, uint64_t> units[] = {{"Tbps", 1000000000000},
                                                      {"Gbps", 1000000000},
                                                      {"Mbps", 1000000},
                                                      {"kbps", 1000},
                                                      {"bps", 1}};
    for (const auto& [name, scale] : units)
    {
        if (rate.GetBitRate() != 0 && rate.GetBitRate() % scale == 0)
        {
            return std::to_string(rate.GetBitRate() / scale) + name;
        }
    }
    return std::to_string(rate.GetBitRate()) + "bps";
}

std::string
FindOutputPathProblem(const std::string& path)
{
    std::filesystem::path directory = std::filesystem::path(path).parent_path();
    if (directory.empty())
    {
        directory = ".";
    }
    std::error_code error;
    if (!std::filesystem::is_directory(directory, error) || access(directory.c_str(), W_OK) != 0)
    {
        return " cannot be written: directory " + directory.string() +
               " does not exist or is not writable";
    }
    if (std::filesystem::exists(path, error) &&
        (std::filesystem::is_directory(path, error) || access(path.c_str(), W_OK) != 0))
    {
        return " cannot be written: it is a directory or a file that is not writable";
    }
    return "";
}

std::string
ShowTime(Time time)
{
    if (time.IsZero())
    {
        return "0";
    }
    for (const auto& [name, unit] : g_timeUnits)
    {
        const int64x64_t count = time.To(unit);
        if (count.GetLow() == 0 || unit == Time::FS)
        {
            return std::to_string(count.GetHigh()) + name;
        }
    }
    return "0";
}

} // namespace ns3
