/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pipeline-parallel-helper.h"

#include "ns3/communicator.h"
#include "ns3/node.h"
#include "ns3/pipeline-parallel-application.h"
#include "ns3/rdma-transport.h"

namespace ns3
{

PipelineParallelHelper::PipelineParallelHelper()
{
    m_factory.SetTypeId(PipelineParallelApplication::GetTypeId());
}

void
PipelineParallelHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

ApplicationContainer
PipelineParallelHelper::Install(Ptr<Communicator> comm) const
{
    Ptr<PipelineParallelApplication> app = m_factory.Create<PipelineParallelApplication>();
    app->SetCommunicator(comm);
    comm->GetMember(0).transport->GetObject<Node>()->AddApplication(app);
    return ApplicationContainer(app);
}

} // namespace ns3
