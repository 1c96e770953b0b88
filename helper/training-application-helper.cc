/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-application-helper.h"

#include "collective-helper.h"
#include "run-record.h"

#include "ns3/abort.h"
#include "ns3/communicator.h"
#include "ns3/node.h"
#include "ns3/rdma-transport.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/training-application.h"

#include <fstream>
#include <nlohmann/json.hpp>

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

void
TrainingApplicationHelper::WriteResults(const ApplicationContainer& apps, const std::string& prefix)
{
    nlohmann::json all = {{"seed", RngSeedManager::GetSeed()},
                          {"run", RngSeedManager::GetRun()},
                          {"runRecord", RunRecord::Get()},
                          {"applications", nlohmann::json::array()}};
    std::ofstream csv(prefix + ".csv");
    NS_ABORT_MSG_IF(!csv, "TrainingApplicationHelper: cannot write " << prefix << ".csv");
    csv << "application,type,iteration,metric,value\n";
    for (uint32_t i = 0; i < apps.GetN(); ++i)
    {
        Ptr<TrainingApplication> app = DynamicCast<TrainingApplication>(apps.Get(i));
        if (!app)
        {
            continue;
        }
        nlohmann::json results = app->GetResults();
        for (const auto& [metric, values] : results["perIteration"].items())
        {
            for (std::size_t k = 0; k < values.size(); ++k)
            {
                csv << i << ',' << results["application"].get<std::string>() << ',' << k << ','
                    << metric << ',' << values[k].dump() << '\n';
            }
        }
        all["applications"].push_back(results);
    }
    std::ofstream json(prefix + ".json");
    NS_ABORT_MSG_IF(!json, "TrainingApplicationHelper: cannot write " << prefix << ".json");
    json << all.dump(2) << '\n';
}

} // namespace ns3
