/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_PIPELINE_PARALLEL_HELPER_H
#define AI_FABRIC_PIPELINE_PARALLEL_HELPER_H

#include "ns3/application-container.h"
#include "ns3/object-factory.h"

#include <string>

namespace ns3
{

class Communicator;

/**
 * \ingroup ai-fabric
 * \brief Installs PipelineParallelApplication: one per pipeline, on the node of the
 * first stage's GPU (the application drives every stage of its pipeline).
 */
class PipelineParallelHelper
{
  public:
    PipelineParallelHelper();

    /**
     * \param name a PipelineParallelApplication attribute \param value its value
     */
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Create a pipeline on a communicator (stage s = rank s) and add it to the node
     * of rank 0's NIC. Stops with a message naming a bad attribute and its value.
     * \param comm the stages' communicator
     * \return the application
     */
    ApplicationContainer Install(Ptr<Communicator> comm) const;

  private:
    ObjectFactory m_factory; //!< PipelineParallelApplication
};

} // namespace ns3

#endif /* AI_FABRIC_PIPELINE_PARALLEL_HELPER_H */
