/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "halving-doubling-all-reduce.h"

#include "ns3/log.h"

#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HalvingDoublingAllReduce");

NS_OBJECT_ENSURE_REGISTERED(HalvingDoublingAllReduce);

TypeId
HalvingDoublingAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HalvingDoublingAllReduce")
                            .SetParent<StepGraphCollective>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<HalvingDoublingAllReduce>();
    return tid;
}

HalvingDoublingAllReduce::HalvingDoublingAllReduce()
{
    NS_LOG_FUNCTION(this);
}

HalvingDoublingAllReduce::~HalvingDoublingAllReduce() = default;

std::string
HalvingDoublingAllReduce::GetCollectiveName() const
{
    return "AllReduce";
}

double
HalvingDoublingAllReduce::GetBusBandwidthFactor(uint32_t ranks) const
{
    return 2.0 * (ranks - 1) / ranks;
}

void
HalvingDoublingAllReduce::PlanSteps()
{
    NS_LOG_FUNCTION(this);
    const uint32_t n = m_comm->GetSize();
    if (n == 1)
    {
        return;
    }
    uint32_t p = 1;
    uint32_t k = 0;
    while (2 * p <= n)
    {
        p *= 2;
        ++k;
    }
    const uint32_t extra = n - p;
    // Core rank v (0 .. p-1) of the exchanges; an extra rank folds into the next one.
    auto rankOf = [extra](uint32_t v) { return v < extra ? 2 * v + 1 : v + extra; };
    NS_LOG_LOGIC(n << " ranks: " << p << " in the exchanges, " << extra << " folded in");

    using Range = std::pair<uint64_t, uint64_t>; // [first, last) bytes
    for (uint32_t c = 0; c < m_channels; ++c)
    {
        const uint64_t bytes = SplitBytes(m_bytes, m_channels, c);
        if (bytes == 0)
        {
            continue;
        }
        // held[v][j]: the range core rank v reduces after halving exchange j
        // (j = 0: the whole buffer, before any exchange).
        std::vector<std::vector<Range>> held(p, std::vector<Range>(k + 1, {0, bytes}));
        for (uint32_t j = 0; j < k; ++j)
        {
            const uint32_t distance = p >> (j + 1);
            for (uint32_t v = 0; v < p; ++v)
            {
                const Range r = held[v][j];
                const uint64_t mid = r.first + (r.second - r.first) / 2;
                held[v][j + 1] = (v & distance) ? Range{mid, r.second} : Range{r.first, mid};
            }
        }
        // Core lane steps: step j posts exchange j (0 .. 2k-1) after receiving exchange
        // j-1; step 2k receives the last one (and sends the result to a folded rank).
        std::vector<std::vector<StepId>> core(p);
        for (uint32_t v = 0; v < p; ++v)
        {
            core[v] = AddLane(rankOf(v), 2 * k + 1);
        }
        for (uint32_t v = 0; v < p; ++v)
        {
            for (uint32_t j = 0; j < k; ++j)
            {
                // Halving: send the half the partner keeps, reduced by it.
                const uint32_t partner = v ^ (p >> (j + 1));
                const Range give = held[partner][j + 1];
                if (give.second > give.first)
                {
                    AddTransfer(core[v][j],
                                core[partner][j + 1],
                                give.second - give.first,
                                c,
                                true);
                }
                // Doubling (exchange 2k-1-j at the same distance): send what v holds.
                const Range have = held[v][j + 1];
                if (have.second > have.first)
                {
                    AddTransfer(core[v][2 * k - 1 - j],
                                core[partner][2 * k - j],
                                have.second - have.first,
                                c,
                                false);
                }
            }
        }
        for (uint32_t e = 0; e < extra; ++e)
        {
            const std::vector<StepId> folded = AddLane(2 * e, 2);
            AddTransfer(folded[0], core[e][0], bytes, c, true);
            AddTransfer(core[e][2 * k], folded[1], bytes, c, false);
        }
    }
}

} // namespace ns3
