/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// One RDMA WRITE message between two RoCEv2 NICs on a point-to-point wire; prints the
// goodput next to the analytical figure rate x payload / (payload + 82).
//
//   ./rdma-point-to-point --size=10000000 --rate=100Gbps --mtu=4096 --pcap=true

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{
Time g_received; //!< when the last byte arrived
Time g_acked;    //!< when the last ACK arrived

void
OnReceived(const RdmaCompletion& c)
{
    g_received = c.doneTime;
}

void
OnSent(const RdmaCompletion& c)
{
    g_acked = c.doneTime;
}
} // namespace

int
main(int argc, char* argv[])
{
    uint64_t size = 10000000;
    std::string rate = "100Gbps";
    Time delay = NanoSeconds(500);
    uint32_t mtu = 4096;
    bool pcap = false;
    bool ascii = false;
    std::string pcapPrefix = "rdma-point-to-point";

    CommandLine cmd(__FILE__);
    cmd.AddValue("size", "message size in bytes", size);
    cmd.AddValue("rate", "NIC line rate", rate);
    cmd.AddValue("delay", "wire propagation delay", delay);
    cmd.AddValue("mtu", "RDMA path MTU (256..4096)", mtu);
    cmd.AddValue("pcap", "write a pcap of both NICs", pcap);
    cmd.AddValue("ascii", "write an ascii trace of both NICs", ascii);
    cmd.AddValue("pcapPrefix", "pcap/ascii file prefix", pcapPrefix);
    cmd.Parse(argc, argv);

    NodeContainer hosts;
    hosts.Create(2);
    RocePointToPointHelper wire;
    wire.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rate)));
    wire.SetChannelAttribute("Delay", TimeValue(delay));
    NetDeviceContainer nics = wire.Install(hosts);

    RdmaHelper rdma;
    rdma.SetTransportAttribute("Mtu", UintegerValue(mtu));
    rdma.Install(nics);

    if (pcap)
    {
        wire.EnablePcapAll(pcapPrefix);
    }
    if (ascii)
    {
        AsciiTraceHelper files;
        wire.EnableAsciiAll(files.CreateFileStream(pcapPrefix + ".tr"));
    }

    rdma.Post(0, 1, size, 1, MakeCallback(&OnSent), MakeCallback(&OnReceived));
    Simulator::Run();

    const auto& tx = rdma.GetTransport(0)->GetStats();
    const auto& rx = rdma.GetTransport(1)->GetStats();
    double seconds = g_received.GetSeconds();
    double goodput = size * 8.0 / seconds;
    double bps = static_cast<double>(DataRate(rate).GetBitRate());
    double ideal = bps * mtu / (mtu + 82.0); // RoCEv2/IPv4 per-packet overhead 82 B
    std::cout << std::fixed << std::setprecision(3) << "message " << size << " B, MTU " << mtu
              << ", rate " << rate << "\n"
              << "  received at " << g_received.GetMicroSeconds() << " us, acked at "
              << g_acked.GetMicroSeconds() << " us\n"
              << "  goodput " << goodput / 1e9 << " Gb/s, ideal " << ideal / 1e9 << " Gb/s, ratio "
              << goodput / ideal << "\n"
              << "  data packets " << tx.dataPacketsSent << ", retransmitted "
              << tx.retransmittedPackets << ", ACKs " << rx.acksSent << ", delivered "
              << rx.bytesDelivered << " B\n"
              << "  simulator events " << Simulator::GetEventCount() << " ("
              << static_cast<double>(Simulator::GetEventCount()) / tx.dataPacketsSent
              << " per data packet)" << std::endl;
    bool ok = rx.bytesDelivered == size && tx.messagesSent == 1 && rx.messagesReceived == 1;
    Simulator::Destroy();
    return ok ? 0 : 1;
}
