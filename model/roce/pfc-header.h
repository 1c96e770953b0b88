/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_PFC_HEADER_H
#define AI_FABRIC_PFC_HEADER_H

#include "ns3/header.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief IEEE 802.1Qbb priority-based flow control frame body (the MAC control frame
 * after an Ethernet header with destination 01:80:C2:00:00:01 and ethertype 0x8808).
 *
 * Opcode 0x0101, class-enable vector (bit n = priority n), eight 16-bit pause times
 * in quanta of 512 bit times (priority 0 first), then 26 zero bytes of padding so the
 * frame is 60 bytes without FCS (64 with it). A pause time of 0 resumes at once.
 */
class PfcHeader : public Header
{
  public:
    PfcHeader();

    /// \return the TypeId
    static TypeId GetTypeId();
    /// \return the TypeId
    TypeId GetInstanceTypeId() const override;
    /// \return SIZE, 46 bytes (the 60-byte minimum frame with the Ethernet header)
    uint32_t GetSerializedSize() const override;
    /// Write the opcode, the priority-enable vector and the eight times, padded to SIZE.
    /// \param start where the header is written
    void Serialize(Buffer::Iterator start) const override;
    /// Read the opcode, the priority-enable vector and the eight times, skipping the padding.
    /// \param start where the header is read
    /// \return the bytes read, SIZE
    uint32_t Deserialize(Buffer::Iterator start) override;
    /// Print the priority-enable vector and the time of each enabled priority.
    /// \param os the stream printed to
    void Print(std::ostream& os) const override;

    /**
     * Enable one priority with a pause time.
     * \param priority 0..7 (more is an error)
     * \param quanta pause time in quanta of 512 bit times; 0 means resume
     */
    void SetPauseTime(uint8_t priority, uint16_t quanta);
    /// \param priority 0..7 \return the pause time of that priority in quanta
    uint16_t GetPauseTime(uint8_t priority) const;
    /// \param priority 0..7 \return whether the class-enable vector has that priority
    bool IsEnabled(uint8_t priority) const;
    /// \return the class-enable vector
    uint16_t GetClassEnableVector() const;
    /// \return the MAC control opcode read (0x0101 for PFC)
    uint16_t GetOpcode() const;

    /// MAC control ethertype.
    static constexpr uint16_t ETHERTYPE = 0x8808;
    /// MAC control opcode of a PFC frame.
    static constexpr uint16_t OPCODE = 0x0101;
    /// Serialized size in bytes (2 + 2 + 16 + 26 padding).
    static constexpr uint32_t SIZE = 46;

  private:
    uint16_t m_opcode{OPCODE};        //!< MAC control opcode
    uint16_t m_enableVector{0};       //!< class-enable vector
    std::array<uint16_t, 8> m_time{}; //!< pause time per priority
};

} // namespace ns3

#endif /* AI_FABRIC_PFC_HEADER_H */
