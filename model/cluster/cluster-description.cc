/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cluster-description.h"

#include "ns3/abort.h"
#include "ns3/command-line.h"

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

void
ClusterDescription::Validate() const
{
    NS_ABORT_MSG_IF(leaves == 0, "ClusterDescription: leaves must be at least 1, got 0");
    NS_ABORT_MSG_IF(spines == 0, "ClusterDescription: spines must be at least 1, got 0");
    NS_ABORT_MSG_IF(hostsPerLeaf == 0,
                    "ClusterDescription: hostsPerLeaf must be at least 1, got 0");
    NS_ABORT_MSG_IF(linksPerLeafSpine == 0,
                    "ClusterDescription: linksPerLeafSpine must be at least 1, got 0");
    // Products in 64 bits first, so absurd values cannot wrap into plausible ones.
    const uint64_t hosts = uint64_t{leaves} * hostsPerLeaf;
    const uint64_t fabricLinks = uint64_t{spines} * linksPerLeafSpine;
    NS_ABORT_MSG_IF(hosts > (uint64_t{1} << 30),
                    "ClusterDescription: leaves=" << leaves << " x hostsPerLeaf=" << hostsPerLeaf
                                                  << " = " << hosts << " hosts is too many");
    NS_ABORT_MSG_IF(hostsPerLeaf > hostPortsPerLeaf,
                    "ClusterDescription: hostsPerLeaf="
                        << hostsPerLeaf << " exceeds hostPortsPerLeaf=" << hostPortsPerLeaf);
    NS_ABORT_MSG_IF(fabricLinks > fabricPortsPerLeaf,
                    "ClusterDescription: spines x linksPerLeafSpine = "
                        << fabricLinks << " exceeds fabricPortsPerLeaf=" << fabricPortsPerLeaf);
    NS_ABORT_MSG_IF(hostLinkRate.GetBitRate() == 0,
                    "ClusterDescription: hostLinkRate must be positive, got " << hostLinkRate);
    NS_ABORT_MSG_IF(fabricLinkRate.GetBitRate() == 0,
                    "ClusterDescription: fabricLinkRate must be positive, got " << fabricLinkRate);
    NS_ABORT_MSG_IF(hostLinkDelay.IsStrictlyNegative(),
                    "ClusterDescription: hostLinkDelay must not be negative, got "
                        << hostLinkDelay);
    NS_ABORT_MSG_IF(fabricLinkDelay.IsStrictlyNegative(),
                    "ClusterDescription: fabricLinkDelay must not be negative, got "
                        << fabricLinkDelay);
    NS_ABORT_MSG_IF(hostNetworkPrefixLength < 1 || hostNetworkPrefixLength > 30,
                    "ClusterDescription: hostNetworkPrefixLength must be in [1, 30], got "
                        << hostNetworkPrefixLength);
    const uint64_t usable = (uint64_t{1} << (32 - hostNetworkPrefixLength)) - 2;
    NS_ABORT_MSG_IF(hosts > usable,
                    "ClusterDescription: " << hosts << " hosts do not fit in hostNetwork="
                                           << hostNetwork << "/" << hostNetworkPrefixLength);
    const uint32_t mask = ~((uint32_t{1} << (32 - hostNetworkPrefixLength)) - 1);
    NS_ABORT_MSG_IF((hostNetwork.Get() & ~mask) != 0,
                    "ClusterDescription: hostNetwork=" << hostNetwork
                                                       << " is not the first address of a /"
                                                       << hostNetworkPrefixLength);
}

void
ClusterDescription::AddToCommandLine(CommandLine& cmd, const std::string& prefix)
{
    cmd.AddValue(prefix + "leaves", "number of leaf switches", leaves);
    cmd.AddValue(prefix + "hostsPerLeaf", "hosts attached to each leaf", hostsPerLeaf);
    cmd.AddValue(prefix + "spines", "number of spine switches", spines);
    cmd.AddValue(prefix + "linksPerLeafSpine",
                 "parallel fabric links per leaf-spine pair",
                 linksPerLeafSpine);
    cmd.AddValue(prefix + "hostPortsPerLeaf", "host-facing ports per leaf", hostPortsPerLeaf);
    cmd.AddValue(prefix + "fabricPortsPerLeaf", "fabric-facing ports per leaf", fabricPortsPerLeaf);
    cmd.AddValue(prefix + "hostLinkRate", "host-leaf link rate", hostLinkRate);
    cmd.AddValue(prefix + "hostLinkDelay", "host-leaf propagation delay", hostLinkDelay);
    cmd.AddValue(prefix + "fabricLinkRate", "leaf-spine link rate", fabricLinkRate);
    cmd.AddValue(prefix + "fabricLinkDelay", "leaf-spine propagation delay", fabricLinkDelay);
    cmd.AddValue(prefix + "hostNetwork", "first address of the host block", hostNetwork);
    cmd.AddValue(prefix + "hostNetworkPrefixLength",
                 "prefix length of the host block",
                 hostNetworkPrefixLength);
}

std::string
ClusterDescription::ToString() const
{
    std::ostringstream os;
    os << leaves << " leaves x " << hostsPerLeaf << " hosts (" << GetHosts() << " hosts), "
       << spines << " spines x " << linksPerLeafSpine << " links, host links " << hostLinkRate
       << " / " << hostLinkDelay.As(Time::NS) << ", fabric links " << fabricLinkRate << " / "
       << fabricLinkDelay.As(Time::NS);
    return os.str();
}

} // namespace ns3
