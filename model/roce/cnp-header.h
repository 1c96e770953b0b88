/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CNP_HEADER_H
#define AI_FABRIC_CNP_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Body of a RoCEv2 congestion notification packet: 16 reserved zero bytes
 * after a BTH with opcode 0x81 and BECN set.
 */
class CnpHeader : public Header
{
  public:
    CnpHeader();

    /// \return the TypeId
    static TypeId GetTypeId();
    /// \return the TypeId
    TypeId GetInstanceTypeId() const override;
    /// \return SIZE, 16 bytes
    uint32_t GetSerializedSize() const override;
    /// Write SIZE zero bytes (the reserved CNP payload).
    /// \param start where the header is written
    void Serialize(Buffer::Iterator start) const override;
    /// Skip the SIZE reserved bytes.
    /// \param start where the header is read
    /// \return the bytes read, SIZE
    uint32_t Deserialize(Buffer::Iterator start) override;
    /// Print "CNP".
    /// \param os the stream printed to
    void Print(std::ostream& os) const override;

    /// Serialized size in bytes.
    static constexpr uint32_t SIZE = 16;
};

} // namespace ns3

#endif /* AI_FABRIC_CNP_HEADER_H */
