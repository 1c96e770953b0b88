/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "job-layout.h"

#include "ns3/abort.h"
#include "ns3/cluster-description.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("JobLayout");
NS_OBJECT_ENSURE_REGISTERED(JobLayout);

TypeId
JobLayout::GetTypeId()
{
    // The checkers accept 0 so that Setup() can refuse it by name.
    static TypeId tid =
        TypeId("ns3::JobLayout")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<JobLayout>()
            .AddAttribute("TensorParallel",
                          "Tensor parallel degree (GPUs of a TP group)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&JobLayout::m_tp),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PipelineParallel",
                          "Pipeline parallel degree (stages)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&JobLayout::m_pp),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("DataParallel",
                          "Data parallel degree (replicas); TP x PP x DP = the job's GPUs",
                          UintegerValue(1),
                          MakeUintegerAccessor(&JobLayout::m_dp),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ExpertParallel",
                          "Expert parallel degree, carved out of DP: it divides "
                          "DataParallel, and an EP group is that many consecutive DP "
                          "indices",
                          UintegerValue(1),
                          MakeUintegerAccessor(&JobLayout::m_ep),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Order",
                          "The dimensions tp, pp and dp, innermost first, joined by '-' "
                          "(Megatron-Core's convention)",
                          StringValue("tp-dp-pp"),
                          MakeStringAccessor(&JobLayout::m_orderString),
                          MakeStringChecker());
    return tid;
}

JobLayout::JobLayout()
    : m_tp(1),
      m_pp(1),
      m_dp(1),
      m_ep(1),
      m_orderString("tp-dp-pp"),
      m_order{TENSOR, DATA, PIPELINE},
      m_setup(false)
{
    NS_LOG_FUNCTION(this);
}

JobLayout::~JobLayout()
{
    NS_LOG_FUNCTION(this);
}

std::string
JobLayout::GetDimensionName(Dimension dimension)
{
    switch (dimension)
    {
    case TENSOR:
        return "tp";
    case PIPELINE:
        return "pp";
    case DATA:
        return "dp";
    case EXPERT:
        return "ep";
    case EXPERT_DATA:
        return "edp";
    }
    NS_ABORT_MSG("JobLayout: unknown dimension " << static_cast<uint32_t>(dimension));
    return "";
}

void
JobLayout::ParseOrder()
{
    NS_LOG_FUNCTION(this << m_orderString);
    const std::string& order = m_orderString;
    std::vector<std::string> names;
    std::string::size_type start = 0;
    while (true)
    {
        std::string::size_type dash = order.find('-', start);
        names.push_back(order.substr(start, dash - start));
        if (dash == std::string::npos)
        {
            break;
        }
        start = dash + 1;
    }
    std::array<bool, N_DIMENSIONS> seen{};
    std::vector<Dimension> parsed;
    for (const std::string& name : names)
    {
        Dimension d;
        if (name == "tp")
        {
            d = TENSOR;
        }
        else if (name == "pp")
        {
            d = PIPELINE;
        }
        else if (name == "dp")
        {
            d = DATA;
        }
        else if (name == "ep")
        {
            NS_ABORT_MSG("JobLayout: Order \"" << order
                                               << "\": ep is not a dimension of the order (EP "
                                                  "groups are carved out of dp); use tp, pp "
                                                  "and dp");
            return;
        }
        else
        {
            NS_ABORT_MSG("JobLayout: Order \"" << order << "\": unknown dimension \"" << name
                                               << "\" (the dimensions are tp, pp and dp)");
            return;
        }
        NS_ABORT_MSG_IF(seen[d],
                        "JobLayout: Order \"" << order << "\": dimension " << name
                                              << " is listed twice");
        seen[d] = true;
        parsed.push_back(d);
    }
    for (Dimension d : {TENSOR, PIPELINE, DATA})
    {
        NS_ABORT_MSG_IF(!seen[d],
                        "JobLayout: Order \"" << order << "\": dimension " << GetDimensionName(d)
                                              << " is missing (the order lists tp, pp and dp)");
    }
    m_order = {parsed[0], parsed[1], parsed[2]};
}

void
JobLayout::Setup(const std::vector<uint32_t>& gpus)
{
    NS_LOG_FUNCTION(this << gpus.size());
    NS_ABORT_MSG_IF(m_setup, "JobLayout: Setup called twice");
    NS_ABORT_MSG_IF(m_tp == 0, "JobLayout: TensorParallel must be at least 1, got 0");
    NS_ABORT_MSG_IF(m_pp == 0, "JobLayout: PipelineParallel must be at least 1, got 0");
    NS_ABORT_MSG_IF(m_dp == 0, "JobLayout: DataParallel must be at least 1, got 0");
    NS_ABORT_MSG_IF(m_ep == 0, "JobLayout: ExpertParallel must be at least 1, got 0");
    const uint64_t product = uint64_t{m_tp} * m_pp * m_dp;
    NS_ABORT_MSG_IF(product != gpus.size(),
                    "JobLayout: TensorParallel " << m_tp << " x PipelineParallel " << m_pp
                                                 << " x DataParallel " << m_dp << " = " << product
                                                 << " differs from the job's " << gpus.size()
                                                 << " GPUs");
    NS_ABORT_MSG_IF(m_dp % m_ep != 0,
                    "JobLayout: ExpertParallel " << m_ep << " does not divide DataParallel "
                                                 << m_dp);
    ParseOrder();

    const uint32_t n = static_cast<uint32_t>(gpus.size());
    m_jobIndex.reserve(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        auto inserted = m_jobIndex.emplace(gpus[i], i);
        NS_ABORT_MSG_IF(!inserted.second,
                        "JobLayout: GPU " << gpus[i] << " is listed twice (job indices "
                                          << inserted.first->second << " and " << i << ")");
    }
    m_gpus = gpus;

    // Decode every job index: i = c0 + n0 x (c1 + n1 x c2), c0 the innermost.
    const std::array<uint32_t, 3> degree{m_tp, m_pp, m_dp}; // by Dimension
    m_coordinates.resize(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        std::array<uint32_t, 3> c{};
        uint32_t rest = i;
        for (Dimension d : m_order)
        {
            c[d] = rest % degree[d];
            rest /= degree[d];
        }
        m_coordinates[i] =
            Coordinates{c[TENSOR], c[PIPELINE], c[DATA], c[DATA] % m_ep, c[DATA] / m_ep};
    }

    // Groups: the group of dimension X of job index i is identified by its first
    // member, the job index with i's X coordinate at its lowest value in the group.
    // The job index grows with every coordinate, so walking i upwards meets each
    // group's first member before its other members, and its members in order.
    for (uint32_t x = 0; x < N_DIMENSIONS; ++x)
    {
        m_groupOf[x].assign(n, 0);
        m_groups[x].clear();
        m_groups[x].reserve(n / GetDegree(static_cast<Dimension>(x)));
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        const Coordinates& c = m_coordinates[i];
        for (uint32_t x = 0; x < N_DIMENSIONS; ++x)
        {
            Coordinates first = c;
            switch (static_cast<Dimension>(x))
            {
            case TENSOR:
                first.tp = 0;
                break;
            case PIPELINE:
                first.pp = 0;
                break;
            case DATA:
                first.dp = 0;
                break;
            case EXPERT:
                first.dp = c.dp - c.ep;
                break;
            case EXPERT_DATA:
                first.dp = c.ep;
                break;
            }
            const uint32_t firstIndex = GetIndex(first.tp, first.pp, first.dp);
            if (firstIndex == i)
            {
                m_groupOf[x][i] = static_cast<uint32_t>(m_groups[x].size());
                m_groups[x].emplace_back();
            }
            else
            {
                m_groupOf[x][i] = m_groupOf[x][firstIndex];
            }
            m_groups[x][m_groupOf[x][i]].push_back(m_gpus[i]);
        }
    }
    m_setup = true;
    NS_LOG_INFO(ToString());
}

bool
JobLayout::IsSetup() const
{
    return m_setup;
}

void
JobLayout::CheckSetup(const char* what) const
{
    NS_ABORT_MSG_IF(!m_setup, "JobLayout: " << what << " before Setup");
}

uint32_t
JobLayout::CheckDimension(Dimension dimension) const
{
    NS_ABORT_MSG_IF(static_cast<uint32_t>(dimension) >= N_DIMENSIONS,
                    "JobLayout: unknown dimension " << static_cast<uint32_t>(dimension));
    return static_cast<uint32_t>(dimension);
}

uint32_t
JobLayout::GetNGpus() const
{
    return static_cast<uint32_t>(m_gpus.size());
}

const std::vector<uint32_t>&
JobLayout::GetGpus() const
{
    return m_gpus;
}

uint32_t
JobLayout::GetDegree(Dimension dimension) const
{
    switch (dimension)
    {
    case TENSOR:
        return m_tp;
    case PIPELINE:
        return m_pp;
    case DATA:
        return m_dp;
    case EXPERT:
        return m_ep;
    case EXPERT_DATA:
        return m_dp / m_ep;
    }
    NS_ABORT_MSG("JobLayout: unknown dimension " << static_cast<uint32_t>(dimension));
    return 0;
}

const std::array<JobLayout::Dimension, 3>&
JobLayout::GetOrder() const
{
    return m_order;
}

bool
JobLayout::HasGpu(uint32_t gpu) const
{
    return m_jobIndex.count(gpu) != 0;
}

uint32_t
JobLayout::GetJobIndex(uint32_t gpu) const
{
    auto it = m_jobIndex.find(gpu);
    NS_ABORT_MSG_IF(it == m_jobIndex.end(), "JobLayout: GPU " << gpu << " is not in the job");
    return it->second;
}

const JobLayout::Coordinates&
JobLayout::GetCoordinates(uint32_t gpu) const
{
    CheckSetup("GetCoordinates");
    return m_coordinates[GetJobIndex(gpu)];
}

uint32_t
JobLayout::GetIndex(uint32_t tp, uint32_t pp, uint32_t dp) const
{
    const std::array<uint32_t, 3> c{tp, pp, dp};            // by Dimension
    const std::array<uint32_t, 3> degree{m_tp, m_pp, m_dp}; // by Dimension
    uint32_t i = 0;
    for (auto d = m_order.rbegin(); d != m_order.rend(); ++d)
    {
        i = i * degree[*d] + c[*d];
    }
    return i;
}

uint32_t
JobLayout::GetGpu(uint32_t tp, uint32_t pp, uint32_t dp) const
{
    CheckSetup("GetGpu");
    NS_ABORT_MSG_IF(tp >= m_tp,
                    "JobLayout: tp " << tp << " out of range (TensorParallel " << m_tp << ")");
    NS_ABORT_MSG_IF(pp >= m_pp,
                    "JobLayout: pp " << pp << " out of range (PipelineParallel " << m_pp << ")");
    NS_ABORT_MSG_IF(dp >= m_dp,
                    "JobLayout: dp " << dp << " out of range (DataParallel " << m_dp << ")");
    return m_gpus[GetIndex(tp, pp, dp)];
}

uint32_t
JobLayout::GetNGroups(Dimension dimension) const
{
    CheckSetup("GetNGroups");
    return static_cast<uint32_t>(m_groups[CheckDimension(dimension)].size());
}

const std::vector<std::vector<uint32_t>>&
JobLayout::GetGroups(Dimension dimension) const
{
    CheckSetup("GetGroups");
    return m_groups[CheckDimension(dimension)];
}

const std::vector<uint32_t>&
JobLayout::GetGroup(Dimension dimension, uint32_t group) const
{
    CheckSetup("GetGroup");
    const auto& groups = m_groups[CheckDimension(dimension)];
    NS_ABORT_MSG_IF(group >= groups.size(),
                    "JobLayout: " << GetDimensionName(dimension) << " group " << group
                                  << " does not exist (" << groups.size() << " groups)");
    return groups[group];
}

uint32_t
JobLayout::GetGroupIndex(Dimension dimension, uint32_t gpu) const
{
    CheckSetup("GetGroupIndex");
    return m_groupOf[CheckDimension(dimension)][GetJobIndex(gpu)];
}

uint32_t
JobLayout::GetRankInGroup(Dimension dimension, uint32_t gpu) const
{
    const Coordinates& c = GetCoordinates(gpu);
    switch (dimension)
    {
    case TENSOR:
        return c.tp;
    case PIPELINE:
        return c.pp;
    case DATA:
        return c.dp;
    case EXPERT:
        return c.ep;
    case EXPERT_DATA:
        return c.edp;
    }
    NS_ABORT_MSG("JobLayout: unknown dimension " << static_cast<uint32_t>(dimension));
    return 0;
}

bool
JobLayout::IsTensorParallelInsideServers(const ClusterDescription& cluster) const
{
    NS_LOG_FUNCTION(this);
    CheckSetup("IsTensorParallelInsideServers");
    cluster.ValidateServers();
    for (uint32_t g = 0; g < m_groups[TENSOR].size(); ++g)
    {
        const std::vector<uint32_t>& group = m_groups[TENSOR][g];
        const uint32_t server = cluster.GetServerOfRank(group.front());
        for (uint32_t gpu : group)
        {
            if (cluster.GetServerOfRank(gpu) != server)
            {
                NS_LOG_WARN("JobLayout: TP group " << g << " spans servers " << server << " and "
                                                   << cluster.GetServerOfRank(gpu) << " (GPUs "
                                                   << group.front() << " and " << gpu
                                                   << "): its traffic leaves the scale-up domain");
                return false;
            }
        }
    }
    return true;
}

std::string
JobLayout::ToString() const
{
    std::ostringstream os;
    os << "tp=" << m_tp << " pp=" << m_pp << " dp=" << m_dp << " ep=" << m_ep
       << " order=" << m_orderString << " gpus=" << m_gpus.size();
    if (!m_gpus.empty())
    {
        os << " (first " << m_gpus.front() << ", last " << m_gpus.back() << ")";
    }
    return os.str();
}

} // namespace ns3
