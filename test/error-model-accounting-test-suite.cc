/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-error-model-accounting: packets the RoceNetDevices' receive error models
// take are counted by place in both fabrics' totals, so that offered = delivered +
// dropped + queued holds; cells a scheduled fabric's lossy leaf-spine link corrupts
// are counted and their packets recovered; an error model's draws follow RngRun whenever it was
// made; the run record writes it as its TypeId and attributes, and applies
// --RngSeed and --RngRun before the other options.

#include "cluster-test-common.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/test.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// \param rate packet error rate \return a RateErrorModel losing that share of packets
Ptr<RateErrorModel>
MakeLoss(double rate)
{
    auto loss = CreateObject<RateErrorModel>();
    loss->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    loss->SetRate(rate);
    return loss;
}

/// \param devices some RoceNetDevices \return the packets their error models took
uint64_t
SumErrorDrops(const NetDeviceContainer& devices)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        sum += DynamicCast<RoceNetDevice>(devices.Get(i))->GetCounters().rxErrorDataDrops;
    }
    return sum;
}

/**
 * Every host sends an RDMA message two hosts on, over a fabric whose every
 * RoceNetDevice loses some frames.
 * \param f the cluster \param hosts its hosts \param size bytes per message
 */
template <typename FabricHelper>
void
RunShiftedMessages(RdmaCluster<FabricHelper>& f, uint32_t hosts, uint64_t size)
{
    for (uint32_t h = 0; h < hosts; ++h)
    {
        f.Post(h, (h + 2) % hosts, size);
    }
    Simulator::Run();
}

} // namespace

/**
 * The scheduled fabric with a receive error model on every host link: the packets
 * the leaf host ports' models took are offered and dropped there, those the host
 * NICs' took are dropped after the leaf delivered them; conservation holds in
 * packets and bytes.
 */
class ScheduledErrorModelAccountingTestCase : public TestCase
{
  public:
    ScheduledErrorModelAccountingTestCase()
        : TestCase("scheduled fabric: receive error models counted by place, conservation holds")
    {
    }

  private:
    /// Send RDMA messages over the lossy fabric; check the totals.
    void DoRun() override
    {
        const ClusterDescription c = SmallCluster(3, 2, 3);
        Ptr<RateErrorModel> loss = MakeLoss(0.015);
        RdmaCluster<ScheduledFabricHelper> f(c, [loss](ScheduledFabricHelper& fabric) {
            fabric.SetDeviceAttribute("ReceiveErrorModel", PointerValue(loss));
        });
        RunShiftedMessages(f, c.GetHosts(), 300000);
        const auto t = f.fabric.GetTotals();
        const uint64_t nic = SumErrorDrops(f.fabric.GetHostDevices());
        const uint64_t port = SumErrorDrops(f.fabric.GetLeafHostDevices());
        std::cout << "scheduled: offered " << t.offeredPackets << ", delivered "
                  << t.deliveredPackets << ", dropped " << t.GetDroppedPackets() << " (host NICs "
                  << t.hostNicErrorDropPackets << ", leaf host ports " << t.leafPortErrorDropPackets
                  << ")" << std::endl;
        NS_TEST_EXPECT_MSG_EQ(f.completions.count, c.GetHosts(), "every message delivered");
        NS_TEST_EXPECT_MSG_GT(nic, 0, "the host NICs' models took packets");
        NS_TEST_EXPECT_MSG_GT(port, 0, "the leaf host ports' models took packets");
        NS_TEST_EXPECT_MSG_EQ(t.hostNicErrorDropPackets, nic, "host NIC losses counted");
        NS_TEST_EXPECT_MSG_EQ(t.leafPortErrorDropPackets, port, "leaf host port losses counted");
        NS_TEST_EXPECT_MSG_EQ(t.GetDroppedPackets(),
                              t.voqDropPackets + t.egressDropPackets + t.unroutablePackets +
                                  t.reassemblyTimeouts + nic + port,
                              "in the dropped total");
        NS_TEST_EXPECT_MSG_EQ(t.GetUnaccountedPackets(), 0, "every packet accounted for");
        NS_TEST_EXPECT_MSG_EQ(t.GetUnaccountedBytes(), 0, "every byte accounted for");
    }
};

/**
 * The Ethernet Clos with a receive error model on every RoceNetDevice, host links
 * and leaf-spine links: losses at host NICs, leaf host ports and fabric ports
 * counted, offered = delivered + dropped + queued.
 */
class EthernetErrorModelAccountingTestCase : public TestCase
{
  public:
    EthernetErrorModelAccountingTestCase()
        : TestCase("ethernet: receive error models counted by place, conservation holds")
    {
    }

  private:
    /// Send RDMA messages over the lossy fabric; check the totals.
    void DoRun() override
    {
        const ClusterDescription c = SmallCluster(3, 2, 2);
        Ptr<RateErrorModel> loss = MakeLoss(0.015);
        RdmaCluster<EthernetClosHelper> f(c, [loss](EthernetClosHelper& fabric) {
            fabric.SetDeviceAttribute("ReceiveErrorModel", PointerValue(loss));
        });
        RunShiftedMessages(f, c.GetHosts(), 300000);
        const auto t = f.fabric.GetTotals();
        const uint64_t nic = SumErrorDrops(f.fabric.GetHostDevices());
        const uint64_t port = SumErrorDrops(f.fabric.GetLeafHostDevices());
        const uint64_t fabricPorts = SumErrorDrops(f.fabric.GetFabricDevices());
        std::cout << "ethernet: offered " << t.offeredPackets << ", delivered "
                  << t.deliveredPackets << ", dropped " << t.GetDroppedPackets() << " (host NICs "
                  << nic << ", leaf host ports " << port << ", fabric ports " << fabricPorts
                  << "), queued " << t.queuedPackets << std::endl;
        NS_TEST_EXPECT_MSG_EQ(f.completions.count, c.GetHosts(), "every message delivered");
        NS_TEST_EXPECT_MSG_GT(nic, 0, "the host NICs' models took packets");
        NS_TEST_EXPECT_MSG_GT(port, 0, "the leaf host ports' models took packets");
        NS_TEST_EXPECT_MSG_GT(fabricPorts, 0, "the fabric ports' models took packets");
        NS_TEST_EXPECT_MSG_EQ(t.hostNicErrorDropPackets, nic, "host NIC losses counted");
        NS_TEST_EXPECT_MSG_EQ(t.leafPortErrorDropPackets, port, "leaf host port losses counted");
        NS_TEST_EXPECT_MSG_EQ(t.fabricPortErrorDropPackets, fabricPorts, "fabric port losses");
        NS_TEST_EXPECT_MSG_EQ(t.GetDroppedPackets(),
                              t.droppedPackets + t.linkLostFrames + nic + port + fabricPorts,
                              "in the dropped total");
        NS_TEST_EXPECT_MSG_EQ(t.GetUnaccountedPackets(), 0, "every packet accounted for");
    }
};

/**
 * A lossy leaf-spine link of the scheduled fabric: its two ends judge the cells
 * they receive, corrupted cells of any type are dropped and counted, the packets
 * they belonged to are given up at reassembly and resent by RDMA, and every
 * message completes. With a ReceiveListErrorModel dropping the 3rd, 8th and 41st
 * cell the link's ends receive (indices 2, 7, 40 of the model's count, whatever
 * their types), exactly 3 cells are corrupted; with a 2% per-cell rate, some are.
 * Either way the totals count them and packets and bytes add up.
 */
class ScheduledLinkCorruptionTestCase : public TestCase
{
  public:
    /// \param listed drop the listed cells (else 2% of cells at random)
    explicit ScheduledLinkCorruptionTestCase(bool listed)
        : TestCase(std::string("scheduled fabric: a lossy leaf-spine link's corrupted cells "
                               "counted, messages complete (") +
                   (listed ? "3 listed cells" : "2% of cells") + ")"),
          m_listed(listed)
    {
    }

  private:
    /// Send RDMA messages across leaves over the lossy link; check the counts.
    void DoRun() override
    {
        const ClusterDescription c = SmallCluster(2, 2, 2);
        Ptr<ErrorModel> model;
        if (m_listed)
        {
            auto list = CreateObject<ReceiveListErrorModel>();
            list->SetList({2, 7, 40});
            model = list;
        }
        else
        {
            auto rate = MakeLoss(0.02);
            rate->AssignStreams(7);
            model = rate;
        }
        RdmaCluster<ScheduledFabricHelper> f(c);
        f.fabric.SetFabricLinkErrorModel(0, 1, 0, model);
        RunShiftedMessages(f, c.GetHosts(), 200000); // host h -> h + 2: every flow crosses
        const auto t = f.fabric.GetTotals();
        uint64_t corrupted = 0;
        uint64_t elsewhere = 0;
        const Ptr<Channel> lossy = f.fabric.GetFabricChannel(0, 1, 0);
        for (uint32_t i = 0; i < f.fabric.GetFabricDevices().GetN(); ++i)
        {
            auto port = DynamicCast<CellNetDevice>(f.fabric.GetFabricDevices().Get(i));
            (port->GetChannel() == lossy ? corrupted : elsewhere) += port->GetCellsCorrupted();
        }
        std::cout << GetName() << ": " << corrupted << " cells corrupted, " << t.reassemblyTimeouts
                  << " packets given up at reassembly" << std::endl;
        NS_TEST_EXPECT_MSG_EQ(f.completions.count, c.GetHosts(), "every message delivered");
        if (m_listed)
        {
            NS_TEST_EXPECT_MSG_EQ(corrupted, 3, "the listed cells, no more");
        }
        else
        {
            NS_TEST_EXPECT_MSG_GT(corrupted, 0, "the link corrupted cells");
        }
        NS_TEST_EXPECT_MSG_EQ(elsewhere, 0, "no other link did");
        NS_TEST_EXPECT_MSG_EQ(t.linkCorruptedCells, corrupted, "the totals count them");
        NS_TEST_EXPECT_MSG_EQ(t.GetUnaccountedPackets(), 0, "every packet accounted for");
        NS_TEST_EXPECT_MSG_EQ(t.GetUnaccountedBytes(), 0, "every byte accounted for");
    }

    bool m_listed; //!< drop listed cells, else 2% at random
};

/**
 * An error model made before RngRun is set (as an attribute default on the command
 * line before --RngRun) loses the same packets as one made after: the fabric's
 * AssignStreams gives it the run's stream. Another run loses others.
 */
class ErrorModelRunTestCase : public TestCase
{
  public:
    ErrorModelRunTestCase()
        : TestCase("an error model's draws follow RngRun whenever the model was made")
    {
    }

  private:
    /**
     * \param runBefore RngRun when the model is made \param run RngRun of the run
     * \return the packets the models took, per host NIC then per leaf host port
     */
    static std::vector<uint64_t> Losses(uint32_t runBefore, uint32_t run)
    {
        RngSeedManager::SetRun(runBefore);
        Ptr<RateErrorModel> loss = MakeLoss(0.02);
        RngSeedManager::SetRun(run);
        const ClusterDescription c = SmallCluster(2, 2, 2);
        std::vector<uint64_t> losses;
        {
            RdmaCluster<ScheduledFabricHelper> f(c, [loss](ScheduledFabricHelper& fabric) {
                fabric.SetDeviceAttribute("ReceiveErrorModel", PointerValue(loss));
            });
            RunShiftedMessages(f, c.GetHosts(), 200000);
            for (const auto* devices : {&f.fabric.GetHostDevices(), &f.fabric.GetLeafHostDevices()})
            {
                for (uint32_t i = 0; i < devices->GetN(); ++i)
                {
                    losses.push_back(DynamicCast<RoceNetDevice>(devices->Get(i))
                                         ->GetCounters()
                                         .rxErrorDataDrops);
                }
            }
        }
        RngSeedManager::SetRun(1);
        return losses;
    }

    /// Compare the losses of models made before and after RngRun, and of another run.
    void DoRun() override
    {
        const std::vector<uint64_t> madeBefore = Losses(1, 6);
        const std::vector<uint64_t> madeAfter = Losses(6, 6);
        const std::vector<uint64_t> otherRun = Losses(6, 2);
        NS_TEST_EXPECT_MSG_EQ((madeBefore == madeAfter),
                              true,
                              "RngRun 6: the same losses whether the model came before it");
        NS_TEST_EXPECT_MSG_EQ((madeAfter != otherRun), true, "RngRun 2 loses other packets");
    }
};

/**
 * The run record: --RngSeed and --RngRun applied before the other options, the
 * last of each as CommandLine reads them; an error model given as an attribute
 * default written as its TypeId and attributes, never as an address.
 */
class RunRecordRandomOptionsTestCase : public TestCase
{
  public:
    RunRecordRandomOptionsTestCase()
        : TestCase("run record: random options first, pointer defaults as TypeId[attributes]")
    {
    }

  private:
    /// Begin a run record from a command line and check what it applied and wrote.
    void DoRun() override
    {
        std::vector<std::string> arguments{"program",
                                           "--ns3::RoceNetDevice::Mtu=5000",
                                           "--RngRun=7",
                                           "-RngSeed=3",
                                           "RngRun=8",
                                           "--RngRun=9"};
        std::vector<char*> argv;
        for (std::string& argument : arguments)
        {
            argv.push_back(argument.data());
        }
        RunRecord::Begin(static_cast<int>(argv.size()), argv.data());
        NS_TEST_EXPECT_MSG_EQ(RngSeedManager::GetRun(), 9, "the last --RngRun");
        NS_TEST_EXPECT_MSG_EQ(RngSeedManager::GetSeed(), 3, "-RngSeed, one dash");
        Config::SetDefault("ns3::RoceNetDevice::ReceiveErrorModel",
                           StringValue("ns3::RateErrorModel[ErrorRate=0.125]"));
        const nlohmann::json record = RunRecord::Get();
        const std::string model =
            record["changedAttributeDefaults"]["ns3::RoceNetDevice::ReceiveErrorModel"]
                .get<std::string>();
        std::cout << "recorded: " << model << std::endl;
        NS_TEST_EXPECT_MSG_EQ(model.rfind("ns3::RateErrorModel[", 0), 0, "its TypeId");
        NS_TEST_EXPECT_MSG_NE(model.find("ErrorRate=0.125"), std::string::npos, "its rate");
        NS_TEST_EXPECT_MSG_NE(model.find("RanVar=ns3::UniformRandomVariable["),
                              std::string::npos,
                              "the object it points to, nested");
        NS_TEST_EXPECT_MSG_EQ(model.find("0x"), std::string::npos, "no address");
        NS_TEST_EXPECT_MSG_EQ(record["rngRun"].get<uint64_t>(), 9, "RngRun recorded");
        NS_TEST_EXPECT_MSG_EQ(AttributeText::Describe(*MakeLoss(0.5)),
                              AttributeText::Describe(*MakeLoss(0.5)),
                              "two equal objects, one text (no address)");
        Config::Reset();
        RngSeedManager::SetRun(1);
        RngSeedManager::SetSeed(1);
    }
};

/// The suite.
class ErrorModelAccountingTestSuite : public TestSuite
{
  public:
    ErrorModelAccountingTestSuite()
        : TestSuite("ai-fabric-error-model-accounting", TestSuite::Type::UNIT)
    {
        AddTestCase(new ScheduledErrorModelAccountingTestCase());
        AddTestCase(new EthernetErrorModelAccountingTestCase());
        AddTestCase(new ScheduledLinkCorruptionTestCase(true));
        AddTestCase(new ScheduledLinkCorruptionTestCase(false));
        AddTestCase(new ErrorModelRunTestCase());
        AddTestCase(new RunRecordRandomOptionsTestCase());
    }
};

static ErrorModelAccountingTestSuite g_errorModelAccountingTestSuite; //!< registers the suite
