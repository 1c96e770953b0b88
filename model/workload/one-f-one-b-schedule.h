/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_ONE_F_ONE_B_SCHEDULE_H
#define AI_FABRIC_ONE_F_ONE_B_SCHEDULE_H

#include "pipeline-schedule.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief 1F1B (PipeDream-Flush, Megatron's non-interleaved schedule): stage s runs
 * min(S-s-1, M) warm-up forward passes, then alternates one forward and one backward
 * pass, then the remaining backward passes. Microbatches go backward in the order
 * they went forward. A stage holds at most S-s microbatches' activations (not M as
 * in GPipe), with the same bubble (S-1)/(M+S-1) for passes of equal time.
 */
class OneFOneBSchedule : public PipelineSchedule
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();

    std::vector<Pass> GetPasses(uint32_t stages,
                                uint32_t microbatches,
                                uint32_t stage) const override;
};

} // namespace ns3

#endif /* AI_FABRIC_ONE_F_ONE_B_SCHEDULE_H */
