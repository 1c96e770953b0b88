/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_DCQCN_CONGESTION_CONTROL_H
#define AI_FABRIC_DCQCN_CONGESTION_CONTROL_H

#include "dcqcn-rate-controller.h"
#include "rdma-congestion-control.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"

#include <memory>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief DCQCN (Zhu et al., SIGCOMM 2015) for one queue pair: the reaction point's
 * rate arithmetic (DcqcnRateController) with its rate-increase timer; receivers
 * answer CE marks with CNPs (UsesCnp). The constants are this class's attributes;
 * the defaults and their sources are in doc/ai-fabric.rst (section DCQCN).
 */
class DcqcnCongestionControl : public RdmaCongestionControl
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    DcqcnCongestionControl();
    ~DcqcnCongestionControl() override;

    double GetRate() const override;
    bool UsesCnp() const override;
    void OnSend(uint64_t bytes, Time now) override;
    void OnCnp(Time now) override;

    /// \return the target rate RT, bit/s
    double GetTargetRate() const;
    /// \param now the time \return alpha at that time
    double GetAlpha(Time now) const;
    /// \return rate cuts so far
    uint64_t GetCuts() const;

  protected:
    /// Remove the timer event and release the rate controller.
    void DoDispose() override;
    void DoInstall(Time now) override;

  private:
    /// The rate-increase timer expired.
    void IncreaseTimer();
    /// (Re)start the rate-increase timer.
    void RestartTimer();

    double m_g;                   //!< G
    Time m_alphaPeriod;           //!< AlphaPeriod
    Time m_increaseTimer;         //!< RateIncreaseTimer
    uint64_t m_byteCounter;       //!< ByteCounter
    uint32_t m_fastRecoverySteps; //!< FastRecoverySteps
    DataRate m_rateAi;            //!< RateAi
    DataRate m_rateHai;           //!< RateHai
    DataRate m_minRate;           //!< MinRate
    Time m_decreasePeriod;        //!< RateDecreasePeriod
    bool m_clampTargetRate;       //!< ClampTargetRate
    DataRate m_referenceRate;     //!< ReferenceRate

    std::unique_ptr<DcqcnRateController> m_controller; //!< the arithmetic
    EventId m_timer;                                   //!< rate-increase timer
};

} // namespace ns3

#endif /* AI_FABRIC_DCQCN_CONGESTION_CONTROL_H */
