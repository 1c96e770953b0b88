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
Time g_received;      //!< when the last byte arrived
Time g_acked;         //!< when the last ACK arrived
bool g_failed{false}; //!< the message was given up (its queue pair failed)

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

void
OnFailed(const RdmaCompletion&)
{
    g_failed = true;
}
} // namespace

int
main(int argc, char* argv[])
{
    RunRecord::Begin(argc, argv); // applies --RngSeed and --RngRun before the other options
    uint64_t size = 10000000;
    DataRate rate("100Gbps");
    Time delay = NanoSeconds(500);
    uint32_t mtu = 4096;
    bool pcap = false;
    bool ascii = false;
    std::string pcapPrefix = "rdma-point-to-point";

    CommandLine cmd(__FILE__);
    AddCheckedValue(cmd, "size", "message size in bytes", size);
    AddCheckedValue(cmd, "rate", "NIC line rate", rate);
    AddCheckedValue(cmd, "delay", "wire propagation delay", delay);
    AddCheckedValue(cmd, "mtu", "RDMA path MTU (256..4096)", mtu);
    AddCheckedValue(cmd, "pcap", "write a pcap of both NICs", pcap);
    AddCheckedValue(cmd, "ascii", "write an ascii trace of both NICs", ascii);
    AddCheckedValue(cmd, "pcapPrefix", "pcap/ascii file prefix", pcapPrefix);
    cmd.Parse(argc, argv);

    const auto refuse = [](const std::string& reason) {
        RefuseOption("rdma-point-to-point", reason);
    };
    if (size < 1)
    {
        refuse("--size=0 must be at least 1");
    }
    if (rate.GetBitRate() == 0)
    {
        refuse("--rate=0bps must be positive");
    }
    if (const std::string problem = FindOutputPathProblem(pcapPrefix); !problem.empty())
    {
        refuse("--pcapPrefix=" + pcapPrefix + problem);
    }
    if (mtu < RdmaTransport::MIN_PATH_MTU || mtu > RdmaTransport::MAX_PATH_MTU)
    {
        refuse("--mtu=" + std::to_string(mtu) + " must be in " +
               std::to_string(RdmaTransport::MIN_PATH_MTU) + ".." +
               std::to_string(RdmaTransport::MAX_PATH_MTU));
    }

    NodeContainer hosts;
    hosts.Create(2);
    RocePointToPointHelper wire;
    wire.SetDeviceAttribute("DataRate", DataRateValue(rate));
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

    rdma.Post(0,
              1,
              size,
              1,
              MakeCallback(&OnSent),
              MakeCallback(&OnReceived),
              0,
              MakeCallback(&OnFailed));
    // If the queue pair fails, the run ends there.
    rdma.StopWhenStalled();
    Simulator::Run();

    const auto& tx = rdma.GetTransport(0)->GetStats();
    const auto& rx = rdma.GetTransport(1)->GetStats();
    if (g_failed)
    {
        std::cout << "message " << size << " B, MTU " << mtu << ", rate " << rate << "\n"
                  << "  the run ended at " << Simulator::Now().As(Time::MS)
                  << " without delivering the message, nothing more could progress: "
                  << RdmaHelper::DescribeFailures(rdma.GetTotals()) << "\n"
                  << "  data packets " << tx.dataPacketsSent << ", retransmitted "
                  << tx.retransmittedPackets << ", delivered " << rx.bytesDelivered << " B"
                  << std::endl;
        Simulator::Destroy();
        return 1;
    }
    // With --ns3::RoceNetDevice::ReceiveErrorModel=...: the receiver's NIC drops data
    // frames, the sender's ACK and NAK frames.
    const auto dataLost = DynamicCast<RoceNetDevice>(nics.Get(1))->GetCounters().rxErrorDrops;
    const auto controlLost = DynamicCast<RoceNetDevice>(nics.Get(0))->GetCounters().rxErrorDrops;
    double seconds = g_received.GetSeconds();
    double goodput = size * 8.0 / seconds;
    double bps = static_cast<double>(rate.GetBitRate());
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
              << "  lost to the error model: " << dataLost << " data frames, " << controlLost
              << " ACK/NAK frames; timeouts " << tx.timeouts << ", NAKs " << rx.naksSent << "\n"
              << "  simulator events " << Simulator::GetEventCount() << " ("
              << static_cast<double>(Simulator::GetEventCount()) / tx.dataPacketsSent
              << " per data packet)" << std::endl;
    bool ok = rx.bytesDelivered == size && tx.messagesSent == 1 && rx.messagesReceived == 1;
    Simulator::Destroy();
    return ok ? 0 : 1;
}
