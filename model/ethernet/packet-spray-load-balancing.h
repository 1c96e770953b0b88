/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_PACKET_SPRAY_LOAD_BALANCING_H
#define AI_FABRIC_PACKET_SPRAY_LOAD_BALANCING_H

#include "load-balancing-policy.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Per-packet spraying: packets to a host are dealt round robin over its
 * route's usable ports, with one cursor per destination host (so interleaved
 * traffic to different hosts does not disturb each other's rotation).
 *
 * A new route restarts its cursor at the first port; a link change that leaves the
 * cursor past the usable ports restarts it too.
 */
class PacketSprayLoadBalancing : public LoadBalancingPolicy
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    PacketSprayLoadBalancing();
    ~PacketSprayLoadBalancing() override;

    void RouteSet(uint32_t host, const std::vector<uint32_t>& live) override;
    void LivePortsChanged(uint32_t host, const std::vector<uint32_t>& live) override;
    uint32_t Choose(const uint8_t* head, uint32_t host, const std::vector<uint32_t>& live) override;

  private:
    std::vector<uint32_t> m_next; //!< per destination host: position of its next port
};

} // namespace ns3

#endif /* AI_FABRIC_PACKET_SPRAY_LOAD_BALANCING_H */
