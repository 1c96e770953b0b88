/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_LOAD_BALANCING_POLICY_H
#define AI_FABRIC_LOAD_BALANCING_POLICY_H

#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class EthernetSwitch;

/**
 * \ingroup ai-fabric
 * \brief How an EthernetSwitch chooses a packet's egress port among the
 * equal-cost ports of its route.
 *
 * A switch holds one policy, chosen by its LoadBalancingPolicy attribute (a TypeId,
 * as a TCP socket chooses its congestion control): EcmpLoadBalancing (the default),
 * PacketSprayLoadBalancing, AdaptiveLoadBalancing or CongestionAwareLoadBalancing.
 * Adding a policy means adding one subclass; the switch never asks which policy it
 * holds.
 *
 * The switch calls, in this order:
 * - Setup, once, when its first port is added (the policy reads the switch through
 *   the const interface below, and keeps a plain pointer: the switch owns it);
 * - SetPathView, if a topology builder gives the switch a view of the spines
 *   (EthernetClosHelper does, for every leaf; policies that do not look past the
 *   switch ignore it);
 * - RouteSet when SetRoute gives a host a new set of ports, and LivePortsChanged for
 *   every host when a link change alters which of its ports are usable;
 * - Choose for each packet whose route has two or more usable ports.
 *
 * What the switch offers a policy (all cheap, none allocates): HashFlow (the
 * 5-tuple hash with the switch's seed), GetEgressQueueBytes (bytes queued for a
 * port, all priorities), IsPortUp and GetRoute (the configured ports of a host).
 */
class LoadBalancingPolicy : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    LoadBalancingPolicy();
    ~LoadBalancingPolicy() override;

    /**
     * Bind the policy to its switch (before any other call).
     * \param sw the switch (it owns the policy and outlives its use)
     */
    virtual void Setup(const EthernetSwitch* sw);

    /**
     * What a leaf may know of congestion further along its paths: for each of its
     * ports, the spine it leads to (or none), and each spine's ports towards every
     * leaf. The default ignores it.
     * \param spines the spines \param uplinkSpine per port: the spine, or UINT32_MAX
     * \param spineDown spineDown[s][l]: spine s's ports towards leaf l
     * \param hostsPerLeaf hosts of a leaf (host h is on leaf h / hostsPerLeaf)
     */
    virtual void SetPathView(const std::vector<Ptr<EthernetSwitch>>& spines,
                             const std::vector<uint32_t>& uplinkSpine,
                             const std::vector<std::vector<std::vector<uint32_t>>>& spineDown,
                             uint32_t hostsPerLeaf);

    /**
     * A host was given a new set of ports: forget what was kept for its route. The
     * default does nothing.
     * \param host dense host index \param live its usable ports
     */
    virtual void RouteSet(uint32_t host, const std::vector<uint32_t>& live);

    /**
     * A link change may have altered a host's usable ports (called for every host).
     * The default does nothing.
     * \param host dense host index \param live its usable ports now
     */
    virtual void LivePortsChanged(uint32_t host, const std::vector<uint32_t>& live);

    /**
     * Choose the egress port of a packet.
     * \param head the first EthernetSwitch::PARSED_BYTES of the IPv4 packet (the
     *        IPv4 header and the UDP ports)
     * \param host its destination host
     * \param live the route's usable ports (two or more)
     * \return one of live
     */
    virtual uint32_t Choose(const uint8_t* head,
                            uint32_t host,
                            const std::vector<uint32_t>& live) = 0;

    /**
     * Assign fixed random streams (policies that draw random numbers).
     * \param stream first stream index
     * \return number of streams used (0 by default)
     */
    virtual int64_t AssignStreams(int64_t stream);

  protected:
    /// Forget the switch.
    void DoDispose() override;

    const EthernetSwitch* m_switch{nullptr}; //!< the switch choosing with this policy
};

} // namespace ns3

#endif /* AI_FABRIC_LOAD_BALANCING_POLICY_H */
