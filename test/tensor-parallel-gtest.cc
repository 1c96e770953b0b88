/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Death tests for bad input to TensorParallelApplication: each refusal names the
// attribute and its value, before anything runs.

#include "cluster-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// Install a tensor-parallel group on the 8 GPUs of one server with one attribute set.
void
TensorParallelWith(const std::string& attribute, const AttributeValue& value)
{
    RdmaCluster<ScheduledFabricHelper> f(SmallCluster(8, 1, 1));
    CollectiveHelper collectives;
    collectives.Install(SmallCluster(8, 1, 1), f.rdma);
    TrainingApplicationHelper tp("ns3::TensorParallelApplication");
    tp.SetAttribute(attribute, value);
    tp.Install(collectives.CreateWorldCommunicator(), collectives);
}

} // namespace

TEST(TensorParallelDeathTest, BadParametersAreRefusedByName)
{
    EXPECT_DEATH(TensorParallelWith("Layers", UintegerValue(0)), "Layers 0 must be at least 1");
    EXPECT_DEATH(TensorParallelWith("CollectivesPerLayer", UintegerValue(0)),
                 "CollectivesPerLayer 0 must be at least 1");
    EXPECT_DEATH(TensorParallelWith("ActivationBytes", UintegerValue(0)),
                 "ActivationBytes 0 must be at least 1");
    EXPECT_DEATH(TensorParallelWith("ForwardComputeTime", TimeValue(MicroSeconds(-1))),
                 "ForwardComputeTime -1us must not be negative");
    EXPECT_DEATH(TensorParallelWith("BackwardComputeTime", TimeValue(NanoSeconds(-5))),
                 "BackwardComputeTime -0.005us must not be negative");
    EXPECT_DEATH(TensorParallelWith("Iterations", UintegerValue(0)),
                 "Iterations 0 must be at least 1");
}

TEST(TensorParallel, EdgesOfTheChecksAreAccepted)
{
    // The defaults, and the edges of the checks: zero compute time, one byte.
    TensorParallelWith("ForwardComputeTime", TimeValue(Time(0)));
    TensorParallelWith("ActivationBytes", UintegerValue(1));
    SUCCEED();
}
