/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CELL_CHANNEL_H
#define AI_FABRIC_CELL_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

namespace ns3
{

class CellNetDevice;
class Packet;

/**
 * \ingroup ai-fabric
 * \brief A full-duplex leaf-spine link carrying fabric cells between two
 * CellNetDevices, with a propagation delay and an up/down state.
 *
 * Setting the link down bumps an epoch: every cell sent under an older epoch
 * that has not arrived yet is lost (the receiving device counts it).
 */
class CellChannel : public Channel
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    CellChannel();

    /// \param device a device to attach (at most two)
    void Attach(Ptr<CellNetDevice> device);

    /// \param device one end \return the other end
    Ptr<CellNetDevice> GetPeer(Ptr<const CellNetDevice> device) const;

    /// \return the propagation delay
    Time GetDelay() const;

    /// \param up the new state; going down loses every cell in flight
    void SetUp(bool up);

    /// \return true if the link is up
    bool IsUp() const;

    /// \return the current epoch (incremented at each failure)
    uint32_t GetEpoch() const;

    /// \return whether the two ends are in different processes of a distributed
    ///         run, so that what crosses goes as messages (SendToProcess); false here
    virtual bool CrossesProcesses() const;
    /**
     * Hand a serialised cell or indication (CellMessageHeader) to the process
     * that runs the receiving end. Only a channel that CrossesProcesses can; here
     * it is an error.
     * \param message the message \param dst the receiving end
     * \param arrival its absolute arrival time
     */
    virtual void SendToProcess(Ptr<Packet> message, Ptr<CellNetDevice> dst, Time arrival);
    /// \return the devices attached, 0 to 2
    std::size_t GetNDevices() const override;
    /// \param i 0 or 1 \return that end, or null if not attached
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  private:
    Ptr<CellNetDevice> m_devices[2];   //!< the two ends
    std::size_t m_nDevices{0};         //!< attached devices
    Time m_delay;                      //!< propagation delay
    bool m_up{true};                   //!< link state
    uint32_t m_epoch{0};               //!< failure epoch
    TracedCallback<bool> m_stateTrace; //!< link state changes
};

} // namespace ns3

#endif /* AI_FABRIC_CELL_CHANNEL_H */
