/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/scale-up-switch.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(ScaleUpSwitch, DefaultsFollowAnH100Server)
{
    Ptr<ScaleUpSwitch> sw = CreateObject<ScaleUpSwitch>();
    EXPECT_EQ(sw->GetNGpus(), 0u);
    sw->Setup(8);
    EXPECT_EQ(sw->GetNGpus(), 8u);
    // H100 SXM: 900 GB/s of NVLink per GPU counting both directions.
    EXPECT_EQ(sw->GetPortRate(), DataRate("3600Gbps"));
    EXPECT_EQ(sw->GetPortRate().GetBitRate() * 2 / 8, 900000000000u);
    EXPECT_EQ(sw->GetLatency(), MicroSeconds(1));
    EXPECT_EQ(sw->GetTransfers(), 0u);
    EXPECT_EQ(sw->GetBytesSent(7), 0u);
    EXPECT_EQ(sw->GetBytesReceived(7), 0u);
    sw->Dispose();
}

TEST(ScaleUpSwitch, DisposeCancelsPendingTransfers)
{
    Ptr<ScaleUpSwitch> sw = CreateObject<ScaleUpSwitch>();
    sw->Setup(2);
    bool ran = false;
    sw->Transfer(0, 1, 1 << 20, Callback<void>([&ran]() { ran = true; }));
    sw->Dispose();
    Simulator::Run();
    EXPECT_FALSE(ran);
    Simulator::Destroy();
}

TEST(ScaleUpSwitch, NullDoneCallbackIsAllowed)
{
    Ptr<ScaleUpSwitch> sw = CreateObject<ScaleUpSwitch>();
    sw->Setup(2);
    sw->Transfer(0, 1, 4096, Callback<void>());
    Simulator::Run();
    EXPECT_EQ(sw->GetTransfers(), 1u);
    EXPECT_EQ(sw->GetBytesSent(0), 4096u);
    EXPECT_EQ(sw->GetBytesReceived(1), 4096u);
    sw->Dispose();
    Simulator::Destroy();
}

TEST(ScaleUpSwitchDeathTest, BadTransfersAreRefusedByName)
{
    auto transfer = [](uint32_t src, uint32_t dst, uint64_t bytes) {
        Ptr<ScaleUpSwitch> sw = CreateObject<ScaleUpSwitch>();
        sw->Setup(8);
        sw->Transfer(src, dst, bytes, Callback<void>());
    };
    EXPECT_DEATH(transfer(3, 3, 100), "src and dst must differ, got src=dst=3");
    EXPECT_DEATH(transfer(8, 1, 100), "src=8 out of range \\(8 GPUs\\)");
    EXPECT_DEATH(transfer(1, 9, 100), "dst=9 out of range \\(8 GPUs\\)");
    EXPECT_DEATH(transfer(1, 2, 0), "bytes must be positive, got 0 \\(src=1, dst=2\\)");

    auto beforeSetup = []() {
        Ptr<ScaleUpSwitch> sw = CreateObject<ScaleUpSwitch>();
        sw->Transfer(0, 1, 100, Callback<void>());
    };
    EXPECT_DEATH(beforeSetup(), "Setup has not been called");

    auto counter = []() {
        Ptr<ScaleUpSwitch> sw = CreateObject<ScaleUpSwitch>();
        sw->Setup(4);
        sw->GetBytesSent(4);
    };
    EXPECT_DEATH(counter(), "gpu=4 out of range \\(4 GPUs\\)");
}

TEST(ScaleUpSwitchDeathTest, BadSetupIsRefusedByName)
{
    auto setup = [](uint32_t gpus, const char* rate, Time latency) {
        Ptr<ScaleUpSwitch> sw = CreateObject<ScaleUpSwitch>();
        sw->SetAttribute("PortRate", DataRateValue(DataRate(rate)));
        sw->SetAttribute("Latency", TimeValue(latency));
        sw->Setup(gpus);
    };
    EXPECT_DEATH(setup(0, "3600Gbps", MicroSeconds(1)), "gpus must be at least 1, got 0");
    EXPECT_DEATH(setup(8, "0bps", MicroSeconds(1)), "PortRate must be positive, got 0bps");
    EXPECT_DEATH(setup(8, "3600Gbps", NanoSeconds(-3)), "Latency must not be negative, got -3");

    auto twice = []() {
        Ptr<ScaleUpSwitch> sw = CreateObject<ScaleUpSwitch>();
        sw->Setup(8);
        sw->Setup(4);
    };
    EXPECT_DEATH(twice(), "Setup called twice \\(already 8 GPUs, now 4\\)");
}
