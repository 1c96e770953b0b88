/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_SAMPLE_STATISTICS_H
#define AI_FABRIC_SAMPLE_STATISTICS_H

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Summary statistics of a set of samples (latencies, iteration times), from
 * Boost.Accumulators: count, mean, population standard deviation, min, max and
 * percentiles.
 *
 * Every sample is kept, so percentiles are order statistics of all of them: the
 * p-quantile is Boost's tail_quantile over a right tail caching all N samples, the
 * ceil(N (1-p))-th largest sample, with 1-p in double precision (of 100 samples,
 * p = 0.9 gives the 10th largest, p = 0.99 the 2nd, p = 0.999 the largest).
 */
class SampleStatistics
{
  public:
    /// \param x a sample
    void Add(double x);

    /// \return the number of samples
    uint64_t GetCount() const;
    /// \return the mean (0 without samples)
    double GetMean() const;
    /// \return the population standard deviation (0 without samples)
    double GetStdDev() const;
    /// \return the smallest sample (0 without samples)
    double GetMin() const;
    /// \return the largest sample (0 without samples)
    double GetMax() const;
    /**
     * \param p probability in (0, 1)
     * \return the p-quantile, the ceil(N (1 - p))-th largest of N samples (0 without
     *         samples)
     */
    double GetPercentile(double p) const;
    /// \return the samples, in the order added
    const std::vector<double>& GetSamples() const;
    /// \return count, mean, stddev, min, p50, p90, p99, p999 and max (no percentiles
    /// without samples)
    nlohmann::json ToJson() const;

  private:
    std::vector<double> m_samples; //!< every sample
};

} // namespace ns3

#endif /* AI_FABRIC_SAMPLE_STATISTICS_H */
