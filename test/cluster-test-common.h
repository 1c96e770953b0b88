/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CLUSTER_TEST_COMMON_H
#define AI_FABRIC_CLUSTER_TEST_COMMON_H

// What the suites that run traffic over a whole fabric share, whichever fabric it
// is: a small cluster, the cluster with an RDMA transport on every host,
// completions, summed transport counters, and the payload goodput bound.
//
// Bound: the RDMA payload of a 4096-byte Mtu travels in a 4096 + 44 (IPv4 20, UDP 8,
// BTH 12, ICRC 4) = 4140-byte IPv4 packet, 4178 bytes on the wire (Ethernet 14,
// FCS 4, preamble and IFG 20), so payload goodput = rate x 4096 / 4178.

#include "ns3/boolean.h"
#include "ns3/cluster-description.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/rdma-helper.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <functional>
#include <vector>

namespace ns3
{

/// \return a leaf-spine cluster with 100 Gb/s host and fabric links
inline ClusterDescription
SmallCluster(uint32_t leaves, uint32_t hostsPerLeaf, uint32_t spines)
{
    ClusterDescription c;
    c.leaves = leaves;
    c.hostsPerLeaf = hostsPerLeaf;
    c.spines = spines;
    c.hostLinkRate = DataRate("100Gbps");
    c.fabricLinkRate = DataRate("100Gbps");
    return c;
}

/**
 * Give the transports the DCQCN reaction point of the paper (Zhu et al., SIGCOMM
 * 2015) instead of the defaults: every CNP cuts and sets RT = RC, K = T = 55 us,
 * F = 5, R_AI = 40 Mb/s and R_HAI = 400 Mb/s at the NIC's rate, a 1 Mb/s floor.
 * \param rdma the helper, before Install \param nicRate the NICs' rate (the
 *        increase steps are not scaled)
 */
inline void
SetPaperDcqcn(RdmaHelper& rdma, DataRate nicRate)
{
    rdma.SetCongestionControlAttribute("AlphaPeriod", TimeValue(MicroSeconds(55)));
    rdma.SetCongestionControlAttribute("RateIncreaseTimer", TimeValue(MicroSeconds(55)));
    rdma.SetCongestionControlAttribute("FastRecoverySteps", UintegerValue(5));
    rdma.SetCongestionControlAttribute("RateAi", DataRateValue(DataRate("40Mbps")));
    rdma.SetCongestionControlAttribute("RateHai", DataRateValue(DataRate("400Mbps")));
    rdma.SetCongestionControlAttribute("ReferenceRate", DataRateValue(nicRate));
    rdma.SetCongestionControlAttribute("MinRate", DataRateValue(DataRate("1Mbps")));
    rdma.SetCongestionControlAttribute("RateDecreasePeriod", TimeValue(Time(0)));
    rdma.SetCongestionControlAttribute("ClampTargetRate", BooleanValue(true));
}

/// \param c a cluster \return RDMA payload goodput of one host link, bit/s
inline double
RdmaGoodput(const ClusterDescription& c)
{
    return c.hostLinkRate.GetBitRate() * 4096.0 / 4178.0;
}

/// Completion times of messages, by source rank (one message per source).
struct Completions
{
    std::vector<Time> done; //!< receiver completion time, by source rank
    uint32_t count{0};      //!< receiver completions

    /// \param c a receiver completion
    void Received(const RdmaCompletion& c)
    {
        done.at(c.srcRank) = c.doneTime;
        count++;
    }
};

/**
 * A fabric (ScheduledFabricHelper or EthernetClosHelper) with an RDMA transport on
 * every host (rank = host index). Destroys the simulation when it goes.
 */
template <typename FabricHelper>
struct RdmaCluster
{
    FabricHelper fabric;     //!< the fabric
    RdmaHelper rdma;         //!< the transports
    Completions completions; //!< receiver completions

    /**
     * \param c the cluster
     * \param configure sets helper attributes before Install
     * \param configureRdma sets transport attributes before Install
     */
    explicit RdmaCluster(const ClusterDescription& c,
                         const std::function<void(FabricHelper&)>& configure = {},
                         const std::function<void(RdmaHelper&)>& configureRdma = {})
    {
        if (configure)
        {
            configure(fabric);
        }
        fabric.Install(c);
        fabric.AssignStreams(1);
        if (configureRdma)
        {
            configureRdma(rdma);
        }
        rdma.Install(fabric.GetHostDevices());
        completions.done.assign(c.GetHosts(), Time(0));
    }

    /// Post a message, tagged with its source rank.
    /// \param src source rank \param dst destination rank \param size bytes
    void Post(uint32_t src, uint32_t dst, uint64_t size)
    {
        rdma.Post(src,
                  dst,
                  size,
                  src,
                  RdmaCompletionCallback(),
                  MakeCallback(&Completions::Received, &completions));
    }

    /// \return the transport counters summed over all ranks
    RdmaTransport::Stats Sum() const
    {
        RdmaTransport::Stats s;
        for (uint32_t r = 0; r < rdma.GetNRanks(); ++r)
        {
            const auto& t = rdma.GetTransport(r)->GetStats();
            s.messagesPosted += t.messagesPosted;
            s.messagesSent += t.messagesSent;
            s.messagesReceived += t.messagesReceived;
            s.bytesPosted += t.bytesPosted;
            s.bytesDelivered += t.bytesDelivered;
            s.dataPacketsSent += t.dataPacketsSent;
            s.retransmittedPackets += t.retransmittedPackets;
            s.timeouts += t.timeouts;
            s.naksSent += t.naksSent;
            s.duplicatesReceived += t.duplicatesReceived;
            s.outOfOrderDropped += t.outOfOrderDropped;
            s.cnpsSent += t.cnpsSent;
            s.cnpsReceived += t.cnpsReceived;
            s.ceReceived += t.ceReceived;
            s.qpFailures += t.qpFailures;
        }
        return s;
    }

    ~RdmaCluster()
    {
        Simulator::Destroy();
    }
};

} // namespace ns3

#endif /* AI_FABRIC_CLUSTER_TEST_COMMON_H */
