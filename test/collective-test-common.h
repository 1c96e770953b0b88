/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_COLLECTIVE_TEST_COMMON_H
#define AI_FABRIC_COLLECTIVE_TEST_COMMON_H

// What the collectives' suites share: a fabric with GPU servers and collectives on
// top, running one operation at a time on an otherwise idle cluster.

#include "cluster-test-common.h"

#include "ns3/abort.h"
#include "ns3/collective-helper.h"
#include "ns3/uinteger.h"

#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/// A fabric with an RDMA transport per host and GPU servers on top.
template <typename FabricHelper>
struct GpuCluster : RdmaCluster<FabricHelper>
{
    CollectiveHelper collectives; //!< servers, communicators, algorithms

    /**
     * \param c the cluster (its gpusPerServer and nicPlacement are used)
     * \param configure sets fabric attributes before Install
     */
    explicit GpuCluster(const ClusterDescription& c,
                        const std::function<void(FabricHelper&)>& configure = {})
        : RdmaCluster<FabricHelper>(c, configure)
    {
        collectives.Install(c, this->rdma);
    }

    /// \param n ranks \return a communicator of GPUs 0 .. n-1
    Ptr<Communicator> FirstGpus(uint32_t n) const
    {
        std::vector<uint32_t> gpus(n);
        for (uint32_t g = 0; g < n; ++g)
        {
            gpus[g] = g;
        }
        return collectives.CreateCommunicator(gpus);
    }

    /**
     * Run one operation to completion on an otherwise idle cluster.
     * \param comm the communicator \param op the operation \param bytes S
     * \return its result
     */
    CollectiveResult Run(Ptr<Communicator> comm, Ptr<CollectiveOperation> op, uint64_t bytes)
    {
        op->Start(comm, bytes, CollectiveOperation::DoneCallback());
        Simulator::Run();
        NS_ABORT_MSG_IF(!op->IsFinished(), "operation did not finish");
        return op->GetResult();
    }

    /**
     * \param comm communicator \param collective its name \param bytes S
     * \param channels Channels attribute \param maxPeers MaxPeers (pairwise exchange
     *        only; -1: leave the default)
     * \return the result of one operation of the collective's chosen algorithm
     */
    CollectiveResult Run(Ptr<Communicator> comm,
                         const std::string& collective,
                         uint64_t bytes,
                         uint32_t channels = 2,
                         int64_t maxPeers = -1)
    {
        Ptr<CollectiveOperation> op = collectives.Create(collective);
        op->SetAttribute("Channels", UintegerValue(channels));
        if (maxPeers >= 0)
        {
            op->SetAttribute("MaxPeers", UintegerValue(maxPeers));
        }
        return Run(comm, op, bytes);
    }
};

/// \return 16 hosts of one GPU each (every transfer crosses the NIC) on 4 leaves of
/// 4, 4 spines, 100 Gb/s links
inline ClusterDescription
OneGpuServers()
{
    ClusterDescription c = SmallCluster(4, 4, 4);
    c.gpusPerServer = 1;
    return c;
}

} // namespace ns3

#endif /* AI_FABRIC_COLLECTIVE_TEST_COMMON_H */
