/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "voq-credit-requester.h"

#include "voq-queue-disc.h"

#include "ns3/ai-fabric-ns3-compat.h"
#include "ns3/log.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("VoqCreditRequester");

namespace
{
/// A time long enough ago that any interval has passed since.
constexpr int64_t LONG_AGO = std::numeric_limits<int64_t>::min() / 2;
} // namespace

VoqCreditRequester::VoqCreditRequester(Ptr<VoqQueueDisc> voq,
                                       const Parameters& parameters,
                                       Ptr<UniformRandomVariable> rng,
                                       SendRequestCallback send)
    : m_voq(voq),
      m_params(parameters),
      m_rng(rng),
      m_send(send)
{
}

VoqCreditRequester::~VoqCreditRequester()
{
    Cancel();
}

void
VoqCreditRequester::Cancel()
{
    NS_LOG_FUNCTION(this);
    m_watchdog.Cancel();
    for (auto& s : m_states)
    {
        s.requestEvent.Cancel();
        s.pending = false;
    }
}

VoqCreditRequester::State&
VoqCreditRequester::StateOf(uint32_t voq)
{
    uint32_t slot = m_voq->GetVoqTag(voq);
    if (slot == VoqQueueDisc::NO_TAG)
    {
        slot = static_cast<uint32_t>(m_states.size());
        m_states.emplace_back();
        m_states.back().voq = voq;
        m_states.back().lastRequest = LONG_AGO;
        m_voq->SetVoqTag(voq, slot);
    }
    return m_states[slot];
}

void
VoqCreditRequester::Notify(uint32_t voq)
{
    NS_LOG_FUNCTION(this << voq);
    State& s = StateOf(voq);
    const uint64_t enqueued = m_voq->GetVoqEnqueuedBytes(voq);
    if (enqueued == s.reported)
    {
        return;
    }
    // Requests are cumulative, so they can be coalesced: at most one per
    // RequestInterval per VOQ, unless RequestQuantum bytes are unreported.
    if (enqueued - s.reported < m_params.requestQuantum)
    {
        if (s.pending)
        {
            return;
        }
        // A coalesced request, and the first request of a VOQ that just became
        // busy, leave after a random phase of up to RequestJitter: senders that
        // start in the same nanosecond would otherwise send requests that meet at
        // a spine, one control cell per sender, and the spine queue would grow
        // with N. (A busy VOQ quiet for an interval, e.g. after a PFC pause,
        // still asks at once.)
        const int64_t now = Simulator::Now().GetTimeStep();
        const int64_t wait =
            std::max<int64_t>(0, s.lastRequest + m_params.requestInterval.GetTimeStep() - now);
        const bool phase = wait > 0 || m_voq->GetVoqPackets(voq) <= 1;
        const int64_t jitter =
            phase && m_params.requestJitter.IsStrictlyPositive()
                ? static_cast<int64_t>(m_rng->GetValue(0, m_params.requestJitter.GetTimeStep()))
                : 0;
        if (wait + jitter > 0)
        {
            NS_LOG_LOGIC("VOQ " << voq << ": request coalesced, due in " << wait + jitter
                                << " steps");
            s.pending = true;
            s.requestEvent = Simulator::Schedule(TimeStep(wait + jitter),
                                                 &VoqCreditRequester::Deferred,
                                                 this,
                                                 voq);
            return;
        }
    }
    Send(s);
}

void
VoqCreditRequester::Send(State& s)
{
    NS_LOG_FUNCTION(this << s.voq);
    const uint64_t enqueued = m_voq->GetVoqEnqueuedBytes(s.voq);
    const bool refresh = s.refresh;
    s.refresh = false;
    s.lastRequest = Simulator::Now().GetTimeStep();
    s.reported = enqueued;
    m_requests++;
    NS_LOG_LOGIC("VOQ " << s.voq << ": request for cumulative " << enqueued << " B"
                        << (refresh ? " (refresh)" : ""));
    m_send(s.voq, enqueued, refresh);
}

void
VoqCreditRequester::Deferred(uint32_t voq)
{
    NS_LOG_FUNCTION(this << voq);
    State& s = m_states[m_voq->GetVoqTag(voq)];
    s.pending = false;
    if (m_voq->GetVoqEnqueuedBytes(voq) == s.reported)
    {
        return; // a quantum-driven request covered these bytes meanwhile
    }
    if (Simulator::Now().GetTimeStep() - s.lastRequest < m_params.requestInterval.GetTimeStep())
    {
        Notify(voq); // too soon after that request: wait again
        return;
    }
    Send(s);
}

void
VoqCreditRequester::Grant(uint32_t voq, uint64_t cumulative)
{
    NS_LOG_FUNCTION(this << voq << cumulative);
    State& s = StateOf(voq);
    m_grants++;
    s.lastGrant = Simulator::Now().GetTimeStep();
    if (cumulative > s.grantSeen)
    {
        NS_LOG_LOGIC("VOQ " << voq << ": grant adds " << cumulative - s.grantSeen << " B");
        m_voq->AddCredit(voq, cumulative - s.grantSeen);
        s.grantSeen = cumulative;
    }
    Notify(voq);
}

void
VoqCreditRequester::ArmWatchdog()
{
    NS_LOG_FUNCTION(this);
    // Control cells are lost only with failed links; after a failure anywhere
    // a watchdog looks for VOQs left waiting for credit that is not coming.
    if (!ai_fabric::IsPending(m_watchdog))
    {
        m_watchdog =
            Simulator::Schedule(m_params.creditTimeout, &VoqCreditRequester::Watchdog, this);
    }
}

void
VoqCreditRequester::Watchdog()
{
    NS_LOG_FUNCTION(this);
    const int64_t now = Simulator::Now().GetTimeStep();
    bool waiting = false;
    for (auto& s : m_states)
    {
        if (m_voq->GetVoqPackets(s.voq) == 0 || m_voq->GetVoqCredit(s.voq) > 0)
        {
            continue;
        }
        waiting = true;
        if (now - std::max(s.lastGrant, s.lastRequest) >= m_params.creditTimeout.GetTimeStep())
        {
            // Ask again with everything queued; the scheduler repeats its last
            // grant if that is what was lost.
            NS_LOG_LOGIC("VOQ " << s.voq << ": no credit for CreditTimeout, asks again");
            m_refreshes++;
            s.refresh = true;
            s.reported = 0;
            s.lastRequest = LONG_AGO;
            Notify(s.voq);
        }
    }
    if (waiting)
    {
        m_watchdog =
            Simulator::Schedule(m_params.creditTimeout, &VoqCreditRequester::Watchdog, this);
    }
}

uint64_t
VoqCreditRequester::GetRequestsSent() const
{
    return m_requests;
}

uint64_t
VoqCreditRequester::GetGrantsReceived() const
{
    return m_grants;
}

uint64_t
VoqCreditRequester::GetRefreshes() const
{
    return m_refreshes;
}

} // namespace ns3
