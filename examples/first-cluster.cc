/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// A first program: build a 16-GPU cluster on either fabric, run a data-parallel job
// on every GPU and print what it measured. README.md quotes this file.
//
//   ./first-cluster
//   ./first-cluster --fabric=ethernet

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <iostream>
#include <memory>
#include <string>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::string fabricName = "scheduled";
    CommandLine cmd(__FILE__);
    cmd.AddValue("fabric", "scheduled or ethernet", fabricName);
    cmd.Parse(argc, argv);
    if (fabricName != "scheduled" && fabricName != "ethernet")
    {
        std::cerr << "first-cluster: --fabric=" << fabricName
                  << " is not a fabric (scheduled or ethernet)" << std::endl;
        return 1;
    }

    // One description for both fabrics: 4 leaves of 4 hosts, 4 spines, 400 Gb/s
    // links; 4 servers of 4 GPUs, each GPU with its own NIC, a server on one leaf.
    ClusterDescription cluster;
    cluster.leaves = 4;
    cluster.hostsPerLeaf = 4;
    cluster.spines = 4;
    cluster.gpusPerServer = 4;
    cluster.nicPlacement = "server";

    std::unique_ptr<ClusterFabricHelper> fabric;
    RdmaHelper rdma; // an RDMA transport on every NIC: rank i is host i
    if (fabricName == "scheduled")
    {
        fabric = std::make_unique<ScheduledFabricHelper>(); // VOQs, credits, cells
    }
    else
    {
        fabric = std::make_unique<EthernetClosHelper>(); // ECMP, PFC, ECN
        rdma.SetTransportAttribute("CongestionControl", StringValue("ns3::DcqcnCongestionControl"));
    }
    fabric->Install(cluster);
    rdma.Install(fabric->GetHostDevices());
    CollectiveHelper collectives; // GPU servers, their scale-up switch, collectives
    collectives.Install(cluster, rdma);

    // Data parallelism on all 16 GPUs: a 10 ms forward and a 20 ms backward pass,
    // and 32 MiB of gradients AllReduced in 8 MiB buckets during the backward pass.
    TrainingApplicationHelper dp("ns3::DataParallelApplication");
    dp.SetAttribute("GradientBytes", UintegerValue(32 << 20));
    dp.SetAttribute("BucketBytes", UintegerValue(8 << 20));
    dp.SetAttribute("Iterations", UintegerValue(2));
    ApplicationContainer apps = dp.Install(collectives.CreateWorldCommunicator(), collectives);

    Simulator::Run();

    Ptr<DataParallelApplication> job = DynamicCast<DataParallelApplication>(apps.Get(0));
    std::cout << "data parallel on 16 GPUs, " << fabricName << " fabric" << std::endl;
    for (uint32_t i = 0; i < job->GetIterationsDone(); ++i)
    {
        std::cout << "  iteration " << i << ": " << job->GetIterationTimes()[i].As(Time::MS)
                  << ", communication not hidden by compute "
                  << job->GetExposedCommunication()[i].As(Time::US) << std::endl;
    }
    std::cout << "  bucket AllReduce, mean " << job->GetBucketStatistics().GetMean() * 1e6 << " us"
              << std::endl;
    Simulator::Destroy();
    return job->HasFailed() ? 1 : 0;
}
