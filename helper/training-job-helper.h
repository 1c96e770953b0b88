/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_TRAINING_JOB_HELPER_H
#define AI_FABRIC_TRAINING_JOB_HELPER_H

#include "job-layout-helper.h"

#include "ns3/application-container.h"
#include "ns3/object-factory.h"

#include <string>
#include <vector>

namespace ns3
{

class CollectiveHelper;

/**
 * \ingroup ai-fabric
 * \brief Installs one combined-parallelism training job (a TrainingJobApplication)
 * on its GPUs: lays the job out (JobLayoutHelper), builds its communicators and a
 * communicator of all its GPUs, and creates the application on the node of the
 * job's first GPU.
 *
 * \code
 *   TrainingJobHelper job;
 *   job.SetLayoutAttribute("TensorParallel", UintegerValue(8));
 *   job.SetLayoutAttribute("PipelineParallel", UintegerValue(4));
 *   job.SetLayoutAttribute("DataParallel", UintegerValue(8));
 *   job.SetAttribute("Model", PointerValue(TransformerModel::CreatePreset("gpt3-175b")));
 *   ApplicationContainer apps = job.Install(gpus, collectives);
 * \endcode
 */
class TrainingJobHelper
{
  public:
    TrainingJobHelper();

    /// \param name attribute of the job's JobLayout \param value its value
    void SetLayoutAttribute(const std::string& name, const AttributeValue& value);

    /// \param name attribute of the TrainingJobApplication \param value its value
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Lay the job out on gpus and create its application. Once per helper. Stops with
     * a message naming a bad layout or application attribute and its value.
     * \param gpus the job's global GPU ranks (job index = position)
     * \param collectives installed on the cluster the job runs on
     * \return the application
     */
    ApplicationContainer Install(const std::vector<uint32_t>& gpus,
                                 const CollectiveHelper& collectives);

    /// \return the job's layout and communicators (after Install)
    const JobLayoutHelper& GetJobLayoutHelper() const;

  private:
    JobLayoutHelper m_job;   //!< layout and communicators
    ObjectFactory m_factory; //!< the application
};

} // namespace ns3

#endif /* AI_FABRIC_TRAINING_JOB_HELPER_H */
