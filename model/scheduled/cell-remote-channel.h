/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CELL_REMOTE_CHANNEL_H
#define AI_FABRIC_CELL_REMOTE_CHANNEL_H

#include "ns3/cell-channel.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A leaf-spine link of the scheduled fabric whose two ends belong to
 * different MPI processes of a distributed run (built only in an ns-3 configured
 * with --enable-mpi).
 *
 * The sending CellNetDevice serialises its cells (CellMessageHeader, and a data
 * cell's packet after it), several to a message, and this channel hands each
 * message to ns-3's MPI interface, which schedules its arrival in the process that
 * owns the receiving node, at the device's MpiReceiver (aggregated by
 * ScheduledFabricHelper). The propagation
 * Delay is the lookahead of the distributed simulator, so it must be positive.
 * Every process holds a copy of the link and runs its failures, so the receiving
 * end knows whether a cell would have met a failure on the wire.
 */
class CellRemoteChannel : public CellChannel
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    CellRemoteChannel();

    /// \return true
    bool CrossesProcesses() const override;
    void SendToProcess(Ptr<Packet> message, Ptr<CellNetDevice> dst, Time arrival) override;
};

} // namespace ns3

#endif /* AI_FABRIC_CELL_REMOTE_CHANNEL_H */
