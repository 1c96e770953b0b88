/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_ZIPF_GATING_H
#define AI_FABRIC_ZIPF_GATING_H

#include "expert-gating.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A Zipf-skewed gate: popularity rank i (0 the most popular) has weight
 * 1 / (i + 1)^s, s the Exponent (>= 0). s = 0 is uniform; the larger s, the more
 * tokens go to the few most popular experts (with k = 1 the most popular gets
 * 1 / H(E, s) of them, H(E, s) = sum of 1 / j^s over j = 1 .. E).
 */
class ZipfGating : public ExpertGating
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    ZipfGating();
    ~ZipfGating() override;

    /// Stops with a message naming Exponent if it is negative (or not a number).
    /// \param experts E (>= 1) \return weight (rank + 1)^-Exponent of each popularity rank
    std::vector<double> GetWeights(uint32_t experts) const override;

  private:
    double m_exponent; //!< s, the Exponent attribute
};

} // namespace ns3

#endif /* AI_FABRIC_ZIPF_GATING_H */
