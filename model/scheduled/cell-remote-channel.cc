/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cell-remote-channel.h"

#include "cell-net-device.h"

#include "ns3/log.h"
#include "ns3/mpi-interface.h"
#include "ns3/node.h"
#include "ns3/packet.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CellRemoteChannel");

NS_OBJECT_ENSURE_REGISTERED(CellRemoteChannel);

TypeId
CellRemoteChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CellRemoteChannel")
                            .SetParent<CellChannel>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<CellRemoteChannel>();
    return tid;
}

CellRemoteChannel::CellRemoteChannel()
{
    NS_LOG_FUNCTION(this);
}

bool
CellRemoteChannel::CrossesProcesses() const
{
    return true;
}

void
CellRemoteChannel::SendToProcess(Ptr<Packet> message, Ptr<CellNetDevice> dst, Time arrival)
{
    NS_LOG_FUNCTION(this << message << dst << arrival);
    NS_LOG_LOGIC("message of " << message->GetSize() << " B to node " << dst->GetNode()->GetId()
                               << " of process " << dst->GetNode()->GetSystemId() << " at "
                               << arrival.As(Time::NS));
    MpiInterface::SendPacket(message, arrival, dst->GetNode()->GetId(), dst->GetIfIndex());
}

} // namespace ns3
