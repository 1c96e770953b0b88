/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CELL_REASSEMBLER_H
#define AI_FABRIC_CELL_REASSEMBLER_H

#include "fabric-cell.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Egress reassembly of sprayed cells, per source leaf, with a reorder
 * buffer and a head-of-line timeout. Pure logic: time is passed in as integers.
 *
 * Each source numbers its packets 0, 1, 2, ... (wrapping). Cells of a packet and
 * packets of a source may arrive in any order; packets are released strictly in
 * sequence order per source (RDMA transports treat reordering as loss). A packet
 * that stays incomplete at the head of its source's sequence for the timeout is
 * dropped and counted, and the sequence moves on; cells that arrive for it later
 * are discarded and counted.
 */
class CellReassembler
{
  public:
    /// A packet released (or dropped) by the reassembler.
    struct Output
    {
        Ptr<Packet> packet; //!< the packet (null for a drop of which no cell arrived)
        uint32_t source;    //!< source index
        uint32_t packetId;  //!< sequence number within the source
        uint16_t port;      //!< egress port the packet is for
        uint8_t tc;         //!< traffic class
    };

    /**
     * \param sources number of sources (dense indices 0..sources-1)
     * \param window reorder window in packets per source
     */
    CellReassembler(uint32_t sources, uint32_t window);

    /**
     * Accept a data cell.
     * \param source source index
     * \param cell the cell
     * \param now current time (any integer unit, the same as the timeout)
     * \param delivered packets released in order are appended here
     */
    void AddCell(uint32_t source,
                 const FabricCell& cell,
                 int64_t now,
                 std::vector<Output>& delivered);

    /**
     * Drop head-of-line packets that have waited for at least timeout.
     * \param source source index
     * \param now current time
     * \param timeout reassembly timeout
     * \param delivered packets released after a drop are appended here
     * \param dropped dropped packets are appended here
     */
    void Expire(uint32_t source,
                int64_t now,
                int64_t timeout,
                std::vector<Output>& delivered,
                std::vector<Output>& dropped);

    /// \param source source index \return true if the source has undelivered cells
    bool IsPending(uint32_t source) const;

    /**
     * \param source source index
     * \param timeout reassembly timeout
     * \return when the head packet of the source times out (valid if IsPending)
     */
    int64_t GetHeadDeadline(uint32_t source, int64_t timeout) const;

    /**
     * Start an idle source's sequence at id (ids are 32-bit and wrap).
     * \param source source index
     * \param id the next sequence number expected
     */
    void SetNextPacketId(uint32_t source, uint32_t id);
    /// Largest ReorderWindow accepted (packets per source).
    static constexpr uint32_t MAX_WINDOW = 1u << 20;
    /// \return packets released
    uint64_t GetPacketsDelivered() const;
    /// \return packets dropped by timeout
    uint64_t GetPacketsTimedOut() const;
    /// \return cells accepted
    uint64_t GetCellsAccepted() const;
    /// \return cells discarded because their packet had already timed out
    uint64_t GetCellsLate() const;
    /// \return cells discarded because they were beyond the reorder window
    uint64_t GetCellsBeyondWindow() const;
    /// \return packets held (partly or wholly received, not yet released)
    uint64_t GetPacketsHeld() const;

  private:
    /// One packet being reassembled.
    struct Slot
    {
        Ptr<Packet> packet;   //!< the packet (set by its first cell)
        uint32_t id{0};       //!< sequence number
        uint32_t bytes{0};    //!< payload bytes received
        uint16_t received{0}; //!< cells received
        uint16_t count{0};    //!< cells expected
        uint16_t port{0};     //!< egress port
        uint8_t tc{0};        //!< traffic class
        int64_t first{0};     //!< arrival time of its first cell
        bool used{false};     //!< slot holds a packet
    };

    /// Reassembly state of one source.
    struct Context
    {
        std::vector<Slot> ring;  //!< reorder buffer (allocated lazily)
        uint32_t next{0};        //!< next sequence number to release
        uint32_t headSlot{0};    //!< ring slot of next; id next + k is at headSlot + k
        uint32_t end{0};         //!< one past the highest sequence number seen
        int64_t blockedSince{0}; //!< since when the head has been waited for
    };

    /// Move a context's head to the next sequence number.
    void Advance(Context& ctx) const;
    /// Release complete packets at the head of a context.
    void Drain(uint32_t source, Context& ctx, int64_t now, std::vector<Output>& delivered);

    std::vector<Context> m_contexts; //!< per source
    uint32_t m_window;               //!< reorder window
    uint64_t m_delivered{0};         //!< packets released
    uint64_t m_timedOut{0};          //!< packets dropped by timeout
    uint64_t m_cells{0};             //!< cells accepted
    uint64_t m_late{0};              //!< late cells discarded
    uint64_t m_beyond{0};            //!< cells beyond the window discarded
    uint64_t m_held{0};              //!< packets held
};

} // namespace ns3

#endif /* AI_FABRIC_CELL_REASSEMBLER_H */
