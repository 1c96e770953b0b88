/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_COMPARISON_REPORT_H
#define AI_FABRIC_COMPARISON_REPORT_H

// The fabric comparison's results (examples/fabric-comparison.cc): from every
// scenario's JSON, one summary row per scenario (normalised to the ideal fabric,
// slowdown against alone, failure dip and recovery), summary.csv, and report.md with
// one finding per workload and condition, each difference above 5% explained by the
// counters that show it.

#include "comparison-scenario.h"

#include "ns3/core-module.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/// A difference between fabrics smaller than this is not reported as one.
constexpr double COMPARISON_TOLERANCE = 0.05;

/// One row of summary.csv: a scenario's result and what it is compared against.
struct ComparisonRow
{
    nlohmann::json result;        //!< the scenario's JSON
    double normalised{0};         //!< iteration time / the ideal fabric's, alone
    double slowdown{0};           //!< iteration time / this fabric's, alone
    double neighbourSlowdown{0};  //!< the neighbour's iteration time / its own alone
    double dip{0};                //!< failure: lowest bin after the failure / mean before it
    double recovery_us{0};        //!< failure: from it to the first bin at 90% of the median after
    double blackout_us{0};        //!< failure: longest stretch with nothing delivered after it
    double baselineSilence_us{0}; //!< the same in the run without the failure

    /// \param key a scenario field \return its value
    std::string Get(const char* key) const
    {
        return result["scenario"][key].get<std::string>();
    }

    /// \param key a metric \return its value, 0 if the workload has none
    double Metric(const std::string& key) const
    {
        return Number("metrics", key);
    }

    /// \param key a counter \return its value, 0 if the fabric has none
    double Counter(const std::string& key) const
    {
        return Number("counters", key);
    }

  private:
    /**
     * \param section "metrics" or "counters" \param key a value in it
     * \return the value, 0 if absent, NaN if not a number (JSON writes NaN as null)
     */
    double Number(const char* section, const std::string& key) const
    {
        const nlohmann::json& values = result[section];
        if (!values.contains(key))
        {
            return 0;
        }
        return values[key].is_number() ? values[key].get<double>()
                                       : std::numeric_limits<double>::quiet_NaN();
    }
};

/// The metrics of summary.csv, in column order (0 where a workload has none).
inline const std::vector<std::string>&
ComparisonMetricColumns()
{
    static const std::vector<std::string> columns{
        "iteration_us",    "busbw_GBps",     "exposedComm_us",
        "bubbleFraction",  "transferP50_us", "transferP99_us",
        "transferP999_us", "opP50_us",       "opP99_us",
        "jitterRatio",     "opStdDev_us",    "dispatchP50_us",
        "dispatchP99_us",  "combineP50_us",  "combineP99_us",
        "imbalance",       "tpTime_us",      "ppTime_us",
        "epTime_us",       "dpTime_us",      "neighbourIteration_us"};
    return columns;
}

/// The counters of summary.csv, in column order.
inline const std::vector<std::string>&
ComparisonCounterColumns()
{
    static const std::vector<std::string> columns{"droppedPackets",
                                                  "queuedPackets",
                                                  "unaccountedPackets",
                                                  "pfcPauses",
                                                  "retransmissions",
                                                  "timeouts",
                                                  "receiverDiscards",
                                                  "ecnMarks",
                                                  "cnps",
                                                  "maxQueuedBytes",
                                                  "uplinkImbalance",
                                                  "cellsLostOnFailedLinks",
                                                  "grantedBytes",
                                                  "controlBytes",
                                                  "qpFailures"};
    return columns;
}

/**
 * Builds the summary rows, summary.csv and report.md from the scenarios' results.
 */
class ComparisonReport
{
  public:
    /**
     * \param results every scenario's JSON
     * \param failAt when the failure condition's links failed
     */
    ComparisonReport(const std::vector<nlohmann::json>& results, Time failAt)
        : m_failAt(failAt)
    {
        for (const nlohmann::json& result : results)
        {
            ComparisonRow row;
            row.result = result;
            m_rows.push_back(row);
        }
        for (ComparisonRow& row : m_rows)
        {
            const double time = row.Metric("iteration_us");
            const ComparisonRow* ideal = FindReference(row, "ideal");
            const ComparisonRow* alone = FindBaseline(row);
            row.normalised = ideal && ideal->Metric("iteration_us") > 0
                                 ? time / ideal->Metric("iteration_us")
                                 : 0;
            row.slowdown = alone && alone->Metric("iteration_us") > 0
                               ? time / alone->Metric("iteration_us")
                               : 0;
            const ComparisonRow* neighbour = Find("neighbour", row.Get("fabric"), "alone", "");
            if (neighbour && row.Metric("neighbourIteration_us") > 0)
            {
                // Against the neighbour alone; under nic, against the neighbour beside
                // the same workload without the throttled NIC.
                const double base = row.Get("condition") == "nic" && alone
                                        ? alone->Metric("neighbourIteration_us")
                                        : neighbour->Metric("iteration_us");
                row.neighbourSlowdown = base > 0 ? row.Metric("neighbourIteration_us") / base : 0;
            }
            // The failure's throughput dip needs a workload that sends without pause
            // (one with a "none" baseline: dp reduces back to back there).
            const ComparisonRow* none =
                Find(row.Get("workload"), row.Get("fabric"), "failure", "none", row.Get("sweep"));
            if (row.Get("condition") == "failure" && row.Get("variant") != "none" && none)
            {
                MeasureFailure(row, *none);
            }
        }
    }

    /// \return the rows, in the order of the results given
    const std::vector<ComparisonRow>& GetRows() const
    {
        return m_rows;
    }

    /// \param os where to write summary.csv
    void WriteCsv(std::ostream& os) const
    {
        os << "workload,fabric,condition,variant,sweep,completed,normalised,slowdown,"
              "neighbourSlowdown,failureDip,recovery_us,blackout_us,baselineSilence_us,"
              "fabricBinds";
        for (const std::string& column : ComparisonMetricColumns())
        {
            os << "," << column;
        }
        for (const std::string& column : ComparisonCounterColumns())
        {
            os << "," << column;
        }
        os << ",dropsByPlace,simulatedTime_us,events\n";
        for (const ComparisonRow& row : m_rows)
        {
            os << row.Get("workload") << "," << row.Get("fabric") << "," << row.Get("condition")
               << "," << row.Get("variant") << "," << row.Get("sweep") << ","
               << (row.result["completed"].get<bool>() ? 1 : 0) << "," << row.normalised << ","
               << row.slowdown << "," << row.neighbourSlowdown << "," << row.dip << ","
               << row.recovery_us << "," << row.blackout_us << "," << row.baselineSilence_us << ","
               << (FabricBinds(row.Get("workload"), row.Get("condition"), row.Get("variant")) ? 1
                                                                                              : 0);
            for (const std::string& column : ComparisonMetricColumns())
            {
                os << "," << row.Metric(column);
            }
            for (const std::string& column : ComparisonCounterColumns())
            {
                os << "," << row.Counter(column);
            }
            std::string places;
            for (const auto& [place, count] : row.result["counters"]["drops"].items())
            {
                places += (places.empty() ? "" : ";") + place + "=" +
                          std::to_string(count.get<uint64_t>());
            }
            os << "," << places << "," << row.result["simulatedTime_us"].get<double>() << ","
               << row.result["events"].get<uint64_t>() << "\n";
        }
    }

    /**
     * \param workload a workload \param condition a condition \param variant its variant
     * \return whether the fabrics differ there: one (ideal aside) did not finish, the
     *         worst is above 1 + tolerance of ideal, or the others spread beyond the
     *         tolerance
     */
    bool FabricBinds(const std::string& workload,
                     const std::string& condition,
                     const std::string& variant) const
    {
        for (const std::string& fabric : ComparisonFabrics())
        {
            const ComparisonRow* row = Find(workload, fabric, condition, variant);
            if (fabric != "ideal" && row && !row->result["completed"].get<bool>())
            {
                return true; // a fabric on which the job could not finish binds it
            }
        }
        const std::vector<const ComparisonRow*> rows = Group(workload, condition, variant);
        if (rows.empty())
        {
            return false;
        }
        // normalised is already against ideal under the same condition where it ran.
        double best = rows.front()->normalised;
        double worst = best;
        for (const ComparisonRow* row : rows)
        {
            best = std::min(best, row->normalised);
            worst = std::max(worst, row->normalised);
        }
        return worst > 1 + COMPARISON_TOLERANCE || worst > best * (1 + COMPARISON_TOLERANCE);
    }

    /**
     * The findings: for each workload, condition and variant, which fabric served it
     * best and by how much, and the counters behind every difference above the
     * tolerance.
     * \return one sentence (or a few) per group
     */
    std::vector<std::string> GetFindings() const
    {
        std::vector<std::string> findings;
        std::vector<std::tuple<std::string, std::string, std::string>> groups;
        for (const ComparisonRow& row : m_rows)
        {
            const auto key =
                std::make_tuple(row.Get("workload"), row.Get("condition"), row.Get("variant"));
            if (row.Get("fabric") != "ideal" && row.Get("workload") != "neighbour" &&
                row.Get("sweep").empty() &&
                std::find(groups.begin(), groups.end(), key) == groups.end())
            {
                groups.push_back(key);
            }
        }
        for (const auto& [workload, condition, variant] : groups)
        {
            findings.push_back(Describe(workload, condition, variant));
        }
        return findings;
    }

    /**
     * The sweeps: for each scenario swept and each fabric, its normalised time (and,
     * under a condition, its slowdown) at every value of the parameter, and whether
     * the result hangs on it (a range wider than the tolerance).
     * \return one line per scenario and fabric swept
     */
    std::vector<std::string> GetSweepFindings() const
    {
        std::vector<std::string> lines;
        std::vector<std::string> done;
        for (const ComparisonRow& row : m_rows)
        {
            const std::string sweep = row.Get("sweep");
            if (sweep.empty())
            {
                continue;
            }
            const std::string name = sweep.substr(0, sweep.find('='));
            // A parameter swept under another condition ran alone only as a baseline.
            const bool elsewhere =
                std::any_of(m_rows.begin(), m_rows.end(), [&](const ComparisonRow& r) {
                    return r.Get("sweep").rfind(name + "=", 0) == 0 &&
                           r.Get("condition") != "alone";
                });
            if (elsewhere && row.Get("condition") == "alone")
            {
                continue;
            }
            const std::string key = row.Get("workload") + "/" + row.Get("condition") + "/" +
                                    row.Get("variant") + "/" + row.Get("fabric") + "/" + name;
            if (std::find(done.begin(), done.end(), key) != done.end())
            {
                continue;
            }
            done.push_back(key);
            std::ostringstream line;
            line.setf(std::ios::fixed);
            line.precision(3);
            line << "**" << row.Get("workload") << ", " << row.Get("condition")
                 << (row.Get("variant").empty() ? "" : " " + row.Get("variant")) << ", on "
                 << row.Get("fabric") << "**, " << name << ":";
            double low = 0;
            double high = 0;
            for (const ComparisonRow& other : m_rows)
            {
                const std::string value = other.Get("sweep");
                if (value.rfind(name + "=", 0) != 0 || other.Get("fabric") != row.Get("fabric") ||
                    other.Get("workload") != row.Get("workload") ||
                    other.Get("condition") != row.Get("condition") ||
                    other.Get("variant") != row.Get("variant"))
                {
                    continue;
                }
                if (!other.result["completed"].get<bool>())
                {
                    line << " " << value.substr(name.size() + 1) << " did not finish;";
                    continue;
                }
                line << " " << value.substr(name.size() + 1) << " " << other.normalised;
                if (other.Get("condition") != "alone")
                {
                    line << " (slowdown " << other.slowdown << ")";
                }
                line << ";";
                low = low == 0 ? other.normalised : std::min(low, other.normalised);
                high = std::max(high, other.normalised);
            }
            line << (high > low * (1 + COMPARISON_TOLERANCE)
                         ? " the result hangs on this parameter (" +
                               std::to_string(
                                   static_cast<int>(std::lround((high / low - 1) * 100))) +
                               "% from lowest to highest)."
                         : " within 5% across the range.");
            lines.push_back(line.str());
        }
        return lines;
    }

    /**
     * \param os where to write the table: normalised time per workload and condition,
     *        one column per fabric
     * \param markdown a Markdown table (else plain text for the terminal)
     */
    void WriteTable(std::ostream& os, bool markdown) const
    {
        std::vector<std::string> fabrics;
        for (const std::string& fabric : ComparisonFabrics())
        {
            for (const ComparisonRow& row : m_rows)
            {
                if (row.Get("fabric") == fabric &&
                    std::find(fabrics.begin(), fabrics.end(), fabric) == fabrics.end())
                {
                    fabrics.push_back(fabric);
                }
            }
        }
        char cell[64];
        if (markdown)
        {
            os << "| workload | condition |";
            for (const std::string& fabric : fabrics)
            {
                os << " " << fabric << " |";
            }
            os << " fabric binds |\n|---|---|";
            for (std::size_t i = 0; i < fabrics.size(); ++i)
            {
                os << "---:|";
            }
            os << "---|\n";
        }
        else
        {
            std::snprintf(cell, sizeof(cell), "  %-10s %-20s", "workload", "condition");
            os << cell;
            for (const std::string& fabric : fabrics)
            {
                std::snprintf(cell, sizeof(cell), " %11s", fabric.c_str());
                os << cell;
            }
            os << "  fabric binds\n";
        }
        std::vector<std::tuple<std::string, std::string, std::string>> done;
        for (const ComparisonRow& row : m_rows)
        {
            const auto key =
                std::make_tuple(row.Get("workload"), row.Get("condition"), row.Get("variant"));
            if (!row.Get("sweep").empty() || std::find(done.begin(), done.end(), key) != done.end())
            {
                continue;
            }
            done.push_back(key);
            const std::string condition =
                row.Get("condition") + (row.Get("variant").empty() ? "" : " " + row.Get("variant"));
            if (markdown)
            {
                os << "| " << row.Get("workload") << " | " << condition << " |";
            }
            else
            {
                std::snprintf(cell,
                              sizeof(cell),
                              "  %-10s %-20s",
                              row.Get("workload").c_str(),
                              condition.c_str());
                os << cell;
            }
            for (const std::string& fabric : fabrics)
            {
                const ComparisonRow* r =
                    Find(row.Get("workload"), fabric, row.Get("condition"), row.Get("variant"));
                std::string text = "-";
                if (r && !r->result["completed"].get<bool>())
                {
                    text = "incomplete";
                }
                else if (r && r->normalised > 0)
                {
                    std::snprintf(cell, sizeof(cell), "%.3f", r->normalised);
                    text = cell;
                }
                if (markdown)
                {
                    os << " " << text << " |";
                }
                else
                {
                    std::snprintf(cell, sizeof(cell), " %11s", text.c_str());
                    os << cell;
                }
            }
            const bool binds =
                FabricBinds(row.Get("workload"), row.Get("condition"), row.Get("variant"));
            os << (markdown ? " " : "  ") << (binds ? "yes" : "no") << (markdown ? " |\n" : "\n");
        }
    }

  private:
    /**
     * \param row a scenario \param fabric a fabric
     * \return that fabric's run of the same workload under the same condition
     *         (variant, else the condition's baseline "none"), else alone; or null
     */
    const ComparisonRow* FindReference(const ComparisonRow& row, const std::string& fabric) const
    {
        const std::string workload = row.Get("workload");
        const std::string condition = row.Get("condition");
        for (const std::string& variant : {row.Get("variant"), std::string("none")})
        {
            if (const ComparisonRow* found = Find(workload, fabric, condition, variant))
            {
                return found;
            }
        }
        return Find(workload, fabric, "alone", "");
    }

    /// \param row a scenario \return what its slowdown is against: the same fabric,
    ///         workload and sweep setting without the condition (failure: its "none"
    ///         variant; nic: beside the neighbour without the throttled NIC; else alone)
    const ComparisonRow* FindBaseline(const ComparisonRow& row) const
    {
        const std::string sweep = row.Get("sweep");
        const ComparisonRow* none =
            Find(row.Get("workload"), row.Get("fabric"), row.Get("condition"), "none", sweep);
        // The throttled NIC runs beside the neighbour: against the neighbour alone, its
        // slowdowns say who pays for the impairment.
        const ComparisonRow* shared =
            row.Get("condition") == "nic"
                ? Find(row.Get("workload"), row.Get("fabric"), "neighbour", "", sweep)
                : nullptr;
        return none     ? none
               : shared ? shared
                        : Find(row.Get("workload"), row.Get("fabric"), "alone", "", sweep);
    }

    /**
     * \param workload a workload \param fabric a fabric \param condition a condition
     * \param variant its variant \param sweep the swept parameter's setting ("" none)
     * \return the row of that scenario, or null
     */
    const ComparisonRow* Find(const std::string& workload,
                              const std::string& fabric,
                              const std::string& condition,
                              const std::string& variant,
                              const std::string& sweep = "") const
    {
        for (const ComparisonRow& row : m_rows)
        {
            if (row.Get("workload") == workload && row.Get("fabric") == fabric &&
                row.Get("condition") == condition && row.Get("variant") == variant &&
                row.Get("sweep") == sweep)
            {
                return &row;
            }
        }
        return nullptr;
    }

    /**
     * \param workload a workload \param condition a condition \param variant its variant
     * \return the completed rows of that group, ideal aside, in fabric order
     */
    std::vector<const ComparisonRow*> Group(const std::string& workload,
                                            const std::string& condition,
                                            const std::string& variant) const
    {
        std::vector<const ComparisonRow*> rows;
        for (const std::string& fabric : ComparisonFabrics())
        {
            const ComparisonRow* row = Find(workload, fabric, condition, variant);
            if (fabric != "ideal" && row && row->result["completed"].get<bool>() &&
                row->normalised > 0)
            {
                rows.push_back(row);
            }
        }
        return rows;
    }

    /**
     * The failure's effect on throughput, against the same run without it (both runs
     * are identical until the failure: same seed, same events):
     * dip: bytes delivered in the 100 us after the failure / the baseline's in the same
     * 100 us; recovery: from the failure to the end of the first 50 us window that
     * delivers 90% of the baseline's mean rate, and past any silence longer than the
     * baseline's longest (a stall that follows a brief recovery); blackout: the longest stretch
     * after the failure in which nothing was delivered (the baseline's own longest one, between
     * collective phases, is kept beside it).
     * \param row a failure scenario \param baseline its "none" variant
     */
    void MeasureFailure(ComparisonRow& row, const ComparisonRow& baseline) const
    {
        const double bin = row.result["series"]["binWidth_us"].get<double>();
        const auto rate = row.result["series"]["deliveredGbps"].get<std::vector<double>>();
        const auto base = baseline.result["series"]["deliveredGbps"].get<std::vector<double>>();
        const auto f = static_cast<std::size_t>(m_failAt.GetMicroSeconds() / bin);
        const auto window = static_cast<std::size_t>(std::ceil(100 / bin));
        const auto recoveryWindow = static_cast<std::size_t>(std::ceil(50 / bin));
        if (base.size() < 2 || f >= base.size() || f >= rate.size())
        {
            return;
        }
        double baseMean = 0;
        for (std::size_t i = 0; i + 1 < base.size(); ++i)
        {
            baseMean += base[i];
        }
        baseMean /= base.size() - 1;
        const auto sum = [](const std::vector<double>& v, std::size_t from, std::size_t count) {
            double total = 0;
            for (std::size_t i = from; i < std::min(v.size(), from + count); ++i)
            {
                total += v[i];
            }
            return total;
        };
        const double baseWindow = sum(base, f, window);
        row.dip = baseWindow > 0 ? sum(rate, f, window) / baseWindow : 0;
        row.recovery_us = -1;
        for (std::size_t i = f; i + recoveryWindow <= rate.size(); ++i)
        {
            if (sum(rate, i, recoveryWindow) >= 0.9 * baseMean * recoveryWindow)
            {
                row.recovery_us = (i + recoveryWindow) * bin - m_failAt.GetMicroSeconds();
                break;
            }
        }
        const auto longestSilence = [bin, baseMean, f](const std::vector<double>& v) {
            double longest = 0;
            double stretch = 0;
            for (std::size_t i = f; i + 1 < v.size(); ++i)
            {
                stretch = v[i] < 0.01 * baseMean ? stretch + bin : 0;
                longest = std::max(longest, stretch);
            }
            return longest;
        };
        row.blackout_us = longestSilence(rate);
        row.baselineSilence_us = longestSilence(base);
        // Not recovered while a silence longer than the baseline's is still to come.
        double stretch = 0;
        for (std::size_t i = f; i + 1 < rate.size(); ++i)
        {
            stretch = rate[i] < 0.01 * baseMean ? stretch + bin : 0;
            if (stretch > row.baselineSilence_us)
            {
                row.recovery_us =
                    std::max(row.recovery_us, (i + 1) * bin - m_failAt.GetMicroSeconds());
            }
        }
    }

    /**
     * \param worse a fabric's row \param better the best fabric's row
     * \return the counters that show why worse took longer, in words ("" if none)
     */
    static std::string Explain(const ComparisonRow& worse, const ComparisonRow& better)
    {
        std::vector<std::string> reasons;
        char text[320];
        if (worse.Counter("uplinkImbalance") > 1.2 &&
            worse.Counter("uplinkImbalance") > better.Counter("uplinkImbalance") + 0.1)
        {
            std::snprintf(text,
                          sizeof(text),
                          "%s: its busiest leaf uplink carried %.2f x its leaf's mean",
                          worse.Get("fabric") == "ethernet" ? "ECMP collisions" : "uneven uplinks",
                          worse.Counter("uplinkImbalance"));
            reasons.push_back(text);
        }

        // A counter, its words, and where a parameter with no single public figure sets
        // its cost, which sweep gives the range (on the fabric named, or "" for any).
        struct Count
        {
            const char* key;
            const char* words;
            const char* caveat;
            const char* caveatFabric;
        };

        const std::vector<Count> counts{
            {"pfcPauses", "PFC pauses", "", ""},
            {"cnps", "CNPs (DCQCN rate cuts)", "", ""},
            {"retransmissions", "retransmitted packets", "", ""},
            {"timeouts",
             "retransmission timeouts",
             ", a timer with no single public figure (--sweep=retransmitTimeout)",
             ""},
            {"receiverDiscards",
             "packets discarded by receivers beyond a PSN gap or reorder window",
             ", a window with no public figure (--sweep=reorderWindow)",
             "ai-ethernet"},
            {"droppedPackets", "packets dropped", "", ""},
            {"cellsLostOnFailedLinks", "cells lost on failed links", "", ""}};
        for (const Count& count : counts)
        {
            if (worse.Counter(count.key) > better.Counter(count.key))
            {
                std::snprintf(text,
                              sizeof(text),
                              "%.0f %s (%s: %.0f)",
                              worse.Counter(count.key),
                              count.words,
                              better.Get("fabric").c_str(),
                              better.Counter(count.key));
                reasons.push_back(text);
                if (*count.caveatFabric == '\0' || worse.Get("fabric") == count.caveatFabric)
                {
                    reasons.back() += count.caveat;
                }
            }
        }
        if (worse.Get("fabric") == "scheduled" && reasons.empty())
        {
            std::snprintf(
                text,
                sizeof(text),
                "credit round trips: a message's first bytes wait for a grant, its tail for "
                "the request interval (no public figure: --sweep=requestInterval); %.0f "
                "request and %.0f grant cells, VOQs up to %.0f B waiting for credit",
                worse.Counter("creditRequests"),
                worse.Counter("creditGrants"),
                worse.Counter("maxQueuedBytes"));
            reasons.push_back(text);
        }
        std::string out;
        for (const std::string& reason : reasons)
        {
            out += (out.empty() ? "" : "; ") + reason;
        }
        return out;
    }

    /**
     * \param workload a workload \param condition a condition \param variant its variant
     * \return the finding of that group
     */
    std::string Describe(const std::string& workload,
                         const std::string& condition,
                         const std::string& variant) const
    {
        const std::vector<const ComparisonRow*> rows = Group(workload, condition, variant);
        std::ostringstream out;
        out.setf(std::ios::fixed);
        out.precision(3);
        out << "**" << workload << ", " << condition << (variant.empty() ? "" : " " + variant)
            << "**: ";
        for (const std::string& fabric : ComparisonFabrics())
        {
            const ComparisonRow* row = Find(workload, fabric, condition, variant);
            if (row && !row->result["completed"].get<bool>())
            {
                const auto count = [row](const char* key) {
                    return static_cast<uint64_t>(row->Counter(key));
                };
                out << fabric << " did not finish it "
                    << (row->result.value("stalled", false)
                            ? "(the run stopped when nothing more could progress: "
                            : "within --maxSimTime (")
                    << count("qpFailures") << " queue pairs failed after " << count("timeouts")
                    << " retransmission timeouts, " << count("pfcPauses") << " PFC pauses, "
                    << count("droppedPackets") << " packets dropped). ";
            }
        }
        if (rows.empty())
        {
            out << "No fabric completed it.";
            return out.str();
        }
        const ComparisonRow* best = rows.front();
        for (const ComparisonRow* row : rows)
        {
            if (row->normalised < best->normalised)
            {
                best = row;
            }
        }
        if (rows.size() == 1 && FabricBinds(workload, condition, variant))
        {
            out << "only " << best->Get("fabric") << " finished it, at " << best->normalised
                << " x ideal.";
            AddLatency(workload, rows, out);
            return out.str();
        }
        if (!FabricBinds(workload, condition, variant))
        {
            out << "the fabric does not bind: every fabric within "
                << static_cast<int>(COMPARISON_TOLERANCE * 100) << "% of ideal and of each other (";
        }
        else
        {
            out << best->Get("fabric") << " served it best at " << best->normalised << " x ideal (";
        }
        for (std::size_t i = 0; i < rows.size(); ++i)
        {
            out << (i ? ", " : "") << rows[i]->Get("fabric") << " " << rows[i]->normalised;
        }
        out << ").";
        for (const ComparisonRow* row : rows)
        {
            if (row != best && row->normalised > best->normalised * (1 + COMPARISON_TOLERANCE))
            {
                const std::string why = Explain(*row, *best);
                out << " " << row->Get("fabric") << " took "
                    << static_cast<int>(std::lround((row->normalised / best->normalised - 1) * 100))
                    << "% longer: " << (why.empty() ? "unexplained by the counters" : why) << ".";
            }
        }
        if (FabricBinds(workload, condition, variant) && best->Get("fabric") == "ai-ethernet")
        {
            out << " (Optimistic for ai-ethernet: its routing reads the spine's queue with no "
                   "feedback delay.)";
        }
        AddLatency(workload, rows, out);
        if (condition != "alone")
        {
            out << " Slowdown against "
                << (condition == "failure" ? "no failure"
                    : condition == "nic"   ? "the same jobs without the throttled NIC"
                                           : "alone")
                << ":";
            for (const ComparisonRow* row : rows)
            {
                out << " " << row->Get("fabric") << " " << row->slowdown;
                if (row->neighbourSlowdown > 0)
                {
                    out << " (neighbour " << row->neighbourSlowdown << ")";
                }
            }
            out << ".";
            AddNeighbourHarm(rows, out);
        }
        if (condition == "failure" && variant != "none" &&
            rows.front()->blackout_us + rows.front()->dip > 0)
        {
            out.precision(0);
            out << " After the failure:";
            for (const ComparisonRow* row : rows)
            {
                out << " " << row->Get("fabric") << " delivered " << row->dip * 100
                    << "% of the bytes of the run without it in the next 100 us, ";
                if (row->recovery_us < 0)
                {
                    out << "never again 90% of its rate";
                }
                else
                {
                    out << "90% of its rate again after " << row->recovery_us << " us";
                }
                out << ", nothing at all for up to " << row->blackout_us
                    << " us (without the failure: " << row->baselineSilence_us
                    << " us between phases);";
            }
            out.precision(3);
        }
        return out.str();
    }

    /**
     * Who harms the neighbour: for every fabric on which the neighbour slowed more
     * than the tolerance beyond its least slowed, the counters that show why.
     * \param rows a group's rows \param out the finding, completed
     */
    static void AddNeighbourHarm(const std::vector<const ComparisonRow*>& rows,
                                 std::ostringstream& out)
    {
        const ComparisonRow* least = nullptr;
        for (const ComparisonRow* row : rows)
        {
            if (row->neighbourSlowdown > 0 &&
                (!least || row->neighbourSlowdown < least->neighbourSlowdown))
            {
                least = row;
            }
        }
        for (const ComparisonRow* row : rows)
        {
            if (least &&
                row->neighbourSlowdown > least->neighbourSlowdown * (1 + COMPARISON_TOLERANCE))
            {
                const std::string why = Explain(*row, *least);
                out << " On " << row->Get("fabric") << " the neighbour slowed "
                    << row->neighbourSlowdown << " (" << least->Get("fabric") << ": "
                    << least->neighbourSlowdown
                    << "): " << (why.empty() ? "unexplained by the counters" : why) << ".";
            }
        }
    }

    /// \param workload the workload \param rows its rows \param out the finding: add
    ///        the tail latency for latency-bound workloads
    static void AddLatency(const std::string& workload,
                           const std::vector<const ComparisonRow*>& rows,
                           std::ostringstream& out)
    {
        const std::string key = workload == "pp"               ? "transferP99_us"
                                : workload.rfind("tp", 0) == 0 ? "opP99_us"
                                : workload == "ep"             ? "dispatchP99_us"
                                                               : "";
        if (key.empty())
        {
            return;
        }
        out.precision(1);
        out << " p99 "
            << (workload == "pp"   ? "transfer"
                : workload == "ep" ? "dispatch"
                                   : "operation")
            << " latency:";
        for (const ComparisonRow* row : rows)
        {
            out << " " << row->Get("fabric") << " " << row->Metric(key) << " us";
        }
        if (workload.rfind("tp", 0) == 0)
        {
            out.precision(3);
            out << "; jitter p99/p50:";
            for (const ComparisonRow* row : rows)
            {
                out << " " << row->Get("fabric") << " " << row->Metric("jitterRatio");
            }
        }
        out << ".";
        out.precision(3);
    }

    std::vector<ComparisonRow> m_rows; //!< every scenario
    Time m_failAt;                     //!< when the failure condition's links failed
};

} // namespace ns3

#endif /* AI_FABRIC_COMPARISON_REPORT_H */
