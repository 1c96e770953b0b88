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
 * \brief Selective repeat, in the manner of IRN: the receiver holds packets beyond a
 * gap as out-of-order placement does and NAKs the gap once NakThreshold of them wait
 * (its tolerance of reordering); the sender resends only the missing packet instead
 * of going back. A resent packet lost again waits for the retransmission timeout.
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
