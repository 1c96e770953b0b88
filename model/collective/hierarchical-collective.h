/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_HIERARCHICAL_COLLECTIVE_H
#define AI_FABRIC_HIERARCHICAL_COLLECTIVE_H

#include "collective-operation.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A collective run as phases on the servers' scale-up domains and on the
 * rails between servers (Communicator::GetHierarchy), as NCCL's hierarchical
 * algorithms do.
 *
 * A subclass plans the phases; each phase runs one operation per group (every server,
 * or every rail) at once, with this operation's Channels, ChunkSize and
 * ReductionRate; the next phase starts when every group of the previous one has
 * finished. The traffic of every phase counts as this operation's.
 */
class HierarchicalCollective : public CollectiveOperation
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    HierarchicalCollective();
    ~HierarchicalCollective() override;

  protected:
    /// One phase.
    struct Phase
    {
        bool onRails{false};                //!< groups are the rails (else the servers)
        std::string algorithm;              //!< TypeId name of each group's operation
        std::vector<uint64_t> bytesOfGroup; //!< S of each group's operation
    };

    /**
     * \param h the communicator's servers and rails
     * \return the phases, in order
     */
    virtual std::vector<Phase> PlanPhases(const Communicator::Hierarchy& h) const = 0;

    void DoStart() override;
    /// Release the phases and the hierarchy.
    void DoDispose() override;

  private:
    /// Start phase m_phase on every group.
    void StartPhase();
    /// A group finished the current phase.
    /// \param ranks the group's ranks \param result its operation's result
    void OnGroupDone(const std::vector<uint32_t>* ranks, const CollectiveResult& result);

    std::vector<Phase> m_phases;                         //!< the plan
    std::size_t m_phase{0};                              //!< phase running
    uint32_t m_groupsLeft{0};                            //!< groups of the phase still running
    const Communicator::Hierarchy* m_hierarchy{nullptr}; //!< owned by m_comm
};

} // namespace ns3

#endif /* AI_FABRIC_HIERARCHICAL_COLLECTIVE_H */
