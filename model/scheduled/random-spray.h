/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_RANDOM_SPRAY_H
#define AI_FABRIC_RANDOM_SPRAY_H

#include "spray-policy.h"

namespace ns3
{

class UniformRandomVariable;

/**
 * \ingroup ai-fabric
 * \brief Each cell goes to a usable link drawn uniformly at random (the next link
 * with room, in order, if the drawn one has none).
 */
class RandomSpray : public SprayPolicy
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RandomSpray();
    ~RandomSpray() override;

    uint32_t Pick(uint32_t dstLeaf,
                  const std::vector<uint32_t>& links,
                  uint32_t wireBytes,
                  uint32_t reserveBytes) override;
    int64_t AssignStreams(int64_t stream) override;

  protected:
    /// Release the random stream.
    void DoDispose() override;

  private:
    Ptr<UniformRandomVariable> m_rng; //!< link draws
};

} // namespace ns3

#endif /* AI_FABRIC_RANDOM_SPRAY_H */
