/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_DOUBLE_BINARY_TREE_ALL_REDUCE_H
#define AI_FABRIC_DOUBLE_BINARY_TREE_ALL_REDUCE_H

#include "step-graph-collective.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief AllReduce on two binary trees, as NCCL's double binary tree: each tree
 * reduces half of S up to its root and broadcasts it back down, in pieces of at most
 * ChunkSize that pipeline (a piece moves on as soon as it has arrived and, going up,
 * has been reduced with the pieces of the rank's children).
 *
 * Tree 0 is the in-order binary tree of ranks: rank 0 is the root, with one child,
 * the largest power of two below n; a rank whose lowest set bit is b has children
 * rank - b/2 and rank + b/2 (halving b/2 while it is beyond the last rank), and
 * parent rank with bit b cleared and bit 2b set (or only b cleared, when that is
 * beyond the last rank). Tree 1 is tree 0 mirrored (rank -> n-1-rank) when n is even
 * and shifted by one (rank -> rank+1 mod n) when n is odd, so that a leaf of one tree
 * is an inner rank of the other and every rank sends and receives about 2 x S.
 *
 * Each tree's half is split evenly over the Channels; tree pieces travel on their
 * channel's connections. busbw = algbw x 2(n-1)/n (nccl-tests).
 */
class DoubleBinaryTreeAllReduce : public StepGraphCollective
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    DoubleBinaryTreeAllReduce();
    ~DoubleBinaryTreeAllReduce() override;

    std::string GetCollectiveName() const override;
    double GetBusBandwidthFactor(uint32_t ranks) const override;

    /**
     * The parents of one of the two trees.
     * \param n ranks (> 0) \param tree 0 or 1
     * \return parent of each rank (n for the root)
     */
    static std::vector<uint32_t> GetParents(uint32_t n, uint32_t tree);

  protected:
    void PlanSteps() override;
};

} // namespace ns3

#endif /* AI_FABRIC_DOUBLE_BINARY_TREE_ALL_REDUCE_H */
