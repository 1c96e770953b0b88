/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-application-helper.h"

#include "collective-helper.h"

#include "ns3/abort.h"
#include "ns3/communicator.h"
#include "ns3/node.h"
#include "ns3/rdma-transport.h"
#include "ns3/training-application.h"

namespace ns3
{

TrainingApplicationHelper::TrainingApplicationHelper(const std::string& typeId)
{
    TypeId tid;
    NS_ABORT_MSG_IF(!TypeId::LookupByNameFailSafe(typeId, &tid) ||
                        !tid.IsChildOf(TrainingApplication::GetTypeId()) || !tid.HasConstructor(),
                    "TrainingApplicationHelper: \"" << typeId << "\" is not a TrainingApplication");
    m_factory.SetTypeId(tid);
}

void
TrainingApplicationHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

ApplicationContainer
TrainingApplicationHelper::Install(Ptr<Communicator> comm,
                                   const CollectiveHelper& collectives) const
{
    NS_ABORT_MSG_IF(!comm, "TrainingApplicationHelper: no communicator");
    Ptr<TrainingApplication> app = m_factory.Create<TrainingApplication>();
    app->SetAlgorithms(collectives.GetAlgorithms());
    app->SetCommunicator(comm);
    comm->GetMember(0).transport->GetObject<Node>()->AddApplication(app);
    return ApplicationContainer(app);
}

} // namespace ns3
