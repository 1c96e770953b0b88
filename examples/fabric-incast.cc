/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// N:1 incast on either fabric: --fabric=scheduled (default) or ethernet.
//
// N senders send to host 0: hosts 1..N (--senderPlacement=first, the default),
// hosts on host 0's leaf only (local) or on other leaves only (remote). With
// --transport=udp (default) they send IPv4/UDP
// packets at line rate (UdpLineRateSource, through their RoceNetDevice NICs) for
// --duration and goodput is measured after --warmup; with --transport=rdma each
// posts one --messageSize message over the RDMA transport (RdmaHelper) and the
// run lasts until every message has completed. The example prints each sender's
// goodput, the egress goodput against the host-link bound, Jain's fairness index,
// the fabric's queue high-water mark, drops (and ECN marks and PFC pauses on the
// Ethernet Clos) and the simulator's cost (events per cell or packet), writes the
// same as JSON, and every fabric counter as CSV (--stats).
//
//   ./fabric-incast --senders=8 --hostLinkRate=400Gbps --fabricLinkRate=400Gbps
//   ./fabric-incast --fabric=ethernet --transport=rdma --senders=8
//
// Every cluster field is an option (AddClusterToCommandLine); with
// --leaves=0 (default) the cluster has as many leaves of --hostsPerLeaf hosts (1
// by default) as hold the receiver and the senders where --senderPlacement puts them.
//
//   ./fabric-incast --hostsPerLeaf=4 --senders=3 --senderPlacement=local

#include "fabric-example.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/command-line.h"
#include "ns3/core-module.h"
#include "ns3/ipv4-header.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FabricIncast");

namespace
{

/// Bytes received by a host, per source host, after a warm-up time.
struct Sink
{
    const ClusterDescription* cluster{nullptr};
    Time from;
    std::vector<uint64_t> bytes;
    uint64_t packets{0};

    bool Receive(Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address&)
    {
        Ipv4Header ip;
        p->PeekHeader(ip);
        packets++;
        if (Simulator::Now() >= from)
        {
            bytes.at(cluster->GetHostIndex(ip.GetSource())) += p->GetSize();
        }
        return true;
    }
};

/// Records when each sender's message was fully received.
void
RecordCompletion(std::vector<Time>* done, const RdmaCompletion& c)
{
    done->at(c.srcRank) = c.doneTime;
}

/// Records a sender's message given up by the transport (its queue pair failed).
void
RecordFailure(std::vector<bool>* failed, const RdmaCompletion& c)
{
    failed->at(c.srcRank) = true;
}

} // namespace

int
main(int argc, char* argv[])
{
    RunRecord::Begin(argc, argv);
    ClusterDescription cluster;
    cluster.leaves = 0;
    cluster.hostsPerLeaf = 1;
    cluster.hostLinkRate = DataRate("100Gbps");
    cluster.fabricLinkRate = DataRate("100Gbps");
    uint32_t senders = 4;
    Time duration = MicroSeconds(200);
    Time warmup = MicroSeconds(50);
    FabricExampleOptions options;
    options.json = "fabric-incast.json";
    FabricTransportOptions traffic(1 << 20);
    bool pcap = false;
    std::string senderPlacement = "first";

    CommandLine cmd(__FILE__);
    AddClusterToCommandLine(
        cmd,
        cluster,
        "",
        {{"leaves",
          "number of leaf switches (0: as many as hold the receiver and the senders, "
          "hostsPerLeaf hosts each)"},
         {"gpusPerServer", ""}, // hosts here are NICs without GPU servers
         {"nicPlacement", ""}});
    AddCheckedValue(cmd, "senders", "number of senders N (they send to host 0)", senders);
    AddCheckedValue(cmd,
                    "senderPlacement",
                    "where the senders sit: first (hosts 1..N), local (on the receiver's leaf) "
                    "or remote (on other leaves: hosts from hostsPerLeaf on)",
                    senderPlacement);
    AddCheckedValue(cmd, "duration", "how long the senders send", duration);
    AddCheckedValue(cmd, "warmup", "goodput is measured from this time on", warmup);
    options.AddToCommandLine(cmd, true);
    traffic.AddToCommandLine(cmd,
                             "bytes each sender posts with --transport=rdma (K, M, G suffixes)");
    AddCheckedValue(cmd, "pcap", "write pcap of the receiver's host link", pcap);
    cmd.Parse(argc, argv);

    const ExampleInput input("fabric-incast");
    if (const std::string problem = options.FindProblem(); !problem.empty())
    {
        input.Refuse(problem);
    }
    TypeId congestionControlType;
    if (const std::string problem = traffic.FindProblem(options, &congestionControlType);
        !problem.empty())
    {
        input.Refuse(problem);
    }
    const std::string& transport = traffic.transport;
    uint32_t& packetSize = traffic.packetSize; // the RoCE packet's size after an RDMA run
    const uint64_t messageSize = traffic.messageSize;
    const std::string& congestionControl = traffic.congestionControl;
    if (senders < 1)
    {
        input.Refuse("--senders=0 must be at least 1");
    }
    if (warmup >= duration)
    {
        input.Refuse("--warmup=" + ShowTime(warmup) +
                     " must be below --duration=" + ShowTime(duration));
    }
    if (cluster.hostsPerLeaf == 0)
    {
        input.Refuse("--hostsPerLeaf=0 must be at least 1");
    }
    if (senderPlacement != "first" && senderPlacement != "local" && senderPlacement != "remote")
    {
        input.Refuse("--senderPlacement=" + senderPlacement +
                     " is not a placement (first, local or remote)");
    }
    const bool remotePlacement = senderPlacement == "remote";
    if (senderPlacement == "local" && senders > cluster.hostsPerLeaf - 1)
    {
        input.Refuse("--senderPlacement=local: --senders=" + std::to_string(senders) +
                     " do not fit beside the receiver on its leaf (--hostsPerLeaf=" +
                     std::to_string(cluster.hostsPerLeaf) + ")");
    }
    if (cluster.leaves == 0)
    {
        // The receiver's leaf, and (remote) the senders' own leaves after it.
        cluster.leaves = remotePlacement
                             ? 1 + (senders + cluster.hostsPerLeaf - 1) / cluster.hostsPerLeaf
                             : (senders + 1 + cluster.hostsPerLeaf - 1) / cluster.hostsPerLeaf;
    }
    if (const std::string problem = cluster.FindProblem(); !problem.empty())
    {
        input.Refuse(problem);
    }
    if (const std::string problem = traffic.IsRdma() ? FindRdmaLinkProblem(cluster) : "";
        !problem.empty())
    {
        input.Refuse(problem);
    }
    if (cluster.GetHosts() < senders + 1)
    {
        input.Refuse("--senders=" + std::to_string(senders) + " needs " +
                     std::to_string(senders + 1) + " hosts, the cluster has " +
                     std::to_string(cluster.GetHosts()));
    }
    // The senders' hosts: remote ones start at the first host of leaf 1.
    const uint32_t firstSender = remotePlacement ? cluster.hostsPerLeaf : 1;
    if (uint64_t{firstSender} + senders > cluster.GetHosts())
    {
        input.Refuse("--senderPlacement=remote: --senders=" + std::to_string(senders) + " need " +
                     std::to_string(senders) +
                     " hosts off the receiver's leaf, the "
                     "cluster has " +
                     std::to_string(cluster.GetHosts() - cluster.hostsPerLeaf));
    }
    std::vector<uint32_t> senderHosts(senders);
    uint32_t localSenders = 0;
    for (uint32_t s = 0; s < senders; ++s)
    {
        senderHosts[s] = firstSender + s;
        localSenders += cluster.GetLeafOfHost(senderHosts[s]) == cluster.GetLeafOfHost(0);
    }
    const uint32_t remoteSenders = senders - localSenders;

    // Jumbo frames: raise the Mtu of every NIC and switch port to fit.
    const auto fabricHelper = options.Install(cluster, packetSize > 4200 ? packetSize : 0);
    ClusterFabricHelper& fabric = *fabricHelper;
    if (pcap)
    {
        fabric.EnablePcap("fabric-incast", fabric.GetHostDevices().Get(0), false);
    }

    Sink sink;
    sink.cluster = &cluster;
    sink.from = warmup;
    sink.bytes.assign(cluster.GetHosts(), 0);
    std::vector<Ptr<UdpLineRateSource>> sources;
    RdmaHelper rdma;
    std::vector<Time> done(cluster.GetHosts(), Time(0));  // per host
    std::vector<bool> givenUp(cluster.GetHosts(), false); // per host
    if (transport == "udp")
    {
        fabric.GetHostDevice(0)->SetReceiveCallback(MakeCallback(&Sink::Receive, &sink));
        for (uint32_t h : senderHosts)
        {
            auto src = CreateObject<UdpLineRateSource>();
            src->SetAttribute("PacketSize", UintegerValue(packetSize));
            options.Configure(src);
            src->Setup(fabric.GetHostDevice(h), cluster.GetHostAddress(0));
            src->Start(NanoSeconds(100));
            src->Stop(duration);
            sources.push_back(src);
        }
        Simulator::Stop(duration);
    }
    else
    {
        rdma.SetTransportAttribute("CongestionControl", TypeIdValue(congestionControlType));
        rdma.Install(fabric.GetHostDevices());
        for (uint32_t h : senderHosts)
        {
            rdma.Post(h,
                      0,
                      messageSize,
                      h,
                      RdmaCompletionCallback(),
                      MakeBoundCallback(&RecordCompletion, &done),
                      0,
                      MakeBoundCallback(&RecordFailure, &givenUp));
        }
        // A run in which queue pairs fail ends once no message can progress.
        rdma.StopWhenStalled();
    }
    Simulator::Run();
    const uint32_t failedMessages =
        static_cast<uint32_t>(std::count(givenUp.begin(), givenUp.end(), true));

    // Per-sender goodput, and the egress goodput of host 0's link.
    std::vector<double> rates(senders + 1, 0.0);
    double egress = 0;
    if (transport == "rdma")
    {
        // A sender's goodput is its message over its completion time; the egress
        // carried every message that completed by the last completion. A message
        // given up (its queue pair failed) has none.
        const Time last = *std::max_element(done.begin(), done.end());
        duration = last;
        warmup = Time(0);
        uint32_t completed = 0;
        for (uint32_t s = 1; s <= senders; ++s)
        {
            const uint32_t h = senderHosts[s - 1];
            NS_ABORT_MSG_IF(done[h].IsZero() && !givenUp[h],
                            "message of sender host " << h << " did not complete");
            if (!done[h].IsZero())
            {
                rates[s] = messageSize * 8.0 / done[h].GetSeconds();
                ++completed;
            }
        }
        egress = last.IsStrictlyPositive() ? completed * messageSize * 8.0 / last.GetSeconds() : 0;
        packetSize = 4096 + RdmaTransport::HEADER_BYTES; // RoCE packet of a full Mtu
    }
    else
    {
        const double window = (duration - warmup).GetSeconds();
        for (uint32_t s = 1; s <= senders; ++s)
        {
            rates[s] = sink.bytes[senderHosts[s - 1]] * 8.0 / window;
            egress += rates[s];
        }
    }

    // Host-link bound on IPv4 bytes (UDP) or RDMA payload (4096 of each packet).
    const double payloadShare = double(transport == "rdma" ? 4096 : packetSize) / packetSize;
    const double hostBound = cluster.hostLinkRate.GetBitRate() * packetSize * payloadShare /
                             (std::max(packetSize + 14, 60u) + 24);
    // The fabric links into the receiver's leaf: cells on the scheduled fabric,
    // the same frames as the host links on the Ethernet Clos.
    const auto* scheduled = dynamic_cast<const ScheduledFabricHelper*>(&fabric);
    const double fabricBound = scheduled ? scheduled->GetIncastBound(packetSize) * payloadShare
                                         : hostBound * cluster.GetFabricLinksPerLeaf() *
                                               double(cluster.fabricLinkRate.GetBitRate()) /
                                               double(cluster.hostLinkRate.GetBitRate());
    // The fabric binds once a sender is on another leaf (with local senders as well,
    // as the default placement has when the receiver's leaf is full).
    const bool fabricBinds = fabricBound < hostBound && remoteSenders > 0;
    const double bound = fabricBinds ? fabricBound : hostBound;
    double total = 0;
    double sumSq = 0;
    nlohmann::json perSender = nlohmann::json::array();
    std::cout << options.fabric << " incast (" << transport << "): " << senders << ":1 on "
              << cluster.ToString() << std::endl
              << "  senders (--senderPlacement=" << senderPlacement << "): hosts "
              << senderHosts.front() << ".." << senderHosts.back() << ", " << localSenders
              << " on the receiver's leaf " << cluster.GetLeafOfHost(0) << ", " << remoteSenders
              << " on other leaves" << std::endl;
    for (uint32_t s = 1; s <= senders; ++s)
    {
        const uint32_t h = senderHosts[s - 1];
        total += rates[s];
        sumSq += rates[s] * rates[s];
        perSender.push_back({{"host", h},
                             {"leaf", cluster.GetLeafOfHost(h)},
                             {"goodputGbps", rates[s] / 1e9},
                             {"givenUp", bool(givenUp[h])}});
        std::cout << "  sender " << s << " (host " << h << ", leaf " << cluster.GetLeafOfHost(h)
                  << "): " << rates[s] / 1e9 << " Gb/s"
                  << (givenUp[h] ? " (its message was given up: its queue pair failed)" : "")
                  << std::endl;
    }
    const double jain = sumSq > 0 ? total * total / (senders * sumSq) : 0;
    std::cout << "  bounds: host link " << hostBound / 1e9 << " Gb/s, fabric links into the "
              << "receiver's leaf " << fabricBound / 1e9 << " Gb/s: the "
              << (fabricBinds ? "fabric" : "host link") << " binds" << std::endl;
    if (fabricBound < hostBound)
    {
        std::cout << "  warning: the fabric links into a leaf carry " << fabricBound / hostBound
                  << " of one host link: the fabric, not the host link, limits an incast "
                  << "from other leaves" << std::endl;
    }
    std::cout << "  egress goodput " << egress / 1e9 << " Gb/s = " << egress / bound
              << " of the bound " << bound / 1e9 << " Gb/s" << std::endl
              << "  Jain's index " << jain << std::endl;
    nlohmann::json rdmaTotals;
    if (transport == "rdma")
    {
        const RdmaTransport::Stats totals = rdma.GetTotals();
        AddRdmaTotals(totals, rdmaTotals);
        if (failedMessages > 0)
        {
            std::cout << "  the run ended at " << Simulator::Now().As(Time::MS) << " with "
                      << failedMessages << " of " << senders
                      << " messages undelivered: nothing more could progress: "
                      << RdmaHelper::DescribeFailures(totals) << std::endl;
        }
    }
    nlohmann::json results = {
        {"scenario", "fabric-incast"},
        {"transport", transport},
        {"congestionControl", transport == "rdma" ? congestionControl : "none"},
        {"senders", senders},
        {"senderPlacement", senderPlacement},
        {"senderHosts", senderHosts},
        {"sendersOnReceiverLeaf", localSenders},
        {"sendersOnOtherLeaves", remoteSenders},
        {"packetSize", packetSize},
        {"durationUs", duration.GetMicroSeconds()},
        {"warmupUs", warmup.GetMicroSeconds()},
        {"egressGoodputGbps", egress / 1e9},
        {"boundGbps", bound / 1e9},
        {"hostBoundGbps", hostBound / 1e9},
        {"fabricBoundGbps", fabricBound / 1e9},
        {"binding", fabricBinds ? "fabric" : "host link"},
        {"egressOverBound", egress / bound},
        {"jain", jain},
        {"perSender", perSender},
    };
    if (transport == "rdma")
    {
        results["completed"] = failedMessages == 0;
        results["rdma"] = rdmaTotals["rdma"];
    }
    options.Report(fabric, results);
    Simulator::Destroy();
    return failedMessages > 0 ? 1 : 0;
}
