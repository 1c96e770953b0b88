/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_ADAPTIVE_LOAD_BALANCING_H
#define AI_FABRIC_ADAPTIVE_LOAD_BALANCING_H

#include "load-balancing-policy.h"

#include "ns3/nstime.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Adaptive routing on the switch's own queues: a packet goes to the usable
 * port with the fewest bytes queued (all priorities); ties go to the flow's hashed
 * port (then the next ones in turn), so flows spread.
 *
 * Per packet (FlowletGap 0) or per flowlet: a flow's packets keep the port of its
 * first while they come less than FlowletGap apart. Flows hash into a table of
 * FlowletTableSize entries; a collision, a gap or a port no longer usable starts a
 * new flowlet. Subclasses weigh a port by more than its queue (GetPathBytes), as
 * CongestionAwareLoadBalancing does.
 */
class AdaptiveLoadBalancing : public LoadBalancingPolicy
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    AdaptiveLoadBalancing();
    ~AdaptiveLoadBalancing() override;

    uint32_t Choose(const uint8_t* head, uint32_t host, const std::vector<uint32_t>& live) override;

  protected:
    /**
     * How congested the path through a port is (the least wins).
     * \param port a usable port of the route \param host the destination
     * \return the bytes queued for the port
     */
    virtual uint64_t GetPathBytes(uint32_t port, uint32_t host) const;

  private:
    /**
     * \param head the packet's parsed head \param host its destination
     * \param live the usable ports of the route
     * \return the least congested of them by GetPathBytes
     */
    uint32_t ChooseLeastCongested(const uint8_t* head,
                                  uint32_t host,
                                  const std::vector<uint32_t>& live) const;

    /// A flowlet: the port a flow's packets take while they come closer than FlowletGap.
    struct Flowlet
    {
        uint32_t hash{0}; //!< the flow's hash
        uint32_t port{0}; //!< its port
        Time last{-1};    //!< its last packet (negative: empty)
    };

    Time m_flowletGap;               //!< FlowletGap (0: per packet)
    uint32_t m_flowletTableSize{0};  //!< FlowletTableSize
    std::vector<Flowlet> m_flowlets; //!< by hash, made on first use
};

} // namespace ns3

#endif /* AI_FABRIC_ADAPTIVE_LOAD_BALANCING_H */
