/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "rdma-transport.h"

#include "ns3/abort.h"
#include "ns3/aeth-header.h"
#include "ns3/ai-fabric-ns3-compat.h"
#include "ns3/bth-header.h"
#include "ns3/cnp-header.h"
#include "ns3/icrc-trailer.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-loss-recovery.h"
#include "ns3/reth-header.h"
#include "ns3/roce-net-device.h"
#include "ns3/sack-header.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"
#include "ns3/value-text.h"

#include <algorithm>
#include <limits>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaTransport");

namespace
{
/// \param src sending rank \param id its message id \return the receiver's key of a
///        split message
uint64_t
SplitReceiveKey(uint32_t src, uint64_t id)
{
    return (static_cast<uint64_t>(src) << 40) | (id & ((uint64_t{1} << 40) - 1));
}
} // namespace

NS_OBJECT_ENSURE_REGISTERED(RdmaTransport);

namespace
{
constexpr uint8_t UDP_PROTOCOL = 17;
constexpr uint32_t IPV4_HEADER_BYTES = 20;
constexpr uint32_t UDP_HEADER_BYTES = 8;

/// \return the LossRecovery default: go-back-N
ObjectFactory
DefaultLossRecovery()
{
    ObjectFactory factory;
    factory.SetTypeId(RdmaLossRecovery::GetTypeId());
    return factory;
}
} // namespace

TypeId
RdmaTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaTransport")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<RdmaTransport>()
            .AddAttribute("Mtu",
                          "Path MTU: payload bytes per packet (256..4096)",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&RdmaTransport::SetMtu, &RdmaTransport::GetMtu),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AckInterval",
                          "The receiver acknowledges every N in-order packets (and every "
                          "message end)",
                          UintegerValue(16),
                          MakeUintegerAccessor(&RdmaTransport::m_ackInterval),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("AckRequestInterval",
                          "A queue pair that has waited this long for progress (an ACK), or "
                          "is paced so slowly that AckInterval packets take this long, sets "
                          "the BTH AckReq bit on its packets, so it is acknowledged well "
                          "within RetransmitTimeout (at most half of it; 0: "
                          "RetransmitTimeout / 8)",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaTransport::m_ackRequestInterval),
                          MakeTimeChecker())
            .AddAttribute("InitialPsn",
                          "First PSN (24 bits) of the queue pairs this transport sends on",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaTransport::m_initialPsn),
                          MakeUintegerChecker<uint32_t>(0, 0xFFFFFF))
            .AddAttribute("RetransmitTimeout",
                          "Local ACK timeout: resend from the oldest unacknowledged PSN "
                          "(selective repeat: every PSN not SACKed; 4.096 us x 2^8 by "
                          "default)",
                          TimeValue(NanoSeconds(4096 * 256)),
                          MakeTimeAccessor(&RdmaTransport::m_rto),
                          MakeTimeChecker())
            .AddAttribute("RetryLimit",
                          "Timeouts without progress before the queue pair fails (3-bit "
                          "retry count)",
                          UintegerValue(7),
                          MakeUintegerAccessor(&RdmaTransport::m_retryLimit),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MaxBytesInFlight",
                          "Window of unacknowledged bytes per queue pair, rounded up to "
                          "whole packets of Mtu bytes (0 = no window)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaTransport::m_windowBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("DataDscp",
                          "DSCP of data packets (NIC priority = DSCP >> 3)",
                          UintegerValue(26),
                          MakeUintegerAccessor(&RdmaTransport::m_dataDscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            .AddAttribute("ControlDscp",
                          "DSCP of ACK, NAK and CNP packets (NIC priority = DSCP >> 3)",
                          UintegerValue(48),
                          MakeUintegerAccessor(&RdmaTransport::m_controlDscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            .AddAttribute("CongestionControl",
                          "The RdmaCongestionControl subclass of every queue pair: "
                          "ns3::RdmaCongestionControl (none: the line rate, suited to the "
                          "scheduled fabric) or ns3::DcqcnCongestionControl (for the "
                          "Ethernet Clos, whose switches mark ECN)",
                          TypeIdValue(RdmaCongestionControl::GetTypeId()),
                          MakeTypeIdAccessor(&RdmaTransport::m_ccType),
                          MakeTypeIdChecker())
            .AddAttribute("LossRecovery",
                          "The RdmaLossRecovery of every queue pair, with its attributes: "
                          "ns3::RdmaLossRecovery (go-back-N, as RoCE NICs), "
                          "ns3::OutOfOrderPlacementRecovery[ReorderWindow=N] (packets beyond "
                          "a gap held, losses left to the timeout) or "
                          "ns3::SelectiveRepeatRecovery[ReorderWindow=N|NakThreshold=k] "
                          "(NAKs with selective acknowledgements; only lost packets resent, "
                          "as IRN)",
                          ObjectFactoryValue(DefaultLossRecovery()),
                          MakeObjectFactoryAccessor(&RdmaTransport::m_lossRecoveryFactory),
                          MakeObjectFactoryChecker())
            .AddAttribute("EntropyChunkPackets",
                          "With EntropyValues > 1: spread a message in chunks of this many "
                          "packets, two in flight per queue pair, the next chunk to the queue "
                          "pair that completes one, so faster paths carry more (0: one equal "
                          "part per queue pair, the message as slow as its slowest path)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaTransport::m_entropyChunk),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EntropyValues",
                          "Queue pairs (each with its own UDP source port, so ECMP sees a "
                          "flow each) a connection spreads every message over: a message of "
                          "P packets goes as min(EntropyValues, P) parts of nearly equal "
                          "size, and completes when every part has",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RdmaTransport::m_entropyValues),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("CnpInterval",
                          "DCQCN notification point: at most one CNP per QP per interval",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RdmaTransport::m_cnpInterval),
                          MakeTimeChecker())
            .AddTraceSource("MessagePosted",
                            "A message was posted",
                            MakeTraceSourceAccessor(&RdmaTransport::m_messagePostedTrace),
                            "ns3::RdmaTransport::CompletionCallback")
            .AddTraceSource("MessageSent",
                            "A message completed at this sender (last ACK)",
                            MakeTraceSourceAccessor(&RdmaTransport::m_messageSentTrace),
                            "ns3::RdmaTransport::CompletionCallback")
            .AddTraceSource("MessageReceived",
                            "A message completed at this receiver (last byte in order)",
                            MakeTraceSourceAccessor(&RdmaTransport::m_messageReceivedTrace),
                            "ns3::RdmaTransport::CompletionCallback")
            .AddTraceSource("MessageFailed",
                            "A message posted here was given up, undelivered: a queue pair "
                            "carrying it failed (reported at the sender, once per message)",
                            MakeTraceSourceAccessor(&RdmaTransport::m_messageFailedTrace),
                            "ns3::RdmaTransport::CompletionCallback")
            .AddTraceSource("DataTx",
                            "A data packet was sent: qpn, PSN",
                            MakeTraceSourceAccessor(&RdmaTransport::m_dataTxTrace),
                            "ns3::RdmaTransport::QpPsnCallback")
            .AddTraceSource("Retransmit",
                            "A data packet was sent again: qpn, PSN",
                            MakeTraceSourceAccessor(&RdmaTransport::m_retransmitTrace),
                            "ns3::RdmaTransport::QpPsnCallback")
            .AddTraceSource("Timeout",
                            "The retransmission timer expired: qpn, oldest unacked PSN",
                            MakeTraceSourceAccessor(&RdmaTransport::m_timeoutTrace),
                            "ns3::RdmaTransport::QpPsnCallback")
            .AddTraceSource("NakSent",
                            "A NAK was sent: qpn, expected PSN",
                            MakeTraceSourceAccessor(&RdmaTransport::m_nakSentTrace),
                            "ns3::RdmaTransport::QpPsnCallback")
            .AddTraceSource("CnpSent",
                            "A CNP was sent: local qpn",
                            MakeTraceSourceAccessor(&RdmaTransport::m_cnpSentTrace),
                            "ns3::RdmaTransport::QpCallback")
            .AddTraceSource("CnpReceived",
                            "A CNP was received: qpn",
                            MakeTraceSourceAccessor(&RdmaTransport::m_cnpReceivedTrace),
                            "ns3::RdmaTransport::QpCallback")
            .AddTraceSource("RateChange",
                            "A QP's DCQCN rate changed: qpn, bit/s",
                            MakeTraceSourceAccessor(&RdmaTransport::m_rateTrace),
                            "ns3::RdmaTransport::QpRateCallback")
            .AddTraceSource("MalformedDrop",
                            "A received packet was malformed or not for this transport and "
                            "was dropped (counted in Stats::malformedDropped)",
                            MakeTraceSourceAccessor(&RdmaTransport::m_malformedDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("QpError",
                            "A QP failed after RetryLimit timeouts: qpn, remote rank",
                            MakeTraceSourceAccessor(&RdmaTransport::m_qpErrorTrace),
                            "ns3::RdmaTransport::QpErrorCallback");
    return tid;
}

RdmaTransport::RdmaTransport()
{
    NS_LOG_FUNCTION(this);
    m_rxHeaders.AddAtStart(RX_HEADER_BYTES);
}

RdmaTransport::~RdmaTransport() = default;

void
RdmaTransport::DoInitialize()
{
    NS_LOG_FUNCTION(this);
    Validate();
    Object::DoInitialize();
}

void
RdmaTransport::DoDispose()
{
    NS_LOG_FUNCTION(this);
    // Removed, not only cancelled: a disposed transport leaves no event behind (a
    // cancelled one would still advance the clock to its time).
    for (auto& qp : m_qps)
    {
        Simulator::Remove(qp->rtoEvent);
        qp->cc->Dispose();
    }
    m_qps.clear();
    m_lossRecovery = nullptr;
    m_qpByPeer.clear();
    m_splitSends.clear();
    m_splitReceives.clear();
    m_failureCallbacks.clear();
    m_ring.clear();
    Simulator::Remove(m_wakeEvent);
    if (m_device)
    {
        // The device must not call back into a disposed transport.
        m_device->SetPullCallback(m_dataPriority, RoceNetDevice::PullCallback());
        m_device->SetReceiveCallback(NetDevice::ReceiveCallback());
    }
    if (m_table)
    {
        m_table->transports.clear(); // breaks the transport <-> table cycle
        m_table = nullptr;
    }
    m_device = nullptr;
    m_receiveCallback = RdmaCompletionCallback();
    Object::DoDispose();
}

void
RdmaTransport::SetMtu(uint32_t mtu)
{
    NS_LOG_FUNCTION(this << mtu);
    NS_ABORT_MSG_IF(mtu < MIN_PATH_MTU || mtu > MAX_PATH_MTU,
                    "RdmaTransport: Mtu " << mtu << " is outside " << MIN_PATH_MTU << ".."
                                          << MAX_PATH_MTU);
    NS_ABORT_MSG_IF(!m_qps.empty(),
                    "RdmaTransport: Mtu " << mtu << " cannot change after queue pairs exist");
    m_mtu = mtu;
}

uint32_t
RdmaTransport::GetMtu() const
{
    return m_mtu;
}

namespace
{
/**
 * \param mtu the transport's Mtu \param rto its RetransmitTimeout \param rate a host
 * link rate \return why that rate times out every packet, or ""
 */
std::string
FindTimeoutProblem(uint32_t mtu, Time rto, DataRate rate)
{
    const uint32_t wireBytes = mtu + RdmaTransport::HEADER_BYTES + RethHeader::SIZE +
                               RoceNetDevice::ETHERNET_HEADER_BYTES +
                               RoceNetDevice::WIRE_EXTRA_BYTES;
    // Two host links, store and forward, before an ACK can leave (see the header).
    const Time twoFrames = 2 * rate.CalculateBytesTxTime(wireBytes);
    if (twoFrames < rto)
    {
        return "";
    }
    std::ostringstream problem;
    problem << "a full RDMA frame (" << wireBytes << " B on the wire) takes "
            << twoFrames.As(Time::US) << " over the sender's and the receiver's host links at "
            << ShowDataRate(rate) << ", not below the transport's RetransmitTimeout "
            << rto.As(Time::US) << ": every packet would time out";
    return problem.str();
}
} // namespace

std::string
RdmaTransport::FindLinkRateProblem(DataRate rate)
{
    if (rate.GetBitRate() == 0)
    {
        return ""; // the cluster refuses a zero rate by its own name
    }
    // A transport made now has the attribute defaults, command-line ones included.
    Ptr<RdmaTransport> defaults = CreateObject<RdmaTransport>();
    return FindTimeoutProblem(defaults->m_mtu, defaults->m_rto, rate);
}

void
RdmaTransport::Validate() const
{
    NS_ABORT_MSG_IF(!m_rto.IsStrictlyPositive(),
                    "RdmaTransport: RetransmitTimeout " << m_rto << " must be > 0");
    NS_ABORT_MSG_IF(m_cnpInterval.IsStrictlyNegative(),
                    "RdmaTransport: CnpInterval " << m_cnpInterval << " must be >= 0");
    NS_ABORT_MSG_IF(m_ackInterval == 0, "RdmaTransport: AckInterval 0 must be >= 1");
    NS_ABORT_MSG_IF(m_entropyValues == 0 || m_entropyValues > 255,
                    "RdmaTransport: EntropyValues " << m_entropyValues << " must be in 1..255");
    CreateLossRecovery()->Validate();
    NS_ABORT_MSG_IF(m_ackRequestInterval.IsStrictlyNegative() || m_ackRequestInterval >= m_rto,
                    "RdmaTransport: AckRequestInterval "
                        << m_ackRequestInterval << " must be in [0, RetransmitTimeout " << m_rto
                        << ")");
    if (m_device)
    {
        uint32_t ipBytes = m_mtu + HEADER_BYTES + RethHeader::SIZE;
        NS_ABORT_MSG_IF(ipBytes > m_device->GetMtu(),
                        "RdmaTransport: Mtu " << m_mtu << " needs an IPv4 MTU of " << ipBytes
                                              << " but the RoceNetDevice Mtu is "
                                              << m_device->GetMtu());
        const std::string timeout = FindTimeoutProblem(m_mtu, m_rto, m_device->GetDataRate());
        NS_ABORT_MSG_IF(!timeout.empty(), "RdmaTransport: " << timeout);
    }
    NS_ABORT_MSG_IF(!m_ccType.IsChildOf(RdmaCongestionControl::GetTypeId()) &&
                        m_ccType != RdmaCongestionControl::GetTypeId(),
                    "RdmaTransport: CongestionControl " << m_ccType.GetName()
                                                        << " is not an RdmaCongestionControl");
    if (m_device)
    {
        // A first instance checks the control's attributes before anything runs.
        CreateCongestionControl()->Install(
            static_cast<double>(m_device->GetDataRate().GetBitRate()),
            Simulator::Now(),
            RdmaCongestionControl::RateChangeCallback());
    }
}

Ptr<RdmaLossRecovery>
RdmaTransport::CreateLossRecovery() const
{
    const TypeId tid = m_lossRecoveryFactory.GetTypeId();
    NS_ABORT_MSG_IF(
        tid != RdmaLossRecovery::GetTypeId() && !tid.IsChildOf(RdmaLossRecovery::GetTypeId()),
        "RdmaTransport: LossRecovery " << tid.GetName() << " is not an RdmaLossRecovery");
    return m_lossRecoveryFactory.Create<RdmaLossRecovery>();
}

Ptr<RdmaCongestionControl>
RdmaTransport::CreateCongestionControl() const
{
    ObjectFactory factory;
    factory.SetTypeId(m_ccType);
    for (const auto& [name, value] : m_ccAttributes)
    {
        factory.Set(name, *value);
    }
    return factory.Create<RdmaCongestionControl>();
}

void
RdmaTransport::SetCongestionControlAttribute(const std::string& name, const AttributeValue& value)
{
    NS_LOG_FUNCTION(this << name);
    TypeId::AttributeInformation info;
    NS_ABORT_MSG_IF(!m_ccType.LookupAttributeByName(name, &info),
                    "RdmaTransport: the congestion control " << m_ccType.GetName()
                                                             << " has no attribute " << name
                                                             << " (set CongestionControl first)");
    m_ccAttributes.emplace_back(name, value.Copy());
}

uint32_t
RdmaTransport::GetWindowPackets(const RdmaQueuePair& qp) const
{
    const uint32_t cc = qp.cc->GetWindowPackets();
    if (cc == 0 || m_windowPackets == 0)
    {
        return cc == 0 ? m_windowPackets : cc;
    }
    return static_cast<uint32_t>(std::min<uint64_t>(cc, m_windowPackets));
}

void
RdmaTransport::OnRateChange(uint32_t qpn, double rate)
{
    NS_LOG_FUNCTION(this << qpn << rate);
    m_rateTrace(qpn, rate);
}

void
RdmaTransport::SetDevice(Ptr<RoceNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    NS_ABORT_MSG_IF(!device, "RdmaTransport: SetDevice needs a RoceNetDevice");
    m_device = device;
    m_dataPriority = RoceNetDevice::PriorityFromDscp(m_dataDscp);
    NS_ABORT_MSG_IF(m_dataPriority == RoceNetDevice::PriorityFromDscp(m_controlDscp),
                    "RdmaTransport: DataDscp " << +m_dataDscp << " and ControlDscp "
                                               << +m_controlDscp
                                               << " map to the same NIC priority");
    m_device->SetReceiveCallback(MakeCallback(&RdmaTransport::Receive, this));
    m_device->SetPullCallback(m_dataPriority, MakeCallback(&RdmaTransport::PullData, this));
    Validate();
}

Ptr<RoceNetDevice>
RdmaTransport::GetDevice() const
{
    return m_device;
}

void
RdmaTransport::SetRankTable(uint32_t rank, std::shared_ptr<RankTable> table)
{
    NS_LOG_FUNCTION(this << rank);
    NS_ABORT_MSG_IF(!table || rank >= table->transports.size(),
                    "RdmaTransport: rank " << rank << " is not in the rank table");
    m_rank = rank;
    m_table = table;
}

uint32_t
RdmaTransport::GetRank() const
{
    return m_rank;
}

uint32_t
RdmaTransport::GetNRanks() const
{
    return m_table ? static_cast<uint32_t>(m_table->transports.size()) : 0;
}

void
RdmaTransport::SetReceiveCallback(RdmaCompletionCallback cb)
{
    m_receiveCallback = cb;
}

const RdmaTransport::Stats&
RdmaTransport::GetStats() const
{
    return m_stats;
}

uint32_t
RdmaTransport::GetNQueuePairs() const
{
    return static_cast<uint32_t>(m_qps.size());
}

const RdmaQueuePair&
RdmaTransport::GetQueuePair(uint32_t qpn) const
{
    NS_ABORT_MSG_IF(qpn >= m_qps.size(), "RdmaTransport: no queue pair " << qpn);
    return *m_qps[qpn];
}

uint32_t
RdmaTransport::FindQueuePair(uint32_t dstRank, uint32_t connection) const
{
    auto it = m_qpByPeer.find(PeerKey(dstRank, connection));
    return it == m_qpByPeer.end() ? std::numeric_limits<uint32_t>::max() : it->second;
}

uint64_t
RdmaTransport::PeerKey(uint32_t remoteRank, uint32_t connection, uint32_t entropy)
{
    // Ranks and queue pair numbers are below 2^24, entropy values below 2^8.
    return (static_cast<uint64_t>(entropy) << 56) | (static_cast<uint64_t>(remoteRank) << 32) |
           connection;
}

bool
RdmaTransport::CompletePart(std::unordered_map<uint64_t, SplitMessage>& splits,
                            uint64_t key,
                            RdmaCompletion& info,
                            RdmaCompletionCallback& cb)
{
    auto it = splits.find(key);
    NS_ABORT_MSG_IF(it == splits.end(), "RdmaTransport: a part of an unknown split message");
    if (--it->second.partsLeft > 0)
    {
        return false;
    }
    info.size = it->second.size;
    info.connection = it->second.connection;
    cb = it->second.cb;
    splits.erase(it);
    return true;
}

double
RdmaTransport::GetQpRate(uint32_t qpn) const
{
    const RdmaQueuePair& qp = GetQueuePair(qpn);
    return qp.cc->GetRate();
}

Ptr<RdmaCongestionControl>
RdmaTransport::GetQpCongestionControl(uint32_t qpn) const
{
    return GetQueuePair(qpn).cc;
}

uint32_t
RdmaTransport::CreateQp(uint32_t remoteRank, uint32_t connection, uint32_t entropy)
{
    NS_LOG_FUNCTION(this << remoteRank << connection << entropy);
    NS_ABORT_MSG_IF(!m_device, "RdmaTransport (rank " << m_rank << "): no RoceNetDevice set");
    auto qpn = static_cast<uint32_t>(m_qps.size());
    NS_ABORT_MSG_IF(qpn + QPN_BASE > 0xFFFFFF, "RdmaTransport: more than 2^24 queue pairs");
    m_lineRateBps = static_cast<double>(m_device->GetDataRate().GetBitRate());
    m_windowPackets = (m_windowBytes + m_mtu - 1) / m_mtu;
    auto qp = std::make_unique<RdmaQueuePair>(qpn, m_rank, remoteRank, m_mtu);
    // Flow entropy for ECMP in 0xC000-0xFFFF, fixed per QP.
    uint32_t h = (m_rank * 2654435761u) ^ (remoteRank * 40503u) ^ (qpn * 97u);
    qp->udpSourcePort = static_cast<uint16_t>(0xC000 | ((h ^ (h >> 14)) & 0x3FFF));
    if (!m_lossRecovery)
    {
        m_lossRecovery = CreateLossRecovery();
    }
    qp->SetReorderWindow(m_lossRecovery->GetReorderWindow());
    qp->SetNakThreshold(m_lossRecovery->GetNakThreshold());
    qp->cc = CreateCongestionControl();
    qp->cc->Install(m_lineRateBps,
                    Simulator::Now(),
                    MakeCallback(&RdmaTransport::OnRateChange, this, qpn));
    m_ccUsesCnp = qp->cc->UsesCnp();
    m_ccUsesRtt = qp->cc->UsesRtt();
    m_qps.push_back(std::move(qp));
    m_qpByPeer[PeerKey(remoteRank, connection, entropy)] = qpn;
    return qpn;
}

uint32_t
RdmaTransport::GetOrCreateQp(uint32_t dstRank, uint32_t connection, uint32_t entropy)
{
    auto it = m_qpByPeer.find(PeerKey(dstRank, connection, entropy));
    if (it != m_qpByPeer.end())
    {
        return it->second;
    }
    Ptr<RdmaTransport> remote = m_table->transports[dstRank];
    NS_ABORT_MSG_IF(!remote, "RdmaTransport: rank " << dstRank << " has no transport");
    uint32_t local = CreateQp(dstRank, connection, entropy);
    uint32_t far = remote->CreateQp(m_rank, connection, entropy);
    m_qps[local]->SetRemoteQpn(far);
    remote->m_qps[far]->SetRemoteQpn(local);
    m_qps[local]->SetInitialPsns(m_initialPsn, remote->m_initialPsn);
    remote->m_qps[far]->SetInitialPsns(remote->m_initialPsn, m_initialPsn);
    NS_LOG_INFO("rank " << m_rank << " qp " << local << " <-> rank " << dstRank << " qp " << far
                        << " (connection " << connection << ")");
    return local;
}

uint64_t
RdmaTransport::PostMessage(uint32_t dstRank,
                           uint64_t size,
                           uint64_t tag,
                           RdmaCompletionCallback onSent,
                           RdmaCompletionCallback onReceived,
                           uint32_t connection,
                           RdmaCompletionCallback onFailed)
{
    NS_LOG_FUNCTION(this << dstRank << size << tag << connection);
    NS_ABORT_MSG_IF(!m_table, "RdmaTransport: PostMessage before the rank table was set");
    NS_ABORT_MSG_IF(size == 0,
                    "RdmaTransport: message size 0 from rank " << m_rank << " to rank " << dstRank
                                                               << " is not allowed");
    NS_ABORT_MSG_IF(dstRank >= m_table->transports.size(),
                    "RdmaTransport: destination rank " << dstRank << " is unknown (ranks 0.."
                                                       << m_table->transports.size() - 1 << ")");
    NS_ABORT_MSG_IF(dstRank == m_rank,
                    "RdmaTransport: destination rank " << dstRank << " is the sending rank itself");
    NS_ABORT_MSG_IF(m_entropyValues == 0 || m_entropyValues > 255,
                    "RdmaTransport: EntropyValues " << m_entropyValues << " must be in 1..255");
    RdmaCompletion info;
    info.srcRank = m_rank;
    info.dstRank = dstRank;
    info.connection = connection;
    info.size = size;
    info.tag = tag;
    info.id = m_nextMessageId++;
    info.postTime = Simulator::Now();
    const uint64_t packets = (size + m_mtu - 1) / m_mtu;
    const bool chunked = m_entropyValues > 1 && m_entropyChunk > 0 && packets > m_entropyChunk;
    info.parts = chunked ? static_cast<uint32_t>((packets + m_entropyChunk - 1) / m_entropyChunk)
                         : static_cast<uint32_t>(std::min<uint64_t>(m_entropyValues, packets));
    if (!onFailed.IsNull())
    {
        m_failureCallbacks[info.id] = onFailed;
    }
    if (info.parts == 1)
    {
        PostPart(info, 0, 0, packets, onSent, onReceived);
    }
    else
    {
        NS_LOG_LOGIC("message " << info.id << " spread as " << info.parts << " parts");
        m_table->transports[dstRank]->m_splitReceives[SplitReceiveKey(m_rank, info.id)] =
            SplitMessage{info.parts, size, connection, onReceived, info, packets, 0};
        SplitMessage& split = m_splitSends[info.id] =
            SplitMessage{info.parts, size, connection, onSent, info, packets, 0};
        if (chunked)
        {
            // Two chunks in flight on each queue pair to start with.
            for (uint32_t round = 0; round < 2; ++round)
            {
                for (uint32_t k = 0; k < m_entropyValues && split.nextPacket < packets; ++k)
                {
                    PostChunk(split, k);
                }
            }
        }
        else
        {
            // Parts of nearly equal size, one per queue pair.
            for (uint32_t k = 0; k < info.parts; ++k)
            {
                PostPart(info,
                         k,
                         packets * k / info.parts,
                         packets * (k + 1) / info.parts,
                         RdmaCompletionCallback(),
                         RdmaCompletionCallback());
            }
            split.nextPacket = packets; // nothing left to post
        }
    }
    ++m_stats.messagesPosted;
    m_stats.bytesPosted += size;
    m_messagePostedTrace(info);
    return info.id;
}

void
RdmaTransport::PostChunk(SplitMessage& split, uint32_t entropy)
{
    NS_LOG_FUNCTION(this << entropy);
    const uint64_t first = split.nextPacket;
    split.nextPacket = std::min(split.packets, first + m_entropyChunk);
    PostPart(split.info,
             entropy,
             first,
             split.nextPacket,
             RdmaCompletionCallback(),
             RdmaCompletionCallback());
}

void
RdmaTransport::PostPart(RdmaCompletion part,
                        uint32_t entropy,
                        uint64_t firstPacket,
                        uint64_t endPacket,
                        RdmaCompletionCallback onSent,
                        RdmaCompletionCallback onReceived)
{
    NS_LOG_FUNCTION(this << part.id << entropy << firstPacket << endPacket);
    // Whole packets but the message's last.
    part.entropy = entropy;
    part.size = std::min(part.size, endPacket * m_mtu) - firstPacket * m_mtu;
    NS_LOG_LOGIC("message " << part.id << ": " << part.size << " B on queue pair " << entropy
                            << " of its connection");
    RdmaQueuePair& qp = *m_qps[GetOrCreateQp(part.dstRank, part.connection, entropy)];
    if (qp.failed)
    {
        // A queue pair in its error state flushes what is posted on it.
        NS_LOG_LOGIC("message " << part.id << ": queue pair " << qp.GetQpn()
                                << " has failed, the part is given up");
        Simulator::ScheduleNow(&RdmaTransport::FailPart, Ptr<RdmaTransport>(this), part);
        return;
    }
    qp.PostSend(part, onSent);
    // The matching receive descriptor, consumed in order at the far end.
    m_table->transports[part.dstRank]->m_qps[qp.GetRemoteQpn()]->PostReceive(part, onReceived);
    Activate(qp);
}

void
RdmaTransport::Activate(RdmaQueuePair& qp)
{
    if (!qp.inRing && qp.HasSendable(GetWindowPackets(qp)))
    {
        qp.inRing = true;
        m_ring.push_back(qp.GetQpn());
    }
    if (!m_ring.empty())
    {
        m_device->NotifyTxReady();
    }
}

void
RdmaTransport::ScheduleWake(Time at)
{
    if (ai_fabric::IsPending(m_wakeEvent) &&
        m_wakeEvent.GetTs() <= static_cast<uint64_t>(at.GetTimeStep()))
    {
        return;
    }
    m_wakeEvent.Cancel();
    m_wakeEvent = Simulator::Schedule(at - Simulator::Now(), &RdmaTransport::Wake, this);
}

void
RdmaTransport::Wake()
{
    NS_LOG_FUNCTION(this);
    m_device->NotifyTxReady();
}

Ptr<Packet>
RdmaTransport::PullData(uint8_t priority)
{
    NS_LOG_FUNCTION(this << +priority);
    if (priority != m_dataPriority)
    {
        return nullptr;
    }
    Time now = Simulator::Now();
    Time earliest = Time::Max();
    std::size_t n = m_ring.size();
    for (std::size_t i = 0; i < n; ++i)
    {
        uint32_t qpn = m_ring.front();
        m_ring.pop_front();
        RdmaQueuePair& qp = *m_qps[qpn];
        const uint32_t window = GetWindowPackets(qp);
        if (!qp.HasSendable(window))
        {
            qp.inRing = false;
            continue;
        }
        if (qp.nextSendTime > now)
        {
            earliest = std::min(earliest, qp.nextSendTime);
            m_ring.push_back(qpn);
            continue;
        }
        bool wasIdle = !qp.HasOutstanding();
        RdmaQueuePair::Segment s = qp.NextSegment();
        // Pace at the QP's rate: the frame's wire bytes at RC.
        const double rate = qp.cc->GetRate();
        const Time gap = rate < m_lineRateBps ? Seconds(GetWireBytes(s) * 8.0 / rate) : Time(0);
        // Ask for an ACK at once (besides every AckInterval packets and at message
        // end) when this packet fills the window, when the QP is paced so slowly
        // that AckInterval packets would take AckRequestInterval, or when it has
        // waited that long for progress (a QP slowed by a shared NIC or by PFC).
        // Otherwise the timer could expire while the receiver collects packets.
        const Time ackRequestInterval =
            m_ackRequestInterval.IsZero() ? m_rto / 8 : m_ackRequestInterval;
        const bool ackRequest =
            (window > 0 && qp.GetSndNxt() - qp.GetSndUna() >= window) ||
            gap.GetSeconds() * m_ackInterval >= ackRequestInterval.GetSeconds() ||
            (ai_fabric::IsPending(qp.rtoEvent) &&
             now - (qp.rtoDeadline - m_rto) >= ackRequestInterval);
        Ptr<Packet> packet = BuildData(qp, s, ackRequest);
        if (m_ccUsesRtt && !s.retransmission)
        {
            qp.sendTimes.emplace_back(s.psn, now);
        }
        qp.nextSendTime = now + gap;
        qp.cc->OnSend(packet->GetSize(), now);
        if (qp.HasSendable(window))
        {
            m_ring.push_back(qpn);
        }
        else
        {
            qp.inRing = false;
        }
        ++m_stats.dataPacketsSent;
        m_dataTxTrace(qpn, s.psn);
        if (s.retransmission)
        {
            ++m_stats.retransmittedPackets;
            m_retransmitTrace(qpn, s.psn);
        }
        if (wasIdle || !ai_fabric::IsPending(qp.rtoEvent))
        {
            ArmTimer(qp); // the timer measures from the oldest unacknowledged packet
        }
        return packet;
    }
    if (earliest != Time::Max())
    {
        ScheduleWake(earliest);
    }
    return nullptr;
}

void
RdmaTransport::AddIpUdp(Ptr<Packet> packet, const RdmaQueuePair& qp, uint8_t dscp, uint8_t ecn)
{
    UdpHeader udp; // checksum 0: allowed for RoCEv2
    udp.SetSourcePort(qp.udpSourcePort);
    udp.SetDestinationPort(ROCE_UDP_PORT);
    packet->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(m_table->addresses[m_rank]);
    ip.SetDestination(m_table->addresses[qp.GetRemoteRank()]);
    ip.SetProtocol(UDP_PROTOCOL);
    ip.SetPayloadSize(packet->GetSize());
    ip.SetTtl(64);
    ip.SetDontFragment();
    ip.SetDscp(static_cast<Ipv4Header::DscpType>(dscp));
    ip.SetEcn(static_cast<Ipv4Header::EcnType>(ecn));
    ip.EnableChecksum();
    packet->AddHeader(ip);
}

uint64_t
RdmaTransport::GetWireBytes(const RdmaQueuePair::Segment& s)
{
    const bool reth = s.opcode == BthHeader::RC_WRITE_FIRST || s.opcode == BthHeader::RC_WRITE_ONLY;
    const uint64_t ipBytes = s.payload + HEADER_BYTES + (reth ? RethHeader::SIZE : 0);
    return std::max<uint64_t>(ipBytes + RoceNetDevice::ETHERNET_HEADER_BYTES,
                              RoceNetDevice::MIN_FRAME_BYTES) +
           RoceNetDevice::WIRE_EXTRA_BYTES;
}

Ptr<Packet>
RdmaTransport::BuildData(RdmaQueuePair& qp, const RdmaQueuePair::Segment& s, bool ackRequest)
{
    Ptr<Packet> packet = Create<Packet>(s.payload); // zero bytes, never materialised
    packet->AddTrailer(IcrcTrailer());
    if (s.opcode == BthHeader::RC_WRITE_FIRST || s.opcode == BthHeader::RC_WRITE_ONLY)
    {
        RethHeader reth;
        reth.SetVirtualAddress(s.offset);
        reth.SetRKey(qp.GetRemoteQpn());
        // DMA length is 32 bits on the wire; larger messages saturate it.
        reth.SetDmaLength(static_cast<uint32_t>(
            std::min<uint64_t>(s.messageSize, std::numeric_limits<uint32_t>::max())));
        packet->AddHeader(reth);
    }
    BthHeader bth;
    bth.SetOpcode(s.opcode);
    bth.SetDestQp(qp.GetRemoteQpn() + QPN_BASE);
    bth.SetPsn(static_cast<uint32_t>(s.psn));
    bth.SetAckReq(ackRequest || s.opcode == BthHeader::RC_WRITE_LAST ||
                  s.opcode == BthHeader::RC_WRITE_ONLY);
    packet->AddHeader(bth);
    AddIpUdp(packet, qp, m_dataDscp, Ipv4Header::ECN_ECT0);
    NS_LOG_LOGIC("rank " << m_rank << " qp " << qp.GetQpn() << ": data packet " << packet->GetUid()
                         << ", PSN " << s.psn << ", " << s.payload << " B at offset " << s.offset
                         << (s.retransmission ? ", a retransmission" : ""));
    return packet;
}

void
RdmaTransport::SendControl(Ptr<Packet> packet, const RdmaQueuePair& qp)
{
    AddIpUdp(packet, qp, m_controlDscp, Ipv4Header::ECN_NotECT);
    m_device->Send(packet, Address(), RoceNetDevice::IPV4_PROTOCOL);
}

void
RdmaTransport::SendAck(RdmaQueuePair& qp, bool nak)
{
    NS_LOG_FUNCTION(this << qp.GetQpn() << nak);
    uint64_t expected = qp.GetExpectedPsn();
    Ptr<Packet> packet = Create<Packet>();
    packet->AddTrailer(IcrcTrailer());
    AethHeader aeth;
    aeth.SetSyndrome(nak ? AethHeader::NAK_PSN_ERROR : AethHeader::ACK_UNLIMITED);
    aeth.SetMsn(static_cast<uint32_t>(qp.GetMsn()));
    if (qp.IsSelectiveRepeat() && qp.GetHeldCount() > 0)
    {
        // What is held beyond the gap, so the sender resends only what is missing.
        const RdmaQueuePair::SackInfo info = qp.GetSack();
        SackHeader sack;
        sack.SetBasePsn(static_cast<uint32_t>(info.basePsn));
        sack.SetBitmap(info.bitmap);
        packet->AddHeader(sack);
    }
    packet->AddHeader(aeth);
    BthHeader bth;
    bth.SetOpcode(BthHeader::RC_ACKNOWLEDGE);
    bth.SetDestQp(qp.GetRemoteQpn() + QPN_BASE);
    // ACK: last PSN received in order; NAK: the PSN expected.
    bth.SetPsn(static_cast<uint32_t>(nak ? expected : expected - 1));
    packet->AddHeader(bth);
    SendControl(packet, qp);
    qp.rxSinceAck = 0;
    if (nak)
    {
        ++m_stats.naksSent;
        NS_LOG_LOGIC("rank " << m_rank << " qp " << qp.GetQpn() << ": NAK, expects PSN "
                             << expected);
        m_nakSentTrace(qp.GetQpn(), expected);
    }
    else
    {
        ++m_stats.acksSent;
    }
}

void
RdmaTransport::SendCnp(RdmaQueuePair& qp)
{
    NS_LOG_FUNCTION(this << qp.GetQpn());
    Ptr<Packet> packet = Create<Packet>();
    packet->AddTrailer(IcrcTrailer());
    packet->AddHeader(CnpHeader());
    BthHeader bth;
    bth.SetOpcode(BthHeader::CNP);
    bth.SetBecn(true);
    bth.SetDestQp(qp.GetRemoteQpn() + QPN_BASE);
    packet->AddHeader(bth);
    NS_LOG_LOGIC("rank " << m_rank << " qp " << qp.GetQpn() << ": CE received, CNP "
                         << packet->GetUid() << " to rank " << qp.GetRemoteRank());
    SendControl(packet, qp);
    qp.lastCnpSent = Simulator::Now();
    ++m_stats.cnpsSent;
    m_cnpSentTrace(qp.GetQpn());
}

bool
RdmaTransport::DropMalformed(Ptr<const Packet> packet, const char* reason)
{
    NS_LOG_WARN("rank " << m_rank << ": malformed packet of " << packet->GetSize()
                        << " B dropped: " << reason);
    ++m_stats.malformedDropped;
    m_malformedDropTrace(packet);
    return true;
}

bool
RdmaTransport::Receive(Ptr<NetDevice> device,
                       Ptr<const Packet> packet,
                       uint16_t protocol,
                       const Address& from)
{
    NS_LOG_FUNCTION(this << device << packet << protocol << from);
    Ipv4Header ip;
    BthHeader bth;
    Buffer::Iterator afterBth;
    uint32_t rest = 0;
    if (const char* malformed = ParseHeaders(packet, protocol, ip, bth, afterBth, rest))
    {
        return DropMalformed(packet, malformed);
    }
    RdmaQueuePair& qp = *m_qps[bth.GetDestQp() - QPN_BASE];
    switch (bth.GetOpcode())
    {
    case BthHeader::RC_ACKNOWLEDGE:
        ReceiveAcknowledge(packet, qp, bth, afterBth, rest);
        break;
    case BthHeader::CNP:
        ReceiveCnp(packet, qp, rest);
        break;
    case BthHeader::RC_WRITE_FIRST:
    case BthHeader::RC_WRITE_MIDDLE:
    case BthHeader::RC_WRITE_LAST:
    case BthHeader::RC_WRITE_ONLY:
        ReceiveWrite(packet, qp, ip, bth, rest);
        break;
    default:
        return DropMalformed(packet, "unsupported BTH opcode");
    }
    return true;
}

const char*
RdmaTransport::ParseHeaders(const Ptr<const Packet>& packet,
                            uint16_t protocol,
                            Ipv4Header& ip,
                            BthHeader& bth,
                            Buffer::Iterator& afterBth,
                            uint32_t& rest)
{
    NS_LOG_FUNCTION(this << packet << protocol);
    if (protocol != RoceNetDevice::IPV4_PROTOCOL)
    {
        return "not IPv4";
    }
    // Every length is checked before the header that needs it is removed: a short
    // frame must be counted, never parsed past its end.
    if (packet->GetSize() < IPV4_HEADER_BYTES)
    {
        return "shorter than an IPv4 header";
    }
    uint8_t versionIhl = 0;
    packet->CopyData(&versionIhl, 1);
    uint32_t ipHeaderBytes = 4u * (versionIhl & 0x0F);
    if ((versionIhl >> 4) != 4 || ipHeaderBytes < IPV4_HEADER_BYTES ||
        ipHeaderBytes > packet->GetSize())
    {
        return "bad IPv4 version or header length";
    }
    // The headers are read from a copy of their bytes in a reusable buffer: no
    // packet copy and no allocation per received frame.
    uint32_t parsed = std::min<uint32_t>(packet->GetSize(), RX_HEADER_BYTES);
    packet->CopyData(m_rxBytes.data(), parsed);
    Buffer::Iterator it = m_rxHeaders.Begin();
    it.Write(m_rxBytes.data(), parsed);
    it = m_rxHeaders.Begin();
    it.Next(ip.Deserialize(it));
    uint32_t left = packet->GetSize() - ipHeaderBytes; // bytes after the IPv4 header
    if (ip.GetProtocol() != UDP_PROTOCOL)
    {
        return "not UDP";
    }
    if (ip.GetPayloadSize() != left)
    {
        return "IPv4 total length does not match the frame";
    }
    if (left < UDP_HEADER_BYTES + BthHeader::SIZE + IcrcTrailer::SIZE)
    {
        return "too short for UDP, BTH and ICRC";
    }
    UdpHeader udp;
    it.Next(udp.Deserialize(it));
    if (udp.GetDestinationPort() != ROCE_UDP_PORT)
    {
        return "not UDP port 4791";
    }
    it.Next(bth.Deserialize(it));
    left -= UDP_HEADER_BYTES + BthHeader::SIZE;
    if (bth.GetDestQp() < QPN_BASE || bth.GetDestQp() - QPN_BASE >= m_qps.size())
    {
        return "unknown destination QP";
    }
    afterBth = it;
    rest = left;
    return nullptr;
}

void
RdmaTransport::ReceiveAcknowledge(const Ptr<const Packet>& packet,
                                  RdmaQueuePair& qp,
                                  const BthHeader& bth,
                                  Buffer::Iterator it,
                                  uint32_t rest)
{
    NS_LOG_FUNCTION(this << packet << qp.GetQpn() << bth.GetPsn());
    // A selective-repeat receiver holding packets adds a SACK after the AETH.
    const bool withSack = rest == AethHeader::SIZE + SackHeader::SIZE + IcrcTrailer::SIZE;
    if (rest != AethHeader::SIZE + IcrcTrailer::SIZE && !withSack)
    {
        DropMalformed(packet, "Acknowledge without AETH and ICRC");
        return;
    }
    if (qp.failed)
    {
        NS_LOG_LOGIC("rank " << m_rank << " qp " << qp.GetQpn() << ": acknowledgement "
                             << packet->GetUid() << " to a failed queue pair, ignored");
        return;
    }
    AethHeader aeth;
    it.Next(aeth.Deserialize(it));
    bool nak = aeth.IsNak();
    SackHeader sack;
    if (withSack)
    {
        sack.Deserialize(it);
    }
    NS_LOG_LOGIC("rank " << m_rank << " qp " << qp.GetQpn() << ": " << (nak ? "NAK" : "ACK") << " "
                         << packet->GetUid() << ", PSN " << bth.GetPsn() << ", SACK base "
                         << sack.GetBasePsn() << " bitmap " << sack.GetBitmap());
    nak ? ++m_stats.naksReceived : ++m_stats.acksReceived;
    Time now = Simulator::Now();
    // Reused between ACKs (no allocation per ACK); Receive never re-enters itself.
    auto& done = m_completedSends;
    done.clear();
    const uint64_t unaBefore = qp.GetSndUna();
    bool progress = qp.OnAck(bth.GetPsn(), nak, done, sack.GetBasePsn(), sack.GetBitmap());
    // RTT sample: the newest first transmission the ACK covers (Karn's rule:
    // after a go-back-N the retransmitted PSNs give none).
    Time rtt(-1);
    while (!qp.sendTimes.empty() && qp.sendTimes.front().first < qp.GetSndUna())
    {
        rtt = now - qp.sendTimes.front().second;
        qp.sendTimes.pop_front();
    }
    if (nak)
    {
        qp.sendTimes.clear();
    }
    if (progress)
    {
        qp.retries = 0;
        qp.rtoDeadline = now + m_rto;
        qp.cc->OnAck(qp.GetSndUna() - unaBefore, rtt, now);
    }
    CompleteSends(done);
    Activate(qp);
}

void
RdmaTransport::ReceiveCnp(const Ptr<const Packet>& packet, RdmaQueuePair& qp, uint32_t rest)
{
    NS_LOG_FUNCTION(this << packet << qp.GetQpn());
    if (rest != CnpHeader::SIZE + IcrcTrailer::SIZE)
    {
        DropMalformed(packet, "CNP without its 16 reserved bytes and ICRC");
        return;
    }
    NS_LOG_LOGIC("rank " << m_rank << " qp " << qp.GetQpn() << ": CNP " << packet->GetUid());
    ++m_stats.cnpsReceived;
    m_cnpReceivedTrace(qp.GetQpn());
    qp.cc->OnCnp(Simulator::Now());
}

void
RdmaTransport::ReceiveWrite(const Ptr<const Packet>& packet,
                            RdmaQueuePair& qp,
                            const Ipv4Header& ip,
                            const BthHeader& bth,
                            uint32_t rest)
{
    NS_LOG_FUNCTION(this << packet << qp.GetQpn() << bth.GetPsn());
    const uint8_t opcode = bth.GetOpcode();
    // WRITE First and Only carry a RETH; messages have at least one byte, so every
    // data packet carries one.
    const bool withReth = opcode == BthHeader::RC_WRITE_FIRST || opcode == BthHeader::RC_WRITE_ONLY;
    if (withReth && (rest < RethHeader::SIZE + IcrcTrailer::SIZE + 1 ||
                     rest > RethHeader::SIZE + IcrcTrailer::SIZE + MAX_PATH_MTU))
    {
        DropMalformed(packet, "WRITE First/Only without RETH, payload and ICRC");
        return;
    }
    if (!withReth && (rest < IcrcTrailer::SIZE + 1 || rest > IcrcTrailer::SIZE + MAX_PATH_MTU))
    {
        DropMalformed(packet, "WRITE Middle/Last without payload and ICRC");
        return;
    }
    // The RETH is not needed: the receive descriptor knows the message; the length
    // checks above guarantee no underflow here.
    uint32_t payload = rest - IcrcTrailer::SIZE;
    if (withReth)
    {
        payload -= RethHeader::SIZE;
    }

    // Notification point: CNP on CE, at most one per QP per CnpInterval.
    NS_LOG_LOGIC("rank " << m_rank << " qp " << qp.GetQpn() << ": data packet " << packet->GetUid()
                         << ", PSN " << bth.GetPsn() << ", " << payload << " B"
                         << (ip.GetEcn() == Ipv4Header::ECN_CE ? ", CE" : ""));
    if (ip.GetEcn() == Ipv4Header::ECN_CE)
    {
        ++m_stats.ceReceived;
        if (m_ccUsesCnp &&
            (qp.lastCnpSent.IsNegative() || Simulator::Now() - qp.lastCnpSent >= m_cnpInterval))
        {
            SendCnp(qp);
        }
    }

    bool last = opcode == BthHeader::RC_WRITE_LAST || opcode == BthHeader::RC_WRITE_ONLY;
    const uint64_t expectedBefore = qp.GetExpectedPsn();
    const uint64_t deliveredBefore = qp.GetDeliveredBytes();
    // Reused between packets; a completion callback may post, not receive, re-entrantly.
    auto& completed = m_completedReceives;
    completed.clear();
    const RdmaQueuePair::RxResult result = qp.OnData(bth.GetPsn(), payload, last, completed);
    switch (result)
    {
    case RdmaQueuePair::RX_ACCEPTED:
    case RdmaQueuePair::RX_ACCEPTED_NAK:
        m_stats.bytesDelivered += qp.GetDeliveredBytes() - deliveredBefore;
        qp.rxSinceAck += static_cast<uint32_t>(qp.GetExpectedPsn() - expectedBefore);
        if (result == RdmaQueuePair::RX_ACCEPTED_NAK)
        {
            SendAck(qp, true); // acknowledges all before the next gap and names it
        }
        else if (!completed.empty() || qp.rxSinceAck >= m_ackInterval || bth.GetAckReq())
        {
            SendAck(qp, false);
        }
        if (!completed.empty())
        {
            CompleteReceives(completed); // a copy: the callbacks may reuse the buffer
        }
        break;
    case RdmaQueuePair::RX_PLACED:
        ++m_stats.outOfOrderPlaced;
        if (bth.GetAckReq())
        {
            SendAck(qp, false); // cumulative (and a SACK, selective repeat)
        }
        break;
    case RdmaQueuePair::RX_PLACED_NAK:
        ++m_stats.outOfOrderPlaced;
        SendAck(qp, true); // the gap and a SACK: the sender resends only what is lost
        break;
    case RdmaQueuePair::RX_OUT_OF_ORDER_NAK:
        ++m_stats.outOfOrderDropped;
        SendAck(qp, true);
        break;
    case RdmaQueuePair::RX_OUT_OF_ORDER_DROP:
        ++m_stats.outOfOrderDropped;
        break;
    case RdmaQueuePair::RX_DUPLICATE:
        ++m_stats.duplicatesReceived;
        SendAck(qp, false);
        break;
    case RdmaQueuePair::RX_DUPLICATE_NAK:
        ++m_stats.duplicatesReceived;
        SendAck(qp, true); // the gap persists: the NAK's SACK tells the sender what it holds
        break;
    }
}

void
RdmaTransport::CompleteReceives(
    std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>> messages)
{
    NS_LOG_FUNCTION(this << messages.size());
    Time now = Simulator::Now();
    for (auto& [info, cb] : messages)
    {
        if (info.parts > 1 &&
            !CompletePart(m_splitReceives, SplitReceiveKey(info.srcRank, info.id), info, cb))
        {
            continue; // other parts of the message are still on their way
        }
        info.doneTime = now;
        NS_LOG_LOGIC("rank " << m_rank << ": message " << info.id << " from rank " << info.srcRank
                             << " received, " << info.size << " B");
        ++m_stats.messagesReceived;
        m_messageReceivedTrace(info);
        if (!cb.IsNull())
        {
            cb(info);
        }
        if (!m_receiveCallback.IsNull())
        {
            m_receiveCallback(info);
        }
    }
}

void
RdmaTransport::CompleteSends(std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>>& done)
{
    NS_LOG_FUNCTION(this << done.size());
    Time now = Simulator::Now();
    for (auto& [info, cb] : done)
    {
        if (info.parts > 1)
        {
            auto split = m_splitSends.find(info.id);
            const bool given = split != m_splitSends.end() && split->second.failed;
            if (split != m_splitSends.end() && !given &&
                split->second.nextPacket < split->second.packets && m_entropyChunk > 0)
            {
                PostChunk(split->second, info.entropy); // this path is free again
            }
            if (!CompletePart(m_splitSends, info.id, info, cb) || given)
            {
                continue; // other parts still on their way, or the message was given up
            }
        }
        if (!m_failureCallbacks.empty())
        {
            m_failureCallbacks.erase(info.id);
        }
        info.doneTime = now;
        NS_LOG_LOGIC("rank " << m_rank << ": message " << info.id << " to rank " << info.dstRank
                             << " acknowledged in full");
        ++m_stats.messagesSent;
        m_messageSentTrace(info);
        if (!cb.IsNull())
        {
            cb(info);
        }
    }
}

void
RdmaTransport::ArmTimer(RdmaQueuePair& qp)
{
    NS_LOG_FUNCTION(this << qp.GetQpn());
    qp.rtoDeadline = Simulator::Now() + m_rto;
    if (!ai_fabric::IsPending(qp.rtoEvent))
    {
        qp.rtoEvent =
            Simulator::Schedule(m_rto, &RdmaTransport::RetransmitTimeout, this, qp.GetQpn());
    }
}

void
RdmaTransport::RetransmitTimeout(uint32_t qpn)
{
    NS_LOG_FUNCTION(this << qpn);
    RdmaQueuePair& qp = *m_qps[qpn];
    if (qp.failed || !qp.HasOutstanding())
    {
        return; // nothing to protect; the next send arms the timer again
    }
    Time now = Simulator::Now();
    if (now < qp.rtoDeadline)
    {
        // Progress moved the deadline: one event per deadline, not per ACK.
        qp.rtoEvent =
            Simulator::Schedule(qp.rtoDeadline - now, &RdmaTransport::RetransmitTimeout, this, qpn);
        return;
    }
    ++m_stats.timeouts;
    NS_LOG_LOGIC("rank " << m_rank << " qp " << qpn << " to rank " << qp.GetRemoteRank()
                         << ": retransmission timeout, oldest unacknowledged PSN "
                         << qp.GetSndUna());
    m_timeoutTrace(qpn, qp.GetSndUna());
    qp.cc->OnTimeout(now);
    if (++qp.retries > m_retryLimit)
    {
        FailQp(qpn);
        return;
    }
    // Go-back-N resends everything from the oldest unacknowledged PSN, selective
    // repeat every PSN not SACKed.
    qp.OnTimeout();
    qp.sendTimes.clear(); // PSNs in flight go again: no RTT sample from them
    // The retransmission re-arms the timer when it leaves: a QP held back by its
    // rate limiter or by PFC does not use up its retries without sending.
    Activate(qp);
}

void
RdmaTransport::FailQp(uint32_t qpn)
{
    NS_LOG_FUNCTION(this << qpn);
    RdmaQueuePair& qp = *m_qps[qpn];
    qp.failed = true;
    ++m_stats.qpFailures;
    const uint32_t remote = qp.GetRemoteRank();
    NS_LOG_ERROR("RdmaTransport rank " << m_rank << " qp " << qpn << " to rank " << remote
                                       << " failed after " << m_retryLimit << " retries");
    std::vector<std::pair<RdmaCompletion, RdmaCompletionCallback>> flushed;
    qp.FlushSends(flushed);
    qp.sendTimes.clear();
    m_qpErrorTrace(qpn, remote);
    // The callbacks may post (and create queue pairs): qp is not used below.
    for (const auto& [part, cb] : flushed)
    {
        FailPart(part);
    }
}

void
RdmaTransport::FailPart(RdmaCompletion part)
{
    NS_LOG_FUNCTION(this << part.id << part.entropy);
    RdmaCompletion info = part;
    if (part.parts > 1)
    {
        auto it = m_splitSends.find(part.id);
        if (it == m_splitSends.end())
        {
            return; // every other part has completed or been given up already
        }
        SplitMessage& split = it->second;
        // No further chunk goes out; count the ones not posted as given up.
        if (m_entropyChunk > 0 && split.nextPacket < split.packets)
        {
            split.partsLeft -= static_cast<uint32_t>(
                (split.packets - split.nextPacket + m_entropyChunk - 1) / m_entropyChunk);
            split.nextPacket = split.packets;
        }
        const bool first = !split.failed;
        split.failed = true;
        info = split.info;
        info.size = split.size;
        info.connection = split.connection;
        if (--split.partsLeft == 0)
        {
            m_splitSends.erase(it);
        }
        if (!first)
        {
            NS_LOG_LOGIC("message " << part.id << ": another part given up");
            return; // the message was reported with its first part
        }
    }
    info.doneTime = Simulator::Now();
    ++m_stats.messagesFailed;
    m_stats.bytesFailed += info.size;
    NS_LOG_LOGIC("rank " << m_rank << ": message " << info.id << " to rank " << info.dstRank << " ("
                         << info.size << " B, connection " << info.connection
                         << ") given up: its queue pair failed");
    m_messageFailedTrace(info);
    auto cb = m_failureCallbacks.find(info.id);
    if (cb != m_failureCallbacks.end())
    {
        RdmaCompletionCallback onFailed = cb->second;
        m_failureCallbacks.erase(cb);
        onFailed(info);
    }
}

} // namespace ns3
