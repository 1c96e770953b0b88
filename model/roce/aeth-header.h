/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_AETH_HEADER_H
#define AI_FABRIC_AETH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief InfiniBand ACK Extended Transport Header (4 bytes): syndrome (8 bits) and
 * message sequence number (24 bits). Follows the BTH of an Acknowledge packet.
 *
 * Syndrome 0x00-0x1F is an ACK (low 5 bits: credit count, 0x1F = unlimited);
 * 0x60 is a NAK for a PSN sequence error.
 */
class AethHeader : public Header
{
  public:
    /// Syndromes used by the module.
    enum Syndrome : uint8_t
    {
        ACK_UNLIMITED = 0x1F, //!< ACK, unlimited credit
        NAK_PSN_ERROR = 0x60, //!< NAK, PSN sequence error
    };

    AethHeader();

    /// \return the TypeId
    static TypeId GetTypeId();
    /// \return the TypeId
    TypeId GetInstanceTypeId() const override;
    /// \return SIZE, 4 bytes
    uint32_t GetSerializedSize() const override;
    /// Write the syndrome and the 24-bit MSN, in network order.
    /// \param start where the header is written
    void Serialize(Buffer::Iterator start) const override;
    /// Read the syndrome and the 24-bit MSN.
    /// \param start where the header is read
    /// \return the bytes read, SIZE
    uint32_t Deserialize(Buffer::Iterator start) override;
    /// Print ACK, NAK or AETH, the syndrome and the MSN.
    /// \param os the stream printed to
    void Print(std::ostream& os) const override;

    /// \param syndrome the AETH syndrome
    void SetSyndrome(uint8_t syndrome);
    /// \return the AETH syndrome
    uint8_t GetSyndrome() const;
    /// \return true if the syndrome is an ACK (0x00-0x1F)
    bool IsAck() const;
    /// \return true if the syndrome is a PSN sequence error NAK (0x60)
    bool IsNak() const;
    /// \param msn message sequence number (low 24 bits are carried)
    void SetMsn(uint32_t msn);
    /// \return the 24-bit message sequence number
    uint32_t GetMsn() const;

    /// Serialized size in bytes.
    static constexpr uint32_t SIZE = 4;

  private:
    uint8_t m_syndrome{ACK_UNLIMITED}; //!< syndrome
    uint32_t m_msn{0};                 //!< MSN, 24 bits
};

} // namespace ns3

#endif /* AI_FABRIC_AETH_HEADER_H */
