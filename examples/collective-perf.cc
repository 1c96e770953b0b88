/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The nccl-tests of this module: one collective on a communicator of every GPU, for
// sizes from --minBytes to --maxBytes multiplying by --stepFactor, on either fabric
// (--fabric=scheduled, the default, or ethernet).
//
// For each size, --warmupIterations operations and then --iterations timed ones run
// back to back (each starts when the previous one has finished, as in one CUDA
// stream); the time of a size is the timed iterations' span over their number, algbw
// = S / time and busbw = algbw x nccl-tests' factor of the collective, in GB/s (1e9
// bytes per second). The table has nccl-tests' layout (out-of-place columns only: a
// simulated collective moves the same bytes in place), then the average bus
// bandwidth; the same per size, with the bytes moved over the scale-up domain and
// over the NICs and the simulator's events, goes to JSON and CSV in --resultsDir.
//
// Each size is rounded down to a multiple of 4 x ranks bytes (one float per rank at
// least), so every rank's share of a ring is whole floats and no operation is empty
// (nccl-tests rounds AllGather and ReduceScatter sizes the same way); sizes that
// round to the previous one are skipped. A Barrier's size is that of each of its
// messages, not rounded; AlltoAllv runs a uniform matrix of S / ranks per pair.
//
//   ./collective-perf --op=AllReduce --minBytes=8 --maxBytes=16M --stepFactor=2
//   ./collective-perf --op=AllGather --algorithm=hierarchical --fabric=ethernet
//   ./collective-perf --algorithm=doubleBinaryTree --maxBytes=64M
//   ./collective-perf --leaves=8 --hostsPerLeaf=8 --spines=8 --minBytes=64M
//       --maxBytes=64M --iterations=1 --warmupIterations=0
//
// Sizes take nccl-tests' binary suffixes: 8, 64K, 1M, 1G (K = 1024). Every cluster
// field is an option (AddClusterToCommandLine), as are the fabric
// options of the other examples; any model attribute can be set as
// --ns3::<Type>::<Attribute>=<value>. Bad input is refused before anything is built,
// with a message naming the option and its value and exit status 1.

#include "fabric-example.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/command-line.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("CollectivePerf");

namespace
{

/// Bytes of one element (nccl-tests' float).
constexpr uint64_t ELEMENT_BYTES = sizeof(float);

/// Refusals and number parsing of this example's options.
const ExampleInput INPUT("collective-perf");

/**
 * Refuse bad input: print the reason and leave with exit status 1, before anything
 * has been built or run.
 * \param reason what is wrong, naming the option and its value
 */
[[noreturn]] void
Refuse(const std::string& reason)
{
    INPUT.Refuse(reason);
}

/**
 * Read a whole number (ExampleInput::ParseNumber).
 * \param option the option's name, for the message
 * \param text what was given
 * \param allowSuffix whether K/M/G/T are accepted
 * \return the number (refuses anything else, and values beyond 64 bits)
 */
uint64_t
ParseNumber(const std::string& option, const std::string& text, bool allowSuffix)
{
    return INPUT.ParseNumber(option, text, allowSuffix);
}

/**
 * \param name a collective or algorithm name as a user may write it
 * \return it in lower case without '_', '-' and "ns3::", so all_reduce, allreduce and
 *         AllReduce compare equal
 */
std::string
Normalize(std::string name)
{
    if (name.rfind("ns3::", 0) == 0)
    {
        name = name.substr(5);
    }
    std::string out;
    for (unsigned char c : name)
    {
        if (c != '_' && c != '-')
        {
            out += static_cast<char>(std::tolower(c));
        }
    }
    return out;
}

/// \param names some names \return them separated by ", "
std::string
Join(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& name : names)
    {
        out += (out.empty() ? "" : ", ") + name;
    }
    return out;
}

/**
 * \param algorithm an algorithm's TypeId name (ns3::DoubleBinaryTreeAllReduce)
 * \param collective its collective (AllReduce)
 * \return its short name (doubleBinaryTree): without ns3:: and the collective, with a
 *         lower-case first letter
 */
std::string
ShortName(const std::string& algorithm, const std::string& collective)
{
    std::string name = algorithm.rfind("ns3::", 0) == 0 ? algorithm.substr(5) : algorithm;
    if (name.size() > collective.size() &&
        name.compare(name.size() - collective.size(), collective.size(), collective) == 0)
    {
        name.resize(name.size() - collective.size());
    }
    name[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[0])));
    return name;
}

/**
 * \param helper the helper whose collectives are accepted
 * \param op --op as given
 * \return the collective's name as the helper knows it (refuses an unknown one)
 */
std::string
ResolveCollective(const CollectiveHelper& helper, const std::string& op)
{
    for (const auto& name : helper.GetCollectives())
    {
        if (Normalize(name) == Normalize(op))
        {
            return name;
        }
    }
    Refuse("--op=" + op + " is not a collective (" + Join(helper.GetCollectives()) + ")");
}

/**
 * \param collective a collective
 * \param algorithm --algorithm as given: a TypeId name (ns3::RingAllReduce), the
 *        name without ns3::, or the short name (ring, hierarchical)
 * \return the TypeId name of the algorithm (refuses one that does not implement the
 *         collective)
 */
std::string
ResolveAlgorithm(const std::string& collective, const std::string& algorithm)
{
    const auto algorithms = CollectiveHelper::GetAlgorithms(collective);
    std::vector<std::string> shortNames;
    for (const auto& name : algorithms)
    {
        if (Normalize(name) == Normalize(algorithm) ||
            Normalize(ShortName(name, collective)) == Normalize(algorithm))
        {
            return name;
        }
        shortNames.push_back(ShortName(name, collective));
    }
    Refuse("--algorithm=" + algorithm + " is not an algorithm of " + collective + " (" +
           Join(algorithms) + "; short names " + Join(shortNames) + ")");
}

/**
 * \param collective a collective
 * \return whether nccl-tests counts its elements per rank (the count column is the
 *         elements each rank contributes) rather than in the whole buffer
 */
bool
CountsPerRank(const std::string& collective)
{
    return collective == "ReduceScatter" || collective == "AllGather" || collective == "AlltoAll" ||
           collective == "AlltoAllv";
}

/// \param collective a collective \return nccl-tests' redop column: sum or none
std::string
ReductionOf(const std::string& collective)
{
    return collective == "AllReduce" || collective == "ReduceScatter" || collective == "Reduce"
               ? "sum"
               : "none";
}

/**
 * \param collective a collective \param ranks ranks
 * \return what its sizes are rounded down to a multiple of: one float per rank (4 x
 *         ranks bytes), or 1 byte for a Barrier, whose S is the size of each message
 */
uint64_t
GetSizeUnit(const std::string& collective, uint32_t ranks)
{
    return collective == "Barrier" ? 1 : ELEMENT_BYTES * ranks;
}

/**
 * \param minBytes first size \param maxBytes last size \param stepFactor multiplier
 * \param unit sizes are rounded down to a multiple of it, and are at least it
 * \return the sizes to run, without repeats
 */
std::vector<uint64_t>
GetSizes(uint64_t minBytes, uint64_t maxBytes, uint64_t stepFactor, uint64_t unit)
{
    std::vector<uint64_t> sizes;
    for (uint64_t size = minBytes; size <= maxBytes;)
    {
        const uint64_t rounded = std::max(unit, size / unit * unit);
        if (sizes.empty() || sizes.back() != rounded)
        {
            sizes.push_back(rounded);
        }
        if (size > maxBytes / stepFactor)
        {
            break;
        }
        size *= stepFactor;
    }
    return sizes;
}

/// RDMA loss recovery over every transport: what the NICs resent and gave up on.
struct RdmaRecovery
{
    uint64_t retransmittedPackets{0}; //!< data packets sent more than once
    uint64_t timeouts{0};             //!< retransmission timer expiries
    uint64_t qpFailures{0};           //!< queue pairs failed after the retry limit

    /// \param rdma the transports \return their counters summed
    static RdmaRecovery Of(const RdmaHelper& rdma)
    {
        RdmaRecovery sum;
        for (uint32_t r = 0; r < rdma.GetNRanks(); ++r)
        {
            const RdmaTransport::Stats& stats = rdma.GetTransport(r)->GetStats();
            sum.retransmittedPackets += stats.retransmittedPackets;
            sum.timeouts += stats.timeouts;
            sum.qpFailures += stats.qpFailures;
        }
        return sum;
    }

    /// \param earlier the counters at an earlier time \return the counts since then
    RdmaRecovery Since(const RdmaRecovery& earlier) const
    {
        return {retransmittedPackets - earlier.retransmittedPackets,
                timeouts - earlier.timeouts,
                qpFailures - earlier.qpFailures};
    }

    /// \return the counters as JSON
    nlohmann::json ToJson() const
    {
        return {{"retransmittedPackets", retransmittedPackets},
                {"timeouts", timeouts},
                {"qpFailures", qpFailures}};
    }

    /// \return the counters in words
    std::string Describe() const
    {
        return std::to_string(retransmittedPackets) + " packets retransmitted, " +
               std::to_string(timeouts) + " retransmission timeouts, " +
               std::to_string(qpFailures) + " queue pairs failed";
    }
};

/// What one size did: the timed iterations and the simulator's events.
struct SizeRun
{
    uint64_t bytes{0};                   //!< S
    std::vector<CollectiveResult> timed; //!< the timed iterations' results
    Time timedStart;                     //!< start of the first timed iteration
    Time timedEnd;                       //!< end of the last one
    uint64_t eventsAtStart{0};           //!< event count when its first operation started
    uint64_t events{0};                  //!< events from then until the next size started
    RdmaRecovery recoveryAtStart;        //!< RDMA counters when its first operation started
    RdmaRecovery recovery;               //!< RDMA counters from then until the next size
};

/**
 * Runs the sizes one after the other on one communicator, each with its warm-up and
 * timed iterations, every operation starting when the previous one has finished.
 */
class SizeSweep
{
  public:
    /**
     * \param helper creates the operations (algorithm and attributes set)
     * \param comm the communicator
     * \param collective the collective
     * \param sizes S of each size, in order
     * \param warmupIterations untimed operations per size
     * \param iterations timed operations per size (> 0)
     * \param rdma the transports, whose loss-recovery counters each size records
     */
    SizeSweep(const CollectiveHelper& helper,
              Ptr<Communicator> comm,
              const std::string& collective,
              const std::vector<uint64_t>& sizes,
              uint32_t warmupIterations,
              uint32_t iterations,
              const RdmaHelper& rdma)
        : m_helper(helper),
          m_rdma(rdma),
          m_comm(comm),
          m_collective(collective),
          m_warmupIterations(warmupIterations),
          m_iterations(iterations)
    {
        for (uint64_t bytes : sizes)
        {
            SizeRun run;
            run.bytes = bytes;
            m_runs.push_back(run);
        }
    }

    /// Schedule the first operation; a failure of the communicator (the RDMA
    /// transport gave up a message) ends the sweep and the run there.
    void Schedule()
    {
        m_comm->AddFailureCallback(MakeCallback(&SizeSweep::OnFailure, this));
        Simulator::ScheduleNow(&SizeSweep::StartNext, this);
    }

    /// \return why the sweep stopped before its end ("" if it did not)
    const std::string& GetFailure() const
    {
        return m_failure;
    }

    /// \return the sizes whose every operation finished, in order
    std::vector<SizeRun> GetCompletedRuns() const
    {
        return std::vector<SizeRun>(m_runs.begin(), m_runs.begin() + m_size);
    }

    /// After Simulator::Run(): give the last size the events run since it started.
    void CountTrailingEvents()
    {
        if (!m_runs.empty())
        {
            SizeRun& last = m_runs.back();
            last.events = Simulator::GetEventCount() - last.eventsAtStart;
            last.recovery = RdmaRecovery::Of(m_rdma).Since(last.recoveryAtStart);
        }
    }

    /// \return the sizes' runs
    const std::vector<SizeRun>& GetRuns() const
    {
        return m_runs;
    }

    /// \return whether every operation has finished
    bool IsComplete() const
    {
        return m_size == m_runs.size();
    }

  private:
    /// The communicator failed: nothing more can progress, the run ends.
    /// \param reason why
    void OnFailure(const std::string& reason)
    {
        if (m_failure.empty())
        {
            m_failure = reason;
            Simulator::Stop();
        }
    }

    /// Start the next operation of the current size.
    void StartNext()
    {
        SizeRun& run = m_runs[m_size];
        if (m_iteration == 0)
        {
            run.eventsAtStart = Simulator::GetEventCount();
            run.recoveryAtStart = RdmaRecovery::Of(m_rdma);
            if (m_size > 0)
            {
                SizeRun& previous = m_runs[m_size - 1];
                previous.events = run.eventsAtStart - previous.eventsAtStart;
                previous.recovery = run.recoveryAtStart.Since(previous.recoveryAtStart);
            }
        }
        if (m_iteration == m_warmupIterations)
        {
            run.timedStart = Simulator::Now();
        }
        Ptr<CollectiveOperation> op = m_helper.Create(m_collective);
        if (auto alltoallv = DynamicCast<PairwiseAlltoAllv>(op))
        {
            // nccl-tests' AlltoAll sizes: every rank sends S/n to every rank.
            const uint32_t n = m_comm->GetSize();
            alltoallv->SetMatrix(
                PairwiseAlltoAllv::Matrix(n, std::vector<uint64_t>(n, run.bytes / n)));
        }
        op->Start(m_comm, run.bytes, MakeCallback(&SizeSweep::OnDone, this));
    }

    /// An operation finished: record it and start the next one, if any.
    /// \param result its result
    void OnDone(const CollectiveResult& result)
    {
        SizeRun& run = m_runs[m_size];
        if (m_iteration >= m_warmupIterations)
        {
            run.timed.push_back(result);
        }
        if (++m_iteration == m_warmupIterations + m_iterations)
        {
            run.timedEnd = Simulator::Now();
            m_iteration = 0;
            ++m_size;
        }
        if (m_size < m_runs.size())
        {
            // Not from inside the finishing operation's callback.
            Simulator::ScheduleNow(&SizeSweep::StartNext, this);
        }
    }

    const CollectiveHelper& m_helper; //!< creates the operations
    const RdmaHelper& m_rdma;         //!< the transports
    Ptr<Communicator> m_comm;         //!< the communicator
    std::string m_collective;         //!< the collective
    uint32_t m_warmupIterations;      //!< untimed operations per size
    uint32_t m_iterations;            //!< timed operations per size
    std::vector<SizeRun> m_runs;      //!< per size
    std::size_t m_size{0};            //!< the size running
    uint32_t m_iteration{0};          //!< the operation of that size running
    std::string m_failure;            //!< why the sweep stopped early ("" if it did not)
};

/// One row of the table, the CSV and the JSON.
struct SizeRow
{
    uint64_t bytes{0};          //!< S
    uint64_t count{0};          //!< elements, as nccl-tests counts them
    double timeUs{0};           //!< mean time per timed iteration
    double minTimeUs{0};        //!< fastest timed iteration
    double maxTimeUs{0};        //!< slowest timed iteration
    double algbw{0};            //!< GB/s
    double busbw{0};            //!< GB/s
    uint64_t bytesSent{0};      //!< one operation, all ranks, both domains
    uint64_t bytesReceived{0};  //!< one operation, all ranks, both domains
    uint64_t scaleUpBytes{0};   //!< one operation, all ranks, over the scale-up domain
    uint64_t nicBytes{0};       //!< one operation, all ranks, over the NICs
    uint64_t steps{0};          //!< one operation: messages posted (a chunk on one step)
    uint64_t events{0};         //!< simulator events of the size, warm-up included
    double eventsPerByte{0};    //!< events / bytes sent by every operation of the size
    double eventsPerNicByte{0}; //!< events / bytes sent over the NICs
};

/**
 * \param run a size's run
 * \param ranks ranks
 * \param countsPerRank whether the count column counts per rank
 * \param operations operations of the size, warm-up included
 * \return its row
 */
SizeRow
MakeRow(const SizeRun& run, uint32_t ranks, bool countsPerRank, uint32_t operations)
{
    SizeRow row;
    row.bytes = run.bytes;
    row.count = run.bytes / ELEMENT_BYTES / (countsPerRank ? ranks : 1);
    const double seconds = (run.timedEnd - run.timedStart).GetSeconds() / run.timed.size();
    row.timeUs = seconds * 1e6;
    row.minTimeUs = std::numeric_limits<double>::max();
    for (const auto& result : run.timed)
    {
        const double us = result.GetDuration().GetSeconds() * 1e6;
        row.minTimeUs = std::min(row.minTimeUs, us);
        row.maxTimeUs = std::max(row.maxTimeUs, us);
    }
    const CollectiveResult& first = run.timed.front();
    row.algbw = seconds > 0 ? run.bytes / seconds / 1e9 : 0;
    row.busbw = row.algbw * first.busBandwidthFactor;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        row.bytesSent += first.bytesSent[r];
        row.bytesReceived += first.bytesReceived[r];
        row.scaleUpBytes += first.scaleUpBytesSent[r];
    }
    row.nicBytes = row.bytesSent - row.scaleUpBytes;
    row.steps = first.steps;
    row.events = run.events;
    row.eventsPerByte = row.bytesSent ? double(run.events) / (row.bytesSent * operations) : 0;
    row.eventsPerNicByte = row.nicBytes ? double(run.events) / (row.nicBytes * operations) : 0;
    return row;
}

/// \param us a time in microseconds \return it as nccl-tests prints it (7 wide)
std::string
FormatTime(double us)
{
    char text[32];
    std::snprintf(text, sizeof(text), us >= 10000 ? "%7.0f" : us >= 100 ? "%7.1f" : "%7.2f", us);
    return text;
}

} // namespace

int
main(int argc, char* argv[])
{
    RunRecord::Begin(argc, argv);
    // Two servers of 8 GPUs, rail-optimised: rail g is leaf g, with one NIC of each
    // server; 400 Gb/s NICs and fabric links, twice as many spine links as hosts.
    ClusterDescription cluster;
    cluster.leaves = 8;
    cluster.hostsPerLeaf = 2;
    cluster.spines = 4;
    FabricExampleOptions options;
    std::string op = "AllReduce";
    std::string algorithm;
    std::string minBytesText = "8";
    std::string maxBytesText = "16M";
    std::string stepFactorText = "2";
    std::string iterationsText = "5";
    std::string warmupIterationsText = "1";
    const auto builtinChannels =
        FabricExampleOptions::Default<uint32_t>(CollectiveOperation::GetTypeId(), "Channels");
    const auto builtinChunkSize =
        FabricExampleOptions::Default<uint64_t>(CollectiveOperation::GetTypeId(), "ChunkSize");
    std::string channelsText = std::to_string(builtinChannels);
    std::string chunkSizeText = std::to_string(builtinChunkSize);
    DataRate reductionRate(0);
    std::string rootText = "0";
    std::string congestionControl = "auto";
    std::string resultsDir = "results/collective-perf";

    CommandLine cmd(__FILE__);
    AddClusterToCommandLine(cmd, cluster);
    AddCheckedValue(cmd,
                    "op",
                    "the collective: AllReduce, ReduceScatter, AllGather, Broadcast, Reduce, "
                    "SendRecv, AlltoAll, AlltoAllv, Barrier, or any other the CollectiveHelper "
                    "knows (nccl-tests' all_reduce spelling works too)",
                    op);
    AddCheckedValue(cmd,
                    "algorithm",
                    "its algorithm: a TypeId name (ns3::RingAllReduce) or a short name, the "
                    "TypeId without ns3:: and the collective (ring, hierarchical, "
                    "doubleBinaryTree, halvingDoubling); empty: the CollectiveHelper's default",
                    algorithm);
    AddCheckedValue(cmd,
                    "minBytes",
                    "first size S (nccl-tests -b; K, M, G suffixes)",
                    minBytesText);
    AddCheckedValue(cmd, "maxBytes", "last size S (nccl-tests -e)", maxBytesText);
    AddCheckedValue(cmd,
                    "stepFactor",
                    "each size is the previous one times this (nccl-tests -f)",
                    stepFactorText);
    AddCheckedValue(cmd, "iterations", "timed operations per size (nccl-tests -n)", iterationsText);
    AddCheckedValue(cmd,
                    "warmupIterations",
                    "untimed operations per size before them (nccl-tests -w)",
                    warmupIterationsText);
    AddCheckedValue(cmd,
                    "channels",
                    "parallel channels (connections) of each operation, 1..64 (the "
                    "CollectiveOperation::Channels attribute)",
                    channelsText);
    AddCheckedValue(cmd,
                    "chunkSize",
                    "largest message posted at once, bytes (CollectiveOperation::ChunkSize; "
                    "K, M, G suffixes)",
                    chunkSizeText);
    AddCheckedValue(
        cmd,
        "reductionRate",
        "rate of the GPU reduction kernel (0: free; CollectiveOperation::ReductionRate)",
        reductionRate);
    AddCheckedValue(cmd,
                    "root",
                    "root rank of rooted collectives (Broadcast, Reduce: nccl-tests -r); "
                    "ignored by the others",
                    rootText);
    AddCheckedValue(cmd,
                    "congestionControl",
                    "RDMA congestion control: None, Dcqcn, or auto (None on the scheduled "
                    "fabric, Dcqcn on the Ethernet Clos)",
                    congestionControl);
    options.AddToCommandLine(cmd);
    AddCheckedValue(cmd,
                    "resultsDir",
                    "folder of the JSON and CSV results, <algorithm>-<fabric>.json and .csv "
                    "(--json overrides the JSON file)",
                    resultsDir);
    cmd.Parse(argc, argv);

    // Refuse bad input before anything is built.
    const uint64_t minBytes = ParseNumber("minBytes", minBytesText, true);
    const uint64_t maxBytes = ParseNumber("maxBytes", maxBytesText, true);
    const uint64_t stepFactor = ParseNumber("stepFactor", stepFactorText, false);
    const uint64_t iterations = ParseNumber("iterations", iterationsText, false);
    const uint64_t warmupIterations = ParseNumber("warmupIterations", warmupIterationsText, false);
    const uint64_t channels = ParseNumber("channels", channelsText, false);
    const uint64_t chunkSize = ParseNumber("chunkSize", chunkSizeText, true);
    const uint64_t root = ParseNumber("root", rootText, false);
    if (minBytes == 0)
    {
        Refuse("--minBytes=" + minBytesText + " must be at least 1");
    }
    if (maxBytes < minBytes)
    {
        Refuse("--maxBytes=" + maxBytesText + " is below --minBytes=" + minBytesText);
    }
    if (stepFactor < 2)
    {
        Refuse("--stepFactor=" + stepFactorText + " must be at least 2");
    }
    if (iterations == 0 || iterations > std::numeric_limits<uint32_t>::max())
    {
        Refuse("--iterations=" + iterationsText + " must be in 1.." +
               std::to_string(std::numeric_limits<uint32_t>::max()));
    }
    if (warmupIterations > std::numeric_limits<uint32_t>::max())
    {
        Refuse("--warmupIterations=" + warmupIterationsText + " is too large");
    }
    if (channels == 0 || channels > Communicator::MAX_CHANNELS)
    {
        Refuse("--channels=" + channelsText + " must be in 1.." +
               std::to_string(Communicator::MAX_CHANNELS));
    }
    if (chunkSize == 0)
    {
        Refuse("--chunkSize=" + chunkSizeText + " must be at least 1");
    }
    for (const std::string& problem : {options.FindProblem(),
                                       cluster.FindProblem(),
                                       cluster.FindServerProblem(),
                                       FindRdmaLinkProblem(cluster)})
    {
        if (!problem.empty())
        {
            Refuse(problem);
        }
    }
    const uint32_t ranks = cluster.GetHosts();
    if (ranks < 2)
    {
        // One rank has nothing to exchange: every collective would take no time.
        Refuse("--leaves=" + std::to_string(cluster.leaves) + " x --hostsPerLeaf=" +
               std::to_string(cluster.hostsPerLeaf) + " is " + std::to_string(ranks) +
               " GPU: a collective needs a communicator of at least 2 ranks");
    }

    CollectiveHelper collectives;
    const std::string collective = ResolveCollective(collectives, op);
    if (!algorithm.empty())
    {
        collectives.SetAlgorithm(collective, ResolveAlgorithm(collective, algorithm));
    }
    const std::string algorithmName = collectives.GetAlgorithm(collective);
    if (channels != builtinChannels)
    {
        collectives.SetAlgorithmAttribute(collective, "Channels", UintegerValue(channels));
    }
    if (chunkSize != builtinChunkSize)
    {
        collectives.SetAlgorithmAttribute(collective, "ChunkSize", UintegerValue(chunkSize));
    }
    if (reductionRate.GetBitRate() != 0)
    {
        collectives.SetAlgorithmAttribute(collective,
                                          "ReductionRate",
                                          DataRateValue(reductionRate));
    }
    TypeId::AttributeInformation rootInfo;
    const bool rooted =
        TypeId::LookupByName(algorithmName).LookupAttributeByName("Root", &rootInfo);
    if (rooted)
    {
        if (root >= ranks)
        {
            Refuse("--root=" + rootText + " is not a rank (the communicator has " +
                   std::to_string(ranks) + " ranks)");
        }
        collectives.SetAlgorithmAttribute(collective, "Root", UintegerValue(root));
    }
    // The values the operations will have (a --ns3:: default may have set them).
    UintegerValue effectiveChannels;
    UintegerValue effectiveChunkSize;
    {
        Ptr<CollectiveOperation> probe = collectives.Create(collective);
        probe->GetAttribute("Channels", effectiveChannels);
        probe->GetAttribute("ChunkSize", effectiveChunkSize);
    }
    if (effectiveChannels.Get() == 0 || effectiveChannels.Get() > Communicator::MAX_CHANNELS)
    {
        Refuse(algorithmName + "::Channels=" + std::to_string(effectiveChannels.Get()) +
               " must be in 1.." + std::to_string(Communicator::MAX_CHANNELS));
    }
    if (effectiveChunkSize.Get() == 0)
    {
        Refuse(algorithmName + "::ChunkSize=0 must be at least 1");
    }
    TypeId congestionControlType;
    const std::string ccProblem =
        options.ResolveCongestionControl(congestionControl, &congestionControlType);
    if (!ccProblem.empty())
    {
        Refuse(ccProblem);
    }
    const std::string resultsName =
        algorithmName.substr(algorithmName.rfind(':') + 1) + "-" + options.fabric;
    std::error_code error;
    std::filesystem::create_directories(resultsDir, error);
    if (error || !std::filesystem::is_directory(resultsDir))
    {
        Refuse("--resultsDir=" + resultsDir + " cannot be created: " + error.message());
    }
    if (options.json.empty())
    {
        options.json = (std::filesystem::path(resultsDir) / (resultsName + ".json")).string();
    }
    const std::string csvPath =
        (std::filesystem::path(resultsDir) / (resultsName + ".csv")).string();
    const uint64_t sizeUnit = GetSizeUnit(collective, ranks);
    const std::vector<uint64_t> sizes = GetSizes(minBytes, maxBytes, stepFactor, sizeUnit);

    // Build: the fabric, RDMA on every NIC, the servers and a world communicator.
    const auto fabricHelper = options.Install(cluster);
    ClusterFabricHelper& fabric = *fabricHelper;
    RdmaHelper rdma;
    rdma.SetTransportAttribute("CongestionControl", TypeIdValue(congestionControlType));
    rdma.Install(fabric.GetHostDevices());
    collectives.Install(cluster, rdma);
    Ptr<Communicator> world = collectives.CreateWorldCommunicator();
    UintegerValue rootValue;
    if (rooted)
    {
        collectives.Create(collective)->GetAttribute("Root", rootValue);
    }
    const int64_t rootColumn = rooted ? int64_t(rootValue.Get()) : -1;

    // nccl-tests' header, with the cluster in place of the devices.
    std::printf("# collective-perf %s (%s) on the %s fabric: nRanks %u minBytes %" PRIu64
                " maxBytes %" PRIu64 " step: %" PRIu64 "(factor) warmup iters: %" PRIu64
                " iters: %" PRIu64 " channels: %" PRIu64 " chunkSize: %" PRIu64 " validation: 0\n",
                collective.c_str(),
                algorithmName.c_str(),
                options.fabric.c_str(),
                ranks,
                minBytes,
                maxBytes,
                stepFactor,
                warmupIterations,
                iterations,
                effectiveChannels.Get(),
                effectiveChunkSize.Get());
    std::printf("# %s\n#\n# Using devices\n", cluster.ToString().c_str());
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        const uint32_t host = cluster.GetHostOfGpu(rank);
        std::printf("#  Rank %2u Server %3u GPU %2u NIC host %4u leaf %3u\n",
                    rank,
                    cluster.GetServerOfRank(rank),
                    cluster.GetLocalGpu(rank),
                    host,
                    cluster.GetLeafOfHost(host));
    }
    if (sizeUnit > 1)
    {
        std::printf("#\n# Sizes are rounded down to a multiple of 4 x %u ranks = %" PRIu64
                    " B (one float per rank at least).\n",
                    ranks,
                    sizeUnit);
    }
    else
    {
        std::printf("#\n# Sizes are the size of each message of the %s.\n", collective.c_str());
    }
    if (collective == "AlltoAllv")
    {
        std::printf("# AlltoAllv runs a uniform matrix, S / %u bytes from every rank to "
                    "every rank (what AlltoAll moves).\n",
                    ranks);
    }
    std::printf("# In-place is not modeled (a simulated collective moves the same bytes), "
                "so only out-of-place columns are shown.\n");
    std::printf("# %10s  %12s  %8s  %6s  %6s           out-of-place\n", "", "", "", "", "");
    std::printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s\n",
                "size",
                "count",
                "type",
                "redop",
                "root",
                "time",
                "algbw",
                "busbw",
                "#wrong");
    std::printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s\n",
                "(B)",
                "(elements)",
                "",
                "",
                "",
                "(us)",
                "(GB/s)",
                "(GB/s)",
                "");
    std::fflush(stdout);

    SizeSweep sweep(collectives,
                    world,
                    collective,
                    sizes,
                    static_cast<uint32_t>(warmupIterations),
                    static_cast<uint32_t>(iterations),
                    rdma);
    sweep.Schedule();
    Simulator::Run();
    const bool completed = sweep.IsComplete();
    NS_ABORT_MSG_UNLESS(completed || !sweep.GetFailure().empty(),
                        "collective-perf: the operations did not all finish");
    sweep.CountTrailingEvents();
    if (!completed)
    {
        std::printf("# The run ended at %.3f ms without completing (nothing more could "
                    "progress): %s; %s\n# Sizes that did not finish are left out.\n",
                    Simulator::Now().GetSeconds() * 1e3,
                    sweep.GetFailure().c_str(),
                    RdmaHelper::DescribeFailures(rdma.GetTotals()).c_str());
    }

    const std::string reduction = ReductionOf(collective);
    const bool countsPerRank = CountsPerRank(collective);
    const auto operations = static_cast<uint32_t>(warmupIterations + iterations);
    std::ofstream csv(csvPath);
    csv << "size,count,type,redop,root,time_us,min_time_us,max_time_us,algbw_GBps,busbw_GBps,"
           "bytes_sent,bytes_received,scale_up_bytes,nic_bytes,steps,events,events_per_byte,"
           "events_per_nic_byte\n";
    nlohmann::json rows = nlohmann::json::array();
    double busbwSum = 0;
    uint64_t bytesSent = 0;
    uint64_t nicBytes = 0;
    uint64_t steps = 0;
    const std::vector<SizeRun> finished = sweep.GetCompletedRuns();
    for (const SizeRun& run : finished)
    {
        const SizeRow row = MakeRow(run, ranks, countsPerRank, operations);
        std::printf("%12" PRIu64 "  %12" PRIu64 "  %8s  %6s  %6" PRId64
                    "  %7s  %6.2f  %6.2f  %5s\n",
                    row.bytes,
                    row.count,
                    "float",
                    reduction.c_str(),
                    rootColumn,
                    FormatTime(row.timeUs).c_str(),
                    row.algbw,
                    row.busbw,
                    "N/A");
        busbwSum += row.busbw;
        bytesSent += row.bytesSent * operations;
        nicBytes += row.nicBytes * operations;
        steps += row.steps * operations;
        csv << row.bytes << "," << row.count << ",float," << reduction << "," << rootColumn << ","
            << row.timeUs << "," << row.minTimeUs << "," << row.maxTimeUs << "," << row.algbw << ","
            << row.busbw << "," << row.bytesSent << "," << row.bytesReceived << ","
            << row.scaleUpBytes << "," << row.nicBytes << "," << row.steps << "," << row.events
            << "," << row.eventsPerByte << "," << row.eventsPerNicByte << "\n";
        rows.push_back({{"size", row.bytes},
                        {"count", row.count},
                        {"timeUs", row.timeUs},
                        {"minTimeUs", row.minTimeUs},
                        {"maxTimeUs", row.maxTimeUs},
                        {"algbwGBps", row.algbw},
                        {"busbwGBps", row.busbw},
                        {"bytesSent", row.bytesSent},
                        {"bytesReceived", row.bytesReceived},
                        {"scaleUpBytes", row.scaleUpBytes},
                        {"nicBytes", row.nicBytes},
                        {"steps", row.steps},
                        {"events", row.events},
                        {"eventsPerByte", row.eventsPerByte},
                        {"eventsPerNicByte", row.eventsPerNicByte},
                        {"rdma", run.recovery.ToJson()}});
    }
    const double averageBusbw = finished.empty() ? 0 : busbwSum / finished.size();
    const uint64_t events = Simulator::GetEventCount();
    std::printf("# Out of bounds values : N/A (data are not modeled)\n");
    std::printf("# Avg bus bandwidth    : %g\n#\n", averageBusbw);
    std::printf("# %" PRIu64 " events for %" PRIu64 " bytes sent (%g per byte), %" PRIu64
                " of them over the NICs (%g events per NIC byte), in %" PRIu64
                " messages of the collectives (%g events per message)\n",
                events,
                bytesSent,
                bytesSent ? double(events) / bytesSent : 0.0,
                nicBytes,
                nicBytes ? double(events) / nicBytes : 0.0,
                steps,
                steps ? double(events) / steps : 0.0);
    std::printf("# RDMA loss recovery: %s\n", RdmaRecovery::Of(rdma).Describe().c_str());
    std::fflush(stdout);
    csv.close();
    std::cout << "  per-size results in " << csvPath << std::endl;

    nlohmann::json configuration = {
        {"op", collective},
        {"algorithm", algorithmName},
        {"ranks", ranks},
        {"minBytes", minBytes},
        {"maxBytes", maxBytes},
        {"stepFactor", stepFactor},
        {"iterations", iterations},
        {"warmupIterations", warmupIterations},
        {"channels", effectiveChannels.Get()},
        {"chunkSize", effectiveChunkSize.Get()},
        {"reductionRateBps", reductionRate.GetBitRate()},
        {"root", rootColumn},
        {"congestionControl", congestionControl},
        {"elementBytes", ELEMENT_BYTES},
        {"sizeUnitBytes", sizeUnit},
        {"sizeRounding", "down to a multiple of sizeUnitBytes, at least that"},
        {"gpusPerServer", cluster.gpusPerServer},
        {"nicPlacement", cluster.nicPlacement},
        {"leaves", cluster.leaves},
        {"hostsPerLeaf", cluster.hostsPerLeaf},
        {"spines", cluster.spines},
        {"linksPerLeafSpine", cluster.linksPerLeafSpine},
        {"hostLinkRateBps", cluster.hostLinkRate.GetBitRate()},
        {"fabricLinkRateBps", cluster.fabricLinkRate.GetBitRate()},
        {"hostLinkDelayNs", cluster.hostLinkDelay.GetNanoSeconds()},
        {"fabricLinkDelayNs", cluster.fabricLinkDelay.GetNanoSeconds()},
    };
    nlohmann::json results = {
        {"scenario", "collective-perf"},
        {"configuration", configuration},
        {"sizes", rows},
        {"avgBusBandwidthGBps", averageBusbw},
        {"bytesSent", bytesSent},
        {"nicBytesSent", nicBytes},
        {"messages", steps},
        {"eventsPerByte", bytesSent ? double(events) / bytesSent : 0.0},
        {"eventsPerNicByte", nicBytes ? double(events) / nicBytes : 0.0},
        {"completed", completed},
    };
    if (!completed)
    {
        results["failure"] = sweep.GetFailure();
    }
    AddRdmaTotals(rdma.GetTotals(), results);
    options.Report(fabric, results);
    Simulator::Destroy();
    return completed ? 0 : 1;
}
