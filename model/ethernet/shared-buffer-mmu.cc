/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "shared-buffer-mmu.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SharedBufferMmu");
NS_OBJECT_ENSURE_REGISTERED(SharedBufferMmu);

TypeId
SharedBufferMmu::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SharedBufferMmu")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<SharedBufferMmu>()
            // Assumption: 32 MiB of packet buffer; merchant data-centre switch chips
            // carry tens of MB on chip. Set it to the chip being modelled.
            .AddAttribute("BufferSize",
                          "Packet buffer of the switch, bytes (headroom included)",
                          UintegerValue(32 * 1024 * 1024),
                          MakeUintegerAccessor(&SharedBufferMmu::m_bufferSize),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("EgressAlpha",
                          "Lossy priorities: an egress (port, priority) may hold up to "
                          "EgressAlpha x the free shared bytes (dynamic threshold)",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&SharedBufferMmu::m_egressAlpha),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("PfcEnabled",
                          "Send PFC for the lossless priorities (false: every priority "
                          "is lossy)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SharedBufferMmu::m_pfcEnabled),
                          MakeBooleanChecker())
            .AddAttribute("LosslessPriorities",
                          "Bit n set: priority n is lossless (default priority 3, the "
                          "RoCE data priority of DSCP 26)",
                          UintegerValue(1u << 3),
                          MakeUintegerAccessor(&SharedBufferMmu::m_losslessMask),
                          MakeUintegerChecker<uint8_t>())
            // 1/8, the ingress dynamic threshold of a widely used ns-3 RDMA switch model.
            .AddAttribute("PfcAlpha",
                          "Lossless priorities: an ingress (port, priority) pauses its "
                          "upstream above PfcAlpha x the free shared bytes",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&SharedBufferMmu::m_pfcAlpha),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("PfcResumeOffset",
                          "Resume the upstream when the ingress use is this many bytes "
                          "below the PFC threshold",
                          UintegerValue(3072),
                          MakeUintegerAccessor(&SharedBufferMmu::m_pfcResumeOffset),
                          MakeUintegerChecker<uint64_t>());
    return tid;
}

SharedBufferMmu::SharedBufferMmu()
{
    NS_LOG_FUNCTION(this);
}

uint32_t
SharedBufferMmu::AddPort(uint64_t headroomBytes)
{
    NS_LOG_FUNCTION(this << headroomBytes);
    NS_ABORT_MSG_IF(m_pfcAlpha <= 0,
                    "SharedBufferMmu: PfcAlpha must be greater than 0, got " << m_pfcAlpha);
    NS_ABORT_MSG_IF(m_egressAlpha <= 0,
                    "SharedBufferMmu: EgressAlpha must be greater than 0, got " << m_egressAlpha);
    NS_ABORT_MSG_IF(m_sharedUsed != 0 || m_headroomUsed != 0,
                    "SharedBufferMmu: ports must be added before the first packet");
    Port port;
    port.headroom = headroomBytes;
    for (uint8_t p = 0; p < NUM_PRIORITIES; ++p)
    {
        if (IsLossless(p))
        {
            m_reserved += headroomBytes;
        }
    }
    NS_ABORT_MSG_IF(m_reserved >= m_bufferSize,
                    "SharedBufferMmu: BufferSize "
                        << m_bufferSize << " B leaves no shared pool: " << m_reserved
                        << " B of PFC headroom are "
                        << "reserved for " << m_ports.size() + 1 << " ports");
    m_ports.push_back(port);
    return static_cast<uint32_t>(m_ports.size() - 1);
}

bool
SharedBufferMmu::IsLossless(uint8_t priority) const
{
    return m_pfcEnabled && ((m_losslessMask >> priority) & 1) != 0;
}

uint64_t
SharedBufferMmu::GetSharedPoolBytes() const
{
    return m_bufferSize - m_reserved;
}

uint64_t
SharedBufferMmu::GetSharedFree() const
{
    return GetSharedPoolBytes() - m_sharedUsed;
}

uint64_t
SharedBufferMmu::GetPauseThreshold() const
{
    return static_cast<uint64_t>(m_pfcAlpha * static_cast<double>(GetSharedFree()));
}

uint64_t
SharedBufferMmu::GetEgressThreshold() const
{
    return static_cast<uint64_t>(m_egressAlpha * static_cast<double>(GetSharedFree()));
}

SharedBufferMmu::Admission
SharedBufferMmu::Admit(uint32_t inPort, uint32_t outPort, uint8_t priority, uint32_t bytes)
{
    NS_LOG_FUNCTION(this << inPort << outPort << +priority << bytes);
    Check(inPort, priority, "Admit");
    Check(outPort, priority, "Admit");
    Port& in = m_ports[inPort];
    Port& out = m_ports[outPort];
    bool toHeadroom = false;
    if (IsLossless(priority))
    {
        const uint64_t shared = in.ingress[priority] - in.headroomUsed[priority];
        if (shared + bytes > GetPauseThreshold() || bytes > GetSharedFree())
        {
            if (in.headroomUsed[priority] + bytes > in.headroom)
            {
                NS_LOG_LOGIC("port " << inPort << " priority " << +priority
                                     << ": PFC headroom full, drop");
                return DROP_HEADROOM_FULL;
            }
            NS_LOG_LOGIC("port " << inPort << " priority " << +priority << ": " << bytes
                                 << " B into PFC headroom (" << in.headroomUsed[priority] + bytes
                                 << " of " << in.headroom << " B)");
            toHeadroom = true;
        }
    }
    else
    {
        if (out.egress[priority] + bytes > GetEgressThreshold())
        {
            NS_LOG_LOGIC("port " << outPort << " priority " << +priority
                                 << ": over the egress threshold " << GetEgressThreshold()
                                 << " B, drop");
            return DROP_EGRESS_LIMIT;
        }
        if (bytes > GetSharedFree())
        {
            NS_LOG_LOGIC("shared pool full, drop");
            return DROP_BUFFER_FULL;
        }
    }
    if (toHeadroom)
    {
        in.headroomUsed[priority] += bytes;
        m_headroomUsed += bytes;
    }
    else
    {
        m_sharedUsed += bytes;
    }
    in.ingress[priority] += bytes;
    out.egress[priority] += bytes;
    out.egressTotal += bytes;
    m_highWater = std::max(m_highWater, GetUsedBytes());
    return ADMITTED;
}

void
SharedBufferMmu::Release(uint32_t inPort, uint32_t outPort, uint8_t priority, uint32_t bytes)
{
    NS_LOG_FUNCTION(this << inPort << outPort << +priority << bytes);
    Check(inPort, priority, "Release");
    Check(outPort, priority, "Release");
    Port& in = m_ports[inPort];
    Port& out = m_ports[outPort];
    NS_ABORT_MSG_IF(in.ingress[priority] < bytes || out.egress[priority] < bytes,
                    "SharedBufferMmu: releasing " << bytes << " B that were never admitted");
    const uint64_t fromHeadroom = std::min<uint64_t>(in.headroomUsed[priority], bytes);
    in.headroomUsed[priority] -= fromHeadroom;
    m_headroomUsed -= fromHeadroom;
    m_sharedUsed -= bytes - fromHeadroom;
    in.ingress[priority] -= bytes;
    out.egress[priority] -= bytes;
    out.egressTotal -= bytes;
}

bool
SharedBufferMmu::IsOverPauseThreshold(uint32_t port, uint8_t priority) const
{
    Check(port, priority, "IsOverPauseThreshold");
    const Port& in = m_ports[port];
    return in.headroomUsed[priority] > 0 ||
           in.ingress[priority] - in.headroomUsed[priority] > GetPauseThreshold();
}

bool
SharedBufferMmu::IsBelowResumeThreshold(uint32_t port, uint8_t priority) const
{
    Check(port, priority, "IsBelowResumeThreshold");
    const Port& in = m_ports[port];
    if (in.headroomUsed[priority] > 0)
    {
        return false;
    }
    const uint64_t shared = in.ingress[priority];
    return shared == 0 || shared + m_pfcResumeOffset <= GetPauseThreshold();
}

uint64_t
SharedBufferMmu::GetUsedBytes() const
{
    return m_sharedUsed + m_headroomUsed;
}

uint64_t
SharedBufferMmu::GetSharedUsedBytes() const
{
    return m_sharedUsed;
}

uint64_t
SharedBufferMmu::GetHighWater() const
{
    return m_highWater;
}

uint64_t
SharedBufferMmu::GetEgressBytes(uint32_t port, uint8_t priority) const
{
    Check(port, priority, "GetEgressBytes");
    return m_ports[port].egress[priority];
}

uint64_t
SharedBufferMmu::GetEgressPortBytes(uint32_t port) const
{
    Check(port, 0, "GetEgressPortBytes");
    return m_ports[port].egressTotal;
}

uint64_t
SharedBufferMmu::GetIngressBytes(uint32_t port, uint8_t priority) const
{
    Check(port, priority, "GetIngressBytes");
    return m_ports[port].ingress[priority];
}

uint64_t
SharedBufferMmu::GetHeadroom(uint32_t port) const
{
    Check(port, 0, "GetHeadroom");
    return m_ports[port].headroom;
}

uint64_t
SharedBufferMmu::GetHeadroomBytes(uint32_t port, uint8_t priority) const
{
    Check(port, priority, "GetHeadroomBytes");
    return m_ports[port].headroomUsed[priority];
}

uint32_t
SharedBufferMmu::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

void
SharedBufferMmu::Check(uint32_t port, uint8_t priority, const char* what) const
{
    NS_ABORT_MSG_IF(port >= m_ports.size(),
                    "SharedBufferMmu::" << what << ": port " << port << " does not exist ("
                                        << m_ports.size() << " ports)");
    NS_ABORT_MSG_IF(priority >= NUM_PRIORITIES,
                    "SharedBufferMmu::" << what << ": priority " << unsigned(priority)
                                        << " is not in 0..7");
}

} // namespace ns3
