/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "job-layout-helper.h"

#include "ns3/abort.h"
#include "ns3/collective-helper.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("JobLayoutHelper");

JobLayoutHelper::JobLayoutHelper()
{
    NS_LOG_FUNCTION(this);
    m_factory.SetTypeId(JobLayout::GetTypeId());
}

void
JobLayoutHelper::SetLayoutAttribute(const std::string& name, const AttributeValue& value)
{
    NS_LOG_FUNCTION(this << name);
    m_factory.Set(name, value);
}

Ptr<JobLayout>
JobLayoutHelper::Install(const std::vector<uint32_t>& gpus, const CollectiveHelper& collectives)
{
    NS_LOG_FUNCTION(this << gpus.size());
    NS_ABORT_MSG_IF(m_layout, "JobLayoutHelper: Install may be called once");
    Ptr<JobLayout> layout = m_factory.Create<JobLayout>();
    layout->Setup(gpus);
    Install(layout, collectives);
    return layout;
}

void
JobLayoutHelper::Install(Ptr<JobLayout> layout, const CollectiveHelper& collectives)
{
    NS_LOG_FUNCTION(this << layout);
    NS_ABORT_MSG_IF(m_layout, "JobLayoutHelper: Install may be called once");
    NS_ABORT_MSG_IF(!layout, "JobLayoutHelper: Install of a null layout");
    NS_ABORT_MSG_IF(!layout->IsSetup(), "JobLayoutHelper: Install of a layout before its Setup");
    for (uint32_t x = 0; x < JobLayout::N_DIMENSIONS; ++x)
    {
        for (const std::vector<uint32_t>& group :
             layout->GetGroups(static_cast<JobLayout::Dimension>(x)))
        {
            m_communicators[x].push_back(collectives.CreateCommunicator(group));
        }
    }
    m_layout = layout;
}

Ptr<JobLayout>
JobLayoutHelper::GetLayout() const
{
    return m_layout;
}

void
JobLayoutHelper::CheckInstalled(const char* what) const
{
    NS_ABORT_MSG_IF(!m_layout, "JobLayoutHelper: " << what << " before Install");
}

Ptr<Communicator>
JobLayoutHelper::GetGroupCommunicator(JobLayout::Dimension dimension, uint32_t group) const
{
    CheckInstalled("GetGroupCommunicator");
    m_layout->GetGroup(dimension, group); // checks both
    return m_communicators[dimension][group];
}

Ptr<Communicator>
JobLayoutHelper::GetCommunicator(JobLayout::Dimension dimension, uint32_t gpu) const
{
    CheckInstalled("GetCommunicator");
    return m_communicators[dimension][m_layout->GetGroupIndex(dimension, gpu)];
}

uint32_t
JobLayoutHelper::GetRank(JobLayout::Dimension dimension, uint32_t gpu) const
{
    CheckInstalled("GetRank");
    return m_layout->GetRankInGroup(dimension, gpu);
}

} // namespace ns3
