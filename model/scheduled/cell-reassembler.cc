/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cell-reassembler.h"

#include "ns3/abort.h"

namespace ns3
{

CellReassembler::CellReassembler(uint32_t sources, uint32_t window)
    : m_contexts(sources),
      m_window(window)
{
    NS_ABORT_MSG_IF(sources == 0, "CellReassembler: sources must be at least 1, got 0");
    NS_ABORT_MSG_IF(window == 0, "ReorderWindow must be at least 1 packet, got ReorderWindow=0");
    // The ring is allocated per source: a window this large would take tens of
    // MB per source, and it could not tell ids apart near half the id space.
    NS_ABORT_MSG_IF(window > MAX_WINDOW,
                    "ReorderWindow must be at most " << MAX_WINDOW
                                                     << " packets, got ReorderWindow=" << window);
}

void
CellReassembler::SetNextPacketId(uint32_t source, uint32_t id)
{
    Context& ctx = m_contexts.at(source);
    NS_ABORT_MSG_IF(ctx.next != ctx.end, "CellReassembler: source " << source << " is not idle");
    ctx.next = id;
    ctx.end = id;
}

void
CellReassembler::Advance(Context& ctx) const
{
    ctx.next++;
    // The ring follows the head, not id % window: 2^32 is not a multiple of every
    // window, and id % window would map two ids across the wrap to one slot.
    ctx.headSlot = (ctx.headSlot + 1 == m_window) ? 0 : ctx.headSlot + 1;
}

void
CellReassembler::AddCell(uint32_t source,
                         const FabricCell& cell,
                         int64_t now,
                         std::vector<Output>& delivered)
{
    Context& ctx = m_contexts[source];
    // Unsigned distance from the head: handles wrap-around of the sequence space.
    const uint32_t ahead = cell.packetId - ctx.next;
    if (ahead >= 0x80000000u)
    {
        m_late++; // its packet was already given up
        return;
    }
    if (ahead >= m_window)
    {
        m_beyond++;
        return;
    }
    if (ctx.ring.empty())
    {
        ctx.ring.resize(m_window);
    }
    if (ctx.end == ctx.next)
    {
        ctx.blockedSince = now; // the context was idle: the head starts waiting now
    }
    if (cell.packetId - ctx.next >= ctx.end - ctx.next)
    {
        ctx.end = cell.packetId + 1;
    }
    Slot& slot = ctx.ring[(static_cast<uint64_t>(ctx.headSlot) + ahead) % m_window];
    if (!slot.used)
    {
        slot.used = true;
        slot.packet = cell.packet;
        slot.id = cell.packetId;
        slot.bytes = 0;
        slot.received = 0;
        slot.count = cell.cellCount;
        slot.port = cell.dstPort;
        slot.tc = cell.tc;
        slot.first = now;
        m_held++;
    }
    slot.bytes += cell.payload;
    slot.received++;
    m_cells++;
    if (slot.received == slot.count)
    {
        NS_ABORT_MSG_IF(slot.packet && slot.bytes != slot.packet->GetSize(),
                        "CellReassembler: packet "
                            << slot.id << " from source " << source << " reassembled " << slot.bytes
                            << " bytes, expected " << slot.packet->GetSize());
        if (cell.packetId == ctx.next)
        {
            Drain(source, ctx, now, delivered);
        }
    }
}

void
CellReassembler::Drain(uint32_t source, Context& ctx, int64_t now, std::vector<Output>& delivered)
{
    bool moved = false;
    while (ctx.next != ctx.end)
    {
        Slot& slot = ctx.ring[ctx.headSlot];
        if (!slot.used || slot.id != ctx.next || slot.received != slot.count)
        {
            break;
        }
        delivered.push_back({slot.packet, source, slot.id, slot.port, slot.tc});
        slot.packet = nullptr;
        slot.used = false;
        m_held--;
        m_delivered++;
        Advance(ctx);
        moved = true;
    }
    if (moved)
    {
        ctx.blockedSince = now;
    }
}

void
CellReassembler::Expire(uint32_t source,
                        int64_t now,
                        int64_t timeout,
                        std::vector<Output>& delivered,
                        std::vector<Output>& dropped)
{
    Context& ctx = m_contexts[source];
    while (ctx.next != ctx.end && now >= GetHeadDeadline(source, timeout))
    {
        Slot& slot = ctx.ring[ctx.headSlot];
        if (slot.used && slot.id == ctx.next)
        {
            dropped.push_back({slot.packet, source, slot.id, slot.port, slot.tc});
            slot.packet = nullptr;
            slot.used = false;
            m_held--;
        }
        else
        {
            dropped.push_back({nullptr, source, ctx.next, 0, 0}); // no cell of it arrived
        }
        m_timedOut++;
        Advance(ctx);
        // blockedSince is kept, so a run of wholly lost packets goes in one sweep;
        // Drain restarts the clock as soon as something is delivered.
        Drain(source, ctx, now, delivered);
    }
}

int64_t
CellReassembler::GetHeadDeadline(uint32_t source, int64_t timeout) const
{
    const Context& ctx = m_contexts[source];
    const Slot& slot = ctx.ring[ctx.headSlot];
    // Cells of one packet leave back to back, so a packet whose first cell came
    // a timeout ago is broken; a packet of which nothing came is timed from when
    // the head started blocking.
    if (slot.used && slot.id == ctx.next)
    {
        return slot.first + timeout;
    }
    return ctx.blockedSince + timeout;
}

bool
CellReassembler::IsPending(uint32_t source) const
{
    return m_contexts[source].next != m_contexts[source].end;
}

uint64_t
CellReassembler::GetPacketsDelivered() const
{
    return m_delivered;
}

uint64_t
CellReassembler::GetPacketsTimedOut() const
{
    return m_timedOut;
}

uint64_t
CellReassembler::GetCellsAccepted() const
{
    return m_cells;
}

uint64_t
CellReassembler::GetCellsLate() const
{
    return m_late;
}

uint64_t
CellReassembler::GetCellsBeyondWindow() const
{
    return m_beyond;
}

uint64_t
CellReassembler::GetPacketsHeld() const
{
    return m_held;
}

} // namespace ns3
