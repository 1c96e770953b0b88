/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "dcqcn-rate-controller.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DcqcnRateController");

void
DcqcnConfig::Validate() const
{
    NS_ABORT_MSG_IF(!(lineRateBps > 0), "DCQCN: line rate " << lineRateBps << " bps must be > 0");
    NS_ABORT_MSG_IF(!(g > 0 && g <= 1), "DcqcnCongestionControl: G " << g << " must be in (0, 1]");
    NS_ABORT_MSG_IF(!alphaPeriod.IsStrictlyPositive(),
                    "DcqcnCongestionControl: AlphaPeriod " << alphaPeriod << " must be > 0");
    NS_ABORT_MSG_IF(!increaseTimer.IsStrictlyPositive(),
                    "DcqcnCongestionControl: RateIncreaseTimer " << increaseTimer
                                                                 << " must be > 0");
    NS_ABORT_MSG_IF(byteCounter == 0,
                    "DcqcnCongestionControl: ByteCounter " << byteCounter << " must be > 0");
    NS_ABORT_MSG_IF(!(rateAiBps > 0),
                    "DcqcnCongestionControl: RateAi (scaled) " << rateAiBps << " bps must be > 0");
    NS_ABORT_MSG_IF(!(rateHaiBps > 0),
                    "DcqcnCongestionControl: RateHai (scaled) " << rateHaiBps
                                                                << " bps must be > 0");
    NS_ABORT_MSG_IF(!(minRateBps > 0) || minRateBps > lineRateBps,
                    "DcqcnCongestionControl: MinRate "
                        << minRateBps << " bps must be in (0, line rate " << lineRateBps << "]");
    NS_ABORT_MSG_IF(!(initialAlpha >= 0 && initialAlpha <= 1),
                    "DCQCN: initial alpha " << initialAlpha << " must be in [0, 1]");
}

DcqcnRateController::DcqcnRateController(const DcqcnConfig& config, Time created)
    : m_config(config),
      m_rc(config.lineRateBps),
      m_rt(config.lineRateBps),
      m_alpha(config.initialAlpha),
      m_alphaUpdated(created)
{
    NS_LOG_FUNCTION(this << created);
    m_config.Validate();
}

void
DcqcnRateController::DecayAlpha(Time now)
{
    if (now <= m_alphaUpdated)
    {
        return;
    }
    auto periods = static_cast<uint64_t>((now - m_alphaUpdated).GetInteger() /
                                         m_config.alphaPeriod.GetInteger());
    if (periods > 0)
    {
        m_alpha *= std::pow(1.0 - m_config.g, static_cast<double>(periods));
        m_alphaUpdated += m_config.alphaPeriod * static_cast<int64_t>(periods);
    }
}

bool
DcqcnRateController::OnCnp(Time now)
{
    NS_LOG_FUNCTION(this << now);
    DecayAlpha(now);
    const bool cut = m_lastCut.IsNegative() || now - m_lastCut >= m_config.decreasePeriod;
    if (cut)
    {
        if (m_config.clampTargetRate || m_increased)
        {
            m_rt = m_rc;
        }
        m_rc = std::max(m_rc * (1.0 - m_alpha / 2.0), m_config.minRateBps);
        m_lastCut = now;
        m_increased = false;
        m_timerEvents = 0;
        m_byteEvents = 0;
        m_bytes = 0;
        ++m_cuts;
        NS_LOG_LOGIC("CNP: rate cut to " << m_rc << " bit/s (target " << m_rt << ", alpha "
                                         << m_alpha << ")");
    }
    else
    {
        NS_LOG_LOGIC("CNP within DecreasePeriod of the last cut: rate stays " << m_rc << " bit/s");
    }
    m_alpha = (1.0 - m_config.g) * m_alpha + m_config.g;
    m_alphaUpdated = now; // the alpha timer restarts with each CNP
    return cut;
}

void
DcqcnRateController::OnTimer()
{
    NS_LOG_FUNCTION(this);
    ++m_timerEvents;
    Increase();
}

void
DcqcnRateController::OnBytesSent(uint64_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    if (!IsLimited())
    {
        return;
    }
    m_bytes += bytes;
    while (m_bytes >= m_config.byteCounter)
    {
        m_bytes -= m_config.byteCounter;
        ++m_byteEvents;
        Increase();
    }
}

void
DcqcnRateController::Increase()
{
    m_increased = true;
    uint32_t hi = std::max(m_timerEvents, m_byteEvents);
    uint32_t lo = std::min(m_timerEvents, m_byteEvents);
    if (hi <= m_config.fastRecoverySteps)
    {
        // fast recovery: RT unchanged
    }
    else if (lo > m_config.fastRecoverySteps)
    {
        m_rt += (lo - m_config.fastRecoverySteps) * m_config.rateHaiBps;
    }
    else
    {
        m_rt += m_config.rateAiBps;
    }
    m_rt = std::min(m_rt, m_config.lineRateBps);
    m_rc = std::min((m_rt + m_rc) / 2.0, m_config.lineRateBps);
    // Within a bit per second of the line rate is the line rate (stops the timer).
    if (m_config.lineRateBps - m_rc < 1.0)
    {
        m_rc = m_config.lineRateBps;
    }
    NS_LOG_LOGIC("increase (" << (hi <= m_config.fastRecoverySteps
                                      ? "fast recovery"
                                      : (lo > m_config.fastRecoverySteps ? "hyper" : "additive"))
                              << ", timer " << m_timerEvents << ", bytes " << m_byteEvents
                              << "): rate " << m_rc << " bit/s, target " << m_rt);
}

double
DcqcnRateController::GetRate() const
{
    return m_rc;
}

double
DcqcnRateController::GetTargetRate() const
{
    return m_rt;
}

double
DcqcnRateController::GetAlpha(Time now) const
{
    DcqcnRateController copy = *this;
    copy.DecayAlpha(now);
    return copy.m_alpha;
}

bool
DcqcnRateController::IsLimited() const
{
    return m_rc < m_config.lineRateBps;
}

uint64_t
DcqcnRateController::GetCuts() const
{
    return m_cuts;
}

} // namespace ns3
