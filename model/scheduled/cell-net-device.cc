/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cell-net-device.h"

#include "cell-channel.h"
#include "cell-message-header.h"
#include "femtosecond-clock.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CellNetDevice");
NS_OBJECT_ENSURE_REGISTERED(CellNetDevice);

TypeId
CellNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CellNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("AiFabric")
            .AddConstructor<CellNetDevice>()
            .AddAttribute(
                "DataRate",
                "Rate of the leaf-spine link (cells are serialised at this rate)",
                DataRateValue(DataRate("400Gbps")),
                MakeDataRateAccessor(&CellNetDevice::SetDataRate, &CellNetDevice::GetDataRate),
                MakeDataRateChecker())
            .AddAttribute("TrainWindow",
                          "Cells that reach the peer within this time of the head of the "
                          "in-flight list are delivered with it, at its arrival, in one event "
                          "(0: every cell at its own arrival, exact). A cell then arrives up "
                          "to this much early at each hop: fewer events for a bounded error",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&CellNetDevice::m_trainWindow),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Mtu",
                          "Nominal MTU reported to upper layers (the device carries cells)",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&CellNetDevice::m_mtu),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("ReceiveErrorModel",
                          "Error model judging each cell this end receives (as a packet of "
                          "the cell's wire bytes); a corrupted cell is dropped",
                          PointerValue(),
                          MakePointerAccessor(&CellNetDevice::m_receiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddTraceSource("CellTx",
                            "A cell was queued for transmission (port, cell)",
                            MakeTraceSourceAccessor(&CellNetDevice::m_txTrace),
                            "ns3::CellNetDevice::CellTracedCallback")
            .AddTraceSource("CellRx",
                            "A cell was received (port, cell)",
                            MakeTraceSourceAccessor(&CellNetDevice::m_rxTrace),
                            "ns3::CellNetDevice::CellTracedCallback")
            .AddTraceSource("CellLost",
                            "A cell was lost because the link was or went down (port, cell)",
                            MakeTraceSourceAccessor(&CellNetDevice::m_lostTrace),
                            "ns3::CellNetDevice::CellTracedCallback")
            .AddTraceSource("CellCorrupted",
                            "A cell arrived corrupted (ReceiveErrorModel) and was dropped "
                            "(port, cell)",
                            MakeTraceSourceAccessor(&CellNetDevice::m_corruptedTrace),
                            "ns3::CellNetDevice::CellTracedCallback");
    return tid;
}

CellNetDevice::CellNetDevice()
    : m_address(Mac48Address::Allocate())
{
    NS_LOG_FUNCTION(this);
}

CellNetDevice::~CellNetDevice()
{
}

void
CellNetDevice::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_node = nullptr;
    m_channel = nullptr;
    m_peer = nullptr;
    m_generation++;
    m_inFlight.clear();
    m_train.clear();
    m_flushEvent.Cancel();
    m_outgoing = nullptr;
    m_arrivingEvent.Cancel();
    m_arriving.clear();
    m_rxCallback = MakeNullCallback<void, uint32_t, const FabricCell&>();
    m_indicationCallback = MakeNullCallback<void, uint32_t, uint32_t, bool>();
    m_linkChangeCb.clear();
    m_receiveErrorModel = nullptr;
    NetDevice::DoDispose();
}

void
CellNetDevice::Attach(Ptr<CellChannel> channel)
{
    NS_LOG_FUNCTION(this << channel);
    NS_ABORT_MSG_IF(m_rate.GetBitRate() == 0, "CellNetDevice: DataRate must be positive");
    m_channel = channel;
    m_crossesProcesses = channel->CrossesProcesses();
    channel->Attach(this);
}

bool
CellNetDevice::SendCell(const FabricCell& cell)
{
    NS_LOG_FUNCTION(this << m_port << +cell.type << cell.cellIndex << cell.wireBytes);
    if (!m_peer)
    {
        m_peer = m_channel->GetPeer(this);
    }
    const __int128_t nowFs = NowInFemtoSeconds();
    const __int128_t startFs = std::max(nowFs, m_busyUntilFs);
    m_backlogHighWater = std::max(m_backlogHighWater, WireBytes(startFs - nowFs) + cell.wireBytes);
    m_busyUntilFs = startFs + WireFemtoSeconds(cell.wireBytes);
    if (!m_channel->IsUp())
    {
        // A sender that has not noticed the failure still serialises the cell at
        // the link rate, into nothing: losses before detection are rate x time.
        NS_LOG_LOGIC("port " << m_port << ": link down, cell lost");
        Lose(cell);
        return false;
    }
    const __int128_t arrivalFs = m_busyUntilFs + m_channel->GetDelay().GetFemtoSeconds();
    m_cellsSent++;
    m_bytesSent += cell.wireBytes;
    if (cell.type == FabricCell::DATA)
    {
        m_dataCellsSent++;
    }
    m_txTrace(m_port, cell);
    if (m_crossesProcesses)
    {
        SendToProcess(cell, nowFs, arrivalFs);
        return true;
    }
    if (cell.type == FabricCell::DATA)
    {
        m_payloadInFlight += cell.payload;
    }
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
CellNetDevice::SendToProcess(const FabricCell& cell, __int128_t nowFs, __int128_t arrivalFs)
{
    NS_LOG_FUNCTION(this << cell.packetId << cell.cellIndex);
    // The arrival rounded down to the simulator's resolution, as ScheduleHead
    // rounds it; the other process owns the cell from here.
    const Time arrival =
        Simulator::Now() + std::max(FemtoSeconds(static_cast<int64_t>(arrivalFs - nowFs)), Time(0));
    CellMessageHeader header;
    header.SetCell(cell, m_channel->GetEpoch(), arrival);
    Ptr<Packet> part;
    if (header.HasPacket())
    {
        // The packet as ns-3 serialises it, which writes no zero-filled payload
        // (an RDMA packet's is), so that several cells with their packets share
        // one message.
        const uint32_t size = cell.packet->GetSerializedSize();
        m_serialised.resize(size);
        NS_ABORT_MSG_IF(!cell.packet->Serialize(m_serialised.data(), size),
                        "CellNetDevice: packet " << cell.packetId << " does not serialise");
        part = Create<Packet>(m_serialised.data(), size);
        header.SetPacketBytes(size);
    }
    else
    {
        part = Create<Packet>();
    }
    part->AddHeader(header);
    const uint32_t partBytes = part->GetSerializedSize();
    NS_ABORT_MSG_IF(partBytes > MAX_MESSAGE_BYTES,
                    "CellNetDevice: a cell of packet "
                        << cell.packetId << " takes " << partBytes
                        << " B serialised, more than a message to another process holds ("
                        << MAX_MESSAGE_BYTES << " B)");
    // Two packets' serialised sizes overstate the two joined (each counts the
    // packet's own fields once): a message stays within the limit.
    if (m_outgoing && m_outgoing->GetSerializedSize() + partBytes > MAX_MESSAGE_BYTES)
    {
        m_flushEvent.Cancel();
        FlushToProcess(); // full: it goes now, earlier than it must
    }
    if (m_outgoing)
    {
        NS_LOG_LOGIC("port " << m_port << ": cell to another process, arrives at "
                             << arrival.As(Time::NS) << ", with the message's other cells");
        m_outgoing->AddAtEnd(part);
        return;
    }
    // The message must leave a lookahead (the link delay) before its first cell
    // arrives, so when that cell's serialisation ends: the cells sent until then
    // go with it, one message for them all.
    NS_LOG_LOGIC("port " << m_port << ": cell to another process, arrives at "
                         << arrival.As(Time::NS) << ", a new message");
    m_outgoing = part;
    m_outgoingArrival = arrival;
    const Time leaves = FemtoSeconds(static_cast<int64_t>(m_busyUntilFs - nowFs));
    m_flushEvent = Simulator::Schedule(leaves, &CellNetDevice::FlushToProcess, this);
}

void
CellNetDevice::FlushToProcess()
{
    NS_LOG_FUNCTION(this);
    Ptr<Packet> message = m_outgoing;
    m_outgoing = nullptr;
    m_channel->SendToProcess(message, m_peer, m_outgoingArrival);
}

void
CellNetDevice::ScheduleHead()
{
    // Only the event time is rounded to the simulator's resolution; the clock
    // itself stays exact.
    const Time delay =
        FemtoSeconds(static_cast<int64_t>(m_inFlight.front().first - NowInFemtoSeconds()));
    Simulator::ScheduleWithContext(m_peer->GetNode()->GetId(),
                                   std::max(delay, Time(0)),
                                   &CellNetDevice::DeliverHead,
                                   this,
                                   m_generation);
}

void
CellNetDevice::DeliverHead(uint32_t generation)
{
    NS_LOG_FUNCTION(this << generation);
    if (generation != m_generation)
    {
        return; // the link failed after this event was scheduled: its cells are counted
    }
    if (m_trainWindow.IsStrictlyPositive())
    {
        DeliverTrain();
        return;
    }
    FabricCell cell = std::move(m_inFlight.front().second);
    m_inFlight.pop_front();
    m_payloadInFlight -= cell.payload;
    if (!m_inFlight.empty())
    {
        ScheduleHead();
    }
    m_peer->Receive(cell);
}

void
CellNetDevice::DeliverTrain()
{
    const __int128_t trainEndFs = m_inFlight.front().first + m_trainWindow.GetFemtoSeconds();
    m_train.clear();
    do
    {
        m_payloadInFlight -= m_inFlight.front().second.payload;
        m_train.push_back(std::move(m_inFlight.front().second));
        m_inFlight.pop_front();
    } while (!m_inFlight.empty() && m_inFlight.front().first <= trainEndFs);
    NS_LOG_LOGIC("port " << m_port << ": a train of " << m_train.size() << " cells");
    if (!m_inFlight.empty())
    {
        ScheduleHead();
    }
    // A cell sent on this link while the train is handed over (a leaf woken by a
    // spine's flow-control indication) joins m_inFlight, not the train, and
    // SendCell schedules the head if the list was empty.
    for (const FabricCell& cell : m_train)
    {
        m_peer->Receive(cell);
    }
    m_train.clear();
}

void
CellNetDevice::Receive(const FabricCell& cell)
{
    NS_LOG_FUNCTION(this << m_port << +cell.type << cell.cellIndex);
    // Only a lossy link's end pays for a packet to judge.
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(Create<Packet>(cell.wireBytes)))
    {
        NS_LOG_LOGIC("port " << m_port << ": cell of type " << +cell.type << " corrupted");
        m_cellsCorrupted++;
        m_payloadCorrupted += cell.payload;
        m_corruptedTrace(m_port, cell);
        return;
    }
    m_cellsReceived++;
    m_rxTrace(m_port, cell);
    m_rxCallback(m_port, cell);
}

void
CellNetDevice::Lose(const FabricCell& cell)
{
    m_cellsLost++;
    m_payloadLost += cell.payload;
    m_lostTrace(m_port, cell);
}

void
CellNetDevice::SetCellReceiveCallback(CellReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
CellNetDevice::SendIndication(uint32_t spine, uint32_t leaf, bool stop, Time delay)
{
    NS_LOG_FUNCTION(this << spine << leaf << stop << delay);
    NS_ABORT_MSG_IF(!m_crossesProcesses,
                    "CellNetDevice: an indication message on a link within one process");
    if (!m_peer)
    {
        m_peer = m_channel->GetPeer(this);
    }
    CellMessageHeader header;
    header.SetIndication(spine, leaf, stop);
    Ptr<Packet> message = Create<Packet>();
    message->AddHeader(header);
    m_channel->SendToProcess(message, m_peer, Simulator::Now() + delay);
}

void
CellNetDevice::SetIndicationCallback(Callback<void, uint32_t, uint32_t, bool> cb)
{
    m_indicationCallback = cb;
}

void
CellNetDevice::ReceiveFromProcess(Ptr<Packet> message)
{
    NS_LOG_FUNCTION(this << message);
    CellMessageHeader header;
    message->PeekHeader(header);
    if (header.GetKind() == CellMessageHeader::INDICATION)
    {
        message->RemoveHeader(header);
        NS_LOG_LOGIC("port " << m_port << ": indication from spine " << header.GetSpine()
                             << " for leaf " << header.GetLeaf());
        if (!m_indicationCallback.IsNull())
        {
            m_indicationCallback(header.GetSpine(), header.GetLeaf(), header.IsStop());
        }
        return;
    }
    // A message arrives with its first cell; its other cells arrive after it, in
    // order, and after any cell of an earlier message still to arrive.
    const bool idle = m_arriving.empty();
    while (message->GetSize() > 0)
    {
        message->RemoveHeader(header);
        FabricCell cell = header.GetCell();
        if (header.HasPacket())
        {
            const uint32_t size = header.GetPacketBytes();
            m_serialised.resize(size);
            message->CopyData(m_serialised.data(), size);
            message->RemoveAtStart(size);
            cell.packet = Create<Packet>(m_serialised.data(), size, true);
        }
        m_arriving.push_back({header.GetArrival(), header.GetEpoch(), std::move(cell)});
    }
    NS_LOG_LOGIC("port " << m_port << ": " << m_arriving.size()
                         << " cells from another process to arrive");
    if (idle)
    {
        DeliverArriving();
    }
}

void
CellNetDevice::DeliverArriving()
{
    NS_LOG_FUNCTION(this);
    // Every cell due now in this event, as a direct link's head would; the next
    // at its own time.
    while (!m_arriving.empty() && m_arriving.front().arrival <= Simulator::Now())
    {
        Arriving arriving = std::move(m_arriving.front());
        m_arriving.pop_front();
        // Every process runs the link's failures on its copy of the link: a
        // failure since the cell left loses it, as it loses the cells in flight
        // in one process.
        if (arriving.epoch != m_channel->GetEpoch() || !m_channel->IsUp())
        {
            NS_LOG_LOGIC("port " << m_port << ": the link failed while the cell was on it");
            Lose(arriving.cell);
            continue;
        }
        Receive(arriving.cell);
    }
    if (!m_arriving.empty())
    {
        m_arrivingEvent = Simulator::Schedule(m_arriving.front().arrival - Simulator::Now(),
                                              &CellNetDevice::DeliverArriving,
                                              this);
    }
}

void
CellNetDevice::SetPortIndex(uint32_t port)
{
    m_port = port;
}

uint32_t
CellNetDevice::GetPortIndex() const
{
    return m_port;
}

uint64_t
CellNetDevice::GetBacklogBytes() const
{
    const __int128_t nowFs = NowInFemtoSeconds();
    if (m_busyUntilFs <= nowFs)
    {
        return 0;
    }
    return WireBytes(m_busyUntilFs - nowFs);
}

void
CellNetDevice::SetQueueLimit(uint64_t bytes)
{
    m_queueLimit = bytes;
}

uint64_t
CellNetDevice::GetQueueLimit() const
{
    return m_queueLimit;
}

bool
CellNetDevice::HasRoomFor(uint32_t wireBytes) const
{
    if (m_queueLimit == 0)
    {
        return true;
    }
    if (wireBytes > m_queueLimit)
    {
        return false;
    }
    // backlog + wireBytes <= limit, with the backlog as time on the departure
    // clock: a multiplication per cell instead of a division.
    const __int128_t waitFs = m_busyUntilFs - NowInFemtoSeconds();
    if (m_fsPerByte != 0)
    {
        return waitFs <= static_cast<__int128_t>(m_queueLimit - wireBytes) * m_fsPerByte;
    }
    return waitFs <= 0 || waitFs * m_bitRate <= static_cast<__int128_t>(m_queueLimit - wireBytes) *
                                                    8 * FEMTOSECONDS_PER_SECOND;
}

Time
CellNetDevice::GetTimeUntilBacklog(uint64_t bytes) const
{
    const __int128_t nowFs = NowInFemtoSeconds();
    const __int128_t drainFs = WireFemtoSeconds(bytes);
    const __int128_t waitFs = m_busyUntilFs - drainFs - nowFs;
    if (waitFs <= 0)
    {
        return Time(0);
    }
    const int64_t stepFs = TimeStep(1).GetFemtoSeconds();
    return TimeStep(static_cast<int64_t>((waitFs + stepFs - 1) / stepFs));
}

DataRate
CellNetDevice::GetDataRate() const
{
    return m_rate;
}

void
CellNetDevice::SetDataRate(DataRate rate)
{
    NS_LOG_FUNCTION(this << rate);
    m_rate = rate;
    m_bitRate = rate.GetBitRate();
    // 8e15 fs x bits per byte over the rate: a whole number at 100, 200, 400 and
    // 800 Gb/s, so a cell's time is one multiplication and a backlog one 64-bit
    // division, with the same results as the 128-bit formulas.
    const auto fsBitsPerByte = static_cast<uint64_t>(8 * FEMTOSECONDS_PER_SECOND);
    m_fsPerByte = (m_bitRate != 0 && fsBitsPerByte % m_bitRate == 0)
                      ? static_cast<int64_t>(fsBitsPerByte / m_bitRate)
                      : 0;
}

__int128_t
CellNetDevice::WireFemtoSeconds(uint64_t bytes) const
{
    if (m_fsPerByte != 0)
    {
        return static_cast<__int128_t>(bytes) * m_fsPerByte;
    }
    return (static_cast<__int128_t>(bytes) * 8 * FEMTOSECONDS_PER_SECOND) / m_bitRate;
}

uint64_t
CellNetDevice::WireBytes(__int128_t fs) const
{
    if (m_fsPerByte == 0)
    {
        return static_cast<uint64_t>((fs * m_bitRate) / (8 * FEMTOSECONDS_PER_SECOND));
    }
    if (fs <= std::numeric_limits<int64_t>::max())
    {
        return static_cast<uint64_t>(static_cast<int64_t>(fs) / m_fsPerByte);
    }
    return static_cast<uint64_t>(fs / m_fsPerByte);
}

Ptr<CellChannel>
CellNetDevice::GetFabricChannel() const
{
    return m_channel;
}

void
CellNetDevice::NotifyLinkChange()
{
    NS_LOG_FUNCTION(this << m_port);
    if (!m_channel->IsUp())
    {
        // Whatever was queued or on the wire is gone with the link: counted here.
        NS_LOG_LOGIC("port " << m_port << ": link down, " << m_inFlight.size()
                             << " cells queued or on the wire lost");
        m_busyUntilFs = NowInFemtoSeconds();
        m_generation++;
        for (const auto& entry : m_inFlight)
        {
            Lose(entry.second);
        }
        m_inFlight.clear();
        m_payloadInFlight = 0;
    }
    for (auto& cb : m_linkChangeCb)
    {
        cb();
    }
}

uint64_t
CellNetDevice::GetCellsSent() const
{
    return m_cellsSent;
}

uint64_t
CellNetDevice::GetBytesSent() const
{
    return m_bytesSent;
}

uint64_t
CellNetDevice::GetDataCellsSent() const
{
    return m_dataCellsSent;
}

uint64_t
CellNetDevice::GetCellsReceived() const
{
    return m_cellsReceived;
}

uint64_t
CellNetDevice::GetCellsLost() const
{
    return m_cellsLost;
}

uint64_t
CellNetDevice::GetPayloadLost() const
{
    return m_payloadLost;
}

void
CellNetDevice::SetReceiveErrorModel(Ptr<ErrorModel> em)
{
    NS_LOG_FUNCTION(this << em);
    m_receiveErrorModel = em;
}

uint64_t
CellNetDevice::GetCellsCorrupted() const
{
    return m_cellsCorrupted;
}

uint64_t
CellNetDevice::GetPayloadCorrupted() const
{
    return m_payloadCorrupted;
}

uint64_t
CellNetDevice::GetPayloadInFlight() const
{
    return m_payloadInFlight;
}

uint64_t
CellNetDevice::GetBacklogHighWater() const
{
    return m_backlogHighWater;
}

void
CellNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
CellNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
CellNetDevice::GetChannel() const
{
    return m_channel;
}

void
CellNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
CellNetDevice::GetAddress() const
{
    return m_address;
}

bool
CellNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
CellNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
CellNetDevice::IsLinkUp() const
{
    return m_channel && m_channel->IsUp();
}

void
CellNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCb.push_back(callback);
}

bool
CellNetDevice::IsBroadcast() const
{
    return false;
}

Address
CellNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
CellNetDevice::IsMulticast() const
{
    return false;
}

Address
CellNetDevice::GetMulticast(Ipv4Address /* multicastGroup */) const
{
    return Mac48Address::GetBroadcast();
}

Address
CellNetDevice::GetMulticast(Ipv6Address /* addr */) const
{
    return Mac48Address::GetBroadcast();
}

bool
CellNetDevice::IsBridge() const
{
    return false;
}

bool
CellNetDevice::IsPointToPoint() const
{
    return true;
}

bool
CellNetDevice::Send(Ptr<Packet> /* packet */,
                    const Address& /* dest */,
                    uint16_t /* protocolNumber */)
{
    // A fabric link carries cells only; see SendCell.
    return false;
}

bool
CellNetDevice::SendFrom(Ptr<Packet> /* packet */,
                        const Address& /* source */,
                        const Address& /* dest */,
                        uint16_t /* protocolNumber */)
{
    return false;
}

Ptr<Node>
CellNetDevice::GetNode() const
{
    return m_node;
}

void
CellNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
CellNetDevice::NeedsArp() const
{
    return false;
}

void
CellNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback /* cb */)
{
}

void
CellNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback /* cb */)
{
}

bool
CellNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
