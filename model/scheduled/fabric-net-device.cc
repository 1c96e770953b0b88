/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "fabric-net-device.h"

#include "fabric-channel.h"
#include "femtosecond-clock.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricNetDevice");
NS_OBJECT_ENSURE_REGISTERED(FabricNetDevice);

TypeId
FabricNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("AiFabric")
            .AddConstructor<FabricNetDevice>()
            .AddAttribute("DataRate",
                          "Rate of the leaf-spine link (cells are serialised at this rate)",
                          DataRateValue(DataRate("400Gbps")),
                          MakeDataRateAccessor(&FabricNetDevice::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("Mtu",
                          "Nominal MTU reported to upper layers (the device carries cells)",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&FabricNetDevice::m_mtu),
                          MakeUintegerChecker<uint16_t>())
            .AddTraceSource("CellTx",
                            "A cell was queued for transmission (port, cell)",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_txTrace),
                            "ns3::FabricNetDevice::CellTracedCallback")
            .AddTraceSource("CellRx",
                            "A cell was received (port, cell)",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_rxTrace),
                            "ns3::FabricNetDevice::CellTracedCallback")
            .AddTraceSource("CellLost",
                            "A cell was lost because the link was or went down (port, cell)",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_lostTrace),
                            "ns3::FabricNetDevice::CellTracedCallback");
    return tid;
}

FabricNetDevice::FabricNetDevice()
    : m_address(Mac48Address::Allocate())
{
    NS_LOG_FUNCTION(this);
}

FabricNetDevice::~FabricNetDevice()
{
}

void
FabricNetDevice::DoDispose()
{
    m_node = nullptr;
    m_channel = nullptr;
    m_peer = nullptr;
    m_generation++;
    m_inFlight.clear();
    m_rxCallback = MakeNullCallback<void, uint32_t, const FabricCell&>();
    m_linkChangeCb.clear();
    NetDevice::DoDispose();
}

void
FabricNetDevice::Attach(Ptr<FabricChannel> channel)
{
    NS_ABORT_MSG_IF(m_rate.GetBitRate() == 0, "FabricNetDevice: DataRate must be positive");
    m_channel = channel;
    channel->Attach(this);
}

bool
FabricNetDevice::SendCell(const FabricCell& cell)
{
    if (!m_peer)
    {
        m_peer = m_channel->GetPeer(this);
    }
    if (!m_channel->IsUp())
    {
        m_cellsLost++;
        m_lostTrace(m_port, cell);
        return false;
    }
    const __int128 nowFs = NowInFemtoSeconds();
    const __int128 startFs = std::max(nowFs, m_busyUntilFs);
    const uint64_t backlog =
        static_cast<uint64_t>((static_cast<__int128>(startFs - nowFs) * m_rate.GetBitRate()) /
                              (8 * FEMTOSECONDS_PER_SECOND));
    m_backlogHighWater = std::max(m_backlogHighWater, backlog + cell.wireBytes);
    const int64_t txFs =
        static_cast<int64_t>((static_cast<__int128>(cell.wireBytes) * 8 * FEMTOSECONDS_PER_SECOND) /
                             m_rate.GetBitRate());
    m_busyUntilFs = startFs + txFs;
    const __int128 arrivalFs = m_busyUntilFs + m_channel->GetDelay().GetFemtoSeconds();
    m_cellsSent++;
    m_bytesSent += cell.wireBytes;
    if (cell.type == FabricCell::DATA)
    {
        m_dataCellsSent++;
    }
    m_txTrace(m_port, cell);
    // Cells leave a FIFO link in order, so only the head of the in-flight list
    // needs an event: the pending-event set stays one per link however long the
    // queue, and each cell still costs exactly one event.
    m_inFlight.push_back({arrivalFs, cell});
    if (m_inFlight.size() == 1)
    {
        ScheduleHead();
    }
    return true;
}

void
FabricNetDevice::ScheduleHead()
{
    // Only the event time is rounded to the simulator's resolution; the clock
    // itself stays exact.
    const Time delay =
        FemtoSeconds(static_cast<int64_t>(m_inFlight.front().first - NowInFemtoSeconds()));
    Simulator::ScheduleWithContext(m_peer->GetNode()->GetId(),
                                   std::max(delay, Time(0)),
                                   &FabricNetDevice::DeliverHead,
                                   this,
                                   m_generation);
}

void
FabricNetDevice::DeliverHead(uint32_t generation)
{
    if (generation != m_generation)
    {
        return; // the link failed after this event was scheduled: its cells are counted
    }
    FabricCell cell = std::move(m_inFlight.front().second);
    m_inFlight.pop_front();
    if (!m_inFlight.empty())
    {
        ScheduleHead();
    }
    m_peer->Receive(cell);
}

void
FabricNetDevice::Receive(const FabricCell& cell)
{
    m_cellsReceived++;
    m_rxTrace(m_port, cell);
    m_rxCallback(m_port, cell);
}

void
FabricNetDevice::SetCellReceiveCallback(CellReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
FabricNetDevice::SetPortIndex(uint32_t port)
{
    m_port = port;
}

uint32_t
FabricNetDevice::GetPortIndex() const
{
    return m_port;
}

uint64_t
FabricNetDevice::GetBacklogBytes() const
{
    const __int128 nowFs = NowInFemtoSeconds();
    if (m_busyUntilFs <= nowFs)
    {
        return 0;
    }
    return static_cast<uint64_t>(
        (static_cast<__int128>(m_busyUntilFs - nowFs) * m_rate.GetBitRate()) /
        (8 * FEMTOSECONDS_PER_SECOND));
}

DataRate
FabricNetDevice::GetDataRate() const
{
    return m_rate;
}

Ptr<FabricChannel>
FabricNetDevice::GetFabricChannel() const
{
    return m_channel;
}

void
FabricNetDevice::NotifyLinkChange()
{
    if (!m_channel->IsUp())
    {
        // Whatever was queued or on the wire is gone with the link: counted here.
        m_busyUntilFs = NowInFemtoSeconds();
        m_generation++;
        for (const auto& entry : m_inFlight)
        {
            m_cellsLost++;
            m_lostTrace(m_port, entry.second);
        }
        m_inFlight.clear();
    }
    for (auto& cb : m_linkChangeCb)
    {
        cb();
    }
}

uint64_t
FabricNetDevice::GetCellsSent() const
{
    return m_cellsSent;
}

uint64_t
FabricNetDevice::GetBytesSent() const
{
    return m_bytesSent;
}

uint64_t
FabricNetDevice::GetDataCellsSent() const
{
    return m_dataCellsSent;
}

uint64_t
FabricNetDevice::GetCellsReceived() const
{
    return m_cellsReceived;
}

uint64_t
FabricNetDevice::GetCellsLost() const
{
    return m_cellsLost;
}

uint64_t
FabricNetDevice::GetBacklogHighWater() const
{
    return m_backlogHighWater;
}

void
FabricNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
FabricNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
FabricNetDevice::GetChannel() const
{
    return m_channel;
}

void
FabricNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
FabricNetDevice::GetAddress() const
{
    return m_address;
}

bool
FabricNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
FabricNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
FabricNetDevice::IsLinkUp() const
{
    return m_channel && m_channel->IsUp();
}

void
FabricNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCb.push_back(callback);
}

bool
FabricNetDevice::IsBroadcast() const
{
    return false;
}

Address
FabricNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
FabricNetDevice::IsMulticast() const
{
    return false;
}

Address
FabricNetDevice::GetMulticast(Ipv4Address /* multicastGroup */) const
{
    return Mac48Address::GetBroadcast();
}

Address
FabricNetDevice::GetMulticast(Ipv6Address /* addr */) const
{
    return Mac48Address::GetBroadcast();
}

bool
FabricNetDevice::IsBridge() const
{
    return false;
}

bool
FabricNetDevice::IsPointToPoint() const
{
    return true;
}

bool
FabricNetDevice::Send(Ptr<Packet> /* packet */,
                      const Address& /* dest */,
                      uint16_t /* protocolNumber */)
{
    // A fabric link carries cells only; see SendCell.
    return false;
}

bool
FabricNetDevice::SendFrom(Ptr<Packet> /* packet */,
                          const Address& /* source */,
                          const Address& /* dest */,
                          uint16_t /* protocolNumber */)
{
    return false;
}

Ptr<Node>
FabricNetDevice::GetNode() const
{
    return m_node;
}

void
FabricNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
FabricNetDevice::NeedsArp() const
{
    return false;
}

void
FabricNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback /* cb */)
{
}

void
FabricNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback /* cb */)
{
}

bool
FabricNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
