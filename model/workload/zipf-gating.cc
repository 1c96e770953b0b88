/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "zipf-gating.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ZipfGating");

NS_OBJECT_ENSURE_REGISTERED(ZipfGating);

TypeId
ZipfGating::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ZipfGating")
            .SetParent<ExpertGating>()
            .SetGroupName("AiFabric")
            .AddConstructor<ZipfGating>()
            .AddAttribute("Exponent",
                          "s: popularity rank i (0 the most popular) has weight 1 / (i + 1)^s "
                          "(>= 0; 0 is uniform)",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&ZipfGating::m_exponent),
                          MakeDoubleChecker<double>());
    return tid;
}

ZipfGating::ZipfGating()
{
    NS_LOG_FUNCTION(this);
}

ZipfGating::~ZipfGating() = default;

std::vector<double>
ZipfGating::GetWeights(uint32_t experts) const
{
    NS_LOG_FUNCTION(this << experts);
    NS_ABORT_MSG_IF(!(m_exponent >= 0),
                    "ZipfGating: Exponent " << m_exponent << " must not be negative");
    std::vector<double> weights(experts);
    for (uint32_t i = 0; i < experts; ++i)
    {
        weights[i] = std::pow(i + 1.0, -m_exponent);
    }
    return weights;
}

} // namespace ns3
