/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_ROCE_CHANNEL_H
#define AI_FABRIC_ROCE_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

namespace ns3
{

class RoceNetDevice;
class Packet;

/**
 * \ingroup ai-fabric
 * \brief A full-duplex Ethernet point-to-point wire between two RoceNetDevices.
 *
 * Each direction is independent; a frame reaches the peer after its serialisation
 * time (computed by the sending device) plus the propagation Delay.
 */
class RoceChannel : public Channel
{
  public:
    /// TracedCallback signature for TxRxRoce: (frame, transmitting device, receiving
    /// device, serialisation time, propagation delay).
    typedef void (*TxRxCallback)(Ptr<const Packet> frame,
                                 Ptr<NetDevice> from,
                                 Ptr<NetDevice> to,
                                 Time txTime,
                                 Time delay);

    /// \return the TypeId
    static TypeId GetTypeId();
    RoceChannel();

    /**
     * Attach a device; a channel takes exactly two.
     * \param device the device
     */
    void Attach(Ptr<RoceNetDevice> device);

    /**
     * Start sending a frame to the other end.
     * \param frame the frame (Ethernet header included, FCS not)
     * \param src the sending device
     * \param txTime serialisation time of the frame at the sender
     * \return true if the frame was accepted (the channel has two devices)
     */
    bool TransmitStart(Ptr<const Packet> frame, Ptr<RoceNetDevice> src, Time txTime);

    /**
     * Take the wire down (frames on it and frames sent into it are lost, counted)
     * or bring it back; both devices are told (their link change callbacks).
     * \param up the new state
     */
    void SetUp(bool up);
    /// \return whether the wire is up
    bool IsUp() const;
    /// \return frames lost because the wire was down
    uint64_t GetFramesLost() const;
    /// \return of those, frames other than PFC (the packets a fabric carries)
    uint64_t GetDataFramesLost() const;

    /// \param device one end \return the other end (or null)
    Ptr<RoceNetDevice> GetPeer(Ptr<const RoceNetDevice> device) const;

    /// \return the devices attached, 0 to 2
    std::size_t GetNDevices() const override;
    /// \param i 0 or 1, below GetNDevices() (more is an error) \return that end
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

    /// \return the propagation delay
    Time GetDelay() const;
    /// \param delay the propagation delay (negative is an error)
    void SetDelay(Time delay);

  protected:
    /// Release the two ends.
    void DoDispose() override;

    /**
     * Carry a frame that has entered an up wire to the other end. Here, an event
     * at the receiver; a wire between MPI processes (RoceRemoteChannel) hands it to
     * the process that owns the receiver instead.
     * \param frame the frame
     * \param dst the receiving end
     * \param arrival delay from now until its last bit reaches dst
     */
    virtual void Carry(Ptr<const Packet> frame, Ptr<RoceNetDevice> dst, Time arrival);

  private:
    /**
     * Hand a frame to its receiver unless the wire went down since it was sent.
     * \param dst the receiving end
     * \param frame the frame
     * \param generation m_generation when it was sent (a change means it is lost)
     */
    void Deliver(Ptr<RoceNetDevice> dst, Ptr<Packet> frame, uint64_t generation);
    /// Count and trace a frame the wire lost. \param frame the frame
    void CountLost(Ptr<const Packet> frame);

    Time m_delay;                 //!< propagation delay
    bool m_up{true};              //!< the wire carries frames
    uint64_t m_generation{0};     //!< changes with every state change
    uint64_t m_framesLost{0};     //!< frames lost while down
    uint64_t m_dataFramesLost{0}; //!< of those, frames other than PFC
    Ptr<RoceNetDevice> m_dev[2];  //!< the two ends
    std::size_t m_nDevices{0};    //!< number attached
    /// Fired when a frame enters the wire: frame, sender, receiver, tx time, delay.
    TracedCallback<Ptr<const Packet>, Ptr<NetDevice>, Ptr<NetDevice>, Time, Time> m_txrxTrace;
    /// Fired when a frame is lost on a down wire.
    TracedCallback<Ptr<const Packet>> m_frameLostTrace;
};

} // namespace ns3

#endif /* AI_FABRIC_ROCE_CHANNEL_H */
