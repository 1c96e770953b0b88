/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_OUT_OF_ORDER_PLACEMENT_RECOVERY_H
#define AI_FABRIC_OUT_OF_ORDER_PLACEMENT_RECOVERY_H

#include "rdma-loss-recovery.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Out-of-order placement, as NICs that tolerate sprayed traffic do (RDMA
 * WRITE packets placed as they arrive): up to ReorderWindow packets beyond a PSN
 * gap are held (ReorderWindow + 1 slots of memory per queue pair) and delivered
 * when the gap fills, so reordering alone never causes a retransmission; no NAK is
 * sent, a lost packet is recovered by the retransmission timeout, and packets
 * beyond the window are dropped.
 */
class OutOfOrderPlacementRecovery : public RdmaLossRecovery
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    OutOfOrderPlacementRecovery();
    ~OutOfOrderPlacementRecovery() override;

    /// Largest ReorderWindow (the receiver's memory is its slots per queue pair).
    static constexpr uint32_t MAX_REORDER_WINDOW = 1U << 20;

    void Validate() const override;
    uint32_t GetReorderWindow() const override;

  private:
    uint32_t m_reorderWindow; //!< ReorderWindow: packets held beyond a gap
};

} // namespace ns3

#endif /* AI_FABRIC_OUT_OF_ORDER_PLACEMENT_RECOVERY_H */
