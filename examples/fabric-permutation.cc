/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Permutation traffic on either fabric: --fabric=scheduled (default) or ethernet.
//
// Every host sends to one other host, each host receiving from exactly one:
// host i -> (i + shift) mod hosts, or a random derangement with --random. With
// --transport=udp (default) every host sends IPv4/UDP packets at line rate
// (UdpLineRateSource) for --duration and goodput is measured after --warmup; with
// --transport=rdma every host posts one --messageSize message over the RDMA
// transport and goodput is the message over its completion time.
//
// Links can fail under the load: all links of one spine (--failSpine) or one
// link (--failLink=leaf:spine:link) go down at --failAt and come back at
// --restoreAt. The aggregate delivered throughput is sampled every --timeBin into
// the JSON results, with the throughput after the failure and the time it took to
// recover.
//
// One link can lose frames instead (--lossyLink): a host link, given by its host
// index, or a leaf-spine link, leaf:spine:link, loses each frame (on the scheduled
// fabric's leaf-spine links, each cell) it carries, either way, with probability
// --lossRate; no other link loses.
//
// The example prints each flow's goodput against its max-min fair share, all
// flows' against the most they can carry together, the host-link bound and the
// fabric bound (cell and control-cell overhead on the scheduled fabric, links x
// rate on the Ethernet Clos) and says which one binds, the fabric's queue high-water
// marks, drops and the conservation of packets and bytes, writes JSON and every
// fabric counter as CSV (--stats).
//
//   ./fabric-permutation --leaves=8 --hostsPerLeaf=8 --spines=8 --random=1
//   ./fabric-permutation --spines=4 --transport=rdma --failSpine=0 --failAt=1ms
//   ./fabric-permutation --fabric=ethernet --transport=rdma --lossyLink=1:0:0 --lossRate=0.001

#include "fabric-example.h"
#include "permutation-bounds.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/command-line.h"
#include "ns3/core-module.h"
#include "ns3/error-model.h"
#include "ns3/ipv4-header.h"
#include "ns3/node-list.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <vector>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FabricPermutation");

namespace
{

/// Bytes a host receives over UDP: all of them, and those after a warm-up time.
struct Sink
{
    Time from;
    uint64_t bytes{0};
    uint64_t total{0};

    bool Receive(Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address&)
    {
        total += p->GetSize();
        if (Simulator::Now() >= from)
        {
            bytes += p->GetSize();
        }
        return true;
    }
};

/// Samples the bytes each host has received every bin, until a time or until done.
struct Sampler
{
    std::function<uint64_t(uint32_t)> delivered;
    std::function<bool()> finished;
    uint32_t hosts{0};
    Time bin;
    Time until;
    std::vector<std::pair<Time, std::vector<uint64_t>>> samples;

    void Sample()
    {
        std::vector<uint64_t> bytes(hosts);
        for (uint32_t h = 0; h < hosts; ++h)
        {
            bytes[h] = delivered(h);
        }
        samples.emplace_back(Simulator::Now(), bytes);
        if (Simulator::Now() + bin <= until && !finished())
        {
            Simulator::Schedule(bin, &Sampler::Sample, this);
        }
    }
};

/// A failed link: (leaf, spine, parallel link).
struct LinkId
{
    uint32_t leaf;
    uint32_t spine;
    uint32_t link;
};

/// Records when each sender's message was fully received.
void
RecordCompletion(std::vector<Time>* done, uint32_t* count, const RdmaCompletion& c)
{
    done->at(c.srcRank) = c.doneTime;
    (*count)++;
}

/// Records a sender's message given up by the transport (its queue pair failed).
void
RecordFailure(std::vector<bool>* failed, uint32_t* count, const RdmaCompletion& c)
{
    failed->at(c.srcRank) = true;
    (*count)++;
}

} // namespace

int
main(int argc, char* argv[])
{
    RunRecord::Begin(argc, argv);
    ClusterDescription cluster;
    cluster.leaves = 4;
    cluster.hostsPerLeaf = 4;
    // 5 spines for 4 hosts per leaf: a 1.25 fabric speedup, enough for the cell
    // tax (1462 / 1558) and the credit traffic (64 B per 1024 B granted).
    cluster.spines = 5;
    cluster.hostLinkRate = DataRate("100Gbps");
    cluster.fabricLinkRate = DataRate("100Gbps");
    uint32_t shift = 0;
    bool random = false;
    const Time udpDuration = MicroSeconds(200);
    Time duration = udpDuration;
    Time warmup = MicroSeconds(50);
    FabricTransportOptions traffic(16 << 20);
    int64_t failSpine = -1;
    std::string failLink;
    Time failAt = MicroSeconds(100);
    Time restoreAt = Time(0);
    Time timeBin = MicroSeconds(10);
    Time settle = MicroSeconds(50);
    std::string lossyLink;
    std::string lossRateText = "0.01";
    FabricExampleOptions options;
    options.json = "fabric-permutation.json";

    CommandLine cmd(__FILE__);
    // Hosts here are NICs without GPU servers.
    AddClusterToCommandLine(cmd, cluster, "", {{"gpusPerServer", ""}, {"nicPlacement", ""}});
    AddCheckedValue(cmd,
                    "shift",
                    "host i sends to i + shift (0: hostsPerLeaf, every flow crosses "
                    "the fabric)",
                    shift);
    AddCheckedValue(cmd, "random", "use a random derangement instead (RngRun picks it)", random);
    AddCheckedValue(cmd,
                    "duration",
                    "udp: how long the hosts send; rdma: the longest the run may last (0: "
                    "until every message completes, the rdma default)",
                    duration);
    AddCheckedValue(cmd, "warmup", "udp: goodput is measured from this time on", warmup);
    traffic.AddToCommandLine(cmd, "bytes each host posts with --transport=rdma (K, M, G suffixes)");
    AddCheckedValue(cmd,
                    "failSpine",
                    "spine whose links all fail at --failAt (-1: none)",
                    failSpine);
    AddCheckedValue(cmd,
                    "failLink",
                    "one link that fails at --failAt, as leaf:spine:link",
                    failLink);
    AddCheckedValue(cmd, "failAt", "when the links fail", failAt);
    AddCheckedValue(cmd, "restoreAt", "when they come back (0: never)", restoreAt);
    AddCheckedValue(cmd, "timeBin", "aggregate throughput is sampled this often", timeBin);
    AddCheckedValue(cmd,
                    "settle",
                    "throughput after a failure is measured from --failAt + this on",
                    settle);
    AddCheckedValue(
        cmd,
        "lossyLink",
        "one link that loses frames (cells on the scheduled fabric's leaf-spine links), "
        "both ways: a host's link (its host index) or a leaf-spine link as "
        "leaf:spine:link; empty: none",
        lossyLink);
    AddCheckedValue(cmd,
                    "lossRate",
                    "probability that --lossyLink loses a frame or cell, in (0, 1]",
                    lossRateText);
    options.AddToCommandLine(cmd, true);
    cmd.Parse(argc, argv);

    const ExampleInput input("fabric-permutation");
    const auto refuseIf = [&input](bool refused, const std::string& reason) {
        if (refused)
        {
            input.Refuse(reason);
        }
    };
    const std::string optionProblem = options.FindProblem();
    refuseIf(!optionProblem.empty(), optionProblem);
    TypeId congestionControlType;
    const std::string trafficProblem = traffic.FindProblem(options, &congestionControlType);
    refuseIf(!trafficProblem.empty(), trafficProblem);
    const bool rdmaTransport = traffic.IsRdma();
    const std::string& transport = traffic.transport;
    uint32_t& packetSize = traffic.packetSize; // the RoCE packet's size in an RDMA run
    const uint64_t messageSize = traffic.messageSize;
    const std::string& congestionControl = traffic.congestionControl;
    if (rdmaTransport && duration == udpDuration)
    {
        duration = Time(0);
    }
    refuseIf(!rdmaTransport && warmup >= duration,
             "--warmup=" + ShowTime(warmup) + " must be below --duration=" + ShowTime(duration));
    refuseIf(timeBin.IsZero(), "--timeBin=0 must be positive");
    refuseIf(restoreAt.IsStrictlyPositive() && restoreAt <= failAt,
             "--restoreAt=" + ShowTime(restoreAt) + " must be after --failAt=" + ShowTime(failAt));
    const std::string clusterProblem = cluster.FindProblem();
    refuseIf(!clusterProblem.empty(), clusterProblem);
    const std::string linkProblem = rdmaTransport ? FindRdmaLinkProblem(cluster) : "";
    refuseIf(!linkProblem.empty(), linkProblem);
    const uint32_t hosts = cluster.GetHosts();
    refuseIf(hosts < 2,
             "a permutation needs at least 2 hosts, the cluster has " + std::to_string(hosts));
    std::vector<LinkId> failed;
    if (failSpine >= 0)
    {
        refuseIf(static_cast<uint64_t>(failSpine) >= cluster.spines,
                 "--failSpine=" + std::to_string(failSpine) + " is not a spine (the cluster has " +
                     std::to_string(cluster.spines) + ")");
        for (uint32_t l = 0; l < cluster.leaves; ++l)
        {
            for (uint32_t k = 0; k < cluster.linksPerLeafSpine; ++k)
            {
                failed.push_back({l, static_cast<uint32_t>(failSpine), k});
            }
        }
    }
    refuseIf(failSpine < -1, "--failSpine=" + std::to_string(failSpine) + " must be -1 or a spine");
    if (!failLink.empty())
    {
        std::vector<std::string> fields;
        std::istringstream in(failLink);
        for (std::string field; std::getline(in, field, ':');)
        {
            fields.push_back(field);
        }
        const std::string expected =
            " is not leaf:spine:link of this cluster (" + std::to_string(cluster.leaves) +
            " leaves, " + std::to_string(cluster.spines) + " spines, " +
            std::to_string(cluster.linksPerLeafSpine) + " links per leaf-spine pair)";
        refuseIf(fields.size() != 3 || failLink.back() == ':', "--failLink=" + failLink + expected);
        const uint32_t limits[] = {cluster.leaves, cluster.spines, cluster.linksPerLeafSpine};
        uint32_t parts[3];
        for (int i = 0; i < 3; ++i)
        {
            uint64_t value = 0;
            refuseIf(!FindWholeNumberProblem(fields[i], limits[i] - 1, false, &value).empty(),
                     "--failLink=" + failLink + expected);
            parts[i] = static_cast<uint32_t>(value);
        }
        failed.push_back({parts[0], parts[1], parts[2]});
    }
    // The lossy link: a host index, or leaf:spine:link.
    const double lossRate = input.ParseReal("lossRate", lossRateText);
    refuseIf(!(lossRate > 0 && lossRate <= 1), "--lossRate=" + lossRateText + " must be in (0, 1]");
    refuseIf(lossyLink.empty() && lossRateText != "0.01",
             "--lossRate=" + lossRateText + " needs --lossyLink");
    bool lossyHost = false;
    uint32_t lossyParts[3] = {0, 0, 0};
    if (!lossyLink.empty())
    {
        std::vector<std::string> fields;
        std::istringstream in(lossyLink);
        for (std::string field; std::getline(in, field, ':');)
        {
            fields.push_back(field);
        }
        const std::string expected =
            " is not a host (0.." + std::to_string(hosts - 1) + ") or leaf:spine:link of this " +
            "cluster (" + std::to_string(cluster.leaves) + " leaves, " +
            std::to_string(cluster.spines) + " spines, " +
            std::to_string(cluster.linksPerLeafSpine) + " links per leaf-spine pair)";
        refuseIf((fields.size() != 1 && fields.size() != 3) || lossyLink.back() == ':',
                 "--lossyLink=" + lossyLink + expected);
        lossyHost = fields.size() == 1;
        const uint32_t limits[] = {lossyHost ? hosts : cluster.leaves,
                                   cluster.spines,
                                   cluster.linksPerLeafSpine};
        for (std::size_t i = 0; i < fields.size(); ++i)
        {
            uint64_t value = 0;
            refuseIf(!FindWholeNumberProblem(fields[i], limits[i] - 1, false, &value).empty(),
                     "--lossyLink=" + lossyLink + expected);
            lossyParts[i] = static_cast<uint32_t>(value);
        }
    }
    if (shift == 0)
    {
        shift = cluster.hostsPerLeaf % hosts == 0 ? 1 : cluster.hostsPerLeaf;
    }
    refuseIf(shift % hosts == 0,
             "--shift=" + std::to_string(shift) +
                 " maps hosts onto themselves (a multiple of the " + std::to_string(hosts) +
                 " hosts)");
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
    if (rdmaTransport)
    {
        packetSize = 4096 + RdmaTransport::HEADER_BYTES; // RoCE packet of a full Mtu
    }

    // Jumbo frames: raise the Mtu of every NIC and switch port to fit.
    const auto fabricHelper = options.Install(cluster, packetSize > 4200 ? packetSize : 0);
    ClusterFabricHelper& fabric = *fabricHelper;
    for (const auto& id : failed)
    {
        fabric.ScheduleLinkState(id.leaf, id.spine, id.link, failAt, false);
        if (restoreAt.IsStrictlyPositive())
        {
            fabric.ScheduleLinkState(id.leaf, id.spine, id.link, restoreAt, true);
        }
    }

    Ptr<RateErrorModel> em;
    if (!lossyLink.empty())
    {
        em = CreateObject<RateErrorModel>();
        em->SetAttribute("ErrorUnit", EnumValue(RateErrorModel::ERROR_UNIT_PACKET));
        em->SetAttribute("ErrorRate", DoubleValue(lossRate));
        em->AssignStreams(options.m_nextStream++);
        if (lossyHost)
        {
            fabric.SetHostLinkErrorModel(lossyParts[0], em);
        }
        else
        {
            fabric.SetFabricLinkErrorModel(lossyParts[0], lossyParts[1], lossyParts[2], em);
        }
    }

    std::vector<Sink> sinks(hosts);
    std::vector<Ptr<UdpLineRateSource>> sources;
    RdmaHelper rdma;
    std::vector<Time> done(hosts, Time(0));
    uint32_t completed = 0;
    std::vector<bool> givenUp(hosts, false);
    uint32_t failedMessages = 0;
    Sampler sampler;
    sampler.bin = timeBin;
    sampler.hosts = hosts;
    if (!rdmaTransport)
    {
        for (uint32_t h = 0; h < hosts; ++h)
        {
            sinks[h].from = warmup;
            fabric.GetHostDevice(h)->SetReceiveCallback(MakeCallback(&Sink::Receive, &sinks[h]));
            auto src = CreateObject<UdpLineRateSource>();
            src->SetAttribute("PacketSize", UintegerValue(packetSize));
            options.Configure(src);
            src->Setup(fabric.GetHostDevice(h), cluster.GetHostAddress(dst[h]));
            src->Start(NanoSeconds(100));
            src->Stop(duration);
            sources.push_back(src);
        }
        sampler.delivered = [&sinks](uint32_t h) { return sinks[h].total; };
        sampler.until = duration;
        sampler.finished = []() { return false; };
        Simulator::Stop(duration);
    }
    else
    {
        rdma.SetTransportAttribute("CongestionControl", TypeIdValue(congestionControlType));
        rdma.Install(fabric.GetHostDevices());
        for (uint32_t h = 0; h < hosts; ++h)
        {
            rdma.Post(h,
                      dst[h],
                      messageSize,
                      h,
                      RdmaCompletionCallback(),
                      MakeBoundCallback(&RecordCompletion, &done, &completed),
                      0,
                      MakeBoundCallback(&RecordFailure, &givenUp, &failedMessages));
        }
        // A run in which queue pairs fail ends once no message can progress.
        rdma.StopWhenStalled();
        sampler.delivered = [&rdma](uint32_t h) {
            return rdma.GetTransport(h)->GetStats().bytesDelivered;
        };
        // Sample until every message is in or given up (or the run's limit).
        sampler.until = duration.IsStrictlyPositive() ? duration : Time::Max();
        sampler.finished = [&completed, &failedMessages, hosts]() {
            return completed + failedMessages == hosts;
        };
        if (duration.IsStrictlyPositive())
        {
            Simulator::Stop(duration);
        }
    }
    Simulator::ScheduleNow(&Sampler::Sample, &sampler);
    Simulator::Run();

    // Bounds per flow: the host link, and the fabric at the links each end leaf has.
    const uint32_t payloadBytes = rdmaTransport ? 4096 : packetSize;
    const double hostBound = cluster.hostLinkRate.GetBitRate() * double(payloadBytes) /
                             (std::max(packetSize + 14, 60u) + 24);
    const uint32_t links = cluster.GetFabricLinksPerLeaf();
    std::vector<uint32_t> usable(cluster.leaves, links);
    for (const auto& id : failed)
    {
        usable[id.leaf]--;
    }
    const auto* scheduled = dynamic_cast<const ScheduledFabricHelper*>(&fabric);
    // Fabric bound per host with n usable links, in payload bits per second (none
    // without a link: GetFabricBound reads 0 links as all of them).
    auto fabricBound = [&](uint32_t n) {
        if (n == 0)
        {
            return 0.0;
        }
        if (scheduled)
        {
            return std::max(0.0, scheduled->GetFabricBound(packetSize, n)) * payloadBytes /
                   packetSize;
        }
        // Store and forward: fabric links carry the same frames as host links.
        return hostBound * n * double(cluster.fabricLinkRate.GetBitRate()) /
               (cluster.hostsPerLeaf * double(cluster.hostLinkRate.GetBitRate()));
    };
    // What the flows can get with the links each leaf has: each flow's max-min fair
    // share, and the most all of them carry together (permutation-bounds.h). A shift
    // fills every leaf evenly; a random derangement does not.
    const auto permutationWith = [&](const std::vector<uint32_t>& linksOf) {
        permutation_bounds::Permutation p{dst, {}, hostBound, {}};
        for (uint32_t h = 0; h < hosts; ++h)
        {
            p.leafOf.push_back(cluster.GetLeafOfHost(h));
        }
        for (uint32_t l = 0; l < cluster.leaves; ++l)
        {
            p.leafCapacity.push_back(fabricBound(linksOf[l]) * cluster.hostsPerLeaf);
        }
        return p;
    };
    const auto withAllLinks = permutationWith(std::vector<uint32_t>(cluster.leaves, links));
    const std::vector<double> fairShares = permutation_bounds::FairShares(withAllLinks);
    const double bound = permutation_bounds::MaxAggregate(withAllLinks);
    const double boundAfterFailure = permutation_bounds::MaxAggregate(permutationWith(usable));

    std::cout << options.fabric << " permutation (" << transport << ") on " << cluster.ToString()
              << std::endl;
    nlohmann::json flows = nlohmann::json::array();
    double worst = 1e300;
    double sum = 0;
    double aggregate = 0;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        double rate = 0;
        if (rdmaTransport)
        {
            rate = done[h].IsStrictlyPositive() ? messageSize * 8.0 / done[h].GetSeconds() : 0;
        }
        else
        {
            rate = sinks[dst[h]].bytes * 8.0 / (duration - warmup).GetSeconds();
        }
        const double share = fairShares[h]; // with every link: above 0
        worst = std::min(worst, rate / share);
        sum += rate / share;
        aggregate += rate;
        nlohmann::json flow = {{"src", h},
                               {"dst", dst[h]},
                               {"goodputGbps", rate / 1e9},
                               {"fairShareGbps", share / 1e9},
                               {"overFairShare", rate / share}};
        if (rdmaTransport)
        {
            const auto& sent = rdma.GetTransport(h)->GetStats();
            flow["completionUs"] = done[h].GetMicroSeconds();
            flow["deliveredBytes"] = rdma.GetTransport(dst[h])->GetStats().bytesDelivered;
            flow["retransmittedPackets"] = sent.retransmittedPackets;
            flow["timeouts"] = sent.timeouts;
        }
        flows.push_back(flow);
        std::cout << "  " << h << " -> " << dst[h] << ": " << rate / 1e9 << " Gb/s ("
                  << rate / share << " of its fair share)"
                  << (rdmaTransport && givenUp[h]         ? ", given up (its queue pair failed)"
                      : rdmaTransport && done[h].IsZero() ? ", did not complete"
                                                          : "")
                  << std::endl;
    }
    const double fabricFull = fabricBound(links);
    std::cout << "  bounds per flow: host link " << hostBound / 1e9 << " Gb/s, fabric "
              << fabricFull / 1e9 << " Gb/s (" << links << " links per leaf): the "
              << (fabricFull < hostBound ? "fabric" : "host link") << " binds" << std::endl;
    if (fabricFull < hostBound)
    {
        std::cout << "  warning: the fabric's effective speedup is " << fabricFull / hostBound
                  << ", below 1: the fabric, not the host links, limits the hosts" << std::endl;
    }
    std::cout << "  worst flow " << worst << ", mean " << sum / hosts
              << " of its max-min fair share; all flows " << aggregate / 1e9
              << " Gb/s = " << aggregate / bound << " of the most they can carry together, "
              << bound / 1e9 << " Gb/s" << std::endl;

    // Throughput over time, and after the failure.
    nlohmann::json series = nlohmann::json::array();
    const auto& samples = sampler.samples;
    double afterBytes = 0;
    double afterSeconds = 0;
    double recoveryUs = -1;
    // After the failure, until the links come back or the first message is in
    // (from then on fewer flows share the fabric).
    Time end = restoreAt.IsStrictlyPositive() ? restoreAt : Time::Max();
    for (const Time& t : done)
    {
        if (t.IsStrictlyPositive())
        {
            end = std::min(end, t);
        }
    }
    for (std::size_t i = 1; i < samples.size(); ++i)
    {
        const Time t0 = samples[i - 1].first;
        const Time t1 = samples[i].first;
        const double seconds = (t1 - t0).GetSeconds();
        double bytes = 0;
        nlohmann::json perHost = nlohmann::json::array();
        for (uint32_t h = 0; h < hosts; ++h)
        {
            const double received = double(samples[i].second[h] - samples[i - 1].second[h]);
            bytes += received;
            perHost.push_back(received * 8 / seconds / 1e9);
        }
        const double gbps = bytes * 8 / seconds / 1e9;
        series.push_back(
            {{"timeUs", t1.GetMicroSeconds()}, {"gbps", gbps}, {"receiversGbps", perHost}});
        if (!failed.empty() && t0 >= failAt && t1 <= end)
        {
            if (recoveryUs < 0 && boundAfterFailure > 0 && gbps * 1e9 >= 0.98 * boundAfterFailure)
            {
                recoveryUs = (t1 - failAt).GetMicroSeconds();
            }
            if (t0 >= failAt + settle)
            {
                afterBytes += bytes;
                afterSeconds += (t1 - t0).GetSeconds();
            }
        }
    }
    nlohmann::json failure;
    if (!failed.empty())
    {
        const double after = afterSeconds > 0 ? afterBytes * 8 / afterSeconds : 0;
        std::ostringstream until;
        if (end == Time::Max())
        {
            until << "the end";
        }
        else
        {
            until << end.As(Time::US);
        }
        std::cout << "  after the failure (" << failed.size() << " links down at "
                  << failAt.As(Time::US) << "), from " << (failAt + settle).As(Time::US)
                  << " until " << until.str() << ": " << after / 1e9 << " Gb/s";
        if (boundAfterFailure > 0)
        {
            std::cout << " = " << after / boundAfterFailure << " of the bound "
                      << boundAfterFailure / 1e9 << " Gb/s with the links left; 98% of it ";
            if (recoveryUs >= 0)
            {
                std::cout << "reached " << recoveryUs << " us after the failure";
            }
            else
            {
                std::cout << "never reached";
            }
        }
        else
        {
            std::cout << "; no bound: the failure leaves a leaf without a fabric link";
        }
        std::cout << std::endl;
        // No bound, no share of it and no recovery: null, not NaN or -1.
        failure = {
            {"linksDown", failed.size()},
            {"failAtUs", failAt.GetMicroSeconds()},
            {"restoreAtUs", restoreAt.GetMicroSeconds()},
            {"aggregateBoundGbps", boundAfterFailure / 1e9},
            {"aggregateGbps", after / 1e9},
            {"measuredFromUs", (failAt + settle).GetMicroSeconds()},
            {"measuredUntilUs",
             end == Time::Max() ? nlohmann::json() : nlohmann::json(end.GetMicroSeconds())},
            {"overBound",
             boundAfterFailure > 0 ? nlohmann::json(after / boundAfterFailure) : nlohmann::json()},
            {"recoveryUs",
             boundAfterFailure > 0 && recoveryUs >= 0 ? nlohmann::json(recoveryUs)
                                                      : nlohmann::json()}};
    }
    nlohmann::json results = {
        {"scenario", "fabric-permutation"},
        {"transport", transport},
        {"packetSize", packetSize},
        {"durationUs", duration.GetMicroSeconds()},
        {"warmupUs", warmup.GetMicroSeconds()},
        {"hostBoundGbps", hostBound / 1e9},
        {"fabricBoundGbps", fabricFull / 1e9},
        {"binding", fabricFull < hostBound ? "fabric" : "host link"},
        {"aggregateGbps", aggregate / 1e9},
        {"aggregateBoundGbps", bound / 1e9},
        {"aggregateOverBound", aggregate / bound},
        {"worstOverFairShare", worst},
        {"meanOverFairShare", sum / hosts},
        {"flows", flows},
        {"timeSeries", series},
    };
    if (rdmaTransport)
    {
        results["messageSize"] = messageSize;
        results["congestionControl"] = congestionControl;
        results["completed"] = completed;
        const RdmaTransport::Stats s = rdma.GetTotals();
        results["retransmittedPackets"] = s.retransmittedPackets;
        results["timeouts"] = s.timeouts;
        results["qpFailures"] = s.qpFailures;
        results["failedMessages"] = failedMessages;
        AddRdmaTotals(s, results);
        std::cout << "  " << completed << " of " << hosts << " messages completed; retransmitted "
                  << s.retransmittedPackets << " packets, " << s.timeouts << " timeouts, "
                  << s.qpFailures << " queue-pair failures" << std::endl;
        if (failedMessages > 0)
        {
            std::cout << "  the run ended at " << Simulator::Now().As(Time::MS)
                      << " without completing: nothing more could progress: "
                      << RdmaHelper::DescribeFailures(s) << std::endl;
        }
    }
    if (!failed.empty())
    {
        results["failure"] = failure;
    }
    if (em)
    {
        // What every NIC and switch port dropped for its error model (frames; cells
        // on the scheduled fabric's leaf-spine links): the lossy link's two ends,
        // and every other device (which must be none).
        uint64_t lost = 0;
        uint64_t lostElsewhere = 0;
        for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
        {
            Ptr<Node> node = NodeList::GetNode(n);
            for (uint32_t d = 0; d < node->GetNDevices(); ++d)
            {
                Ptr<NetDevice> device = node->GetDevice(d);
                uint64_t dropped = 0;
                if (auto nic = DynamicCast<RoceNetDevice>(device))
                {
                    dropped = nic->GetCounters().rxErrorDrops;
                }
                else if (auto cellPort = DynamicCast<CellNetDevice>(device))
                {
                    dropped = cellPort->GetCellsCorrupted();
                }
                else
                {
                    continue;
                }
                PointerValue model;
                device->GetAttribute("ReceiveErrorModel", model);
                (model.Get<ErrorModel>() == em ? lost : lostElsewhere) += dropped;
            }
        }
        const std::string unit = lossyHost || options.fabric != "scheduled" ? "frames" : "cells";
        std::cout << "  lossy link " << (lossyHost ? "host " : "leaf:spine:link ") << lossyLink
                  << " (loss rate " << lossRate << "): " << lost << " " << unit << " lost on it, "
                  << lostElsewhere << " on other links" << std::endl;
        results["lossyLink"] = {{"link", lossyLink},
                                {"kind", lossyHost ? "host" : "fabric"},
                                {"lossRate", lossRate},
                                {"unit", unit},
                                {"lost", lost},
                                {"lostElsewhere", lostElsewhere}};
    }
    options.Report(fabric, results);
    Simulator::Destroy();
    return failedMessages > 0 ? 1 : 0;
}
