/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cell-message-header.h"

#include "ns3/abort.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CellMessageHeader);

CellMessageHeader::CellMessageHeader() = default;

TypeId
CellMessageHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CellMessageHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<CellMessageHeader>();
    return tid;
}

TypeId
CellMessageHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
CellMessageHeader::GetSerializedSize() const
{
    return m_kind == CELL ? CELL_SIZE : INDICATION_SIZE;
}

void
CellMessageHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteU8(m_kind);
    if (m_kind == INDICATION)
    {
        start.WriteHtonU16(m_spine);
        start.WriteHtonU16(m_leaf);
        start.WriteU8(m_stop ? 1 : 0);
        return;
    }
    start.WriteHtonU32(m_epoch);
    start.WriteU8(m_cell.type);
    start.WriteU8(m_cell.tc);
    start.WriteU8(m_cell.refresh ? 1 : 0);
    start.WriteHtonU16(m_cell.srcLeaf);
    start.WriteHtonU16(m_cell.dstLeaf);
    start.WriteHtonU16(m_cell.dstPort);
    start.WriteHtonU16(m_cell.cellIndex);
    start.WriteHtonU16(m_cell.cellCount);
    start.WriteHtonU32(m_cell.wireBytes);
    start.WriteHtonU32(m_cell.offset);
    start.WriteHtonU32(m_cell.payload);
    start.WriteHtonU32(m_cell.packetId);
    start.WriteHtonU64(m_cell.bytes);
    start.WriteU8(m_hasPacket ? 1 : 0);
    start.WriteHtonU32(m_packetBytes);
    start.WriteHtonU64(static_cast<uint64_t>(m_arrival.GetTimeStep()));
}

uint32_t
CellMessageHeader::Deserialize(Buffer::Iterator start)
{
    const uint8_t kind = start.ReadU8();
    NS_ABORT_MSG_IF(kind != CELL && kind != INDICATION,
                    "CellMessageHeader: kind " << +kind << " is neither a cell nor an indication");
    m_kind = static_cast<Kind>(kind);
    if (m_kind == INDICATION)
    {
        m_spine = start.ReadNtohU16();
        m_leaf = start.ReadNtohU16();
        m_stop = start.ReadU8() != 0;
        return INDICATION_SIZE;
    }
    m_epoch = start.ReadNtohU32();
    const uint8_t type = start.ReadU8();
    NS_ABORT_MSG_IF(type > FabricCell::PATH_LOSS,
                    "CellMessageHeader: cell type " << +type << " is not a cell type");
    m_cell.type = static_cast<FabricCell::Type>(type);
    m_cell.tc = start.ReadU8();
    m_cell.refresh = start.ReadU8() != 0;
    m_cell.srcLeaf = start.ReadNtohU16();
    m_cell.dstLeaf = start.ReadNtohU16();
    m_cell.dstPort = start.ReadNtohU16();
    m_cell.cellIndex = start.ReadNtohU16();
    m_cell.cellCount = start.ReadNtohU16();
    m_cell.wireBytes = start.ReadNtohU32();
    m_cell.offset = start.ReadNtohU32();
    m_cell.payload = start.ReadNtohU32();
    m_cell.packetId = start.ReadNtohU32();
    m_cell.bytes = start.ReadNtohU64();
    m_cell.packet = nullptr;
    m_hasPacket = start.ReadU8() != 0;
    m_packetBytes = start.ReadNtohU32();
    m_arrival = TimeStep(static_cast<int64_t>(start.ReadNtohU64()));
    return CELL_SIZE;
}

void
CellMessageHeader::Print(std::ostream& os) const
{
    if (m_kind == INDICATION)
    {
        os << "indication spine=" << m_spine << " leaf=" << m_leaf << (m_stop ? " stop" : " go");
        return;
    }
    os << "cell type=" << +m_cell.type << " tc=" << +m_cell.tc << " src=" << m_cell.srcLeaf
       << " dst=" << m_cell.dstLeaf << ":" << m_cell.dstPort << " packet=" << m_cell.packetId
       << " cell=" << m_cell.cellIndex << "/" << m_cell.cellCount << " wire=" << m_cell.wireBytes
       << " bytes=" << m_cell.bytes << " epoch=" << m_epoch << " packetBytes=" << m_packetBytes
       << " arrival=" << m_arrival.As(Time::NS);
}

void
CellMessageHeader::SetCell(const FabricCell& cell, uint32_t epoch, Time arrival)
{
    m_kind = CELL;
    m_cell = cell;
    // The packet goes once, with its first cell: the receiving leaf's reassembly
    // takes it from whichever of its cells brings it.
    m_hasPacket = cell.packet && cell.cellIndex == 0;
    m_packetBytes = 0;
    m_cell.packet = nullptr;
    m_epoch = epoch;
    m_arrival = arrival;
}

void
CellMessageHeader::SetIndication(uint32_t spine, uint32_t leaf, bool stop)
{
    m_kind = INDICATION;
    m_spine = static_cast<uint16_t>(spine);
    m_leaf = static_cast<uint16_t>(leaf);
    m_stop = stop;
}

CellMessageHeader::Kind
CellMessageHeader::GetKind() const
{
    return m_kind;
}

const FabricCell&
CellMessageHeader::GetCell() const
{
    return m_cell;
}

bool
CellMessageHeader::HasPacket() const
{
    return m_hasPacket;
}

void
CellMessageHeader::SetPacketBytes(uint32_t bytes)
{
    m_packetBytes = bytes;
}

uint32_t
CellMessageHeader::GetPacketBytes() const
{
    return m_packetBytes;
}

Time
CellMessageHeader::GetArrival() const
{
    return m_arrival;
}

uint32_t
CellMessageHeader::GetEpoch() const
{
    return m_epoch;
}

uint32_t
CellMessageHeader::GetSpine() const
{
    return m_spine;
}

uint32_t
CellMessageHeader::GetLeaf() const
{
    return m_leaf;
}

bool
CellMessageHeader::IsStop() const
{
    return m_stop;
}

} // namespace ns3
