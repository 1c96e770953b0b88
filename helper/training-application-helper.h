/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_TRAINING_APPLICATION_HELPER_H
#define AI_FABRIC_TRAINING_APPLICATION_HELPER_H

#include "ns3/application-container.h"
#include "ns3/object-factory.h"

#include <string>

namespace ns3
{

class CollectiveHelper;
class Communicator;

/**
 * \ingroup ai-fabric
 * \brief Installs a parallelism workload (a TrainingApplication subclass: data,
 * pipeline, tensor or expert parallel) on a group of GPUs.
 *
 * \code
 *   TrainingApplicationHelper pp("ns3::PipelineParallelApplication");
 *   pp.SetAttribute("Microbatches", UintegerValue(8));
 *   ApplicationContainer apps = pp.Install(stagesComm, collectives);
 * \endcode
 */
class TrainingApplicationHelper
{
  public:
    /// \param typeId TypeId name of a TrainingApplication subclass
    explicit TrainingApplicationHelper(const std::string& typeId);

    /// \param name an attribute of the application \param value its value
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Create the application for a group and add it to the node of rank 0's NIC. It
     * runs its collectives with the algorithms chosen in collectives. Stops with a
     * message naming a bad attribute and its value.
     * \param comm the group
     * \param collectives the cluster's collectives (their algorithms)
     * \return the application
     */
    ApplicationContainer Install(Ptr<Communicator> comm, const CollectiveHelper& collectives) const;

    /**
     * Write the results of workloads (TrainingApplication::GetResults) as prefix.json
     * ({"seed", "run", "applications": [...]}) and prefix.csv (one row per
     * application, iteration and per-iteration metric: application, type, iteration,
     * metric, value). Stops with a message naming the file if it cannot be written.
     * \param apps TrainingApplications (others are skipped)
     * \param prefix path and file name without extension
     */
    static void WriteResults(const ApplicationContainer& apps, const std::string& prefix);

  private:
    ObjectFactory m_factory; //!< the application
};

} // namespace ns3

#endif /* AI_FABRIC_TRAINING_APPLICATION_HELPER_H */
