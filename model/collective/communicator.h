/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_COMMUNICATOR_H
#define AI_FABRIC_COMMUNICATOR_H

#include "ns3/callback.h"
#include "ns3/gpu-compute.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class RdmaTransport;
struct RdmaCompletion;
class ScaleUpSwitch;
class CollectiveOperation;

/**
 * \ingroup ai-fabric
 * \brief An ordered group of GPUs that run collectives together (a DP, PP, TP or EP
 * group, or a whole job), with its own connections.
 *
 * Communicator rank i is the i-th member. Send() moves bytes between two members:
 * over the server's ScaleUpSwitch when both GPUs are in one server, otherwise over
 * the RDMA transport of the source GPU's NIC. Each communicator owns the connection
 * numbers Id x MAX_CHANNELS .. Id x MAX_CHANNELS + MAX_CHANNELS - 1 of every
 * transport, one per channel, so every (communicator, channel, peer) is its own queue
 * pair: its own flow to ECMP and to congestion control. Two communicators (or two
 * jobs) never share a queue pair.
 *
 * CollectiveHelper creates communicators; Split() makes sub-communicators (as
 * hierarchical algorithms do).
 *
 * A message the RDMA transport gives up (its queue pair failed) fails the
 * communicator, as a network error aborts an NCCL communicator: the Failed trace
 * fires once with the reason, HasFailed() is then true, and the failure callbacks
 * (AddFailureCallback) are called, so that the application whose collectives wait
 * for the message can stop instead of waiting for ever. A communicator and the
 * sub-communicators split from it share their failure callbacks.
 */
class Communicator : public Object
{
  public:
    /// One GPU of the communicator.
    struct Member
    {
        uint32_t gpu{0};              //!< global GPU rank in the cluster
        uint32_t server{0};           //!< the GPU's server
        uint32_t localGpu{0};         //!< the GPU's index in its server
        Ptr<RdmaTransport> transport; //!< the RDMA transport of the GPU's NIC
        Ptr<ScaleUpSwitch> scaleUp;   //!< the server's scale-up switch
        Ptr<GpuCompute> compute;      //!< the GPU's compute (workloads' pass times)
    };

    /**
     * The communicator seen as servers: the ranks of each server (servers in order of
     * their first rank, ranks in communicator order), and the rails across them
     * (rail j: the j-th rank of every server), each with its own sub-communicator.
     */
    struct Hierarchy
    {
        std::vector<std::vector<uint32_t>> serverRanks; //!< per server: its ranks
        std::vector<Ptr<Communicator>> servers;         //!< per server: a communicator
        std::vector<std::vector<uint32_t>> railRanks;   //!< per rail: its ranks
        std::vector<Ptr<Communicator>> rails;           //!< per rail: a communicator
    };

    /// TracedCallback signature for Send: (source rank, destination rank, bytes,
    /// channel, true if over the scale-up domain).
    typedef void (*SendTracedCallback)(uint32_t src,
                                       uint32_t dst,
                                       uint64_t bytes,
                                       uint32_t channel,
                                       bool scaleUp);

    /// TracedCallback signature for Failed: (why the communicator failed).
    typedef void (*FailureTracedCallback)(const std::string& reason);

    /// Called once per failure of a communicator, with the reason.
    typedef Callback<void, const std::string&> FailureCallback;

    /// Connections (channels) each communicator owns on every transport.
    static constexpr uint32_t MAX_CHANNELS = 64;

    /// \return the TypeId
    static TypeId GetTypeId();
    Communicator();
    ~Communicator() override;

    /**
     * Set the members, once. Stops with a message naming the offending GPU if the list
     * is empty, a GPU is listed twice, or a member has no transport or no scale-up
     * switch.
     * \param members rank i = members[i]
     */
    void Setup(const std::vector<Member>& members);

    /// \return the number of ranks
    uint32_t GetSize() const;
    /// \return this communicator's number (unique in the process, from 1)
    uint32_t GetId() const;
    /// \param rank a rank of this communicator \return its member
    const Member& GetMember(uint32_t rank) const;
    /**
     * \param nominal a compute phase at full speed
     * \return how long it takes on the slowest GPU of the communicator now (each
     *         GPU's GpuCompute slowdown applied), what a collective after it waits
     */
    Time GetSlowestComputeTime(Time nominal) const;
    /// \param a a rank \param b a rank \return whether both GPUs are in one server
    bool IsSameServer(uint32_t a, uint32_t b) const;

    /**
     * A sub-communicator of some of this communicator's ranks, with its own
     * connections.
     * \param ranks ranks of this communicator, in the new communicator's order
     * \return the new communicator
     */
    Ptr<Communicator> Split(const std::vector<uint32_t>& ranks) const;

    /**
     * The servers and rails of this communicator, built on first use and kept (so
     * repeated hierarchical operations reuse their connections). Stops with a message
     * if the servers do not hold the same number of this communicator's ranks.
     * \return the hierarchy
     */
    const Hierarchy& GetHierarchy();

    /**
     * Move bytes from one rank to another; onArrival runs when the last byte is at
     * dst. Messages from one rank to another on one channel arrive in posting order.
     * \param src source rank
     * \param dst destination rank (!= src)
     * \param bytes bytes (> 0)
     * \param channel channel (< MAX_CHANNELS): the connection used between servers
     * \param onArrival runs at the destination when the last byte has arrived
     */
    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              uint32_t channel,
              Callback<void> onArrival);

    /**
     * Keep an operation alive until it calls Release (CollectiveOperation does both).
     * \param op the operation
     */
    void Hold(Ptr<CollectiveOperation> op);
    /// \param op an operation held by Hold
    void Release(Ptr<CollectiveOperation> op);
    /// \return operations started and not finished
    uint32_t GetNInFlight() const;

    /**
     * Be told when this communicator, or one split from it (Split, GetHierarchy, before
     * or after this call), fails.
     * \param cb called with the reason at each such failure
     */
    void AddFailureCallback(FailureCallback cb);
    /// \return whether a message sent on this communicator was given up
    bool HasFailed() const;
    /// \return why the communicator failed ("" if it has not)
    const std::string& GetFailure() const;

  protected:
    /// Forget the members and messages in flight, dispose of the server and rail sub-communicators.
    void DoDispose() override;

  private:
    /// \param rank a rank \param what its role, for the message
    void CheckRank(uint32_t rank, const char* what) const;
    /**
     * The transport gave up a message of Send: fail the communicator (once).
     * \param src source rank \param dst destination rank \param channel its channel
     * \param info the message, as the transport reports it
     */
    void OnRdmaFailure(uint32_t src, uint32_t dst, uint32_t channel, const RdmaCompletion& info);

    uint32_t m_id;                                    //!< communicator number
    std::vector<Member> m_members;                    //!< rank -> member
    std::vector<Ptr<CollectiveOperation>> m_inFlight; //!< operations running
    Hierarchy m_hierarchy;                            //!< servers and rails, built by GetHierarchy
    std::string m_failure;                            //!< why it failed ("" if it has not)
    /// failure callbacks, shared with the communicators split from this one
    std::shared_ptr<std::vector<FailureCallback>> m_failureCallbacks;
    TracedCallback<const std::string&> m_failedTrace;                         //!< Failed
    TracedCallback<uint32_t, uint32_t, uint64_t, uint32_t, bool> m_sendTrace; //!< Send
};

} // namespace ns3

#endif /* AI_FABRIC_COMMUNICATOR_H */
