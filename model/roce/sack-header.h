/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_SACK_HEADER_H
#define AI_FABRIC_SACK_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Selective acknowledgement (12 bytes): a base PSN (24 bits, after a reserved
 * byte) and a 64-bit bitmap, bit i (value 2^i) set when PSN base + i has been received.
 * Follows the AETH of an Acknowledge packet when the receiver runs selective repeat
 * and holds packets beyond a PSN gap; the BTH PSN still carries the cumulative
 * acknowledgement (the expected PSN of a NAK).
 *
 * Not part of RoCEv2: an extension in the manner of IRN, whose NACK carries the
 * cumulative acknowledgement with the PSN that triggered it, and of the Ultra
 * Ethernet transport, whose selective ACK carries a base PSN and a 64-bit bitmap. A
 * bitmap, not one PSN, lets the loss of a single NAK cost no information: the next
 * one repeats what the lost one said about the 63 PSNs before its own.
 */
class SackHeader : public Header
{
  public:
    SackHeader();

    /// \return the TypeId
    static TypeId GetTypeId();
    /// \return the TypeId
    TypeId GetInstanceTypeId() const override;
    /// \return SIZE, 12 bytes
    uint32_t GetSerializedSize() const override;
    /// Write a zero byte, the 24-bit base PSN and the 64-bit bitmap, in network order.
    /// \param start where the header is written
    void Serialize(Buffer::Iterator start) const override;
    /// Read the base PSN and the bitmap (the reserved byte is ignored).
    /// \param start where the header is read
    /// \return the bytes read, SIZE
    uint32_t Deserialize(Buffer::Iterator start) override;
    /// Print the base PSN and the bitmap in hexadecimal.
    /// \param os the stream printed to
    void Print(std::ostream& os) const override;

    /// \param psn PSN of bit 0 of the bitmap (low 24 bits are carried)
    void SetBasePsn(uint32_t psn);
    /// \return PSN of bit 0 of the bitmap (24 bits)
    uint32_t GetBasePsn() const;
    /// \param bitmap bit i set: PSN base + i received
    void SetBitmap(uint64_t bitmap);
    /// \return the bitmap (bit i set: PSN base + i received)
    uint64_t GetBitmap() const;

    /// Serialized size in bytes.
    static constexpr uint32_t SIZE = 12;
    /// PSNs one bitmap covers.
    static constexpr uint32_t BITS = 64;

  private:
    uint32_t m_basePsn{0}; //!< PSN of bit 0, 24 bits
    uint64_t m_bitmap{0};  //!< bit i: PSN base + i received
};

} // namespace ns3

#endif /* AI_FABRIC_SACK_HEADER_H */
