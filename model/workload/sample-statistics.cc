/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "sample-statistics.h"

#include "ns3/abort.h"

#include <boost/accumulators/accumulators.hpp>
#include <boost/accumulators/statistics/max.hpp>
#include <boost/accumulators/statistics/mean.hpp>
#include <boost/accumulators/statistics/min.hpp>
#include <boost/accumulators/statistics/stats.hpp>
#include <boost/accumulators/statistics/tail_quantile.hpp>
#include <boost/accumulators/statistics/variance.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

namespace ns3
{

namespace acc = boost::accumulators;

namespace
{

/// Moments and extremes.
using Moments = acc::accumulator_set<
    double,
    acc::stats<acc::tag::mean, acc::tag::variance, acc::tag::min, acc::tag::max>>;

/// \param samples the samples \return their moments
Moments
Summarise(const std::vector<double>& samples)
{
    Moments m;
    for (double x : samples)
    {
        m(x);
    }
    return m;
}

} // namespace

void
SampleStatistics::Add(double x)
{
    m_samples.push_back(x);
}

uint64_t
SampleStatistics::GetCount() const
{
    return m_samples.size();
}

double
SampleStatistics::GetMean() const
{
    return m_samples.empty() ? 0 : acc::mean(Summarise(m_samples));
}

double
SampleStatistics::GetStdDev() const
{
    return m_samples.empty() ? 0 : std::sqrt(acc::variance(Summarise(m_samples)));
}

double
SampleStatistics::GetMin() const
{
    return m_samples.empty() ? 0 : acc::min(Summarise(m_samples));
}

double
SampleStatistics::GetMax() const
{
    return m_samples.empty() ? 0 : acc::max(Summarise(m_samples));
}

double
SampleStatistics::GetPercentile(double p) const
{
    NS_ABORT_MSG_IF(!(p > 0 && p < 1),
                    "SampleStatistics: percentile probability " << p << " is not in (0, 1)");
    if (m_samples.empty())
    {
        return 0;
    }
    // The ceil(N (1 - p))-th largest sample. Boost's right tail quantile answers NaN
    // when that is the N-th largest, the smallest (one sample, or p <= 1/N): that
    // one is the minimum.
    const auto rank = static_cast<std::size_t>(std::ceil(m_samples.size() * (1 - p)));
    if (rank >= m_samples.size())
    {
        return GetMin();
    }
    using Tail = acc::accumulator_set<double, acc::stats<acc::tag::tail_quantile<acc::right>>>;
    Tail tail(acc::tag::tail<acc::right>::cache_size = m_samples.size());
    for (double x : m_samples)
    {
        tail(x);
    }
    return acc::quantile(tail, acc::quantile_probability = p);
}

nlohmann::json
SampleStatistics::ToJson() const
{
    nlohmann::json out = {{"count", GetCount()},
                          {"mean", GetMean()},
                          {"stddev", GetStdDev()},
                          {"min", GetMin()},
                          {"max", GetMax()}};
    if (!m_samples.empty())
    {
        out["p50"] = GetPercentile(0.5);
        out["p90"] = GetPercentile(0.9);
        out["p99"] = GetPercentile(0.99);
        out["p999"] = GetPercentile(0.999);
    }
    return out;
}

const std::vector<double>&
SampleStatistics::GetSamples() const
{
    return m_samples;
}

} // namespace ns3
