/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_SHARED_BUFFER_MMU_H
#define AI_FABRIC_SHARED_BUFFER_MMU_H

#include "ns3/object.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The memory management unit of a shared-buffer Ethernet switch: admission,
 * PFC thresholds and buffer accounting, in the style of merchant switch chips.
 *
 * Every packet is counted twice while it is buffered: against its ingress
 * (port, priority) and against its egress (port, priority).
 *
 * - Lossless priorities (LosslessPriorities bit set, PfcEnabled): each ingress
 *   (port, priority) may use the shared pool up to the dynamic threshold
 *   PfcAlpha x (free shared bytes); beyond it the port should pause its upstream,
 *   and packets still arriving go to the port's reserved headroom. A packet finding
 *   the headroom full is dropped (counted: the headroom was sized too small). The
 *   upstream is resumed when the port's shared use falls PfcResumeOffset below
 *   the threshold.
 * - Lossy priorities: each egress (port, priority) may hold up to the dynamic
 *   threshold EgressAlpha x (free shared bytes); beyond it packets are dropped.
 *
 * Headroom is reserved out of BufferSize for every lossless (port, priority), so
 * the shared pool is BufferSize minus all headroom. Release takes a packet's bytes
 * from the headroom first, then from the shared pool.
 */
class SharedBufferMmu : public Object
{
  public:
    /// Number of priorities.
    static constexpr uint8_t NUM_PRIORITIES = 8;

    /// The answer to an admission request.
    enum Admission
    {
        ADMITTED,           //!< buffered
        DROP_EGRESS_LIMIT,  //!< lossy: over the egress dynamic threshold
        DROP_HEADROOM_FULL, //!< lossless: over the threshold and the headroom is full
        DROP_BUFFER_FULL,   //!< no byte of the shared pool is left
    };

    /// \return the TypeId
    static TypeId GetTypeId();
    SharedBufferMmu();

    /**
     * Add a port; call before the first admission. Stops if the headroom reserved
     * for all lossless priorities of all ports leaves no shared pool.
     * \param headroomBytes headroom reserved for each lossless priority of the port
     * \return the port index (dense, from 0)
     */
    uint32_t AddPort(uint64_t headroomBytes);

    /**
     * Admit a packet and charge it, or refuse it.
     * \param inPort ingress port \param outPort egress port \param priority 0..7
     * \param bytes frame bytes
     * \return ADMITTED or the reason of the drop
     */
    Admission Admit(uint32_t inPort, uint32_t outPort, uint8_t priority, uint32_t bytes);

    /**
     * Return the bytes of a packet that leaves the buffer.
     * \param inPort ingress port \param outPort egress port \param priority 0..7
     * \param bytes frame bytes (as admitted)
     */
    void Release(uint32_t inPort, uint32_t outPort, uint8_t priority, uint32_t bytes);

    /// \param priority 0..7 \return whether PFC protects the priority
    bool IsLossless(uint8_t priority) const;
    /// \param port ingress port \param priority 0..7 \return whether it is above its
    /// PFC threshold (so its upstream should be paused)
    bool IsOverPauseThreshold(uint32_t port, uint8_t priority) const;
    /// \param port ingress port \param priority 0..7 \return whether it is at least
    /// PfcResumeOffset below its PFC threshold (so its upstream may resume)
    bool IsBelowResumeThreshold(uint32_t port, uint8_t priority) const;
    /// \return the current PFC threshold of every ingress (port, priority), bytes
    uint64_t GetPauseThreshold() const;
    /// \return the current lossy egress threshold of every egress (port, priority), bytes
    uint64_t GetEgressThreshold() const;

    /// \return bytes buffered (shared pool and headroom)
    uint64_t GetUsedBytes() const;
    /// \return bytes of the shared pool in use
    uint64_t GetSharedUsedBytes() const;
    /// \return bytes of the shared pool (BufferSize minus reserved headroom)
    uint64_t GetSharedPoolBytes() const;
    /// \return the largest GetUsedBytes() seen
    uint64_t GetHighWater() const;
    /// \param port egress port \param priority 0..7 \return bytes queued for it
    uint64_t GetEgressBytes(uint32_t port, uint8_t priority) const;
    /// \param port egress port \return bytes queued for it, all priorities
    uint64_t GetEgressPortBytes(uint32_t port) const;
    /// \param port ingress port \param priority 0..7 \return bytes that came in there
    uint64_t GetIngressBytes(uint32_t port, uint8_t priority) const;
    /// \param port ingress port \return headroom reserved per lossless priority
    uint64_t GetHeadroom(uint32_t port) const;
    /// \param port ingress port \param priority 0..7 \return headroom bytes in use
    uint64_t GetHeadroomBytes(uint32_t port, uint8_t priority) const;
    /// \return the number of ports
    uint32_t GetNPorts() const;

  private:
    /// Per-port accounting.
    struct Port
    {
        uint64_t headroom{0};                                //!< reserved per lossless priority
        std::array<uint64_t, NUM_PRIORITIES> ingress{};      //!< bytes in, by priority
        std::array<uint64_t, NUM_PRIORITIES> headroomUsed{}; //!< of which in headroom
        std::array<uint64_t, NUM_PRIORITIES> egress{};       //!< bytes queued out
        uint64_t egressTotal{0};                             //!< over all priorities
    };

    /// \return the free shared bytes
    uint64_t GetSharedFree() const;
    /// Stop if a port or priority argument is out of range.
    /// \param port a port \param priority a priority \param what the caller, for the message
    void Check(uint32_t port, uint8_t priority, const char* what) const;

    uint64_t m_bufferSize{0};      //!< total buffer
    double m_egressAlpha{1};       //!< lossy dynamic threshold factor
    double m_pfcAlpha{0.125};      //!< lossless dynamic threshold factor
    uint64_t m_pfcResumeOffset{0}; //!< hysteresis below the threshold
    bool m_pfcEnabled{true};       //!< PFC on lossless priorities
    uint8_t m_losslessMask{0};     //!< bit n: priority n is lossless
    std::vector<Port> m_ports;     //!< by port index
    uint64_t m_reserved{0};        //!< headroom reserved over all ports
    uint64_t m_sharedUsed{0};      //!< shared pool in use
    uint64_t m_headroomUsed{0};    //!< headroom in use over all ports
    uint64_t m_highWater{0};       //!< largest use
};

} // namespace ns3

#endif /* AI_FABRIC_SHARED_BUFFER_MMU_H */
