/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "one-f-one-b-schedule.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(OneFOneBSchedule);

TypeId
OneFOneBSchedule::GetTypeId()
{
    static TypeId tid = TypeId("ns3::OneFOneBSchedule")
                            .SetParent<PipelineSchedule>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<OneFOneBSchedule>();
    return tid;
}

std::vector<PipelineSchedule::Pass>
OneFOneBSchedule::GetPasses(uint32_t stages, uint32_t microbatches, uint32_t stage) const
{
    const uint32_t warmup = std::min(stages - stage - 1, microbatches);
    std::vector<Pass> passes;
    uint32_t forward = 0;
    uint32_t backward = 0;
    for (; forward < warmup; ++forward)
    {
        passes.push_back({true, forward});
    }
    for (; forward < microbatches; ++forward, ++backward)
    {
        passes.push_back({true, forward});
        passes.push_back({false, backward});
    }
    for (; backward < microbatches; ++backward)
    {
        passes.push_back({false, backward});
    }
    return passes;
}

} // namespace ns3
