/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "job-communicators.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("JobCommunicators");

void
JobCommunicators::Build(Ptr<JobLayout> layout, const CreateCommunicatorCallback& create)
{
    NS_LOG_FUNCTION(this << layout);
    NS_ABORT_MSG_IF(m_layout, "JobCommunicators: Build may be called once");
    NS_ABORT_MSG_IF(!layout, "JobCommunicators: Build of a null layout");
    NS_ABORT_MSG_IF(!layout->IsSetup(), "JobCommunicators: Build of a layout before its Setup");
    for (uint32_t x = 0; x < JobLayout::N_DIMENSIONS; ++x)
    {
        for (const std::vector<uint32_t>& group :
             layout->GetGroups(static_cast<JobLayout::Dimension>(x)))
        {
            m_communicators[x].push_back(create(group));
        }
    }
    m_layout = layout;
}

Ptr<JobLayout>
JobCommunicators::GetLayout() const
{
    return m_layout;
}

void
JobCommunicators::CheckBuilt(const char* what) const
{
    NS_ABORT_MSG_IF(!m_layout, "JobCommunicators: " << what << " before Build");
}

Ptr<Communicator>
JobCommunicators::GetGroupCommunicator(JobLayout::Dimension dimension, uint32_t group) const
{
    CheckBuilt("GetGroupCommunicator");
    m_layout->GetGroup(dimension, group); // checks both
    return m_communicators[dimension][group];
}

Ptr<Communicator>
JobCommunicators::GetCommunicator(JobLayout::Dimension dimension, uint32_t gpu) const
{
    CheckBuilt("GetCommunicator");
    return m_communicators[dimension][m_layout->GetGroupIndex(dimension, gpu)];
}

uint32_t
JobCommunicators::GetRank(JobLayout::Dimension dimension, uint32_t gpu) const
{
    CheckBuilt("GetRank");
    return m_layout->GetRankInGroup(dimension, gpu);
}

} // namespace ns3
