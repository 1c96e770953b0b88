/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "gpipe-schedule.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(GpipeSchedule);

TypeId
GpipeSchedule::GetTypeId()
{
    static TypeId tid = TypeId("ns3::GpipeSchedule")
                            .SetParent<PipelineSchedule>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<GpipeSchedule>();
    return tid;
}

std::vector<PipelineSchedule::Pass>
GpipeSchedule::GetPasses(uint32_t /* stages */, uint32_t microbatches, uint32_t /* stage */) const
{
    std::vector<Pass> passes;
    for (uint32_t m = 0; m < microbatches; ++m)
    {
        passes.push_back({true, m});
    }
    for (uint32_t m = microbatches; m-- > 0;)
    {
        passes.push_back({false, m});
    }
    return passes;
}

} // namespace ns3
