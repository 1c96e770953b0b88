/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_REPLAY_HELPER_H
#define AI_FABRIC_REPLAY_HELPER_H

#include "ns3/application-container.h"
#include "ns3/object-factory.h"

#include <memory>
#include <string>

namespace ns3
{

class CollectiveHelper;
class Communicator;
struct WorkloadGraph;

/**
 * \ingroup ai-fabric
 * \brief Installs a ReplayApplication that replays a workload graph (read by
 * SimAiWorkloadReader or ChakraTraceReader) on a job's GPUs.
 *
 *     WorkloadGraph graph;
 *     const std::string problem = SimAiWorkloadReader::Read("gpt.txt", 64, graph);
 *     ReplayHelper replay;
 *     replay.SetAttribute("Iterations", UintegerValue(2));
 *     ApplicationContainer apps = replay.Install(
 *         std::make_shared<const WorkloadGraph>(std::move(graph)),
 *         collectives.CreateCommunicator(gpus), collectives);
 */
class ReplayHelper
{
  public:
    ReplayHelper();

    /// \param name an attribute of ReplayApplication \param value its value
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Create the application and add it to the node of rank 0's NIC. Stops with a
     * message if the communicator does not have the graph's ranks, or an attribute is
     * bad.
     * \param graph the workload, linked \param comm the job's GPUs: rank r replays the
     *        graph's rank r \param collectives the cluster's collectives (their
     *        algorithms)
     * \return the application
     */
    ApplicationContainer Install(std::shared_ptr<const WorkloadGraph> graph,
                                 Ptr<Communicator> comm,
                                 const CollectiveHelper& collectives) const;

  private:
    ObjectFactory m_factory; //!< ReplayApplications
};

} // namespace ns3

#endif /* AI_FABRIC_REPLAY_HELPER_H */
