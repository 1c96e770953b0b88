/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_PAIRWISE_ALL_TO_ALL_V_H
#define AI_FABRIC_PAIRWISE_ALL_TO_ALL_V_H

#include "pairwise-exchange.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief AlltoAllv by pairwise exchange (PairwiseExchange): uneven sizes per pair,
 * given as an n x n matrix (SetMatrix), row = source rank, column = destination
 * rank, entries in bytes.
 *
 * Entry (i, j) is what rank i sends to rank j; zero entries send nothing, and the
 * diagonal (i, i) is a local copy that crosses no link and takes no time. Rank r
 * sends its row sum minus (r, r) and receives its column sum minus (r, r).
 *
 * S, for algbw = S / t: the largest row sum (diagonal included), the send buffer
 * every rank would allocate in an nccl-tests-style run; for a uniform matrix of S/n
 * per entry it is S, nccl-tests' AlltoAll size, so AlltoAllv of a uniform matrix
 * reports what AlltoAll reports. Start must be given exactly that S
 * (GetMatrixBytes()); the matrix is checked at Start, against the communicator:
 * it must be n x n for n ranks, not ragged, and its row sums must fit in 64 bits.
 * busbw = algbw x (n-1)/n, as for AlltoAll; for a skewed matrix it is a figure of
 * comparison, not a link rate (the busiest NIC, sender or receiver, sets the time).
 */
class PairwiseAlltoAllv : public PairwiseExchange
{
  public:
    /// An n x n matrix of bytes, row = source rank.
    typedef std::vector<std::vector<uint64_t>> Matrix;

    /// \return the TypeId
    static TypeId GetTypeId();
    PairwiseAlltoAllv();
    ~PairwiseAlltoAllv() override;

    std::string GetCollectiveName() const override;

    /**
     * Set the bytes each rank sends to each rank (before Start; checked there).
     * \param matrix n x n, row = source rank, column = destination rank
     */
    void SetMatrix(const Matrix& matrix);
    /// \return the matrix set by SetMatrix
    const Matrix& GetMatrix() const;
    /**
     * \return S of the matrix set: its largest row sum (the value Start must be
     *         given; 0 with no matrix, saturated at the largest uint64_t value)
     */
    uint64_t GetMatrixBytes() const;

  protected:
    /// Checks the matrix against the communicator and S, then exchanges.
    void DoStart() override;
    uint64_t GetPairBytes(uint32_t src, uint32_t dst) const override;

  private:
    Matrix m_matrix; //!< bytes per (source, destination)
};

} // namespace ns3

#endif /* AI_FABRIC_PAIRWISE_ALL_TO_ALL_V_H */
