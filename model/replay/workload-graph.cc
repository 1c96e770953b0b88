/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "workload-graph.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace ns3
{

namespace
{
/**
 * \param node a collective node \param members its group's size
 * \return "" or why its split does not fit: an AlltoAllv's lists every member's bytes
 *         and sums to its bytes; no other collective has one
 */
std::string
CheckSplit(const WorkloadNode& node, std::size_t members)
{
    if (node.collective != "AlltoAllv")
    {
        return node.split.empty() ? ""
                                  : node.collective + " with bytes per peer (only AlltoAllv "
                                                      "has them)";
    }
    std::ostringstream problem;
    if (node.split.size() != members)
    {
        problem << "AlltoAllv with bytes for " << node.split.size() << " peers, but its group has "
                << members << " members";
        return problem.str();
    }
    uint64_t sum = 0;
    bool fits = true;
    for (uint64_t b : node.split)
    {
        fits = fits && b <= node.bytes - sum; // sum never passes bytes, so no overflow
        sum += fits ? b : 0;
    }
    if (!fits || sum != node.bytes)
    {
        problem << "AlltoAllv of " << node.bytes << " B whose bytes per peer do not add up to it";
    }
    return problem.str();
}
} // namespace

uint32_t
WorkloadGraph::GetRanks() const
{
    return static_cast<uint32_t>(nodes.size());
}

uint64_t
WorkloadGraph::GetNodeCount() const
{
    uint64_t count = 0;
    for (const auto& rank : nodes)
    {
        count += rank.size();
    }
    return count;
}

uint64_t
WorkloadGraph::GetEdgeCount() const
{
    uint64_t count = 0;
    for (const auto& rank : nodes)
    {
        for (const WorkloadNode& node : rank)
        {
            count += node.deps.size();
        }
    }
    return count;
}

uint32_t
WorkloadGraph::AddLabel(const std::string& name)
{
    const auto [it, added] = m_labelIndex.emplace(name, static_cast<uint32_t>(labels.size()));
    if (added)
    {
        labels.push_back(name);
    }
    return it->second;
}

uint32_t
WorkloadGraph::AddTraffic(const std::string& name)
{
    for (uint32_t i = 0; i < trafficNames.size(); ++i)
    {
        if (trafficNames[i] == name)
        {
            return i;
        }
    }
    trafficNames.push_back(name);
    return static_cast<uint32_t>(trafficNames.size() - 1);
}

uint32_t
WorkloadGraph::AddGroup(const std::vector<uint32_t>& ranks, const std::string& name)
{
    for (uint32_t i = 0; i < groups.size(); ++i)
    {
        if (groups[i] == ranks)
        {
            return i;
        }
    }
    groups.push_back(ranks);
    groupNames.push_back(name);
    return static_cast<uint32_t>(groups.size() - 1);
}

std::string
WorkloadGraph::Describe(uint32_t rank, uint32_t index) const
{
    const WorkloadNode& node = nodes[rank][index];
    std::ostringstream text;
    text << source << ": rank " << rank << " node " << node.id;
    if (node.label < labels.size() && !labels[node.label].empty())
    {
        text << " (" << labels[node.label] << ")";
    }
    return text.str();
}

std::string
WorkloadGraph::Link()
{
    const uint32_t ranks = GetRanks();
    std::ostringstream problem;

    // Groups: ranks that exist, each once.
    for (uint32_t g = 0; g < groups.size(); ++g)
    {
        std::unordered_set<uint32_t> seen;
        for (uint32_t member : groups[g])
        {
            if (member >= ranks || !seen.insert(member).second)
            {
                problem << source << ": group " << groupNames[g] << " lists rank " << member
                        << (member >= ranks ? ", beyond the " + std::to_string(ranks) + " ranks"
                                            : " twice");
                return problem.str();
            }
        }
    }

    // Dependencies inside each rank, by id.
    dependents.assign(ranks, {});
    depCount.assign(ranks, {});
    operation.assign(ranks, {});
    for (uint32_t r = 0; r < ranks; ++r)
    {
        const auto& list = nodes[r];
        dependents[r].assign(list.size(), {});
        depCount[r].assign(list.size(), 0);
        operation[r].assign(list.size(), 0);
        std::unordered_map<uint64_t, uint32_t> indexOf;
        for (uint32_t i = 0; i < list.size(); ++i)
        {
            if (!indexOf.emplace(list[i].id, i).second)
            {
                return Describe(r, i) + ": the id is used twice";
            }
        }
        for (uint32_t i = 0; i < list.size(); ++i)
        {
            std::unordered_set<uint64_t> seen;
            for (uint64_t dep : list[i].deps)
            {
                const auto it = indexOf.find(dep);
                if (it == indexOf.end())
                {
                    problem << Describe(r, i) << " depends on node " << dep << ", which rank " << r
                            << " does not have";
                    return problem.str();
                }
                if (!seen.insert(dep).second)
                {
                    continue; // listed twice (as a data and a control dependency)
                }
                dependents[r][it->second].push_back(i);
                depCount[r][i]++;
            }
        }
    }

    // Collectives: the k-th node of every member naming a group is one operation.
    operations.clear();
    std::vector<std::vector<std::vector<uint32_t>>> byGroup(groups.size()); // group, rank
    for (uint32_t g = 0; g < groups.size(); ++g)
    {
        byGroup[g].assign(groups[g].size(), {});
    }
    std::vector<std::unordered_map<uint32_t, uint32_t>> groupRank(groups.size());
    for (uint32_t g = 0; g < groups.size(); ++g)
    {
        for (uint32_t i = 0; i < groups[g].size(); ++i)
        {
            groupRank[g][groups[g][i]] = i;
        }
    }
    // Point-to-point: (source, destination, tag) -> sends and receives in order.
    std::map<std::tuple<uint32_t, uint32_t, int64_t>,
             std::pair<std::vector<uint32_t>, std::vector<uint32_t>>>
        messages;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        for (uint32_t i = 0; i < nodes[r].size(); ++i)
        {
            const WorkloadNode& node = nodes[r][i];
            if (node.traffic >= trafficNames.size())
            {
                return Describe(r, i) + ": no such kind of traffic";
            }
            if (node.kind == WorkloadNode::COLLECTIVE)
            {
                if (node.group >= groups.size())
                {
                    return Describe(r, i) + ": no such group";
                }
                const auto it = groupRank[node.group].find(r);
                if (it == groupRank[node.group].end())
                {
                    return Describe(r, i) + ": a collective over group " + groupNames[node.group] +
                           ", which does not include rank " + std::to_string(r);
                }
                const std::string splitProblem = CheckSplit(node, groups[node.group].size());
                if (!splitProblem.empty())
                {
                    return Describe(r, i) + ": " + splitProblem;
                }
                byGroup[node.group][it->second].push_back(i);
            }
            else if (node.kind == WorkloadNode::SEND || node.kind == WorkloadNode::RECV)
            {
                if (node.peer >= ranks || node.peer == r)
                {
                    problem << Describe(r, i) << ": peer rank " << node.peer
                            << (node.peer == r
                                    ? " is the rank itself"
                                    : " is beyond the " + std::to_string(ranks) + " ranks");
                    return problem.str();
                }
                if (node.kind == WorkloadNode::SEND)
                {
                    messages[{r, node.peer, node.tag}].first.push_back(i);
                }
                else
                {
                    messages[{node.peer, r, node.tag}].second.push_back(i);
                }
            }
        }
    }
    for (uint32_t g = 0; g < groups.size(); ++g)
    {
        const auto& members = byGroup[g];
        for (uint32_t m = 0; m < members.size(); ++m)
        {
            if (members[m].size() != members[0].size())
            {
                const uint32_t fewer = members[m].size() < members[0].size() ? m : 0;
                const uint32_t more = fewer == m ? 0 : m;
                const uint32_t k = static_cast<uint32_t>(members[fewer].size());
                return Describe(groups[g][more], members[more][k]) + ": collective " +
                       std::to_string(k + 1) + " over group " + groupNames[g] + ", which rank " +
                       std::to_string(groups[g][fewer]) + " never joins";
            }
        }
        for (uint32_t k = 0; k < members[0].size(); ++k)
        {
            Operation op;
            op.group = g;
            const WorkloadNode& first = nodes[groups[g][0]][members[0][k]];
            for (uint32_t m = 0; m < members.size(); ++m)
            {
                const uint32_t r = groups[g][m];
                const WorkloadNode& node = nodes[r][members[m][k]];
                // An AlltoAllv's members each give their own row, so their bytes differ.
                const bool uneven = node.collective == "AlltoAllv";
                if (node.collective != first.collective || (!uneven && node.bytes != first.bytes))
                {
                    problem << Describe(r, members[m][k]) << ": " << node.collective << " of "
                            << node.bytes << " B, but rank " << groups[g][0]
                            << "'s matching collective over group " << groupNames[g] << " is "
                            << first.collective << " of " << first.bytes << " B";
                    return problem.str();
                }
                op.member.push_back(members[m][k]);
                operation[r][members[m][k]] = static_cast<uint32_t>(operations.size());
            }
            operations.push_back(std::move(op));
        }
    }
    for (const auto& [key, ends] : messages)
    {
        const auto& [src, dst, tag] = key;
        const auto& [sends, recvs] = ends;
        for (std::size_t k = 0; k < std::max(sends.size(), recvs.size()); ++k)
        {
            if (k >= recvs.size())
            {
                return Describe(src, sends[k]) + ": a send to rank " + std::to_string(dst) +
                       " (tag " + std::to_string(tag) + ") that rank never receives";
            }
            if (k >= sends.size())
            {
                return Describe(dst, recvs[k]) + ": a receive from rank " + std::to_string(src) +
                       " (tag " + std::to_string(tag) + ") that rank never sends";
            }
            if (nodes[src][sends[k]].bytes != nodes[dst][recvs[k]].bytes)
            {
                problem << Describe(dst, recvs[k]) << ": receives " << nodes[dst][recvs[k]].bytes
                        << " B, but its matching send is " << nodes[src][sends[k]].bytes << " B";
                return problem.str();
            }
            operation[src][sends[k]] = recvs[k];
            operation[dst][recvs[k]] = sends[k];
        }
    }

    // A dependency cycle, or a deadlock across ranks: run the graph as replay will,
    // every node taking no time. A collective finishes once every member has
    // reached it; a receive once its send has started.
    std::vector<std::vector<uint32_t>> waiting = depCount;
    std::vector<uint32_t> opArrived(operations.size(), 0);
    std::vector<std::vector<uint8_t>> sent(ranks);
    std::vector<std::vector<uint8_t>> recvReady(ranks);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        sent[r].assign(nodes[r].size(), 0);
        recvReady[r].assign(nodes[r].size(), 0);
    }
    std::vector<NodeRef> ready;
    std::vector<NodeRef> finished;
    uint64_t done = 0;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        for (uint32_t i = 0; i < nodes[r].size(); ++i)
        {
            if (waiting[r][i] == 0)
            {
                ready.push_back({r, i});
            }
        }
    }
    while (!ready.empty() || !finished.empty())
    {
        while (!ready.empty())
        {
            const NodeRef n = ready.back();
            ready.pop_back();
            const WorkloadNode& node = nodes[n.rank][n.index];
            switch (node.kind)
            {
            case WorkloadNode::COMPUTE:
            case WorkloadNode::NOOP:
                finished.push_back(n);
                break;
            case WorkloadNode::COLLECTIVE: {
                const Operation& op = operations[operation[n.rank][n.index]];
                if (++opArrived[operation[n.rank][n.index]] == op.member.size())
                {
                    for (uint32_t m = 0; m < op.member.size(); ++m)
                    {
                        finished.push_back({groups[op.group][m], op.member[m]});
                    }
                }
                break;
            }
            case WorkloadNode::SEND: {
                finished.push_back(n);
                const uint32_t recv = operation[n.rank][n.index];
                sent[node.peer][recv] = 1;
                if (recvReady[node.peer][recv])
                {
                    finished.push_back({node.peer, recv});
                }
                break;
            }
            case WorkloadNode::RECV:
                recvReady[n.rank][n.index] = 1;
                if (sent[n.rank][n.index])
                {
                    finished.push_back(n);
                }
                break;
            }
        }
        while (!finished.empty())
        {
            const NodeRef n = finished.back();
            finished.pop_back();
            ++done;
            for (uint32_t next : dependents[n.rank][n.index])
            {
                if (--waiting[n.rank][next] == 0)
                {
                    ready.push_back({n.rank, next});
                }
            }
        }
    }
    if (done < GetNodeCount())
    {
        for (uint32_t r = 0; r < ranks; ++r)
        {
            for (uint32_t i = 0; i < nodes[r].size(); ++i)
            {
                if (waiting[r][i] > 0)
                {
                    return Describe(r, i) +
                           " can never start: a dependency cycle, within the rank or through "
                           "collectives and messages of other ranks (" +
                           std::to_string(GetNodeCount() - done) + " nodes are stuck)";
                }
            }
        }
        return source + ": " + std::to_string(GetNodeCount() - done) +
               " nodes wait for collectives or messages that can never happen";
    }
    return "";
}

} // namespace ns3
