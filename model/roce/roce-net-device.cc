/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-net-device.h"

#include "pfc-header.h"
#include "roce-channel.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/error-model.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNetDevice");

NS_OBJECT_ENSURE_REGISTERED(RoceNetDevice);

namespace
{
/// Priority reported in traces for PFC frames (they bypass the eight queues).
constexpr uint8_t PFC_PRIORITY_TAG = 8;
/// Smallest and largest accepted IPv4 MTU (jumbo frames included).
constexpr uint16_t MIN_MTU = 68;
constexpr uint16_t MAX_MTU = 9216;
} // namespace

TypeId
RoceNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("AiFabric")
            .AddConstructor<RoceNetDevice>()
            .AddAttribute(
                "DataRate",
                "Line rate of the port",
                DataRateValue(DataRate("400Gbps")),
                MakeDataRateAccessor(&RoceNetDevice::SetDataRate, &RoceNetDevice::GetDataRate),
                MakeDataRateChecker())
            .AddAttribute("Mtu",
                          "IPv4 MTU in bytes (68..9216); RoCE with a 4096-byte payload needs 4156",
                          UintegerValue(4200),
                          MakeUintegerAccessor(&RoceNetDevice::SetMtu, &RoceNetDevice::GetMtu),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("MaxQueueBytes",
                          "Capacity of each of the eight priority queues in bytes; a frame "
                          "that does not fit is dropped and counted",
                          UintegerValue(32 * 1024 * 1024),
                          MakeUintegerAccessor(&RoceNetDevice::m_maxQueueBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("Ipv4Address",
                          "RoCE endpoint address of the host behind this port",
                          Ipv4AddressValue(Ipv4Address::GetAny()),
                          MakeIpv4AddressAccessor(&RoceNetDevice::SetIpv4Address,
                                                  &RoceNetDevice::GetIpv4Address),
                          MakeIpv4AddressChecker())
            .AddAttribute("PfcWatchdog",
                          "PFC watchdog: a priority paused for PfcWatchdogDetectionTime "
                          "without a resume is in a storm; the port then ignores its pauses "
                          "and drops its frames (counted) until no pause has come for "
                          "PfcWatchdogRestorationTime",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceNetDevice::m_watchdog),
                          MakeBooleanChecker())
            // The time checkers take any value so that CheckWatchdog refuses a bad one
            // by name.
            .AddAttribute("PfcWatchdogDetectionTime",
                          "PFC watchdog: a priority paused this long is in a storm (> 0)",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&RoceNetDevice::m_watchdogDetection),
                          MakeTimeChecker())
            .AddAttribute("PfcWatchdogRestorationTime",
                          "PFC watchdog: a storm clears when no pause has come for this "
                          "long (> 0)",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&RoceNetDevice::m_watchdogRestoration),
                          MakeTimeChecker())
            .AddAttribute("ReceiveErrorModel",
                          "Error model applied to received frames (drops are counted)",
                          PointerValue(),
                          MakePointerAccessor(&RoceNetDevice::m_receiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddTraceSource("Enqueue",
                            "A frame was queued: frame, priority",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_enqueueTrace),
                            "ns3::RoceNetDevice::FramePriorityCallback")
            .AddTraceSource("TxBegin",
                            "A frame started on the wire: frame, priority (8 = PFC)",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_txBeginTrace),
                            "ns3::RoceNetDevice::FramePriorityCallback")
            .AddTraceSource("TxEnd",
                            "A frame finished transmission: frame, priority (8 = PFC)",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_txEndTrace),
                            "ns3::RoceNetDevice::FramePriorityCallback")
            .AddTraceSource("Rx",
                            "A frame was received and accepted",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_rxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Drop",
                            "A frame was dropped before the wire (queue full or over Mtu)",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_dropTrace),
                            "ns3::RoceNetDevice::FramePriorityCallback")
            .AddTraceSource("MacTx",
                            "A frame was queued or pulled for transmission",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_macTxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacTxDrop",
                            "A frame was dropped before the wire",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_macTxDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("RxErrorDrop",
                            "A received frame was dropped by the error model",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_rxErrorDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("RxMalformed",
                            "A received frame too short for its Ethernet or PFC header was "
                            "dropped",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_rxMalformedTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PfcSent",
                            "A PFC frame was sent: priority, quanta (0 = resume)",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_pfcSentTrace),
                            "ns3::RoceNetDevice::PfcCallback")
            .AddTraceSource("PfcStorm",
                            "The PFC watchdog detected a storm on a priority (true) or saw it "
                            "clear (false)",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_pfcStormTrace),
                            "ns3::RoceNetDevice::PfcStormCallback")
            .AddTraceSource("PfcReceived",
                            "A PFC frame was received: priority, quanta (0 = resume)",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_pfcReceivedTrace),
                            "ns3::RoceNetDevice::PfcCallback")
            .AddTraceSource("Sniffer",
                            "Frames sent or received (pcap), Ethernet header included",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_snifferTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PromiscSniffer",
                            "Frames sent or received (pcap), Ethernet header included",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_promiscSnifferTrace),
                            "ns3::Packet::TracedCallback");
    return tid;
}

RoceNetDevice::RoceNetDevice()
    : m_address(Mac48Address::Allocate())
{
    NS_LOG_FUNCTION(this);
}

RoceNetDevice::~RoceNetDevice() = default;

void
RoceNetDevice::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_node = nullptr;
    m_channel = nullptr;
    m_receiveErrorModel = nullptr;
    // Every pending event of the device is removed: none may run on a disposed
    // device, nor advance the clock to its time.
    Simulator::Remove(m_txCompleteEvent);
    m_txBusy = false;
    m_currentFrame = nullptr;
    m_controlQueue.clear();
    for (auto& q : m_queues)
    {
        q.frames.clear();
        q.bytes = 0;
        Simulator::Remove(q.resumeEvent);
        Simulator::Remove(q.watchdogEvent);
        q.pull = PullCallback();
    }
    m_workMask = 0;
    m_rxCallback = NetDevice::ReceiveCallback();
    m_promiscCallback = NetDevice::PromiscReceiveCallback();
    // Trace sinks may hold references (to this device among others): drop them.
    m_linkChangeCallbacks = TracedCallback<>();
    m_enqueueTrace = TracedCallback<Ptr<const Packet>, uint8_t>();
    m_txBeginTrace = TracedCallback<Ptr<const Packet>, uint8_t>();
    m_txEndTrace = TracedCallback<Ptr<const Packet>, uint8_t>();
    m_rxTrace = TracedCallback<Ptr<const Packet>>();
    m_dropTrace = TracedCallback<Ptr<const Packet>, uint8_t>();
    m_macTxTrace = TracedCallback<Ptr<const Packet>>();
    m_macTxDropTrace = TracedCallback<Ptr<const Packet>>();
    m_rxErrorDropTrace = TracedCallback<Ptr<const Packet>>();
    m_rxMalformedTrace = TracedCallback<Ptr<const Packet>>();
    m_pfcSentTrace = TracedCallback<uint8_t, uint16_t>();
    m_pfcReceivedTrace = TracedCallback<uint8_t, uint16_t>();
    m_pfcStormTrace = TracedCallback<uint8_t, bool>();
    m_snifferTrace = TracedCallback<Ptr<const Packet>>();
    m_promiscSnifferTrace = TracedCallback<Ptr<const Packet>>();
    NetDevice::DoDispose();
}

void
RoceNetDevice::CheckPriority(uint8_t priority, const char* what)
{
    NS_ABORT_MSG_IF(priority >= NUM_PRIORITIES,
                    "RoceNetDevice::" << what << ": priority " << +priority << " is not in 0..7");
}

void
RoceNetDevice::SetDataRate(DataRate rate)
{
    NS_LOG_FUNCTION(this << rate);
    NS_ABORT_MSG_IF(rate.GetBitRate() == 0, "RoceNetDevice: DataRate " << rate << " must be > 0");
    m_bps = rate;
}

DataRate
RoceNetDevice::GetDataRate() const
{
    return m_bps;
}

bool
RoceNetDevice::Attach(Ptr<RoceChannel> channel)
{
    NS_LOG_FUNCTION(this << channel);
    NS_ABORT_MSG_IF(!channel, "RoceNetDevice: cannot attach a null channel");
    CheckWatchdog();
    m_channel = channel;
    m_channel->Attach(this);
    m_linkChangeCallbacks();
    return true;
}

void
RoceNetDevice::SetReceiveErrorModel(Ptr<ErrorModel> em)
{
    NS_LOG_FUNCTION(this << em);
    m_receiveErrorModel = em;
}

void
RoceNetDevice::SetIpv4Address(Ipv4Address address)
{
    NS_LOG_FUNCTION(this << address);
    m_ipv4Address = address;
}

Ipv4Address
RoceNetDevice::GetIpv4Address() const
{
    return m_ipv4Address;
}

uint64_t
RoceNetDevice::GetQueueBytes(uint8_t priority) const
{
    CheckPriority(priority, "GetQueueBytes");
    return m_queues[priority].bytes;
}

uint64_t
RoceNetDevice::GetTotalQueueBytes() const
{
    uint64_t bytes = 0;
    for (const auto& queue : m_queues)
    {
        bytes += queue.bytes;
    }
    return bytes;
}

uint32_t
RoceNetDevice::GetQueuePackets(uint8_t priority) const
{
    CheckPriority(priority, "GetQueuePackets");
    return static_cast<uint32_t>(m_queues[priority].frames.size());
}

const RoceNetDevice::Counters&
RoceNetDevice::GetCounters() const
{
    return m_counters;
}

uint64_t
RoceNetDevice::GetTxFrames(uint8_t priority) const
{
    CheckPriority(priority, "GetTxFrames");
    return m_queues[priority].txFrames;
}

uint8_t
RoceNetDevice::PriorityFromDscp(uint8_t dscp)
{
    return (dscp >> 3) & 0x7;
}

uint64_t
RoceNetDevice::GetPfcHeadroom(Time linkDelay) const
{
    NS_LOG_FUNCTION(this << linkDelay);
    const uint64_t maxFrame = GetMtu() + ETHERNET_HEADER_BYTES + WIRE_EXTRA_BYTES;
    // Bytes on the wire, rounded up: ceil(rate x delay / 8), in integers (rate in
    // bit/s times delay in ns stays far below 2^64 for real links).
    const uint64_t bitNs = m_bps.GetBitRate() * static_cast<uint64_t>(linkDelay.GetNanoSeconds());
    const uint64_t wireBytes = (bitNs + 8000000000ULL - 1) / 8000000000ULL;
    return 2 * wireBytes + 3 * maxFrame + PFC_FRAME_WIRE_BYTES;
}

Time
RoceNetDevice::GetFrameTxTime(uint32_t frameBytes) const
{
    uint32_t wire = std::max(frameBytes, MIN_FRAME_BYTES) + WIRE_EXTRA_BYTES;
    return m_bps.CalculateBytesTxTime(wire);
}

Mac48Address
RoceNetDevice::GetPeerMac() const
{
    if (m_channel)
    {
        Ptr<RoceNetDevice> peer = m_channel->GetPeer(this);
        if (peer)
        {
            return peer->m_address;
        }
    }
    return Mac48Address::GetBroadcast();
}

void
RoceNetDevice::AddEthernet(Ptr<Packet> packet,
                           Mac48Address src,
                           Mac48Address dst,
                           uint16_t protocol)
{
    // No preamble/SFD in the packet: it is counted on the wire. The header is kept
    // serialised between frames, as most carry the same addresses.
    m_txHeader.Set(src, dst, protocol);
    packet->AddHeader(m_txHeader);
}

bool
RoceNetDevice::Enqueue(Ptr<Packet> packet, Mac48Address src, Mac48Address dst, uint16_t protocol)
{
    NS_LOG_FUNCTION(this << packet << src << dst << protocol);
    uint8_t priority = 0;
    if (protocol == IPV4_PROTOCOL && packet->GetSize() >= 2)
    {
        // Only the TOS byte is needed: a two-byte peek, not a whole Ipv4Header
        // deserialisation per frame.
        uint8_t head[2]; // version and IHL, TOS (DSCP in its top six bits)
        packet->CopyData(head, sizeof(head));
        priority = PriorityFromDscp(head[1] >> 2);
    }
    if (packet->GetSize() > m_mtu)
    {
        NS_LOG_WARN("packet of " << packet->GetSize() << " B over Mtu " << m_mtu << ": dropped");
        ++m_counters.queueDrops;
        m_dropTrace(packet, priority);
        m_macTxDropTrace(packet);
        return false;
    }
    AddEthernet(packet, src, dst, protocol);
    PriorityQueue& q = m_queues[priority];
    if (q.bytes + packet->GetSize() > m_maxQueueBytes)
    {
        NS_LOG_LOGIC("frame " << packet->GetUid() << " (" << packet->GetSize() << " B, priority "
                              << +priority << "): queue full at " << q.bytes << " B, dropped");
        ++m_counters.queueDrops;
        m_dropTrace(packet, priority);
        m_macTxDropTrace(packet);
        return false;
    }
    q.bytes += packet->GetSize();
    q.frames.push_back(packet);
    UpdateWork(priority);
    m_enqueueTrace(packet, priority);
    m_macTxTrace(packet);
    TryTransmit();
    return true;
}

bool
RoceNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    NS_LOG_FUNCTION(this << packet << dest << protocolNumber);
    Mac48Address dst =
        Mac48Address::IsMatchingType(dest) ? Mac48Address::ConvertFrom(dest) : GetPeerMac();
    return Enqueue(packet, m_address, dst, protocolNumber);
}

bool
RoceNetDevice::SendFrom(Ptr<Packet> packet,
                        const Address& source,
                        const Address& dest,
                        uint16_t protocolNumber)
{
    NS_LOG_FUNCTION(this << packet << source << dest << protocolNumber);
    Mac48Address dst =
        Mac48Address::IsMatchingType(dest) ? Mac48Address::ConvertFrom(dest) : GetPeerMac();
    return Enqueue(packet, Mac48Address::ConvertFrom(source), dst, protocolNumber);
}

void
RoceNetDevice::SendPfc(uint8_t priority, uint16_t quanta)
{
    NS_LOG_FUNCTION(this << +priority << quanta);
    CheckPriority(priority, "SendPfc");
    PfcHeader pfc;
    pfc.SetPauseTime(priority, quanta);
    Ptr<Packet> frame = Create<Packet>();
    frame->AddHeader(pfc);
    AddEthernet(frame, m_address, Mac48Address("01:80:c2:00:00:01"), PfcHeader::ETHERTYPE);
    NS_LOG_LOGIC("sends PFC " << (quanta > 0 ? "pause" : "resume") << " of priority " << +priority
                              << " (" << quanta << " quanta)");
    m_controlQueue.push_back(frame);
    ++m_counters.pfcSent;
    m_pfcSentTrace(priority, quanta);
    TryTransmit();
}

bool
RoceNetDevice::IsPaused(uint8_t priority) const
{
    CheckPriority(priority, "IsPaused");
    return Simulator::Now() < m_queues[priority].pausedUntil;
}

void
RoceNetDevice::SetPullCallback(uint8_t priority, PullCallback cb)
{
    CheckPriority(priority, "SetPullCallback");
    SetPullSource(priority, cb, false);
}

void
RoceNetDevice::SetQueuePullCallback(uint8_t priority, PullCallback cb)
{
    CheckPriority(priority, "SetQueuePullCallback");
    SetPullSource(priority, cb, true);
}

void
RoceNetDevice::SetPullSource(uint8_t priority, PullCallback cb, bool isQueue)
{
    PriorityQueue& q = m_queues[priority];
    q.pull = cb;
    q.pullIsQueue = isQueue;
    q.pullReady = !isQueue; // a queue says when it has something
    UpdateWork(priority);
}

void
RoceNetDevice::NotifyTxReady()
{
    NS_LOG_FUNCTION(this);
    for (uint8_t p = 0; p < NUM_PRIORITIES; ++p)
    {
        m_queues[p].pullReady = true;
        UpdateWork(p);
    }
    TryTransmit();
}

void
RoceNetDevice::NotifyTxReady(uint8_t priority)
{
    NS_LOG_FUNCTION(this << +priority);
    CheckPriority(priority, "NotifyTxReady");
    m_queues[priority].pullReady = true;
    UpdateWork(priority);
    TryTransmit();
}

void
RoceNetDevice::UpdateWork(uint8_t priority)
{
    const PriorityQueue& q = m_queues[priority];
    const bool work = !q.frames.empty() || (!q.pull.IsNull() && q.pullReady);
    m_workMask = work ? (m_workMask | 1u << priority) : (m_workMask & ~(1u << priority));
}

bool
RoceNetDevice::IsTxBusy() const
{
    return m_txBusy;
}

void
RoceNetDevice::TryTransmit()
{
    // A pull source may call NotifyTxReady() from inside its pull: ignore that.
    if (m_txBusy || m_inTryTransmit || !m_channel)
    {
        return;
    }
    if (!m_controlQueue.empty())
    {
        Ptr<Packet> frame = m_controlQueue.front();
        m_controlQueue.pop_front();
        TransmitStart(frame, PFC_PRIORITY_TAG);
        return;
    }
    Time now = Simulator::Now();
    for (int p = NUM_PRIORITIES - 1; p >= 0; --p)
    {
        if (!(m_workMask >> p & 1))
        {
            continue; // nothing to send: its queue's state is not even read
        }
        PriorityQueue& q = m_queues[p];
        if (q.storm)
        {
            DropStorm(static_cast<uint8_t>(p));
            continue;
        }
        if (now < q.pausedUntil)
        {
            continue;
        }
        if (!q.frames.empty())
        {
            Ptr<Packet> frame = q.frames.front();
            q.frames.pop_front();
            q.bytes -= frame->GetSize();
            UpdateWork(static_cast<uint8_t>(p));
            TransmitStart(frame, static_cast<uint8_t>(p));
            return;
        }
        if (!q.pull.IsNull() && q.pullReady)
        {
            m_inTryTransmit = true;
            Ptr<Packet> packet = q.pull(static_cast<uint8_t>(p));
            m_inTryTransmit = false;
            // A queue that had nothing is asked again when it says it has.
            q.pullReady = packet || !q.pullIsQueue;
            UpdateWork(static_cast<uint8_t>(p));
            if (packet)
            {
                NS_ABORT_MSG_IF(packet->GetSize() > m_mtu,
                                "RoceNetDevice: pulled packet of " << packet->GetSize()
                                                                   << " B exceeds Mtu " << m_mtu);
                AddEthernet(packet, m_address, GetPeerMac(), IPV4_PROTOCOL);
                m_enqueueTrace(packet, static_cast<uint8_t>(p));
                m_macTxTrace(packet);
                TransmitStart(packet, static_cast<uint8_t>(p));
                return;
            }
        }
    }
}

void
RoceNetDevice::TransmitStart(Ptr<Packet> frame, uint8_t priority)
{
    m_txBusy = true;
    m_currentFrame = frame;
    m_currentPriority = priority;
    m_txBeginTrace(frame, priority);
    m_snifferTrace(frame);
    m_promiscSnifferTrace(frame);
    // Exact serialisation: carry the sub-tick remainder from frame to frame, so the
    // long-run rate is exact whatever the Time resolution.
    uint64_t bits = 8ULL * (std::max(frame->GetSize(), MIN_FRAME_BYTES) + WIRE_EXTRA_BYTES);
    __uint128_t num =
        static_cast<__uint128_t>(bits) * static_cast<uint64_t>(Seconds(1).GetTimeStep()) +
        m_txRemainder;
    uint64_t bps = m_bps.GetBitRate();
    Time txTime = TimeStep(static_cast<int64_t>(num / bps));
    m_txRemainder = static_cast<uint64_t>(num % bps);
    NS_LOG_LOGIC("transmit frame " << frame->GetUid() << " (" << frame->GetSize() << " B, priority "
                                   << +priority << ") for " << txTime);
    m_txCompleteEvent = Simulator::Schedule(txTime, &RoceNetDevice::TransmitComplete, this);
    m_channel->TransmitStart(frame, this, txTime);
}

void
RoceNetDevice::TransmitComplete()
{
    NS_LOG_FUNCTION(this);
    Ptr<Packet> frame = m_currentFrame;
    m_currentFrame = nullptr;
    m_txBusy = false;
    ++m_counters.txFrames;
    m_counters.txBytes += frame->GetSize();
    if (m_currentPriority < NUM_PRIORITIES)
    {
        ++m_queues[m_currentPriority].txFrames;
    }
    m_txEndTrace(frame, m_currentPriority);
    TryTransmit();
}

void
RoceNetDevice::Receive(Ptr<Packet> frame)
{
    NS_LOG_FUNCTION(this << frame);
    if (!m_channel)
    {
        return; // disposed: a frame still on the wire when the device went is not delivered
    }
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(frame))
    {
        NS_LOG_LOGIC("frame " << frame->GetUid() << " corrupted by the error model, dropped");
        ++m_counters.rxErrorDrops;
        // PFC frames apart, what is lost is a packet the fabric carried.
        uint16_t protocol = 0;
        if (frame->GetSize() >= ETHERNET_HEADER_BYTES)
        {
            uint8_t head[ETHERNET_HEADER_BYTES];
            frame->CopyData(head, sizeof(head));
            protocol = static_cast<uint16_t>(head[12] << 8 | head[13]);
        }
        if (protocol != PfcHeader::ETHERTYPE)
        {
            ++m_counters.rxErrorDataDrops;
            m_counters.rxErrorDataDropBytes += frame->GetSize();
        }
        m_rxErrorDropTrace(frame);
        return;
    }
    NS_LOG_LOGIC("received frame " << frame->GetUid() << " (" << frame->GetSize() << " B)");
    m_snifferTrace(frame);
    m_promiscSnifferTrace(frame);
    // A frame is checked against every header it needs before one is removed.
    if (frame->GetSize() < ETHERNET_HEADER_BYTES)
    {
        ++m_counters.rxMalformed;
        m_rxMalformedTrace(frame);
        return;
    }
    uint8_t head[ETHERNET_HEADER_BYTES]; // destination, source, ethertype
    frame->CopyData(head, sizeof(head));
    const auto protocol = static_cast<uint16_t>(head[12] << 8 | head[13]);
    if (protocol == PfcHeader::ETHERTYPE &&
        frame->GetSize() < ETHERNET_HEADER_BYTES + PfcHeader::SIZE)
    {
        ++m_counters.rxMalformed;
        m_rxMalformedTrace(frame);
        return;
    }
    m_rxTrace(frame);
    ++m_counters.rxFrames;
    m_counters.rxBytes += frame->GetSize();
    // The header was read above: strip its bytes without deserialising it again
    // (the packet's metadata drops the header's item as RemoveHeader would).
    frame->RemoveAtStart(ETHERNET_HEADER_BYTES);
    if (protocol == PfcHeader::ETHERTYPE)
    {
        ReceivePfc(frame);
        return;
    }
    Mac48Address source;
    source.CopyFrom(head + 6);
    if (!m_promiscCallback.IsNull())
    {
        Mac48Address destination;
        destination.CopyFrom(head);
        m_promiscCallback(this, frame, protocol, source, destination, NetDevice::PACKET_HOST);
    }
    if (!m_rxCallback.IsNull())
    {
        m_rxCallback(this, frame, protocol, source);
    }
}

void
RoceNetDevice::ReceivePfc(Ptr<Packet> body)
{
    NS_LOG_FUNCTION(this << body);
    PfcHeader pfc;
    body->RemoveHeader(pfc);
    if (pfc.GetOpcode() != PfcHeader::OPCODE)
    {
        return; // other MAC control frames are not modelled
    }
    ++m_counters.pfcReceived;
    Time now = Simulator::Now();
    for (uint8_t p = 0; p < NUM_PRIORITIES; ++p)
    {
        if (!pfc.IsEnabled(p))
        {
            continue;
        }
        uint16_t quanta = pfc.GetPauseTime(p);
        m_pfcReceivedTrace(p, quanta);
        PriorityQueue& q = m_queues[p];
        if (quanta > 0)
        {
            q.lastPause = now;
        }
        if (q.storm)
        {
            NS_LOG_LOGIC("priority " << +p << " in a PFC storm: pause ignored");
            continue;
        }
        q.resumeEvent.Cancel();
        if (quanta == 0)
        {
            NS_LOG_LOGIC("PFC resume of priority " << +p);
            q.pausedUntil = now;
            q.pausedSince = Time(-1);
            q.watchdogEvent.Cancel();
            TryTransmit();
        }
        else
        {
            // One quantum is 512 bit times at the port's line rate.
            Time pause = m_bps.CalculateBytesTxTime(64ULL * quanta);
            NS_LOG_LOGIC("PFC pause of priority " << +p << " for " << pause.As(Time::US) << " ("
                                                  << quanta << " quanta)");
            q.pausedUntil = now + pause;
            q.resumeEvent = Simulator::Schedule(pause, &RoceNetDevice::PauseExpired, this, p);
            if (q.pausedSince.IsNegative())
            {
                q.pausedSince = now;
                if (m_watchdog)
                {
                    CheckWatchdog(); // its times may have been set after Attach
                    q.watchdogEvent.Cancel();
                    q.watchdogEvent = Simulator::Schedule(m_watchdogDetection,
                                                          &RoceNetDevice::WatchdogCheck,
                                                          this,
                                                          p);
                }
            }
        }
    }
}

void
RoceNetDevice::PauseExpired(uint8_t priority)
{
    NS_LOG_FUNCTION(this << +priority);
    PriorityQueue& q = m_queues[priority];
    q.pausedSince = Time(-1); // the pause ran out: not a storm
    q.watchdogEvent.Cancel();
    TryTransmit();
}

void
RoceNetDevice::CheckWatchdog() const
{
    NS_ABORT_MSG_IF(!m_watchdogDetection.IsStrictlyPositive(),
                    "RoceNetDevice: PfcWatchdogDetectionTime " << m_watchdogDetection.As(Time::MS)
                                                               << " must be > 0");
    NS_ABORT_MSG_IF(!m_watchdogRestoration.IsStrictlyPositive(),
                    "RoceNetDevice: PfcWatchdogRestorationTime "
                        << m_watchdogRestoration.As(Time::MS) << " must be > 0");
}

void
RoceNetDevice::WatchdogCheck(uint8_t priority)
{
    NS_LOG_FUNCTION(this << +priority);
    PriorityQueue& q = m_queues[priority];
    const Time now = Simulator::Now();
    if (q.pausedSince.IsNegative() || now - q.pausedSince < m_watchdogDetection ||
        now >= q.pausedUntil)
    {
        return;
    }
    NS_LOG_LOGIC("PFC watchdog: priority " << +priority << " paused since "
                                           << q.pausedSince.As(Time::US)
                                           << ": storm, pauses ignored, frames dropped");
    q.storm = true;
    ++m_counters.pfcStorms;
    m_pfcStormTrace(priority, true);
    q.pausedUntil = now;
    q.pausedSince = Time(-1);
    q.resumeEvent.Cancel();
    q.watchdogEvent = Simulator::Schedule(m_watchdogRestoration,
                                          &RoceNetDevice::RestorationCheck,
                                          this,
                                          priority);
    TryTransmit();
}

void
RoceNetDevice::RestorationCheck(uint8_t priority)
{
    NS_LOG_FUNCTION(this << +priority);
    PriorityQueue& q = m_queues[priority];
    const Time quiet = Simulator::Now() - q.lastPause;
    if (quiet < m_watchdogRestoration)
    {
        q.watchdogEvent = Simulator::Schedule(m_watchdogRestoration - quiet,
                                              &RoceNetDevice::RestorationCheck,
                                              this,
                                              priority);
        return;
    }
    NS_LOG_LOGIC("PFC watchdog: priority " << +priority << " quiet for " << quiet.As(Time::US)
                                           << ": storm cleared");
    q.storm = false;
    m_pfcStormTrace(priority, false);
    TryTransmit();
}

void
RoceNetDevice::DropStorm(uint8_t priority)
{
    NS_LOG_FUNCTION(this << +priority);
    PriorityQueue& q = m_queues[priority];
    while (!q.frames.empty())
    {
        ++m_counters.pfcStormDrops;
        m_dropTrace(q.frames.front(), priority);
        q.bytes -= q.frames.front()->GetSize();
        q.frames.pop_front();
    }
    if (!q.pull.IsNull())
    {
        m_inTryTransmit = true;
        while (Ptr<Packet> packet = q.pull(priority))
        {
            ++m_counters.pfcStormDrops;
            m_dropTrace(packet, priority);
        }
        m_inTryTransmit = false;
        q.pullReady = !q.pullIsQueue; // a queue just said it has nothing
    }
    UpdateWork(priority);
}

// NetDevice boilerplate

void
RoceNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
RoceNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
RoceNetDevice::GetChannel() const
{
    return m_channel;
}

void
RoceNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
RoceNetDevice::GetAddress() const
{
    return m_address;
}

bool
RoceNetDevice::SetMtu(const uint16_t mtu)
{
    NS_ABORT_MSG_IF(mtu < MIN_MTU || mtu > MAX_MTU,
                    "RoceNetDevice: Mtu " << mtu << " is outside " << MIN_MTU << ".." << MAX_MTU);
    m_mtu = mtu;
    return true;
}

uint16_t
RoceNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
RoceNetDevice::IsLinkUp() const
{
    return m_channel && m_channel->IsUp();
}

void
RoceNetDevice::NotifyLinkChange()
{
    NS_LOG_FUNCTION(this);
    m_linkChangeCallbacks();
}

void
RoceNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCallbacks.ConnectWithoutContext(callback);
}

bool
RoceNetDevice::IsBroadcast() const
{
    return true;
}

Address
RoceNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
RoceNetDevice::IsMulticast() const
{
    return false;
}

Address
RoceNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
RoceNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
RoceNetDevice::IsBridge() const
{
    return false;
}

bool
RoceNetDevice::IsPointToPoint() const
{
    return true;
}

Ptr<Node>
RoceNetDevice::GetNode() const
{
    return m_node;
}

void
RoceNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
RoceNetDevice::NeedsArp() const
{
    return false;
}

void
RoceNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
RoceNetDevice::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
}

bool
RoceNetDevice::SupportsSendFrom() const
{
    return true;
}

} // namespace ns3
