/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_TRANSFORMER_MODEL_H
#define AI_FABRIC_TRANSFORMER_MODEL_H

#include "ns3/object.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The sizes of a decoder-only transformer being trained, as plain numbers,
 * and what follows from them: parameters, floating-point operations and message
 * sizes per microbatch. Presets (CreatePreset) give public models.
 *
 * A layer is attention then an MLP; in an MoE layer (every MoeLayerInterval-th
 * layer, when Experts > 0) the MLP is Experts expert MLPs of which each token uses
 * TopK. With h = Hidden, f = FfnHidden, kv = KvHidden (h without grouped-query
 * attention), s = SequenceLength, b = MicrobatchSize:
 *
 * - attention parameters: 2 h^2 + 2 h kv (query and output h x h, key and value
 *   h x kv); biases and norms are left out (under 0.1% of a layer);
 * - MLP (and expert) parameters: 3 h f with a gated MLP (SwiGLU), 2 h f without;
 * - embedding: Vocabulary x h at the input and again at the output (untied);
 * - forward FLOPs of a microbatch, counting a multiply-add as 2: 2 b s P for every
 *   weight matrix of P parameters a token passes through (an MoE token passes
 *   TopK experts), plus 4 b s^2 h for attention's scores and weighted sum; the
 *   backward pass is twice the forward (Narayanan et al., SC'21, section 5.1);
 * - activation of a microbatch (what crosses a stage boundary and what tensor
 *   parallelism reduces): b s h x BytesPerElement.
 */
class TransformerModel : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    TransformerModel();
    ~TransformerModel() override;

    /// \return the preset names CreatePreset knows
    static std::vector<std::string> GetPresetNames();

    /**
     * \param name a preset (GetPresetNames), or "custom" for the attributes' defaults
     * \return the model; stops with a message naming the preset and listing the
     *         known ones if there is no such preset
     */
    static Ptr<TransformerModel> CreatePreset(const std::string& name);

    /// \return why these sizes cannot be a model (a parameter and its value), or ""
    std::string FindProblem() const;

    /// \return the preset or model name (Name attribute)
    std::string GetName() const;
    /// \return transformer layers
    uint32_t GetLayers() const;
    /// \return hidden size h
    uint64_t GetHidden() const;
    /// \return sequence length s
    uint64_t GetSequenceLength() const;
    /// \return microbatch size b (sequences)
    uint64_t GetMicrobatchSize() const;
    /// \return bytes per element of activations and weights
    uint32_t GetBytesPerElement() const;
    /// \return experts per MoE layer (0: a dense model)
    uint32_t GetExperts() const;
    /// \return experts each token is routed to
    uint32_t GetTopK() const;
    /// \param layer a layer (0 .. layers-1) \return whether its MLP is a mixture of experts
    bool IsMoeLayer(uint32_t layer) const;
    /// \param layer an MoE layer \return its index among the MoE layers
    uint32_t GetMoeLayerIndex(uint32_t layer) const;
    /// \return the number of MoE layers
    uint32_t GetMoeLayers() const;

    /// \return tokens per microbatch: b s
    uint64_t GetTokensPerMicrobatch() const;
    /// \return b s h x BytesPerElement
    uint64_t GetActivationBytes() const;
    /// \return h x BytesPerElement: one token's hidden state
    uint64_t GetTokenBytes() const;

    /// \return parameters of one layer's attention
    uint64_t GetAttentionParameters() const;
    /// \return parameters of one MLP (a dense layer's, or one expert's)
    uint64_t GetMlpParameters() const;
    /// \return parameters of the input (and of the output) embedding
    uint64_t GetEmbeddingParameters() const;
    /// \return every parameter of the model (experts included)
    uint64_t GetParameters() const;

    /// \return forward FLOPs of one layer's attention for one microbatch
    double GetAttentionForwardFlops() const;
    /// \return forward FLOPs of one MLP for one token
    double GetMlpForwardFlopsPerToken() const;
    /// \return forward FLOPs of the output layer (logits) for one microbatch
    double GetOutputForwardFlops() const;
    /// \return forward and backward FLOPs of one microbatch through the whole model
    double GetTrainingFlopsPerMicrobatch() const;

  private:
    std::string m_name;         //!< Name
    uint32_t m_layers;          //!< Layers
    uint64_t m_hidden;          //!< Hidden
    uint64_t m_ffnHidden;       //!< FfnHidden
    uint64_t m_kvHidden;        //!< KvHidden (0 = Hidden)
    bool m_gatedMlp;            //!< GatedMlp
    uint64_t m_vocabulary;      //!< Vocabulary
    uint64_t m_sequenceLength;  //!< SequenceLength
    uint64_t m_microbatchSize;  //!< MicrobatchSize
    uint32_t m_bytesPerElement; //!< BytesPerElement
    uint32_t m_experts;         //!< Experts
    uint32_t m_topK;            //!< TopK
    uint32_t m_moeInterval;     //!< MoeLayerInterval
};

} // namespace ns3

#endif /* AI_FABRIC_TRANSFORMER_MODEL_H */
