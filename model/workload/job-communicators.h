/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_JOB_COMMUNICATORS_H
#define AI_FABRIC_JOB_COMMUNICATORS_H

#include "job-layout.h"

#include "ns3/communicator.h"
#include "ns3/ptr.h"

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A job laid out on its GPUs (a JobLayout) and its communicators: one
 * Communicator per group of each dimension (TP, PP, DP, EP and EDP groups, groups of
 * one GPU included), its ranks the group's GPUs in group order, so a GPU's rank in
 * its communicator of a dimension is its coordinate in that dimension.
 *
 * It is what a job's application needs of its layout
 * (TrainingJobApplication::SetJob). JobLayoutHelper builds one with the
 * communicators of a CollectiveHelper:
 *
 *     JobCommunicators job;
 *     job.Build(layout, [&collectives](const std::vector<uint32_t>& gpus) {
 *         return collectives.CreateCommunicator(gpus);
 *     });
 *     Ptr<Communicator> tp = job.GetCommunicator(JobLayout::TENSOR, gpu);
 */
class JobCommunicators
{
  public:
    /// Creates the communicator of a group: its ranks the given GPUs, in that order.
    using CreateCommunicatorCallback =
        std::function<Ptr<Communicator>(const std::vector<uint32_t>& gpus)>;

    /**
     * Build one communicator per group of each dimension of a layout: dimension by
     * dimension (TENSOR .. EXPERT_DATA), each dimension's groups in order. Once.
     * \param layout the layout, after its Setup
     * \param create creates a group's communicator
     */
    void Build(Ptr<JobLayout> layout, const CreateCommunicatorCallback& create);

    /// \return the layout (null before Build)
    Ptr<JobLayout> GetLayout() const;

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
    /// Stop unless Build has run. \param what the caller, for the message
    void CheckBuilt(const char* what) const;

    Ptr<JobLayout> m_layout; //!< the job's layout
    /// per dimension, per group: its communicator
    std::array<std::vector<Ptr<Communicator>>, JobLayout::N_DIMENSIONS> m_communicators;
};

} // namespace ns3

#endif /* AI_FABRIC_JOB_COMMUNICATORS_H */
