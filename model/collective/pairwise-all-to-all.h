/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_PAIRWISE_ALL_TO_ALL_H
#define AI_FABRIC_PAIRWISE_ALL_TO_ALL_H

#include "pairwise-exchange.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief AlltoAll by pairwise exchange (PairwiseExchange), as nccl-tests counts it: S
 * is the size of each rank's send buffer (and of its receive buffer), cut into n
 * blocks; block d goes to rank d. Block d has SplitBytes(S, n, d) bytes (S/n, one
 * more for d < S mod n), so rank r sends S - block(r) and receives (n-1) x block(r);
 * its own block is a local copy. With S a multiple of n both are (n-1)/n x S.
 * busbw = algbw x (n-1)/n (nccl-tests).
 */
class PairwiseAlltoAll : public PairwiseExchange
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    PairwiseAlltoAll();
    ~PairwiseAlltoAll() override;

    std::string GetCollectiveName() const override;

  protected:
    uint64_t GetPairBytes(uint32_t src, uint32_t dst) const override;
};

} // namespace ns3

#endif /* AI_FABRIC_PAIRWISE_ALL_TO_ALL_H */
