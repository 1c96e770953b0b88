/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-job-helper.h"

#include "collective-helper.h"

#include "ns3/abort.h"
#include "ns3/communicator.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/rdma-transport.h"
#include "ns3/training-job-application.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingJobHelper");

TrainingJobHelper::TrainingJobHelper()
{
    m_factory.SetTypeId(TrainingJobApplication::GetTypeId());
}

void
TrainingJobHelper::SetLayoutAttribute(const std::string& name, const AttributeValue& value)
{
    m_job.SetLayoutAttribute(name, value);
}

void
TrainingJobHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

ApplicationContainer
TrainingJobHelper::Install(const std::vector<uint32_t>& gpus, const CollectiveHelper& collectives)
{
    NS_LOG_FUNCTION(this << gpus.size());
    NS_ABORT_MSG_IF(m_job.GetLayout(), "TrainingJobHelper: Install called twice");
    m_job.Install(gpus, collectives);
    Ptr<TrainingJobApplication> app = m_factory.Create<TrainingJobApplication>();
    app->SetJob(m_job.GetJobCommunicators());
    app->SetAlgorithms(collectives.GetAlgorithms());
    Ptr<Communicator> all = collectives.CreateCommunicator(gpus);
    app->SetCommunicator(all);
    all->GetMember(0).transport->GetObject<Node>()->AddApplication(app);
    return ApplicationContainer(app);
}

const JobLayoutHelper&
TrainingJobHelper::GetJobLayoutHelper() const
{
    return m_job;
}

} // namespace ns3
