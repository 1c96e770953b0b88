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
 *
 * GPU servers: every host is the NIC of one GPU, and servers hold gpusPerServer GPUs
 * each (servers = hosts / gpusPerServer). GPU rank r is GPU r % gpusPerServer of
 * server r / gpusPerServer. Host numbering does not depend on the servers, so both
 * fabric builders build either NIC placement unchanged; only the GPU <-> host
 * mapping does (G = gpusPerServer, H = hostsPerLeaf):
 *
 * - "rail" (rail-optimised, as in current AI clusters): servers form rail groups of
 *   H servers; server s is in group k = s / H at port p = s % H, and its GPU g sits
 *   on leaf k x G + g, i.e. on host (k x G + g) x H + p. GPU g of every server of a
 *   group is on the same leaf (rail g). Needs leaves % G == 0.
 * - "server": all GPUs of server s on one leaf, on hosts s x G .. s x G + G - 1
 *   (rank = host). Needs H % G == 0.
 *
 * Validate() does not check the servers (clusters without GPU servers need not
 * divide into them); code that uses servers calls ValidateServers(), and every
 * server accessor below does.
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
    uint32_t gpusPerServer{8};              //!< GPUs (one NIC each) per server
    std::string nicPlacement{"rail"};       //!< "rail" or "server" (see above)

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
     * What makes the description impossible (no leaves or spines, more hosts than host
     * ports, more fabric links than fabric ports, zero rates, negative delays, an
     * address block too small), for a caller that reports bad input itself.
     * \return a message naming the parameter and its value, or "" if the description
     *         is possible
     */
    std::string FindProblem() const;

    /// Stop with the message of FindProblem() if the description is impossible.
    void Validate() const;

    /**
     * What keeps the hosts from being divided into GPU servers: gpusPerServer of 0,
     * hosts not a multiple of gpusPerServer, an unknown nicPlacement, or the
     * placement's condition ("rail": leaves a multiple of gpusPerServer; "server":
     * hostsPerLeaf a multiple of gpusPerServer). Not part of FindProblem().
     * \return a message naming the field and its value, or "" if the servers are
     *         possible
     */
    std::string FindServerProblem() const;

    /// Stop with the message of FindServerProblem() if the servers are impossible.
    void ValidateServers() const;

    /// \return the number of GPU servers (hosts / gpusPerServer)
    uint32_t GetServers() const;

    /**
     * \param rank GPU rank (server x gpusPerServer + local GPU)
     * \return the dense index of the host that is the GPU's NIC
     */
    uint32_t GetHostOfGpu(uint32_t rank) const;

    /**
     * \param host dense host index
     * \return the GPU rank whose NIC the host is (the inverse of GetHostOfGpu)
     */
    uint32_t GetGpuOfHost(uint32_t host) const;

    /// \param rank GPU rank \return the server the GPU belongs to
    uint32_t GetServerOfRank(uint32_t rank) const;

    /// \param rank GPU rank \return the GPU's index inside its server
    uint32_t GetLocalGpu(uint32_t rank) const;

    /// \return a one-line human-readable summary
    std::string ToString() const;
};

} // namespace ns3

#endif /* AI_FABRIC_CLUSTER_DESCRIPTION_H */
