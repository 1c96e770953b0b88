/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "replay-helper.h"

#include "collective-helper.h"

#include "ns3/abort.h"
#include "ns3/communicator.h"
#include "ns3/node.h"
#include "ns3/rdma-transport.h"
#include "ns3/replay-application.h"

namespace ns3
{

ReplayHelper::ReplayHelper()
{
    m_factory.SetTypeId(ReplayApplication::GetTypeId());
}

void
ReplayHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

ApplicationContainer
ReplayHelper::Install(std::shared_ptr<const WorkloadGraph> graph,
                      Ptr<Communicator> comm,
                      const CollectiveHelper& collectives) const
{
    NS_ABORT_MSG_IF(!comm, "ReplayHelper: no communicator");
    Ptr<ReplayApplication> app = m_factory.Create<ReplayApplication>();
    app->SetGraph(graph);
    app->SetAlgorithms(collectives.GetAlgorithms());
    app->SetCommunicator(comm);
    comm->GetMember(0).transport->GetObject<Node>()->AddApplication(app);
    return ApplicationContainer(app);
}

} // namespace ns3
