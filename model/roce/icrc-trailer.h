/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_ICRC_TRAILER_H
#define AI_FABRIC_ICRC_TRAILER_H

#include "ns3/trailer.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The 4-byte invariant CRC that ends every RoCEv2 packet (before the Ethernet
 * FCS). The simulator carries a constant value (zero by default): nothing is
 * corrupted in flight, and Wireshark does not check it.
 */
class IcrcTrailer : public Trailer
{
  public:
    IcrcTrailer();

    /// \return the TypeId
    static TypeId GetTypeId();
    /// \return the TypeId
    TypeId GetInstanceTypeId() const override;
    /// \return SIZE, 4 bytes
    uint32_t GetSerializedSize() const override;
    /// Write the ICRC in the last 4 bytes, in network order.
    /// \param end the end of the packet (a trailer is written before it)
    void Serialize(Buffer::Iterator end) const override;
    /// Read the ICRC from the last 4 bytes.
    /// \param end the end of the packet (a trailer is read before it)
    /// \return the bytes read, SIZE
    uint32_t Deserialize(Buffer::Iterator end) override;
    /// Print the ICRC value.
    /// \param os the stream printed to
    void Print(std::ostream& os) const override;

    /// \param icrc the value carried
    void SetIcrc(uint32_t icrc);
    /// \return the value carried
    uint32_t GetIcrc() const;

    /// Serialized size in bytes.
    static constexpr uint32_t SIZE = 4;

  private:
    uint32_t m_icrc{0}; //!< carried value
};

} // namespace ns3

#endif /* AI_FABRIC_ICRC_TRAILER_H */
