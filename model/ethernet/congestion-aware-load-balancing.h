/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CONGESTION_AWARE_LOAD_BALANCING_H
#define AI_FABRIC_CONGESTION_AWARE_LOAD_BALANCING_H

#include "adaptive-load-balancing.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Adaptive routing on the whole path (CONGA-like): a leaf's uplink counts the
 * larger of its own queue and the least queued port of its spine towards the
 * destination's leaf, as CONGA-like feedback reports it (here without feedback
 * delay). Without a path view (SetPathView), or for a port that leads to no spine,
 * it weighs the switch's own queue only, as AdaptiveLoadBalancing does. Flowlets
 * (FlowletGap, FlowletTableSize) are AdaptiveLoadBalancing's attributes: set on an
 * instance they apply to it alone, but their defaults are set by name as
 * ns3::AdaptiveLoadBalancing::FlowletGap (ns-3's Config::SetDefault and the
 * --ns3:: options know a TypeId's own attributes only), for both policies.
 */
class CongestionAwareLoadBalancing : public AdaptiveLoadBalancing
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    CongestionAwareLoadBalancing();
    ~CongestionAwareLoadBalancing() override;

    void SetPathView(const std::vector<Ptr<EthernetSwitch>>& spines,
                     const std::vector<uint32_t>& uplinkSpine,
                     const std::vector<std::vector<std::vector<uint32_t>>>& spineDown,
                     uint32_t hostsPerLeaf) override;

  protected:
    /// Release the spines.
    void DoDispose() override;
    uint64_t GetPathBytes(uint32_t port, uint32_t host) const override;

  private:
    std::vector<Ptr<EthernetSwitch>> m_spines; //!< the spines
    std::vector<uint32_t> m_uplinkSpine;       //!< per port: its spine (or none)
    /// [spine][leaf]: the spine's ports towards the leaf
    std::vector<std::vector<std::vector<uint32_t>>> m_spineDown;
    uint32_t m_hostsPerLeaf{0}; //!< to find a host's leaf (0: no view)
};

} // namespace ns3

#endif /* AI_FABRIC_CONGESTION_AWARE_LOAD_BALANCING_H */
