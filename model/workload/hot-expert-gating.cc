/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "hot-expert-gating.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HotExpertGating");

NS_OBJECT_ENSURE_REGISTERED(HotExpertGating);

TypeId
HotExpertGating::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HotExpertGating")
            .SetParent<ExpertGating>()
            .SetGroupName("AiFabric")
            .AddConstructor<HotExpertGating>()
            .AddAttribute("HotFraction",
                          "h: the hot expert's weight, in [0, 1]; each other expert has "
                          "(1 - h) / (E - 1), so a token's first expert is the hot one with "
                          "probability h",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&HotExpertGating::m_hotFraction),
                          MakeDoubleChecker<double>());
    return tid;
}

HotExpertGating::HotExpertGating()
{
    NS_LOG_FUNCTION(this);
}

HotExpertGating::~HotExpertGating() = default;

std::vector<double>
HotExpertGating::GetWeights(uint32_t experts) const
{
    NS_LOG_FUNCTION(this << experts);
    NS_ABORT_MSG_IF(!(m_hotFraction >= 0 && m_hotFraction <= 1),
                    "HotExpertGating: HotFraction " << m_hotFraction << " is not in [0, 1]");
    if (experts == 1)
    {
        NS_LOG_LOGIC("one expert: it takes every token");
        return {1.0};
    }
    std::vector<double> weights(experts, (1 - m_hotFraction) / (experts - 1));
    weights[0] = m_hotFraction;
    return weights;
}

} // namespace ns3
