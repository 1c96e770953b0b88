/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CELL_REASSEMBLER_H
#define AI_FABRIC_CELL_REASSEMBLER_H

#include "fabric-cell.h"

#include <cstdint>
#include <optional>
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
 * sequence order per source (RDMA transports treat reordering as loss).
 *
 * A packet that stays incomplete at the head of its source's sequence for the
 * timeout is dropped and the sequence moves on. The timeout runs from the first
 * evidence that the packet is broken: the arrival of its own first cell, or, for
 * a packet of which no cell has arrived, the arrival of the first cell of a later
 * packet that is still held. So a packet lost on a failed link costs one timeout,
 * and the packets behind it wait for it at most that long.
 *
 * Nothing is discarded silently; each discard is counted, in cells and payload
 * bytes, by reason: a cell beyond the reorder window, a cell of a packet already
 * given up (late), a cell of a packet already complete (duplicate), and the
 * received cells of a packet that timed out.
 *
 * The reorder buffer of a source is a ring that starts small and doubles when a
 * cell lands beyond it, up to the reorder window: memory follows the reordering
 * actually seen.
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
        uint32_t bytes;     //!< payload bytes of it that had arrived
        uint16_t port;      //!< egress port the packet is for
        uint8_t tc;         //!< traffic class
    };

    /// Why a cell was thrown away on arrival.
    enum Discard
    {
        BEYOND_WINDOW = 0, //!< its packet lies beyond the reorder window
        LATE = 1,          //!< its packet was already given up (or released)
        DUPLICATE = 2,     //!< its packet was already complete
        DISCARD_REASONS = 3,
    };

    /// Cells and payload bytes discarded for one reason.
    struct DiscardCount
    {
        uint64_t cells{0}; //!< cells
        uint64_t bytes{0}; //!< their payload bytes
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
     * \return why the cell was discarded (counted), or nothing if it was kept
     */
    std::optional<Discard> AddCell(uint32_t source,
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

    /**
     * Give up at once every packet up to lastId that is not complete (its source
     * learnt that a path was lost and every cell sent before on the other paths
     * has arrived), releasing the complete ones in order.
     * \param source source index
     * \param lastId the last packet the notice covers (ids wrap)
     * \param now current time
     * \param delivered packets released are appended here
     * \param dropped packets given up are appended here
     */
    void GiveUpThrough(uint32_t source,
                       uint32_t lastId,
                       int64_t now,
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

    /// \param source source index \return the next sequence number it will release
    uint32_t GetNextPacketId(uint32_t source) const;

    /// Largest ReorderWindow accepted (packets per source).
    static constexpr uint32_t MAX_WINDOW = 1u << 20;

    /// \return the reorder window, packets per source
    uint32_t GetWindow() const;
    /// \return packets released
    uint64_t GetPacketsDelivered() const;
    /// \return packets dropped by timeout
    uint64_t GetPacketsTimedOut() const;
    /// \return packets given up on a path-loss notice (GiveUpThrough)
    uint64_t GetPacketsGivenUp() const;
    /// \return payload bytes that had arrived of packets dropped by timeout
    uint64_t GetTimedOutBytes() const;
    /// \return cells accepted
    uint64_t GetCellsAccepted() const;
    /// \param reason a discard reason \return cells and bytes discarded for it
    DiscardCount GetDiscards(Discard reason) const;
    /// \return cells discarded because their packet had already timed out
    uint64_t GetCellsLate() const;
    /// \return cells discarded because they were beyond the reorder window
    uint64_t GetCellsBeyondWindow() const;
    /// \return packets held (partly or wholly received, not yet released)
    uint64_t GetPacketsHeld() const;
    /// \return payload bytes held
    uint64_t GetBytesHeld() const;
    /// \return reorder-buffer slots allocated over all sources
    uint64_t GetSlotsAllocated() const;

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
        bool used{false};     //!< slot holds a packet
        int64_t first{0};     //!< arrival time of its first cell
    };

    /// Reassembly state of one source.
    struct Context
    {
        std::vector<Slot> ring;  //!< reorder buffer; id next + k is at headSlot + k
        uint32_t next{0};        //!< next sequence number to release
        uint32_t headSlot{0};    //!< ring slot of next
        uint32_t end{0};         //!< one past the highest sequence number seen
        int64_t blockedSince{0}; //!< evidence time for a head of which nothing arrived
    };

    /// Move a context's head to the next sequence number. \param ctx the context
    void Advance(Context& ctx) const;
    /// Grow a context's ring (doubling, at most the window) so that it holds id next + ahead.
    /// \param ctx the context \param ahead packets past its head
    void Grow(Context& ctx, uint32_t ahead);
    /// \param ctx a context whose head has not arrived \param now current time
    /// \return when a later held packet first arrived (now if none is held)
    int64_t Evidence(const Context& ctx, int64_t now) const;
    /**
     * Release complete packets at the head of a context.
     * \param source source index \param ctx its context \param now current time
     * \param delivered the packets released are appended here
     */
    void Drain(uint32_t source, Context& ctx, int64_t now, std::vector<Output>& delivered);
    /**
     * Drop the head packet of a context (whatever of it arrived) and move on.
     * \param source source index \param ctx its context
     * \param dropped the packet is appended here
     */
    void DropHead(uint32_t source, Context& ctx, std::vector<Output>& dropped);
    /// Count a discarded cell. \param reason why \param cell the cell
    void Discarded(Discard reason, const FabricCell& cell);

    std::vector<Context> m_contexts;          //!< per source
    uint32_t m_window;                        //!< reorder window
    uint64_t m_delivered{0};                  //!< packets released
    uint64_t m_timedOut{0};                   //!< packets dropped by timeout
    uint64_t m_givenUp{0};                    //!< packets given up on a notice
    uint64_t m_timedOutBytes{0};              //!< received payload bytes of packets given up
    uint64_t m_cells{0};                      //!< cells accepted
    DiscardCount m_discards[DISCARD_REASONS]; //!< per reason
    uint64_t m_held{0};                       //!< packets held
    uint64_t m_heldBytes{0};                  //!< payload bytes held
    uint64_t m_slots{0};                      //!< slots allocated
};

} // namespace ns3

#endif /* AI_FABRIC_CELL_REASSEMBLER_H */
