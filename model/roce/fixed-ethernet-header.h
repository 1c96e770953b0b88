/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_FIXED_ETHERNET_HEADER_H
#define AI_FABRIC_FIXED_ETHERNET_HEADER_H

#include "ns3/ethernet-header.h"
#include "ns3/mac48-address.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief An EthernetHeader (no preamble) that keeps its 14 serialised bytes, for a
 * device that puts the same addresses and ethertype on frame after frame.
 *
 * Serialize() writes the kept bytes in one copy; Set() serialises again only when a
 * field changed. The bytes are those of EthernetHeader::Serialize, and the instance's
 * TypeId is EthernetHeader's, so packet metadata, printing and pcap captures see an
 * EthernetHeader.
 */
class FixedEthernetHeader : public EthernetHeader
{
  public:
    FixedEthernetHeader();

    /**
     * Set the fields of the frames that follow (cheap when none changed).
     * \param source source MAC \param destination destination MAC
     * \param lengthType the ethertype
     */
    void Set(Mac48Address source, Mac48Address destination, uint16_t lengthType);

    /// Write the kept bytes.
    /// \param start where the header is written
    void Serialize(Buffer::Iterator start) const override;

    /// Serialised size in bytes: destination, source, ethertype.
    static constexpr uint32_t SIZE = 14;

  private:
    /// Serialise the fields into m_bytes.
    void Keep();

    std::array<uint8_t, SIZE> m_bytes{}; //!< the serialised header
};

} // namespace ns3

#endif /* AI_FABRIC_FIXED_ETHERNET_HEADER_H */
