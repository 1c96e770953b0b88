/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_SELECTIVE_REPEAT_RECOVERY_H
#define AI_FABRIC_SELECTIVE_REPEAT_RECOVERY_H

#include "out-of-order-placement-recovery.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Selective repeat, in the manner of IRN and of the Ultra Ethernet transport:
 * the receiver holds packets beyond a gap as out-of-order placement does and, while
 * NakThreshold or more of them wait, answers every arrival with a NAK carrying the
 * expected PSN and a selective acknowledgement (SackHeader: which of 64 PSNs around
 * the arrival it holds). The sender keeps a scoreboard of SACKed PSNs
 * (SackScoreboard), deems a PSN lost once NakThreshold packets sent after it are
 * acknowledged (SACKed or cumulatively), and resends only lost PSNs, before new
 * data, each once per detection: a lost NAK costs nothing (the next repeats it), a
 * lost resend is found like any loss, and a retransmission timeout (a lost tail)
 * resends only the PSNs not SACKed.
 */
class SelectiveRepeatRecovery : public OutOfOrderPlacementRecovery
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    SelectiveRepeatRecovery();
    ~SelectiveRepeatRecovery() override;

    void Validate() const override;
    uint32_t GetNakThreshold() const override;

  private:
    uint32_t m_nakThreshold; //!< NakThreshold: held packets before a NAK
};

} // namespace ns3

#endif /* AI_FABRIC_SELECTIVE_REPEAT_RECOVERY_H */
