/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "simai-workload-reader.h"

#include "ns3/job-layout.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "ns3/value-text.h"

#include <array>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SimAiWorkloadReader");

namespace
{

/// What a collective token of the file means.
struct Token
{
    std::string text;         //!< as written
    bool communicates{false}; //!< false: NONE
    bool unmodelled{false};   //!< counted by name, not run
    std::string collective;   //!< the module's name
    std::string suffix;       //!< "", "_EP" or "_DP_EP"
};

/**
 * \param text a collective token \param token filled
 * \return whether the token is one SimAI's files use
 */
bool
ParseToken(const std::string& text, Token& token)
{
    token = Token();
    token.text = text;
    if (text == "NONE")
    {
        return true;
    }
    // ALLREDUCEALLTOALL before ALLREDUCE, which is its prefix.
    static const std::array<std::pair<const char*, const char*>, 6> names{{
        {"ALLREDUCEALLTOALL", ""},
        {"BROADCAST", ""},
        {"ALLREDUCE", "AllReduce"},
        {"ALLGATHER", "AllGather"},
        {"REDUCESCATTER", "ReduceScatter"},
        {"ALLTOALL", "AlltoAll"},
    }};
    for (const auto& [prefix, collective] : names)
    {
        const std::string p(prefix);
        if (text.compare(0, p.size(), p) != 0)
        {
            continue;
        }
        const std::string suffix = text.substr(p.size());
        if (suffix != "" && suffix != "_EP" && suffix != "_DP_EP")
        {
            return false;
        }
        token.communicates = true;
        token.collective = collective;
        token.unmodelled = token.collective.empty();
        token.suffix = suffix;
        return true;
    }
    return false;
}

/// A layer line's fields.
struct Layer
{
    std::string name;              //!< its name
    uint32_t line{0};              //!< its line in the file
    std::array<uint64_t, 3> time;  //!< fwd, ig, wg compute (ns)
    std::array<Token, 3> comm;     //!< fwd, ig, wg collective
    std::array<uint64_t, 3> bytes; //!< fwd, ig, wg bytes
    uint64_t update{0};            //!< after each collective (ns)
};

} // namespace

std::string
SimAiWorkloadReader::ParseHeader(const std::string& line, Header& header)
{
    NS_LOG_FUNCTION(line);
    header = Header();
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string word; in >> word;)
    {
        words.push_back(word);
    }
    if (words.empty())
    {
        return "the header line is empty";
    }
    header.policy = words[0];
    if (header.policy != "HYBRID_TRANSFORMER_FWD_IN_BCKWD" && header.policy != "HYBRID_TRANSFORMER")
    {
        return "parallelism policy " + header.policy +
               " is not one this reader replays (HYBRID_TRANSFORMER_FWD_IN_BCKWD, "
               "HYBRID_TRANSFORMER)";
    }
    // A whole number; pp_comm may be written from a Python division ("2621440.0").
    const auto number = [&words](std::size_t i, uint64_t max, uint64_t* value) -> std::string {
        if (i >= words.size())
        {
            return words[i - 1] + " has no value";
        }
        std::string text = words[i];
        const std::size_t dot = text.find('.');
        if (dot != std::string::npos && text.find_first_not_of('0', dot + 1) == std::string::npos)
        {
            text = text.substr(0, dot);
        }
        const std::string problem = FindWholeNumberProblem(text, max, false, value);
        return problem.empty() ? "" : words[i - 1] + " " + words[i] + " " + problem;
    };
    const uint64_t maxGroup = std::numeric_limits<uint32_t>::max();
    for (std::size_t i = 1; i < words.size(); i += 2)
    {
        const std::string& key = words[i];
        uint64_t value = 0;
        std::string problem;
        if (key == "checkpoints:" || key == "checkpoint_initiates:")
        {
            // A count, then that many layer indices (AICB writes 0).
            problem = number(i + 1, 1u << 20, &value);
            for (uint64_t k = 0; problem.empty() && k < value; ++k)
            {
                uint64_t layer = 0;
                problem = number(i + 2 + k, maxGroup, &layer);
            }
            if (!problem.empty())
            {
                return problem;
            }
            i += value;
            continue;
        }
        problem =
            number(i + 1, key == "pp_comm" || key == "pp_comm:" ? UINT64_MAX : maxGroup, &value);
        if (!problem.empty())
        {
            return problem;
        }
        if (key == "model_parallel_NPU_group:")
        {
            header.tp = static_cast<uint32_t>(value);
        }
        else if (key == "ep:")
        {
            header.ep = static_cast<uint32_t>(value);
        }
        else if (key == "pp:")
        {
            header.pp = static_cast<uint32_t>(value);
        }
        else if (key == "vpp:")
        {
            header.vpp = static_cast<uint32_t>(value);
        }
        else if (key == "ga:")
        {
            header.ga = static_cast<uint32_t>(value);
        }
        else if (key == "all_gpus:")
        {
            header.allGpus = static_cast<uint32_t>(value);
        }
        else if (key == "pp_comm" || key == "pp_comm:")
        {
            header.ppComm = value;
        }
        else
        {
            return "unknown header field " + key;
        }
    }
    for (const auto& [name, value] :
         {std::pair<const char*, uint32_t>{"ep", header.ep}, {"pp", header.pp}})
    {
        if (value == 0)
        {
            return std::string(name) + ": 0 must be at least 1";
        }
    }
    return "";
}

std::string
SimAiWorkloadReader::Read(const std::string& path, uint32_t gpus, WorkloadGraph& graph)
{
    NS_LOG_FUNCTION(path << gpus);
    std::ifstream in(path);
    if (!in)
    {
        return path + ": cannot be read";
    }
    return Parse(in, path, gpus, graph);
}

std::string
SimAiWorkloadReader::Parse(std::istream& in,
                           const std::string& name,
                           uint32_t gpus,
                           WorkloadGraph& graph)
{
    NS_LOG_FUNCTION(name << gpus);
    graph = WorkloadGraph();
    graph.source = name;
    std::string line;
    if (!std::getline(in, line))
    {
        return name + ": empty (no header line)";
    }
    Header header;
    std::string problem = ParseHeader(line, header);
    if (!problem.empty())
    {
        return name + ": line 1: " + problem;
    }
    if (!std::getline(in, line))
    {
        return name + ": line 2: missing (the number of layers)";
    }
    uint64_t declared = 0;
    {
        std::istringstream count(line);
        std::string word;
        count >> word;
        problem = FindWholeNumberProblem(word, 1u << 24, false, &declared);
        if (!problem.empty())
        {
            return name + ": line 2: the number of layers " + word + " " + problem;
        }
    }

    std::vector<Layer> layers;
    uint32_t lineNumber = 2;
    while (layers.size() < declared && std::getline(in, line))
    {
        ++lineNumber;
        std::istringstream fields(line);
        std::vector<std::string> f;
        for (std::string word; fields >> word;)
        {
            f.push_back(word);
        }
        if (f.empty())
        {
            continue;
        }
        const std::string where = name + ": line " + std::to_string(lineNumber) + ": ";
        if (f.size() != 12)
        {
            return where + std::to_string(f.size()) + " fields, a layer has 12";
        }
        Layer layer;
        layer.name = f[0];
        layer.line = lineNumber;
        static const std::array<const char*, 3> phases{"forward",
                                                       "input gradient",
                                                       "weight gradient"};
        for (uint32_t p = 0; p < 3; ++p)
        {
            const std::string& time = f[2 + 3 * p];
            const std::string& token = f[3 + 3 * p];
            const std::string& bytes = f[4 + 3 * p];
            problem = FindWholeNumberProblem(time, UINT64_MAX / 2, false, &layer.time[p]);
            if (!problem.empty())
            {
                return where + phases[p] + " compute time " + time + " " + problem;
            }
            if (!ParseToken(token, layer.comm[p]))
            {
                return where + "unknown collective type " + token + " (" + phases[p] + ")";
            }
            problem = FindWholeNumberProblem(bytes, UINT64_MAX / 2, false, &layer.bytes[p]);
            if (!problem.empty())
            {
                return where + phases[p] + " bytes " + bytes + " " + problem;
            }
        }
        problem = FindWholeNumberProblem(f[11], UINT64_MAX / 2, false, &layer.update);
        if (!problem.empty())
        {
            return where + "update time " + f[11] + " " + problem;
        }
        layers.push_back(layer);
    }
    if (layers.size() < declared)
    {
        return name + ": truncated: line 2 declares " + std::to_string(declared) +
               " layers, the file has " + std::to_string(layers.size());
    }

    // The layout.
    const uint32_t n = header.allGpus > 0 ? header.allGpus : gpus;
    if (header.allGpus > gpus)
    {
        return name + ": all_gpus: " + std::to_string(header.allGpus) + " is more than the job's " +
               std::to_string(gpus) + " GPUs";
    }
    if (n == 0)
    {
        return name + ": no GPUs to run on";
    }
    const uint32_t tp = header.tp == 0 ? n : header.tp;
    if (n % (uint64_t(tp) * header.pp) != 0)
    {
        return name + ": model_parallel_NPU_group " + std::to_string(tp) + " x pp " +
               std::to_string(header.pp) + " does not divide the " + std::to_string(n) + " GPUs";
    }
    const uint32_t dp = n / tp / header.pp;
    if (dp % header.ep != 0)
    {
        return name + ": ep " + std::to_string(header.ep) + " does not divide the data parallel " +
               "degree " + std::to_string(dp) + " (" + std::to_string(n) + " GPUs / tp " +
               std::to_string(tp) + " / pp " + std::to_string(header.pp) + ")";
    }
    Ptr<JobLayout> layout = CreateObject<JobLayout>();
    layout->SetAttribute("TensorParallel", UintegerValue(tp));
    layout->SetAttribute("PipelineParallel", UintegerValue(header.pp));
    layout->SetAttribute("DataParallel", UintegerValue(dp));
    layout->SetAttribute("ExpertParallel", UintegerValue(header.ep));
    layout->SetAttribute("Order", StringValue("tp-dp-pp"));
    std::vector<uint32_t> ranks(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        ranks[r] = r;
    }
    layout->Setup(ranks);

    // Group numbers per dimension: the graph's group of each of the layout's.
    const std::array<std::pair<JobLayout::Dimension, const char*>, 4> dims{{
        {JobLayout::TENSOR, "TP"},
        {JobLayout::DATA, "DP"},
        {JobLayout::EXPERT, "EP"},
        {JobLayout::EXPERT_DATA, "DP_EP"},
    }};
    std::array<std::vector<uint32_t>, 4> groupOf;
    for (uint32_t d = 0; d < dims.size(); ++d)
    {
        const auto& groups = layout->GetGroups(dims[d].first);
        for (uint32_t g = 0; g < groups.size(); ++g)
        {
            groupOf[d].push_back(
                graph.AddGroup(groups[g], std::string(dims[d].second) + " " + std::to_string(g)));
        }
    }
    const uint32_t tpTraffic = graph.AddTraffic("TP");
    const uint32_t epTraffic = graph.AddTraffic("EP");
    const uint32_t dpTraffic = graph.AddTraffic("DP");
    const uint32_t ppTraffic = graph.AddTraffic("PP");

    // The same steps on every rank, over its own groups.
    graph.nodes.assign(n, {});
    for (uint32_t r = 0; r < n; ++r)
    {
        std::vector<WorkloadNode>& nodes = graph.nodes[r];
        std::vector<uint64_t> waitFor; // what the next step of the pass waits for
        std::vector<uint64_t> ends;    // what nothing waits for in the pass
        const auto add = [&nodes, &waitFor](WorkloadNode node) {
            node.id = nodes.size();
            node.deps = waitFor;
            nodes.push_back(std::move(node));
            waitFor = {nodes.back().id};
            return nodes.back().id;
        };
        const auto compute = [&add, &graph](const std::string& what, uint64_t ns) {
            WorkloadNode node;
            node.label = graph.AddLabel(what);
            node.kind = WorkloadNode::COMPUTE;
            node.duration = NanoSeconds(ns);
            add(node);
        };
        const JobLayout::Coordinates& c = layout->GetCoordinates(r);
        // Phase p of a layer: its compute, then its collective and update time.
        const auto phase = [&](const Layer& layer, uint32_t p, bool wait) {
            static const std::array<const char*, 3> names{":fwd", ":ig", ":wg"};
            compute(layer.name + names[p], layer.time[p]);
            const Token& token = layer.comm[p];
            if (!token.communicates)
            {
                return;
            }
            if (token.unmodelled)
            {
                graph.unmodelled[token.text]++;
                return;
            }
            const uint32_t d = token.suffix == "_EP"      ? 2
                               : token.suffix == "_DP_EP" ? 3
                               : p == 2                   ? 1
                                                          : 0;
            WorkloadNode coll;
            coll.label = graph.AddLabel(layer.name + names[p] + ":" + token.text);
            coll.kind = WorkloadNode::COLLECTIVE;
            coll.collective = token.collective;
            coll.bytes = layer.bytes[p];
            coll.group = groupOf[d][layout->GetGroupIndex(dims[d].first, r)];
            coll.traffic = d == 0 ? tpTraffic : d == 2 ? epTraffic : dpTraffic;
            const std::vector<uint64_t> before = waitFor;
            add(coll);
            compute(layer.name + names[p] + ":update", layer.update);
            if (!wait)
            {
                // Not waited for: the pass goes on from the compute before it.
                ends.push_back(nodes.back().id);
                waitFor = before;
            }
        };
        const auto stageMessage = [&](bool send, uint32_t stage, bool forward) {
            WorkloadNode m;
            m.kind = send ? WorkloadNode::SEND : WorkloadNode::RECV;
            m.label = graph.AddLabel(std::string(forward ? "activation" : "gradient") +
                                     (send ? " to" : " from") + " stage " + std::to_string(stage));
            m.bytes = header.ppComm;
            m.peer = layout->GetGpu(c.tp, stage, c.dp);
            m.tag = forward ? 0 : 1;
            m.traffic = ppTraffic;
            add(m);
        };
        const bool pipelined = header.pp > 1 && header.ppComm > 0;
        if (pipelined && c.pp > 0)
        {
            stageMessage(false, c.pp - 1, true);
        }
        for (const Layer& layer : layers)
        {
            phase(layer, 0, true);
        }
        if (pipelined && c.pp + 1 < header.pp)
        {
            stageMessage(true, c.pp + 1, true);
            stageMessage(false, c.pp + 1, false);
        }
        for (auto it = layers.rbegin(); it != layers.rend(); ++it)
        {
            phase(*it, 1, true);
            phase(*it, 2, false);
        }
        if (pipelined && c.pp > 0)
        {
            stageMessage(true, c.pp - 1, false);
        }
    }
    graph.description = {{"format", "SimAI workload"},
                         {"policy", header.policy},
                         {"layers", std::to_string(layers.size())},
                         {"gpus", std::to_string(n)},
                         {"tp", std::to_string(tp)},
                         {"dp", std::to_string(dp)},
                         {"pp", std::to_string(header.pp)},
                         {"ep", std::to_string(header.ep)},
                         {"ppComm", std::to_string(header.ppComm)}};
    return graph.Link();
}

} // namespace ns3
