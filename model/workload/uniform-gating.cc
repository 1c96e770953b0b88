/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "uniform-gating.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UniformGating);

TypeId
UniformGating::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UniformGating")
                            .SetParent<ExpertGating>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<UniformGating>();
    return tid;
}

std::vector<double>
UniformGating::GetWeights(uint32_t experts) const
{
    return std::vector<double>(experts, 1.0);
}

} // namespace ns3
