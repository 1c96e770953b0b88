/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_VOQ_CREDIT_REQUESTER_H
#define AI_FABRIC_VOQ_CREDIT_REQUESTER_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class UniformRandomVariable;
class VoqQueueDisc;

/**
 * \ingroup ai-fabric
 * \brief The ingress side of the credit protocol of a scheduled-fabric leaf: when
 * its VOQs ask the egress schedulers for credit, and what a grant adds.
 *
 * A VOQ reports the cumulative bytes it has queued (so a lost request is repaired
 * by the next one). Requests are coalesced: at most one per RequestInterval per
 * VOQ, unless RequestQuantum bytes are unreported; a coalesced request, and the
 * first request of a VOQ that just became busy, leave after a random phase of up
 * to RequestJitter. Grants carry the cumulative bytes granted; the VOQ's credit
 * grows by the difference. After a link failure a watchdog re-requests, marked as
 * a refresh, for VOQs that waited CreditTimeout for credit.
 *
 * Per-VOQ state is allocated when a VOQ first asks, and found through the VOQ's
 * tag in the VoqQueueDisc (VoqQueueDisc::SetVoqTag), so an idle VOQ costs
 * nothing here. The parameters are the owning ScheduledLeafSwitch's attributes.
 */
class VoqCreditRequester
{
  public:
    /// Send a credit request: (voq, cumulative bytes wanted, refresh).
    typedef Callback<void, uint32_t, uint64_t, bool> SendRequestCallback;

    /// The owner's parameters.
    struct Parameters
    {
        Time requestInterval;    //!< RequestInterval
        Time requestJitter;      //!< RequestJitter
        uint32_t requestQuantum; //!< RequestQuantum
        Time creditTimeout;      //!< CreditTimeout
    };

    /**
     * \param voq the VOQs whose bytes and credit this requester reads and adds to
     * \param parameters the owner's parameters
     * \param rng random phases of coalesced requests
     * \param send sends a request towards the VOQ's egress scheduler
     */
    VoqCreditRequester(Ptr<VoqQueueDisc> voq,
                       const Parameters& parameters,
                       Ptr<UniformRandomVariable> rng,
                       SendRequestCallback send);
    ~VoqCreditRequester();

    /**
     * Bytes entered a VOQ (or its credit changed): ask for credit if warranted.
     * \param voq the VOQ
     */
    void Notify(uint32_t voq);

    /**
     * A grant arrived: add what it brings to the VOQ's credit, then ask again if
     * warranted.
     * \param voq the VOQ
     * \param cumulative cumulative bytes granted to it
     */
    void Grant(uint32_t voq, uint64_t cumulative);

    /// A link changed: control cells may have been lost; start the watchdog.
    void ArmWatchdog();

    /// Cancel every pending event (the owner is being disposed).
    void Cancel();

    /// \return requests sent
    uint64_t GetRequestsSent() const;
    /// \return grants received
    uint64_t GetGrantsReceived() const;
    /// \return requests repeated by the watchdog
    uint64_t GetRefreshes() const;

  private:
    /// Request state of one VOQ.
    struct State
    {
        uint32_t voq{0};        //!< the VOQ
        uint64_t reported{0};   //!< cumulative bytes requested
        uint64_t grantSeen{0};  //!< cumulative bytes granted
        int64_t lastRequest{0}; //!< time of the last request (time steps)
        int64_t lastGrant{0};   //!< time of the last grant (time steps)
        EventId requestEvent;   //!< the coalesced request due
        bool pending{false};    //!< requestEvent is due
        bool refresh{false};    //!< the next request is a watchdog re-request
    };

    /// \param voq a VOQ \return its state, allocated on first use
    State& StateOf(uint32_t voq);
    /// A coalesced request is due. \param voq the VOQ
    void Deferred(uint32_t voq);
    /// Send a request now with everything the VOQ has enqueued. \param s the VOQ's state
    void Send(State& s);
    /// Re-request credit for VOQs that have waited too long.
    void Watchdog();

    Ptr<VoqQueueDisc> m_voq;          //!< the VOQs
    Parameters m_params;              //!< the owner's parameters
    Ptr<UniformRandomVariable> m_rng; //!< request phases
    SendRequestCallback m_send;       //!< to the egress scheduler
    std::vector<State> m_states;      //!< VOQs that have asked (a VOQ's tag is its index)
    EventId m_watchdog;               //!< credit watchdog
    uint64_t m_requests{0};           //!< counter
    uint64_t m_grants{0};             //!< counter
    uint64_t m_refreshes{0};          //!< counter
};

} // namespace ns3

#endif /* AI_FABRIC_VOQ_CREDIT_REQUESTER_H */
