/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Workloads read from files: the SimAI reader against public files AICB and SimAI
// wrote (test/data/README.md names their sources), the checks of WorkloadGraph,
// and ReplayApplication's timing and accounting on both fabrics.

#include "collective-test-common.h"

#include "ns3/boolean.h"
#include "ns3/chakra-trace-reader.h"
#include "ns3/chakra-trace-writer.h"
#include "ns3/double.h"
#include "ns3/ethernet-clos-helper.h"
#include "ns3/pointer.h"
#include "ns3/replay-application.h"
#include "ns3/replay-helper.h"
#include "ns3/scheduled-fabric-helper.h"
#include "ns3/simai-workload-reader.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/training-application-helper.h"
#include "ns3/training-job-application.h"
#include "ns3/training-job-helper.h"
#include "ns3/transformer-model.h"
#include "ns3/uinteger.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

/// \param file a file under test/data/simai \return its path from where tests run
std::string
SimAiSample(const std::string& file)
{
    return std::string(NS_TEST_SOURCEDIR) + "/data/simai/" + file;
}

/// Per kind of traffic: collective operations and their bytes (S summed).
struct KindTotals
{
    uint64_t operations{0}; //!< operations
    uint64_t bytes{0};      //!< S, summed
};

/// \param graph a linked graph \return per traffic kind name, its operations and bytes
std::map<std::string, KindTotals>
CountOperations(const WorkloadGraph& graph)
{
    std::map<std::string, KindTotals> totals;
    for (const WorkloadGraph::Operation& op : graph.operations)
    {
        const WorkloadNode& node = graph.nodes[graph.groups[op.group][0]][op.member[0]];
        KindTotals& t = totals[graph.trafficNames[node.traffic]];
        t.operations++;
        t.bytes += node.bytes;
    }
    return totals;
}

/// \param text a workload \param gpus the job's GPUs \return the reader's problem
std::string
ParseText(const std::string& text, uint32_t gpus)
{
    std::istringstream in(text);
    WorkloadGraph graph;
    return SimAiWorkloadReader::Parse(in, "workload.txt", gpus, graph);
}

/// \param prefix a prefix under test/data/chakra \return it from where tests run
std::string
ChakraSample(const std::string& prefix)
{
    return std::string(NS_TEST_SOURCEDIR) + "/data/chakra/" + prefix;
}

/// \param value a number \return its protobuf varint encoding
std::string
Varint(uint64_t value)
{
    std::string out;
    do
    {
        const uint8_t low = value & 0x7f;
        value >>= 7;
        out.push_back(static_cast<char>(low | (value ? 0x80 : 0)));
    } while (value);
    return out;
}

/// \param field a field number \param bytes its message or string \return it encoded
std::string
LengthDelimited(uint32_t field, const std::string& bytes)
{
    return Varint(field << 3 | 2) + Varint(bytes.size()) + bytes;
}

/**
 * A Chakra node, encoded by hand (et_def.proto: id 1, type 3, data_deps 5 packed,
 * attr 10; an attribute's name 1 and int64_val 9).
 * \param id its id \param type its NodeType \param deps its data_deps
 * \param attrs (name, value) of int64 attributes \return the node, length first
 */
std::string
EncodeNode(uint64_t id,
           uint32_t type,
           const std::vector<uint64_t>& deps,
           const std::vector<std::pair<std::string, int64_t>>& attrs)
{
    std::string node = Varint(1 << 3) + Varint(id) + Varint(3 << 3) + Varint(type);
    std::string packed;
    for (uint64_t dep : deps)
    {
        packed += Varint(dep);
    }
    if (!packed.empty())
    {
        node += LengthDelimited(5, packed);
    }
    for (const auto& [name, value] : attrs)
    {
        node += LengthDelimited(10,
                                LengthDelimited(1, name) + Varint(9 << 3) +
                                    Varint(static_cast<uint64_t>(value)));
    }
    return Varint(node.size()) + node;
}

/**
 * Write trace files PREFIX.<rank>.et in a fresh folder.
 * \param folder the folder (emptied first) \param files per rank, its nodes (an
 *        empty GlobalMetadata is put first)
 * \return the prefix
 */
std::string
WriteTraces(const std::string& folder, const std::vector<std::string>& files)
{
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder);
    for (uint32_t r = 0; r < files.size(); ++r)
    {
        std::ofstream out(folder + "/t." + std::to_string(r) + ".et", std::ios::binary);
        out << Varint(0) << files[r];
    }
    return folder + "/t";
}

} // namespace

/**
 * The public samples, read as SimAI reads them. Expected values come from the files'
 * lines (a collective token and its bytes per phase), summed by hand per kind:
 *
 * workload_ep_test.txt: 32 GPUs, TP 4, EP 4, so DP 8 and 8 TP groups, 4 DP groups,
 * 8 EP groups and 16 DP_EP groups (36 groups). Its 43 layers hold
 *   forward:  ALLGATHER 12 lines, 150,994,944 B; ALLREDUCE 1, 12,582,912 B;
 *             ALLTOALL 8, 50,331,648 B; REDUCESCATTER 8, 100,663,296 B (TP);
 *             ALLTOALL_EP 8, 201,326,592 B (EP)
 *   input gradient: the same, but REDUCESCATTER 50,331,648 B (4 of its 8 are 0 B)
 *   weight gradient: ALLGATHER 6,291,456 B and REDUCESCATTER 12,582,912 B (DP);
 *             ALLGATHER_DP_EP 4,718,592 B and REDUCESCATTER_DP_EP 9,437,184 B (DP_EP)
 * so per TP group 29 + 29 lines of 314,572,800 + 264,241,152 = 578,813,952 B, x 8
 * groups: 464 operations, 4,630,511,616 B; EP: 16 lines of 402,653,184 B x 8 groups:
 * 128 operations, 3,221,225,472 B; DP: 2 lines x 4 groups + 2 x 16 = 40 operations,
 * 18,874,368 x 4 + 14,155,776 x 16 = 301,989,888 B.
 *
 * Nodes per rank: every layer has a compute node per phase (3 x 43), and each
 * collective an update node after it: 29 + 8 (forward) + 37 (input gradient) + 4
 * (weight gradient) = 78 collectives, so 129 + 2 x 78 = 285 nodes per rank, 9,120 in
 * all; every node but the first waits for one other: 284 x 32 = 9,088 edges.
 */
class SimAiSamplesTestCase : public TestCase
{
  public:
    SimAiSamplesTestCase()
        : TestCase("SimAI samples: header, layout, nodes and bytes as the files hold them")
    {
    }

  private:
    /// Read the samples and check them.
    void DoRun() override
    {
        WorkloadGraph graph;
        std::string problem =
            SimAiWorkloadReader::Read(SimAiSample("workload_ep_test.txt"), 32, graph);
        NS_TEST_EXPECT_MSG_EQ(problem, "", "workload_ep_test.txt reads");
        if (!problem.empty())
        {
            return; // the test runner may continue after a failed assertion
        }
        NS_TEST_EXPECT_MSG_EQ(graph.GetRanks(), 32, "all_gpus 32");
        NS_TEST_EXPECT_MSG_EQ(graph.groups.size(), 36, "8 TP + 4 DP + 8 EP + 16 DP_EP groups");
        NS_TEST_EXPECT_MSG_EQ(graph.GetNodeCount(), 9120, "285 nodes per rank");
        NS_TEST_EXPECT_MSG_EQ(graph.GetEdgeCount(), 9088, "a chain with branches");
        std::map<std::string, KindTotals> t = CountOperations(graph);
        NS_TEST_EXPECT_MSG_EQ(t["TP"].operations, 464, "TP operations");
        NS_TEST_EXPECT_MSG_EQ(t["TP"].bytes, 4630511616ULL, "TP bytes");
        NS_TEST_EXPECT_MSG_EQ(t["EP"].operations, 128, "EP operations");
        NS_TEST_EXPECT_MSG_EQ(t["EP"].bytes, 3221225472ULL, "EP bytes");
        NS_TEST_EXPECT_MSG_EQ(t["DP"].operations, 40, "DP operations");
        NS_TEST_EXPECT_MSG_EQ(t["DP"].bytes, 301989888ULL, "DP bytes");
        NS_TEST_EXPECT_MSG_EQ(graph.unmodelled.size(), 0, "every token modelled");
        // SimAI's layout: TP groups contiguous, DP strided by TP, EP groups of EP
        // consecutive TP groups' same TP rank, DP_EP strided by EP x TP.
        NS_TEST_EXPECT_MSG_EQ((graph.groups[0] == std::vector<uint32_t>{0, 1, 2, 3}), true, "TP 0");
        NS_TEST_EXPECT_MSG_EQ(
            (graph.groups[8] == std::vector<uint32_t>{0, 4, 8, 12, 16, 20, 24, 28}),
            true,
            "DP 0");
        NS_TEST_EXPECT_MSG_EQ((graph.groups[12] == std::vector<uint32_t>{0, 4, 8, 12}),
                              true,
                              "EP 0");
        NS_TEST_EXPECT_MSG_EQ((graph.groups[20] == std::vector<uint32_t>{0, 16}), true, "DP_EP 0");

        // microAllReduce.txt: 8 GPUs, TP 8, two forward ALLREDUCEs of 16 MiB and
        // 64 MiB, NONE elsewhere: one TP group, 2 operations, 83,886,080 B; 3 compute
        // nodes per layer and 2 update nodes: 10 per rank.
        problem = SimAiWorkloadReader::Read(SimAiSample("microAllReduce.txt"), 8, graph);
        NS_TEST_EXPECT_MSG_EQ(problem, "", "microAllReduce.txt reads");
        if (!problem.empty())
        {
            return; // the test runner may continue after a failed assertion
        }
        t = CountOperations(graph);
        NS_TEST_EXPECT_MSG_EQ(graph.GetNodeCount(), 80, "10 nodes per rank");
        NS_TEST_EXPECT_MSG_EQ(t["TP"].operations, 2, "two AllReduces");
        NS_TEST_EXPECT_MSG_EQ(t["TP"].bytes, 83886080ULL, "16 MiB + 64 MiB");

        // The Llama-7B file AICB wrote for TP 2 (a header without all_gpus: the job's
        // 16 GPUs, so 8 TP groups and 2 DP groups of 8). Forward: ALLGATHER 1 line,
        // 6,754,926,592 B, ALLREDUCE 73 lines, 1,352,687,632 B, BROADCAST 1 line
        // (not modelled, as in SimAI); input gradient ALLREDUCE 66 lines,
        // 7,845,445,632 B; weight gradient REDUCESCATTER 1 line, 13,509,853,184 B:
        // TP (1 + 73 + 66) x 8 = 1,120 operations, (6,754,926,592 + 1,352,687,632 +
        // 7,845,445,632) x 8 = 127,624,478,848 B; DP 2 operations, 27,019,706,368 B.
        problem = SimAiWorkloadReader::Read(
            SimAiSample("L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt"),
            16,
            graph);
        NS_TEST_EXPECT_MSG_EQ(problem, "", "the Llama-7B file reads");
        if (!problem.empty())
        {
            return; // the test runner may continue after a failed assertion
        }
        t = CountOperations(graph);
        NS_TEST_EXPECT_MSG_EQ(graph.GetRanks(), 16, "the job's GPUs");
        NS_TEST_EXPECT_MSG_EQ(t["TP"].operations, 1120, "TP operations");
        NS_TEST_EXPECT_MSG_EQ(t["TP"].bytes, 127624478848ULL, "TP bytes");
        NS_TEST_EXPECT_MSG_EQ(t["DP"].operations, 2, "DP operations");
        NS_TEST_EXPECT_MSG_EQ(t["DP"].bytes, 27019706368ULL, "DP bytes");
        NS_TEST_EXPECT_MSG_EQ(graph.unmodelled["BROADCAST"], 16, "one per rank, counted");
    }
};

/**
 * Bad files are refused before anything runs, naming the file, the line and what is
 * wrong; and the checks of a graph name the rank and node.
 */
class BadInputTestCase : public TestCase
{
  public:
    BadInputTestCase()
        : TestCase("bad SimAI files and bad graphs are refused with the line or node")
    {
    }

  private:
    /// \param text a workload \param gpus GPUs \param expected a part of the problem
    void ExpectProblem(const std::string& text, uint32_t gpus, const std::string& expected)
    {
        const std::string problem = ParseText(text, gpus);
        NS_TEST_EXPECT_MSG_NE(problem.find(expected),
                              std::string::npos,
                              "\"" << problem << "\" names \"" << expected << "\"");
    }

    /// Refuse each bad file and graph.
    void DoRun() override
    {
        const std::string header = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 "
                                   "ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 4 checkpoints: 0 "
                                   "checkpoint_initiates: 0\n";
        const std::string good = "a -1 10 ALLREDUCE 4096 10 NONE 0 10 ALLGATHER 8192 100\n";
        NS_TEST_EXPECT_MSG_EQ(ParseText(header + "1\n" + good, 4), "", "a good file");
        ExpectProblem(header + "1\na -1 10 ALLREDUCE 4096 10 NONE 0 10 ALLGATHER 8192\n",
                      4,
                      "workload.txt: line 3: 11 fields, a layer has 12");
        ExpectProblem(header + "1\na -1 10 ALLSCATTER 4096 10 NONE 0 10 NONE 0 100\n",
                      4,
                      "line 3: unknown collective type ALLSCATTER (forward)");
        ExpectProblem(header + "2\n" + good,
                      4,
                      "truncated: line 2 declares 2 layers, the file has 1");
        ExpectProblem(header + "x\n", 4, "line 2: the number of layers x");
        ExpectProblem("", 4, "empty");
        ExpectProblem("DATA model_parallel_NPU_group: 2\n1\n" + good, 4, "parallelism policy DATA");
        ExpectProblem(
            "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 3 all_gpus: 4\n1\n" + good,
            4,
            "model_parallel_NPU_group 3 x pp 1 does not divide the 4 GPUs");
        ExpectProblem("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 4 "
                      "all_gpus: 4\n1\n" +
                          good,
                      4,
                      "ep 4 does not divide the data parallel degree 2");
        ExpectProblem(header + "1\n" + good, 3, "all_gpus: 4 is more than the job's 3 GPUs");
        ExpectProblem("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: two\n1\n" + good,
                      4,
                      "model_parallel_NPU_group: two");
        ExpectProblem("HYBRID_TRANSFORMER_FWD_IN_BCKWD speed: 2\n1\n" + good,
                      4,
                      "unknown header field speed:");
        // pp_comm with or without its colon, and as Python wrote it.
        SimAiWorkloadReader::Header h;
        NS_TEST_EXPECT_MSG_EQ(SimAiWorkloadReader::ParseHeader(
                                  "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 "
                                  "pp: 12 pp_comm 50331648",
                                  h),
                              "",
                              "pp_comm without colon");
        NS_TEST_EXPECT_MSG_EQ(h.ppComm, 50331648, "its value");
        NS_TEST_EXPECT_MSG_EQ(h.pp, 12, "pp");
        NS_TEST_EXPECT_MSG_EQ(
            SimAiWorkloadReader::ParseHeader("HYBRID_TRANSFORMER_FWD_IN_BCKWD pp_comm: 2621440.0",
                                             h),
            "",
            "a whole number written as a decimal");
        NS_TEST_EXPECT_MSG_EQ(h.ppComm, 2621440, "its value");

        // Graphs: a missing dependency, a cycle, a deadlock across ranks, a
        // collective the members disagree on, a send nobody receives.
        const auto twoRanks = []() {
            WorkloadGraph g;
            g.source = "graph";
            g.AddTraffic("t");
            g.AddGroup({0, 1}, "world");
            g.nodes.assign(2, {});
            return g;
        };
        const auto node = [](uint64_t id, WorkloadNode::Kind kind, std::vector<uint64_t> deps) {
            WorkloadNode n;
            n.id = id;
            n.kind = kind;
            n.deps = std::move(deps);
            n.bytes = 1024;
            n.collective = "AllReduce";
            return n;
        };
        WorkloadGraph g = twoRanks();
        g.nodes[0] = {node(1, WorkloadNode::COMPUTE, {7})};
        NS_TEST_EXPECT_MSG_EQ(g.Link(),
                              "graph: rank 0 node 1 depends on node 7, which rank 0 does not have",
                              "missing dependency");
        g = twoRanks();
        g.nodes[1] = {node(1, WorkloadNode::COMPUTE, {2}), node(2, WorkloadNode::COMPUTE, {1})};
        NS_TEST_EXPECT_MSG_NE(g.Link().find("rank 1 node 1 can never start: a dependency cycle"),
                              std::string::npos,
                              "cycle");
        // Rank 0 runs A then B, rank 1 B then A, where B depends on A on rank 0 and A
        // on B on rank 1: each waits for the other.
        g = twoRanks();
        g.AddGroup({1, 0}, "reversed");
        WorkloadNode a = node(1, WorkloadNode::COLLECTIVE, {});
        WorkloadNode b = node(2, WorkloadNode::COLLECTIVE, {1});
        b.group = 1;
        g.nodes[0] = {a, b};
        WorkloadNode b1 = node(1, WorkloadNode::COLLECTIVE, {});
        b1.group = 1;
        WorkloadNode a1 = node(2, WorkloadNode::COLLECTIVE, {1});
        g.nodes[1] = {b1, a1};
        NS_TEST_EXPECT_MSG_NE(g.Link().find("can never start"), std::string::npos, "deadlock");
        g = twoRanks();
        g.nodes[0] = {node(1, WorkloadNode::COLLECTIVE, {})};
        g.nodes[1] = {node(1, WorkloadNode::COLLECTIVE, {})};
        g.nodes[1][0].bytes = 2048;
        NS_TEST_EXPECT_MSG_NE(g.Link().find("rank 1 node 1: AllReduce of 2048 B, but rank 0's "
                                            "matching collective over group world is AllReduce "
                                            "of 1024 B"),
                              std::string::npos,
                              "mismatched collective");
        g = twoRanks();
        g.nodes[0] = {node(1, WorkloadNode::SEND, {})};
        g.nodes[0][0].peer = 1;
        NS_TEST_EXPECT_MSG_NE(g.Link().find("rank 0 node 1: a send to rank 1 (tag 0) that rank "
                                            "never receives"),
                              std::string::npos,
                              "unmatched send");
        // An AlltoAllv: each member gives its own row (bytes to each member, summing
        // to its bytes), so rows of different sums are fine; a row of the wrong
        // length or sum is not, nor a row on another collective.
        const auto row = [&](uint64_t id, std::vector<uint64_t> split) {
            WorkloadNode n = node(id, WorkloadNode::COLLECTIVE, {});
            n.collective = "AlltoAllv";
            n.bytes = 0;
            for (uint64_t b : split)
            {
                n.bytes += b;
            }
            n.split = std::move(split);
            return n;
        };
        g = twoRanks();
        g.nodes[0] = {row(1, {100, 300})};
        g.nodes[1] = {row(1, {0, 50})};
        NS_TEST_EXPECT_MSG_EQ(g.Link(), "", "uneven rows");
        g.nodes[1] = {row(1, {0, 50, 1})};
        NS_TEST_EXPECT_MSG_EQ(g.Link(),
                              "graph: rank 1 node 1: AlltoAllv with bytes for 3 peers, but its "
                              "group has 2 members",
                              "row too long");
        g.nodes[1] = {row(1, {0, 50})};
        g.nodes[1][0].bytes = 49;
        NS_TEST_EXPECT_MSG_EQ(g.Link(),
                              "graph: rank 1 node 1: AlltoAllv of 49 B whose bytes per peer do "
                              "not add up to it",
                              "row sum");
        g.nodes[1][0].split = {UINT64_MAX, 2};
        NS_TEST_EXPECT_MSG_NE(g.Link().find("whose bytes per peer do not add up"),
                              std::string::npos,
                              "a row that overflows");
        g.nodes[1] = {node(1, WorkloadNode::COLLECTIVE, {})};
        g.nodes[1][0].split = {512, 512};
        NS_TEST_EXPECT_MSG_EQ(g.Link(),
                              "graph: rank 1 node 1: AllReduce with bytes per peer (only "
                              "AlltoAllv has them)",
                              "a row on another collective");
    }
};

/**
 * A replayed AllReduce on an idle fabric, one GPU per server (every step over the
 * NICs): the same operation as the module's ring AllReduce run directly, so the
 * iteration takes its time exactly (the compute nodes around it take 0 ns), and
 * that time lies between the ring's bandwidth bound 2(n-1)/n x S/B + alpha and its
 * lock-step time 2(n-1)/n x S/B + 2(n-1) alpha within 2%, alpha measured with a
 * small AllReduce (as ai-fabric-collective checks the ring itself).
 */
template <typename FabricHelper>
class ReplayedAllReduceTestCase : public TestCase
{
  public:
    /// \param fabric its name, for the test's
    explicit ReplayedAllReduceTestCase(const std::string& fabric)
        : TestCase("a replayed AllReduce takes the ring's time, " + fabric)
    {
    }

  private:
    /// \param bytes S \return the ring AllReduce's time on 8 ranks, run directly
    Time RunDirectly(uint64_t bytes)
    {
        GpuCluster<FabricHelper> f(OneGpuServers());
        return f.Run(f.FirstGpus(8), "AllReduce", bytes).GetDuration();
    }

    /// Replay the AllReduce and compare it with the direct run and the ring model.
    void DoRun() override
    {
        const uint64_t bytes = 8 << 20;
        const Time direct = RunDirectly(bytes);
        const Time small = RunDirectly(8 * 2 * 16384);
        Time replayed;
        {
            GpuCluster<FabricHelper> f(OneGpuServers());
            std::istringstream in("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 "
                                  "all_gpus: 8\n1\nlayer -1 0 ALLREDUCE " +
                                  std::to_string(bytes) + " 0 NONE 0 0 NONE 0 0\n");
            WorkloadGraph graph;
            const std::string problem = SimAiWorkloadReader::Parse(in, "allreduce", 8, graph);
            NS_TEST_EXPECT_MSG_EQ(problem, "", "reads");
            if (!problem.empty())
            {
                return;
            }
            ReplayHelper replay;
            ApplicationContainer apps =
                replay.Install(std::make_shared<const WorkloadGraph>(std::move(graph)),
                               f.FirstGpus(8),
                               f.collectives);
            Simulator::Run();
            Ptr<ReplayApplication> app = DynamicCast<ReplayApplication>(apps.Get(0));
            NS_TEST_EXPECT_MSG_EQ(app->GetIterationsDone(), 1, "the iteration completed");
            if (app->GetIterationsDone() != 1)
            {
                return;
            }
            replayed = app->GetIterationTimes()[0];
            NS_TEST_EXPECT_MSG_EQ(app->GetTrafficTotals(0).bytes, bytes, "S counted once");
        }
        NS_TEST_EXPECT_MSG_EQ(replayed, direct, "the same operation, the same time");
        const double n = 8;
        const double b = RdmaGoodput(OneGpuServers()) / 8;
        const double alpha =
            (small.GetSeconds() - 2 * (n - 1) / n * (8 * 2 * 16384) / b) / (2 * (n - 1));
        const double bandwidthTerm = 2 * (n - 1) / n * bytes / b;
        NS_TEST_EXPECT_MSG_GT_OR_EQ(replayed.GetSeconds() / (bandwidthTerm + alpha),
                                    0.98,
                                    "not above the NIC rate");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(replayed.GetSeconds() / (bandwidthTerm + 2 * (n - 1) * alpha),
                                    1.02,
                                    "not slower than lock-step");
    }
};

/**
 * SimAI's MoE sample (workload_ep_test.txt, 32 GPUs in servers of 4, so every TP
 * group in a server and every EP and DP group across servers) replayed at 1/1024 of
 * its bytes (every size in the file is a multiple of 1024, so the scaled totals are
 * exact): every iteration completes, every rank finishes, every packet offered to
 * the fabric is delivered and every RDMA byte posted arrives, and the bytes moved
 * per kind of traffic are the file's (SimAiSamplesTestCase) / 1024 per iteration:
 * TP 4,521,984, EP 3,145,728, DP 294,912 (the 0-byte lines move nothing).
 */
template <typename FabricHelper>
class SimAiModelWorkloadTestCase : public TestCase
{
  public:
    /// \param fabric its name, for the test's
    explicit SimAiModelWorkloadTestCase(const std::string& fabric)
        : TestCase("SimAI's MoE workload completes, every byte accounted for, " + fabric)
    {
    }

  private:
    /// Replay the workload and check its accounting.
    void DoRun() override
    {
        ClusterDescription c = SmallCluster(4, 8, 4);
        c.gpusPerServer = 4;
        c.nicPlacement = "server";
        GpuCluster<FabricHelper> f(c);
        WorkloadGraph graph;
        const std::string problem =
            SimAiWorkloadReader::Read(SimAiSample("workload_ep_test.txt"), 32, graph);
        NS_TEST_EXPECT_MSG_EQ(problem, "", "reads");
        if (!problem.empty())
        {
            return;
        }
        ReplayHelper replay;
        replay.SetAttribute("CommunicationScale", DoubleValue(1.0 / 1024));
        replay.SetAttribute("Iterations", UintegerValue(2));
        const auto shared = std::make_shared<const WorkloadGraph>(std::move(graph));
        ApplicationContainer apps = replay.Install(shared, f.FirstGpus(32), f.collectives);
        Simulator::Run();
        Ptr<ReplayApplication> app = DynamicCast<ReplayApplication>(apps.Get(0));
        NS_TEST_EXPECT_MSG_EQ(app->GetIterationsDone(), 2, "both iterations completed");
        if (app->GetIterationsDone() != 2)
        {
            return;
        }
        const std::map<std::string, uint64_t> expected{{"TP", 4521984},
                                                       {"EP", 3145728},
                                                       {"DP", 294912},
                                                       {"PP", 0}};
        for (uint32_t k = 0; k < shared->trafficNames.size(); ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(app->GetTrafficTotals(k).bytes,
                                  2 * expected.at(shared->trafficNames[k]),
                                  shared->trafficNames[k] << " bytes over two iterations");
        }
        for (uint32_t r = 0; r < 32; ++r)
        {
            const ReplayApplication::RankTimes& t = app->GetRankTimes(r);
            NS_TEST_EXPECT_MSG_GT(t.finish, Time(0), "rank " << r << " finished");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(t.finish,
                                        app->GetIterationTimes()[0] + app->GetIterationTimes()[1],
                                        "no rank after the iteration's end");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(t.exposed, t.communication, "exposed is communication");
        }
        const ReplayApplication::CriticalPath& path = app->GetCriticalPath();
        NS_TEST_EXPECT_MSG_EQ(path.compute + path.communication,
                              path.length,
                              "the path's shares add up to the iteration");
        NS_TEST_EXPECT_MSG_EQ(path.length, app->GetIterationTimes()[1], "it is the iteration");
        const RdmaTransport::Stats s = f.Sum();
        NS_TEST_EXPECT_MSG_GT(s.bytesPosted, 0, "traffic crossed the NICs");
        NS_TEST_EXPECT_MSG_EQ(s.bytesDelivered, s.bytesPosted, "every RDMA byte arrived");
        NS_TEST_EXPECT_MSG_EQ(f.fabric.GetTotals().GetUnaccountedPackets(), 0, "conservation");
        NS_TEST_EXPECT_MSG_EQ(f.fabric.GetTotals().deliveredPackets,
                              f.fabric.GetTotals().offeredPackets,
                              "every packet delivered, none left");
    }
};

/**
 * ASTRA-sim's Chakra samples (test/data/README.md): one COMM_COLL_NODE per rank of
 * comm_size 1 MiB for AllReduce, AllGather, AlltoAll and ReduceScatter on 4, 8 and
 * 16 ranks: one operation over every rank, S = 1 MiB (AllGather: each rank's 1 MiB
 * input, so S = n MiB, nccl-tests' size); and the MSCCL ring AllReduce written as
 * point-to-point nodes for 8 ranks: per rank a chain of 35 nodes (7 x send, receive,
 * compute of 7 us, then 7 x send, receive), 34 edges, sends of 128 KiB to rank
 * r + 1 and receives from r - 1, all with tag 0.
 */
class ChakraSamplesTestCase : public TestCase
{
  public:
    ChakraSamplesTestCase()
        : TestCase("Chakra samples: nodes, edges, groups and bytes as the files hold them")
    {
    }

  private:
    /// Read the samples and check them.
    void DoRun() override
    {
        const std::map<std::string, std::string> collectives{{"all_reduce", "AllReduce"},
                                                             {"all_gather", "AllGather"},
                                                             {"all_to_all", "AlltoAll"},
                                                             {"reduce_scatter", "ReduceScatter"}};
        for (const auto& [file, collective] : collectives)
        {
            for (uint32_t n : {4, 8, 16})
            {
                const std::string prefix =
                    ChakraSample(file + "/" + std::to_string(n) + "npus_1MB/" + file);
                WorkloadGraph graph;
                const std::string problem = ChakraTraceReader::Read(prefix, 16, "", graph);
                NS_TEST_EXPECT_MSG_EQ(problem, "", prefix << " reads");
                if (!problem.empty())
                {
                    continue;
                }
                NS_TEST_EXPECT_MSG_EQ(graph.GetRanks(), n, prefix);
                NS_TEST_EXPECT_MSG_EQ(graph.GetNodeCount(), n, "one node per rank");
                NS_TEST_EXPECT_MSG_EQ(graph.GetEdgeCount(), 0, "no dependencies");
                NS_TEST_EXPECT_MSG_EQ(graph.operations.size(), 1, "one operation");
                NS_TEST_EXPECT_MSG_EQ(graph.groups[graph.operations[0].group].size(), n, "world");
                const WorkloadNode& node = graph.nodes[0][0];
                NS_TEST_EXPECT_MSG_EQ(node.collective, collective, "comm_type");
                NS_TEST_EXPECT_MSG_EQ(node.bytes,
                                      (collective == "AllGather" ? n : 1) * 1048576ULL,
                                      "S");
                NS_TEST_EXPECT_MSG_EQ(graph.nodes[3][0].id, 3, "rank r's node has id r");
            }
        }
        WorkloadGraph ring;
        const std::string problem = ChakraTraceReader::Read(
            ChakraSample("custom_ring_allreduce_8npus_1MB/custom_allreduce"),
            8,
            "",
            ring);
        NS_TEST_EXPECT_MSG_EQ(problem, "", "the custom ring reads");
        if (!problem.empty())
        {
            return;
        }
        NS_TEST_EXPECT_MSG_EQ(ring.GetNodeCount(), 280, "35 nodes per rank");
        NS_TEST_EXPECT_MSG_EQ(ring.GetEdgeCount(), 272, "34 edges per rank");
        NS_TEST_EXPECT_MSG_EQ(ring.operations.size(), 0, "no collective node");
        std::map<WorkloadNode::Kind, uint32_t> kinds;
        for (uint32_t r = 0; r < 8; ++r)
        {
            for (const WorkloadNode& node : ring.nodes[r])
            {
                kinds[node.kind]++;
                if (node.kind == WorkloadNode::SEND || node.kind == WorkloadNode::RECV)
                {
                    NS_TEST_EXPECT_MSG_EQ(node.bytes, 131072, "128 KiB");
                    NS_TEST_EXPECT_MSG_EQ(node.peer,
                                          (node.kind == WorkloadNode::SEND ? r + 1 : r + 7) % 8,
                                          "the ring's neighbour");
                }
                if (node.kind == WorkloadNode::COMPUTE)
                {
                    NS_TEST_EXPECT_MSG_EQ(node.duration, MicroSeconds(7), "duration_micros");
                }
            }
        }
        NS_TEST_EXPECT_MSG_EQ(kinds[WorkloadNode::SEND], 112, "14 sends per rank");
        NS_TEST_EXPECT_MSG_EQ(kinds[WorkloadNode::RECV], 112, "14 receives per rank");
        NS_TEST_EXPECT_MSG_EQ(kinds[WorkloadNode::COMPUTE], 56, "7 computes per rank");
    }
};

/**
 * Bad Chakra traces are refused before anything runs, naming the file and node:
 * traces written here byte by byte, as the public schema encodes them.
 */
class ChakraBadInputTestCase : public TestCase
{
  public:
    ChakraBadInputTestCase()
        : TestCase("bad Chakra traces are refused with the file and node")
    {
    }

  private:
    /**
     * \param prefix traces \param gpus GPUs \param expected a part of the problem
     * \return the graph read (when there is no problem)
     */
    WorkloadGraph Expect(const std::string& prefix, uint32_t gpus, const std::string& expected)
    {
        WorkloadGraph graph;
        const std::string problem = ChakraTraceReader::Read(prefix, gpus, "", graph);
        if (expected.empty())
        {
            NS_TEST_EXPECT_MSG_EQ(problem, "", "reads");
        }
        else
        {
            NS_TEST_EXPECT_MSG_NE(problem.find(expected),
                                  std::string::npos,
                                  "\"" << problem << "\" names \"" << expected << "\"");
        }
        return graph;
    }

    /// Write and read each bad trace.
    void DoRun() override
    {
        const std::string dir = CreateTempDirFilename("chakra");
        const uint32_t coll = 7; // COMM_COLL_NODE
        const std::string allReduce =
            EncodeNode(0, coll, {}, {{"comm_type", 0}, {"comm_size", 1048576}});
        Expect(WriteTraces(dir, {allReduce, allReduce}), 2, "");
        std::string prefix = WriteTraces(dir, {allReduce, allReduce, allReduce, allReduce});
        std::filesystem::remove(prefix + ".2.et");
        Expect(prefix, 4, "t.2.et: missing (ranks go up to 3)");
        Expect(WriteTraces(dir, {allReduce, allReduce, allReduce}),
               2,
               "3 ranks, more than the "
               "job's 2 GPUs");
        Expect(dir + "/none", 2, "none.0.et: no such file");
        Expect(WriteTraces(dir, {allReduce, allReduce.substr(0, allReduce.size() - 3)}),
               2,
               "t.1.et: node 0 at byte 1: truncated");
        Expect(WriteTraces(dir, {allReduce, std::string("\x05\xff\xff\xff\xff\xff", 6)}),
               2,
               "t.1.et: node 0 at byte 1: corrupt");
        const std::string unknown =
            EncodeNode(4, coll, {}, {{"comm_type", 42}, {"comm_size", 1048576}});
        Expect(WriteTraces(dir, {allReduce, unknown}),
               2,
               "t.1.et: node 4 (): unknown collective "
               "type comm_type 42");
        const std::string noSize = EncodeNode(0, coll, {}, {{"comm_type", 0}});
        Expect(WriteTraces(dir, {allReduce, noSize}), 2, "t.1.et: node 0 (): no comm_size");
        const std::string compute = EncodeNode(1, 4, {9}, {});
        Expect(WriteTraces(dir, {allReduce + compute, allReduce}),
               2,
               "rank 0 node 1 depends on node 9, which rank 0 does not have");
        const std::string cycle = EncodeNode(1, 4, {2}, {}) + EncodeNode(2, 4, {1}, {});
        Expect(WriteTraces(dir, {allReduce + cycle, allReduce}),
               2,
               "can never start: a dependency cycle");
        // A collective not modelled keeps its place in the graph, and is counted.
        const std::string gather = EncodeNode(0, coll, {}, {{"comm_type", 3}, {"comm_size", 64}});
        WorkloadGraph graph = Expect(WriteTraces(dir, {gather, gather}), 2, "");
        NS_TEST_EXPECT_MSG_EQ(graph.unmodelled["GATHER"], 2, "counted by name");
        NS_TEST_EXPECT_MSG_EQ(graph.nodes[0][0].kind, WorkloadNode::NOOP, "kept as a node");
        std::filesystem::remove_all(dir);
    }
};

/**
 * Chakra traces replayed on an idle fabric, one GPU per server: the AllReduce and
 * AllGather microbenchmarks take exactly the time of the same collective run
 * directly (the module's ring; AllGather of S = 8 MiB), and the MSCCL ring, a chain
 * per rank of 14 messages of 128 KiB and 7 computes of 7 us, takes 14 message times
 * plus 49 us: each step waits for the slowest of the 8 simultaneous messages
 * (measured alone, t_max) and is never faster than the fastest (t_min), so
 * 14 t_min + 49 us <= T <= 14 t_max + 49 us, within 2%.
 */
template <typename FabricHelper>
class ChakraReplayTestCase : public TestCase
{
  public:
    /// \param fabric its name, for the test's
    explicit ChakraReplayTestCase(const std::string& fabric)
        : TestCase("Chakra traces replayed take the collectives' and messages' times, " + fabric)
    {
    }

  private:
    /// \param prefix traces \return the replay's iteration time on 8 one-GPU servers
    Time Replay(const std::string& prefix)
    {
        GpuCluster<FabricHelper> f(OneGpuServers());
        WorkloadGraph graph;
        const std::string problem = ChakraTraceReader::Read(prefix, 8, "", graph);
        NS_TEST_EXPECT_MSG_EQ(problem, "", prefix << " reads");
        if (!problem.empty())
        {
            return Time(0);
        }
        ReplayHelper replay;
        ApplicationContainer apps =
            replay.Install(std::make_shared<const WorkloadGraph>(std::move(graph)),
                           f.FirstGpus(8),
                           f.collectives);
        Simulator::Run();
        Ptr<ReplayApplication> app = DynamicCast<ReplayApplication>(apps.Get(0));
        NS_TEST_EXPECT_MSG_EQ(app->GetIterationsDone(), 1, "completed");
        return app->GetIterationsDone() == 1 ? app->GetIterationTimes()[0] : Time(0);
    }

    /// \param collective a collective \param bytes S \return its time, run directly
    Time RunDirectly(const std::string& collective, uint64_t bytes)
    {
        GpuCluster<FabricHelper> f(OneGpuServers());
        return f.Run(f.FirstGpus(8), collective, bytes).GetDuration();
    }

    /// \param src a GPU \param dst another \return a 128 KiB message's time between them
    Time Message(uint32_t src, uint32_t dst)
    {
        GpuCluster<FabricHelper> f(OneGpuServers());
        Ptr<Communicator> comm = f.FirstGpus(8);
        Time arrived;
        comm->Send(src,
                   dst,
                   131072,
                   0,
                   MakeBoundCallback(&ChakraReplayTestCase::Arrived, &arrived));
        Simulator::Run();
        return arrived;
    }

    /// \param at set to now
    static void Arrived(Time* at)
    {
        *at = Simulator::Now();
    }

    /// Replay the samples and compare.
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(Replay(ChakraSample("all_reduce/8npus_1MB/all_reduce")),
                              RunDirectly("AllReduce", 1048576),
                              "the AllReduce microbenchmark");
        NS_TEST_EXPECT_MSG_EQ(Replay(ChakraSample("all_gather/8npus_1MB/all_gather")),
                              RunDirectly("AllGather", 8 * 1048576),
                              "the AllGather microbenchmark");
        Time fastest = Time::Max();
        Time slowest;
        for (uint32_t r = 0; r < 8; ++r)
        {
            const Time t = Message(r, (r + 1) % 8);
            fastest = std::min(fastest, t);
            slowest = std::max(slowest, t);
        }
        const Time ring = Replay(ChakraSample("custom_ring_allreduce_8npus_1MB/custom_allreduce"));
        const Time compute = MicroSeconds(49);
        std::cout << GetName() << ": ring " << ring.As(Time::US) << ", messages "
                  << fastest.As(Time::US) << " to " << slowest.As(Time::US) << std::endl;
        NS_TEST_EXPECT_MSG_GT_OR_EQ(ring.GetSeconds() / (14 * fastest + compute).GetSeconds(),
                                    0.98,
                                    "no faster than 14 of the fastest messages");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(ring.GetSeconds() / (14 * slowest + compute).GetSeconds(),
                                    1.02,
                                    "no slower than 14 of the slowest");
    }
};

/**
 * A workload written as Chakra traces and read back replays as the original: SimAI's
 * MoE sample (as in SimAiModelWorkloadTestCase, at 1/1024 of its bytes) replayed
 * from the SimAI file and from the traces ChakraTraceWriter made of it takes the same
 * time to the femtosecond, with the same operations and bytes; the traces hold the
 * same nodes and edges plus one METADATA node per rank (the process groups).
 */
template <typename FabricHelper>
class ChakraRoundTripTestCase : public TestCase
{
  public:
    /// \param fabric its name, for the test's
    explicit ChakraRoundTripTestCase(const std::string& fabric)
        : TestCase("a workload written as Chakra traces replays the same when read back, " + fabric)
    {
    }

  private:
    /// What one replay gave.
    struct Outcome
    {
        Time iteration;         //!< the iteration's time
        uint64_t operations{0}; //!< over every kind of traffic
        uint64_t bytes{0};      //!< over every kind of traffic
    };

    /// \param graph a graph \return its replay on 32 GPUs in servers of 4
    Outcome Replay(WorkloadGraph graph)
    {
        ClusterDescription c = SmallCluster(4, 8, 4);
        c.gpusPerServer = 4;
        c.nicPlacement = "server";
        GpuCluster<FabricHelper> f(c);
        ReplayHelper replay;
        replay.SetAttribute("CommunicationScale", DoubleValue(1.0 / 1024));
        const auto shared = std::make_shared<const WorkloadGraph>(std::move(graph));
        ApplicationContainer apps = replay.Install(shared, f.FirstGpus(32), f.collectives);
        Simulator::Run();
        Ptr<ReplayApplication> app = DynamicCast<ReplayApplication>(apps.Get(0));
        Outcome outcome;
        NS_TEST_EXPECT_MSG_EQ(app->GetIterationsDone(), 1, "completed");
        if (app->GetIterationsDone() == 1)
        {
            outcome.iteration = app->GetIterationTimes()[0];
        }
        for (uint32_t k = 0; k < shared->trafficNames.size(); ++k)
        {
            outcome.operations += app->GetTrafficTotals(k).operations;
            outcome.bytes += app->GetTrafficTotals(k).bytes;
        }
        return outcome;
    }

    /// Write, read back, replay both.
    void DoRun() override
    {
        WorkloadGraph original;
        std::string problem =
            SimAiWorkloadReader::Read(SimAiSample("workload_ep_test.txt"), 32, original);
        NS_TEST_EXPECT_MSG_EQ(problem, "", "reads");
        const std::string prefix = CreateTempDirFilename("ep_test");
        problem = ChakraTraceWriter::Write(original, prefix);
        NS_TEST_EXPECT_MSG_EQ(problem, "", "writes");
        WorkloadGraph back;
        problem = ChakraTraceReader::Read(prefix, 32, "", back);
        NS_TEST_EXPECT_MSG_EQ(problem, "", "reads back");
        if (!problem.empty())
        {
            return;
        }
        NS_TEST_EXPECT_MSG_EQ(back.GetNodeCount(), original.GetNodeCount() + 32, "+ metadata");
        NS_TEST_EXPECT_MSG_EQ(back.GetEdgeCount(), original.GetEdgeCount(), "the same edges");
        NS_TEST_EXPECT_MSG_EQ(back.operations.size(), original.operations.size(), "collectives");
        NS_TEST_EXPECT_MSG_EQ(back.groups.size(), original.groups.size(), "groups");
        NS_TEST_EXPECT_MSG_EQ(back.unmodelled.size(), 0, "nothing left out");
        const Outcome a = Replay(std::move(original));
        const Outcome b = Replay(std::move(back));
        NS_TEST_EXPECT_MSG_EQ(b.iteration, a.iteration, "the same time");
        NS_TEST_EXPECT_MSG_EQ(b.operations, a.operations, "the same operations");
        NS_TEST_EXPECT_MSG_EQ(b.bytes, a.bytes, "the same bytes");
        for (uint32_t r = 0; r < 32; ++r)
        {
            std::filesystem::remove(prefix + "." + std::to_string(r) + ".et");
        }
    }
};

/**
 * Workloads built by this module, written as Chakra traces and replayed: each takes
 * the same time replayed from its traces as it took running, to the femtosecond.
 * The data-parallel job: 8 ranks, one GPU per server, 4 MiB of gradients in buckets
 * of 1 MiB overlapping a 40 us backward pass after a 20 us forward pass (per rank a
 * forward node then 4 x a backward share and a bucket's AllReduce: 9 nodes, 4
 * operations). The tensor-parallel group: 8 ranks, 2 layers of 2 blocks, 10 us
 * forward and 20 us backward, 256 KiB activations, sequence parallel (8 blocks of
 * a compute, a ReduceScatter and an AllGather: 24 nodes, 16 operations). The
 * pipeline and the MoE layer: below.
 */
template <typename FabricHelper>
class WorkloadRoundTripTestCase : public TestCase
{
  public:
    /// \param fabric its name, for the test's
    explicit WorkloadRoundTripTestCase(const std::string& fabric)
        : TestCase("the module's workloads written as Chakra traces replay as they ran, " + fabric)
    {
    }

  private:
    /**
     * Run a workload, write it, read it back, replay it and compare.
     * \param helper the workload \param nodes its nodes per rank \param operations
     *        its collective operations \param ranks its GPUs (0 .. ranks - 1)
     */
    void RoundTrip(const TrainingApplicationHelper& helper,
                   uint32_t nodes,
                   uint32_t operations,
                   uint32_t ranks = 8)
    {
        RoundTrip(
            [&](GpuCluster<FabricHelper>& f) {
                return helper.Install(f.FirstGpus(ranks), f.collectives);
            },
            ranks,
            nodes,
            operations);
    }

    /**
     * \param install installs the workload on the cluster's GPUs 0 .. ranks - 1
     * \param ranks its GPUs \param nodes its nodes per rank (0: not checked)
     * \param operations its collective operations (0: not checked)
     * \return per kind of traffic, by name: the replay's operations and bytes
     */
    std::map<std::string, std::pair<uint64_t, uint64_t>> RoundTrip(
        const std::function<ApplicationContainer(GpuCluster<FabricHelper>&)>& install,
        uint32_t ranks,
        uint32_t nodes,
        uint32_t operations)
    {
        std::map<std::string, std::pair<uint64_t, uint64_t>> traffic;
        const std::string prefix = CreateTempDirFilename("workload");
        Time ran;
        {
            GpuCluster<FabricHelper> f(OneGpuServers());
            ApplicationContainer apps = install(f);
            Simulator::Run();
            Ptr<TrainingApplication> app = DynamicCast<TrainingApplication>(apps.Get(0));
            NS_TEST_EXPECT_MSG_EQ(app->GetIterationsDone(), 1, "ran");
            ran = app->GetIterationTimes().at(0);
            WorkloadGraph graph;
            NS_TEST_EXPECT_MSG_EQ(app->DescribeIteration(graph), "", "describes itself");
            if (nodes > 0)
            {
                NS_TEST_EXPECT_MSG_EQ(graph.GetNodeCount(), ranks * nodes, "nodes per rank");
                NS_TEST_EXPECT_MSG_EQ(graph.operations.size(), operations, "operations");
            }
            NS_TEST_EXPECT_MSG_EQ(ChakraTraceWriter::Write(graph, prefix), "", "writes");
        }
        WorkloadGraph back;
        const std::string problem = ChakraTraceReader::Read(prefix, ranks, "", back);
        NS_TEST_EXPECT_MSG_EQ(problem, "", "reads back");
        if (!problem.empty())
        {
            return traffic;
        }
        GpuCluster<FabricHelper> f(OneGpuServers());
        ReplayHelper replay;
        ApplicationContainer apps =
            replay.Install(std::make_shared<const WorkloadGraph>(std::move(back)),
                           f.FirstGpus(ranks),
                           f.collectives);
        Simulator::Run();
        Ptr<ReplayApplication> app = DynamicCast<ReplayApplication>(apps.Get(0));
        NS_TEST_EXPECT_MSG_EQ(app->GetIterationsDone(), 1, "replayed");
        if (app->GetIterationsDone() == 1)
        {
            NS_TEST_EXPECT_MSG_EQ(app->GetIterationTimes()[0], ran, "the same time");
        }
        for (uint32_t r = 0; r < ranks; ++r)
        {
            std::filesystem::remove(prefix + "." + std::to_string(r) + ".et");
        }
        const WorkloadGraph& replayed = *app->GetGraph();
        for (uint32_t k = 0; k < replayed.trafficNames.size(); ++k)
        {
            traffic[replayed.trafficNames[k]] = {app->GetTrafficTotals(k).operations,
                                                 app->GetTrafficTotals(k).bytes};
        }
        return traffic;
    }

    /// The workloads.
    void DoRun() override
    {
        TrainingApplicationHelper dp("ns3::DataParallelApplication");
        dp.SetAttribute("GradientBytes", UintegerValue(4 << 20));
        dp.SetAttribute("BucketBytes", UintegerValue(1 << 20));
        dp.SetAttribute("ForwardTime", StringValue("ns3::ConstantRandomVariable[Constant=2e-5]"));
        dp.SetAttribute("BackwardTime", StringValue("ns3::ConstantRandomVariable[Constant=4e-5]"));
        dp.SetAttribute("Iterations", UintegerValue(1));
        RoundTrip(dp, 9, 4);
        TrainingApplicationHelper tp("ns3::TensorParallelApplication");
        tp.SetAttribute("Layers", UintegerValue(2));
        tp.SetAttribute("ActivationBytes", UintegerValue(256 << 10));
        tp.SetAttribute("ForwardTime", TimeValue(MicroSeconds(10)));
        tp.SetAttribute("BackwardTime", TimeValue(MicroSeconds(20)));
        tp.SetAttribute("SequenceParallel", BooleanValue(true));
        tp.SetAttribute("Iterations", UintegerValue(1));
        RoundTrip(tp, 24, 16);
        // 4 stages of 8 microbatches, 1F1B: 16 passes per stage; the first and
        // last stages receive 8 inputs and send 8 outputs (32 nodes), the middle
        // ones 16 and 16 (48): 160 nodes, 40 per stage on average.
        TrainingApplicationHelper pp("ns3::PipelineParallelApplication");
        pp.SetAttribute("Stages", UintegerValue(4));
        pp.SetAttribute("Microbatches", UintegerValue(8));
        pp.SetAttribute("ActivationBytes", UintegerValue(512 << 10));
        pp.SetAttribute("ForwardTime", TimeValue(MicroSeconds(10)));
        pp.SetAttribute("BackwardTime", TimeValue(MicroSeconds(20)));
        pp.SetAttribute("Iterations", UintegerValue(1));
        RoundTrip(pp, 40, 0, 4);
        // A MoE layer of 16 experts on 8 ranks, 64 tokens per rank to 2 experts each
        // under a skewed gate: per rank a dispatch AlltoAllv, an expert compute and a
        // combine AlltoAllv (3 nodes, 2 operations), the first iteration's routing.
        TrainingApplicationHelper ep("ns3::ExpertParallelApplication");
        ep.SetAttribute("Experts", UintegerValue(16));
        ep.SetAttribute("TokensPerRank", UintegerValue(64));
        ep.SetAttribute("BytesPerToken", UintegerValue(8192));
        ep.SetAttribute("ComputeTimePerToken", TimeValue(NanoSeconds(150)));
        ep.SetAttribute("Gating", StringValue("ns3::ZipfGating[Exponent=1.2]"));
        ep.SetAttribute("Iterations", UintegerValue(1));
        RoundTrip(ep, 3, 2);
        // The combined job on all 16 GPUs: tp 2 x pp 2 x dp 4, ep 2, a model of 4
        // layers every second of which is MoE (8 experts, top 2) under a skewed gate,
        // sequence parallel, 3 microbatches 1F1B, buckets of 1 MiB under the last
        // backward pass. Per kind of traffic the replay moves what the job moved, in
        // as many operations. (On the Ethernet Clos ECMP hashes each queue pair, and
        // the replay's queue pairs are its own communicators', not the job's: the
        // time is the same on this cluster, but doc/ai-fabric.rst gives a job whose
        // replay ECMP routes otherwise.)
        Ptr<TrainingJobApplication> job;
        const auto traffic = RoundTrip(
            [&job](GpuCluster<FabricHelper>& f) {
                Ptr<TransformerModel> model = TransformerModel::CreatePreset("custom");
                model->SetAttribute("Layers", UintegerValue(4));
                model->SetAttribute("Hidden", UintegerValue(256));
                model->SetAttribute("FfnHidden", UintegerValue(1024));
                model->SetAttribute("Vocabulary", UintegerValue(1000));
                model->SetAttribute("SequenceLength", UintegerValue(256));
                model->SetAttribute("Experts", UintegerValue(8));
                model->SetAttribute("TopK", UintegerValue(2));
                model->SetAttribute("MoeLayerInterval", UintegerValue(2));
                TrainingJobHelper helper;
                helper.SetLayoutAttribute("TensorParallel", UintegerValue(2));
                helper.SetLayoutAttribute("PipelineParallel", UintegerValue(2));
                helper.SetLayoutAttribute("DataParallel", UintegerValue(4));
                helper.SetLayoutAttribute("ExpertParallel", UintegerValue(2));
                helper.SetAttribute("Model", PointerValue(model));
                helper.SetAttribute("Microbatches", UintegerValue(3));
                helper.SetAttribute("GpuFlopRate", DoubleValue(1e13));
                helper.SetAttribute("SequenceParallel", BooleanValue(true));
                helper.SetAttribute("BucketBytes", UintegerValue(1 << 20));
                helper.SetAttribute("Gating", StringValue("ns3::ZipfGating[Exponent=1.2]"));
                helper.SetAttribute("Iterations", UintegerValue(1));
                std::vector<uint32_t> gpus(16);
                std::iota(gpus.begin(), gpus.end(), 0);
                ApplicationContainer apps = helper.Install(gpus, f.collectives);
                job = DynamicCast<TrainingJobApplication>(apps.Get(0));
                job->AssignStreams(7);
                return apps;
            },
            16,
            0,
            0);
        const std::vector<std::pair<std::string, TrainingJobApplication::Traffic>> kinds{
            {"tp", TrainingJobApplication::TP_TRAFFIC},
            {"pp", TrainingJobApplication::PP_TRAFFIC},
            {"ep", TrainingJobApplication::EP_TRAFFIC},
            {"dp", TrainingJobApplication::DP_TRAFFIC}};
        for (const auto& [name, kind] : kinds)
        {
            const auto it = traffic.find(name);
            NS_TEST_EXPECT_MSG_EQ((it != traffic.end()), true, name << " replayed");
            if (it != traffic.end())
            {
                NS_TEST_EXPECT_MSG_EQ(it->second.first,
                                      job->GetOperationTimes(kind).GetCount(),
                                      name << " operations");
                NS_TEST_EXPECT_MSG_EQ(it->second.second, job->GetBytes(kind), name << " bytes");
                NS_TEST_EXPECT_MSG_GT(it->second.second, 0, name << " moved bytes");
            }
        }
    }
};

/// The suite.
class TraceReplayTestSuite : public TestSuite
{
  public:
    TraceReplayTestSuite()
        : TestSuite("ai-fabric-trace-replay", TestSuite::Type::UNIT)
    {
        AddTestCase(new SimAiSamplesTestCase);
        AddTestCase(new BadInputTestCase);
        AddTestCase(new ReplayedAllReduceTestCase<ScheduledFabricHelper>("scheduled"));
        AddTestCase(new ReplayedAllReduceTestCase<EthernetClosHelper>("ethernet"));
        AddTestCase(new SimAiModelWorkloadTestCase<ScheduledFabricHelper>("scheduled"));
        AddTestCase(new SimAiModelWorkloadTestCase<EthernetClosHelper>("ethernet"));
        if (ChakraTraceReader::IsAvailable())
        {
            AddTestCase(new ChakraSamplesTestCase);
            AddTestCase(new ChakraBadInputTestCase);
            AddTestCase(new ChakraReplayTestCase<ScheduledFabricHelper>("scheduled"));
            AddTestCase(new ChakraReplayTestCase<EthernetClosHelper>("ethernet"));
            AddTestCase(new ChakraRoundTripTestCase<ScheduledFabricHelper>("scheduled"));
            AddTestCase(new ChakraRoundTripTestCase<EthernetClosHelper>("ethernet"));
            AddTestCase(new WorkloadRoundTripTestCase<ScheduledFabricHelper>("scheduled"));
            AddTestCase(new WorkloadRoundTripTestCase<EthernetClosHelper>("ethernet"));
        }
    }
};

/// The suite's one instance.
static TraceReplayTestSuite g_traceReplayTestSuite;
