/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_FABRIC_CELL_H
#define AI_FABRIC_FABRIC_CELL_H

#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief One cell on a scheduled-fabric link: a small value, never a Packet copy.
 *
 * A data cell carries a slice [offset, offset + payload) of one packet and refers
 * to the packet itself through a Ptr, so the packet travels once, by reference,
 * and is released when the egress leaf has reassembled and forwarded it. Control
 * cells (credit request, credit grant, path-loss notice) carry no packet.
 *
 * A path-loss notice reuses the fields: packetId is the last packet the ingress
 * leaf had wholly handed to its fabric ports for dstLeaf, bytes numbers the
 * notice (per ingress and egress leaf), cellCount is how many fabric links of the
 * ingress leaf it left on, cellIndex the one this copy left on, and dstPort how
 * many copies the spine made of it (one per link of its own to dstLeaf).
 */
struct FabricCell
{
    /// What a cell carries.
    enum Type : uint8_t
    {
        DATA = 0,           //!< a slice of a packet
        CREDIT_REQUEST = 1, //!< ingress VOQ -> egress scheduler: cumulative bytes wanted
        CREDIT_GRANT = 2,   //!< egress scheduler -> ingress VOQ: cumulative bytes granted
        PATH_LOSS = 3,      //!< ingress -> egress leaf, behind its data on every path left:
                            //!< a path failed, cells up to packetId not arrived are lost
    };

    Type type{DATA};       //!< cell type
    uint8_t tc{0};         //!< traffic class
    bool refresh{false};   //!< request: a watchdog re-request (our grant may have been lost)
    uint16_t srcLeaf{0};   //!< ingress leaf
    uint16_t dstLeaf{0};   //!< leaf the cell is going to
    uint16_t dstPort{0};   //!< egress host port (data and request) or its port (grant)
    uint16_t cellIndex{0}; //!< index of this cell within its packet
    uint16_t cellCount{0}; //!< cells the packet was cut into
    uint32_t wireBytes{0}; //!< bytes this cell occupies on a fabric link (header included)
    uint32_t offset{0};    //!< first packet byte carried (data cells)
    uint32_t payload{0};   //!< packet bytes carried (data cells)
    uint32_t packetId{0};  //!< per (source leaf, destination leaf) packet sequence number
    uint64_t bytes{0};     //!< cumulative bytes requested or granted (control cells)
    Ptr<Packet> packet;    //!< the packet the slice belongs to (data cells only)
};

/**
 * \ingroup ai-fabric
 * \param packet a packet, or null (a data cell built without its packet, as some
 *        tests build them)
 * \return its uid for a log line, or -1 for none
 */
inline int64_t
GetUidOrNone(const Ptr<const Packet>& packet)
{
    return packet ? static_cast<int64_t>(packet->GetUid()) : -1;
}

} // namespace ns3

#endif /* AI_FABRIC_FABRIC_CELL_H */
