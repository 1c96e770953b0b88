/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "checked-value.h"

#include <cstdlib>
#include <iostream>
#include <limits>

namespace ns3
{

void
RefuseOption(const std::string& program, const std::string& reason)
{
    std::cerr << program << ": " << reason << std::endl;
    std::exit(1);
}

void
AddCheckedBytes(CommandLine& cmd, const std::string& name, const std::string& help, uint64_t& value)
{
    uint64_t* field = &value;
    const std::string program = cmd.GetName();
    cmd.AddValue(
        name,
        help,
        [field, name, program](const std::string& text) {
            uint64_t number = 0;
            const std::string problem =
                FindWholeNumberProblem(text, std::numeric_limits<uint64_t>::max(), true, &number);
            if (!problem.empty())
            {
                RefuseOption(program, "--" + name + "=" + text + problem);
            }
            *field = number;
            return true;
        },
        std::to_string(value));
}

void
AddClusterToCommandLine(CommandLine& cmd,
                        ClusterDescription& cluster,
                        const std::string& prefix,
                        const std::map<std::string, std::string>& help)
{
    const auto add =
        [&cmd, &prefix, &help](const std::string& name, const std::string& text, auto& field) {
            const auto given = help.find(name);
            if (given == help.end())
            {
                AddCheckedValue(cmd, prefix + name, text, field);
            }
            else if (!given->second.empty())
            {
                AddCheckedValue(cmd, prefix + name, given->second, field);
            }
        };
    add("leaves", "number of leaf switches", cluster.leaves);
    add("hostsPerLeaf", "hosts attached to each leaf", cluster.hostsPerLeaf);
    add("spines", "number of spine switches", cluster.spines);
    add("linksPerLeafSpine",
        "parallel fabric links per leaf-spine pair",
        cluster.linksPerLeafSpine);
    add("hostPortsPerLeaf", "host-facing ports per leaf", cluster.hostPortsPerLeaf);
    add("fabricPortsPerLeaf", "fabric-facing ports per leaf", cluster.fabricPortsPerLeaf);
    add("hostLinkRate", "host-leaf link rate", cluster.hostLinkRate);
    add("hostLinkDelay", "host-leaf propagation delay", cluster.hostLinkDelay);
    add("fabricLinkRate", "leaf-spine link rate", cluster.fabricLinkRate);
    add("fabricLinkDelay", "leaf-spine propagation delay", cluster.fabricLinkDelay);
    add("hostNetwork", "first address of the host block", cluster.hostNetwork);
    add("hostNetworkPrefixLength",
        "prefix length of the host block",
        cluster.hostNetworkPrefixLength);
    add("gpusPerServer",
        "GPUs per server, each with its own NIC (one host); hosts must be a "
        "multiple of it when servers are used",
        cluster.gpusPerServer);
    add("nicPlacement",
        "GPU NICs on the leaves: rail (GPU g of every server on the leaf of rail g; "
        "leaves a multiple of gpusPerServer) or server (all GPUs of a server on one "
        "leaf; hostsPerLeaf a multiple of gpusPerServer)",
        cluster.nicPlacement);
}

} // namespace ns3
