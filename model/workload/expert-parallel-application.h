/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_EXPERT_PARALLEL_APPLICATION_H
#define AI_FABRIC_EXPERT_PARALLEL_APPLICATION_H

#include "expert-gating.h"
#include "sample-statistics.h"
#include "training-application.h"

#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

struct CollectiveResult;
class UniformRandomVariable;

/**
 * \ingroup ai-fabric
 * \brief Expert parallelism (one Mixture-of-Experts layer): E experts spread evenly
 * over the n ranks of a communicator, tokens routed to their top-k experts by a
 * gate (ExpertGating, chosen by TypeId), a dispatch AlltoAllv of the tokens, expert
 * compute, and a combine AlltoAllv of the results back.
 *
 * Layout: E (Experts) must be a multiple of n; rank r holds experts r E/n ..
 * (r + 1) E/n - 1. Every iteration:
 *
 * 1. Routing: the gate draws its popularity ranking (ExpertGating::DrawIteration),
 *    then each of the TokensPerRank tokens of each rank goes to TopK distinct
 *    experts. A token sent to two experts of one rank is sent twice (one copy per
 *    expert, as a per-expert token dispatcher does). The token matrix counts the
 *    copies from rank i to the experts of rank j (its row sums are all
 *    TokensPerRank x TopK; the diagonal stays on its rank). RoutingDrawn fires.
 * 2. Dispatch: an AlltoAllv (PairwiseAlltoAllv) of the token matrix x BytesPerToken.
 * 3. Expert compute: rank j computes for (tokens it received, its column sum with
 *    the diagonal) x ComputeTimePerToken, through its GPU's GpuCompute (a
 *    straggler's slowdown applies); the combine waits for the slowest rank
 *    (collectives start on every rank at once), and every other rank waits for it.
 * 4. Combine: an AlltoAllv of the transposed matrix x BytesPerToken (every token's
 *    result goes back to its rank). The iteration ends when it completes.
 *
 * Metrics: each iteration's time; load imbalance, max / mean tokens per expert and
 * per rank (received, diagonal included), one sample per iteration drawn; the
 * completion time of each dispatch and combine AlltoAllv and the slowest rank's
 * compute time (SampleStatistics, in seconds, so with percentiles); how long each
 * rank waited for the slowest one's compute; the last drawn token matrix and tokens
 * per expert. GetResults adds them (AddResults), with every completed iteration's
 * tokens per expert (\"expertTokensPerIteration\") and dispatch AlltoAllv byte
 * matrix (\"dispatchBytesPerIteration\", row = source rank; the combine moves its
 * transpose).
 *
 * Random numbers: one UniformRandomVariable of the application (AssignStreams fixes
 * its stream), so the draws follow RngSeed and RngRun.
 */
class ExpertParallelApplication : public TrainingApplication
{
  public:
    /// Tokens per (source rank, destination rank), row = source.
    typedef std::vector<std::vector<uint64_t>> TokenMatrix;

    /// TracedCallback signature for RoutingDrawn: (iteration, token matrix, tokens per
    /// expert).
    typedef void (*RoutingTracedCallback)(uint32_t iteration,
                                          const TokenMatrix& tokens,
                                          const std::vector<uint64_t>& expertTokens);
    /// TracedCallback signature for DispatchDone and CombineDone: (iteration, the
    /// AlltoAllv's result).
    typedef void (*AlltoAllvTracedCallback)(uint32_t iteration, const CollectiveResult& result);

    /// \return the TypeId
    static TypeId GetTypeId();
    ExpertParallelApplication();
    ~ExpertParallelApplication() override;

    /**
     * Assign a fixed random stream to the routing draws.
     * \param stream the stream index
     * \return the number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

    /// \return E
    uint32_t GetExperts() const;
    /// \param expert an expert (< E) \return the rank that holds it
    uint32_t GetExpertRank(uint32_t expert) const;
    /// \return the gate (after SetCommunicator)
    Ptr<ExpertGating> GetGating() const;

    /// \return the token matrix of the last iteration drawn (empty before the first)
    const TokenMatrix& GetTokenMatrix() const;
    /// \return tokens per expert of the last iteration drawn
    const std::vector<uint64_t>& GetExpertTokens() const;
    /// \return max / mean tokens per expert, one sample per iteration drawn
    const SampleStatistics& GetExpertImbalance() const;
    /// \return max / mean tokens received per rank, one sample per iteration drawn
    const SampleStatistics& GetRankImbalance() const;
    /// \return completion times of the dispatch AlltoAllvs, in seconds
    const SampleStatistics& GetDispatchTime() const;
    /// \return completion times of the combine AlltoAllvs, in seconds
    const SampleStatistics& GetCombineTime() const;
    /// \return the slowest rank's expert compute time per iteration, in seconds
    const SampleStatistics& GetComputeTime() const;
    /// \param rank a rank \return how long it waited, over all iterations, from the
    /// end of its own expert compute to the end of the slowest rank's
    Time GetWaitTime(uint32_t rank) const;

    /**
     * One iteration: per rank the dispatch AlltoAllv (its row of the token matrix x
     * BytesPerToken), its expert compute, and the combine AlltoAllv. The routing is
     * the last drawn; before the run, the first iteration's, drawn now (the run
     * then uses that draw). Other iterations draw other routings, which a replay
     * of this one iteration does not repeat.
     * \param graph filled and linked
     * \return "" or the graph's problem
     */
    std::string DescribeIteration(WorkloadGraph& graph) override;

  protected:
    /// Release the gating and the random stream.
    void DoDispose() override;
    /**
     * Add the imbalance, AlltoAllv and compute times (per iteration and their
     * statistics, in microseconds) and each rank's wait.
     * \param results the results so far
     */
    void AddResults(nlohmann::json& results) const override;
    void DoSetup() override;
    void DoStartIteration() override;

  private:
    /// Draw the routing of the current iteration into m_tokens and m_expertTokens.
    void DrawRouting();
    /**
     * \param tokens a token matrix (already transposed for the combine)
     * \return an AlltoAllv of tokens x BytesPerToken, not started
     */
    Ptr<CollectiveOperation> CreateAlltoAllv(const TokenMatrix& tokens) const;
    /// \param result the dispatch AlltoAllv's result
    void DispatchDone(const CollectiveResult& result);
    /// Every rank has computed: start the combine.
    void ComputeDone();
    /// \param result the combine AlltoAllv's result
    void CombineDone(const CollectiveResult& result);

    uint32_t m_experts;           //!< E, the Experts attribute
    uint32_t m_tokensPerRank;     //!< TokensPerRank attribute
    uint32_t m_topK;              //!< TopK attribute
    uint64_t m_bytesPerToken;     //!< BytesPerToken attribute
    Time m_computeTimePerToken;   //!< ComputeTimePerToken attribute
    std::string m_gatingSpec;     //!< Gating attribute
    Ptr<ExpertGating> m_gating;   //!< the gate
    uint32_t m_expertsPerRank{0}; //!< E / n

    Ptr<UniformRandomVariable> m_rng;     //!< routing draws
    TokenMatrix m_tokens;                 //!< current iteration's token matrix
    std::vector<uint64_t> m_expertTokens; //!< current iteration's tokens per expert
    std::vector<uint32_t> m_route;        //!< scratch: one token's experts

    SampleStatistics m_expertImbalance; //!< max / mean per expert
    SampleStatistics m_rankImbalance;   //!< max / mean per rank
    SampleStatistics m_dispatchTime;    //!< seconds
    SampleStatistics m_combineTime;     //!< seconds
    SampleStatistics m_computeTime;     //!< seconds
    std::vector<Time> m_waitTime;       //!< per rank: waited for the slowest compute
    /// Tokens per expert of every iteration drawn, in order
    std::vector<std::vector<uint64_t>> m_expertTokensHistory;
    std::vector<TokenMatrix> m_tokensHistory; //!< token matrix of every iteration drawn

    TracedCallback<uint32_t, const TokenMatrix&, const std::vector<uint64_t>&>
        m_routingTrace;                                                //!< RoutingDrawn
    TracedCallback<uint32_t, const CollectiveResult&> m_dispatchTrace; //!< DispatchDone
    TracedCallback<uint32_t, const CollectiveResult&> m_combineTrace;  //!< CombineDone
};

} // namespace ns3

#endif /* AI_FABRIC_EXPERT_PARALLEL_APPLICATION_H */
