/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Segmentation and reassembly of packets into fabric cells, as pure logic.

#include "ns3/cell-reassembler.h"
#include "ns3/cell-segmenter.h"
#include "ns3/packet.h"
#include "ns3/test.h"

#include <algorithm>
#include <random>
#include <vector>

using namespace ns3;

/**
 * Every packet size from 1 to 9000 B, several cell sizes, fixed and variable last
 * cells, cells of batches of packets shuffled together (many random arrival
 * orders): every packet is released exactly once, in sequence, and the slices its
 * cells carried rebuild its bytes exactly.
 */
class CellRoundTripTestCase : public TestCase
{
  public:
    /// \param payload CellPayload, bytes \param variable a short last cell (else padded)
    CellRoundTripTestCase(uint32_t payload, bool variable)
        : TestCase("round trip 1..9000 B, CellPayload=" + std::to_string(payload) +
                   (variable ? ", variable last cell" : ", fixed cells")),
          m_payload(payload),
          m_variable(variable)
    {
    }

  private:
    /// Segment every size, shuffle the cells of each batch, reassemble and compare bytes and order.
    void DoRun() override
    {
        const uint32_t maxSize = 9000;
        const uint32_t batch = 8;   // packets whose cells are shuffled together
        const uint32_t orders = 10; // random arrival orders per batch
        CellSegmenter seg(m_payload, 16, m_variable);
        std::mt19937 rng(12345 + m_payload);
        std::vector<uint8_t> content(maxSize);
        for (auto& b : content)
        {
            b = static_cast<uint8_t>(rng());
        }
        uint64_t released = 0;
        uint64_t failures = 0;
        for (uint32_t order = 0; order < orders; ++order)
        {
            CellReassembler reasm(1, 64);
            uint32_t nextId = 0;
            for (uint32_t first = 1; first <= maxSize; first += batch)
            {
                std::vector<Ptr<Packet>> packets;
                std::vector<FabricCell> cells;
                for (uint32_t size = first; size < first + batch && size <= maxSize; ++size)
                {
                    Ptr<Packet> p = Create<Packet>(content.data(), size);
                    packets.push_back(p);
                    FabricCell c;
                    c.packet = p;
                    c.packetId = nextId++;
                    c.cellCount = static_cast<uint16_t>(seg.GetCellCount(size));
                    for (uint32_t i = 0; i < c.cellCount; ++i)
                    {
                        c.cellIndex = static_cast<uint16_t>(i);
                        c.offset = seg.GetCellOffset(size, i);
                        c.payload = seg.GetCellPayload(size, i);
                        c.wireBytes = seg.GetCellWireBytes(size, i);
                        cells.push_back(c);
                    }
                }
                std::shuffle(cells.begin(), cells.end(), rng);
                std::vector<CellReassembler::Output> out;
                std::vector<std::vector<uint8_t>> rebuilt(packets.size());
                std::vector<std::vector<uint8_t>> bytes(packets.size());
                for (uint32_t k = 0; k < packets.size(); ++k)
                {
                    // What the cell's packet reference holds (read once per packet).
                    bytes[k].resize(packets[k]->GetSize());
                    packets[k]->CopyData(bytes[k].data(), bytes[k].size());
                    rebuilt[k].assign(packets[k]->GetSize(), 0xee);
                }
                std::vector<uint64_t> wire(packets.size(), 0);
                const uint32_t base = nextId - static_cast<uint32_t>(packets.size());
                for (const auto& c : cells)
                {
                    // Rebuild from the slice this cell names, read from its packet.
                    const auto& whole = bytes[c.packetId - base];
                    std::copy(whole.begin() + c.offset,
                              whole.begin() + c.offset + c.payload,
                              rebuilt[c.packetId - base].begin() + c.offset);
                    wire[c.packetId - base] += c.wireBytes;
                    reasm.AddCell(0, c, 0, out);
                }
                NS_TEST_EXPECT_MSG_EQ(out.size(), packets.size(), "every packet released");
                for (uint32_t k = 0; k < out.size() && k < packets.size(); ++k)
                {
                    const uint32_t size = packets[k]->GetSize();
                    if (out[k].packet != packets[k] || out[k].packetId != base + k ||
                        !std::equal(rebuilt[k].begin(), rebuilt[k].end(), content.begin()) ||
                        wire[k] != seg.GetWireBytes(size))
                    {
                        failures++;
                    }
                }
                released += out.size();
            }
            NS_TEST_EXPECT_MSG_EQ(reasm.GetPacketsHeld(), 0, "nothing left behind");
            NS_TEST_EXPECT_MSG_EQ(reasm.GetCellsLate() + reasm.GetCellsBeyondWindow(),
                                  0,
                                  "no cell discarded");
        }
        NS_TEST_EXPECT_MSG_EQ(released, uint64_t{orders} * maxSize, "all sizes, all orders");
        NS_TEST_EXPECT_MSG_EQ(failures, 0, "byte-exact, in order, same packet, wire bytes");
    }

    /// CellPayload, bytes
    uint32_t m_payload;
    /// a short last cell (else padded)
    bool m_variable;
};

/// Cell counts, wire bytes and efficiency against the formulas of the design notes.
class CellArithmeticTestCase : public TestCase
{
  public:
    CellArithmeticTestCase()
        : TestCase("cell arithmetic: counts, wire bytes, efficiency")
    {
    }

  private:
    /// Check cell counts, wire bytes and efficiency of variable and fixed last cells.
    void DoRun() override
    {
        CellSegmenter var(256, 16, true);
        CellSegmenter fix(256, 16, false);
        NS_TEST_EXPECT_MSG_EQ(var.GetCellCount(1), 1, "1 B: one cell");
        NS_TEST_EXPECT_MSG_EQ(var.GetCellCount(256), 1, "256 B: one cell");
        NS_TEST_EXPECT_MSG_EQ(var.GetCellCount(257), 2, "257 B: two cells");
        NS_TEST_EXPECT_MSG_EQ(var.GetWireBytes(1462), 1462 + 6 * 16, "P + ceil(P/C) H");
        NS_TEST_EXPECT_MSG_EQ(fix.GetWireBytes(1462), 6 * 272, "ceil(P/C) (C + H)");
        // variable: P / (P + ceil(P/C) H); exact to double precision
        NS_TEST_EXPECT_MSG_EQ_TOL(var.GetEfficiency(4096), 4096.0 / (4096 + 16 * 16), 1e-12, "");
        NS_TEST_EXPECT_MSG_EQ_TOL(fix.GetEfficiency(300), 300.0 / (2 * 272), 1e-12, "");
        CellSegmenter fromSize = CellSegmenter::FromCellSize(272, 16, true);
        NS_TEST_EXPECT_MSG_EQ(fromSize.GetCellPayload(), 256, "CellSize - CellHeader");
    }
};

/// Missing cells: the head packet times out, later packets then flow; late cells
/// of a given-up packet are discarded and counted.
class ReassemblyTimeoutTestCase : public TestCase
{
  public:
    ReassemblyTimeoutTestCase()
        : TestCase("reassembly timeout: drop, move on, count late cells")
    {
    }

  private:
    /// Lose a middle cell: the head packet expires at its deadline, the next is released, late
    /// cells are discarded.
    void DoRun() override
    {
        CellSegmenter seg(100, 16, true);
        CellReassembler reasm(2, 16);
        std::vector<CellReassembler::Output> out;
        std::vector<CellReassembler::Output> dropped;
        auto cellOf = [&seg](Ptr<Packet> p, uint32_t id, uint32_t i) {
            FabricCell c;
            c.packet = p;
            c.packetId = id;
            c.cellCount = static_cast<uint16_t>(seg.GetCellCount(p->GetSize()));
            c.cellIndex = static_cast<uint16_t>(i);
            c.offset = seg.GetCellOffset(p->GetSize(), i);
            c.payload = seg.GetCellPayload(p->GetSize(), i);
            return c;
        };
        Ptr<Packet> a = Create<Packet>(250); // 3 cells; cell 1 is lost
        Ptr<Packet> b = Create<Packet>(150); // 2 cells
        reasm.AddCell(1, cellOf(a, 0, 0), 10, out);
        reasm.AddCell(1, cellOf(a, 0, 2), 11, out);
        reasm.AddCell(1, cellOf(b, 1, 0), 12, out);
        reasm.AddCell(1, cellOf(b, 1, 1), 13, out);
        NS_TEST_EXPECT_MSG_EQ(out.size(), 0, "b waits behind incomplete a (in order)");
        NS_TEST_EXPECT_MSG_EQ(reasm.GetHeadDeadline(1, 100), 110, "first cell + timeout");
        reasm.Expire(1, 109, 100, out, dropped);
        NS_TEST_EXPECT_MSG_EQ(dropped.size(), 0, "not yet");
        reasm.Expire(1, 110, 100, out, dropped);
        NS_TEST_EXPECT_MSG_EQ(dropped.size(), 1, "a dropped");
        NS_TEST_EXPECT_MSG_EQ(dropped[0].packet, a, "it is a");
        NS_TEST_EXPECT_MSG_EQ(out.size(), 1, "b released");
        NS_TEST_EXPECT_MSG_EQ(out[0].packet, b, "it is b");
        reasm.AddCell(1, cellOf(a, 0, 1), 120, out);
        NS_TEST_EXPECT_MSG_EQ(reasm.GetCellsLate(), 1, "late cell counted");
        NS_TEST_EXPECT_MSG_EQ(reasm.GetPacketsTimedOut(), 1, "one timeout");
        NS_TEST_EXPECT_MSG_EQ(reasm.IsPending(0), false, "source 0 untouched");
        // A packet of which nothing arrived: timed from when the head began blocking.
        Ptr<Packet> d = Create<Packet>(50);
        reasm.AddCell(1, cellOf(d, 3, 0), 200, out); // id 2 wholly lost
        NS_TEST_EXPECT_MSG_EQ(reasm.GetHeadDeadline(1, 100), 300, "blocked since 200");
        out.clear();
        dropped.clear();
        reasm.Expire(1, 300, 100, out, dropped);
        NS_TEST_EXPECT_MSG_EQ(dropped.size(), 1, "id 2 given up");
        NS_TEST_EXPECT_MSG_EQ(dropped[0].packet, nullptr, "no cell of it arrived");
        NS_TEST_EXPECT_MSG_EQ(out.size(), 1, "d released");
    }
};

/// A packet of which no cell arrives is overdue from the arrival of the first
/// later packet, not from the last release: behind two lost packets, each later
/// packet waits one timeout at most. Every discard is counted by reason, in cells
/// and bytes, and the held bytes add up.
class ReassemblyLossTestCase : public TestCase
{
  public:
    ReassemblyLossTestCase()
        : TestCase("reassembly: lost packets time out once, discards counted by reason")
    {
    }

  private:
    /// Lose packets 1 and 3 of one source and check each deadline, the releases and the discard
    /// counters.
    void DoRun() override
    {
        const int64_t timeout = 100;
        CellReassembler reasm(1, 64);
        std::vector<CellReassembler::Output> out;
        std::vector<CellReassembler::Output> dropped;
        // One 100-byte cell per packet.
        auto cell = [](uint32_t id) {
            FabricCell c;
            c.packet = Create<Packet>(100);
            c.packetId = id;
            c.cellCount = 1;
            c.payload = 100;
            return c;
        };
        reasm.AddCell(0, cell(0), 0, out);
        NS_TEST_EXPECT_MSG_EQ(out.size(), 1, "packet 0 released");
        // Packets 1 and 3 are lost; 2 and 4 arrive at 10 and 11.
        reasm.AddCell(0, cell(2), 10, out);
        reasm.AddCell(0, cell(4), 11, out);
        NS_TEST_EXPECT_MSG_EQ(reasm.GetBytesHeld(), 200, "2 and 4 held");
        NS_TEST_EXPECT_MSG_EQ(reasm.GetHeadDeadline(0, timeout), 110, "1 overdue from 2's arrival");
        out.clear();
        reasm.Expire(0, 110, timeout, out, dropped);
        NS_TEST_EXPECT_MSG_EQ(dropped.size(), 1, "1 given up");
        NS_TEST_EXPECT_MSG_EQ(out.size(), 1, "2 released");
        // 3 has been overdue since 4 arrived at 11, not since 2 left at 110.
        NS_TEST_EXPECT_MSG_EQ(reasm.GetHeadDeadline(0, timeout), 111, "3 overdue from 4's arrival");
        reasm.Expire(0, 111, timeout, out, dropped);
        NS_TEST_EXPECT_MSG_EQ(dropped.size(), 2, "3 given up");
        NS_TEST_EXPECT_MSG_EQ(out.size(), 2, "4 released, one timeout after it arrived");
        NS_TEST_EXPECT_MSG_EQ(reasm.GetPacketsTimedOut(), 2, "two timeouts");
        NS_TEST_EXPECT_MSG_EQ(reasm.GetTimedOutBytes(), 0, "nothing of them had arrived");
        NS_TEST_EXPECT_MSG_EQ(reasm.GetBytesHeld(), 0, "nothing held");
        // Discards, by reason.
        reasm.AddCell(0, cell(3), 120, out);      // its packet was given up
        reasm.AddCell(0, cell(5 + 64), 121, out); // head is 5: id 69 is beyond a window of 64
        reasm.AddCell(0, cell(7), 122, out);      // held behind 5 and 6
        reasm.AddCell(0, cell(7), 123, out);      // again: a duplicate
        const auto late = reasm.GetDiscards(CellReassembler::LATE);
        const auto beyond = reasm.GetDiscards(CellReassembler::BEYOND_WINDOW);
        const auto duplicate = reasm.GetDiscards(CellReassembler::DUPLICATE);
        NS_TEST_EXPECT_MSG_EQ(late.cells, 1, "late cell");
        NS_TEST_EXPECT_MSG_EQ(late.bytes, 100, "its bytes");
        NS_TEST_EXPECT_MSG_EQ(beyond.cells, 1, "cell beyond the window");
        NS_TEST_EXPECT_MSG_EQ(beyond.bytes, 100, "its bytes");
        NS_TEST_EXPECT_MSG_EQ(duplicate.cells, 1, "duplicate cell");
        NS_TEST_EXPECT_MSG_EQ(duplicate.bytes, 100, "its bytes");
        NS_TEST_EXPECT_MSG_EQ(reasm.GetBytesHeld(), 100, "7 held once");
        NS_TEST_EXPECT_MSG_EQ(reasm.GetCellsAccepted(), 4, "0, 2, 4 and 7, nothing else");
        // The ring started at 16 slots; id 45 (40 past the head) doubles it to 64, the window.
        reasm.AddCell(0, cell(5 + 40), 124, out);
        NS_TEST_EXPECT_MSG_EQ(reasm.GetSlotsAllocated(), 64, "16, doubled to 64 (the window)");
    }
};

/// Packet ids are 32-bit and wrap; 2^32 is not a multiple of a window of 1000,
/// so with id % window as the slot, ids 2^32 - 296 and 0 (296 apart, inside the
/// window) would share a slot. Every packet must come out once, in order.
class ReassemblyWrapTestCase : public TestCase
{
  public:
    ReassemblyWrapTestCase()
        : TestCase("reassembly across the 32-bit packet id wrap, window 1000")
    {
    }

  private:
    /// Feed 900 packets across the id wrap in reverse order; every one is released once, in order.
    void DoRun() override
    {
        const uint32_t window = 1000;
        const uint32_t count = 900;               // all inside the window at once
        const uint32_t start = 0xffffffffu - 299; // 300 ids before the wrap, 600 after
        CellReassembler reasm(1, window);
        reasm.SetNextPacketId(0, start);
        std::vector<Ptr<Packet>> packets;
        for (uint32_t k = 0; k < count; ++k)
        {
            packets.push_back(Create<Packet>(100)); // one cell each
        }
        std::vector<CellReassembler::Output> out;
        // Reverse order: every packet is held until the head arrives last.
        for (uint32_t k = count; k-- > 0;)
        {
            FabricCell c;
            c.packet = packets[k];
            c.packetId = start + k;
            c.cellCount = 1;
            c.payload = 100;
            reasm.AddCell(0, c, k, out);
        }
        NS_TEST_ASSERT_MSG_EQ(out.size(), count, "every packet released");
        for (uint32_t k = 0; k < count; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(out[k].packet, packets[k], "in order, the right packet");
            NS_TEST_EXPECT_MSG_EQ(out[k].packetId, start + k, "its id");
        }
        NS_TEST_EXPECT_MSG_EQ(reasm.GetPacketsHeld(), 0, "nothing held");
        NS_TEST_EXPECT_MSG_EQ(reasm.IsPending(0), false, "idle");
        NS_TEST_EXPECT_MSG_EQ(reasm.GetCellsBeyondWindow(), 0, "none beyond the window");
    }
};

/// The ns-3 suite of cell segmentation and reassembly.
class CellSegmentationTestSuite : public TestSuite
{
  public:
    CellSegmentationTestSuite()
        : TestSuite("ai-fabric-cell-segmentation", TestSuite::Type::UNIT)
    {
        AddTestCase(new CellArithmeticTestCase());
        AddTestCase(new ReassemblyTimeoutTestCase());
        AddTestCase(new ReassemblyWrapTestCase());
        AddTestCase(new ReassemblyLossTestCase());
        for (uint32_t payload : {61u, 256u, 1000u})
        {
            AddTestCase(new CellRoundTripTestCase(payload, true));
        }
        AddTestCase(new CellRoundTripTestCase(256, false));
    }
};

/// Static instance.
static CellSegmentationTestSuite g_cellSegmentationTestSuite;
