/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "chakra-trace-reader.h"

#include "ns3/log.h"

#ifdef AI_FABRIC_CHAKRA
#include "chakra-et.pb.h"

#include <filesystem>
#include <fstream>
#include <google/protobuf/io/coded_stream.h>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <vector>
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraTraceReader");

#ifndef AI_FABRIC_CHAKRA

bool
ChakraTraceReader::IsAvailable()
{
    return false;
}

std::string
ChakraTraceReader::Read(const std::string& prefix,
                        uint32_t /* gpus */,
                        const std::string& /* groupsFile */,
                        WorkloadGraph& /* graph */)
{
    return prefix + ": this build reads no Chakra traces (protobuf was not found when the "
                    "module was configured; install libprotobuf-dev and protobuf-compiler)";
}

#else

namespace
{

/**
 * \param node a node \param name an attribute \param value set to its value if it
 *        has an integer or boolean one
 * \return whether it has
 */
bool
GetInteger(const ChakraProtoMsg::Node& node, const std::string& name, int64_t* value)
{
    for (const auto& attr : node.attr())
    {
        if (attr.name() != name)
        {
            continue;
        }
        switch (attr.value_case())
        {
        case ChakraProtoMsg::AttributeProto::kInt32Val:
            *value = attr.int32_val();
            return true;
        case ChakraProtoMsg::AttributeProto::kInt64Val:
            *value = attr.int64_val();
            return true;
        case ChakraProtoMsg::AttributeProto::kUint32Val:
            *value = attr.uint32_val();
            return true;
        case ChakraProtoMsg::AttributeProto::kUint64Val:
            *value = static_cast<int64_t>(attr.uint64_val());
            return true;
        case ChakraProtoMsg::AttributeProto::kBoolVal:
            *value = attr.bool_val();
            return true;
        default:
            return false;
        }
    }
    return false;
}

/// \param node a node \param name an attribute \return its text ("" if none)
std::string
GetText(const ChakraProtoMsg::Node& node, const std::string& name)
{
    for (const auto& attr : node.attr())
    {
        if (attr.name() == name && attr.value_case() == ChakraProtoMsg::AttributeProto::kStringVal)
        {
            return attr.string_val();
        }
    }
    return "";
}

/**
 * \param node a Chakra node \param split filled with its split_bytes attribute
 * \return whether it has one (a list of bytes per peer, which this module's writer
 *         adds to an uneven ALL_TO_ALL)
 */
bool
GetSplit(const ChakraProtoMsg::Node& node, std::vector<uint64_t>& split)
{
    for (const auto& attr : node.attr())
    {
        if (attr.name() == "split_bytes" &&
            attr.value_case() == ChakraProtoMsg::AttributeProto::kUint64List)
        {
            split.assign(attr.uint64_list().values().begin(), attr.uint64_list().values().end());
            return true;
        }
    }
    return false;
}

/// A collective whose group is known only once every file has been read.
struct PendingCollective
{
    uint32_t rank{0};    //!< its rank
    uint32_t index{0};   //!< its node
    std::string pg;      //!< its process group's name
    bool perRank{false}; //!< bytes are each rank's (ALL_GATHER): S = bytes x size
};

/**
 * Add process groups from JSON.
 * \param groups filled: name -> ranks \param text [{"pg_name": .., "ranks": [..]}]
 *        or {"name": [ranks], ...} \param ranks the job's ranks (empty list: all)
 * \return "" or the problem
 */
std::string
AddGroups(std::map<std::string, std::vector<uint32_t>>& groups,
          const std::string& text,
          uint32_t ranks)
{
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded())
    {
        return "is not JSON";
    }
    const auto toRanks = [ranks](const nlohmann::json& list, std::vector<uint32_t>* out) {
        if (!list.is_array())
        {
            return false;
        }
        for (const auto& r : list)
        {
            if (!r.is_number_unsigned())
            {
                return false;
            }
            out->push_back(r.get<uint32_t>());
        }
        if (out->empty())
        {
            for (uint32_t r = 0; r < ranks; ++r)
            {
                out->push_back(r);
            }
        }
        return true;
    };
    // Every rank's METADATA node may list the same groups: the same again is fine.
    const auto add = [&groups, &toRanks](const std::string& name,
                                         const nlohmann::json& list) -> std::string {
        std::vector<uint32_t> members;
        if (!toRanks(list, &members))
        {
            return "group " + name + " is not a list of ranks";
        }
        const auto [it, added] = groups.emplace(name, members);
        if (!added && it->second != members)
        {
            return "group " + name + " is given twice, with other ranks";
        }
        return "";
    };
    if (j.is_object())
    {
        for (const auto& [name, list] : j.items())
        {
            const std::string problem = add(name, list);
            if (!problem.empty())
            {
                return problem;
            }
        }
        return "";
    }
    if (!j.is_array())
    {
        return "is neither {\"name\": [ranks]} nor [{\"pg_name\": .., \"ranks\": [..]}]";
    }
    for (const auto& entry : j)
    {
        if (!entry.is_object() || !entry.contains("pg_name") || !entry.contains("ranks"))
        {
            return "an entry has no pg_name and ranks";
        }
        const std::string name = entry["pg_name"].is_string() ? entry["pg_name"].get<std::string>()
                                                              : entry["pg_name"].dump();
        const std::string problem = add(name, entry["ranks"]);
        if (!problem.empty())
        {
            return problem;
        }
    }
    return "";
}

} // namespace

bool
ChakraTraceReader::IsAvailable()
{
    return true;
}

std::string
ChakraTraceReader::Read(const std::string& prefix,
                        uint32_t gpus,
                        const std::string& groupsFile,
                        WorkloadGraph& graph)
{
    NS_LOG_FUNCTION(prefix << gpus << groupsFile);
    graph = WorkloadGraph();
    graph.source = prefix;

    // The rank files: PREFIX.<rank>.et, ranks 0 .. N-1 with none missing.
    namespace fs = std::filesystem;
    const fs::path base(prefix);
    const fs::path dir = base.has_parent_path() ? base.parent_path() : fs::path(".");
    const std::string stem = base.filename().string() + ".";
    std::set<uint32_t> found;
    std::error_code error;
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error))
    {
        const std::string name = it->path().filename().string();
        if (name.size() > stem.size() + 3 && name.compare(0, stem.size(), stem) == 0 &&
            name.compare(name.size() - 3, 3, ".et") == 0)
        {
            const std::string number = name.substr(stem.size(), name.size() - stem.size() - 3);
            if (!number.empty() && number.size() < 10 &&
                number.find_first_not_of("0123456789") == std::string::npos)
            {
                found.insert(static_cast<uint32_t>(std::stoul(number)));
            }
        }
    }
    if (found.empty() || *found.begin() != 0)
    {
        return prefix + ".0.et: no such file" +
               (found.empty()
                    ? ""
                    : " (" + prefix + "." + std::to_string(*found.begin()) + ".et exists)");
    }
    const uint32_t ranks = *found.rbegin() + 1;
    if (found.size() != ranks)
    {
        uint32_t missing = 0;
        while (found.count(missing))
        {
            ++missing;
        }
        return prefix + "." + std::to_string(missing) + ".et: missing (ranks go up to " +
               std::to_string(ranks - 1) + ")";
    }
    if (ranks > gpus)
    {
        return prefix + ": " + std::to_string(ranks) + " ranks, more than the job's " +
               std::to_string(gpus) + " GPUs";
    }

    std::map<std::string, std::vector<uint32_t>> pgs;
    if (!groupsFile.empty())
    {
        std::ifstream in(groupsFile);
        if (!in)
        {
            return groupsFile + ": cannot be read";
        }
        const std::string text((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        const std::string problem = AddGroups(pgs, text, ranks);
        if (!problem.empty())
        {
            return groupsFile + ": " + problem;
        }
    }

    const uint32_t p2p = graph.AddTraffic("send/recv");
    std::vector<PendingCollective> pending;
    graph.nodes.assign(ranks, {});
    std::string version;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        const std::string path = prefix + "." + std::to_string(r) + ".et";
        std::ifstream in(path, std::ios::binary);
        const std::string data((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        if (!in.eof() && in.fail())
        {
            return path + ": cannot be read";
        }
        google::protobuf::io::CodedInputStream coded(reinterpret_cast<const uint8_t*>(data.data()),
                                                     static_cast<int>(data.size()));
        const auto next = [&coded, &data, &path](google::protobuf::Message& message,
                                                 const std::string& what) -> std::string {
            const int at = coded.CurrentPosition();
            uint32_t size = 0;
            if (!coded.ReadVarint32(&size))
            {
                return path + ": " + what + " at byte " + std::to_string(at) + ": corrupt length";
            }
            if (size > data.size() - coded.CurrentPosition())
            {
                return path + ": " + what + " at byte " + std::to_string(at) + ": truncated (" +
                       std::to_string(size) + " B announced, " +
                       std::to_string(data.size() - coded.CurrentPosition()) + " B left)";
            }
            const auto limit = coded.PushLimit(static_cast<int>(size));
            const bool ok = message.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
            coded.PopLimit(limit);
            return ok ? "" : path + ": " + what + " at byte " + std::to_string(at) + ": corrupt";
        };
        ChakraProtoMsg::GlobalMetadata metadata;
        if (data.empty())
        {
            return path + ": empty (no GlobalMetadata)";
        }
        std::string problem = next(metadata, "the GlobalMetadata");
        if (!problem.empty())
        {
            return problem;
        }
        version = metadata.version();
        std::vector<WorkloadNode>& nodes = graph.nodes[r];
        ChakraProtoMsg::Node et;
        while (static_cast<std::size_t>(coded.CurrentPosition()) < data.size())
        {
            problem = next(et, "node " + std::to_string(nodes.size()));
            if (!problem.empty())
            {
                return problem;
            }
            WorkloadNode node;
            node.id = et.id();
            node.label = graph.AddLabel(et.name());
            node.deps.assign(et.data_deps().begin(), et.data_deps().end());
            node.deps.insert(node.deps.end(), et.ctrl_deps().begin(), et.ctrl_deps().end());
            // This module's writer names each message's and collective's kind.
            const std::string trafficName = GetText(et, "traffic");
            node.traffic = trafficName.empty() ? p2p : graph.AddTraffic(trafficName);
            const std::string where =
                path + ": node " + std::to_string(et.id()) + " (" + et.name() + ")";
            int64_t value = 0;
            const auto need = [&](const std::string& name, int64_t min, int64_t* out) {
                if (!GetInteger(et, name, out))
                {
                    return where + ": no " + name;
                }
                if (*out < min)
                {
                    return where + ": " + name + " " + std::to_string(*out) + " is below " +
                           std::to_string(min);
                }
                return std::string();
            };
            switch (et.type())
            {
            case ChakraProtoMsg::COMP_NODE:
                node.kind = WorkloadNode::COMPUTE;
                // duration_nanos: the exact time, where ChakraTraceWriter wrote it.
                node.duration = GetInteger(et, "duration_nanos", &value) && value >= 0
                                    ? NanoSeconds(value)
                                    : MicroSeconds(et.duration_micros());
                if (node.duration.IsZero() && GetInteger(et, "num_ops", &value) && value > 0)
                {
                    node.flops = static_cast<double>(value);
                }
                break;
            case ChakraProtoMsg::COMM_SEND_NODE:
            case ChakraProtoMsg::COMM_RECV_NODE: {
                const bool send = et.type() == ChakraProtoMsg::COMM_SEND_NODE;
                node.kind = send ? WorkloadNode::SEND : WorkloadNode::RECV;
                int64_t bytes = 0;
                int64_t peer = 0;
                int64_t tag = 0;
                for (const std::string& p : {need("comm_size", 0, &bytes),
                                             need(send ? "comm_dst" : "comm_src", 0, &peer),
                                             need("comm_tag", INT64_MIN, &tag)})
                {
                    if (!p.empty())
                    {
                        return p;
                    }
                }
                node.bytes = static_cast<uint64_t>(bytes);
                node.peer = static_cast<uint32_t>(std::min<int64_t>(peer, UINT32_MAX));
                node.tag = tag;
                break;
            }
            case ChakraProtoMsg::COMM_COLL_NODE: {
                int64_t type = 0;
                int64_t bytes = 0;
                for (const std::string& p :
                     {need("comm_type", 0, &type), need("comm_size", 0, &bytes)})
                {
                    if (!p.empty())
                    {
                        return p;
                    }
                }
                static const std::map<int64_t, std::string> modelled{
                    {ChakraProtoMsg::ALL_REDUCE, "AllReduce"},
                    {ChakraProtoMsg::REDUCE, "Reduce"},
                    {ChakraProtoMsg::ALL_GATHER, "AllGather"},
                    {ChakraProtoMsg::BROADCAST, "Broadcast"},
                    {ChakraProtoMsg::ALL_TO_ALL, "AlltoAll"},
                    {ChakraProtoMsg::REDUCE_SCATTER, "ReduceScatter"},
                    {ChakraProtoMsg::BARRIER, "Barrier"},
                };
                if (!ChakraProtoMsg::CollectiveCommType_IsValid(static_cast<int>(type)))
                {
                    return where + ": unknown collective type comm_type " + std::to_string(type);
                }
                const auto it = modelled.find(type);
                if (it == modelled.end())
                {
                    node.kind = WorkloadNode::NOOP;
                    graph.unmodelled[ChakraProtoMsg::CollectiveCommType_Name(
                        static_cast<ChakraProtoMsg::CollectiveCommType>(type))]++;
                    break;
                }
                node.kind = WorkloadNode::COLLECTIVE;
                node.collective = it->second;
                node.bytes = type == ChakraProtoMsg::BARRIER ? 0 : static_cast<uint64_t>(bytes);
                if (type == ChakraProtoMsg::ALL_TO_ALL && GetSplit(et, node.split))
                {
                    node.collective = "AlltoAllv"; // uneven: the bytes to each peer
                }
                pending.push_back({r,
                                   static_cast<uint32_t>(nodes.size()),
                                   GetText(et, "pg_name"),
                                   type == ChakraProtoMsg::ALL_GATHER});
                break;
            }
            case ChakraProtoMsg::METADATA_NODE: {
                // Process groups as PyTorch's observer writes them: a JSON list inside
                // two characters of quoting on each side.
                const std::string& values = et.inputs().values();
                if (values.size() > 4)
                {
                    const std::string problem =
                        AddGroups(pgs, values.substr(2, values.size() - 4), ranks);
                    if (!problem.empty())
                    {
                        return where + ": process groups " + problem;
                    }
                }
                node.kind = WorkloadNode::NOOP; // read, nothing to run
                break;
            }
            default:
                if (!ChakraProtoMsg::NodeType_IsValid(et.type()))
                {
                    return where + ": unknown node type " + std::to_string(et.type());
                }
                node.kind = WorkloadNode::NOOP;
                graph.unmodelled[ChakraProtoMsg::NodeType_Name(et.type())]++;
                break;
            }
            nodes.push_back(std::move(node));
        }
    }

    // Collectives' groups, now that every METADATA node has been read.
    std::vector<uint32_t> world(ranks);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        world[r] = r;
    }
    for (const PendingCollective& c : pending)
    {
        WorkloadNode& node = graph.nodes[c.rank][c.index];
        std::vector<uint32_t> members;
        std::string traffic;
        if (c.pg.empty() || c.pg == "0")
        {
            members = world;
            traffic = "world";
        }
        else
        {
            const auto it = pgs.find(c.pg);
            if (it == pgs.end())
            {
                return graph.Describe(c.rank, c.index) + ": process group " + c.pg +
                       " is in no group file or METADATA node";
            }
            members = it->second;
            traffic = "pg " + c.pg;
        }
        node.group = graph.AddGroup(members, traffic);
        if (node.traffic == p2p)
        {
            node.traffic = graph.AddTraffic(traffic); // not named by the file: its group
        }
        if (c.perRank)
        {
            node.bytes *= members.size();
        }
    }
    graph.description = {{"format", "Chakra execution trace"},
                         {"version", version},
                         {"ranks", std::to_string(ranks)}};
    return graph.Link();
}

#endif

} // namespace ns3
