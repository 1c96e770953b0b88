/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_BTH_HEADER_H
#define AI_FABRIC_BTH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief InfiniBand Base Transport Header (12 bytes), as carried by RoCEv2 after UDP
 * destination port 4791.
 *
 * Layout (big-endian): opcode; SE/MigReq/PadCnt/TVer; P_Key; FECN/BECN; destination
 * QP (24 bits); AckReq; PSN (24 bits).
 */
class BthHeader : public Header
{
  public:
    /// Opcodes used by the module (reliable connection, plus the RoCEv2 CNP).
    enum Opcode : uint8_t
    {
        RC_SEND_ONLY = 0x04,    //!< SEND Only
        RC_WRITE_FIRST = 0x06,  //!< RDMA WRITE First (RETH follows)
        RC_WRITE_MIDDLE = 0x07, //!< RDMA WRITE Middle
        RC_WRITE_LAST = 0x08,   //!< RDMA WRITE Last
        RC_WRITE_ONLY = 0x0A,   //!< RDMA WRITE Only (RETH follows)
        RC_ACKNOWLEDGE = 0x11,  //!< Acknowledge (AETH follows)
        CNP = 0x81,             //!< RoCEv2 congestion notification packet
    };

    BthHeader();

    /// \return the TypeId
    static TypeId GetTypeId();
    /// \return the TypeId
    TypeId GetInstanceTypeId() const override;
    /// \return SIZE, 12 bytes
    uint32_t GetSerializedSize() const override;
    /// Write the 12 bytes in network order (MigReq set, PadCnt and TVer 0).
    /// \param start where the header is written
    void Serialize(Buffer::Iterator start) const override;
    /// Read the opcode, SE, P_Key, FECN/BECN, destination QP, AckReq and PSN.
    /// \param start where the header is read
    /// \return the bytes read, SIZE
    uint32_t Deserialize(Buffer::Iterator start) override;
    /// Print the opcode, destination QP, PSN and the A, BECN and FECN flags that are set.
    /// \param os the stream printed to
    void Print(std::ostream& os) const override;

    /// \param opcode the BTH opcode
    void SetOpcode(uint8_t opcode);
    /// \return the BTH opcode
    uint8_t GetOpcode() const;
    /// \param qp destination queue pair (24 bits; higher bits are an error)
    void SetDestQp(uint32_t qp);
    /// \return the destination queue pair
    uint32_t GetDestQp() const;
    /// \param psn packet sequence number (only the low 24 bits are carried)
    void SetPsn(uint32_t psn);
    /// \return the 24-bit packet sequence number
    uint32_t GetPsn() const;
    /// \param ackReq whether the responder should acknowledge this packet at once
    void SetAckReq(bool ackReq);
    /// \return the AckReq bit
    bool GetAckReq() const;
    /// \param becn the BECN bit (set on CNPs)
    void SetBecn(bool becn);
    /// \return the BECN bit
    bool GetBecn() const;
    /// \param fecn the FECN bit
    void SetFecn(bool fecn);
    /// \return the FECN bit
    bool GetFecn() const;
    /// \param se the solicited-event bit
    void SetSolicitedEvent(bool se);
    /// \return the solicited-event bit
    bool GetSolicitedEvent() const;
    /// \param pkey the partition key
    void SetPKey(uint16_t pkey);
    /// \return the partition key
    uint16_t GetPKey() const;

    /// Serialized size in bytes.
    static constexpr uint32_t SIZE = 12;

  private:
    uint8_t m_opcode{RC_WRITE_ONLY}; //!< opcode
    bool m_se{false};                //!< solicited event
    uint16_t m_pkey{0xFFFF};         //!< partition key (default partition)
    bool m_fecn{false};              //!< forward ECN
    bool m_becn{false};              //!< backward ECN
    uint32_t m_destQp{0};            //!< destination QP, 24 bits
    bool m_ackReq{false};            //!< acknowledge request
    uint32_t m_psn{0};               //!< PSN, 24 bits
};

} // namespace ns3

#endif /* AI_FABRIC_BTH_HEADER_H */
