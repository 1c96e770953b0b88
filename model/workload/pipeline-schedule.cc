/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pipeline-schedule.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PipelineSchedule);

TypeId
PipelineSchedule::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PipelineSchedule").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

PipelineSchedule::~PipelineSchedule() = default;

} // namespace ns3
