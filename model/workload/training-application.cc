/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-application.h"

#include "sample-statistics.h"

#include "ns3/abort.h"
#include "ns3/attribute-text.h"
#include "ns3/collective-operation.h"
#include "ns3/communicator.h"
#include "ns3/log.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"
#include "ns3/workload-graph.h"

#include <nlohmann/json.hpp>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingApplication");

NS_OBJECT_ENSURE_REGISTERED(TrainingApplication);

TypeId
TrainingApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TrainingApplication")
            .SetParent<Application>()
            .SetGroupName("AiFabric")
            .AddAttribute("Iterations",
                          "Iterations to run (>= 1)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TrainingApplication::m_iterations),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("IterationDone",
                            "An iteration ended on every rank",
                            MakeTraceSourceAccessor(&TrainingApplication::m_iterationTrace),
                            "ns3::TrainingApplication::IterationTracedCallback")
            .AddTraceSource("Failed",
                            "A communicator of the application failed (the RDMA transport gave "
                            "up a message): the application stopped; the iteration and the "
                            "reason",
                            MakeTraceSourceAccessor(&TrainingApplication::m_failedTrace),
                            "ns3::TrainingApplication::FailureTracedCallback");
    return tid;
}

TrainingApplication::TrainingApplication()
{
    NS_LOG_FUNCTION(this);
}

TrainingApplication::~TrainingApplication() = default;

void
TrainingApplication::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_comm = nullptr;
    m_algorithms.clear();
    Application::DoDispose();
}

void
TrainingApplication::SetCommunicator(Ptr<Communicator> comm)
{
    NS_LOG_FUNCTION(this << comm);
    const std::string name = GetInstanceTypeId().GetName();
    NS_ABORT_MSG_IF(!comm, name << ": no communicator");
    NS_ABORT_MSG_IF(m_iterations < 1,
                    name << ": Iterations " << m_iterations << " must be at least 1");
    m_comm = comm;
    WatchCommunicator(comm);
    DoSetup();
}

void
TrainingApplication::SetAlgorithms(const std::map<std::string, ObjectFactory>& algorithms)
{
    NS_LOG_FUNCTION(this << algorithms.size());
    m_algorithms = algorithms;
}

Ptr<Communicator>
TrainingApplication::GetCommunicator() const
{
    return m_comm;
}

uint32_t
TrainingApplication::GetIterationsDone() const
{
    return static_cast<uint32_t>(m_iterationTimes.size());
}

const std::vector<Time>&
TrainingApplication::GetIterationTimes() const
{
    return m_iterationTimes;
}

std::string
TrainingApplication::DescribeIteration(WorkloadGraph& /* graph */)
{
    return GetInstanceTypeId().GetName() + " cannot describe its iterations as a graph yet";
}

uint32_t
TrainingApplication::BeginGraph(WorkloadGraph& graph, const std::string& groupName) const
{
    const uint32_t n = m_comm->GetSize();
    graph = WorkloadGraph();
    graph.source = GetInstanceTypeId().GetName();
    graph.nodes.assign(n, {});
    std::vector<uint32_t> ranks(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        ranks[r] = r;
    }
    return graph.AddGroup(ranks, groupName);
}

nlohmann::json
TrainingApplication::GetResults() const
{
    nlohmann::json results;
    results["application"] = GetInstanceTypeId().GetName();
    results["seed"] = RngSeedManager::GetSeed();
    results["run"] = RngSeedManager::GetRun();
    nlohmann::json attributes = nlohmann::json::object();
    for (const auto& [name, value] : AttributeText::GetAttributes(*this))
    {
        attributes[name] = value;
    }
    results["attributes"] = attributes;
    nlohmann::json gpus = nlohmann::json::array();
    for (uint32_t r = 0; m_comm && r < m_comm->GetSize(); ++r)
    {
        gpus.push_back(m_comm->GetMember(r).gpu);
    }
    results["gpus"] = gpus;
    SampleStatistics times;
    nlohmann::json perIteration = nlohmann::json::array();
    for (Time t : m_iterationTimes)
    {
        times.Add(t.GetSeconds() * 1e6);
        perIteration.push_back(t.GetSeconds() * 1e6);
    }
    results["perIteration"]["time_us"] = perIteration;
    results["iterationTime_us"] = times.ToJson();
    if (HasFailed())
    {
        results["failure"] = m_failure;
    }
    AddResults(results);
    return results;
}

void
TrainingApplication::AddResults(nlohmann::json& /* results */) const
{
}

uint32_t
TrainingApplication::GetIteration() const
{
    return static_cast<uint32_t>(m_iterationTimes.size());
}

Time
TrainingApplication::GetIterationStart() const
{
    return m_iterationStart;
}

bool
TrainingApplication::HasFailed() const
{
    return !m_failure.empty();
}

const std::string&
TrainingApplication::GetFailure() const
{
    return m_failure;
}

bool
TrainingApplication::HasEnded() const
{
    return HasFailed() || GetIteration() >= m_iterations;
}

void
TrainingApplication::WatchCommunicator(Ptr<Communicator> comm)
{
    NS_LOG_FUNCTION(this << comm);
    NS_ABORT_MSG_IF(!comm, GetInstanceTypeId().GetName() << ": no communicator to watch");
    comm->AddFailureCallback(MakeCallback(&TrainingApplication::Fail, this));
}

void
TrainingApplication::Fail(const std::string& reason)
{
    NS_LOG_FUNCTION(this << reason);
    if (HasEnded())
    {
        NS_LOG_LOGIC("already ended: " << reason);
        return;
    }
    NS_LOG_LOGIC("failed in iteration " << GetIteration() << ": " << reason);
    m_failure = reason;
    m_running = false;
    m_failedTrace(GetIteration(), reason);
}

Ptr<CollectiveOperation>
TrainingApplication::CreateOperation(const std::string& collective) const
{
    auto it = m_algorithms.find(collective);
    NS_ABORT_MSG_IF(it == m_algorithms.end(),
                    GetInstanceTypeId().GetName()
                        << ": no algorithm for " << collective
                        << " (install through TrainingApplicationHelper)");
    return it->second.Create<CollectiveOperation>();
}

void
TrainingApplication::StartApplication()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(!m_comm, GetInstanceTypeId().GetName() << ": started before SetCommunicator");
    m_running = true;
    StartIteration();
}

void
TrainingApplication::StopApplication()
{
    NS_LOG_FUNCTION(this);
    m_running = false;
}

void
TrainingApplication::StartIteration()
{
    NS_LOG_FUNCTION(this << GetIteration());
    m_iterationStart = Simulator::Now();
    DoStartIteration();
}

void
TrainingApplication::EndIteration()
{
    const Time duration = Simulator::Now() - m_iterationStart;
    NS_LOG_FUNCTION(this << GetIteration() << duration.As(Time::US));
    m_iterationTimes.push_back(duration);
    m_iterationTrace(GetIteration() - 1, duration);
    if (m_running && GetIteration() < m_iterations)
    {
        NS_LOG_LOGIC("next iteration");
        StartIteration();
    }
}

} // namespace ns3
