/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "collective-helper.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveHelper");

CollectiveHelper::CollectiveHelper()
{
    m_scaleUpFactory.SetTypeId(ScaleUpSwitch::GetTypeId());
    m_algorithms["AllReduce"].SetTypeId("ns3::RingAllReduce");
    m_algorithms["ReduceScatter"].SetTypeId("ns3::RingReduceScatter");
    m_algorithms["AllGather"].SetTypeId("ns3::RingAllGather");
    m_algorithms["Broadcast"].SetTypeId("ns3::RingBroadcast");
    m_algorithms["Reduce"].SetTypeId("ns3::RingReduce");
    m_algorithms["SendRecv"].SetTypeId("ns3::RingSendRecv");
    m_algorithms["AlltoAll"].SetTypeId("ns3::PairwiseAlltoAll");
    m_algorithms["AlltoAllv"].SetTypeId("ns3::PairwiseAlltoAllv");
    m_algorithms["Barrier"].SetTypeId("ns3::DisseminationBarrier");
}

void
CollectiveHelper::SetScaleUpAttribute(const std::string& name, const AttributeValue& value)
{
    m_scaleUpFactory.Set(name, value);
}

void
CollectiveHelper::Install(const ClusterDescription& cluster, const RdmaHelper& rdma)
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(!m_gpus.empty(), "CollectiveHelper: Install may be called once");
    cluster.ValidateServers();
    NS_ABORT_MSG_IF(rdma.GetNRanks() != cluster.GetHosts(),
                    "CollectiveHelper: the RdmaHelper has "
                        << rdma.GetNRanks() << " ranks but the cluster has " << cluster.GetHosts()
                        << " hosts");
    m_cluster = cluster;
    for (uint32_t s = 0; s < cluster.GetServers(); ++s)
    {
        Ptr<ScaleUpSwitch> sw = m_scaleUpFactory.Create<ScaleUpSwitch>();
        sw->Setup(cluster.gpusPerServer);
        m_scaleUp.push_back(sw);
    }
    for (uint32_t g = 0; g < cluster.GetHosts(); ++g)
    {
        Communicator::Member m;
        m.gpu = g;
        m.server = cluster.GetServerOfRank(g);
        m.localGpu = cluster.GetLocalGpu(g);
        m.transport = rdma.GetTransport(cluster.GetHostOfGpu(g));
        m.scaleUp = m_scaleUp[m.server];
        m.compute = CreateObject<GpuCompute>();
        m_gpus.push_back(m);
    }
}

Ptr<GpuCompute>
CollectiveHelper::GetGpuCompute(uint32_t gpu) const
{
    NS_ABORT_MSG_IF(gpu >= m_gpus.size(),
                    "CollectiveHelper: GPU " << gpu << " does not exist (" << m_gpus.size()
                                             << " GPUs)");
    return m_gpus[gpu].compute;
}

uint32_t
CollectiveHelper::GetNGpus() const
{
    return static_cast<uint32_t>(m_gpus.size());
}

Ptr<ScaleUpSwitch>
CollectiveHelper::GetScaleUpSwitch(uint32_t server) const
{
    NS_ABORT_MSG_IF(server >= m_scaleUp.size(),
                    "CollectiveHelper: server " << server << " does not exist (" << m_scaleUp.size()
                                                << " servers)");
    return m_scaleUp[server];
}

Ptr<Communicator>
CollectiveHelper::CreateCommunicator(const std::vector<uint32_t>& gpus) const
{
    NS_LOG_FUNCTION(this << gpus.size());
    NS_ABORT_MSG_IF(m_gpus.empty(), "CollectiveHelper: CreateCommunicator before Install");
    std::vector<Communicator::Member> members;
    members.reserve(gpus.size());
    for (uint32_t g : gpus)
    {
        NS_ABORT_MSG_IF(g >= m_gpus.size(),
                        "CollectiveHelper: GPU " << g << " does not exist (GPUs 0.."
                                                 << m_gpus.size() - 1 << ")");
        members.push_back(m_gpus[g]);
    }
    auto comm = CreateObject<Communicator>();
    comm->Setup(members);
    return comm;
}

Ptr<Communicator>
CollectiveHelper::CreateWorldCommunicator() const
{
    std::vector<uint32_t> all(m_gpus.size());
    for (uint32_t g = 0; g < all.size(); ++g)
    {
        all[g] = g;
    }
    return CreateCommunicator(all);
}

ObjectFactory&
CollectiveHelper::GetFactory(const std::string& collective)
{
    auto it = m_algorithms.find(collective);
    NS_ABORT_MSG_IF(it == m_algorithms.end(),
                    "CollectiveHelper: unknown collective \"" << collective << "\"");
    return it->second;
}

const ObjectFactory&
CollectiveHelper::GetFactory(const std::string& collective) const
{
    auto it = m_algorithms.find(collective);
    NS_ABORT_MSG_IF(it == m_algorithms.end(),
                    "CollectiveHelper: unknown collective \"" << collective << "\"");
    return it->second;
}

void
CollectiveHelper::SetAlgorithm(const std::string& collective, const std::string& typeId)
{
    NS_LOG_FUNCTION(this << collective << typeId);
    ObjectFactory& factory = GetFactory(collective);
    TypeId tid;
    NS_ABORT_MSG_IF(!TypeId::LookupByNameFailSafe(typeId, &tid),
                    "CollectiveHelper: algorithm \"" << typeId << "\" for " << collective
                                                     << " does not exist");
    NS_ABORT_MSG_IF(!tid.IsChildOf(CollectiveOperation::GetTypeId()) || !tid.HasConstructor(),
                    "CollectiveHelper: \"" << typeId << "\" is not a collective algorithm");
    ObjectFactory candidate;
    candidate.SetTypeId(tid);
    Ptr<CollectiveOperation> probe = candidate.Create<CollectiveOperation>();
    NS_ABORT_MSG_IF(probe->GetCollectiveName() != collective,
                    "CollectiveHelper: \"" << typeId << "\" implements "
                                           << probe->GetCollectiveName() << ", not " << collective);
    factory = candidate;
}

std::vector<std::string>
CollectiveHelper::GetCollectives() const
{
    std::vector<std::string> names;
    for (const auto& [name, factory] : m_algorithms)
    {
        names.push_back(name);
    }
    return names;
}

std::string
CollectiveHelper::GetAlgorithm(const std::string& collective) const
{
    return GetFactory(collective).GetTypeId().GetName();
}

std::vector<std::string>
CollectiveHelper::GetAlgorithms(const std::string& collective)
{
    std::vector<std::string> names;
    const TypeId base = CollectiveOperation::GetTypeId();
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        const TypeId tid = TypeId::GetRegistered(i);
        if (tid == base || !tid.IsChildOf(base) || !tid.HasConstructor())
        {
            continue;
        }
        ObjectFactory factory;
        factory.SetTypeId(tid);
        if (factory.Create<CollectiveOperation>()->GetCollectiveName() == collective)
        {
            names.push_back(tid.GetName());
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

void
CollectiveHelper::SetAlgorithmAttribute(const std::string& collective,
                                        const std::string& name,
                                        const AttributeValue& value)
{
    GetFactory(collective).Set(name, value);
}

Ptr<CollectiveOperation>
CollectiveHelper::Create(const std::string& collective) const
{
    return GetFactory(collective).Create<CollectiveOperation>();
}

const std::map<std::string, ObjectFactory>&
CollectiveHelper::GetAlgorithms() const
{
    return m_algorithms;
}

Ptr<CollectiveOperation>
CollectiveHelper::Start(Ptr<Communicator> comm,
                        const std::string& collective,
                        uint64_t bytes,
                        CollectiveOperation::DoneCallback done) const
{
    Ptr<CollectiveOperation> op = Create(collective);
    op->Start(comm, bytes, done);
    return op;
}

} // namespace ns3
