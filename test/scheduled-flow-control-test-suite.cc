/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The scheduled fabric where the fabric, not the host links, can be the
// bottleneck: fabric speedups from 0.75 to 1.25, 2 to 8 spines, permutations,
// all-to-all, a 64:1 incast, and link and spine failures under full RDMA load.
// Nothing may be dropped for congestion, the fabric's queues stay under their
// limits, the backlog stays in the VOQs, goodput reaches the bound computed here
// from the cell arithmetic, and every packet and byte is accounted for at any
// moment.

#include "scheduled-fabric-test-common.h"

#include "ns3/cell-channel.h"
#include "ns3/cell-net-device.h"
#include "ns3/cell-spine-switch.h"
#include "ns3/data-rate.h"
#include "ns3/rdma-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/scheduled-fabric-helper.h"
#include "ns3/scheduled-leaf-switch.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/udp-line-rate-source.h"
#include "ns3/uinteger.h"
#include "ns3/voq-queue-disc.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// The scheduled fabric with RDMA on every host.
using RdmaFabric = RdmaCluster<ScheduledFabricHelper>;

/// RDMA packets: 4096 B of payload in a 4140 B IPv4 packet (IPv4 20, UDP 8,
/// BTH 12, ICRC 4).
constexpr double PAYLOAD = 4096;
/// Its IPv4 size.
constexpr double PACKET = 4140;

/// \return leaves x hosts per leaf at 100 Gb/s, with spines at a fabric rate
ClusterDescription
Cluster(uint32_t leaves, uint32_t hostsPerLeaf, uint32_t spines, const std::string& fabricRate)
{
    ClusterDescription c = SmallCluster(leaves, hostsPerLeaf, spines);
    c.fabricLinkRate = DataRate(fabricRate);
    return c;
}

/**
 * The fabric's RDMA goodput bound per host, derived by hand (defaults: cells of
 * 256 + 16 B, 64-byte control cells, 1024-byte credits, one request per VOQ per
 * 2 us), when each leaf sends and receives alike over usable links:
 *
 * - a 4140 B packet is ceil(4140 / 256) = 17 cells: 4140 + 17 x 16 = 4412 B on a link;
 * - for what a leaf receives it sends one grant cell of 64 B per 1024 B credited;
 * - each busy VOQ (one per host) sends a 64 B request every 2 us.
 *
 * So a leaf's links carry, per packet byte of each host, 4412 / 4140 + 64 / 1024
 * bytes, less hosts x 64 x 8 / 2 us of requests, and the payload is 4096 / 4140
 * of the packet:
 *
 *   bound = (links x rate - hosts x 256 Mb/s) / (hosts x (4412 / 4140 + 1 / 16))
 *           x 4096 / 4140
 */
double
FabricBound(const ClusterDescription& c, uint32_t usableLinks)
{
    const double requests = c.hostsPerLeaf * 64 * 8 / 2e-6;
    const double capacity = usableLinks * double(c.fabricLinkRate.GetBitRate());
    return (capacity - requests) / (c.hostsPerLeaf * (4412.0 / 4140.0 + 64.0 / 1024.0)) * PAYLOAD /
           PACKET;
}

/// \return the host-link RDMA goodput bound (cluster-test-common.h)
double
HostBound(const ClusterDescription& c)
{
    return RdmaGoodput(c);
}

/**
 * Checks that hold at any moment of a scheduled fabric's run, and the fabric's
 * queue high-water marks against their limits.
 */
class FabricWatch
{
  public:
    /// \param helper the fabric
    explicit FabricWatch(const ScheduledFabricHelper& helper)
        : m_helper(helper)
    {
    }

    /// Check conservation every interval until a time.
    /// \param every interval \param until last check
    void Every(Time every, Time until)
    {
        for (Time t = every; t <= until; t += every)
        {
            Simulator::Schedule(t, &FabricWatch::Check, this);
        }
    }

    /// Check conservation now.
    void Check()
    {
        const auto t = m_helper.GetTotals();
        m_checks++;
        if (t.GetUnaccountedPackets() != 0 || t.GetUnaccountedBytes() != 0)
        {
            m_unbalanced++;
        }
    }

    /// \return checks made
    uint32_t GetChecks() const
    {
        return m_checks;
    }

    /// \return checks at which packets or bytes did not add up
    uint32_t GetUnbalanced() const
    {
        return m_unbalanced;
    }

    /// \return the largest leaf fabric-port queue over its limit (<= 1 when within)
    double FabricPortFill() const
    {
        double fill = 0;
        for (uint32_t l = 0; l < m_helper.GetCluster().leaves; ++l)
        {
            Ptr<ScheduledLeafSwitch> leaf = m_helper.GetLeaf(l);
            for (uint32_t p = 0; p < leaf->GetNFabricPorts(); ++p)
            {
                Ptr<CellNetDevice> d = leaf->GetFabricPort(p);
                fill = std::max(fill, double(d->GetBacklogHighWater()) / d->GetQueueLimit());
            }
        }
        return fill;
    }

    /// \return the largest spine output queue over its limit (<= 1 when within)
    double SpineFill() const
    {
        double fill = 0;
        for (uint32_t s = 0; s < m_helper.GetCluster().spines; ++s)
        {
            Ptr<CellSpineSwitch> spine = m_helper.GetSpine(s);
            fill = std::max(fill, double(spine->GetQueueHighWater()) / spine->GetMaxQueueBytes());
        }
        return fill;
    }

  private:
    const ScheduledFabricHelper& m_helper; //!< the fabric
    uint32_t m_checks{0};                  //!< checks made
    uint32_t m_unbalanced{0};              //!< checks that failed
};

/// Samples the payload bytes delivered by every RDMA transport.
class DeliverySampler
{
  public:
    /// \param rdma the transports \param every interval \param until last sample
    DeliverySampler(const RdmaHelper& rdma, Time every, Time until)
        : m_rdma(rdma)
    {
        for (Time t = Time(0); t <= until; t += every)
        {
            Simulator::Schedule(t, &DeliverySampler::Sample, this);
        }
    }

    /// \param from start \param to end (both sampled times)
    /// \return aggregate payload goodput between them, bit/s
    double Rate(Time from, Time to) const
    {
        uint64_t a = 0;
        uint64_t b = 0;
        Time ta = Time::Max();
        Time tb = Time(0);
        for (const auto& [t, bytes] : m_samples)
        {
            if (t >= from && t < ta)
            {
                ta = t;
                a = bytes;
            }
            if (t <= to && t >= tb)
            {
                tb = t;
                b = bytes;
            }
        }
        return tb > ta ? (b - a) * 8.0 / (tb - ta).GetSeconds() : 0;
    }

    /// \param from a time \param level bit/s
    /// \return the first sample time after from at which the rate over the
    /// preceding interval reached level (or Time::Max())
    Time FirstReaching(Time from, double level) const
    {
        for (std::size_t i = 1; i < m_samples.size(); ++i)
        {
            const auto& [t0, b0] = m_samples[i - 1];
            const auto& [t1, b1] = m_samples[i];
            if (t0 >= from && (b1 - b0) * 8.0 / (t1 - t0).GetSeconds() >= level)
            {
                return t1;
            }
        }
        return Time::Max();
    }

    /**
     * \param from a time \param to a later time
     * \return the longest run of consecutive sampling intervals within [from, to]
     *         in which some rank delivered nothing (its length, and the rank)
     */
    std::pair<Time, uint32_t> LongestStall(Time from, Time to) const
    {
        std::pair<Time, uint32_t> worst{Time(0), 0};
        for (uint32_t r = 0; r < m_rdma.GetNRanks(); ++r)
        {
            Time since = Time::Max();
            for (std::size_t i = 1; i < m_samples.size(); ++i)
            {
                const Time t0 = m_samples[i - 1].first;
                const Time t1 = m_samples[i].first;
                if (t0 < from || t1 > to)
                {
                    continue;
                }
                if (m_perRank[i][r] == m_perRank[i - 1][r])
                {
                    since = std::min(since, t0);
                    if (t1 - since > worst.first)
                    {
                        worst = {t1 - since, r};
                    }
                }
                else
                {
                    since = Time::Max();
                }
            }
        }
        return worst;
    }

  private:
    /// Record the bytes delivered so far.
    void Sample()
    {
        uint64_t total = 0;
        std::vector<uint64_t> perRank(m_rdma.GetNRanks());
        for (uint32_t r = 0; r < m_rdma.GetNRanks(); ++r)
        {
            perRank[r] = m_rdma.GetTransport(r)->GetStats().bytesDelivered;
            total += perRank[r];
        }
        m_samples.emplace_back(Simulator::Now(), total);
        m_perRank.push_back(std::move(perRank));
    }

    const RdmaHelper& m_rdma;                         //!< the transports
    std::vector<std::pair<Time, uint64_t>> m_samples; //!< (time, bytes)
    std::vector<std::vector<uint64_t>> m_perRank;     //!< per sample: bytes per rank
};

/// \return the earliest non-zero completion
Time
FirstCompletion(const Completions& c)
{
    Time first = Time::Max();
    for (const Time& t : c.done)
    {
        if (t.IsStrictlyPositive())
        {
            first = std::min(first, t);
        }
    }
    return first;
}

/// \param s a fabric speedup case \return its name
std::string
Shape(uint32_t spines, const std::string& rate)
{
    return std::to_string(spines) + " spines at " + rate;
}

} // namespace

/**
 * \ingroup ai-fabric-tests
 * A shift permutation of long RDMA messages (every host to the host on the next
 * leaf) at a given fabric speedup: no drop, no discard, queues within their
 * limits, and the aggregate goodput, measured from 50 us until the first message
 * completes, at least 97% of min(host bound, fabric bound) summed over the flows.
 */
class PermutationBoundTestCase : public ScheduledFabricTestCase
{
  public:
    /// \param spines spines \param rate fabric link rate
    PermutationBoundTestCase(uint32_t spines, std::string rate)
        : ScheduledFabricTestCase("RDMA permutation, " + Shape(spines, rate) +
                                  ": lossless, goodput at the bound"),
          m_spines(spines),
          m_rate(rate)
    {
    }

  private:
    /// Run the RDMA permutation and check losslessness, queue limits and goodput.
    void DoRun() override
    {
        const auto c = Cluster(4, 4, m_spines, m_rate);
        RdmaFabric f(c);
        const uint32_t hosts = c.GetHosts();
        const uint64_t size = 3 << 20;
        for (uint32_t h = 0; h < hosts; ++h)
        {
            f.Post(h, (h + c.hostsPerLeaf) % hosts, size);
        }
        FabricWatch watch(f.fabric);
        watch.Every(MicroSeconds(50), MicroSeconds(400));
        DeliverySampler sampler(f.rdma, MicroSeconds(10), MicroSeconds(600));
        Simulator::Run();
        watch.Check();
        const auto t = f.fabric.GetTotals();
        const double bound = std::min(HostBound(c), FabricBound(c, c.spines)) * hosts;
        const Time first = FirstCompletion(f.completions);
        const double rate = sampler.Rate(MicroSeconds(50), first);
        std::cout << GetName() << ": " << rate / 1e9 << " Gb/s = " << rate / bound
                  << " of the bound " << bound / 1e9 << " (host " << HostBound(c) / 1e9
                  << ", fabric " << FabricBound(c, c.spines) / 1e9
                  << " per host); spine queue fill " << watch.SpineFill() << ", fabric port fill "
                  << watch.FabricPortFill() << ", transmit stalls " << t.transmitStalls
                  << std::endl;
        NS_TEST_ASSERT_MSG_EQ(f.completions.count, hosts, "every message completed");
        NS_TEST_EXPECT_MSG_EQ(t.GetDroppedPackets(), 0, "nothing dropped");
        NS_TEST_EXPECT_MSG_EQ(t.spineDroppedCells, 0, "no cell dropped at a spine");
        NS_TEST_EXPECT_MSG_EQ(t.beyondWindowCells + t.lateCells + t.duplicateCells,
                              0,
                              "no cell discarded at reassembly");
        NS_TEST_EXPECT_MSG_EQ(f.Sum().retransmittedPackets, 0, "no retransmission");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(rate, 0.97 * bound, "goodput at the bound");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(rate, 1.005 * bound, "and not above it");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(watch.SpineFill(), 1.0, "spine queues within their limit");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(watch.FabricPortFill(), 1.0, "fabric ports within theirs");
        NS_TEST_EXPECT_MSG_EQ(watch.GetUnbalanced(), 0, "conservation at every check");
        NS_TEST_EXPECT_MSG_EQ(t.offeredBytes, t.deliveredBytes, "drained: all delivered");
    }

    uint32_t m_spines;  //!< spines
    std::string m_rate; //!< fabric link rate
};

/**
 * \ingroup ai-fabric-tests
 * The same permutation with line-rate UDP sources, which offer more than the
 * fabric carries when it binds: the excess stays in the VOQs (and PFC pauses the
 * hosts), never in the fabric; goodput from 100 to 300 us within 97% of the bound
 * (IPv4 packet bytes: host bound rate x 1462 / 1500).
 */
class UdpPermutationBoundTestCase : public ScheduledFabricTestCase
{
  public:
    /// \param spines spines \param rate fabric link rate
    UdpPermutationBoundTestCase(uint32_t spines, std::string rate)
        : ScheduledFabricTestCase("UDP permutation, " + Shape(spines, rate) +
                                  ": backlog in the VOQs, goodput at the bound"),
          m_spines(spines),
          m_rate(rate)
    {
    }

  private:
    /// Bytes received after 100 us.
    struct Sink
    {
        uint64_t bytes{0}; //!< received

        /// \param p a received packet \return true
        bool Receive(Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address&)
        {
            if (Simulator::Now() >= MicroSeconds(100))
            {
                bytes += p->GetSize();
            }
            return true;
        }
    };

    /// Run the UDP permutation and check where the excess waits and the goodput.
    void DoRun() override
    {
        const auto c = Cluster(4, 4, m_spines, m_rate);
        ScheduledFabricHelper fabric;
        fabric.Install(c);
        fabric.AssignStreams(1);
        const uint32_t hosts = c.GetHosts();
        const uint32_t packet = 1462;
        std::vector<Sink> sinks(hosts);
        std::vector<Ptr<UdpLineRateSource>> sources;
        for (uint32_t h = 0; h < hosts; ++h)
        {
            fabric.GetHostDevice(h)->SetReceiveCallback(MakeCallback(&Sink::Receive, &sinks[h]));
            auto src = CreateObject<UdpLineRateSource>();
            src->SetAttribute("PacketSize", UintegerValue(packet));
            src->SetAttribute("Dscp", UintegerValue(26));
            src->Setup(fabric.GetHostDevice(h), c.GetHostAddress((h + c.hostsPerLeaf) % hosts));
            src->Start(NanoSeconds(100));
            src->Stop(MicroSeconds(300));
            sources.push_back(src);
        }
        FabricWatch watch(fabric);
        watch.Every(MicroSeconds(50), MicroSeconds(300));
        Simulator::Stop(MicroSeconds(300));
        Simulator::Run();
        const auto t = fabric.GetTotals();
        // Packet bits per host: host link 100 Gb/s x 1462 / (1462 + 38); fabric:
        // 1462 B is 6 cells, 1462 + 6 x 16 = 1558 B on a link, plus the grants
        // and requests as for RDMA.
        const double host = c.hostLinkRate.GetBitRate() * 1462.0 / 1500.0;
        const double requests = c.hostsPerLeaf * 64 * 8 / 2e-6;
        const double fabricBound = (c.spines * double(c.fabricLinkRate.GetBitRate()) - requests) /
                                   (c.hostsPerLeaf * (1558.0 / 1462.0 + 64.0 / 1024.0));
        const double bound = std::min(host, fabricBound) * hosts;
        uint64_t bytes = 0;
        for (const auto& s : sinks)
        {
            bytes += s.bytes;
        }
        const double rate = bytes * 8.0 / 200e-6;
        std::cout << GetName() << ": " << rate / 1e9 << " Gb/s = " << rate / bound
                  << " of the bound; VOQ bytes left " << t.queuedBytes << ", PFC pauses "
                  << t.voqPauses << ", spine queue fill " << watch.SpineFill()
                  << ", fabric port fill " << watch.FabricPortFill() << std::endl;
        NS_TEST_EXPECT_MSG_EQ(t.GetDroppedPackets(), 0, "nothing dropped");
        NS_TEST_EXPECT_MSG_EQ(t.spineDroppedCells, 0, "no cell dropped at a spine");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(rate, 0.97 * bound, "goodput at the bound");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(rate, 1.005 * bound, "and not above it");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(watch.SpineFill(), 1.0, "spine queues within their limit");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(watch.FabricPortFill(), 1.0, "fabric ports within theirs");
        NS_TEST_EXPECT_MSG_EQ(watch.GetUnbalanced(), 0, "conservation at every check");
        if (fabricBound < host)
        {
            // What the fabric cannot carry waits at the ingress, not in the fabric.
            NS_TEST_EXPECT_MSG_GT(t.queuedBytes,
                                  0.95 * (t.offeredBytes - t.deliveredBytes),
                                  "backlog in the VOQs");
        }
        Simulator::Destroy();
    }

    uint32_t m_spines;  //!< spines
    std::string m_rate; //!< fabric link rate
};

/**
 * \ingroup ai-fabric-tests
 * All-to-all of 256 KB messages over RDMA (every host to every other, 240
 * messages): lossless, and the last completion within 3% of the larger of the
 * host-link time (15 messages per host at the host bound) and the fabric time
 * (each leaf sends and receives 48 messages across the fabric at 4 x the fabric
 * bound per host), plus one 4 MB message's start-up, bounded by 5 us.
 */
class AllToAllBoundTestCase : public ScheduledFabricTestCase
{
  public:
    /// \param spines spines \param rate fabric link rate
    AllToAllBoundTestCase(uint32_t spines, std::string rate)
        : ScheduledFabricTestCase("RDMA all-to-all, " + Shape(spines, rate) +
                                  ": lossless, completion at the bound"),
          m_spines(spines),
          m_rate(rate)
    {
    }

  private:
    /// Run the RDMA all-to-all and check the last completion against the bound.
    void DoRun() override
    {
        const auto c = Cluster(4, 4, m_spines, m_rate);
        RdmaFabric f(c);
        const uint32_t hosts = c.GetHosts();
        const uint64_t size = 256 * 1024;
        for (uint32_t s = 0; s < hosts; ++s)
        {
            for (uint32_t k = 1; k < hosts; ++k)
            {
                f.Post(s, (s + k) % hosts, size);
            }
        }
        FabricWatch watch(f.fabric);
        watch.Every(MicroSeconds(50), MicroSeconds(400));
        Simulator::Run();
        const auto t = f.fabric.GetTotals();
        const double hostTime = (hosts - 1) * size * 8.0 / HostBound(c);
        const uint32_t remote = hosts - c.hostsPerLeaf; // messages per host crossing the fabric
        const double fabricTime = remote * size * 8.0 / FabricBound(c, c.spines);
        const double expected = std::max(hostTime, fabricTime) + 5e-6;
        Time last = Time(0);
        for (const Time& d : f.completions.done)
        {
            last = std::max(last, d);
        }
        std::cout << GetName() << ": last completion " << last.As(Time::US) << " = "
                  << last.GetSeconds() / expected << " of the bound (host " << hostTime * 1e6
                  << " us, fabric " << fabricTime * 1e6 << " us); spine queue fill "
                  << watch.SpineFill() << std::endl;
        NS_TEST_ASSERT_MSG_EQ(f.completions.count, hosts * (hosts - 1), "every message completed");
        NS_TEST_EXPECT_MSG_EQ(t.GetDroppedPackets(), 0, "nothing dropped");
        NS_TEST_EXPECT_MSG_EQ(t.spineDroppedCells, 0, "no cell dropped at a spine");
        NS_TEST_EXPECT_MSG_EQ(t.beyondWindowCells + t.lateCells + t.duplicateCells,
                              0,
                              "no cell discarded at reassembly");
        NS_TEST_EXPECT_MSG_EQ(f.Sum().retransmittedPackets, 0, "no retransmission");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(last.GetSeconds(), expected / 0.97, "completion at the bound");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(watch.SpineFill(), 1.0, "spine queues within their limit");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(watch.FabricPortFill(), 1.0, "fabric ports within theirs");
        NS_TEST_EXPECT_MSG_EQ(watch.GetUnbalanced(), 0, "conservation at every check");
    }

    uint32_t m_spines;  //!< spines
    std::string m_rate; //!< fabric link rate
};

/**
 * \ingroup ai-fabric-tests
 * All-to-all of line-rate UDP (every host sends one packet to each other host in
 * turn): 3 of its 15 destinations share its leaf and 12 do not. The VOQs absorb
 * what the fabric cannot carry (too little for PFC in 300 us), so a host keeps
 * sending at its line rate: it delivers 3 / 15 of it locally, and of the other
 * 12 / 15 at most the fabric bound per host (UDP cells, as in the permutation).
 * Aggregate goodput from 100 to 300 us within 97% of that, nothing dropped,
 * queues within their limits.
 */
class UdpAllToAllBoundTestCase : public ScheduledFabricTestCase
{
  public:
    /// \param spines spines \param rate fabric link rate
    UdpAllToAllBoundTestCase(uint32_t spines, std::string rate)
        : ScheduledFabricTestCase("UDP all-to-all, " + Shape(spines, rate) +
                                  ": lossless, goodput at the bound"),
          m_spines(spines),
          m_rate(rate)
    {
    }

  private:
    /// Bytes received after 100 us.
    struct Sink
    {
        uint64_t bytes{0}; //!< received

        /// \param p a received packet \return true
        bool Receive(Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address&)
        {
            if (Simulator::Now() >= MicroSeconds(100))
            {
                bytes += p->GetSize();
            }
            return true;
        }
    };

    /// Run the UDP all-to-all and check where the excess waits and the goodput.
    void DoRun() override
    {
        const auto c = Cluster(4, 4, m_spines, m_rate);
        ScheduledFabricHelper fabric;
        fabric.Install(c);
        fabric.AssignStreams(1);
        const uint32_t hosts = c.GetHosts();
        std::vector<Sink> sinks(hosts);
        std::vector<Ptr<UdpLineRateSource>> sources;
        for (uint32_t h = 0; h < hosts; ++h)
        {
            fabric.GetHostDevice(h)->SetReceiveCallback(MakeCallback(&Sink::Receive, &sinks[h]));
            std::vector<Ipv4Address> others;
            for (uint32_t k = 1; k < hosts; ++k)
            {
                others.push_back(c.GetHostAddress((h + k) % hosts));
            }
            auto src = CreateObject<UdpLineRateSource>();
            src->SetAttribute("PacketSize", UintegerValue(1462));
            src->SetAttribute("Dscp", UintegerValue(26));
            src->Setup(fabric.GetHostDevice(h), others);
            src->Start(NanoSeconds(100));
            src->Stop(MicroSeconds(300));
            sources.push_back(src);
        }
        FabricWatch watch(fabric);
        watch.Every(MicroSeconds(50), MicroSeconds(300));
        Simulator::Stop(MicroSeconds(300));
        Simulator::Run();
        const auto t = fabric.GetTotals();
        const double host = c.hostLinkRate.GetBitRate() * 1462.0 / 1500.0;
        const double requests = c.hostsPerLeaf * 64 * 8 / 2e-6;
        const double fabricPerHost = (c.spines * double(c.fabricLinkRate.GetBitRate()) - requests) /
                                     (c.hostsPerLeaf * (1558.0 / 1462.0 + 64.0 / 1024.0));
        const double remote = double(hosts - c.hostsPerLeaf) / (hosts - 1);
        const double bound = (host * (1 - remote) + std::min(host * remote, fabricPerHost)) * hosts;
        uint64_t bytes = 0;
        for (const auto& s : sinks)
        {
            bytes += s.bytes;
        }
        const double rate = bytes * 8.0 / 200e-6;
        std::cout << GetName() << ": " << rate / 1e9 << " Gb/s = " << rate / bound
                  << " of the bound " << bound / 1e9 << "; VOQ bytes left " << t.queuedBytes
                  << ", PFC pauses " << t.voqPauses << ", spine queue fill " << watch.SpineFill()
                  << std::endl;
        NS_TEST_EXPECT_MSG_EQ(t.GetDroppedPackets(), 0, "nothing dropped");
        NS_TEST_EXPECT_MSG_EQ(t.spineDroppedCells, 0, "no cell dropped at a spine");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(rate, 0.97 * bound, "goodput at the bound");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(rate, 1.005 * bound, "and not above it");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(watch.SpineFill(), 1.0, "spine queues within their limit");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(watch.FabricPortFill(), 1.0, "fabric ports within theirs");
        NS_TEST_EXPECT_MSG_EQ(watch.GetUnbalanced(), 0, "conservation at every check");
        Simulator::Destroy();
    }

    uint32_t m_spines;  //!< spines
    std::string m_rate; //!< fabric link rate
};

/**
 * \ingroup ai-fabric-tests
 * N:1 RDMA incast into a leaf whose fabric links bind (2 spines at 50 Gb/s:
 * 100 Gb/s of links for a 100 Gb/s host port, less the cell tax): every sender
 * within 2% of its fair share, the aggregate within 97% of the downlink bound,
 * nothing lost, queues within their limits.
 *
 * Downlink bound into the receiving leaf (payload): its links carry the data
 * cells (4412 B per 4140 B packet) and the senders' requests (64 B per 2 us per
 * VOQ while it fills, one VOQ per sender):
 *   (2 x 50 Gb/s - requests) x 4140 / 4412 x 4096 / 4140,
 * with the requests' share taken as their rate for the first 1 MB at the host
 * rate (each sender's message is in its VOQ within 1 MB x 8 / 100 Gb/s).
 */
class IncastFabricBoundTestCase : public ScheduledFabricTestCase
{
  public:
    /// \param senders N
    explicit IncastFabricBoundTestCase(uint32_t senders)
        : ScheduledFabricTestCase("RDMA " + std::to_string(senders) +
                                  ":1 incast into fabric-bound links: fair and lossless"),
          m_senders(senders)
    {
    }

  private:
    /// Run the incast and check the fair shares and the aggregate.
    void DoRun() override
    {
        const uint32_t perLeaf = 4;
        const auto c = Cluster(1 + (m_senders + perLeaf - 1) / perLeaf, perLeaf, 2, "50Gbps");
        RdmaFabric f(c);
        const uint64_t size = 1 << 20;
        for (uint32_t s = 0; s < m_senders; ++s)
        {
            f.Post(perLeaf + s, 0, size);
        }
        FabricWatch watch(f.fabric);
        watch.Every(MicroSeconds(100), MicroSeconds(1000));
        Simulator::Run();
        const auto t = f.fabric.GetTotals();
        Time last = Time(0);
        Time first = Time::Max();
        for (uint32_t s = 0; s < m_senders; ++s)
        {
            last = std::max(last, f.completions.done[perLeaf + s]);
            first = std::min(first, f.completions.done[perLeaf + s]);
        }
        const double aggregate = m_senders * size * 8.0 / last.GetSeconds();
        const double fillTime = size * 8.0 / c.hostLinkRate.GetBitRate();
        const double requests =
            m_senders * 64 * 8 / 2e-6 * std::min(1.0, fillTime / last.GetSeconds());
        const double downlinks = 2 * double(c.fabricLinkRate.GetBitRate());
        const double bound = std::min(HostBound(c), (downlinks - requests) * PAYLOAD / 4412.0);
        std::cout << GetName() << ": aggregate " << aggregate / 1e9
                  << " Gb/s = " << aggregate / bound << " of the bound " << bound / 1e9
                  << "; completions from " << first.As(Time::US) << " to " << last.As(Time::US)
                  << "; spine queue fill " << watch.SpineFill() << ", flow-control stops "
                  << f.fabric.GetSpine(0)->GetFlowControlStops() << std::endl;
        NS_TEST_ASSERT_MSG_EQ(f.completions.count, m_senders, "every message completed");
        NS_TEST_EXPECT_MSG_EQ(t.GetDroppedPackets(), 0, "nothing dropped");
        NS_TEST_EXPECT_MSG_EQ(t.spineDroppedCells, 0, "no cell dropped at a spine");
        NS_TEST_EXPECT_MSG_EQ(f.Sum().retransmittedPackets, 0, "no retransmission");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(aggregate, 0.97 * bound, "aggregate at the bound");
        // Fair shares: a sender's goodput, size / its completion, within 2% of the
        // aggregate / N (they all start together and share to the end).
        for (uint32_t s = 0; s < m_senders; ++s)
        {
            const double own = size * 8.0 / f.completions.done[perLeaf + s].GetSeconds();
            NS_TEST_EXPECT_MSG_EQ_TOL(own / (aggregate / m_senders), 1.0, 0.02, "fair share");
        }
        NS_TEST_EXPECT_MSG_LT_OR_EQ(watch.SpineFill(), 1.0, "spine queues within their limit");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(watch.FabricPortFill(), 1.0, "fabric ports within theirs");
        NS_TEST_EXPECT_MSG_EQ(watch.GetUnbalanced(), 0, "conservation at every check");
    }

    uint32_t m_senders; //!< N
};

/**
 * \ingroup ai-fabric-tests
 * 32 hosts of one leaf, at 400 Gb/s, each send 256 KiB to one host of another
 * leaf, into a 4 MB VOQ buffer: the buffer fills in microseconds and the shared
 * pause threshold catches every host port at once. Each port's headroom is
 * reserved for what its host still sends after the pause:
 *
 *   2 x ceil(400 Gb/s x 500 ns / 8) + 3 x (4200 Mtu + 14 + 24) + 84
 *   = 2 x 25000 + 12714 + 84 = 62798 B,
 *
 * so the shared pause threshold is 4000000 - 32 x 62798 = 1990464 B. Nothing is
 * dropped, every message completes without a resend, and the buffer never holds
 * more than BufferSize. (With the headroom as one 1 MiB reserve for all ports,
 * the 32 ports' 2 MB in flight overflowed it and packets were lost.)
 */
class IngressBufferFullTestCase : public ScheduledFabricTestCase
{
  public:
    IngressBufferFullTestCase()
        : ScheduledFabricTestCase("VOQ buffer full with 32 host ports paused at once: lossless")
    {
    }

  private:
    /// Run the incast into the small buffer and check that nothing was lost.
    void DoRun() override
    {
        const uint32_t senders = 32;
        const uint64_t buffer = 4000000;
        ClusterDescription c = SmallCluster(2, senders, 4);
        c.hostPortsPerLeaf = senders;
        c.fabricPortsPerLeaf = 4;
        c.hostLinkRate = DataRate("400Gbps");
        c.fabricLinkRate = DataRate("400Gbps");
        RdmaFabric f(c, [buffer](ScheduledFabricHelper& h) {
            h.SetVoqAttribute("BufferSize", UintegerValue(buffer));
        });
        const uint64_t size = 256 * 1024;
        for (uint32_t s = 0; s < senders; ++s)
        {
            f.Post(senders + s, 0, size);
        }
        Simulator::Run();
        Ptr<VoqQueueDisc> voq = f.fabric.GetLeaf(1)->GetVoqQueueDisc();
        const auto t = f.fabric.GetTotals();
        NS_TEST_EXPECT_MSG_EQ(voq->GetIngressHeadroom(0), 62798, "2 x wire + 3 frames + PFC frame");
        NS_TEST_EXPECT_MSG_EQ(voq->GetSharedPauseThreshold(),
                              buffer - senders * 62798,
                              "BufferSize less every port's headroom");
        NS_TEST_EXPECT_MSG_GT(voq->GetPauses(), 0, "the shared threshold paused the hosts");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(voq->GetBufferHighWater(), buffer, "within the buffer");
        NS_TEST_EXPECT_MSG_EQ(t.GetDroppedPackets(), 0, "nothing dropped");
        NS_TEST_ASSERT_MSG_EQ(f.completions.count, senders, "every message completed");
        NS_TEST_EXPECT_MSG_EQ(f.Sum().retransmittedPackets, 0, "no retransmission");
        NS_TEST_EXPECT_MSG_EQ(t.offeredBytes, t.deliveredBytes, "drained: all delivered");
        Simulator::Destroy();
    }
};

/**
 * \ingroup ai-fabric-tests
 * A fabric link, or all links of one spine, fails at 200 us under a full RDMA
 * permutation (12 MB messages, 16 MB when restored), with the fabric binding (4 spines at 100 Gb/s)
 * or the host links (5 spines), and optionally comes back at 800 us. Zero queue-pair failures,
 * every message completes, the only cells lost are those on (or bound for) the failed links, and
 * the aggregate goodput from 300 us after the failure (the transport's go-back-N recovery, timed
 * and printed) until the links return or the first message completes is within 2% of the sum over
 * the flows of min(host bound, fabric bound at each end leaf's usable links); after the links
 * return, within 2% of the full bound again.
 */
class FailoverTestCase : public ScheduledFabricTestCase
{
  public:
    /**
     * \param spine true: all links of spine 0 fail; false: link (leaf 1, spine 2)
     * \param spines spines (4: the fabric binds; 5: the host links bind)
     * \param restore the links come back
     */
    FailoverTestCase(bool spine, uint32_t spines, bool restore)
        : ScheduledFabricTestCase(
              std::string(spine ? "spine" : "link") + " failure, " + std::to_string(spines) +
              " spines" + (restore ? ", then restored" : "") + ": only the failed share lost"),
          m_spine(spine),
          m_spines(spines),
          m_restore(restore)
    {
    }

  private:
    /// Fail and restore the links under the permutation and check completion and goodput.
    void DoRun() override
    {
        const auto c = Cluster(4, 4, m_spines, "100Gbps");
        RdmaFabric f(c);
        const uint32_t hosts = c.GetHosts();
        // Long enough that no message completes before the links are back and the
        // throughput has settled again.
        const uint64_t size = (m_restore ? 16 : 12) << 20;
        for (uint32_t h = 0; h < hosts; ++h)
        {
            f.Post(h, (h + c.hostsPerLeaf) % hosts, size);
        }
        const Time failAt = MicroSeconds(200);
        const Time restoreAt = MicroSeconds(800);
        std::vector<std::pair<uint32_t, uint32_t>> failed; // (leaf, spine)
        if (m_spine)
        {
            for (uint32_t l = 0; l < c.leaves; ++l)
            {
                failed.emplace_back(l, 0);
            }
        }
        else
        {
            failed.emplace_back(1, 2);
        }
        std::vector<uint32_t> usable(c.leaves, c.spines);
        for (const auto& [leaf, spine] : failed)
        {
            f.fabric.ScheduleLinkState(leaf, spine, 0, failAt, false);
            if (m_restore)
            {
                f.fabric.ScheduleLinkState(leaf, spine, 0, restoreAt, true);
            }
            usable[leaf]--;
        }
        FabricWatch watch(f.fabric);
        watch.Every(MicroSeconds(100), MicroSeconds(1500));
        DeliverySampler sampler(f.rdma, MicroSeconds(5), MicroSeconds(2500));
        // Each sender's backlog in its leaf's ingress buffer, every 5 us from the
        // failure on.
        std::vector<std::pair<Time, std::vector<uint64_t>>> backlogs;
        for (Time at = failAt; at <= failAt + MicroSeconds(300); at += MicroSeconds(5))
        {
            Simulator::Schedule(at, [&]() {
                std::vector<uint64_t> bytes(hosts, 0);
                for (uint32_t h = 0; h < hosts; ++h)
                {
                    Ptr<VoqQueueDisc> voq = f.fabric.GetLeaf(c.GetLeafOfHost(h))->GetVoqQueueDisc();
                    for (uint8_t tc = 0; tc < 8; ++tc)
                    {
                        bytes[h] += voq->GetIngressBytes(h % c.hostsPerLeaf, tc);
                    }
                }
                backlogs.emplace_back(Simulator::Now(), std::move(bytes));
            });
        }
        Simulator::Run();
        const auto t = f.fabric.GetTotals();
        // Flow h goes from leaf(h) to leaf(h) + 1.
        auto bound = [&](const std::vector<uint32_t>& links) {
            double sum = 0;
            for (uint32_t h = 0; h < hosts; ++h)
            {
                const uint32_t a = c.GetLeafOfHost(h);
                const uint32_t b = (a + 1) % c.leaves;
                sum += std::min({HostBound(c), FabricBound(c, links[a]), FabricBound(c, links[b])});
            }
            return sum;
        };
        const double after = bound(usable);
        const double full = bound(std::vector<uint32_t>(c.leaves, c.spines));
        const Time first = FirstCompletion(f.completions);
        const Time settle = MicroSeconds(300);
        const Time end = m_restore ? restoreAt : first;
        const double rate = sampler.Rate(failAt + settle, end);
        const Time recovered = sampler.FirstReaching(failAt, 0.98 * after);
        const auto [stall, stalledRank] = sampler.LongestStall(failAt, std::min(end, first));
        // Cells lost where the failure was: on the failed links' two ends, or at
        // a spine that had just lost its only link to the cell's leaf.
        uint64_t lostOnFailed = 0;
        for (const auto& [leaf, spine] : failed)
        {
            Ptr<CellChannel> ch = f.fabric.GetFabricChannel(leaf, spine, 0);
            for (std::size_t d = 0; d < ch->GetNDevices(); ++d)
            {
                lostOnFailed += DynamicCast<CellNetDevice>(ch->GetDevice(d))->GetCellsLost();
            }
        }
        uint64_t queueFull = 0;
        for (uint32_t s = 0; s < c.spines; ++s)
        {
            queueFull += f.fabric.GetSpine(s)->GetCellsDropped(CellSpineSwitch::QUEUE_FULL);
        }
        std::cout << GetName() << ": " << rate / 1e9 << " Gb/s after the failure = " << rate / after
                  << " of the bound " << after / 1e9 << " (full " << full / 1e9 << "); 98% reached "
                  << (recovered - failAt).As(Time::US) << " after it; longest stall "
                  << stall.As(Time::US) << " (rank " << stalledRank << "); cells lost "
                  << t.linkLostCells << " (on the failed links " << lostOnFailed
                  << "), unroutable at spines " << t.spineDroppedCells << ", reassembly timeouts "
                  << t.reassemblyTimeouts << ", retransmitted " << f.Sum().retransmittedPackets
                  << std::endl;
        NS_TEST_ASSERT_MSG_EQ(f.completions.count, hosts, "every message completed");
        NS_TEST_EXPECT_MSG_EQ(f.Sum().qpFailures, 0, "no queue pair failed");
        NS_TEST_EXPECT_MSG_GT(t.linkLostCells, 0, "the failure cost cells");
        NS_TEST_EXPECT_MSG_EQ(t.linkLostCells, lostOnFailed, "only on the failed links");
        NS_TEST_EXPECT_MSG_EQ(queueFull, 0, "no cell dropped for queue space");
        NS_TEST_EXPECT_MSG_EQ(t.beyondWindowCells + t.duplicateCells, 0, "no reorder overflow");
        NS_TEST_EXPECT_MSG_EQ_TOL(rate / after, 1.0, 0.02, "the failed share only");
        NS_TEST_EXPECT_MSG_LT(recovered, failAt + settle, "recovered within the settling time");
        // No receiver stalls longer than the failure's detection (10 us), then
        // twice the largest sender backlog while it lasts (in time at its flow's
        // rate after the failure; where the fabric binds, hosts without congestion control fill
        // their VOQs up to PfcXoff): the first packet behind the lost ones, the
        // evidence of the loss, waits behind it, and so does go-back-N's resend;
        // plus a few unloaded round trips (about 5 us each: 8 link delays of 500 ns
        // and the frames' serialization) = 20 us. The egress gives up the broken
        // packets on the sources' path-loss notices, not after ReassemblyTimeout.
        Time backlog(0); // the largest while the stall lasted
        for (const auto& [at, bytes] : backlogs)
        {
            for (uint32_t h = 0; h < hosts && at <= failAt + stall; ++h)
            {
                const uint32_t a = c.GetLeafOfHost(h);
                const uint32_t b = (a + 1) % c.leaves;
                const double rate =
                    std::min({HostBound(c), FabricBound(c, usable[a]), FabricBound(c, usable[b])});
                backlog = std::max(backlog, Seconds(bytes[h] * 8.0 / rate));
            }
        }
        const Time stallBound = MicroSeconds(10) + 2 * backlog + MicroSeconds(20);
        std::cout << "  longest stall bound " << stallBound.As(Time::US)
                  << " (largest sender backlog " << backlog.As(Time::US) << ")" << std::endl;
        NS_TEST_EXPECT_MSG_LT_OR_EQ(stall, stallBound, "no receiver stalls longer than that");
        // Nor longer than the detection, ReassemblyTimeout (50 us) and those round
        // trips: measured 20 us host-bound and 55 us fabric-bound (155 us before
        // notices, when the egress held broken packets for the timeout).
        NS_TEST_EXPECT_MSG_LT_OR_EQ(stall,
                                    MicroSeconds(10) + MicroSeconds(50) + MicroSeconds(20),
                                    "within detection, reassembly timeout and round trips");
        NS_TEST_EXPECT_MSG_GT(t.reassemblyNoticeDrops, 0, "broken packets given up on notice");
        if (m_restore)
        {
            const double back = sampler.Rate(restoreAt + settle, first);
            std::cout << "  restored: " << back / 1e9 << " Gb/s = " << back / full
                      << " of the full bound" << std::endl;
            NS_TEST_EXPECT_MSG_EQ_TOL(back / full, 1.0, 0.02, "restored to the full bound");
        }
        NS_TEST_EXPECT_MSG_LT_OR_EQ(watch.SpineFill(), 1.0, "spine queues within their limit");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(watch.FabricPortFill(), 1.0, "fabric ports within theirs");
        NS_TEST_EXPECT_MSG_EQ(watch.GetUnbalanced(), 0, "conservation at every check");
        NS_TEST_EXPECT_MSG_EQ(t.GetUnaccountedBytes(), 0, "drained: every byte accounted for");
    }

    bool m_spine;      //!< a whole spine fails
    uint32_t m_spines; //!< spines
    bool m_restore;    //!< the links come back
};

/**
 * \ingroup ai-fabric-tests
 * The suite: fabric speedups (spines x rate / (4 hosts x 100 Gb/s)) 0.75 (3 x
 * 100G), 0.9 (4 x 90G), 1.0 (4 x 100G), 1.11 (4 x 111G), 1.25 (5 x 100G, 2 x
 * 250G, 8 x 62.5G), S = 2, 3, 4, 5, 8.
 */
class ScheduledFlowControlTestSuite : public TestSuite
{
  public:
    ScheduledFlowControlTestSuite()
        : TestSuite("ai-fabric-scheduled-flow-control", TestSuite::Type::UNIT)
    {
        const std::vector<std::pair<uint32_t, std::string>> shapes = {{3, "100Gbps"},
                                                                      {4, "90Gbps"},
                                                                      {4, "100Gbps"},
                                                                      {4, "111Gbps"},
                                                                      {5, "100Gbps"},
                                                                      {2, "250Gbps"},
                                                                      {8, "62.5Gbps"}};
        for (const auto& [spines, rate] : shapes)
        {
            AddTestCase(new PermutationBoundTestCase(spines, rate));
            AddTestCase(new UdpPermutationBoundTestCase(spines, rate));
        }
        for (const auto& [spines, rate] :
             std::vector<std::pair<uint32_t, std::string>>{{3, "100Gbps"},
                                                           {4, "100Gbps"},
                                                           {5, "100Gbps"}})
        {
            AddTestCase(new AllToAllBoundTestCase(spines, rate));
            AddTestCase(new UdpAllToAllBoundTestCase(spines, rate));
        }
        for (uint32_t n : {8, 64})
        {
            AddTestCase(new IncastFabricBoundTestCase(n));
        }
        AddTestCase(new IngressBufferFullTestCase);
        AddTestCase(new FailoverTestCase(false, 4, false));
        AddTestCase(new FailoverTestCase(false, 5, true));
        AddTestCase(new FailoverTestCase(true, 4, true));
        AddTestCase(new FailoverTestCase(true, 5, true));
    }
};

/// Static instance.
static ScheduledFlowControlTestSuite g_scheduledFlowControlTestSuite;
