/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pairwise-all-to-all-v.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PairwiseAlltoAllv");

NS_OBJECT_ENSURE_REGISTERED(PairwiseAlltoAllv);

namespace
{
/// \param row a row of bytes \param sum its sum \return false if the sum overflows
bool
SumRow(const std::vector<uint64_t>& row, uint64_t& sum)
{
    sum = 0;
    for (uint64_t b : row)
    {
        if (b > std::numeric_limits<uint64_t>::max() - sum)
        {
            return false;
        }
        sum += b;
    }
    return true;
}
} // namespace

TypeId
PairwiseAlltoAllv::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PairwiseAlltoAllv")
                            .SetParent<PairwiseExchange>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<PairwiseAlltoAllv>();
    return tid;
}

PairwiseAlltoAllv::PairwiseAlltoAllv()
{
    NS_LOG_FUNCTION(this);
}

PairwiseAlltoAllv::~PairwiseAlltoAllv() = default;

std::string
PairwiseAlltoAllv::GetCollectiveName() const
{
    return "AlltoAllv";
}

void
PairwiseAlltoAllv::SetMatrix(const Matrix& matrix)
{
    NS_LOG_FUNCTION(this << matrix.size());
    m_matrix = matrix;
}

const PairwiseAlltoAllv::Matrix&
PairwiseAlltoAllv::GetMatrix() const
{
    return m_matrix;
}

uint64_t
PairwiseAlltoAllv::GetMatrixBytes() const
{
    uint64_t largest = 0;
    for (const auto& row : m_matrix)
    {
        uint64_t sum;
        if (!SumRow(row, sum))
        {
            return std::numeric_limits<uint64_t>::max();
        }
        largest = std::max(largest, sum);
    }
    return largest;
}

void
PairwiseAlltoAllv::DoStart()
{
    NS_LOG_FUNCTION(this);
    const std::string name = GetInstanceTypeId().GetName();
    uint32_t n = m_comm->GetSize();
    NS_ABORT_MSG_IF(m_matrix.size() != n,
                    name << ": Matrix has " << m_matrix.size() << " rows, but the communicator has "
                         << n << " ranks: it must be " << n << " x " << n
                         << " (row = source rank)");
    for (uint32_t i = 0; i < n; ++i)
    {
        NS_ABORT_MSG_IF(m_matrix[i].size() != n,
                        name << ": Matrix row " << i << " has " << m_matrix[i].size()
                             << " entries, but the communicator has " << n << " ranks: it must be "
                             << n << " x " << n << " (row = source rank)");
        uint64_t sum;
        NS_ABORT_MSG_IF(!SumRow(m_matrix[i], sum),
                        name << ": Matrix row " << i << " sums to more than "
                             << std::numeric_limits<uint64_t>::max() << " bytes");
    }
    uint64_t s = GetMatrixBytes();
    NS_ABORT_MSG_IF(m_bytes != s,
                    name << ": Start was given S = " << m_bytes
                         << " B, but the Matrix's S (its largest row sum) is " << s << " B");
    NS_LOG_LOGIC(n << " x " << n << " matrix, S " << s << " B");
    PairwiseExchange::DoStart();
}

uint64_t
PairwiseAlltoAllv::GetPairBytes(uint32_t src, uint32_t dst) const
{
    return m_matrix[src][dst];
}

} // namespace ns3
