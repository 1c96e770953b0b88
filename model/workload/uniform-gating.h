/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_UNIFORM_GATING_H
#define AI_FABRIC_UNIFORM_GATING_H

#include "expert-gating.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A balanced gate: every expert equally popular (weight 1), so a token's k
 * experts are k distinct experts drawn uniformly, and every expert expects
 * n x TokensPerRank x k / E tokens an iteration.
 */
class UniformGating : public ExpertGating
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();

    std::vector<double> GetWeights(uint32_t experts) const override;
};

} // namespace ns3

#endif /* AI_FABRIC_UNIFORM_GATING_H */
