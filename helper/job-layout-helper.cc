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
    NS_ABORT_MSG_IF(m_job.GetLayout(), "JobLayoutHelper: Install may be called once");
    Ptr<JobLayout> layout = m_factory.Create<JobLayout>();
    layout->Setup(gpus);
    Install(layout, collectives);
    return layout;
}

void
JobLayoutHelper::Install(Ptr<JobLayout> layout, const CollectiveHelper& collectives)
{
    NS_LOG_FUNCTION(this << layout);
    NS_ABORT_MSG_IF(m_job.GetLayout(), "JobLayoutHelper: Install may be called once");
    NS_ABORT_MSG_IF(!layout, "JobLayoutHelper: Install of a null layout");
    NS_ABORT_MSG_IF(!layout->IsSetup(), "JobLayoutHelper: Install of a layout before its Setup");
    m_job.Build(layout, [&collectives](const std::vector<uint32_t>& gpus) {
        return collectives.CreateCommunicator(gpus);
    });
}

Ptr<JobLayout>
JobLayoutHelper::GetLayout() const
{
    return m_job.GetLayout();
}

const JobCommunicators&
JobLayoutHelper::GetJobCommunicators() const
{
    return m_job;
}

void
JobLayoutHelper::CheckInstalled(const char* what) const
{
    NS_ABORT_MSG_IF(!m_job.GetLayout(), "JobLayoutHelper: " << what << " before Install");
}

Ptr<Communicator>
JobLayoutHelper::GetGroupCommunicator(JobLayout::Dimension dimension, uint32_t group) const
{
    CheckInstalled("GetGroupCommunicator");
    return m_job.GetGroupCommunicator(dimension, group);
}

Ptr<Communicator>
JobLayoutHelper::GetCommunicator(JobLayout::Dimension dimension, uint32_t gpu) const
{
    CheckInstalled("GetCommunicator");
    return m_job.GetCommunicator(dimension, gpu);
}

uint32_t
JobLayoutHelper::GetRank(JobLayout::Dimension dimension, uint32_t gpu) const
{
    CheckInstalled("GetRank");
    return m_job.GetRank(dimension, gpu);
}

} // namespace ns3
