/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_RDMA_CONGESTION_CONTROL_H
#define AI_FABRIC_RDMA_CONGESTION_CONTROL_H

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The congestion control of one RDMA queue pair, chosen by TypeId (the
 * RdmaTransport's CongestionControl attribute), as ns-3's TCP chooses a
 * TcpCongestionOps.
 *
 * The transport creates one instance per queue pair, calls Install() once, then the
 * hooks: OnSend for every data packet it sends, OnAck for every ACK that advances
 * the send window (packets newly acknowledged), OnCnp for every CNP, OnTimeout on a retransmission
 * timeout. It paces the queue pair's data frames at GetRate() (bit/s of wire bytes; the line rate
 * means back to back). A subclass that changes its rate outside a hook (its own timer) calls
 * NotifyRateChange().
 *
 * This base class is no congestion control: the line rate, always. A subclass
 * overrides GetRate() and the hooks it needs; UsesCnp() true makes the receiver
 * of its queue pairs answer ECN CE marks with CNPs (the DCQCN notification point).
 */
class RdmaCongestionControl : public Object
{
  public:
    /// Called with the new rate (bit/s) when it changes.
    typedef Callback<void, double> RateChangeCallback;

    /// \return the TypeId
    static TypeId GetTypeId();
    RdmaCongestionControl();
    ~RdmaCongestionControl() override;

    /**
     * Start controlling a queue pair. Once. Stops with a message naming a bad
     * attribute and its value.
     * \param lineRateBps the NIC's rate, bit/s (> 0)
     * \param now the queue pair's creation time
     * \param onRateChange called whenever the rate changes
     */
    void Install(double lineRateBps, Time now, RateChangeCallback onRateChange);

    /// \return the rate to pace data frames at, bit/s (at most the line rate)
    virtual double GetRate() const;
    /// \return the most packets the queue pair may have in flight (0: no limit of
    ///         this control's; the transport's MaxBytesInFlight still applies)
    virtual uint32_t GetWindowPackets() const;
    /// \return whether receivers answer CE marks with CNPs for this control
    virtual bool UsesCnp() const;
    /// \return whether OnAck needs round-trip samples (the transport then keeps the
    ///         send time of every packet in flight)
    virtual bool UsesRtt() const;

    /// \param bytes a data packet's bytes just sent \param now the time
    virtual void OnSend(uint64_t bytes, Time now);
    /**
     * An ACK advanced the send window.
     * \param ackedPackets packets newly acknowledged
     * \param rtt with UsesRtt(), the time since the newest of them was sent (first
     *        transmissions only, Karn's rule); negative if there is no sample
     * \param now the time
     */
    virtual void OnAck(uint64_t ackedPackets, Time rtt, Time now);
    /// \param now the time a CNP arrived
    virtual void OnCnp(Time now);
    /// \param now the time of a retransmission timeout
    virtual void OnTimeout(Time now);

  protected:
    /// Drop the rate-change callback.
    void DoDispose() override;

    /**
     * Set up the control (the attributes are set; stop with a message on bad ones).
     * \param now the queue pair's creation time
     */
    virtual void DoInstall(Time now);
    /// Tell the transport the rate changed (GetRate() has the new one).
    void NotifyRateChange();
    /// \return the NIC's rate, bit/s
    double GetLineRate() const;

  private:
    double m_lineRateBps{0};           //!< the NIC's rate
    RateChangeCallback m_onRateChange; //!< the transport's callback
};

} // namespace ns3

#endif /* AI_FABRIC_RDMA_CONGESTION_CONTROL_H */
