/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_COLLECTIVE_OPERATION_H
#define AI_FABRIC_COLLECTIVE_OPERATION_H

#include "communicator.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief What one collective operation did: its size, times and the bytes each rank
 * moved, with nccl-tests' bandwidths.
 */
struct CollectiveResult
{
    std::string collective;                 //!< "AllReduce", "AllGather", ...
    std::string algorithm;                  //!< TypeId name of the algorithm
    uint32_t ranks{0};                      //!< communicator size
    uint64_t bytes{0};                      //!< S, as nccl-tests counts it (see the algorithms)
    Time start;                             //!< when it was started
    Time end;                               //!< when the last rank finished
    double busBandwidthFactor{0};           //!< busbw / algbw (nccl-tests' factor)
    std::vector<uint64_t> bytesSent;        //!< per rank: bytes sent (both domains)
    std::vector<uint64_t> bytesReceived;    //!< per rank: bytes received (both domains)
    std::vector<uint64_t> scaleUpBytesSent; //!< per rank: bytes sent over the scale-up domain
    uint64_t steps{0};                      //!< messages sent (a chunk on one step)

    /// \return end - start
    Time GetDuration() const;
    /// \return algbw = S / t, bytes per second
    double GetAlgorithmBandwidth() const;
    /// \return busbw = algbw x factor, bytes per second
    double GetBusBandwidth() const;
};

/**
 * \ingroup ai-fabric
 * \brief One collective operation on a communicator: asynchronous, with a completion
 * callback; many may be in flight on one communicator and on many communicators.
 *
 * Each algorithm is a subclass chosen by TypeId (CollectiveHelper::SetAlgorithm);
 * one object runs one operation. Data move as chunks: Send() posts a chunk from one
 * rank to another over the communicator (scale-up inside a server, RDMA between
 * servers), counts its bytes and fires the Step trace; Finish() completes the
 * operation. An optional reduction rate models the GPU kernel that combines a
 * received chunk with local data before it is forwarded.
 */
class CollectiveOperation : public Object
{
  public:
    /// Called once when the operation completes.
    typedef Callback<void, const CollectiveResult&> DoneCallback;

    /// TracedCallback signature for Start and Finish.
    typedef void (*ResultTracedCallback)(const CollectiveResult& result);
    /// TracedCallback signature for Step: (source rank, destination rank, bytes, step).
    typedef void (*StepTracedCallback)(uint32_t src, uint32_t dst, uint64_t bytes, uint32_t step);

    /// \return the TypeId
    static TypeId GetTypeId();
    CollectiveOperation();
    ~CollectiveOperation() override;

    /**
     * Start the operation (once).
     * \param comm the communicator
     * \param bytes S, the operation's size as nccl-tests counts it (> 0)
     * \param done called when every rank has finished (may be null)
     */
    void Start(Ptr<Communicator> comm, uint64_t bytes, DoneCallback done);

    /// \return the collective this algorithm implements ("AllReduce", ...)
    virtual std::string GetCollectiveName() const = 0;
    /**
     * \param ranks communicator size
     * \return busbw / algbw for this collective (nccl-tests' factor)
     */
    virtual double GetBusBandwidthFactor(uint32_t ranks) const = 0;

    /// \return whether the operation has completed
    bool IsFinished() const;
    /// \return the result (complete once IsFinished())
    const CollectiveResult& GetResult() const;

  protected:
    /// Release the communicator and the done callback.
    void DoDispose() override;

    /// Begin moving data; m_comm, m_bytes and the attributes are set.
    virtual void DoStart() = 0;

    /**
     * Post a chunk; counts it in the result and fires the Step trace.
     * \param src source rank
     * \param dst destination rank
     * \param bytes bytes (> 0)
     * \param channel channel (connection) used between servers
     * \param step the algorithm's step number (for the trace)
     * \param onArrival runs when the last byte is at dst
     */
    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              uint32_t channel,
              uint32_t step,
              Callback<void> onArrival);

    /// \param bytes bytes reduced \return the reduction kernel's time for them
    Time GetReductionTime(uint64_t bytes) const;

    /// Complete the operation: record the end, fire Finish, call done, release.
    void Finish();

    /**
     * Create an operation for one phase of this one (hierarchical algorithms), with
     * this operation's Channels, ChunkSize and ReductionRate.
     * \param typeId TypeId name of its algorithm
     * \return the operation, not started
     */
    Ptr<CollectiveOperation> CreatePhase(const std::string& typeId) const;

    /**
     * Count a finished phase's traffic as this operation's.
     * \param phase the phase's result
     * \param ranks this operation's rank of each of the phase's ranks
     */
    void AddPhaseTraffic(const CollectiveResult& phase, const std::vector<uint32_t>& ranks);

    /**
     * Split total bytes into parts as evenly as possible (the first total % parts
     * parts get one byte more).
     * \param total bytes \param parts parts \param index part \return its bytes
     */
    static uint64_t SplitBytes(uint64_t total, uint32_t parts, uint32_t index);

    Ptr<Communicator> m_comm; //!< the communicator
    uint64_t m_bytes{0};      //!< S
    uint32_t m_channels;      //!< parallel channels (connections), attribute
    uint64_t m_chunkSize;     //!< largest chunk posted at once, attribute
    DataRate m_reductionRate; //!< reduction kernel rate (0 = free), attribute

  private:
    CollectiveResult m_result; //!< filled as it runs
    DoneCallback m_done;       //!< completion callback
    bool m_started{false};     //!< Start was called
    bool m_finished{false};    //!< Finish was called

    TracedCallback<const CollectiveResult&> m_startTrace;               //!< started
    TracedCallback<const CollectiveResult&> m_finishTrace;              //!< finished
    TracedCallback<uint32_t, uint32_t, uint64_t, uint32_t> m_stepTrace; //!< chunk posted
};

} // namespace ns3

#endif /* AI_FABRIC_COLLECTIVE_OPERATION_H */
