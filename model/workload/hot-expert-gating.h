/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_HOT_EXPERT_GATING_H
#define AI_FABRIC_HOT_EXPERT_GATING_H

#include "expert-gating.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A gate with one hot expert: weight h (HotFraction, in [0, 1]) for the hot
 * expert and (1 - h) / (E - 1) for each of the others (one expert: weight 1). A
 * token's first expert is the hot one with probability h; with k > 1 its later
 * experts are drawn from the rest in proportion to their weights, so the hot expert
 * receives more than h of the tokens (k = 2: h + (1 - h) h / (1 - w), w = (1 - h) /
 * (E - 1) the weight of a cold expert). h = 1 / E is uniform; h = 1 with k = 1
 * sends every token to the hot expert.
 */
class HotExpertGating : public ExpertGating
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    HotExpertGating();
    ~HotExpertGating() override;

    /// Stops with a message naming HotFraction if it is outside [0, 1].
    /// \param experts E (>= 1) \return HotFraction for rank 0, the rest split evenly
    ///         over the others (1 for a single expert)
    std::vector<double> GetWeights(uint32_t experts) const override;

  private:
    double m_hotFraction; //!< h, the HotFraction attribute
};

} // namespace ns3

#endif /* AI_FABRIC_HOT_EXPERT_GATING_H */
