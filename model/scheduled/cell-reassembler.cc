/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cell-reassembler.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CellReassembler");

namespace
{
/// Slots a source's ring starts with when its first cell arrives.
constexpr uint32_t INITIAL_RING = 16;
} // namespace

CellReassembler::CellReassembler(uint32_t sources, uint32_t window)
    : m_contexts(sources),
      m_window(window)
{
    NS_ABORT_MSG_IF(sources == 0, "CellReassembler: sources must be at least 1, got 0");
    NS_ABORT_MSG_IF(window == 0, "ReorderWindow must be at least 1 packet, got ReorderWindow=0");
    // Beyond half the id space a window could not tell ids apart.
    NS_ABORT_MSG_IF(window > MAX_WINDOW,
                    "ReorderWindow must be at most " << MAX_WINDOW
                                                     << " packets, got ReorderWindow=" << window);
}

void
CellReassembler::SetNextPacketId(uint32_t source, uint32_t id)
{
    NS_LOG_FUNCTION(this << source << id);
    Context& ctx = m_contexts.at(source);
    NS_ABORT_MSG_IF(ctx.next != ctx.end, "CellReassembler: source " << source << " is not idle");
    ctx.next = id;
    ctx.end = id;
}

uint32_t
CellReassembler::GetNextPacketId(uint32_t source) const
{
    return m_contexts.at(source).next;
}

void
CellReassembler::Advance(Context& ctx) const
{
    ctx.next++;
    // The ring follows the head, not id % size: 2^32 is not a multiple of every
    // size, and id % size would map two ids across the wrap to one slot.
    ctx.headSlot = (ctx.headSlot + 1 == ctx.ring.size()) ? 0 : ctx.headSlot + 1;
}

void
CellReassembler::Grow(Context& ctx, uint32_t ahead)
{
    const std::size_t old = ctx.ring.size();
    std::size_t size = std::max<std::size_t>(old * 2, INITIAL_RING);
    while (size <= ahead)
    {
        size *= 2;
    }
    size = std::min<std::size_t>(size, m_window);
    std::vector<Slot> ring(size);
    for (std::size_t k = 0; k < old; ++k)
    {
        ring[k] = std::move(ctx.ring[(ctx.headSlot + k) % old]);
    }
    NS_LOG_LOGIC("reorder ring grows from " << old << " to " << size << " slots");
    m_slots += size - old;
    ctx.ring = std::move(ring);
    ctx.headSlot = 0;
}

void
CellReassembler::Discarded(Discard reason, const FabricCell& cell)
{
    m_discards[reason].cells++;
    m_discards[reason].bytes += cell.payload;
}

std::optional<CellReassembler::Discard>
CellReassembler::AddCell(uint32_t source,
                         const FabricCell& cell,
                         int64_t now,
                         std::vector<Output>& delivered)
{
    NS_LOG_FUNCTION(this << source << cell.packetId << cell.cellIndex << now);
    Context& ctx = m_contexts[source];
    // Unsigned distance from the head: handles wrap-around of the sequence space.
    const uint32_t ahead = cell.packetId - ctx.next;
    if (ahead >= 0x80000000u)
    {
        NS_LOG_LOGIC("source " << source << ": cell of packet number " << cell.packetId
                               << " arrives after its packet was given up");
        Discarded(LATE, cell);
        return LATE;
    }
    if (ahead >= m_window)
    {
        NS_LOG_LOGIC("source " << source << ": packet number " << cell.packetId
                               << " beyond the reorder window (head " << ctx.next << ")");
        Discarded(BEYOND_WINDOW, cell);
        return BEYOND_WINDOW;
    }
    if (ahead >= ctx.ring.size())
    {
        Grow(ctx, ahead);
    }
    if (ctx.end == ctx.next)
    {
        ctx.blockedSince = now; // the context was idle: the head starts waiting now
    }
    if (cell.packetId - ctx.next >= ctx.end - ctx.next)
    {
        ctx.end = cell.packetId + 1;
    }
    Slot& slot = ctx.ring[(static_cast<uint64_t>(ctx.headSlot) + ahead) % ctx.ring.size()];
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
    else if (slot.received == slot.count)
    {
        NS_LOG_LOGIC("source " << source << ": cell " << cell.cellIndex << " of packet number "
                               << cell.packetId << " again, duplicate");
        Discarded(DUPLICATE, cell);
        return DUPLICATE;
    }
    if (!slot.packet)
    {
        // Across processes only the first cell brings the packet (CellMessageHeader).
        slot.packet = cell.packet;
    }
    slot.bytes += cell.payload;
    slot.received++;
    m_heldBytes += cell.payload;
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
        else
        {
            NS_LOG_LOGIC("source " << source << ": packet number " << cell.packetId
                                   << " complete, waits for number " << ctx.next);
        }
    }
    return std::nullopt;
}

int64_t
CellReassembler::Evidence(const Context& ctx, int64_t now) const
{
    const uint32_t span = ctx.end - ctx.next;
    const std::size_t size = ctx.ring.size();
    for (uint32_t k = 1; k < span; ++k)
    {
        const Slot& slot = ctx.ring[(ctx.headSlot + k) % size];
        if (slot.used && slot.id == ctx.next + k)
        {
            return slot.first;
        }
    }
    return now;
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
        NS_LOG_LOGIC("source " << source << ": packet number " << slot.id << " reassembled, "
                               << slot.bytes << " B to port " << slot.port);
        delivered.push_back({slot.packet, source, slot.id, slot.bytes, slot.port, slot.tc});
        m_heldBytes -= slot.bytes;
        slot.packet = nullptr;
        slot.used = false;
        m_held--;
        m_delivered++;
        Advance(ctx);
        moved = true;
    }
    if (moved && ctx.next != ctx.end)
    {
        const Slot& head = ctx.ring[ctx.headSlot];
        if (!head.used || head.id != ctx.next)
        {
            // Nothing of the new head has come although later packets have: it
            // is overdue since the first of them arrived.
            ctx.blockedSince = Evidence(ctx, now);
        }
    }
}

void
CellReassembler::Expire(uint32_t source,
                        int64_t now,
                        int64_t timeout,
                        std::vector<Output>& delivered,
                        std::vector<Output>& dropped)
{
    NS_LOG_FUNCTION(this << source << now << timeout);
    Context& ctx = m_contexts[source];
    while (ctx.next != ctx.end && now >= GetHeadDeadline(source, timeout))
    {
        DropHead(source, ctx, dropped);
        m_timedOut++;
        // blockedSince is kept, so a run of wholly lost packets goes in one sweep.
        Drain(source, ctx, now, delivered);
    }
}

void
CellReassembler::GiveUpThrough(uint32_t source,
                               uint32_t lastId,
                               int64_t now,
                               std::vector<Output>& delivered,
                               std::vector<Output>& dropped)
{
    NS_LOG_FUNCTION(this << source << lastId << now);
    Context& ctx = m_contexts[source];
    const uint32_t ahead = lastId + 1 - ctx.next;
    if (ahead == 0 || ahead >= 0x80000000u)
    {
        return; // every packet up to lastId was released or given up already
    }
    if (ahead > m_window)
    {
        // Not expected (the source cannot have more than a window on its way);
        // the timeout deals with what lies beyond.
        NS_LOG_LOGIC("source " << source << ": packets up to number " << lastId
                               << " reach beyond the reorder window, given up within it only");
    }
    const uint32_t count = std::min(ahead, m_window);
    if (count > ctx.ring.size())
    {
        Grow(ctx, count - 1);
    }
    // Packets of which nothing arrived are lost as well: the head may move past end.
    if (ctx.end - ctx.next < count)
    {
        ctx.end = ctx.next + count;
    }
    const uint32_t stop = ctx.next + count;
    // Draining may carry the head past stop (complete packets beyond it).
    while (static_cast<int32_t>(stop - ctx.next) > 0)
    {
        const Slot& head = ctx.ring[ctx.headSlot];
        if (head.used && head.id == ctx.next && head.received == head.count)
        {
            Drain(source, ctx, now, delivered);
            continue;
        }
        DropHead(source, ctx, dropped);
        m_givenUp++;
    }
    Drain(source, ctx, now, delivered);
    if (ctx.next != ctx.end)
    {
        const Slot& head = ctx.ring[ctx.headSlot];
        if (!head.used || head.id != ctx.next)
        {
            ctx.blockedSince = Evidence(ctx, now);
        }
    }
}

void
CellReassembler::DropHead(uint32_t source, Context& ctx, std::vector<Output>& dropped)
{
    Slot& slot = ctx.ring[ctx.headSlot];
    if (slot.used && slot.id == ctx.next)
    {
        NS_LOG_LOGIC("source " << source << ": packet number " << slot.id << " given up with "
                               << slot.received << " of " << slot.count << " cells");
        dropped.push_back({slot.packet, source, slot.id, slot.bytes, slot.port, slot.tc});
        m_timedOutBytes += slot.bytes;
        m_heldBytes -= slot.bytes;
        slot.packet = nullptr;
        slot.used = false;
        m_held--;
    }
    else
    {
        NS_LOG_LOGIC("source " << source << ": packet number " << ctx.next
                               << " given up, no cell of it arrived");
        dropped.push_back({nullptr, source, ctx.next, 0, 0, 0});
    }
    Advance(ctx);
}

int64_t
CellReassembler::GetHeadDeadline(uint32_t source, int64_t timeout) const
{
    const Context& ctx = m_contexts[source];
    const Slot& slot = ctx.ring[ctx.headSlot];
    // Cells of one packet leave back to back, so a packet whose first cell came
    // a timeout ago is broken.
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

uint32_t
CellReassembler::GetWindow() const
{
    return m_window;
}

uint64_t
CellReassembler::GetPacketsDelivered() const
{
    return m_delivered;
}

uint64_t
CellReassembler::GetPacketsGivenUp() const
{
    return m_givenUp;
}

uint64_t
CellReassembler::GetPacketsTimedOut() const
{
    return m_timedOut;
}

uint64_t
CellReassembler::GetTimedOutBytes() const
{
    return m_timedOutBytes;
}

uint64_t
CellReassembler::GetCellsAccepted() const
{
    return m_cells;
}

CellReassembler::DiscardCount
CellReassembler::GetDiscards(Discard reason) const
{
    return m_discards[reason];
}

uint64_t
CellReassembler::GetCellsLate() const
{
    return m_discards[LATE].cells;
}

uint64_t
CellReassembler::GetCellsBeyondWindow() const
{
    return m_discards[BEYOND_WINDOW].cells;
}

uint64_t
CellReassembler::GetPacketsHeld() const
{
    return m_held;
}

uint64_t
CellReassembler::GetBytesHeld() const
{
    return m_heldBytes;
}

uint64_t
CellReassembler::GetSlotsAllocated() const
{
    return m_slots;
}

} // namespace ns3
