/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-roce-pcap: a capture of host links opens in tshark as RoCEv2 with zero
// malformed frames; data PSNs are in order; ACKs, CNPs and PFC frames (sent by hand,
// and sent by an Ethernet Clos switch under incast) decode. A missing tshark is a
// failure, not a skip.

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/test.h"

#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Run a command and return its standard output.
std::string
Capture(const std::string& command, int* status)
{
    std::string out;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe)
    {
        *status = -1;
        return out;
    }
    char buffer[4096];
    std::size_t n;
    while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    {
        out.append(buffer, n);
    }
    *status = pclose(pipe);
    return out;
}

/// Split a line on a separator.
std::vector<std::string>
Split(const std::string& line, char sep)
{
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string f;
    while (std::getline(ss, f, sep))
    {
        fields.push_back(f);
    }
    if (!line.empty() && line.back() == sep)
    {
        fields.emplace_back();
    }
    return fields;
}

/// \return the path of tshark, or empty if it is not installed
std::string
FindTshark()
{
    int status = 0;
    std::string tshark = Capture("command -v tshark", &status);
    while (!tshark.empty() && (tshark.back() == '\n' || tshark.back() == '\r'))
    {
        tshark.pop_back();
    }
    return tshark;
}

/// What a test expects when tshark is missing.
constexpr const char* NO_TSHARK =
    "tshark is not installed (apt-get install tshark): this test needs it and fails without it";

} // namespace

/**
 * Two DCQCN senders through a CE-marking switch to one receiver, with a PFC frame
 * from the switch to host 0; captures of host 0 and host 2 read by tshark.
 */
class RocePcapTestCase : public TestCase
{
  public:
    RocePcapTestCase()
        : TestCase("tshark decodes the capture as RoCEv2: no malformed frames, PSNs in order")
    {
    }

  private:
    /// Run with pcap and check what tshark decodes of both captures.
    void DoRun() override
    {
        int status = 0;
        const std::string tshark = FindTshark();
        NS_TEST_ASSERT_MSG_EQ(tshark.empty(), false, NO_TSHARK);

        // The simulation lives in this block: releasing every device closes (flushes)
        // the pcap files before tshark reads them.
        std::string prefix = CreateTempDirFilename("roce-pcap");
        const uint16_t quanta = 1000;
        RdmaTransport::Stats s0;
        RoceNetDevice::Counters nic0;
        {
            // One switch: a Clos of one leaf with three hosts, marking early
            // (20 KB / 80 KB, Pmax 0.5 at 25 Gb/s) so the capture holds CNPs.
            ClusterDescription cluster;
            cluster.leaves = 1;
            cluster.hostsPerLeaf = 3;
            cluster.spines = 1;
            cluster.hostLinkRate = DataRate("25Gbps");
            cluster.fabricLinkRate = DataRate("25Gbps");
            cluster.hostLinkDelay = MicroSeconds(1);
            EthernetClosHelper fabric;
            fabric.SetSwitchAttribute("EcnKmin", UintegerValue(20000));
            fabric.SetSwitchAttribute("EcnKmax", UintegerValue(80000));
            fabric.SetSwitchAttribute("EcnPmax", DoubleValue(0.5));
            fabric.Install(cluster);
            fabric.AssignStreams(5);
            const NetDeviceContainer& nics = fabric.GetHostDevices();
            const NetDeviceContainer& ports = fabric.GetLeafHostDevices();
            RdmaHelper rdma;
            rdma.SetTransportAttribute("CongestionControl",
                                       StringValue("ns3::DcqcnCongestionControl"));
            rdma.SetTransportAttribute("Mtu", UintegerValue(1024));
            rdma.Install(nics);
            fabric.EnablePcap(prefix + "-host0.pcap", nics.Get(0), false, true);
            fabric.EnablePcap(prefix + "-host2.pcap", nics.Get(2), false, true);
            uint32_t done = 0;
            auto count = MakeBoundCallback(
                +[](uint32_t* n, const RdmaCompletion&) { ++*n; },
                &done);
            rdma.Post(0, 2, 2000000, 1, count);
            rdma.Post(1, 2, 2000000, 2, count);
            rdma.Post(0, 2, 777, 3, count);
            Simulator::Schedule(MicroSeconds(50),
                                &RoceNetDevice::SendPfc,
                                DynamicCast<RoceNetDevice>(ports.Get(0)),
                                3,
                                quanta);
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(done, 3, "all messages acknowledged");
            s0 = rdma.GetTransport(0)->GetStats();
            NS_TEST_EXPECT_MSG_GT(s0.cnpsReceived, 0, "the capture has CNPs");
            nic0 = DynamicCast<RoceNetDevice>(nics.Get(0))->GetCounters();
            Simulator::Destroy();
        }

        for (const std::string host : {"host0", "host2"})
        {
            std::string file = prefix + "-" + host + ".pcap";
            // Quoted: ns-3.35's temporary file names keep the test's spaces and colon.
            std::string base = tshark + " -n -r '" + file + "'";
            std::string malformed = Capture(base + " -Y _ws.malformed 2>/dev/null", &status);
            NS_TEST_EXPECT_MSG_EQ(status, 0, "tshark ran on " << file);
            NS_TEST_EXPECT_MSG_EQ(malformed, "", "no malformed frame in " << file);
            std::string expert =
                Capture(base + " -q -z expert,error 2>/dev/null | grep -ci malformed", &status);
            NS_TEST_EXPECT_MSG_EQ(std::stoi(expert), 0, "no malformed expert entry in " << file);

            std::string rows = Capture(
                base + " -T fields -E separator=, -e frame.protocols -e ip.src -e "
                       "infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn -e "
                       "macc.opcode -e macc.cbfc.pause_time.c3 2>/dev/null",
                &status);
            NS_TEST_EXPECT_MSG_EQ(status, 0, "tshark fields");
            std::map<std::string, int64_t> lastPsn; // per source and QP
            uint64_t frames = 0;
            uint64_t data = 0;
            uint64_t acks = 0;
            uint64_t cnps = 0;
            uint64_t pfc = 0;
            uint64_t outOfOrder = 0;
            std::stringstream lines(rows);
            std::string line;
            while (std::getline(lines, line))
            {
                auto f = Split(line, ',');
                if (f.size() < 7)
                {
                    continue;
                }
                ++frames;
                if (!f[5].empty())
                {
                    ++pfc;
                    NS_TEST_EXPECT_MSG_EQ(std::stoul(f[5], nullptr, 0), 0x0101, "PFC opcode");
                    NS_TEST_EXPECT_MSG_EQ(std::stoul(f[6]), quanta, "PFC pause time");
                    continue;
                }
                NS_TEST_EXPECT_MSG_NE(f[0].find("infiniband"),
                                      std::string::npos,
                                      "decoded as InfiniBand over UDP: " << f[0]);
                unsigned long opcode = std::stoul(f[2], nullptr, 0);
                if (opcode == 0x11)
                {
                    ++acks;
                    continue;
                }
                if (opcode == 0x81)
                {
                    ++cnps;
                    continue;
                }
                ++data;
                std::string key = f[1] + "/" + f[3];
                int64_t psn = std::stoll(f[4]);
                auto it = lastPsn.find(key);
                if (it != lastPsn.end() && psn != it->second + 1)
                {
                    ++outOfOrder;
                }
                lastPsn[key] = psn;
            }
            std::cout << file << ": " << frames << " frames, " << data << " data, " << acks
                      << " ACK, " << cnps << " CNP, " << pfc << " PFC, malformed 0 expected, "
                      << "PSN breaks " << outOfOrder << std::endl;
            NS_TEST_EXPECT_MSG_GT(data, 1000, "data frames decoded");
            NS_TEST_EXPECT_MSG_GT(acks, 10, "ACK frames decoded");
            NS_TEST_EXPECT_MSG_GT(cnps, 0, "CNP frames decoded");
            NS_TEST_EXPECT_MSG_EQ(outOfOrder, 0, "PSNs in order");
            if (host == "host0")
            {
                NS_TEST_EXPECT_MSG_EQ(pfc, 1, "the PFC frame decoded");
                NS_TEST_EXPECT_MSG_EQ(frames,
                                      nic0.txFrames + nic0.rxFrames,
                                      "every frame sent or received is in the capture");
                NS_TEST_EXPECT_MSG_EQ(cnps, s0.cnpsReceived, "CNPs in the capture = counted");
            }
        }
    }
};

/**
 * A 7:1 lossless incast on the Ethernet Clos: the leaf pauses and resumes the
 * senders on its own host ports with real PFC frames. tshark decodes the capture of
 * one of those links: every PFC frame the switch port sent, pauses of 0xffff quanta
 * and resumes of 0 on priority 3, and the RoCE frames around them, none malformed.
 */
class ClosPfcPcapTestCase : public TestCase
{
  public:
    ClosPfcPcapTestCase()
        : TestCase("tshark decodes the PFC pauses and resumes an Ethernet Clos switch sends")
    {
    }

  private:
    /// Run the incast with pcap and check the PFC frames tshark decodes.
    void DoRun() override
    {
        int status = 0;
        const std::string tshark = FindTshark();
        NS_TEST_ASSERT_MSG_EQ(tshark.empty(), false, NO_TSHARK);
        const std::string file = CreateTempDirFilename("clos-pfc.pcap");
        RoceNetDevice::Counters port;
        RoceNetDevice::Counters nic;
        {
            ClusterDescription cluster;
            cluster.leaves = 2;
            cluster.hostsPerLeaf = 4;
            cluster.spines = 2;
            cluster.hostLinkRate = DataRate("100Gbps");
            cluster.fabricLinkRate = DataRate("100Gbps");
            EthernetClosHelper fabric;
            fabric.SetMmuAttribute("BufferSize", UintegerValue(1 << 20));
            fabric.Install(cluster);
            RdmaHelper rdma;
            rdma.Install(fabric.GetHostDevices());
            // Host 1 shares leaf 0 with the receiver, host 0.
            fabric.EnablePcap(file, fabric.GetHostDevice(1), false, true);
            for (uint32_t h = 1; h < 8; ++h)
            {
                rdma.Post(h, 0, 1 << 20, h, RdmaCompletionCallback());
            }
            Simulator::Run();
            port = DynamicCast<RoceNetDevice>(fabric.GetLeafHostDevices().Get(1))->GetCounters();
            nic = fabric.GetHostDevice(1)->GetCounters();
            Simulator::Destroy();
        }
        NS_TEST_ASSERT_MSG_GT(port.pfcSent, 1, "the leaf paused host 1 and resumed it");
        const std::string base = tshark + " -n -r '" + file + "'";
        const std::string malformed = Capture(base + " -Y _ws.malformed 2>/dev/null", &status);
        NS_TEST_EXPECT_MSG_EQ(status, 0, "tshark ran");
        NS_TEST_EXPECT_MSG_EQ(malformed, "", "no malformed frame");
        const std::string rows = Capture(base + " -T fields -E separator=, -e macc.opcode -e "
                                                "macc.cbfc.enbv -e macc.cbfc.pause_time.c3 -e "
                                                "infiniband.bth.opcode 2>/dev/null",
                                         &status);
        uint64_t frames = 0;
        uint64_t pauses = 0;
        uint64_t resumes = 0;
        uint64_t roce = 0;
        std::stringstream lines(rows);
        std::string line;
        while (std::getline(lines, line))
        {
            const auto f = Split(line, ',');
            NS_TEST_ASSERT_MSG_EQ(f.size(), 4, "four fields: " << line);
            ++frames;
            if (f[0].empty())
            {
                roce += !f[3].empty();
                continue;
            }
            NS_TEST_EXPECT_MSG_EQ(std::stoul(f[0], nullptr, 0), 0x0101, "PFC opcode");
            NS_TEST_EXPECT_MSG_EQ(std::stoul(f[1], nullptr, 0), 1u << 3, "priority 3 only");
            const unsigned long quanta = std::stoul(f[2]);
            NS_TEST_EXPECT_MSG_EQ((quanta == 0xffff || quanta == 0), true, "pause or resume");
            (quanta == 0 ? resumes : pauses)++;
        }
        std::cout << file << ": " << frames << " frames, " << pauses << " PFC pauses, " << resumes
                  << " resumes, " << roce << " RoCE" << std::endl;
        NS_TEST_EXPECT_MSG_EQ(frames, nic.txFrames + nic.rxFrames, "every frame is in the capture");
        NS_TEST_EXPECT_MSG_EQ(pauses + resumes, port.pfcSent, "every PFC frame the port sent");
        NS_TEST_EXPECT_MSG_EQ(pauses + resumes, nic.pfcReceived, "every PFC frame host 1 got");
        NS_TEST_EXPECT_MSG_GT(resumes, 0, "resumes decoded");
        NS_TEST_EXPECT_MSG_EQ(roce + pauses + resumes, frames, "every other frame is RoCE");
    }
};

/// The suite.
class RocePcapTestSuite : public TestSuite
{
  public:
    RocePcapTestSuite()
        : TestSuite("ai-fabric-roce-pcap", TestSuite::Type::UNIT)
    {
        AddTestCase(new RocePcapTestCase());
        AddTestCase(new ClosPfcPcapTestCase());
    }
};

static RocePcapTestSuite g_rocePcapTestSuite; //!< registers the suite
