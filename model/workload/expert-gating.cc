/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "expert-gating.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/random-variable-stream.h"

#include <algorithm>
#include <numeric>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ExpertGating");

NS_OBJECT_ENSURE_REGISTERED(ExpertGating);

TypeId
ExpertGating::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ExpertGating")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddAttribute("Shuffle",
                          "Draw anew every iteration which expert holds which popularity rank "
                          "(false: expert e holds rank e, so expert 0 is always the most popular)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&ExpertGating::m_shuffle),
                          MakeBooleanChecker());
    return tid;
}

ExpertGating::ExpertGating()
{
    NS_LOG_FUNCTION(this);
}

ExpertGating::~ExpertGating() = default;

void
ExpertGating::Setup(uint32_t experts)
{
    NS_LOG_FUNCTION(this << experts);
    const std::string name = GetInstanceTypeId().GetName();
    NS_ABORT_MSG_IF(experts < 1, name << ": Setup with 0 experts");
    std::vector<double> weights = GetWeights(experts);
    NS_ABORT_MSG_IF(weights.size() != experts,
                    name << ": " << weights.size() << " weights for " << experts << " experts");
    double total = 0;
    for (double w : weights)
    {
        NS_ABORT_MSG_IF(!(w >= 0), name << ": a weight of " << w << " (must not be negative)");
        total += w;
    }
    NS_ABORT_MSG_IF(!(total > 0), name << ": every weight is 0");
    m_rankWeights = std::move(weights);
    m_weight = m_rankWeights;
    m_drawn.assign(experts, false);
    m_cumulative.assign(experts, 0);
    std::partial_sum(m_weight.begin(), m_weight.end(), m_cumulative.begin());
    m_total = m_cumulative.back();
    m_lastPositive = experts - 1;
    while (m_weight[m_lastPositive] == 0)
    {
        --m_lastPositive;
    }
}

Ptr<ExpertGating>
ExpertGating::CreateFromSpec(const std::string& spec, const std::string& owner)
{
    NS_LOG_FUNCTION(spec << owner);
    TypeId gating;
    NS_ABORT_MSG_IF(!TypeId::LookupByNameFailSafe(spec.substr(0, spec.find('[')), &gating) ||
                        !gating.IsChildOf(ExpertGating::GetTypeId()) || !gating.HasConstructor(),
                    owner << ": Gating \"" << spec
                          << "\" is not an ExpertGating subclass (ns3::UniformGating, "
                             "ns3::ZipfGating, ns3::HotExpertGating)");
    ObjectFactory factory;
    std::istringstream text(spec);
    text >> factory;
    NS_ABORT_MSG_IF(text.fail(),
                    owner << ": Gating \"" << spec
                          << "\" is not a TypeId with attributes (ns3::ZipfGating[Exponent=1.2])");
    return factory.Create<ExpertGating>();
}

uint32_t
ExpertGating::GetExperts() const
{
    return static_cast<uint32_t>(m_rankWeights.size());
}

void
ExpertGating::DrawIteration(Ptr<UniformRandomVariable> rng)
{
    NS_LOG_FUNCTION(this);
    const auto experts = static_cast<uint32_t>(m_rankWeights.size());
    NS_ABORT_MSG_IF(experts == 0, GetInstanceTypeId().GetName() << ": DrawIteration before Setup");
    // expertOfRank[i]: the expert holding popularity rank i (Fisher-Yates).
    std::vector<uint32_t> expertOfRank(experts);
    std::iota(expertOfRank.begin(), expertOfRank.end(), 0);
    if (m_shuffle)
    {
        for (uint32_t i = experts - 1; i > 0; --i)
        {
            std::swap(expertOfRank[i], expertOfRank[rng->GetInteger(0, i)]);
        }
    }
    for (uint32_t i = 0; i < experts; ++i)
    {
        m_weight[expertOfRank[i]] = m_rankWeights[i];
    }
    NS_LOG_LOGIC("most popular expert " << expertOfRank[0]);
    std::partial_sum(m_weight.begin(), m_weight.end(), m_cumulative.begin());
    m_total = m_cumulative.back();
    m_lastPositive = experts - 1;
    while (m_weight[m_lastPositive] == 0)
    {
        --m_lastPositive;
    }
}

double
ExpertGating::GetExpertWeight(uint32_t expert) const
{
    NS_ABORT_MSG_IF(expert >= m_weight.size(),
                    GetInstanceTypeId().GetName()
                        << ": expert " << expert << " of " << m_weight.size());
    return m_weight[expert];
}

uint32_t
ExpertGating::DrawAny(Ptr<UniformRandomVariable> rng) const
{
    const double u = rng->GetValue(0, m_total);
    // The first expert whose cumulative weight passes u: expert e with probability
    // weight(e) / total (an expert of weight 0 never passes). Rounding can put u at
    // the total: the last expert of positive weight then.
    const auto e = static_cast<uint32_t>(
        std::upper_bound(m_cumulative.begin(), m_cumulative.end(), u) - m_cumulative.begin());
    return std::min(e, m_lastPositive);
}

void
ExpertGating::Route(Ptr<UniformRandomVariable> rng, uint32_t k, std::vector<uint32_t>& experts)
{
    NS_LOG_FUNCTION(this << k);
    const auto n = static_cast<uint32_t>(m_weight.size());
    NS_ABORT_MSG_IF(n == 0, GetInstanceTypeId().GetName() << ": Route before Setup");
    NS_ABORT_MSG_IF(k < 1 || k > n,
                    GetInstanceTypeId().GetName() << ": " << k << " experts of " << n);
    experts.clear();
    double drawnWeight = 0;
    for (uint32_t c = 0; c < k; ++c)
    {
        uint32_t e = 0;
        if (drawnWeight < 0.5 * m_total)
        {
            // Redraw from all experts until an undrawn one comes: each undrawn expert
            // in proportion to its weight, fewer than two draws on average.
            do
            {
                e = DrawAny(rng);
            } while (m_drawn[e]);
        }
        else
        {
            double left = 0;
            for (uint32_t x = 0; x < n; ++x)
            {
                left += m_drawn[x] ? 0 : m_weight[x];
            }
            if (left > 0)
            {
                // Most of the weight is drawn: walk the undrawn experts.
                double u = rng->GetValue(0, left);
                uint32_t last = n;
                for (uint32_t x = 0; x < n; ++x)
                {
                    if (m_drawn[x] || m_weight[x] == 0)
                    {
                        continue;
                    }
                    last = x;
                    if (u < m_weight[x])
                    {
                        break;
                    }
                    u -= m_weight[x];
                }
                e = last;
            }
            else
            {
                // Only experts of weight 0 are left: one of them, uniformly.
                NS_LOG_LOGIC("only experts of weight 0 left");
                uint32_t index = rng->GetInteger(0, n - c - 1);
                for (e = 0; m_drawn[e] || index-- > 0; ++e)
                {
                }
            }
        }
        m_drawn[e] = true;
        drawnWeight += m_weight[e];
        experts.push_back(e);
    }
    for (uint32_t e : experts)
    {
        m_drawn[e] = false;
    }
}

} // namespace ns3
