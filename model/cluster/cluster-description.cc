/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cluster-description.h"

#include "ns3/abort.h"

#include <sstream>

namespace ns3
{

uint32_t
ClusterDescription::GetHosts() const
{
    return leaves * hostsPerLeaf;
}

uint32_t
ClusterDescription::GetFabricLinksPerLeaf() const
{
    return spines * linksPerLeafSpine;
}

uint32_t
ClusterDescription::GetLeafOfHost(uint32_t host) const
{
    NS_ABORT_MSG_IF(host >= GetHosts(),
                    "host index " << host << " out of range (cluster has " << GetHosts()
                                  << " hosts)");
    return host / hostsPerLeaf;
}

uint32_t
ClusterDescription::GetPortOfHost(uint32_t host) const
{
    NS_ABORT_MSG_IF(host >= GetHosts(),
                    "host index " << host << " out of range (cluster has " << GetHosts()
                                  << " hosts)");
    return host % hostsPerLeaf;
}

Ipv4Address
ClusterDescription::GetHostAddress(uint32_t host) const
{
    NS_ABORT_MSG_IF(host >= GetHosts(),
                    "host index " << host << " out of range (cluster has " << GetHosts()
                                  << " hosts)");
    return Ipv4Address(hostNetwork.Get() + host + 1);
}

uint32_t
ClusterDescription::GetHostIndex(Ipv4Address address) const
{
    const uint32_t offset = address.Get() - hostNetwork.Get();
    // Unsigned arithmetic: an address below the block wraps to a huge offset.
    if (offset == 0 || offset > GetHosts())
    {
        return GetHosts();
    }
    return offset - 1;
}

std::string
ClusterDescription::FindProblem() const
{
    std::ostringstream problem;
    // Products in 64 bits first, so absurd values cannot wrap into plausible ones.
    const uint64_t hosts = uint64_t{leaves} * hostsPerLeaf;
    const uint64_t fabricLinks = uint64_t{spines} * linksPerLeafSpine;
    if (leaves == 0)
    {
        problem << "ClusterDescription: leaves must be at least 1, got 0";
    }
    else if (spines == 0)
    {
        problem << "ClusterDescription: spines must be at least 1, got 0";
    }
    else if (hostsPerLeaf == 0)
    {
        problem << "ClusterDescription: hostsPerLeaf must be at least 1, got 0";
    }
    else if (linksPerLeafSpine == 0)
    {
        problem << "ClusterDescription: linksPerLeafSpine must be at least 1, got 0";
    }
    else if (hosts > (uint64_t{1} << 30))
    {
        problem << "ClusterDescription: leaves=" << leaves << " x hostsPerLeaf=" << hostsPerLeaf
                << " = " << hosts << " hosts is too many";
    }
    else if (hostsPerLeaf > hostPortsPerLeaf)
    {
        problem << "ClusterDescription: hostsPerLeaf=" << hostsPerLeaf
                << " exceeds hostPortsPerLeaf=" << hostPortsPerLeaf;
    }
    else if (fabricLinks > fabricPortsPerLeaf)
    {
        problem << "ClusterDescription: spines x linksPerLeafSpine = " << fabricLinks
                << " exceeds fabricPortsPerLeaf=" << fabricPortsPerLeaf;
    }
    else if (hostLinkRate.GetBitRate() == 0)
    {
        problem << "ClusterDescription: hostLinkRate must be positive, got " << hostLinkRate;
    }
    else if (fabricLinkRate.GetBitRate() == 0)
    {
        problem << "ClusterDescription: fabricLinkRate must be positive, got " << fabricLinkRate;
    }
    else if (hostLinkDelay.IsStrictlyNegative())
    {
        problem << "ClusterDescription: hostLinkDelay must not be negative, got " << hostLinkDelay;
    }
    else if (fabricLinkDelay.IsStrictlyNegative())
    {
        problem << "ClusterDescription: fabricLinkDelay must not be negative, got "
                << fabricLinkDelay;
    }
    else if (hostNetworkPrefixLength < 1 || hostNetworkPrefixLength > 30)
    {
        problem << "ClusterDescription: hostNetworkPrefixLength must be in [1, 30], got "
                << hostNetworkPrefixLength;
    }
    else if (hosts > (uint64_t{1} << (32 - hostNetworkPrefixLength)) - 2)
    {
        problem << "ClusterDescription: " << hosts
                << " hosts do not fit in hostNetwork=" << hostNetwork << "/"
                << hostNetworkPrefixLength;
    }
    else if ((hostNetwork.Get() & ((uint32_t{1} << (32 - hostNetworkPrefixLength)) - 1)) != 0)
    {
        problem << "ClusterDescription: hostNetwork=" << hostNetwork
                << " is not the first address of a /" << hostNetworkPrefixLength;
    }
    return problem.str();
}

void
ClusterDescription::Validate() const
{
    const std::string problem = FindProblem();
    NS_ABORT_MSG_IF(!problem.empty(), problem);
}

std::string
ClusterDescription::FindServerProblem() const
{
    std::ostringstream problem;
    if (gpusPerServer == 0)
    {
        problem << "ClusterDescription: gpusPerServer must be at least 1, got 0";
    }
    else if (GetHosts() % gpusPerServer != 0)
    {
        problem << "ClusterDescription: leaves=" << leaves << " x hostsPerLeaf=" << hostsPerLeaf
                << " = " << GetHosts()
                << " hosts is not a multiple of gpusPerServer=" << gpusPerServer;
    }
    else if (nicPlacement == "rail")
    {
        if (leaves % gpusPerServer != 0)
        {
            problem << "ClusterDescription: nicPlacement=rail needs leaves a multiple of "
                       "gpusPerServer (one leaf per rail), got leaves="
                    << leaves << " and gpusPerServer=" << gpusPerServer;
        }
    }
    else if (nicPlacement == "server")
    {
        if (hostsPerLeaf % gpusPerServer != 0)
        {
            problem << "ClusterDescription: nicPlacement=server needs hostsPerLeaf a multiple "
                       "of gpusPerServer (a server on one leaf), got hostsPerLeaf="
                    << hostsPerLeaf << " and gpusPerServer=" << gpusPerServer;
        }
    }
    else
    {
        problem << "ClusterDescription: nicPlacement=\"" << nicPlacement
                << "\" is unknown (valid: rail, server)";
    }
    return problem.str();
}

void
ClusterDescription::ValidateServers() const
{
    const std::string problem = FindServerProblem();
    NS_ABORT_MSG_IF(!problem.empty(), problem);
}

uint32_t
ClusterDescription::GetServers() const
{
    ValidateServers();
    return GetHosts() / gpusPerServer;
}

uint32_t
ClusterDescription::GetHostOfGpu(uint32_t rank) const
{
    ValidateServers();
    NS_ABORT_MSG_IF(rank >= GetHosts(),
                    "GPU rank " << rank << " out of range (cluster has " << GetHosts() << " GPUs)");
    if (nicPlacement == "server")
    {
        return rank; // server s holds hosts s x G .. s x G + G - 1
    }
    const uint32_t server = rank / gpusPerServer;
    const uint32_t gpu = rank % gpusPerServer;
    const uint32_t group = server / hostsPerLeaf;
    const uint32_t port = server % hostsPerLeaf;
    return (group * gpusPerServer + gpu) * hostsPerLeaf + port;
}

uint32_t
ClusterDescription::GetGpuOfHost(uint32_t host) const
{
    ValidateServers();
    NS_ABORT_MSG_IF(host >= GetHosts(),
                    "host index " << host << " out of range (cluster has " << GetHosts()
                                  << " hosts)");
    if (nicPlacement == "server")
    {
        return host;
    }
    const uint32_t leaf = host / hostsPerLeaf;
    const uint32_t port = host % hostsPerLeaf;
    const uint32_t group = leaf / gpusPerServer;
    const uint32_t gpu = leaf % gpusPerServer;
    return (group * hostsPerLeaf + port) * gpusPerServer + gpu;
}

uint32_t
ClusterDescription::GetServerOfRank(uint32_t rank) const
{
    ValidateServers();
    NS_ABORT_MSG_IF(rank >= GetHosts(),
                    "GPU rank " << rank << " out of range (cluster has " << GetHosts() << " GPUs)");
    return rank / gpusPerServer;
}

uint32_t
ClusterDescription::GetLocalGpu(uint32_t rank) const
{
    ValidateServers();
    NS_ABORT_MSG_IF(rank >= GetHosts(),
                    "GPU rank " << rank << " out of range (cluster has " << GetHosts() << " GPUs)");
    return rank % gpusPerServer;
}

std::string
ClusterDescription::ToString() const
{
    std::ostringstream os;
    os << leaves << " leaves x " << hostsPerLeaf << " hosts (" << GetHosts() << " hosts), "
       << spines << " spines x " << linksPerLeafSpine << " links, host links " << hostLinkRate
       << " / " << hostLinkDelay.As(Time::NS) << ", fabric links " << fabricLinkRate << " / "
       << fabricLinkDelay.As(Time::NS) << ", " << gpusPerServer << " GPUs per server, "
       << nicPlacement << " NIC placement";
    return os.str();
}

} // namespace ns3
