/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_ECMP_LOAD_BALANCING_H
#define AI_FABRIC_ECMP_LOAD_BALANCING_H

#include "load-balancing-policy.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Per-flow ECMP: the 5-tuple hash (addresses, protocol, UDP ports; RoCEv2
 * puts per-queue-pair entropy in the UDP source port) with the switch's seed picks
 * the port, so a flow keeps one path.
 *
 * Resilient hashing (HashBucketsPerPort > 0), without a table: bucket b of
 * P x HashBucketsPerPort belongs to port b mod P of the route's P configured ports;
 * while that port is down, its buckets are dealt over the live ports by b / P, so
 * only the flows that used it change path. With every port up this is the hash
 * modulo P, as without resilient hashing (where a failure moves most flows).
 */
class EcmpLoadBalancing : public LoadBalancingPolicy
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    EcmpLoadBalancing();
    ~EcmpLoadBalancing() override;

    uint32_t Choose(const uint8_t* head, uint32_t host, const std::vector<uint32_t>& live) override;

  private:
    uint32_t m_bucketsPerPort{64}; //!< HashBucketsPerPort (0: no resilient hashing)
};

} // namespace ns3

#endif /* AI_FABRIC_ECMP_LOAD_BALANCING_H */
