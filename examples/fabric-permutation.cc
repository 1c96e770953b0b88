/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Permutation traffic on either fabric: --fabric=scheduled (default) or ethernet.
//
// Every host sends IPv4/UDP packets at line rate (UdpLineRateSource, through its
// RoceNetDevice NIC) to one other host, each host receiving from exactly one:
// host i -> (i + shift) mod hosts, or a random derangement with --random. The
// example prints each flow's goodput against the host-link bound, the minimum,
// the fabric's queue high-water mark, drops and events per cell or packet, writes
// JSON, and every fabric counter as CSV (--stats).
//
//   ./fabric-permutation --leaves=8 --hostsPerLeaf=8 --spines=8 --random=1

#include "fabric-example.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/command-line.h"
#include "ns3/core-module.h"
#include "ns3/ipv4-header.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <vector>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FabricPermutation");

namespace
{

/// Bytes a host receives after a warm-up time.
struct Sink
{
    Time from;
    uint64_t bytes{0};

    bool Receive(Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address&)
    {
        if (Simulator::Now() >= from)
        {
            bytes += p->GetSize();
        }
        return true;
    }
};

} // namespace

int
main(int argc, char* argv[])
{
    ClusterDescription cluster;
    cluster.leaves = 4;
    cluster.hostsPerLeaf = 4;
    // 5 spines for 4 hosts per leaf: a 1.25 fabric speedup, enough for the cell
    // tax (1462 / 1558) and the credit traffic (64 B per 1024 B granted).
    cluster.spines = 5;
    cluster.hostLinkRate = DataRate("100Gbps");
    cluster.fabricLinkRate = DataRate("100Gbps");
    uint32_t packetSize = 1462;
    uint32_t shift = 0;
    bool random = false;
    Time duration = MicroSeconds(200);
    Time warmup = MicroSeconds(50);
    FabricExampleOptions options;
    options.json = "fabric-permutation.json";

    CommandLine cmd(__FILE__);
    cluster.AddToCommandLine(cmd);
    cmd.AddValue("packetSize", "IPv4 packet size in bytes", packetSize);
    cmd.AddValue("shift",
                 "host i sends to i + shift (0: hostsPerLeaf, every flow crosses "
                 "the fabric)",
                 shift);
    cmd.AddValue("random", "use a random derangement instead (RngRun picks it)", random);
    cmd.AddValue("duration", "how long the hosts send", duration);
    cmd.AddValue("warmup", "goodput is measured from this time on", warmup);
    options.AddToCommandLine(cmd);
    cmd.Parse(argc, argv);

    NS_ABORT_MSG_IF(warmup >= duration,
                    "--warmup=" << warmup.As(Time::US)
                                << " must be below --duration=" << duration.As(Time::US));
    const uint32_t hosts = cluster.GetHosts();
    NS_ABORT_MSG_IF(hosts < 2, "a permutation needs at least 2 hosts, the cluster has " << hosts);
    if (shift == 0)
    {
        shift = cluster.hostsPerLeaf % hosts == 0 ? 1 : cluster.hostsPerLeaf;
    }
    NS_ABORT_MSG_IF(shift % hosts == 0, "--shift=" << shift << " maps hosts onto themselves");
    std::vector<uint32_t> dst(hosts);
    for (uint32_t h = 0; h < hosts; ++h)
    {
        dst[h] = (h + shift) % hosts;
    }
    if (random)
    {
        // A random cyclic order is a derangement: nobody sends to itself.
        std::vector<uint32_t> order(hosts);
        std::iota(order.begin(), order.end(), 0);
        auto rng = CreateObject<UniformRandomVariable>();
        rng->SetStream(7);
        for (uint32_t i = hosts - 1; i > 0; --i)
        {
            std::swap(order[i], order[rng->GetInteger(0, i)]);
        }
        for (uint32_t i = 0; i < hosts; ++i)
        {
            dst[order[i]] = order[(i + 1) % hosts];
        }
    }

    // Jumbo frames: raise the Mtu of every NIC and switch port to fit.
    const auto fabricHelper = options.Install(cluster, packetSize > 4200 ? packetSize : 0);
    ClusterFabricHelper& fabric = *fabricHelper;

    std::vector<Sink> sinks(hosts);
    std::vector<Ptr<UdpLineRateSource>> sources;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        sinks[h].from = warmup;
        fabric.GetHostDevice(h)->SetReceiveCallback(MakeCallback(&Sink::Receive, &sinks[h]));
        auto src = CreateObject<UdpLineRateSource>();
        src->SetAttribute("PacketSize", UintegerValue(packetSize));
        src->SetAttribute("Dscp", UintegerValue(options.udpDscp));
        src->Setup(fabric.GetHostDevice(h), cluster.GetHostAddress(dst[h]));
        src->Start(NanoSeconds(100));
        src->Stop(duration);
        sources.push_back(src);
    }
    Simulator::Stop(duration);
    Simulator::Run();

    const double window = (duration - warmup).GetSeconds();
    const double bound = cluster.hostLinkRate.GetBitRate() * double(packetSize) /
                         (std::max(packetSize + 14, 60u) + 24);
    std::cout << options.fabric << " permutation on " << cluster.ToString() << std::endl;
    nlohmann::json flows = nlohmann::json::array();
    double worst = 1e300;
    double sum = 0;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        const double rate = sinks[dst[h]].bytes * 8.0 / window;
        worst = std::min(worst, rate);
        sum += rate;
        flows.push_back({{"src", h},
                         {"dst", dst[h]},
                         {"goodputGbps", rate / 1e9},
                         {"overBound", rate / bound}});
        std::cout << "  " << h << " -> " << dst[h] << ": " << rate / 1e9 << " Gb/s ("
                  << rate / bound << " of bound)" << std::endl;
    }
    std::cout << "  host-link bound " << bound / 1e9 << " Gb/s; worst flow " << worst / bound
              << ", mean " << sum / hosts / bound << " of it" << std::endl;
    options.Report(fabric,
                   {
                       {"scenario", "fabric-permutation"},
                       {"packetSize", packetSize},
                       {"durationUs", duration.GetMicroSeconds()},
                       {"warmupUs", warmup.GetMicroSeconds()},
                       {"boundGbps", bound / 1e9},
                       {"worstOverBound", worst / bound},
                       {"meanOverBound", sum / hosts / bound},
                       {"flows", flows},
                   });
    Simulator::Destroy();
    return 0;
}
