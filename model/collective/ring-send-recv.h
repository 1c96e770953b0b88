/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_RING_SEND_RECV_H
#define AI_FABRIC_RING_SEND_RECV_H

#include "ring-collective.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief SendRecv as nccl-tests' sendrecv_perf runs it: every rank sends S bytes to the
 * next rank and receives S bytes from the previous one, at the same time.
 * busbw = algbw x 1 (nccl-tests).
 */
class RingSendRecv : public RingCollective
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    RingSendRecv();
    ~RingSendRecv() override;

    std::string GetCollectiveName() const override;
    double GetBusBandwidthFactor(uint32_t ranks) const override;

  protected:
    uint32_t GetRingChunks(uint32_t n) const override;
    uint32_t GetFirstSender(uint32_t chunk, uint32_t n) const override;
    uint32_t GetHops(uint32_t n) const override;
    uint32_t GetReducedHops(uint32_t n) const override;
    uint64_t GetChunkBytes(uint32_t chunk, uint32_t chunks) const override;
};

} // namespace ns3

#endif /* AI_FABRIC_RING_SEND_RECV_H */
