/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_GPIPE_SCHEDULE_H
#define AI_FABRIC_GPIPE_SCHEDULE_H

#include "pipeline-schedule.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief GPipe: every stage runs the forward passes of all M microbatches, then
 * their backward passes (last microbatch first, as its gradients arrive first). A
 * stage holds the activations of all M microbatches at once; with passes of equal
 * time on every stage the bubble (idle share of the iteration) is (S-1)/(M+S-1).
 */
class GpipeSchedule : public PipelineSchedule
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();

    std::vector<Pass> GetPasses(uint32_t stages,
                                uint32_t microbatches,
                                uint32_t stage) const override;
};

} // namespace ns3

#endif /* AI_FABRIC_GPIPE_SCHEDULE_H */
