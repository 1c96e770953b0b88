/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_SCALE_UP_SWITCH_H
#define AI_FABRIC_SCALE_UP_SWITCH_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The scale-up interconnect of one GPU server (NVLink/NVSwitch-like): every
 * GPU is attached to a non-blocking switch by a port of PortRate per direction.
 *
 * Not packet-level: a transfer of B bytes from local GPU src to local GPU dst
 * occupies src's transmit port and dst's receive port for B x 8 / PortRate. It
 * starts at max(now, src's transmit port free, dst's receive port free); both ports
 * are then busy until start + B x 8 / PortRate, and the transfer's done callback
 * runs Latency after that, when its last byte has arrived at dst. Ports are
 * reserved in the order transfers are posted (FIFO per port, no backfilling of
 * idle gaps), so transfers that share a port are serialised; transfers on disjoint
 * ports do not interfere (the switch itself never binds).
 *
 * The port clocks count femtoseconds in 128 bits, as CellNetDevice's do, so
 * back-to-back transfers add up to the femtosecond (each transfer's time is
 * counted to the femtosecond below); only the completion event is rounded, up, to
 * the simulator's time step, so done never runs before the last byte has arrived.
 * One simulator event per transfer: its completion.
 */
class ScaleUpSwitch : public Object
{
  public:
    /// TracedCallback signature for transfers: (source GPU, destination GPU, bytes).
    typedef void (*TransferTracedCallback)(uint32_t src, uint32_t dst, uint64_t bytes);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    ScaleUpSwitch();
    ~ScaleUpSwitch() override;

    /**
     * Attach the server's GPUs, one port each; call once, before any Transfer.
     * \param gpus GPUs attached (ports)
     */
    void Setup(uint32_t gpus);

    /**
     * Move bytes from local GPU src to local GPU dst; done() runs when the last byte
     * has arrived at dst. Stops on src == dst, a GPU out of range or zero bytes.
     * \param src source GPU (local index, < GetNGpus())
     * \param dst destination GPU (local index, < GetNGpus(), != src)
     * \param bytes bytes to move (> 0)
     * \param done runs when the transfer is complete (may be null)
     */
    void Transfer(uint32_t src, uint32_t dst, uint64_t bytes, Callback<void> done);

    /// \return the GPUs attached (0 before Setup)
    uint32_t GetNGpus() const;

    /// \return the rate of each GPU's port, per direction (attribute PortRate)
    DataRate GetPortRate() const;

    /// \return the time from a transfer's last byte leaving the ports to its
    ///         completion (attribute Latency)
    Time GetLatency() const;

    /// \param gpu local GPU \return bytes of its completed transfers as the source
    uint64_t GetBytesSent(uint32_t gpu) const;

    /// \param gpu local GPU \return bytes of its completed transfers as the destination
    uint64_t GetBytesReceived(uint32_t gpu) const;

    /// \return transfers completed
    uint64_t GetTransfers() const;

  protected:
    /// Cancel the pending transfers and drop their callbacks.
    void DoDispose() override;

  private:
    /// A transfer posted and not yet complete.
    struct Pending
    {
        uint32_t src{0};     //!< source GPU
        uint32_t dst{0};     //!< destination GPU
        uint64_t bytes{0};   //!< bytes
        Callback<void> done; //!< completion callback
        EventId event;       //!< the completion event
        bool inUse{false};   //!< slot holds a transfer
    };

    /// \param slot index into m_pending of the transfer that completes now
    void Complete(uint32_t slot);

    /// \param gpu local GPU \param what the parameter's name, for the message
    void CheckGpu(uint32_t gpu, const char* what) const;

    DataRate m_portRate; //!< per GPU port, per direction
    Time m_latency;      //!< last byte out of the ports to completion

    uint32_t m_gpus{0};                 //!< GPUs attached
    std::vector<__int128_t> m_txFreeFs; //!< per GPU: transmit port busy until, fs
    std::vector<__int128_t> m_rxFreeFs; //!< per GPU: receive port busy until, fs
    std::vector<uint64_t> m_bytesSent;  //!< per GPU: bytes of completed transfers out
    std::vector<uint64_t> m_bytesRecv;  //!< per GPU: bytes of completed transfers in
    uint64_t m_transfers{0};            //!< transfers completed
    std::vector<Pending> m_pending;     //!< transfers in progress, by slot
    std::vector<uint32_t> m_freeSlots;  //!< unused slots of m_pending

    TracedCallback<uint32_t, uint32_t, uint64_t> m_startTrace; //!< transfer posted
    TracedCallback<uint32_t, uint32_t, uint64_t> m_doneTrace;  //!< transfer complete
};

} // namespace ns3

#endif /* AI_FABRIC_SCALE_UP_SWITCH_H */
