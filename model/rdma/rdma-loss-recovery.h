/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_RDMA_LOSS_RECOVERY_H
#define AI_FABRIC_RDMA_LOSS_RECOVERY_H

#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief How the queue pairs of an RdmaTransport recover from loss and reordering,
 * chosen by TypeId (the transport's LossRecovery attribute, an ObjectFactory such as
 * "ns3::SelectiveRepeatRecovery[ReorderWindow=64|NakThreshold=3]"), as ns-3's TCP
 * chooses a TcpCongestionOps.
 *
 * This base class is go-back-N, as RoCE NICs without reordering support do: a
 * packet beyond a PSN gap is dropped and the gap NAKed once, and the sender goes
 * back to the missing packet and resends everything from there; reordering alone
 * therefore causes retransmissions. Subclasses hold packets beyond a gap
 * (OutOfOrderPlacementRecovery) and, with selective acknowledgements, resend only
 * what is missing (SelectiveRepeatRecovery). The queue pairs do the bookkeeping;
 * this object says how much they hold and when they NAK.
 */
class RdmaLossRecovery : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    RdmaLossRecovery();
    ~RdmaLossRecovery() override;

    /// Stop with a message naming a bad attribute and its value (before anything runs).
    virtual void Validate() const;
    /// \return packets a receiver holds beyond a gap (0: none, they are dropped)
    virtual uint32_t GetReorderWindow() const;
    /// \return held packets beyond a gap that make the receiver NAK it with a
    ///         selective acknowledgement, and the packets sent after a PSN that must
    ///         be acknowledged before selective repeat resends it (0: never;
    ///         with no reorder window, go-back-N NAKs the first packet beyond a gap)
    virtual uint32_t GetNakThreshold() const;
};

} // namespace ns3

#endif /* AI_FABRIC_RDMA_LOSS_RECOVERY_H */
