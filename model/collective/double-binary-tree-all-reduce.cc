/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "double-binary-tree-all-reduce.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DoubleBinaryTreeAllReduce");

NS_OBJECT_ENSURE_REGISTERED(DoubleBinaryTreeAllReduce);

TypeId
DoubleBinaryTreeAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DoubleBinaryTreeAllReduce")
                            .SetParent<StepGraphCollective>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<DoubleBinaryTreeAllReduce>();
    return tid;
}

DoubleBinaryTreeAllReduce::DoubleBinaryTreeAllReduce()
{
    NS_LOG_FUNCTION(this);
}

DoubleBinaryTreeAllReduce::~DoubleBinaryTreeAllReduce() = default;

std::string
DoubleBinaryTreeAllReduce::GetCollectiveName() const
{
    return "AllReduce";
}

double
DoubleBinaryTreeAllReduce::GetBusBandwidthFactor(uint32_t ranks) const
{
    return 2.0 * (ranks - 1) / ranks;
}

namespace
{

/// \param n ranks \param rank a rank \return its parent in the in-order tree (n: root)
uint32_t
InOrderParent(uint32_t n, uint32_t rank)
{
    if (rank == 0)
    {
        return n;
    }
    const uint32_t bit = rank & (~rank + 1); // lowest set bit
    const uint32_t up = (rank ^ bit) | (bit << 1);
    return up < n ? up : rank ^ bit;
}

} // namespace

std::vector<uint32_t>
DoubleBinaryTreeAllReduce::GetParents(uint32_t n, uint32_t tree)
{
    std::vector<uint32_t> parent(n);
    for (uint32_t rank = 0; rank < n; ++rank)
    {
        if (tree == 0)
        {
            parent[rank] = InOrderParent(n, rank);
        }
        else if (n % 2 == 0)
        {
            // Mirrored: rank r plays n-1-r.
            uint32_t up = InOrderParent(n, n - 1 - rank);
            parent[rank] = up == n ? n : n - 1 - up;
        }
        else
        {
            // Shifted: rank r plays r-1.
            uint32_t up = InOrderParent(n, (rank + n - 1) % n);
            parent[rank] = up == n ? n : (up + 1) % n;
        }
    }
    return parent;
}

void
DoubleBinaryTreeAllReduce::PlanSteps()
{
    NS_LOG_FUNCTION(this);
    const uint32_t n = m_comm->GetSize();
    if (n == 1)
    {
        return;
    }
    for (uint32_t tree = 0; tree < 2; ++tree)
    {
        const std::vector<uint32_t> parent = GetParents(n, tree);
        const uint64_t treeBytes = SplitBytes(m_bytes, 2, tree);
        for (uint32_t c = 0; c < m_channels; ++c)
        {
            const uint64_t onChannel = SplitBytes(treeBytes, m_channels, c);
            for (uint64_t offset = 0; offset < onChannel; offset += m_chunkSize)
            {
                const uint64_t piece = std::min(m_chunkSize, onChannel - offset);
                // Per rank a lane of two steps: step 0 waits for the piece from its
                // children (reduced) and sends it up (the root: down to its
                // children); step 1 waits for it from the parent and sends it down.
                std::vector<std::vector<StepId>> lane(n);
                for (uint32_t r = 0; r < n; ++r)
                {
                    lane[r] = AddLane(r, parent[r] == n ? 1 : 2);
                }
                for (uint32_t r = 0; r < n; ++r)
                {
                    const uint32_t up = parent[r];
                    if (up == n)
                    {
                        continue;
                    }
                    AddTransfer(lane[r][0], lane[up][0], piece, c, true);
                    // Down: the parent's last step (the root's only one) sends it back.
                    AddTransfer(lane[up].back(), lane[r][1], piece, c, false);
                }
            }
        }
    }
}

} // namespace ns3
