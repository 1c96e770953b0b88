/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_JOB_LAYOUT_HELPER_H
#define AI_FABRIC_JOB_LAYOUT_HELPER_H

#include "ns3/communicator.h"
#include "ns3/job-communicators.h"
#include "ns3/job-layout.h"
#include "ns3/object-factory.h"

#include <string>
#include <vector>

namespace ns3
{

class CollectiveHelper;

/**
 * \ingroup ai-fabric
 * \brief Lays one job out on its GPUs (a JobLayout) and builds its communicators
 * (a JobCommunicators) with a CollectiveHelper: one Communicator per group of each
 * dimension (TP, PP, DP and EP groups, groups of one GPU included), its ranks the
 * group's GPUs in group order, so a GPU's rank in its communicator of a dimension
 * is its coordinate in that dimension.
 *
 * One helper per job:
 *
 *     JobLayoutHelper job;
 *     job.SetLayoutAttribute("TensorParallel", UintegerValue(8));
 *     job.SetLayoutAttribute("DataParallel", UintegerValue(4));
 *     job.Install(gpus, collectives);   // after CollectiveHelper::Install
 *     Ptr<Communicator> tp = job.GetCommunicator(JobLayout::TENSOR, gpu);
 */
class JobLayoutHelper
{
  public:
    JobLayoutHelper();

    /**
     * \param name attribute of the JobLayout that Install(gpus, ...) creates
     * \param value its value
     */
    void SetLayoutAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Create a JobLayout with the attributes set, Setup it on gpus (which refuses bad
     * input by name) and build its communicators. Once per helper.
     * \param gpus the job's global GPU ranks (job index = position)
     * \param collectives installed on the cluster the job runs on
     * \return the layout
     */
    Ptr<JobLayout> Install(const std::vector<uint32_t>& gpus, const CollectiveHelper& collectives);

    /**
     * Build the communicators of a layout that has been Setup. Once per helper.
     * \param layout the layout
     * \param collectives installed on the cluster the job runs on
     */
    void Install(Ptr<JobLayout> layout, const CollectiveHelper& collectives);

    /// \return the layout (null before Install)
    Ptr<JobLayout> GetLayout() const;

    /// \return the layout and its communicators (empty before Install)
    const JobCommunicators& GetJobCommunicators() const;

    /**
     * \param dimension a dimension \param group a group number of it
     * \return the group's communicator
     */
    Ptr<Communicator> GetGroupCommunicator(JobLayout::Dimension dimension, uint32_t group) const;

    /**
     * \param dimension a dimension \param gpu one of the job's GPUs
     * \return the communicator of the GPU's group of that dimension
     */
    Ptr<Communicator> GetCommunicator(JobLayout::Dimension dimension, uint32_t gpu) const;

    /**
     * \param dimension a dimension \param gpu one of the job's GPUs
     * \return the GPU's rank in GetCommunicator(dimension, gpu)
     */
    uint32_t GetRank(JobLayout::Dimension dimension, uint32_t gpu) const;

  private:
    /// Stop unless Install has run. \param what the caller, for the message
    void CheckInstalled(const char* what) const;

    ObjectFactory m_factory; //!< JobLayout factory
    JobCommunicators m_job;  //!< the job's layout and communicators
};

} // namespace ns3

#endif /* AI_FABRIC_JOB_LAYOUT_HELPER_H */
