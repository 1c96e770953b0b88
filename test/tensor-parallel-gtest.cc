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
    EXPECT_DEATH(TensorParallelWith("ForwardTime", TimeValue(MicroSeconds(-1))),
                 "ForwardTime -1us must not be negative");
    EXPECT_DEATH(TensorParallelWith("BackwardTime", TimeValue(NanoSeconds(-5))),
                 "BackwardTime -0.005us must not be negative");
    EXPECT_DEATH(TensorParallelWith("Iterations", UintegerValue(0)),
                 "Iterations 0 must be at least 1");
}

TEST(TensorParallel, EdgesOfTheChecksAreAccepted)
{
    // The defaults, and the edges of the checks: zero compute time, one byte.
    TensorParallelWith("ForwardTime", TimeValue(Time(0)));
    TensorParallelWith("ActivationBytes", UintegerValue(1));
    SUCCEED();
}

TEST(TensorParallel, DeprecatedComputeTimeNamesAreAliases)
{
    // ForwardComputeTime and BackwardComputeTime (the names before ForwardTime and
    // BackwardTime) set the same fields; an alias left at its default does not
    // undo the new name, whichever way the object is built.
    ObjectFactory factory("ns3::TensorParallelApplication");
    factory.Set("ForwardComputeTime", TimeValue(MicroSeconds(5)));
    factory.Set("ForwardTime", TimeValue(MicroSeconds(7))); // the last given wins
    factory.Set("BackwardComputeTime", TimeValue(MicroSeconds(9)));
    Ptr<Object> app = factory.Create();
    TimeValue forward;
    TimeValue backward;
    app->GetAttribute("ForwardTime", forward);
    app->GetAttribute("BackwardTime", backward);
    EXPECT_EQ(forward.Get(), MicroSeconds(7));
    EXPECT_EQ(backward.Get(), MicroSeconds(9));
    app->SetAttribute("ForwardComputeTime", TimeValue(MicroSeconds(11)));
    app->GetAttribute("ForwardTime", forward);
    EXPECT_EQ(forward.Get(), MicroSeconds(11));
    app->GetAttribute("ForwardComputeTime", forward);
    EXPECT_EQ(forward.Get(), MicroSeconds(11));
}
