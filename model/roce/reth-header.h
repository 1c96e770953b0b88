/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_RETH_HEADER_H
#define AI_FABRIC_RETH_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief InfiniBand RDMA Extended Transport Header (16 bytes): virtual address (64
 * bits), R_Key (32 bits), DMA length (32 bits). Follows the BTH of RDMA WRITE First
 * and RDMA WRITE Only packets.
 */
class RethHeader : public Header
{
  public:
    RethHeader();

    /// \return the TypeId
    static TypeId GetTypeId();
    /// \return the TypeId
    TypeId GetInstanceTypeId() const override;
    /// \return SIZE, 16 bytes
    uint32_t GetSerializedSize() const override;
    /// Write the virtual address, R_Key and DMA length in network order.
    /// \param start where the header is written
    void Serialize(Buffer::Iterator start) const override;
    /// Read the virtual address, R_Key and DMA length.
    /// \param start where the header is read
    /// \return the bytes read, SIZE
    uint32_t Deserialize(Buffer::Iterator start) override;
    /// Print the virtual address, R_Key and DMA length.
    /// \param os the stream printed to
    void Print(std::ostream& os) const override;

    /// \param va remote virtual address
    void SetVirtualAddress(uint64_t va);
    /// \return remote virtual address
    uint64_t GetVirtualAddress() const;
    /// \param rkey remote key
    void SetRKey(uint32_t rkey);
    /// \return remote key
    uint32_t GetRKey() const;
    /// \param length DMA length in bytes
    void SetDmaLength(uint32_t length);
    /// \return DMA length in bytes
    uint32_t GetDmaLength() const;

    /// Serialized size in bytes.
    static constexpr uint32_t SIZE = 16;

  private:
    uint64_t m_va{0};        //!< virtual address
    uint32_t m_rkey{0};      //!< R_Key
    uint32_t m_dmaLength{0}; //!< DMA length
};

} // namespace ns3

#endif /* AI_FABRIC_RETH_HEADER_H */
