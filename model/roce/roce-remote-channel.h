/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_ROCE_REMOTE_CHANNEL_H
#define AI_FABRIC_ROCE_REMOTE_CHANNEL_H

#include "ns3/roce-channel.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A RoceChannel whose two ends belong to different MPI processes of a
 * distributed run (built only in an ns-3 configured with --enable-mpi).
 *
 * A frame sent into it is serialised and handed to ns-3's MPI interface, which
 * schedules its arrival in the process that owns the receiving node (at the
 * device's MpiReceiver, aggregated by the helper that made the link). The
 * propagation Delay is the lookahead of the distributed simulator, so it must be
 * positive. A frame already on the wire when the wire goes down still arrives:
 * only frames sent while it is down are lost.
 */
class RoceRemoteChannel : public RoceChannel
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    RoceRemoteChannel();

  protected:
    void Carry(Ptr<const Packet> frame, Ptr<RoceNetDevice> dst, Time arrival) override;
};

} // namespace ns3

#endif /* AI_FABRIC_ROCE_REMOTE_CHANNEL_H */
