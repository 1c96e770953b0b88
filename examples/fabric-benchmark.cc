/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The speed and scale of the simulator itself, not of a fabric: how many packets,
// cells and simulator events one wall-second buys, and how much memory a run
// takes, for named scenarios at a range of cluster sizes on each fabric.
//
// Scenarios (every host is one GPU's NIC; G GPUs form sqrt(G) leaves of sqrt(G)
// hosts and sqrt(G) spines, so G must be a square: 16, 64, 256, 1024, 4096):
//   permutation  every host sends UDP at line rate to the host hostsPerLeaf on
//                (every flow crosses the fabric) for --simTime
//   incast       groups of 16 hosts spread over the leaves, 15 senders to 1
//                receiver in each, UDP at line rate for --simTime
//   allreduce    one ring AllReduce of --collectiveBytes per rank over RDMA, one
//                GPU per server (every step crosses the NIC), run to completion
// Fabrics: scheduled, trains (the scheduled fabric with the cells that reach a
// link's far end within --trainWindow of each other delivered in one event, see
// CellNetDevice::TrainWindow), ethernet (ECMP, PFC, DCQCN for RDMA) and vanilla: ns-3's
// own PointToPoint leaf-spine of the same shape, Internet stack, global routing
// with ECMP (per packet, RandomEcmpRouting), OnOff UDP senders at the same
// offered load and no queue disc (UDP scenarios only; up to --vanillaUpTo GPUs,
// as global routing's set-up grows fast with the node count).
//
// Each run is a child process of this program (so that its peak resident memory
// is its own); the program also measures, in the same invocation, the raw event
// rate of the ns-3 scheduler in use (a chain of no-op events), so every figure
// can be read as a ratio that holds across machines. It prints a table and
// writes every figure as JSON (--json); for each scenario and fabric run at two or
// more sizes, it fits how wall time, events and peak memory grow (y ~ GPUs^k).
//
//   ./fabric-benchmark
//   ./fabric-benchmark --scenarios=permutation,allreduce --gpus=16,64,256,1024
//   ./fabric-benchmark --SchedulerType=ns3::HeapScheduler

#include "fabric-example.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <boost/math/statistics/linear_regression.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"

#include <mpi.h>
#endif

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FabricBenchmark");

namespace
{

/// UDP packets of the UDP scenarios: IPv4 packet bytes, and their UDP payload.
constexpr uint32_t IPV4_PACKET_BYTES = 4096;
constexpr uint32_t UDP_PAYLOAD_BYTES = IPV4_PACKET_BYTES - 20 - 8;
/// Hosts per incast group (one receiver, the others senders).
constexpr uint32_t INCAST_GROUP = 16;

/// The parameters every run shares, as read from the command line.
struct BenchmarkParameters
{
    DataRate rate{"100Gbps"};           //!< every link's rate
    Time simTime{MilliSeconds(3)};      //!< how long the UDP scenarios send
    uint64_t collectiveBytes{0};        //!< per rank: AllReduce S, or bytes the AlltoAllv sends
    uint32_t partitions{1};             //!< MPI processes of this run (UDP scenarios only)
    Time trainWindow{NanoSeconds(100)}; //!< CellNetDevice::TrainWindow of the trains fabric
};

/// What one run measured.
struct RunFigures
{
    uint64_t payloadBytes{0};               //!< application payload delivered
    uint64_t packets{0};                    //!< packets delivered (UDP) or RDMA data packets sent
    uint64_t cells{0};                      //!< data cells (scheduled fabric only)
    uint64_t events{0};                     //!< simulator events executed
    double setupSeconds{0};                 //!< wall time to build the simulation
    double runSeconds{0};                   //!< wall time of Simulator::Run
    Time simulated;                         //!< simulated time the run covered
    std::vector<uint64_t> deliveredPerHost; //!< UDP packets each host received
    std::vector<uint64_t> arrivalDigestPerHost; //!< DeliveryCounter::arrivalDigest of each host
};

/// \return seconds since an arbitrary start, from a steady clock
double
WallSeconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// \param gpus GPUs (hosts) \param rate link rate \return the cluster of that size
ClusterDescription
MakeCluster(uint32_t gpus, DataRate rate)
{
    const auto side = static_cast<uint32_t>(std::lround(std::sqrt(double(gpus))));
    ClusterDescription cluster;
    cluster.leaves = side;
    cluster.hostsPerLeaf = side;
    cluster.spines = side;
    cluster.hostPortsPerLeaf = side;
    cluster.fabricPortsPerLeaf = side;
    cluster.hostLinkRate = rate;
    cluster.fabricLinkRate = rate;
    cluster.gpusPerServer = 1; // every ring step crosses the NIC
    cluster.nicPlacement = "server";
    return cluster;
}

/// \param cluster a cluster \return each host's UDP destination in the permutation
std::vector<uint32_t>
PermutationDestinations(const ClusterDescription& cluster)
{
    const uint32_t hosts = cluster.GetHosts();
    std::vector<uint32_t> dst(hosts);
    for (uint32_t h = 0; h < hosts; ++h)
    {
        dst[h] = (h + cluster.hostsPerLeaf) % hosts;
    }
    return dst;
}

/**
 * \param cluster a cluster
 * \return each host's UDP destination in the incast (hosts.size() for a receiver):
 *         group g holds hosts g, g + G/16, g + 2G/16, ...; its first host receives
 */
std::vector<uint32_t>
IncastDestinations(const ClusterDescription& cluster)
{
    const uint32_t hosts = cluster.GetHosts();
    const uint32_t groups = std::max(1u, hosts / INCAST_GROUP);
    std::vector<uint32_t> dst(hosts, hosts);
    for (uint32_t h = groups; h < hosts; ++h)
    {
        dst[h] = h % groups;
    }
    return dst;
}

/// Packets and bytes a host's NIC hands up.
struct DeliveryCounter
{
    uint64_t packets{0}; //!< packets received
    uint64_t bytes{0};   //!< their IPv4 bytes
    /// FNV-1a hash of the arrival times (ns) in arrival order: two runs that agree
    /// on it delivered to this host at the same instants
    uint64_t arrivalDigest{0xcbf29ce484222325ULL};

    /// Receive callback of a host NIC: count. \return true
    bool Receive(Ptr<NetDevice>, Ptr<const Packet> packet, uint16_t, const Address&)
    {
        ++packets;
        bytes += packet->GetSize();
        arrivalDigest = (arrivalDigest ^ Simulator::Now().GetNanoSeconds()) * 0x100000001b3ULL;
        return true;
    }
};

/**
 * \param fabric a fabric's name
 * \return whether its UDP scenarios run over MPI processes: not vanilla (ns-3's
 *         own models, the comparator), not trains (a train is a direct link's
 *         delivery; between processes every cell goes as its own message)
 */
bool
RunsDistributed(const std::string& fabric)
{
    return fabric == "ethernet" || fabric == "scheduled";
}

/// \param fabric the fabric after a run \param figures completed with its cell count
void
AddCells(const ClusterFabricHelper& fabric, RunFigures* figures)
{
    if (const auto* scheduled = dynamic_cast<const ScheduledFabricHelper*>(&fabric))
    {
        figures->cells = scheduled->GetTotals().dataCells;
    }
}

/**
 * \param name scheduled, trains or ethernet \param parameters the shared parameters
 * \return that fabric's helper, with defaults
 */
std::unique_ptr<ClusterFabricHelper>
MakeFabric(const std::string& name, const BenchmarkParameters& parameters)
{
    if (name == "scheduled" || name == "trains")
    {
        auto scheduled = std::make_unique<ScheduledFabricHelper>();
        if (name == "trains")
        {
            scheduled->SetFabricDeviceAttribute("TrainWindow", TimeValue(parameters.trainWindow));
        }
        return scheduled;
    }
    return std::make_unique<EthernetClosHelper>();
}

/**
 * Run the simulation that has been built and time it.
 * \param setupStart when building it started (WallSeconds)
 * \return the set-up and run wall times, the events executed and the simulated
 *         time reached
 */
RunFigures
RunTimed(double setupStart)
{
    RunFigures figures;
    figures.setupSeconds = WallSeconds() - setupStart;
    const double runStart = WallSeconds();
    Simulator::Run();
    figures.runSeconds = WallSeconds() - runStart;
    figures.events = Simulator::GetEventCount();
    figures.simulated = Simulator::Now();
    return figures;
}

/**
 * Combine the figures of the processes of a distributed run: deliveries, events
 * and cells (each counted where it was sent) summed, wall times the slowest
 * process's (only under MPI).
 * \param figures this process's figures; the whole run's on return
 */
void
SumOverProcesses(RunFigures* figures)
{
#ifdef NS3_MPI
    for (std::vector<uint64_t>* perHost :
         {&figures->deliveredPerHost, &figures->arrivalDigestPerHost})
    {
        std::vector<uint64_t> sum(perHost->size());
        MPI_Allreduce(perHost->data(),
                      sum.data(),
                      static_cast<int>(sum.size()),
                      MPI_UINT64_T,
                      MPI_SUM,
                      MPI_COMM_WORLD);
        *perHost = sum;
    }
    for (uint64_t* count : {&figures->events, &figures->cells})
    {
        uint64_t sum = 0;
        MPI_Allreduce(count, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        *count = sum;
    }
    double seconds[2] = {figures->setupSeconds, figures->runSeconds};
    double slowest[2] = {0, 0};
    MPI_Allreduce(seconds, slowest, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    figures->setupSeconds = slowest[0];
    figures->runSeconds = slowest[1];
#else
    NS_ABORT_MSG("fabric-benchmark: " << figures->deliveredPerHost.size()
                                      << " hosts over processes need ns-3 built with MPI");
#endif
}

/**
 * UDP at line rate from every host with a destination, on an ai-fabric fabric.
 * \param fabricName scheduled, trains or ethernet \param cluster the cluster
 * \param dst each host's destination (GetHosts() for none)
 * \param parameters the shared parameters
 * \return what the run measured
 */
RunFigures
RunUdp(const std::string& fabricName,
       const ClusterDescription& cluster,
       const std::vector<uint32_t>& dst,
       const BenchmarkParameters& parameters)
{
    const double setupStart = WallSeconds();
    auto fabric = MakeFabric(fabricName, parameters);
    fabric->SetPartitions(parameters.partitions);
    fabric->Install(cluster);
    int64_t stream = 1 + fabric->AssignStreams(1);
    const uint32_t hosts = cluster.GetHosts();
    std::vector<DeliveryCounter> counters(hosts);
    std::vector<Ptr<UdpLineRateSource>> sources;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        // In a distributed run each process drives and counts its own hosts only;
        // every source keeps the random stream it has in a sequential run.
        const int64_t sourceStream = dst[h] == hosts ? stream : stream++;
        if (!fabric->IsLocalHost(h))
        {
            continue;
        }
        fabric->GetHostDevice(h)->SetReceiveCallback(
            MakeCallback(&DeliveryCounter::Receive, &counters[h]));
        if (dst[h] == hosts)
        {
            continue;
        }
        auto source = CreateObject<UdpLineRateSource>();
        source->SetAttribute("PacketSize", UintegerValue(IPV4_PACKET_BYTES));
        source->AssignStreams(sourceStream);
        source->Setup(fabric->GetHostDevice(h), cluster.GetHostAddress(dst[h]));
        source->Start(Time(0));
        source->Stop(parameters.simTime);
        sources.push_back(source);
    }
    Simulator::Stop(parameters.simTime);
    RunFigures figures = RunTimed(setupStart);
    for (uint32_t h = 0; h < hosts; ++h)
    {
        // A host another process runs counts 0 here: the sums over processes are
        // then the owner's figures.
        const bool local = fabric->IsLocalHost(h);
        figures.deliveredPerHost.push_back(local ? counters[h].packets : 0);
        figures.arrivalDigestPerHost.push_back(local ? counters[h].arrivalDigest : 0);
    }
    AddCells(*fabric, &figures);
    if (parameters.partitions > 1)
    {
        SumOverProcesses(&figures);
    }
    for (uint64_t packets : figures.deliveredPerHost)
    {
        figures.packets += packets;
    }
    figures.payloadBytes = figures.packets * UDP_PAYLOAD_BYTES;
    Simulator::Destroy();
    return figures;
}

/**
 * The same UDP traffic on ns-3's own models: PointToPoint links of the cluster's
 * shape, Internet stack, global routing with per-packet ECMP, OnOff senders at
 * the line rate and PacketSinks, no queue disc.
 * \param cluster the cluster \param dst each host's destination (GetHosts() for none)
 * \param parameters the shared parameters
 * \return what the run measured
 */
RunFigures
RunVanillaUdp(const ClusterDescription& cluster,
              const std::vector<uint32_t>& dst,
              const BenchmarkParameters& parameters)
{
    const double setupStart = WallSeconds();
    Config::SetDefault("ns3::Ipv4GlobalRouting::RandomEcmpRouting", BooleanValue(true));
    NodeContainer hosts;
    NodeContainer leaves;
    NodeContainer spines;
    hosts.Create(cluster.GetHosts());
    leaves.Create(cluster.leaves);
    spines.Create(cluster.spines);
    InternetStackHelper internet;
    internet.Install(hosts);
    internet.Install(leaves);
    internet.Install(spines);
    PointToPointHelper link;
    link.SetDeviceAttribute("DataRate", DataRateValue(cluster.hostLinkRate));
    link.SetDeviceAttribute("Mtu", UintegerValue(IPV4_PACKET_BYTES));
    link.SetChannelAttribute("Delay", TimeValue(cluster.hostLinkDelay));
    Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.252");
    TrafficControlHelper noQueueDisc;
    std::vector<Ipv4Address> hostAddress(cluster.GetHosts());
    const auto connect = [&](Ptr<Node> a, Ptr<Node> b) {
        NetDeviceContainer devices = link.Install(a, b);
        Ipv4InterfaceContainer interfaces = addresses.Assign(devices);
        addresses.NewNetwork();
        noQueueDisc.Uninstall(devices);
        return interfaces.GetAddress(0);
    };
    for (uint32_t h = 0; h < cluster.GetHosts(); ++h)
    {
        hostAddress[h] = connect(hosts.Get(h), leaves.Get(cluster.GetLeafOfHost(h)));
    }
    link.SetDeviceAttribute("DataRate", DataRateValue(cluster.fabricLinkRate));
    link.SetChannelAttribute("Delay", TimeValue(cluster.fabricLinkDelay));
    for (uint32_t l = 0; l < cluster.leaves; ++l)
    {
        for (uint32_t s = 0; s < cluster.spines; ++s)
        {
            connect(leaves.Get(l), spines.Get(s));
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const uint16_t port = 9;
    PacketSinkHelper sinkHelper("ns3::UdpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinks = sinkHelper.Install(hosts);
    // OnOff's rate counts UDP payload; the wire carries it with 28 B of IPv4 and
    // UDP headers and 2 B of PPP: payload x (rate / wire bytes) fills the link.
    const double payloadRate =
        double(cluster.hostLinkRate.GetBitRate()) * UDP_PAYLOAD_BYTES / (IPV4_PACKET_BYTES + 2);
    for (uint32_t h = 0; h < cluster.GetHosts(); ++h)
    {
        if (dst[h] == cluster.GetHosts())
        {
            continue;
        }
        OnOffHelper onOff("ns3::UdpSocketFactory", InetSocketAddress(hostAddress[dst[h]], port));
        onOff.SetConstantRate(DataRate(static_cast<uint64_t>(payloadRate)), UDP_PAYLOAD_BYTES);
        ApplicationContainer app = onOff.Install(hosts.Get(h));
        app.Start(NanoSeconds(h)); // apart by a nanosecond, as the UDP sources' jitter
        app.Stop(parameters.simTime);
    }
    Simulator::Stop(parameters.simTime);
    RunFigures figures = RunTimed(setupStart);
    for (uint32_t h = 0; h < cluster.GetHosts(); ++h)
    {
        figures.payloadBytes += DynamicCast<PacketSink>(sinks.Get(h))->GetTotalRx();
    }
    figures.packets = figures.payloadBytes / UDP_PAYLOAD_BYTES;
    Simulator::Destroy();
    return figures;
}

/**
 * The AlltoAllv matrix of one Mixture-of-Experts layer: one expert per rank,
 * MOE_TOKENS tokens per rank, each routed to its top 2 experts by a Zipf gate
 * (exponent 1: the most popular expert draws about 1/H(n) of the tokens), so
 * the matrix is uneven as a real router's is.
 * \param ranks n \param bytesPerRank what each rank sends in all (tokens x 2 x
 *        bytes per token) \return the matrix, row = source, column = destination
 */
PairwiseAlltoAllv::Matrix
MoeMatrix(uint32_t ranks, uint64_t bytesPerRank)
{
    constexpr uint32_t MOE_TOKENS = 1024;
    constexpr uint32_t TOP_K = 2;
    const uint64_t bytesPerToken = std::max<uint64_t>(1, bytesPerRank / (MOE_TOKENS * TOP_K));
    Ptr<ExpertGating> gate = ExpertGating::CreateFromSpec("ns3::ZipfGating", "fabric-benchmark");
    gate->Setup(ranks);
    auto rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(3);
    gate->DrawIteration(rng);
    PairwiseAlltoAllv::Matrix matrix(ranks, std::vector<uint64_t>(ranks, 0));
    std::vector<uint32_t> experts;
    for (uint32_t source = 0; source < ranks; ++source)
    {
        for (uint32_t token = 0; token < MOE_TOKENS; ++token)
        {
            gate->Route(rng, std::min(TOP_K, ranks), experts);
            for (uint32_t expert : experts)
            {
                matrix[source][expert] += bytesPerToken;
            }
        }
    }
    return matrix;
}

/**
 * Keep a collective's result and stop the simulation (timers of the transport
 * would otherwise keep it running).
 * \param out set to the result \param finished set to true \param result the result
 */
void
RecordCollective(CollectiveResult* out, bool* finished, const CollectiveResult& result)
{
    *out = result;
    *finished = true;
    Simulator::Stop();
}

/**
 * Keep why the communicator failed and stop the simulation: nothing more can
 * progress.
 * \param out set to the reason \param reason why the communicator failed
 */
void
RecordFailure(std::string* out, const std::string& reason)
{
    *out = reason;
    Simulator::Stop();
}

/**
 * One collective over RDMA, to completion: a ring AllReduce of
 * --collectiveBytes per rank, or a Mixture-of-Experts AlltoAllv (MoeMatrix) of
 * that many bytes sent per rank.
 * \param scenario allreduce or moe \param fabricName scheduled, trains or ethernet
 * \param cluster the cluster \param parameters the shared parameters
 * \return what the run measured
 */
RunFigures
RunCollective(const std::string& scenario,
              const std::string& fabricName,
              const ClusterDescription& cluster,
              const BenchmarkParameters& parameters)
{
    const double setupStart = WallSeconds();
    auto fabric = MakeFabric(fabricName, parameters);
    fabric->Install(cluster);
    RdmaHelper rdma;
    if (fabricName == "ethernet")
    {
        rdma.SetTransportAttribute("CongestionControl",
                                   TypeIdValue(DcqcnCongestionControl::GetTypeId()));
    }
    rdma.Install(fabric->GetHostDevices());
    CollectiveHelper collectives;
    collectives.Install(cluster, rdma);
    Ptr<Communicator> world = collectives.CreateWorldCommunicator();
    CollectiveResult result;
    bool done = false;
    const auto record = MakeBoundCallback(&RecordCollective, &result, &done);
    std::string failure;
    world->AddFailureCallback(MakeBoundCallback(&RecordFailure, &failure));
    if (scenario == "moe")
    {
        Ptr<CollectiveOperation> op = collectives.Create("AlltoAllv");
        auto alltoallv = DynamicCast<PairwiseAlltoAllv>(op);
        alltoallv->SetMatrix(MoeMatrix(cluster.GetHosts(), parameters.collectiveBytes));
        op->Start(world, alltoallv->GetMatrixBytes(), record);
    }
    else
    {
        collectives.Start(world, "AllReduce", parameters.collectiveBytes, record);
    }
    RunFigures figures = RunTimed(setupStart);
    NS_ABORT_MSG_UNLESS(done,
                        "fabric-benchmark: the " << scenario << " did not complete"
                                                 << (failure.empty() ? "" : ": " + failure));
    figures.simulated = result.GetDuration();
    for (uint64_t bytes : result.bytesSent)
    {
        figures.payloadBytes += bytes;
    }
    for (uint32_t h = 0; h < cluster.GetHosts(); ++h)
    {
        figures.packets += rdma.GetTransport(h)->GetStats().dataPacketsSent;
    }
    AddCells(*fabric, &figures);
    Simulator::Destroy();
    return figures;
}

/// \param left events still to schedule; each event schedules the next
void
NoOpChain(uint64_t* left)
{
    if (--*left > 0)
    {
        Simulator::Schedule(NanoSeconds(1), &NoOpChain, left);
    }
}

/// \param count events in the chain \return events per wall-second of the scheduler in use
double
MeasureRawEventRate(uint64_t count)
{
    uint64_t left = count;
    Simulator::Schedule(NanoSeconds(1), &NoOpChain, &left);
    const double start = WallSeconds();
    Simulator::Run();
    const double seconds = WallSeconds() - start;
    const uint64_t events = Simulator::GetEventCount();
    Simulator::Destroy();
    return events / seconds;
}

/// One run of the table: scenario, fabric, GPUs.
struct RunSpec
{
    std::string scenario;  //!< permutation, incast, allreduce or moe
    std::string fabric;    //!< scheduled, ethernet or vanilla
    uint32_t gpus{0};      //!< GPUs (hosts)
    uint32_t processes{1}; //!< MPI processes (more than 1: a distributed run)
};

/**
 * Run one scenario in a child process (this program with --run; under mpiexec for a
 * distributed run) and read its figures and its peak resident memory.
 * \param self this program's path \param arguments the command line, passed on
 * \param mpiexec the MPI launcher of a distributed run
 * \param spec the run \param peakKilobytes set to the child's peak resident memory
 *        (of its largest process, for a distributed run)
 * \return the child's figures (JSON), or null if it failed
 */
nlohmann::json
RunChild(const std::string& self,
         const std::vector<std::string>& arguments,
         const std::string& mpiexec,
         const RunSpec& spec,
         long* peakKilobytes)
{
    std::vector<std::string> args;
    if (spec.processes > 1)
    {
        args = {mpiexec, "-n", std::to_string(spec.processes)};
    }
    args.push_back(self);
    args.insert(args.end(), arguments.begin(), arguments.end());
    args.push_back("--run=" + spec.scenario + ":" + spec.fabric + ":" + std::to_string(spec.gpus));
    args.push_back("--partitions=" + std::to_string(spec.processes));
    std::vector<char*> argv;
    for (auto& arg : args)
    {
        argv.push_back(arg.data());
    }
    argv.push_back(nullptr);
    int pipeEnds[2];
    NS_ABORT_MSG_IF(pipe(pipeEnds) != 0, "fabric-benchmark: pipe failed");
    const pid_t child = fork();
    NS_ABORT_MSG_IF(child < 0, "fabric-benchmark: fork failed");
    if (child == 0)
    {
        dup2(pipeEnds[1], STDOUT_FILENO);
        close(pipeEnds[0]);
        close(pipeEnds[1]);
        if (spec.processes > 1)
        {
            // Open MPI refuses to start as root, or more processes than cores,
            // unless told (other MPIs ignore these); a user's own settings win.
            setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
            setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
            setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 0);
        }
        execvp(args.front().c_str(), argv.data());
        _exit(127);
    }
    close(pipeEnds[1]);
    std::string output;
    char buffer[4096];
    for (ssize_t n; (n = read(pipeEnds[0], buffer, sizeof(buffer))) > 0;)
    {
        output.append(buffer, n);
    }
    close(pipeEnds[0]);
    int status = 0;
    struct rusage usage;
    wait4(child, &status, 0, &usage);
    *peakKilobytes = usage.ru_maxrss;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    {
        return nullptr;
    }
    const std::size_t line = output.rfind("\n{");
    nlohmann::json figures =
        nlohmann::json::parse(output.substr(line == std::string::npos ? 0 : line + 1));
    if (figures.contains("peakResidentKilobytes"))
    {
        *peakKilobytes = figures["peakResidentKilobytes"];
    }
    return figures;
}

/// \param text a comma-separated list \return its items
std::vector<std::string>
SplitList(const std::string& text)
{
    std::vector<std::string> items;
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');)
    {
        items.push_back(item);
    }
    if (text.empty() || text.back() == ',')
    {
        items.push_back("");
    }
    return items;
}

/// \param program a program name (looked up on PATH) or path \return whether it can be run
bool
IsExecutableOnPath(const std::string& program)
{
    if (program.find('/') != std::string::npos)
    {
        return access(program.c_str(), X_OK) == 0;
    }
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');)
    {
        if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0)
        {
            return true;
        }
    }
    return false;
}

/// \param processes MPI processes of a run \return "" for 1, else " on N processes"
std::string
ProcessesLabel(uint32_t processes)
{
    return processes > 1 ? " on " + std::to_string(processes) + " processes" : "";
}

/**
 * How a figure grows with the cluster: the exponent k of y = a x^k, fitted by least
 * squares on log scales.
 * \param x the cluster sizes (or bytes) \param y the figure at each
 * \return k
 */
double
GrowthExponent(const std::vector<double>& x, const std::vector<double>& y)
{
    std::vector<double> logX;
    std::vector<double> logY;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        logX.push_back(std::log(x[i]));
        logY.push_back(std::log(y[i]));
    }
    return boost::math::statistics::simple_ordinary_least_squares(logX, logY).second;
}

/**
 * For each scenario and fabric run at two or more sizes, print and return how wall
 * time, events and peak memory grow with GPUs, and wall time with the payload
 * delivered (GPUs x bytes).
 * \param rows the runs' figures
 * \return one JSON object per scenario and fabric
 */
nlohmann::json
FitGrowth(const nlohmann::json& rows)
{
    std::map<std::string, std::vector<const nlohmann::json*>> groups;
    for (const nlohmann::json& row : rows)
    {
        if (!row.contains("failed"))
        {
            groups[row["scenario"].get<std::string>() + " " + row["fabric"].get<std::string>() +
                   ProcessesLabel(row["processes"])]
                .push_back(&row);
        }
    }
    nlohmann::json growth = nlohmann::json::array();
    for (const auto& [name, group] : groups)
    {
        if (group.size() < 2)
        {
            continue;
        }
        std::vector<double> gpus;
        std::vector<double> payload;
        std::vector<double> wall;
        std::vector<double> events;
        std::vector<double> memory;
        for (const nlohmann::json* row : group)
        {
            gpus.push_back((*row)["gpus"].get<double>());
            payload.push_back((*row)["payloadBytes"].get<double>());
            wall.push_back((*row)["runSeconds"].get<double>());
            events.push_back((*row)["events"].get<double>());
            memory.push_back((*row)["peakResidentBytes"].get<double>());
        }
        const nlohmann::json fit{{"scenario", (*group.front())["scenario"]},
                                 {"fabric", (*group.front())["fabric"]},
                                 {"processes", (*group.front())["processes"]},
                                 {"gpus", gpus},
                                 {"wallTimeExponentInGpus", GrowthExponent(gpus, wall)},
                                 {"wallTimeExponentInPayload", GrowthExponent(payload, wall)},
                                 {"eventsExponentInGpus", GrowthExponent(gpus, events)},
                                 {"peakMemoryExponentInGpus", GrowthExponent(gpus, memory)}};
        std::printf("growth %s, %g to %g GPUs: wall time ~ GPUs^%.2f (~ payload^%.2f), "
                    "events ~ GPUs^%.2f, peak memory ~ GPUs^%.2f\n",
                    name.c_str(),
                    *std::min_element(gpus.begin(), gpus.end()),
                    *std::max_element(gpus.begin(), gpus.end()),
                    fit["wallTimeExponentInGpus"].get<double>(),
                    fit["wallTimeExponentInPayload"].get<double>(),
                    fit["eventsExponentInGpus"].get<double>(),
                    fit["peakMemoryExponentInGpus"].get<double>());
        growth.push_back(fit);
    }
    return growth;
}

} // namespace

int
main(int argc, char* argv[])
{
    RunRecord::Begin(argc, argv);
    std::string scenariosText = "permutation,incast,allreduce,moe";
    std::string fabricsText = "scheduled,trains,ethernet,vanilla";
    std::string gpusText = "16";
    uint32_t vanillaUpTo = 256;
    std::string collectiveBytesText = "4M";
    uint64_t rawEvents = 2000000;
    BenchmarkParameters parameters;
    std::string json = "fabric-benchmark.json";
    std::string run;
    std::string processesText = "1";
    std::string mpiEngine = "granted";
    std::string mpiexec = "mpiexec";

    CommandLine cmd(__FILE__);
    AddCheckedValue(cmd,
                    "scenarios",
                    "comma-separated: permutation, incast, allreduce, moe",
                    scenariosText);
    AddCheckedValue(cmd,
                    "fabrics",
                    "comma-separated: scheduled, trains (scheduled, cells in trains of "
                    "--trainWindow), ethernet, vanilla (ns-3's PointToPoint and Internet "
                    "stack; UDP scenarios only)",
                    fabricsText);
    AddCheckedValue(cmd,
                    "trainWindow",
                    "the trains fabric's CellNetDevice::TrainWindow: cells that reach a "
                    "link's far end within it of the first are delivered in one event",
                    parameters.trainWindow);
    AddCheckedValue(cmd,
                    "gpus",
                    "comma-separated cluster sizes, each a square of at least 4 "
                    "(sqrt leaves x sqrt hosts, sqrt spines): 16,64,256,1024,4096",
                    gpusText);
    AddCheckedValue(cmd,
                    "vanillaUpTo",
                    "the largest cluster the vanilla ns-3 comparator runs on",
                    vanillaUpTo);
    AddCheckedValue(cmd, "rate", "every link's rate", parameters.rate);
    AddCheckedValue(cmd, "simTime", "simulated time of the UDP scenarios", parameters.simTime);
    AddCheckedValue(cmd,
                    "collectiveBytes",
                    "per rank: the AllReduce's size S, and what the MoE AlltoAllv sends (K, M, "
                    "G: powers of 1024)",
                    collectiveBytesText);
    AddCheckedValue(cmd,
                    "rawEvents",
                    "length of the no-op event chain that measures the raw event rate",
                    rawEvents);
    AddCheckedValue(cmd,
                    "processes",
                    "comma-separated MPI process counts: each UDP scenario on the ethernet "
                    "and scheduled fabrics also runs split over that many processes (needs "
                    "ns-3 built with MPI), compared with its sequential run",
                    processesText);
    AddCheckedValue(cmd,
                    "mpiEngine",
                    "ns-3's distributed simulator: granted (DistributedSimulatorImpl, granted "
                    "time windows) or nullmessage (NullMessageSimulatorImpl)",
                    mpiEngine);
    AddCheckedValue(cmd, "mpiexec", "the MPI launcher of the distributed runs", mpiexec);
    AddCheckedValue(cmd,
                    "partitions",
                    "internal: MPI processes of the --run (it runs under mpiexec)",
                    parameters.partitions);
    AddCheckedValue(cmd, "json", "JSON results file", json);
    AddCheckedValue(cmd,
                    "run",
                    "internal: run scenario:fabric:gpus in this process and print its "
                    "figures as JSON",
                    run);
    cmd.Parse(argc, argv);

    const ExampleInput input("fabric-benchmark");
    parameters.collectiveBytes =
        input.ParseNumberIn("collectiveBytes", collectiveBytesText, 1, uint64_t{1} << 40, true);
    if (parameters.simTime.IsZero())
    {
        input.Refuse("--simTime=0 must be positive");
    }
    if (parameters.rate.GetBitRate() == 0)
    {
        input.Refuse("--rate=0bps must be positive");
    }
    if (rawEvents == 0)
    {
        input.Refuse("--rawEvents=0 must be at least 1");
    }
    if (mpiEngine != "granted" && mpiEngine != "nullmessage")
    {
        input.Refuse("--mpiEngine=" + mpiEngine + " is not granted or nullmessage");
    }
    std::vector<uint32_t> processes;
    for (const std::string& item : SplitList(processesText))
    {
        const uint64_t count = input.ParseNumberIn("processes", item, 1, 1024, false);
#ifndef NS3_MPI
        if (count > 1)
        {
            input.Refuse("--processes=" + processesText + ": " + item +
                         " processes need ns-3 built with MPI (an ns-3 source tree "
                         "configured with --enable-mpi)");
        }
#endif
        processes.push_back(static_cast<uint32_t>(count));
    }
    // A launcher named on the command line, or one a distributed run needs, must exist.
    const bool distributedRuns =
        std::any_of(processes.begin(), processes.end(), [](uint32_t count) { return count > 1; });
    if ((distributedRuns || mpiexec != "mpiexec") && run.empty() && !IsExecutableOnPath(mpiexec))
    {
        input.Refuse("--mpiexec=" + mpiexec + " is not an executable program (on PATH or by path)");
    }
    std::vector<RunSpec> runs;
    std::vector<uint32_t> sizes;
    for (const std::string& item : SplitList(gpusText))
    {
        const uint64_t gpus = input.ParseNumber("gpus", item, false, gpusText);
        const auto side = static_cast<uint64_t>(std::lround(std::sqrt(double(gpus))));
        if (gpus < 4 || gpus > 65536 || side * side != gpus)
        {
            input.Refuse("--gpus=" + gpusText + ": " + item +
                         " is not a square of 4..65536 (16, 64, 256, 1024, 4096)");
        }
        sizes.push_back(static_cast<uint32_t>(gpus));
        for (uint32_t count : processes)
        {
            if (count > side)
            {
                input.Refuse("--processes=" + processesText + ": " + std::to_string(count) +
                             " is more than the " + std::to_string(side) + " leaves of " + item +
                             " GPUs");
            }
        }
    }
    const std::vector<std::string> scenarios = SplitList(scenariosText);
    const std::vector<std::string> fabrics = SplitList(fabricsText);
    for (const std::string& scenario : scenarios)
    {
        if (scenario != "permutation" && scenario != "incast" && scenario != "allreduce" &&
            scenario != "moe")
        {
            input.Refuse("--scenarios=" + scenariosText + ": " + scenario +
                         " is not a scenario (permutation, incast, allreduce or moe)");
        }
    }
    for (const std::string& fabric : fabrics)
    {
        if (fabric != "scheduled" && fabric != "trains" && fabric != "ethernet" &&
            fabric != "vanilla")
        {
            input.Refuse("--fabrics=" + fabricsText + ": " + fabric +
                         " is not a fabric (scheduled, trains, ethernet or vanilla)");
        }
    }
    if (!parameters.trainWindow.IsStrictlyPositive())
    {
        std::ostringstream value;
        value << parameters.trainWindow.As(Time::NS);
        input.Refuse("--trainWindow=" + value.str() + " must be positive");
    }
    if (!run.empty())
    {
        // One run in this process: scenario:fabric:gpus.
        const std::vector<std::string> fields = [&run] {
            std::vector<std::string> parts;
            std::stringstream text(run);
            for (std::string part; std::getline(text, part, ':');)
            {
                parts.push_back(part);
            }
            return parts;
        }();
        if (fields.size() != 3 ||
            std::find(scenarios.begin(), scenarios.end(), fields[0]) == scenarios.end() ||
            std::find(fabrics.begin(), fabrics.end(), fields[1]) == fabrics.end() ||
            ((fields[0] == "allreduce" || fields[0] == "moe") && fields[1] == "vanilla"))
        {
            input.Refuse("--run=" + run +
                         " is not scenario:fabric:gpus of --scenarios and --fabrics (no "
                         "collective on vanilla)");
        }
        const auto gpus = static_cast<uint32_t>(input.ParseNumber("run", fields[2], false, run));
        const ClusterDescription cluster = MakeCluster(gpus, parameters.rate);
        if (const std::string problem = cluster.FindProblem(); !problem.empty())
        {
            input.Refuse(problem);
        }
        if (parameters.partitions == 0)
        {
            input.Refuse("--partitions=0 must be at least 1");
        }
        const bool distributed = parameters.partitions > 1;
        if (distributed &&
            (!RunsDistributed(fields[1]) || fields[0] == "allreduce" || fields[0] == "moe"))
        {
            input.Refuse("--partitions=" + std::to_string(parameters.partitions) +
                         " with --run=" + run +
                         ": only the UDP scenarios on the ethernet and scheduled fabrics run "
                         "distributed");
        }
#ifdef NS3_MPI
        if (distributed)
        {
            GlobalValue::Bind("SimulatorImplementationType",
                              StringValue(mpiEngine == "granted"
                                              ? "ns3::DistributedSimulatorImpl"
                                              : "ns3::NullMessageSimulatorImpl"));
            MpiInterface::Enable(&argc, &argv);
        }
#endif
        RunFigures figures;
        if (fields[0] == "allreduce" || fields[0] == "moe")
        {
            figures = RunCollective(fields[0], fields[1], cluster, parameters);
        }
        else
        {
            const auto dst = fields[0] == "incast" ? IncastDestinations(cluster)
                                                   : PermutationDestinations(cluster);
            figures = fields[1] == "vanilla" ? RunVanillaUdp(cluster, dst, parameters)
                                             : RunUdp(fields[1], cluster, dst, parameters);
        }
        nlohmann::json out{{"payloadBytes", figures.payloadBytes},
                           {"packets", figures.packets},
                           {"cells", figures.cells},
                           {"events", figures.events},
                           {"setupSeconds", figures.setupSeconds},
                           {"runSeconds", figures.runSeconds},
                           {"simulatedSeconds", figures.simulated.GetSeconds()},
                           {"deliveredPerHost", figures.deliveredPerHost},
                           {"arrivalDigestPerHost", figures.arrivalDigestPerHost}};
        bool printer = true;
#ifdef NS3_MPI
        if (distributed)
        {
            // The largest process's peak memory; rank 0 speaks for the run.
            struct rusage usage;
            getrusage(RUSAGE_SELF, &usage);
            long peak = 0;
            MPI_Allreduce(&usage.ru_maxrss, &peak, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
            out["peakResidentKilobytes"] = peak;
            printer = MpiInterface::GetSystemId() == 0;
            MpiInterface::Disable();
        }
#endif
        if (printer)
        {
            std::cout << out.dump() << std::endl;
        }
        return 0;
    }
    if (const std::string problem = FindOutputPathProblem(json); !problem.empty())
    {
        input.Refuse("--json=" + json + problem);
    }

    for (const std::string& scenario : scenarios)
    {
        for (uint32_t gpus : sizes)
        {
            // Vanilla first, so that the others' rows can show their ratio to it.
            const bool vanilla =
                std::find(fabrics.begin(), fabrics.end(), "vanilla") != fabrics.end();
            const bool udp = scenario == "permutation" || scenario == "incast";
            if (vanilla && udp && gpus <= vanillaUpTo)
            {
                runs.push_back({scenario, "vanilla", gpus});
            }
            for (const std::string& fabric : fabrics)
            {
                if (fabric != "vanilla")
                {
                    runs.push_back({scenario, fabric, gpus});
                }
                // The sequential run above is what each distributed one is checked against.
                for (uint32_t count : processes)
                {
                    if (count > 1 && RunsDistributed(fabric) && udp)
                    {
                        runs.push_back({scenario, fabric, gpus, count});
                    }
                }
            }
        }
    }

    // The command line each child gets: this one's options (the --ns3:: and
    // global ones included), so that it runs with the same scheduler and defaults.
    std::vector<std::string> arguments(argv + 1, argv + argc);
    std::error_code error;
    const std::string self = std::filesystem::read_symlink("/proc/self/exe", error).string();
    if (error)
    {
        input.Refuse("cannot find this program's own path (/proc/self/exe): " + error.message());
    }
    const double rawRate = MeasureRawEventRate(rawEvents);
    std::cout << "fabric-benchmark: raw ns-3 event rate " << std::fixed << std::setprecision(2)
              << rawRate / 1e6 << " M events/s (" << rawEvents << " no-op events)" << std::endl;
    std::printf("%-11s %-9s %5s %3s %9s %10s %9s %9s %11s %7s %8s %7s %6s %9s %8s %8s %7s\n",
                "scenario",
                "fabric",
                "gpus",
                "np",
                "sim(us)",
                "payload",
                "packets",
                "cells",
                "events",
                "ev/pkt",
                "run(s)",
                "Mev/s",
                "%raw",
                "kpkt/s",
                "MB/s",
                "peakMB",
                "xvanil");
    nlohmann::json rows = nlohmann::json::array();
    std::map<std::string, double> vanillaRate; // scenario:gpus -> delivered packets/s
    // scenario:fabric:gpus -> the sequential run's figures
    std::map<std::string, nlohmann::json> sequential;
    std::vector<std::string> checks; // what each distributed run showed
    bool distributedDiffers = false;
    for (const RunSpec& spec : runs)
    {
        long peakKilobytes = 0;
        nlohmann::json figures = RunChild(self, arguments, mpiexec, spec, &peakKilobytes);
        const std::string name = spec.scenario + " " + spec.fabric + " " +
                                 std::to_string(spec.gpus) + " GPUs" +
                                 ProcessesLabel(spec.processes);
        if (figures.is_null())
        {
            std::cout << name << ": the run failed" << std::endl;
            rows.push_back({{"scenario", spec.scenario},
                            {"fabric", spec.fabric},
                            {"gpus", spec.gpus},
                            {"processes", spec.processes},
                            {"failed", true}});
            distributedDiffers = distributedDiffers || spec.processes > 1;
            continue;
        }
        const std::string runKey =
            spec.scenario + ":" + spec.fabric + ":" + std::to_string(spec.gpus);
        nlohmann::json comparison = nlohmann::json::object();
        if (spec.processes == 1)
        {
            sequential[runKey] = figures;
        }
        else if (sequential.count(runKey))
        {
            // On the Ethernet Clos, the same deliveries at the same instants, host
            // by host, as the run in one process. The scheduled fabric's cells tie
            // often (equal cells on equal links), and a process takes another's
            // messages in an order of its own at a tie, a different and equally
            // valid schedule (ai-fabric-cell-messages): there each host's
            // deliveries within 1% of the sequential run's.
            const bool exact = spec.fabric == "ethernet";
            uint32_t differing = 0;
            double worst = 0;
            const nlohmann::json& reference = sequential[runKey];
            for (std::size_t h = 0; h < reference["deliveredPerHost"].size(); ++h)
            {
                const double delivered = figures["deliveredPerHost"][h].get<double>();
                const double expected = reference["deliveredPerHost"][h].get<double>();
                const double difference =
                    delivered == expected ? 0 : std::abs(delivered - expected) / expected;
                worst = std::max(worst, difference);
                differing += exact
                                 ? delivered != expected || figures["arrivalDigestPerHost"][h] !=
                                                                reference["arrivalDigestPerHost"][h]
                                 : difference > 0.01;
            }
            const double speedup = sequential[runKey]["runSeconds"].get<double>() /
                                   figures["runSeconds"].get<double>();
            comparison = {{"speedupOverSequential", speedup},
                          {"hostsDifferingFromSequential", differing},
                          {"largestDeliveryDifference", worst},
                          {"eventsOfSequential", sequential[runKey]["events"]}};
            const std::string what =
                exact ? "per-host deliveries and arrival times " : "per-host deliveries ";
            const std::string agreement = exact ? "equal" : "within 1% of";
            const std::string disagreement = exact ? "DIFFER from" : "DIFFER by over 1% from";
            std::ostringstream line;
            line << "check: " << name << " (" << mpiEngine << "): " << what
                 << (differing == 0 ? agreement + " the sequential run's"
                                    : disagreement + " the sequential run's at " +
                                          std::to_string(differing) + " hosts");
            checks.push_back(line.str());
            distributedDiffers = distributedDiffers || differing > 0;
        }
        figures.erase("deliveredPerHost");
        figures.erase("arrivalDigestPerHost");
        const double runSeconds = figures["runSeconds"];
        const double events = figures["events"].get<double>();
        const double packets = figures["packets"].get<double>();
        const double payload = figures["payloadBytes"].get<double>();
        const double packetsPerSecond = packets / runSeconds;
        const std::string key = spec.scenario + ":" + std::to_string(spec.gpus);
        if (spec.fabric == "vanilla")
        {
            vanillaRate[key] = packetsPerSecond;
        }
        const double versusVanilla =
            vanillaRate.count(key) ? packetsPerSecond / vanillaRate[key] : 0.0;
        const double eventsPerPacket = packets ? events / packets : 0.0;
        std::printf("%-11s %-9s %5u %3u %9.1f %8.1fMB %9.0f %9.0f %11.0f %7.2f %8.3f %7.2f "
                    "%6.2f %9.1f %8.1f %8.1f %7s\n",
                    spec.scenario.c_str(),
                    spec.fabric.c_str(),
                    spec.gpus,
                    spec.processes,
                    figures["simulatedSeconds"].get<double>() * 1e6,
                    payload / 1e6,
                    packets,
                    figures["cells"].get<double>(),
                    events,
                    eventsPerPacket,
                    runSeconds,
                    events / runSeconds / 1e6,
                    events / runSeconds / rawRate,
                    packetsPerSecond / 1e3,
                    payload / runSeconds / 1e6,
                    peakKilobytes / 1024.0,
                    versusVanilla > 0 && spec.fabric != "vanilla"
                        ? (std::to_string(versusVanilla).substr(0, 5) + "x").c_str()
                        : "");
        std::fflush(stdout);
        nlohmann::json row = figures;
        row["scenario"] = spec.scenario;
        row["fabric"] = spec.fabric;
        row["gpus"] = spec.gpus;
        row["processes"] = spec.processes;
        row.update(comparison);
        row["peakResidentBytes"] = uint64_t(peakKilobytes) * 1024;
        row["eventsPerSecond"] = events / runSeconds;
        row["eventRateOfRaw"] = events / runSeconds / rawRate;
        row["deliveredPacketsPerSecond"] = packetsPerSecond;
        row["deliveredBytesPerSecond"] = payload / runSeconds;
        row["eventsPerPacket"] = eventsPerPacket;
        if (figures["cells"].get<double>() > 0)
        {
            row["eventsPerCell"] = events / figures["cells"].get<double>();
        }
        if (versusVanilla > 0 && spec.fabric != "vanilla")
        {
            row["packetsPerSecondOverVanilla"] = versusVanilla;
        }
        rows.push_back(row);
    }
    std::cout << "(np: MPI processes; ev/pkt: events per delivered UDP packet or per RDMA data "
                 "packet sent; %raw: event rate over the raw scheduler's; xvanil: delivered "
                 "packets per wall-second over vanilla ns-3's on the same scenario)"
              << std::endl;
    for (const nlohmann::json& row : rows)
    {
        if (row.contains("speedupOverSequential"))
        {
            std::printf("distributed %s %s %u GPUs on %u processes (%s): wall time x%.3f of the "
                        "sequential run's (speedup %.2f), events %llu (sequential %llu)\n",
                        row["scenario"].get<std::string>().c_str(),
                        row["fabric"].get<std::string>().c_str(),
                        row["gpus"].get<uint32_t>(),
                        row["processes"].get<uint32_t>(),
                        mpiEngine.c_str(),
                        1 / row["speedupOverSequential"].get<double>(),
                        row["speedupOverSequential"].get<double>(),
                        row["events"].get<unsigned long long>(),
                        row["eventsOfSequential"].get<unsigned long long>());
        }
    }
    for (const std::string& check : checks)
    {
        std::cout << check << std::endl;
    }
    const nlohmann::json growth = FitGrowth(rows);
    nlohmann::json results{{"rawEventsPerSecond", rawRate},
                           {"rawEvents", rawEvents},
                           {"rate", ShowDataRate(parameters.rate)},
                           {"simTimeSeconds", parameters.simTime.GetSeconds()},
                           {"collectiveBytes", parameters.collectiveBytes},
                           {"mpiEngine", mpiEngine},
                           {"runs", rows},
                           {"growth", growth},
                           {"runRecord", RunRecord::Get()}};
    std::ofstream(json) << results.dump(2) << std::endl;
    std::cout << "results in " << json << std::endl;
    return distributedDiffers ? 1 : 0;
}
