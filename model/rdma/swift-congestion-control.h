/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_SWIFT_CONGESTION_CONTROL_H
#define AI_FABRIC_SWIFT_CONGESTION_CONTROL_H

#include "rdma-congestion-control.h"

#include "ns3/data-rate.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Delay-based congestion control in the manner of Swift (Kumar et al.,
 * SIGCOMM 2020), as a rate: the queue pair holds its round-trip delay near a target
 * by additive increase below it and a multiplicative decrease proportional to the
 * excess above it, at most once per round trip. No switch support is needed (no
 * ECN, no CNP): the delay is measured by the sender from ACKs.
 *
 * With rate R, round-trip sample d, wire bits per full packet b and target t:
 *
 * - d < t: R grows by AdditiveIncrease x b / d per round trip d (AdditiveIncrease
 *   packets of window, the window being R d / b), applied at each sample for the
 *   time since the previous one;
 * - d >= t, once per round trip: R *= max(1 - Beta (d - t) / d, 1 - MaxDecrease);
 * - a retransmission timeout: R *= 1 - MaxDecrease;
 *
 * R stays in [MinRate, line rate]. The window follows the rate: at most
 * ceil(R t / b) packets in flight (at least 1), so when the round trip grows past
 * the target the sender is held back at once, as Swift's window holds it, before
 * the next decrease. What it leaves out of Swift: the window's own arithmetic (here
 * derived from the rate), the separate fabric and host targets, the target's
 * scaling with hops and with the flow's rate, and the NIC timestamps (the sample
 * includes the receiver's ACK coalescing, AckInterval packets).
 */
class SwiftCongestionControl : public RdmaCongestionControl
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    SwiftCongestionControl();
    ~SwiftCongestionControl() override;

    double GetRate() const override;
    uint32_t GetWindowPackets() const override;
    bool UsesRtt() const override;
    void OnAck(uint64_t ackedPackets, Time rtt, Time now) override;
    void OnTimeout(Time now) override;

    /// \return the last round-trip sample (negative before the first)
    Time GetLastRtt() const;

  protected:
    void DoInstall(Time now) override;

  private:
    /// \param rate a rate \return it within [MinRate, line rate]
    double Clamp(double rate) const;

    Time m_target;             //!< TargetDelay
    double m_additiveIncrease; //!< AdditiveIncrease (packets per round trip)
    double m_beta;             //!< Beta
    double m_maxDecrease;      //!< MaxDecrease
    DataRate m_minRate;        //!< MinRate
    uint32_t m_packetBytes;    //!< PacketBytes

    double m_rate{0};        //!< current rate, bit/s
    Time m_lastDecrease{-1}; //!< time of the last decrease
    Time m_lastRtt{-1};      //!< last sample
    Time m_lastUpdate{-1};   //!< time of the last sample
};

} // namespace ns3

#endif /* AI_FABRIC_SWIFT_CONGESTION_CONTROL_H */
