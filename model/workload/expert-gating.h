/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_EXPERT_GATING_H
#define AI_FABRIC_EXPERT_GATING_H

#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class UniformRandomVariable;

/**
 * \ingroup ai-fabric
 * \brief The gate of a Mixture-of-Experts layer: how popular each of E experts is,
 * and the top-k routing of a token to k distinct experts drawn by that popularity.
 * The skew model is a subclass chosen by the ExpertParallelApplication's Gating
 * attribute (a TypeId and its attributes, as a TCP socket chooses its congestion
 * control): UniformGating, ZipfGating, HotExpertGating.
 *
 * A subclass gives the popularity weight of each popularity rank (GetWeights: rank
 * 0 the most popular). Every iteration (DrawIteration), which expert holds which
 * popularity rank is drawn anew, a uniformly random permutation (Shuffle true, the
 * default: the hot experts move between iterations, as a gate's preferences drift
 * with the batch), or expert e holds rank e (Shuffle false). A token's k experts
 * are drawn one after another, each in proportion to the weights of the experts
 * not drawn yet (successive sampling without replacement, with k = 1 exactly the
 * weights); once only experts of weight 0 are left, among those uniformly.
 *
 * The random numbers come from the caller's stream (the application's, which
 * AssignStreams fixes), so the gate itself holds no random state.
 */
class ExpertGating : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    ExpertGating();
    ~ExpertGating() override;

    /**
     * Check the parameters against E (stops with a message naming a bad one and its
     * value) and take the weights; the ranking is the identity until DrawIteration.
     * \param experts E (>= 1)
     */
    void Setup(uint32_t experts);

    /**
     * Create a gate from a Gating attribute's value: an ExpertGating TypeId name with
     * optional attributes ("ns3::ZipfGating[Exponent=1.2]"). Stops with a message
     * naming the owner, the attribute and the value if it is not one.
     * \param spec the value \param owner the class whose Gating attribute it is
     * \return the gate, not Setup
     */
    static Ptr<ExpertGating> CreateFromSpec(const std::string& spec, const std::string& owner);
    /// \return E (0 before Setup)
    uint32_t GetExperts() const;

    /**
     * \param experts E (>= 1)
     * \return the popularity weight of each popularity rank, rank 0 the most
     *         popular: E weights, none negative, not all 0 (stops with a message
     *         naming a bad parameter and its value)
     */
    virtual std::vector<double> GetWeights(uint32_t experts) const = 0;

    /**
     * Begin an iteration: draw which expert holds which popularity rank (Shuffle),
     * from rng.
     * \param rng the stream to draw from
     */
    void DrawIteration(Ptr<UniformRandomVariable> rng);
    /// \param expert an expert (< E) \return its weight in the current iteration
    double GetExpertWeight(uint32_t expert) const;

    /**
     * Route one token.
     * \param rng the stream to draw from
     * \param k experts per token (1 .. E)
     * \param experts set to the k distinct experts, in the order drawn
     */
    void Route(Ptr<UniformRandomVariable> rng, uint32_t k, std::vector<uint32_t>& experts);

  private:
    /// \param rng the stream \return an expert drawn in proportion to the weights
    uint32_t DrawAny(Ptr<UniformRandomVariable> rng) const;

    bool m_shuffle;                    //!< Shuffle attribute
    std::vector<double> m_rankWeights; //!< by popularity rank
    std::vector<double> m_weight;      //!< by expert, current iteration
    std::vector<double> m_cumulative;  //!< by expert: sum of the weights up to it
    double m_total{0};                 //!< sum of the weights
    uint32_t m_lastPositive{0};        //!< the last expert of positive weight
    std::vector<bool> m_drawn;         //!< by expert: drawn for the current token
};

} // namespace ns3

#endif /* AI_FABRIC_EXPERT_GATING_H */
