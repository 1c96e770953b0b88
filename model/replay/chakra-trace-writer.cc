/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "chakra-trace-writer.h"

#include "ns3/log.h"

#ifdef AI_FABRIC_CHAKRA
#include "chakra-et.pb.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <map>
#include <nlohmann/json.hpp>
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraTraceWriter");

#ifndef AI_FABRIC_CHAKRA

std::string
ChakraTraceWriter::Write(const WorkloadGraph& /* graph */, const std::string& prefix)
{
    return prefix + ": this build writes no Chakra traces (protobuf was not found when the "
                    "module was configured; install libprotobuf-dev and protobuf-compiler)";
}

#else

namespace
{

/**
 * \param node the node to add it to \param name the attribute's name
 * \return a new attribute of the node
 */
ChakraProtoMsg::AttributeProto*
AddAttribute(ChakraProtoMsg::Node& node, const std::string& name)
{
    ChakraProtoMsg::AttributeProto* attr = node.add_attr();
    attr->set_name(name);
    return attr;
}

} // namespace

std::string
ChakraTraceWriter::Write(const WorkloadGraph& graph, const std::string& prefix)
{
    NS_LOG_FUNCTION(prefix);
    static const std::map<std::string, ChakraProtoMsg::CollectiveCommType> types{
        {"AllReduce", ChakraProtoMsg::ALL_REDUCE},
        {"Reduce", ChakraProtoMsg::REDUCE},
        {"AllGather", ChakraProtoMsg::ALL_GATHER},
        {"Broadcast", ChakraProtoMsg::BROADCAST},
        {"AlltoAll", ChakraProtoMsg::ALL_TO_ALL},
        {"AlltoAllv", ChakraProtoMsg::ALL_TO_ALL}, // with split_bytes
        {"ReduceScatter", ChakraProtoMsg::REDUCE_SCATTER},
        {"Barrier", ChakraProtoMsg::BARRIER},
    };
    const uint32_t ranks = graph.GetRanks();
    std::vector<uint32_t> world(ranks);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        world[r] = r;
    }
    // Process groups as a METADATA node lists them: the group of every rank in
    // order is the default one ("").
    std::vector<std::string> pgName(graph.groups.size());
    nlohmann::json groups = nlohmann::json::array();
    for (uint32_t g = 0; g < graph.groups.size(); ++g)
    {
        if (graph.groups[g] != world)
        {
            pgName[g] = std::to_string(g + 1);
            groups.push_back({{"pg_name", pgName[g]}, {"ranks", graph.groups[g]}});
        }
    }
    // Readers (ASTRA-sim's, this module's) drop two characters of quoting on each
    // side of the list before parsing it.
    const std::string groupsText = "[[" + groups.dump() + "]]";

    for (uint32_t r = 0; r < ranks; ++r)
    {
        const std::string path = prefix + "." + std::to_string(r) + ".et";
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        if (!out)
        {
            return path + ": cannot be written";
        }
        google::protobuf::io::OstreamOutputStream raw(&out);
        google::protobuf::io::CodedOutputStream coded(&raw);
        const auto put = [&coded](const google::protobuf::Message& message) {
            coded.WriteVarint32(static_cast<uint32_t>(message.ByteSizeLong()));
            message.SerializeWithCachedSizes(&coded);
        };
        ChakraProtoMsg::GlobalMetadata metadata;
        metadata.set_version("0.0.4");
        put(metadata);

        uint64_t nextId = 0;
        for (const WorkloadNode& node : graph.nodes[r])
        {
            nextId = std::max(nextId, node.id + 1);
        }
        ChakraProtoMsg::Node et;
        et.set_id(nextId);
        et.set_name("process groups");
        et.set_type(ChakraProtoMsg::METADATA_NODE);
        et.mutable_inputs()->set_values(groupsText);
        put(et);

        for (uint32_t i = 0; i < graph.nodes[r].size(); ++i)
        {
            const WorkloadNode& node = graph.nodes[r][i];
            et.Clear();
            et.set_id(node.id);
            et.set_name(graph.labels.at(node.label));
            for (uint64_t dep : node.deps)
            {
                et.add_data_deps(dep);
            }
            switch (node.kind)
            {
            case WorkloadNode::COMPUTE:
                et.set_type(ChakraProtoMsg::COMP_NODE);
                et.set_duration_micros(
                    static_cast<uint64_t>(std::llround(node.duration.GetSeconds() * 1e6)));
                AddAttribute(et, "duration_nanos")->set_int64_val(node.duration.GetNanoSeconds());
                if (node.flops > 0)
                {
                    AddAttribute(et, "num_ops")->set_int64_val(std::llround(node.flops));
                }
                break;
            case WorkloadNode::COLLECTIVE: {
                const auto type = types.find(node.collective);
                if (type == types.end())
                {
                    return graph.Describe(r, i) + ": " + node.collective +
                           " has no Chakra collective type";
                }
                const uint64_t members = graph.groups[node.group].size();
                et.set_type(ChakraProtoMsg::COMM_COLL_NODE);
                AddAttribute(et, "comm_type")->set_int64_val(type->second);
                AddAttribute(et, "comm_size")
                    ->set_int64_val(static_cast<int64_t>(type->second == ChakraProtoMsg::ALL_GATHER
                                                             ? node.bytes / members
                                                             : node.bytes));
                if (type->second == ChakraProtoMsg::ALL_GATHER && node.bytes % members != 0)
                {
                    return graph.Describe(r, i) + ": an AllGather of " +
                           std::to_string(node.bytes) + " B does not split evenly over " +
                           std::to_string(members) + " ranks";
                }
                AddAttribute(et, "pg_name")->set_string_val(pgName[node.group]);
                if (!node.split.empty())
                {
                    auto* split = AddAttribute(et, "split_bytes")->mutable_uint64_list();
                    for (uint64_t b : node.split)
                    {
                        split->add_values(b);
                    }
                }
                break;
            }
            case WorkloadNode::SEND:
            case WorkloadNode::RECV: {
                const bool send = node.kind == WorkloadNode::SEND;
                et.set_type(send ? ChakraProtoMsg::COMM_SEND_NODE : ChakraProtoMsg::COMM_RECV_NODE);
                AddAttribute(et, send ? "comm_dst" : "comm_src")->set_int64_val(node.peer);
                AddAttribute(et, "comm_tag")->set_int64_val(node.tag);
                AddAttribute(et, "comm_size")->set_int64_val(static_cast<int64_t>(node.bytes));
                break;
            }
            case WorkloadNode::NOOP:
                et.set_type(ChakraProtoMsg::INVALID_NODE);
                break;
            }
            if (node.kind != WorkloadNode::COMPUTE && node.kind != WorkloadNode::NOOP)
            {
                // The kind of traffic (TP, DP, ...), which Chakra does not record.
                AddAttribute(et, "traffic")->set_string_val(graph.trafficNames[node.traffic]);
            }
            put(et);
        }
        if (coded.HadError())
        {
            return path + ": cannot be written";
        }
    }
    return "";
}

#endif

} // namespace ns3
