/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cell-segmenter.h"

#include "ns3/abort.h"

#include <algorithm>
#include <limits>

namespace ns3
{

CellSegmenter::CellSegmenter(uint32_t cellPayload, uint32_t cellHeader, bool variableLastCell)
    : m_payload(cellPayload),
      m_header(cellHeader),
      m_variableLast(variableLastCell)
{
    NS_ABORT_MSG_IF(cellPayload < 1, "CellPayload must be at least 1 byte, got CellPayload=0");
    NS_ABORT_MSG_IF(uint64_t{cellPayload} + cellHeader > std::numeric_limits<uint16_t>::max(),
                    "CellPayload=" << cellPayload << " + CellHeader=" << cellHeader
                                   << " exceeds the largest cell (65535 bytes)");
}

CellSegmenter
CellSegmenter::FromCellSize(uint32_t cellSize, uint32_t cellHeader, bool variableLastCell)
{
    NS_ABORT_MSG_IF(cellHeader >= cellSize,
                    "CellHeader=" << cellHeader << " must be smaller than CellSize=" << cellSize);
    return CellSegmenter(cellSize - cellHeader, cellHeader, variableLastCell);
}

uint32_t
CellSegmenter::GetCellCount(uint32_t packetSize) const
{
    // A zero-byte packet still needs one cell to announce itself.
    return packetSize == 0 ? 1 : (packetSize + m_payload - 1) / m_payload;
}

uint32_t
CellSegmenter::GetCellOffset(uint32_t packetSize, uint32_t index) const
{
    return std::min(packetSize, index * m_payload);
}

uint32_t
CellSegmenter::GetCellPayload(uint32_t packetSize, uint32_t index) const
{
    const uint32_t offset = GetCellOffset(packetSize, index);
    return std::min(m_payload, packetSize - offset);
}

uint32_t
CellSegmenter::GetCellWireBytes(uint32_t packetSize, uint32_t index) const
{
    return (m_variableLast ? GetCellPayload(packetSize, index) : m_payload) + m_header;
}

uint64_t
CellSegmenter::GetWireBytes(uint32_t packetSize) const
{
    const uint64_t cells = GetCellCount(packetSize);
    return m_variableLast ? packetSize + cells * m_header : cells * (m_payload + m_header);
}

double
CellSegmenter::GetEfficiency(uint32_t packetSize) const
{
    return static_cast<double>(packetSize) / static_cast<double>(GetWireBytes(packetSize));
}

uint32_t
CellSegmenter::GetCellPayload() const
{
    return m_payload;
}

uint32_t
CellSegmenter::GetCellHeader() const
{
    return m_header;
}

bool
CellSegmenter::IsVariableLastCell() const
{
    return m_variableLast;
}

} // namespace ns3
