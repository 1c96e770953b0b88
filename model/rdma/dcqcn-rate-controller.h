/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_DCQCN_RATE_CONTROLLER_H
#define AI_FABRIC_DCQCN_RATE_CONTROLLER_H

#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Constants of the DCQCN reaction point (Zhu et al., SIGCOMM 2015). The
 * RdmaTransport fills it from its attributes.
 */
struct DcqcnConfig
{
    double lineRateBps{400e9};            //!< line rate, the rate ceiling
    double g{1.0 / 256};                  //!< alpha gain
    Time alphaPeriod{MicroSeconds(55)};   //!< alpha decays once per period without CNP
    Time increaseTimer{MicroSeconds(55)}; //!< rate-increase timer T
    uint64_t byteCounter{10000000};       //!< rate-increase byte counter B
    uint32_t fastRecoverySteps{5};        //!< F
    double rateAiBps{40e6};               //!< additive increase step R_AI
    double rateHaiBps{400e6};             //!< hyper increase step R_HAI
    double minRateBps{1e6};               //!< floor of the current rate
    double initialAlpha{1.0};             //!< alpha at creation (the paper starts at 1)
    Time decreasePeriod{0};               //!< at most one cut per period (0: every CNP)
    bool clampTargetRate{true};           //!< RT = RC at every cut (else only after an increase)

    /// Stop with a message naming the constant if the configuration is impossible.
    void Validate() const;
};

/**
 * \ingroup ai-fabric
 * \brief DCQCN rate computation for one queue pair: pure arithmetic, no events. The
 * owner calls OnCnp(), OnTimer() when the increase timer expires and OnBytesSent().
 *
 * Alpha decay is applied lazily (alpha x (1-g)^k for k whole alpha periods without a
 * CNP), which equals the paper's periodic alpha timer without its events.
 */
class DcqcnRateController
{
  public:
    /**
     * \param config constants (validated)
     * \param created creation time of the queue pair: the alpha clock starts here, so
     * a QP created late still has alpha = initialAlpha at its first CNP
     */
    DcqcnRateController(const DcqcnConfig& config, Time created);

    /**
     * A CNP arrived: alpha = (1-g) alpha + g and, unless a cut happened less than
     * decreasePeriod ago, a cut: RT = RC (with clampTargetRate, or when a rate
     * increase happened since the previous cut), RC = RC (1 - alpha/2); the increase
     * counters restart.
     * \param now current time
     * \return true if the rate was cut
     */
    bool OnCnp(Time now);
    /// The rate-increase timer expired: one increase event.
    void OnTimer();
    /// \param bytes bytes just sent (drives the byte counter)
    void OnBytesSent(uint64_t bytes);

    /// \return the current rate RC in bit/s
    double GetRate() const;
    /// \return the target rate RT in bit/s
    double GetTargetRate() const;
    /// \param now current time \return alpha with the decay up to now applied
    double GetAlpha(Time now) const;
    /// \return true while RC is below the line rate (the increase timer must run)
    bool IsLimited() const;
    /// \return number of rate cuts so far
    uint64_t GetCuts() const;

  private:
    /// One rate-increase event (fast recovery, additive or hyper).
    void Increase();
    /// Apply the alpha decay for whole periods elapsed up to now. \param now current time
    void DecayAlpha(Time now);

    DcqcnConfig m_config;      //!< constants
    double m_rc;               //!< current rate
    double m_rt;               //!< target rate
    double m_alpha;            //!< alpha
    Time m_alphaUpdated;       //!< time alpha was last brought up to date (creation first)
    uint32_t m_timerEvents{0}; //!< timer expiries since the last cut
    uint32_t m_byteEvents{0};  //!< byte-counter expiries since the last cut
    uint64_t m_bytes{0};       //!< bytes towards the next byte-counter expiry
    uint64_t m_cuts{0};        //!< rate cuts
    Time m_lastCut{-1};        //!< time of the last cut (negative: none yet)
    bool m_increased{false};   //!< a rate increase happened since the last cut
};

} // namespace ns3

#endif /* AI_FABRIC_DCQCN_RATE_CONTROLLER_H */
