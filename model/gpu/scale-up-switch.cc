/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "scale-up-switch.h"

#include "ns3/abort.h"
#include "ns3/femtosecond-clock.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ScaleUpSwitch");
NS_OBJECT_ENSURE_REGISTERED(ScaleUpSwitch);

TypeId
ScaleUpSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ScaleUpSwitch")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<ScaleUpSwitch>()
            // NVIDIA H100 SXM (datasheet; DGX H100, 8 GPUs on NVSwitch): fourth-generation
            // NVLink, 18 links, 900 GB/s total bandwidth per GPU counting both
            // directions, i.e. 450 GB/s = 3.6 Tb/s per direction.
            .AddAttribute("PortRate",
                          "Rate of each GPU's port to the switch, per direction",
                          DataRateValue(DataRate("3600Gbps")),
                          MakeDataRateAccessor(&ScaleUpSwitch::m_portRate),
                          MakeDataRateChecker())
            // Assumption, not a measured figure: about a microsecond from a
            // transfer's last byte leaving the GPU to its completion at the
            // destination through an NVSwitch (switch traversal, memory write,
            // completion signal).
            .AddAttribute("Latency",
                          "Time from a transfer's last byte leaving the ports to its "
                          "completion at the destination GPU",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&ScaleUpSwitch::m_latency),
                          MakeTimeChecker())
            .AddTraceSource("TransferStart",
                            "A transfer was posted (source GPU, destination GPU, bytes); "
                            "it starts moving when both of its ports are free",
                            MakeTraceSourceAccessor(&ScaleUpSwitch::m_startTrace),
                            "ns3::ScaleUpSwitch::TransferTracedCallback")
            .AddTraceSource("TransferDone",
                            "A transfer's last byte arrived (source GPU, destination GPU, "
                            "bytes), just before its done callback runs",
                            MakeTraceSourceAccessor(&ScaleUpSwitch::m_doneTrace),
                            "ns3::ScaleUpSwitch::TransferTracedCallback");
    return tid;
}

ScaleUpSwitch::ScaleUpSwitch()
{
    NS_LOG_FUNCTION(this);
}

ScaleUpSwitch::~ScaleUpSwitch()
{
    NS_LOG_FUNCTION(this);
}

void
ScaleUpSwitch::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (auto& pending : m_pending)
    {
        pending.event.Cancel();
        pending.done = Callback<void>();
        pending.inUse = false;
    }
    m_pending.clear();
    m_freeSlots.clear();
    Object::DoDispose();
}

void
ScaleUpSwitch::Setup(uint32_t gpus)
{
    NS_LOG_FUNCTION(this << gpus);
    NS_ABORT_MSG_IF(m_gpus != 0,
                    "ScaleUpSwitch: Setup called twice (already " << m_gpus << " GPUs, now " << gpus
                                                                  << ")");
    NS_ABORT_MSG_IF(gpus == 0, "ScaleUpSwitch: gpus must be at least 1, got 0");
    NS_ABORT_MSG_IF(m_portRate.GetBitRate() == 0,
                    "ScaleUpSwitch: PortRate must be positive, got " << m_portRate);
    NS_ABORT_MSG_IF(m_latency.IsStrictlyNegative(),
                    "ScaleUpSwitch: Latency must not be negative, got " << m_latency);
    m_gpus = gpus;
    m_txFreeFs.assign(gpus, 0);
    m_rxFreeFs.assign(gpus, 0);
    m_bytesSent.assign(gpus, 0);
    m_bytesRecv.assign(gpus, 0);
}

void
ScaleUpSwitch::CheckGpu(uint32_t gpu, const char* what) const
{
    NS_ABORT_MSG_IF(m_gpus == 0, "ScaleUpSwitch: Setup has not been called (no GPUs attached)");
    NS_ABORT_MSG_IF(gpu >= m_gpus,
                    "ScaleUpSwitch: " << what << "=" << gpu << " out of range (" << m_gpus
                                      << " GPUs)");
}

void
ScaleUpSwitch::Transfer(uint32_t src, uint32_t dst, uint64_t bytes, Callback<void> done)
{
    NS_LOG_FUNCTION(this << src << dst << bytes);
    CheckGpu(src, "src");
    CheckGpu(dst, "dst");
    NS_ABORT_MSG_IF(src == dst, "ScaleUpSwitch: src and dst must differ, got src=dst=" << src);
    NS_ABORT_MSG_IF(bytes == 0,
                    "ScaleUpSwitch: bytes must be positive, got 0 (src=" << src << ", dst=" << dst
                                                                         << ")");
    NS_ABORT_MSG_IF(m_portRate.GetBitRate() == 0,
                    "ScaleUpSwitch: PortRate must be positive, got " << m_portRate);
    NS_ABORT_MSG_IF(m_latency.IsStrictlyNegative(),
                    "ScaleUpSwitch: Latency must not be negative, got " << m_latency);

    const __int128_t nowFs = NowInFemtoSeconds();
    __int128_t startFs = nowFs;
    if (m_txFreeFs[src] > startFs)
    {
        NS_LOG_LOGIC("GPU " << src << ": transmit port busy, transfer to " << dst << " waits");
        startFs = m_txFreeFs[src];
    }
    if (m_rxFreeFs[dst] > startFs)
    {
        NS_LOG_LOGIC("GPU " << dst << ": receive port busy, transfer from " << src << " waits");
        startFs = m_rxFreeFs[dst];
    }
    if (startFs == nowFs)
    {
        NS_LOG_LOGIC("GPU " << src << " -> " << dst << ": both ports free, starts now");
    }
    // At most 2^64 x 8 x 10^15 < 2^117: no overflow in 128 bits.
    const __int128_t durationFs =
        (static_cast<__int128_t>(bytes) * 8 * FEMTOSECONDS_PER_SECOND) / m_portRate.GetBitRate();
    const __int128_t endFs = startFs + durationFs;
    m_txFreeFs[src] = endFs;
    m_rxFreeFs[dst] = endFs;

    // Only the event is rounded, up, to the simulator's step: done never runs before
    // the last byte has arrived.
    const __int128_t doneFs = endFs + m_latency.GetFemtoSeconds();
    const int64_t stepFs = TimeStep(1).GetFemtoSeconds();
    const __int128_t doneStep = (doneFs + stepFs - 1) / stepFs;
    NS_ABORT_MSG_IF(doneStep > std::numeric_limits<int64_t>::max(),
                    "ScaleUpSwitch: a transfer of bytes=" << bytes
                                                          << " would end beyond the simulator's "
                                                             "time range");
    const Time delay = TimeStep(static_cast<int64_t>(doneStep)) - Simulator::Now();

    uint32_t slot;
    if (m_freeSlots.empty())
    {
        slot = static_cast<uint32_t>(m_pending.size());
        m_pending.emplace_back();
    }
    else
    {
        slot = m_freeSlots.back();
        m_freeSlots.pop_back();
    }
    Pending& pending = m_pending[slot];
    pending.src = src;
    pending.dst = dst;
    pending.bytes = bytes;
    pending.done = done;
    pending.inUse = true;
    pending.event = Simulator::Schedule(delay, &ScaleUpSwitch::Complete, this, slot);
    m_startTrace(src, dst, bytes);
}

void
ScaleUpSwitch::Complete(uint32_t slot)
{
    NS_LOG_FUNCTION(this << slot);
    Pending& pending = m_pending[slot];
    NS_ASSERT(pending.inUse);
    const uint32_t src = pending.src;
    const uint32_t dst = pending.dst;
    const uint64_t bytes = pending.bytes;
    Callback<void> done = pending.done;
    pending.done = Callback<void>();
    pending.inUse = false;
    m_freeSlots.push_back(slot);

    m_bytesSent[src] += bytes;
    m_bytesRecv[dst] += bytes;
    m_transfers++;
    NS_LOG_LOGIC("GPU " << src << " -> " << dst << ": " << bytes << " bytes arrived");
    m_doneTrace(src, dst, bytes);
    if (!done.IsNull())
    {
        done();
    }
}

uint32_t
ScaleUpSwitch::GetNGpus() const
{
    return m_gpus;
}

DataRate
ScaleUpSwitch::GetPortRate() const
{
    return m_portRate;
}

Time
ScaleUpSwitch::GetLatency() const
{
    return m_latency;
}

uint64_t
ScaleUpSwitch::GetBytesSent(uint32_t gpu) const
{
    CheckGpu(gpu, "gpu");
    return m_bytesSent[gpu];
}

uint64_t
ScaleUpSwitch::GetBytesReceived(uint32_t gpu) const
{
    CheckGpu(gpu, "gpu");
    return m_bytesRecv[gpu];
}

uint64_t
ScaleUpSwitch::GetTransfers() const
{
    return m_transfers;
}

} // namespace ns3
