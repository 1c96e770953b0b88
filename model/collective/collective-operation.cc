/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "collective-operation.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveOperation");

NS_OBJECT_ENSURE_REGISTERED(CollectiveOperation);

Time
CollectiveResult::GetDuration() const
{
    return end - start;
}

double
CollectiveResult::GetAlgorithmBandwidth() const
{
    double t = GetDuration().GetSeconds();
    return t > 0 ? static_cast<double>(bytes) / t : 0.0;
}

double
CollectiveResult::GetBusBandwidth() const
{
    return GetAlgorithmBandwidth() * busBandwidthFactor;
}

TypeId
CollectiveOperation::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveOperation")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddAttribute("Channels",
                          "Parallel channels: each is its own connection (queue pair) "
                          "between two servers and carries its share of the data",
                          UintegerValue(2),
                          MakeUintegerAccessor(&CollectiveOperation::m_channels),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ChunkSize",
                          "Largest message posted at once: a step's data on a channel is "
                          "cut into chunks of at most this size, which are forwarded as "
                          "they arrive (pipelining)",
                          UintegerValue(1 << 20),
                          MakeUintegerAccessor(&CollectiveOperation::m_chunkSize),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ReductionRate",
                          "Rate of the GPU kernel that reduces a received chunk into local "
                          "data before it is forwarded (0: reduction takes no time)",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&CollectiveOperation::m_reductionRate),
                          MakeDataRateChecker())
            .AddTraceSource("Start",
                            "The operation started",
                            MakeTraceSourceAccessor(&CollectiveOperation::m_startTrace),
                            "ns3::CollectiveOperation::ResultTracedCallback")
            .AddTraceSource("Finish",
                            "The operation finished: its result",
                            MakeTraceSourceAccessor(&CollectiveOperation::m_finishTrace),
                            "ns3::CollectiveOperation::ResultTracedCallback")
            .AddTraceSource("Step",
                            "A chunk was posted: source rank, destination rank, bytes, step",
                            MakeTraceSourceAccessor(&CollectiveOperation::m_stepTrace),
                            "ns3::CollectiveOperation::StepTracedCallback");
    return tid;
}

CollectiveOperation::CollectiveOperation()
{
    NS_LOG_FUNCTION(this);
}

CollectiveOperation::~CollectiveOperation() = default;

void
CollectiveOperation::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_comm = nullptr;
    m_done = DoneCallback();
    Object::DoDispose();
}

void
CollectiveOperation::Start(Ptr<Communicator> comm, uint64_t bytes, DoneCallback done)
{
    NS_LOG_FUNCTION(this << comm << bytes);
    NS_ABORT_MSG_IF(m_started, GetInstanceTypeId().GetName() << ": Start called twice");
    NS_ABORT_MSG_IF(!comm, GetInstanceTypeId().GetName() << ": no communicator");
    NS_ABORT_MSG_IF(bytes == 0, GetInstanceTypeId().GetName() << ": size 0 bytes is not allowed");
    NS_ABORT_MSG_IF(m_channels == 0 || m_channels > Communicator::MAX_CHANNELS,
                    GetInstanceTypeId().GetName()
                        << ": Channels " << m_channels << " must be in 1.."
                        << Communicator::MAX_CHANNELS);
    NS_ABORT_MSG_IF(m_chunkSize == 0,
                    GetInstanceTypeId().GetName() << ": ChunkSize 0 must be >= 1");
    m_started = true;
    m_comm = comm;
    m_bytes = bytes;
    m_done = done;
    uint32_t n = comm->GetSize();
    m_result.collective = GetCollectiveName();
    m_result.algorithm = GetInstanceTypeId().GetName();
    m_result.ranks = n;
    m_result.bytes = bytes;
    m_result.start = Simulator::Now();
    m_result.busBandwidthFactor = GetBusBandwidthFactor(n);
    m_result.bytesSent.assign(n, 0);
    m_result.bytesReceived.assign(n, 0);
    m_result.scaleUpBytesSent.assign(n, 0);
    comm->Hold(this);
    m_startTrace(m_result);
    DoStart();
}

void
CollectiveOperation::Send(uint32_t src,
                          uint32_t dst,
                          uint64_t bytes,
                          uint32_t channel,
                          uint32_t step,
                          Callback<void> onArrival)
{
    NS_LOG_FUNCTION(this << src << dst << bytes << channel << step);
    // Received bytes are counted as posted: every chunk arrives before Finish().
    m_result.bytesSent[src] += bytes;
    m_result.bytesReceived[dst] += bytes;
    if (m_comm->IsSameServer(src, dst))
    {
        m_result.scaleUpBytesSent[src] += bytes;
    }
    ++m_result.steps;
    m_stepTrace(src, dst, bytes, step);
    m_comm->Send(src, dst, bytes, channel, onArrival);
}

Time
CollectiveOperation::GetReductionTime(uint64_t bytes) const
{
    if (m_reductionRate.GetBitRate() == 0)
    {
        return Time(0);
    }
    return m_reductionRate.CalculateBytesTxTime(bytes);
}

void
CollectiveOperation::Finish()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_finished, GetInstanceTypeId().GetName() << ": finished twice");
    m_finished = true;
    m_result.end = Simulator::Now();
    NS_LOG_LOGIC(m_result.collective << " of " << m_result.bytes << " B on " << m_result.ranks
                                     << " ranks took " << m_result.GetDuration());
    m_finishTrace(m_result);
    if (!m_done.IsNull())
    {
        m_done(m_result);
    }
    // Last: the communicator may hold the only reference to this operation.
    Ptr<Communicator> comm = m_comm;
    comm->Release(this);
}

Ptr<CollectiveOperation>
CollectiveOperation::CreatePhase(const std::string& typeId) const
{
    ObjectFactory factory(typeId);
    factory.Set("Channels", UintegerValue(m_channels));
    factory.Set("ChunkSize", UintegerValue(m_chunkSize));
    factory.Set("ReductionRate", DataRateValue(m_reductionRate));
    return factory.Create<CollectiveOperation>();
}

void
CollectiveOperation::AddPhaseTraffic(const CollectiveResult& phase,
                                     const std::vector<uint32_t>& ranks)
{
    NS_LOG_FUNCTION(this << phase.bytes << ranks.size());
    NS_ABORT_MSG_IF(ranks.size() != phase.ranks,
                    GetInstanceTypeId().GetName()
                        << ": a phase of " << phase.ranks << " ranks mapped onto " << ranks.size());
    for (uint32_t i = 0; i < phase.ranks; ++i)
    {
        m_result.bytesSent[ranks[i]] += phase.bytesSent[i];
        m_result.bytesReceived[ranks[i]] += phase.bytesReceived[i];
        m_result.scaleUpBytesSent[ranks[i]] += phase.scaleUpBytesSent[i];
    }
    m_result.steps += phase.steps;
}

bool
CollectiveOperation::IsFinished() const
{
    return m_finished;
}

const CollectiveResult&
CollectiveOperation::GetResult() const
{
    return m_result;
}

uint64_t
CollectiveOperation::SplitBytes(uint64_t total, uint32_t parts, uint32_t index)
{
    return total / parts + (index < total % parts ? 1 : 0);
}

} // namespace ns3
