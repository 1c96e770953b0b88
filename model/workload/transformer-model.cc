/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "transformer-model.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TransformerModel");

NS_OBJECT_ENSURE_REGISTERED(TransformerModel);

namespace
{

/// A public model's sizes (sources in doc/ai-fabric.rst, "Model presets").
struct Preset
{
    const char* name;        //!< preset name
    uint32_t layers;         //!< transformer layers
    uint64_t hidden;         //!< model dimension
    uint64_t ffnHidden;      //!< MLP (expert) inner dimension
    uint64_t kvHidden;       //!< key/value dimension (heads x head size)
    bool gated;              //!< SwiGLU MLP
    uint64_t vocabulary;     //!< vocabulary
    uint64_t sequenceLength; //!< training sequence length
    uint32_t experts;        //!< experts per MoE layer (0: dense)
    uint32_t topK;           //!< experts per token
};

// GPT-3: Brown et al. 2020, table 2.1 (FFN 4 x d_model, GPT-2's 50257-token BPE).
// Llama 2 70B: Touvron et al. 2023 and its published configuration (64 heads, 8
// key/value heads of 128). Mixtral 8x7B: Jiang et al. 2024, table 1 (32 heads, 8
// key/value heads of 128); trained here at 4096 tokens per sequence.
const Preset PRESETS[] = {
    {"gpt3-1.3b", 24, 2048, 8192, 2048, false, 50257, 2048, 0, 1},
    {"gpt3-175b", 96, 12288, 49152, 12288, false, 50257, 2048, 0, 1},
    {"llama2-70b", 80, 8192, 28672, 1024, true, 32000, 4096, 0, 1},
    {"mixtral-8x7b", 32, 4096, 14336, 1024, true, 32000, 4096, 8, 2},
};

} // namespace

TypeId
TransformerModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TransformerModel")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<TransformerModel>()
            .AddAttribute("Name",
                          "The model's name, for results",
                          StringValue("gpt3-1.3b"),
                          MakeStringAccessor(&TransformerModel::m_name),
                          MakeStringChecker())
            .AddAttribute("Layers",
                          "Transformer layers",
                          UintegerValue(24),
                          MakeUintegerAccessor(&TransformerModel::m_layers),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Hidden",
                          "Hidden size h (model dimension)",
                          UintegerValue(2048),
                          MakeUintegerAccessor(&TransformerModel::m_hidden),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("FfnHidden",
                          "Inner dimension of the MLP (and of each expert)",
                          UintegerValue(8192),
                          MakeUintegerAccessor(&TransformerModel::m_ffnHidden),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("KvHidden",
                          "Key and value dimension (key/value heads x head size; 0 = Hidden, "
                          "no grouped-query attention)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TransformerModel::m_kvHidden),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("GatedMlp",
                          "A gated MLP (SwiGLU: three h x f matrices) instead of two",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TransformerModel::m_gatedMlp),
                          MakeBooleanChecker())
            .AddAttribute("Vocabulary",
                          "Vocabulary size (input and output embeddings, untied)",
                          UintegerValue(50257),
                          MakeUintegerAccessor(&TransformerModel::m_vocabulary),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("SequenceLength",
                          "Tokens per sequence s",
                          UintegerValue(2048),
                          MakeUintegerAccessor(&TransformerModel::m_sequenceLength),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("MicrobatchSize",
                          "Sequences per microbatch b",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TransformerModel::m_microbatchSize),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("BytesPerElement",
                          "Bytes of one activation or weight element (2: bf16)",
                          UintegerValue(2),
                          MakeUintegerAccessor(&TransformerModel::m_bytesPerElement),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Experts",
                          "Experts per MoE layer (0: a dense model)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TransformerModel::m_experts),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("TopK",
                          "Experts each token is routed to (MoE)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TransformerModel::m_topK),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MoeLayerInterval",
                          "Every how many layers one is an MoE layer (1: every layer; the "
                          "last of each interval, layers k-1, 2k-1, ...)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TransformerModel::m_moeInterval),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

TransformerModel::TransformerModel()
{
    NS_LOG_FUNCTION(this);
}

TransformerModel::~TransformerModel() = default;

std::vector<std::string>
TransformerModel::GetPresetNames()
{
    std::vector<std::string> names;
    for (const Preset& p : PRESETS)
    {
        names.emplace_back(p.name);
    }
    return names;
}

Ptr<TransformerModel>
TransformerModel::CreatePreset(const std::string& name)
{
    NS_LOG_FUNCTION(name);
    auto model = CreateObject<TransformerModel>();
    if (name == "custom")
    {
        model->m_name = "custom";
        return model;
    }
    for (const Preset& p : PRESETS)
    {
        if (name == p.name)
        {
            model->m_name = p.name;
            model->m_layers = p.layers;
            model->m_hidden = p.hidden;
            model->m_ffnHidden = p.ffnHidden;
            model->m_kvHidden = p.kvHidden;
            model->m_gatedMlp = p.gated;
            model->m_vocabulary = p.vocabulary;
            model->m_sequenceLength = p.sequenceLength;
            model->m_experts = p.experts;
            model->m_topK = p.topK;
            return model;
        }
    }
    std::ostringstream known;
    for (const std::string& n : GetPresetNames())
    {
        known << n << ", ";
    }
    NS_ABORT_MSG("TransformerModel: unknown preset \"" << name << "\" (known: " << known.str()
                                                       << "custom)");
    return nullptr;
}

std::string
TransformerModel::FindProblem() const
{
    std::ostringstream problem;
    const std::pair<const char*, uint64_t> positive[] = {{"Layers", m_layers},
                                                         {"Hidden", m_hidden},
                                                         {"FfnHidden", m_ffnHidden},
                                                         {"SequenceLength", m_sequenceLength},
                                                         {"MicrobatchSize", m_microbatchSize},
                                                         {"BytesPerElement", m_bytesPerElement},
                                                         {"MoeLayerInterval", m_moeInterval},
                                                         {"TopK", m_topK}};
    for (const auto& [name, value] : positive)
    {
        if (value == 0)
        {
            problem << "TransformerModel: " << name << " must be at least 1, got 0";
            return problem.str();
        }
    }
    if (m_kvHidden > m_hidden)
    {
        problem << "TransformerModel: KvHidden " << m_kvHidden << " is larger than Hidden "
                << m_hidden;
    }
    else if (m_experts > 0 && m_topK > m_experts)
    {
        problem << "TransformerModel: TopK " << m_topK << " is above Experts " << m_experts;
    }
    else if (m_experts > 0 && m_moeInterval > m_layers)
    {
        problem << "TransformerModel: MoeLayerInterval " << m_moeInterval
                << " leaves no MoE layer in " << m_layers << " layers";
    }
    return problem.str();
}

std::string
TransformerModel::GetName() const
{
    return m_name;
}

uint32_t
TransformerModel::GetLayers() const
{
    return m_layers;
}

uint64_t
TransformerModel::GetHidden() const
{
    return m_hidden;
}

uint64_t
TransformerModel::GetSequenceLength() const
{
    return m_sequenceLength;
}

uint64_t
TransformerModel::GetMicrobatchSize() const
{
    return m_microbatchSize;
}

uint32_t
TransformerModel::GetBytesPerElement() const
{
    return m_bytesPerElement;
}

uint32_t
TransformerModel::GetExperts() const
{
    return m_experts;
}

uint32_t
TransformerModel::GetTopK() const
{
    return m_topK;
}

bool
TransformerModel::IsMoeLayer(uint32_t layer) const
{
    return m_experts > 0 && (layer + 1) % m_moeInterval == 0;
}

uint32_t
TransformerModel::GetMoeLayerIndex(uint32_t layer) const
{
    NS_ABORT_MSG_UNLESS(IsMoeLayer(layer), "TransformerModel: layer " << layer << " is not MoE");
    return layer / m_moeInterval;
}

uint32_t
TransformerModel::GetMoeLayers() const
{
    return m_experts > 0 ? m_layers / m_moeInterval : 0;
}

uint64_t
TransformerModel::GetTokensPerMicrobatch() const
{
    return m_microbatchSize * m_sequenceLength;
}

uint64_t
TransformerModel::GetActivationBytes() const
{
    return GetTokensPerMicrobatch() * GetTokenBytes();
}

uint64_t
TransformerModel::GetTokenBytes() const
{
    return m_hidden * m_bytesPerElement;
}

uint64_t
TransformerModel::GetAttentionParameters() const
{
    const uint64_t kv = m_kvHidden == 0 ? m_hidden : m_kvHidden;
    return 2 * m_hidden * m_hidden + 2 * m_hidden * kv;
}

uint64_t
TransformerModel::GetMlpParameters() const
{
    return (m_gatedMlp ? 3 : 2) * m_hidden * m_ffnHidden;
}

uint64_t
TransformerModel::GetEmbeddingParameters() const
{
    return m_vocabulary * m_hidden;
}

uint64_t
TransformerModel::GetParameters() const
{
    const uint64_t moe = GetMoeLayers();
    const uint64_t dense = m_layers - moe;
    return m_layers * GetAttentionParameters() + dense * GetMlpParameters() +
           moe * m_experts * GetMlpParameters() + 2 * GetEmbeddingParameters();
}

double
TransformerModel::GetAttentionForwardFlops() const
{
    const double tokens = static_cast<double>(GetTokensPerMicrobatch());
    return 2 * tokens * static_cast<double>(GetAttentionParameters()) +
           4 * tokens * static_cast<double>(m_sequenceLength) * static_cast<double>(m_hidden);
}

double
TransformerModel::GetMlpForwardFlopsPerToken() const
{
    return 2 * static_cast<double>(GetMlpParameters());
}

double
TransformerModel::GetOutputForwardFlops() const
{
    return 2 * static_cast<double>(GetTokensPerMicrobatch()) *
           static_cast<double>(GetEmbeddingParameters());
}

double
TransformerModel::GetTrainingFlopsPerMicrobatch() const
{
    const double tokens = static_cast<double>(GetTokensPerMicrobatch());
    const double moe = GetMoeLayers();
    const double dense = m_layers - moe;
    const double forward =
        m_layers * GetAttentionForwardFlops() + dense * tokens * GetMlpForwardFlopsPerToken() +
        moe * tokens * m_topK * GetMlpForwardFlopsPerToken() + GetOutputForwardFlops();
    return 3 * forward;
}

} // namespace ns3
