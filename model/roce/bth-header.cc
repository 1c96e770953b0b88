/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "bth-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <iomanip>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BthHeader");

NS_OBJECT_ENSURE_REGISTERED(BthHeader);

BthHeader::BthHeader() = default;

TypeId
BthHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::BthHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<BthHeader>();
    return tid;
}

TypeId
BthHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
BthHeader::GetSerializedSize() const
{
    return SIZE;
}

void
BthHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(m_opcode);
    // SE, MigReq = 1 (migration state as Linux sends it), PadCnt 0, TVer 0.
    i.WriteU8((m_se ? 0x80 : 0x00) | 0x40);
    i.WriteHtonU16(m_pkey);
    i.WriteU8((m_fecn ? 0x80 : 0x00) | (m_becn ? 0x40 : 0x00));
    i.WriteU8((m_destQp >> 16) & 0xFF);
    i.WriteHtonU16(m_destQp & 0xFFFF);
    i.WriteU8(m_ackReq ? 0x80 : 0x00);
    i.WriteU8((m_psn >> 16) & 0xFF);
    i.WriteHtonU16(m_psn & 0xFFFF);
}

uint32_t
BthHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_opcode = i.ReadU8();
    m_se = (i.ReadU8() & 0x80) != 0;
    m_pkey = i.ReadNtohU16();
    uint8_t ecn = i.ReadU8();
    m_fecn = (ecn & 0x80) != 0;
    m_becn = (ecn & 0x40) != 0;
    m_destQp = static_cast<uint32_t>(i.ReadU8()) << 16;
    m_destQp |= i.ReadNtohU16();
    m_ackReq = (i.ReadU8() & 0x80) != 0;
    m_psn = static_cast<uint32_t>(i.ReadU8()) << 16;
    m_psn |= i.ReadNtohU16();
    return SIZE;
}

void
BthHeader::Print(std::ostream& os) const
{
    os << "opcode=0x" << std::hex << std::setw(2) << std::setfill('0')
       << static_cast<uint32_t>(m_opcode) << std::dec << std::setfill(' ') << " qp=" << m_destQp
       << " psn=" << m_psn << (m_ackReq ? " A" : "") << (m_becn ? " BECN" : "")
       << (m_fecn ? " FECN" : "");
}

void
BthHeader::SetOpcode(uint8_t opcode)
{
    m_opcode = opcode;
}

uint8_t
BthHeader::GetOpcode() const
{
    return m_opcode;
}

void
BthHeader::SetDestQp(uint32_t qp)
{
    NS_ABORT_MSG_IF(qp > 0xFFFFFF, "BthHeader: DestQp " << qp << " does not fit in 24 bits");
    m_destQp = qp;
}

uint32_t
BthHeader::GetDestQp() const
{
    return m_destQp;
}

void
BthHeader::SetPsn(uint32_t psn)
{
    m_psn = psn & 0xFFFFFF;
}

uint32_t
BthHeader::GetPsn() const
{
    return m_psn;
}

void
BthHeader::SetAckReq(bool ackReq)
{
    m_ackReq = ackReq;
}

bool
BthHeader::GetAckReq() const
{
    return m_ackReq;
}

void
BthHeader::SetBecn(bool becn)
{
    m_becn = becn;
}

bool
BthHeader::GetBecn() const
{
    return m_becn;
}

void
BthHeader::SetFecn(bool fecn)
{
    m_fecn = fecn;
}

bool
BthHeader::GetFecn() const
{
    return m_fecn;
}

void
BthHeader::SetSolicitedEvent(bool se)
{
    m_se = se;
}

bool
BthHeader::GetSolicitedEvent() const
{
    return m_se;
}

void
BthHeader::SetPKey(uint16_t pkey)
{
    m_pkey = pkey;
}

uint16_t
BthHeader::GetPKey() const
{
    return m_pkey;
}

} // namespace ns3
