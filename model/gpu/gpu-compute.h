/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_GPU_COMPUTE_H
#define AI_FABRIC_GPU_COMPUTE_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-value.h"

#include <map>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The compute of one GPU, as the workloads see it: a nominal compute time
 * (a forward pass, an expert's tokens) takes that time times the GPU's current
 * slowdown factor, 1 unless a straggler has been scheduled (thermal throttling, a
 * slow GPU, a noisy neighbour).
 *
 * A pass takes the factor in force when it starts. CollectiveHelper creates one per
 * GPU (Communicator::Member::compute).
 */
class GpuCompute : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    GpuCompute();
    ~GpuCompute() override;

    /**
     * From a time on, compute takes factor times its nominal time.
     * \param factor slowdown (> 0; 1 restores the nominal speed, 2 is half speed)
     * \param at simulation time from which it holds (>= 0, absolute)
     */
    void ScheduleSlowdown(double factor, Time at);

    /// \return the factor in force now
    double GetSlowdown() const;

    /// \param nominal a compute time at full speed \return the time it takes now
    Time GetComputeTime(Time nominal) const;

  protected:
    /// Nothing of its own to release.
    void DoDispose() override;

  private:
    TracedValue<double> m_slowdown; //!< the factor in force
};

} // namespace ns3

#endif /* AI_FABRIC_GPU_COMPUTE_H */
