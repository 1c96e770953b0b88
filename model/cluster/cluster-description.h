/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CLUSTER_DESCRIPTION_H
#define AI_FABRIC_CLUSTER_DESCRIPTION_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>

namespace ns3
{

class CommandLine;

/**
 * \ingroup ai-fabric
 * \brief One description of a two-tier leaf-spine cluster, shared by every fabric
 * builder (the scheduled fabric and the Ethernet Clos build the same cluster from it).
 *
 * Hosts are numbered densely: host h sits on leaf h / hostsPerLeaf, at host port
 * h % hostsPerLeaf, and has the IPv4 address hostNetwork + h + 1. Every leaf connects
 * to every spine with linksPerLeafSpine parallel fabric links.
 *
 * Defaults follow a shipping distributed-disaggregated-chassis leaf: 18 host-facing
 * and 20 fabric-facing ports of equal speed (a 20/18 = 1.11 fabric speedup).
 */
struct ClusterDescription
{
    uint32_t leaves{2};                     //!< number of leaf switches
    uint32_t hostsPerLeaf{4};               //!< hosts attached to each leaf
    uint32_t spines{4};                     //!< number of spine switches
    uint32_t linksPerLeafSpine{1};          //!< parallel links per leaf-spine pair
    uint32_t hostPortsPerLeaf{18};          //!< host-facing ports a leaf has
    uint32_t fabricPortsPerLeaf{20};        //!< fabric-facing ports a leaf has
    DataRate hostLinkRate{"400Gbps"};       //!< host-leaf link rate
    Time hostLinkDelay{NanoSeconds(500)};   //!< host-leaf propagation delay
    DataRate fabricLinkRate{"400Gbps"};     //!< leaf-spine link rate
    Time fabricLinkDelay{NanoSeconds(500)}; //!< leaf-spine propagation delay
    Ipv4Address hostNetwork{"10.0.0.0"};    //!< first address of the host block
    uint32_t hostNetworkPrefixLength{8};    //!< prefix length of the host block

    /// \return the number of hosts (leaves x hostsPerLeaf)
    uint32_t GetHosts() const;

    /// \return the number of fabric links a leaf uses (spines x linksPerLeafSpine)
    uint32_t GetFabricLinksPerLeaf() const;

    /// \param host dense host index \return the leaf the host is attached to
    uint32_t GetLeafOfHost(uint32_t host) const;

    /// \param host dense host index \return the host port of its leaf
    uint32_t GetPortOfHost(uint32_t host) const;

    /// \param host dense host index \return the host's IPv4 address
    Ipv4Address GetHostAddress(uint32_t host) const;

    /**
     * \param address an IPv4 address
     * \return the dense host index of that address, or GetHosts() if the address
     *         belongs to no host of this cluster
     */
    uint32_t GetHostIndex(Ipv4Address address) const;

    /**
     * Stop with a message naming the parameter and its value if the description is
     * impossible (no leaves or spines, more hosts than host ports, more fabric links
     * than fabric ports, zero rates, negative delays, an address block too small).
     */
    void Validate() const;

    /**
     * Add every field to a command line as --<prefix><name>, so an example exposes
     * the whole cluster with one call.
     * \param cmd the command line
     * \param prefix prepended to each option name
     */
    void AddToCommandLine(CommandLine& cmd, const std::string& prefix = "");

    /// \return a one-line human-readable summary
    std::string ToString() const;
};

} // namespace ns3

#endif /* AI_FABRIC_CLUSTER_DESCRIPTION_H */
