/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CELL_SEGMENTER_H
#define AI_FABRIC_CELL_SEGMENTER_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Pure arithmetic of cutting a packet into fabric cells.
 *
 * A packet of P bytes becomes ceil(P / C) cells of at most C payload bytes, each
 * with an H-byte cell header. With fixed cells every cell occupies C + H bytes on
 * the link (the last one padded); with a variable last cell the last one occupies
 * only its payload plus H. Cell efficiency is then P / (ceil(P/C) (C+H)) or
 * P / (P + ceil(P/C) H).
 */
class CellSegmenter
{
  public:
    /**
     * \param cellPayload payload bytes per cell (attribute CellPayload)
     * \param cellHeader header bytes per cell (attribute CellHeader)
     * \param variableLastCell true if the last cell is not padded
     *
     * Stops with a message naming the attribute if cellPayload < 1 or if the
     * cell does not fit a 16-bit length.
     */
    CellSegmenter(uint32_t cellPayload, uint32_t cellHeader, bool variableLastCell);

    /**
     * Build from the whole cell size instead of the payload.
     * \param cellSize bytes per full cell, header included (CellSize)
     * \param cellHeader header bytes per cell (CellHeader); must be < cellSize
     * \param variableLastCell true if the last cell is not padded
     * \return the segmenter
     */
    static CellSegmenter FromCellSize(uint32_t cellSize,
                                      uint32_t cellHeader,
                                      bool variableLastCell);

    /// \param packetSize packet bytes \return number of cells
    uint32_t GetCellCount(uint32_t packetSize) const;

    /// \param packetSize packet bytes \param index cell index \return first byte of that cell
    uint32_t GetCellOffset(uint32_t packetSize, uint32_t index) const;

    /// \param packetSize packet bytes \param index cell index \return payload bytes of that cell
    uint32_t GetCellPayload(uint32_t packetSize, uint32_t index) const;

    /// \param packetSize packet bytes \param index cell index \return link bytes of that cell
    uint32_t GetCellWireBytes(uint32_t packetSize, uint32_t index) const;

    /// \param packetSize packet bytes \return link bytes of all its cells
    uint64_t GetWireBytes(uint32_t packetSize) const;

    /// \param packetSize packet bytes \return packetSize / GetWireBytes(packetSize)
    double GetEfficiency(uint32_t packetSize) const;

    /// \return payload bytes per cell
    uint32_t GetCellPayload() const;
    /// \return header bytes per cell
    uint32_t GetCellHeader() const;
    /// \return true for a variable (unpadded) last cell
    bool IsVariableLastCell() const;

  private:
    uint32_t m_payload;  //!< payload bytes per cell
    uint32_t m_header;   //!< header bytes per cell
    bool m_variableLast; //!< last cell not padded
};

} // namespace ns3

#endif /* AI_FABRIC_CELL_SEGMENTER_H */
