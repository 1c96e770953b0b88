/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CELL_MESSAGE_HEADER_H
#define AI_FABRIC_CELL_MESSAGE_HEADER_H

#include "fabric-cell.h"

#include "ns3/header.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief What a leaf-spine link carries to the other process of a distributed run:
 * a cell, or a spine's flow-control indication to a leaf.
 *
 * A cell's fields go as they are (a packet's first data cell is followed by the
 * packet as ns-3 serialises it, GetPacketBytes long; several cells may follow one
 * another in one message), with its arrival time and the link's failure epoch
 * when it was sent: a
 * cell sent before a failure that it would have met on the wire is lost at the
 * receiving end. An indication carries the spine, the destination leaf it is
 * about and whether to stop or go on. Not a wire format of any device: the
 * fabric's cells exist only inside the simulator.
 */
class CellMessageHeader : public Header
{
  public:
    /// What the message carries.
    enum Kind : uint8_t
    {
        CELL = 0,       //!< a cell
        INDICATION = 1, //!< a spine's flow-control indication
    };

    CellMessageHeader();

    /// \return the TypeId
    static TypeId GetTypeId();
    /// \return the TypeId
    TypeId GetInstanceTypeId() const override;
    /// \return CELL_SIZE or INDICATION_SIZE, by kind
    uint32_t GetSerializedSize() const override;
    /// \param start where the header is written
    void Serialize(Buffer::Iterator start) const override;
    /// \param start where the header is read \return the bytes read
    uint32_t Deserialize(Buffer::Iterator start) override;
    /// \param os the stream printed to
    void Print(std::ostream& os) const override;

    /**
     * Carry a cell (its packet, if any, is not part of the header; it follows
     * the header of the packet's first cell only, see HasPacket).
     * \param cell the cell \param epoch the link's failure epoch when it was sent
     * \param arrival when it reaches the far end of the link (absolute)
     */
    void SetCell(const FabricCell& cell, uint32_t epoch, Time arrival);
    /// \param bytes the bytes of the cell's packet, serialised, that follow the header
    void SetPacketBytes(uint32_t bytes);
    /**
     * Carry a flow-control indication.
     * \param spine the spine \param leaf the destination leaf it is about
     * \param stop stop (true) or go on
     */
    void SetIndication(uint32_t spine, uint32_t leaf, bool stop);

    /// \return CELL or INDICATION
    Kind GetKind() const;
    /// \return the cell carried, without its packet
    const FabricCell& GetCell() const;
    /// \return whether the cell's packet follows the header (a data cell of index 0)
    bool HasPacket() const;
    /// \return the bytes of the serialised packet that follows (0 if none)
    uint32_t GetPacketBytes() const;
    /// \return when the cell reaches the far end of the link
    Time GetArrival() const;
    /// \return the link's failure epoch when the cell was sent
    uint32_t GetEpoch() const;
    /// \return the indicating spine
    uint32_t GetSpine() const;
    /// \return the destination leaf the indication is about
    uint32_t GetLeaf() const;
    /// \return whether the indication says stop
    bool IsStop() const;

    /// Serialized size of a cell (kind, epoch, the cell's fields, packet flag and
    /// bytes, arrival).
    static constexpr uint32_t CELL_SIZE = 1 + 4 + 3 + 5 * 2 + 4 * 4 + 8 + 1 + 4 + 8;
    /// Serialized size of an indication (kind, spine, leaf, stop).
    static constexpr uint32_t INDICATION_SIZE = 1 + 2 + 2 + 1;

  private:
    Kind m_kind{CELL};         //!< what is carried
    FabricCell m_cell;         //!< the cell, without its packet
    bool m_hasPacket{false};   //!< a data cell's packet follows
    uint32_t m_packetBytes{0}; //!< its bytes
    Time m_arrival;            //!< when the cell reaches the far end
    uint32_t m_epoch{0};       //!< the link's failure epoch at sending
    uint16_t m_spine{0};       //!< indication: the spine
    uint16_t m_leaf{0};        //!< indication: the destination leaf
    bool m_stop{false};        //!< indication: stop or go on
};

} // namespace ns3

#endif /* AI_FABRIC_CELL_MESSAGE_HEADER_H */
