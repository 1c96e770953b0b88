/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_PIPELINE_SCHEDULE_H
#define AI_FABRIC_PIPELINE_SCHEDULE_H

#include "ns3/object.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The order in which one pipeline stage runs the forward and backward passes
 * of an iteration's microbatches (GPipe, 1F1B, ...), chosen by TypeId
 * (PipelineParallelApplication's Schedule attribute).
 *
 * A stage runs its passes in this order, each once its input has arrived: the
 * forward pass of microbatch m needs m's activations from the previous stage, the
 * backward pass the gradients from the next stage (the last stage: its own forward
 * pass of m).
 */
class PipelineSchedule : public Object
{
  public:
    /// One pass of one microbatch.
    struct Pass
    {
        bool forward;        //!< forward (else backward)
        uint32_t microbatch; //!< which microbatch
    };

    /// \return the TypeId
    static TypeId GetTypeId();
    ~PipelineSchedule() override;

    /**
     * \param stages S (> 0) \param microbatches M (> 0) \param stage this stage (< S)
     * \return the stage's passes in order: every microbatch forward once and
     * backward once, its forward first
     */
    virtual std::vector<Pass> GetPasses(uint32_t stages,
                                        uint32_t microbatches,
                                        uint32_t stage) const = 0;
};

} // namespace ns3

#endif /* AI_FABRIC_PIPELINE_SCHEDULE_H */
