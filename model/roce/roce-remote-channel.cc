/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-remote-channel.h"

#include "roce-net-device.h"

#include "ns3/log.h"
#include "ns3/mpi-interface.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceRemoteChannel");

NS_OBJECT_ENSURE_REGISTERED(RoceRemoteChannel);

TypeId
RoceRemoteChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceRemoteChannel")
                            .SetParent<RoceChannel>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RoceRemoteChannel>();
    return tid;
}

RoceRemoteChannel::RoceRemoteChannel()
{
    NS_LOG_FUNCTION(this);
}

void
RoceRemoteChannel::Carry(Ptr<const Packet> frame, Ptr<RoceNetDevice> dst, Time arrival)
{
    NS_LOG_FUNCTION(this << frame << dst << arrival);
    NS_LOG_LOGIC("frame " << frame->GetUid() << " to node " << dst->GetNode()->GetId()
                          << " of process " << dst->GetNode()->GetSystemId());
    // Both MPI interfaces serialise the frame at once and never change it, so it
    // needs no copy (SendPacket takes a non-const pointer).
    MpiInterface::SendPacket(ConstCast<Packet>(frame),
                             Simulator::Now() + arrival,
                             dst->GetNode()->GetId(),
                             dst->GetIfIndex());
}

} // namespace ns3
