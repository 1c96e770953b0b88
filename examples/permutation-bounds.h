/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_PERMUTATION_BOUNDS_H
#define AI_FABRIC_PERMUTATION_BOUNDS_H

// What the flows of a permutation can get on a two-tier fabric that spreads each
// leaf's traffic over all of its fabric links (the scheduled fabric's spraying, or
// a perfectly balanced Clos). Flow h goes from host h to host dst[h]; each host
// sends one flow and receives one. A flow crosses its two host links (each at most
// hostBound) and, if it leaves its leaf, the source leaf's fabric capacity, shared
// by every flow leaving that leaf, and the destination leaf's, shared by every flow
// entering it.

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace permutation_bounds
{

/// The flows of a permutation and what they cross.
struct Permutation
{
    std::vector<uint32_t> dst;        //!< per flow (= source host), its destination host
    std::vector<uint32_t> leafOf;     //!< per host, its leaf
    double hostBound;                 //!< what one host link carries, bit/s
    std::vector<double> leafCapacity; //!< per leaf, fabric capacity in each direction, bit/s
};

/**
 * Each flow's max-min fair share (water-filling: the part with the smallest share
 * per unfixed flow fixes its flows at that share, until every flow is fixed). It is
 * not an upper bound on a single flow: a flow may beat its share when another
 * sharing its leaves falls below its own.
 * \param p the permutation
 * \return per flow, its share in bit/s
 */
inline std::vector<double>
FairShares(const Permutation& p)
{
    const auto flows = static_cast<uint32_t>(p.dst.size());

    struct Part
    {
        double capacity;             // bit/s left
        std::vector<uint32_t> flows; // the flows through it
    };

    std::vector<Part> parts;
    std::vector<std::vector<uint32_t>> crossed(flows); // per flow, its parts
    const auto add = [&](double capacity, const std::vector<uint32_t>& through) {
        for (uint32_t f : through)
        {
            crossed[f].push_back(static_cast<uint32_t>(parts.size()));
        }
        parts.push_back({capacity, through});
    };
    const auto leaves = static_cast<uint32_t>(p.leafCapacity.size());
    std::vector<std::vector<uint32_t>> leaving(leaves);
    std::vector<std::vector<uint32_t>> entering(leaves);
    std::vector<std::vector<uint32_t>> into(flows);
    for (uint32_t h = 0; h < flows; ++h)
    {
        add(p.hostBound, {h}); // its sending link
        into[p.dst[h]].push_back(h);
        if (p.leafOf[h] != p.leafOf[p.dst[h]])
        {
            leaving[p.leafOf[h]].push_back(h);
            entering[p.leafOf[p.dst[h]]].push_back(h);
        }
    }
    for (uint32_t h = 0; h < flows; ++h)
    {
        add(p.hostBound, into[h]); // its receiving link
    }
    for (uint32_t l = 0; l < leaves; ++l)
    {
        add(p.leafCapacity[l], leaving[l]);
        add(p.leafCapacity[l], entering[l]);
    }
    std::vector<double> rate(flows, -1);
    const auto unfixed = [&](const Part& part) {
        return static_cast<uint32_t>(std::count_if(part.flows.begin(),
                                                   part.flows.end(),
                                                   [&](uint32_t f) { return rate[f] < 0; }));
    };
    for (uint32_t fixed = 0; fixed < flows;)
    {
        double share = std::numeric_limits<double>::max();
        for (const Part& part : parts)
        {
            if (const uint32_t open = unfixed(part); open > 0)
            {
                share = std::min(share, std::max(0.0, part.capacity) / open);
            }
        }
        for (Part& part : parts)
        {
            const uint32_t open = unfixed(part);
            if (open == 0 || std::max(0.0, part.capacity) / open > share * (1 + 1e-12))
            {
                continue;
            }
            for (uint32_t f : part.flows)
            {
                if (rate[f] >= 0)
                {
                    continue;
                }
                rate[f] = share;
                ++fixed;
                for (uint32_t other : crossed[f])
                {
                    parts[other].capacity -= share;
                }
            }
        }
    }
    return rate;
}

/**
 * The most the flows can carry together: the optimum of the linear programme
 * "maximise the sum of the rates within every host link and every leaf's fabric
 * capacity". As each host sends one flow and receives one, a host link never binds
 * more than the flow's own cap, so the programme is a maximum flow: source -> leaf
 * a (a's capacity out) -> leaf b (hostBound for each flow from a to b) -> sink
 * (b's capacity in), plus hostBound for each flow inside a leaf.
 * \param p the permutation
 * \return the most all flows carry together, bit/s
 */
inline double
MaxAggregate(const Permutation& p)
{
    using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
    using Graph = boost::adjacency_list<
        boost::vecS,
        boost::vecS,
        boost::directedS,
        boost::no_property,
        boost::property<
            boost::edge_capacity_t,
            int64_t,
            boost::property<boost::edge_residual_capacity_t,
                            int64_t,
                            boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
    // Integral bit/s: push-relabel on exact numbers (rates are far below 2^62).
    const auto bits = [](double rate) { return static_cast<int64_t>(std::floor(rate)); };
    const auto leaves = static_cast<uint32_t>(p.leafCapacity.size());
    const uint32_t source = 2 * leaves;
    const uint32_t sink = source + 1;
    Graph graph(sink + 1); // leaf a sending is vertex a, leaf b receiving is leaves + b
    auto capacity = boost::get(boost::edge_capacity, graph);
    auto reverse = boost::get(boost::edge_reverse, graph);
    const auto addEdge = [&](uint32_t from, uint32_t to, int64_t cap) {
        const auto forward = boost::add_edge(from, to, graph).first;
        const auto backward = boost::add_edge(to, from, graph).first;
        capacity[forward] = cap;
        capacity[backward] = 0;
        reverse[forward] = backward;
        reverse[backward] = forward;
    };
    std::vector<int64_t> between(leaves * leaves, 0);
    double inside = 0;
    for (uint32_t h = 0; h < p.dst.size(); ++h)
    {
        const uint32_t a = p.leafOf[h];
        const uint32_t b = p.leafOf[p.dst[h]];
        if (a == b)
        {
            inside += p.hostBound;
        }
        else
        {
            between[a * leaves + b] += bits(p.hostBound);
        }
    }
    for (uint32_t l = 0; l < leaves; ++l)
    {
        addEdge(source, l, bits(std::max(0.0, p.leafCapacity[l])));
        addEdge(leaves + l, sink, bits(std::max(0.0, p.leafCapacity[l])));
        for (uint32_t b = 0; b < leaves; ++b)
        {
            if (between[l * leaves + b] > 0)
            {
                addEdge(l, leaves + b, between[l * leaves + b]);
            }
        }
    }
    return inside + static_cast<double>(boost::push_relabel_max_flow(graph, source, sink));
}

} // namespace permutation_bounds

#endif // AI_FABRIC_PERMUTATION_BOUNDS_H
