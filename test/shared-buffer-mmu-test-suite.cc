/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Exact arithmetic of the shared-buffer MMU: shared pool and headroom reservation,
// the lossy egress dynamic threshold, and the lossless ingress (PFC) threshold with
// its headroom, hysteresis and accounting. Every expected value is derived in a
// comment next to it; the MMU uses exact integer math (and a double product that
// is exact for the values used here, then truncated), so every check is exact.
// Bad input (aborts) is covered by the death tests of ethernet-clos-gtest.cc.

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/shared-buffer-mmu.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

using namespace ns3;

/**
 * NS_TEST_ASSERT_MSG_EQ on a value computed once: the ns-3 macro evaluates its
 * first argument again to print it on failure, and Admit, AddPort and FillOne
 * change the MMU.
 */
#define ASSERT_ONCE_EQ(expr, expected, msg)                                                        \
    do                                                                                             \
    {                                                                                              \
        const auto got_ = (expr);                                                                  \
        NS_TEST_ASSERT_MSG_EQ(got_, expected, msg);                                                \
    } while (false)

namespace
{

/// Shorter names for the answers.
constexpr SharedBufferMmu::Admission ADMITTED = SharedBufferMmu::ADMITTED;
constexpr SharedBufferMmu::Admission DROP_EGRESS = SharedBufferMmu::DROP_EGRESS_LIMIT;
constexpr SharedBufferMmu::Admission DROP_HEADROOM = SharedBufferMmu::DROP_HEADROOM_FULL;
constexpr SharedBufferMmu::Admission DROP_BUFFER = SharedBufferMmu::DROP_BUFFER_FULL;

/**
 * \param bufferSize BufferSize attribute
 * \param losslessMask LosslessPriorities attribute
 * \param pfcEnabled PfcEnabled attribute
 * \return an MMU without ports
 */
Ptr<SharedBufferMmu>
MakeMmu(uint64_t bufferSize, uint8_t losslessMask, bool pfcEnabled = true)
{
    Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
    mmu->SetAttribute("BufferSize", UintegerValue(bufferSize));
    mmu->SetAttribute("LosslessPriorities", UintegerValue(losslessMask));
    mmu->SetAttribute("PfcEnabled", BooleanValue(pfcEnabled));
    return mmu;
}

} // namespace

/**
 * \ingroup ai-fabric-tests
 * \brief Shared pool = BufferSize - headroom x (lossless priorities) x ports, the
 * lossless mask, and PfcEnabled = false (nothing lossless, nothing reserved).
 */
class MmuSharedPoolTestCase : public TestCase
{
  public:
    MmuSharedPoolTestCase()
        : TestCase("shared pool = BufferSize - headroom x lossless priorities x ports")
    {
    }

  private:
    /// Check the shared pool and lossless mask with PFC on and off.
    void DoRun() override
    {
        // Defaults: 32 MiB, priority 3 lossless, PFC on.
        {
            Ptr<SharedBufferMmu> mmu = CreateObject<SharedBufferMmu>();
            for (uint8_t p = 0; p < SharedBufferMmu::NUM_PRIORITIES; ++p)
            {
                NS_TEST_ASSERT_MSG_EQ(mmu->IsLossless(p), (p == 3), "default: only priority 3");
            }
            NS_TEST_ASSERT_MSG_EQ(mmu->GetNPorts(), 0, "no port yet");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedPoolBytes(),
                                  33554432,
                                  "no port: pool = BufferSize = 32 x 1024 x 1024");
            for (uint32_t i = 0; i < 4; ++i)
            {
                ASSERT_ONCE_EQ(mmu->AddPort(10000), i, "ports are dense from 0");
            }
            NS_TEST_ASSERT_MSG_EQ(mmu->GetNPorts(), 4, "4 ports");
            // 33554432 - 10000 x 1 x 4 = 33514432
            NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedPoolBytes(), 33514432, "32 MiB - 40000");
            // floor(PfcAlpha x free) = floor(0.125 x 33514432) = 4189304
            NS_TEST_ASSERT_MSG_EQ(mmu->GetPauseThreshold(), 4189304, "1/8 of the pool");
            // floor(EgressAlpha x free) = 1 x 33514432
            NS_TEST_ASSERT_MSG_EQ(mmu->GetEgressThreshold(), 33514432, "alpha 1: the pool");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetUsedBytes(), 0, "empty");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedUsedBytes(), 0, "empty");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetHighWater(), 0, "empty");
        }
        // Two lossless priorities (3 and 4), 3 ports of 20000 B headroom each.
        {
            Ptr<SharedBufferMmu> mmu = MakeMmu(1000000, 0x18);
            for (uint8_t p = 0; p < SharedBufferMmu::NUM_PRIORITIES; ++p)
            {
                NS_TEST_ASSERT_MSG_EQ(mmu->IsLossless(p), (p == 3 || p == 4), "mask 0x18");
            }
            for (uint32_t i = 0; i < 3; ++i)
            {
                mmu->AddPort(20000);
            }
            // 1000000 - 20000 x 2 x 3 = 880000
            NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedPoolBytes(), 880000, "two lossless priorities");
        }
        // Every priority lossless, 2 ports of 10000 B.
        {
            Ptr<SharedBufferMmu> mmu = MakeMmu(1000000, 0xff);
            mmu->AddPort(10000);
            mmu->AddPort(10000);
            // 1000000 - 10000 x 8 x 2 = 840000
            NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedPoolBytes(), 840000, "eight lossless priorities");
        }
        // Ports with different headroom are summed.
        {
            Ptr<SharedBufferMmu> mmu = MakeMmu(100000, 0x08);
            mmu->AddPort(1000);
            mmu->AddPort(3000);
            mmu->AddPort(0);
            // 100000 - (1000 + 3000 + 0) x 1 = 96000
            NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedPoolBytes(), 96000, "per-port headroom summed");
        }
        // Smallest legal buffer: one byte of shared pool left.
        {
            Ptr<SharedBufferMmu> mmu = MakeMmu(20001, 0x08);
            mmu->AddPort(10000);
            mmu->AddPort(10000);
            // 20001 - 10000 x 1 x 2 = 1
            NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedPoolBytes(), 1, "one byte of pool");
        }
        // PfcEnabled = false: the mask is ignored, nothing is lossless or reserved.
        {
            Ptr<SharedBufferMmu> mmu = MakeMmu(1000000, 0x18, false);
            for (uint8_t p = 0; p < SharedBufferMmu::NUM_PRIORITIES; ++p)
            {
                NS_TEST_ASSERT_MSG_EQ(mmu->IsLossless(p), false, "PFC off: all lossy");
            }
            for (uint32_t i = 0; i < 3; ++i)
            {
                mmu->AddPort(20000);
            }
            // 1000000 - 20000 x 0 x 3 = 1000000
            NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedPoolBytes(), 1000000, "PFC off: no headroom");
        }
        // An empty mask with PFC on: the same.
        {
            Ptr<SharedBufferMmu> mmu = MakeMmu(1000000, 0x00);
            mmu->AddPort(20000);
            // 1000000 - 20000 x 0 x 1 = 1000000
            NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedPoolBytes(), 1000000, "mask 0: no headroom");
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Lossy priorities: an egress (port, priority) may hold up to EgressAlpha x
 * the free shared bytes; exact admission counts for several alphas, queues sharing
 * the pool, the buffer-full drop, and PfcEnabled = false making priority 3 lossy.
 *
 * The MMU admits a packet of b bytes to an egress queue of q bytes when
 * q + b <= floor(alpha x free), where free = pool - shared bytes in use before
 * the packet. With one queue (free = B - q) and n-1 packets already in it
 * (q = (n-1) b), the n-th packet is admitted iff n b <= alpha (B - (n-1) b).
 */
class MmuLossyEgressTestCase : public TestCase
{
  public:
    MmuLossyEgressTestCase()
        : TestCase("lossy: egress dynamic threshold EgressAlpha x free, exact counts")
    {
    }

  private:
    /**
     * Admit packets of 1000 B from port 0 to egress (1, priority) until the first
     * refusal.
     * \param mmu the MMU \param priority the priority
     * \param refusal set to the reason of the first refusal
     * \return packets admitted
     */
    static uint32_t FillOne(Ptr<SharedBufferMmu> mmu,
                            uint8_t priority,
                            SharedBufferMmu::Admission& refusal)
    {
        uint32_t admitted = 0;
        for (;;)
        {
            const SharedBufferMmu::Admission a = mmu->Admit(0, 1, priority, 1000);
            if (a != ADMITTED)
            {
                refusal = a;
                return admitted;
            }
            ++admitted;
        }
    }

    /**
     * \param alpha EgressAlpha \param bufferSize BufferSize
     * \return an MMU with 2 ports and no lossless priority
     */
    static Ptr<SharedBufferMmu> MakeLossy(double alpha, uint64_t bufferSize)
    {
        Ptr<SharedBufferMmu> mmu = MakeMmu(bufferSize, 0x00);
        mmu->SetAttribute("EgressAlpha", DoubleValue(alpha));
        mmu->AddPort(0);
        mmu->AddPort(0);
        return mmu;
    }

    /// Admit lossy packets for several alphas and check the exact counts and drops.
    void DoRun() override
    {
        SharedBufferMmu::Admission refusal = ADMITTED;

        // alpha 1, B 100000, b 1000: q <= alpha (B - q) gives q <= B alpha / (1 + alpha)
        // = 50000, i.e. 50 packets; exactly: n 1000 <= 100000 - (n-1) 1000
        // <=> 2000 n <= 101000 <=> n <= 50.5 -> 50 admitted, the 51st refused.
        {
            Ptr<SharedBufferMmu> mmu = MakeLossy(1.0, 100000);
            NS_TEST_ASSERT_MSG_EQ(mmu->GetEgressThreshold(), 100000, "1 x 100000");
            ASSERT_ONCE_EQ(FillOne(mmu, 0, refusal), 50, "B alpha/(1+alpha)/b = 50");
            NS_TEST_ASSERT_MSG_EQ(refusal, DROP_EGRESS, "51st: 51000 > 1 x 50000");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetEgressBytes(1, 0), 50000, "50 x 1000");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetIngressBytes(0, 0), 50000, "counted at ingress too");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetUsedBytes(), 50000, "50 x 1000");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedUsedBytes(), 50000, "all in the shared pool");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomBytes(0, 0), 0, "lossy: no headroom");
            // 1 x (100000 - 50000) = 50000
            NS_TEST_ASSERT_MSG_EQ(mmu->GetEgressThreshold(), 50000, "threshold = queue");
            // A refusal charges nothing; further packets are refused the same way.
            ASSERT_ONCE_EQ(mmu->Admit(0, 1, 0, 1000), DROP_EGRESS, "still refused");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetUsedBytes(), 50000, "refusals charge nothing");
            // Release one: q = 49000, threshold 1 x 51000; 49000 + 1000 <= 51000.
            mmu->Release(0, 1, 0, 1000);
            NS_TEST_ASSERT_MSG_EQ(mmu->GetEgressThreshold(), 51000, "1 x (100000 - 49000)");
            ASSERT_ONCE_EQ(mmu->Admit(0, 1, 0, 1000), ADMITTED, "room for one again");
            ASSERT_ONCE_EQ(mmu->Admit(0, 1, 0, 1000), DROP_EGRESS, "and only one");
            // A smaller packet: 50000 + 1 > 50000 is refused too (the queue is at its limit).
            ASSERT_ONCE_EQ(mmu->Admit(0, 1, 0, 1), DROP_EGRESS, "50001 > 50000");
            for (uint32_t i = 0; i < 50; ++i)
            {
                mmu->Release(0, 1, 0, 1000);
            }
            NS_TEST_ASSERT_MSG_EQ(mmu->GetUsedBytes(), 0, "all released");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetEgressBytes(1, 0), 0, "all released");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetIngressBytes(0, 0), 0, "all released");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetHighWater(), 50000, "high water 50 x 1000");
        }
        // alpha 0.5: n 1000 <= 0.5 (100000 - (n-1) 1000) <=> 1500 n <= 50500
        // <=> n <= 33.67 -> 33 (B alpha/(1+alpha) = 33333 -> 33 packets).
        {
            Ptr<SharedBufferMmu> mmu = MakeLossy(0.5, 100000);
            ASSERT_ONCE_EQ(FillOne(mmu, 0, refusal), 33, "alpha 0.5: 33");
            NS_TEST_ASSERT_MSG_EQ(refusal, DROP_EGRESS, "34th: 34000 > 0.5 x 67000 = 33500");
            // floor(0.5 x (100000 - 33000)) = 33500
            NS_TEST_ASSERT_MSG_EQ(mmu->GetEgressThreshold(), 33500, "0.5 x 67000");
        }
        // alpha 2: n 1000 <= 2 (100000 - (n-1) 1000) <=> 3000 n <= 202000
        // <=> n <= 67.33 -> 67. The threshold uses the free bytes before the packet
        // is charged, so the last packet may end above B alpha/(1+alpha) = 66666.7:
        // the 67th finds q = 66000, 66000 + 1000 <= 2 x 34000, and ends at q = 67000.
        {
            Ptr<SharedBufferMmu> mmu = MakeLossy(2.0, 100000);
            ASSERT_ONCE_EQ(FillOne(mmu, 0, refusal), 67, "alpha 2: 67");
            NS_TEST_ASSERT_MSG_EQ(refusal, DROP_EGRESS, "68th: 68000 > 2 x 33000 = 66000");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetEgressBytes(1, 0), 67000, "67 x 1000");
        }
        // Two egress ports (1 and 2) take turns, alpha 1. The k-th packet of port 1
        // finds both queues at (k-1) 1000: k 1000 <= 100000 - 2 (k-1) 1000 <=> k <= 34.
        // The k-th of port 2 finds (2k-1) 1000 in use: k 1000 <= 100000 - (2k-1) 1000
        // <=> 3k <= 101 <=> k <= 33. Then each queue holds about B/3 (q <= alpha (B - 2q)).
        {
            Ptr<SharedBufferMmu> mmu = MakeMmu(100000, 0x00);
            mmu->AddPort(0);
            mmu->AddPort(0);
            mmu->AddPort(0);
            uint32_t admitted[3] = {0, 0, 0};
            for (uint32_t round = 0; round < 40; ++round)
            {
                for (uint32_t out = 1; out <= 2; ++out)
                {
                    const SharedBufferMmu::Admission a = mmu->Admit(0, out, 0, 1000);
                    NS_TEST_ASSERT_MSG_EQ((a == ADMITTED || a == DROP_EGRESS),
                                          true,
                                          "only egress-limit drops");
                    admitted[out] += (a == ADMITTED) ? 1 : 0;
                }
            }
            NS_TEST_ASSERT_MSG_EQ(admitted[1], 34, "port 1: k <= 34");
            NS_TEST_ASSERT_MSG_EQ(admitted[2], 33, "port 2: 3k <= 101");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetEgressBytes(1, 0), 34000, "34 x 1000");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetEgressBytes(2, 0), 33000, "33 x 1000");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetIngressBytes(0, 0), 67000, "one ingress: 67 x 1000");
            // 1 x (100000 - 67000) = 33000
            NS_TEST_ASSERT_MSG_EQ(mmu->GetEgressThreshold(), 33000, "1 x 33000");
        }
        // Priorities of one egress port are separate queues: the same 34 / 33.
        {
            Ptr<SharedBufferMmu> mmu = MakeLossy(1.0, 100000);
            uint32_t admitted[2] = {0, 0};
            for (uint32_t round = 0; round < 40; ++round)
            {
                for (uint8_t prio = 0; prio < 2; ++prio)
                {
                    admitted[prio] += mmu->Admit(0, 1, prio, 1000) == ADMITTED ? 1 : 0;
                }
            }
            NS_TEST_ASSERT_MSG_EQ(admitted[0], 34, "priority 0: k <= 34");
            NS_TEST_ASSERT_MSG_EQ(admitted[1], 33, "priority 1: 3k <= 101");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetEgressBytes(1, 0), 34000, "34 x 1000");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetEgressBytes(1, 1), 33000, "33 x 1000");
        }
        // Buffer full: alpha 1000 lets one queue take the whole pool of 10500 B.
        // n 1000 <= 1000 (10500 - (n-1) 1000) holds for n <= 10; the 11th passes the
        // threshold (11000 <= 1000 x 500) but 1000 B > 500 free B: DROP_BUFFER_FULL.
        {
            Ptr<SharedBufferMmu> mmu = MakeLossy(1000.0, 10500);
            ASSERT_ONCE_EQ(FillOne(mmu, 0, refusal), 10, "10 x 1000 fit in 10500");
            NS_TEST_ASSERT_MSG_EQ(refusal, DROP_BUFFER, "1000 > 10500 - 10000 free");
            // 500 B fit exactly: 10000 + 500 <= 1000 x 500 and 500 <= 500 free.
            ASSERT_ONCE_EQ(mmu->Admit(0, 1, 0, 500), ADMITTED, "exactly the free bytes");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetUsedBytes(), 10500, "the whole buffer");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetEgressThreshold(), 0, "1000 x 0 free");
            // Nothing free: the threshold (0) refuses first.
            ASSERT_ONCE_EQ(mmu->Admit(0, 1, 0, 1), DROP_EGRESS, "10501 > 1000 x 0");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetHighWater(), 10500, "high water = buffer");
        }
        // PfcEnabled = false: priority 3 (in the mask) is lossy, no headroom is used.
        {
            Ptr<SharedBufferMmu> mmu = MakeMmu(100000, 0x08, false);
            mmu->AddPort(5000);
            mmu->AddPort(5000);
            // pool = 100000 - 5000 x 0 x 2; the same 50 as alpha 1 above.
            NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedPoolBytes(), 100000, "nothing reserved");
            ASSERT_ONCE_EQ(FillOne(mmu, 3, refusal), 50, "lossy priority 3: 50");
            NS_TEST_ASSERT_MSG_EQ(refusal, DROP_EGRESS, "dropped, not sent to headroom");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomBytes(0, 3), 0, "no headroom");
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Lossless priority: shared use up to PfcAlpha x free, beyond it headroom,
 * pause and resume thresholds with PfcResumeOffset hysteresis, headroom full drop,
 * release from the headroom first, high water, and all bytes back to 0.
 *
 * BufferSize 105000, 3 ports of 5000 B headroom, priority 3 lossless:
 * pool P = 105000 - 5000 x 1 x 3 = 90000. PfcAlpha 0.125, PfcResumeOffset 3072.
 * Ingress (0, 3) with s shared bytes: threshold T = floor(0.125 (P - s_all)).
 */
class MmuLosslessPfcTestCase : public TestCase
{
  public:
    MmuLosslessPfcTestCase()
        : TestCase("lossless: PFC threshold, headroom, resume hysteresis, release order")
    {
    }

  private:
    /// Admit lossless packets and check the thresholds, headroom, pause and resume.
    void DoRun() override
    {
        Ptr<SharedBufferMmu> mmu = MakeMmu(105000, 0x08);
        mmu->SetAttribute("PfcAlpha", DoubleValue(0.125));
        mmu->SetAttribute("PfcResumeOffset", UintegerValue(3072));
        for (uint32_t i = 0; i < 3; ++i)
        {
            mmu->AddPort(5000);
        }
        NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedPoolBytes(), 90000, "105000 - 5000 x 1 x 3");
        // 0.125 x 90000 = 11250
        NS_TEST_ASSERT_MSG_EQ(mmu->GetPauseThreshold(), 11250, "0.125 x 90000");
        NS_TEST_ASSERT_MSG_EQ(mmu->IsBelowResumeThreshold(0, 3), true, "empty: resumed");

        // Shared phase: the n-th packet of 1000 B goes to the shared pool iff
        // n 1000 <= 0.125 (90000 - (n-1) 1000) <=> 1125 n <= 11375 <=> n <= 10.
        // After n packets: over iff 1000 n > 0.125 (90000 - 1000 n) = 11250 - 125 n
        // <=> n > 10, so never during this phase (equality at n = 10).
        for (uint32_t n = 1; n <= 10; ++n)
        {
            ASSERT_ONCE_EQ(mmu->Admit(0, 1, 3, 1000), ADMITTED, "shared phase");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedUsedBytes(), 1000 * n, "in the shared pool");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomBytes(0, 3), 0, "no headroom yet");
            NS_TEST_ASSERT_MSG_EQ(mmu->IsOverPauseThreshold(0, 3),
                                  false,
                                  "1000 n <= 11250 - 125 n for n <= 10");
        }
        // 0.125 x (90000 - 10000) = 10000 = the shared use: at, not over.
        NS_TEST_ASSERT_MSG_EQ(mmu->GetPauseThreshold(), 10000, "0.125 x 80000");
        NS_TEST_ASSERT_MSG_EQ(mmu->IsBelowResumeThreshold(0, 3), false, "10000 + 3072 > 10000");

        // Another ingress fills the pool: the threshold falls and port 0 is over it
        // without receiving anything. Lossy 1000 B from port 2 to egress (1, 0):
        // 1000 <= 1 x 80000, admitted; T = floor(0.125 x 79000) = 9875 < 10000.
        ASSERT_ONCE_EQ(mmu->Admit(2, 1, 0, 1000), ADMITTED, "lossy cross traffic");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetPauseThreshold(), 9875, "floor(0.125 x 79000)");
        NS_TEST_ASSERT_MSG_EQ(mmu->IsOverPauseThreshold(0, 3), true, "10000 > 9875");
        NS_TEST_ASSERT_MSG_EQ(mmu->IsOverPauseThreshold(2, 3), false, "port 2 has no lossless");
        mmu->Release(2, 1, 0, 1000);
        NS_TEST_ASSERT_MSG_EQ(mmu->GetPauseThreshold(), 10000, "back to 0.125 x 80000");
        NS_TEST_ASSERT_MSG_EQ(mmu->IsOverPauseThreshold(0, 3), false, "10000 <= 10000 again");

        // Headroom phase: 10000 + 1000 > 10000, so packets 11..15 go to the 5000 B of
        // headroom of (0, 3); the port is over its threshold from the first of them.
        for (uint32_t k = 1; k <= 5; ++k)
        {
            ASSERT_ONCE_EQ(mmu->Admit(0, 1, 3, 1000), ADMITTED, "into headroom");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomBytes(0, 3), 1000 * k, "headroom k x 1000");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedUsedBytes(), 10000, "shared unchanged");
            NS_TEST_ASSERT_MSG_EQ(mmu->IsOverPauseThreshold(0, 3), true, "headroom in use");
            NS_TEST_ASSERT_MSG_EQ(mmu->IsBelowResumeThreshold(0, 3), false, "headroom in use");
        }
        // 16th: 5000 + 1000 > 5000 B of headroom.
        ASSERT_ONCE_EQ(mmu->Admit(0, 1, 3, 1000), DROP_HEADROOM, "headroom full");
        ASSERT_ONCE_EQ(mmu->Admit(0, 1, 3, 1), DROP_HEADROOM, "5000 + 1 > 5000");
        // 10 shared + 5 headroom = 15 packets.
        NS_TEST_ASSERT_MSG_EQ(mmu->GetIngressBytes(0, 3), 15000, "15 x 1000 in");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetEgressBytes(1, 3), 15000, "15 x 1000 out");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomBytes(0, 3), 5000, "headroom full");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedUsedBytes(), 10000, "10 x 1000 shared");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetUsedBytes(), 15000, "10000 shared + 5000 headroom");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetHighWater(), 15000, "max(11000, 15000)");
        // The headroom is not in the pool: the threshold is still 0.125 x 80000.
        NS_TEST_ASSERT_MSG_EQ(mmu->GetPauseThreshold(), 10000, "headroom outside the pool");
        // Headroom is per ingress port: port 2 still takes lossless packets in the
        // shared pool (1000 <= floor(0.125 x 80000)).
        ASSERT_ONCE_EQ(mmu->Admit(2, 1, 3, 1000), ADMITTED, "another ingress");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomBytes(2, 3), 0, "port 2 in the shared pool");
        mmu->Release(2, 1, 3, 1000);
        NS_TEST_ASSERT_MSG_EQ(mmu->GetHighWater(), 16000, "15000 + 1000");

        // Release takes from the headroom first: 5 releases empty it, shared stays.
        for (uint32_t k = 1; k <= 5; ++k)
        {
            mmu->Release(0, 1, 3, 1000);
            NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomBytes(0, 3), 5000 - 1000 * k, "headroom first");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedUsedBytes(), 10000, "shared untouched");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetUsedBytes(),
                                  15000 - 1000 * k,
                                  "used = shared + headroom");
        }
        // s = 10000, T = 10000: not over; resume needs s + 3072 <= T.
        NS_TEST_ASSERT_MSG_EQ(mmu->IsOverPauseThreshold(0, 3), false, "10000 <= 10000");
        NS_TEST_ASSERT_MSG_EQ(mmu->IsBelowResumeThreshold(0, 3), false, "13072 > 10000");
        // Resume iff s + 3072 <= 0.125 (90000 - s) <=> 1.125 s <= 8178 <=> s <= 7269.3:
        // s = 9000: 12072 > T = 10125; s = 8000: 11072 > T = 10250 (hysteresis: neither
        // paused nor resumable); s = 7000: 10072 <= T = 10375, resumable.
        mmu->Release(0, 1, 3, 1000);
        NS_TEST_ASSERT_MSG_EQ(mmu->GetPauseThreshold(), 10125, "0.125 x 81000");
        NS_TEST_ASSERT_MSG_EQ(mmu->IsOverPauseThreshold(0, 3), false, "9000 <= 10125");
        NS_TEST_ASSERT_MSG_EQ(mmu->IsBelowResumeThreshold(0, 3), false, "12072 > 10125");
        mmu->Release(0, 1, 3, 1000);
        NS_TEST_ASSERT_MSG_EQ(mmu->GetPauseThreshold(), 10250, "0.125 x 82000");
        NS_TEST_ASSERT_MSG_EQ(mmu->IsOverPauseThreshold(0, 3), false, "8000 <= 10250");
        NS_TEST_ASSERT_MSG_EQ(mmu->IsBelowResumeThreshold(0, 3), false, "11072 > 10250");
        mmu->Release(0, 1, 3, 1000);
        NS_TEST_ASSERT_MSG_EQ(mmu->GetPauseThreshold(), 10375, "0.125 x 83000");
        NS_TEST_ASSERT_MSG_EQ(mmu->IsBelowResumeThreshold(0, 3), true, "10072 <= 10375");

        // Release the remaining 7 packets: everything back to 0.
        for (uint32_t k = 0; k < 7; ++k)
        {
            mmu->Release(0, 1, 3, 1000);
            NS_TEST_ASSERT_MSG_EQ(mmu->IsBelowResumeThreshold(0, 3), true, "stays resumable");
        }
        NS_TEST_ASSERT_MSG_EQ(mmu->GetUsedBytes(), 0, "all released");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedUsedBytes(), 0, "all released");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetIngressBytes(0, 3), 0, "all released");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetEgressBytes(1, 3), 0, "all released");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomBytes(0, 3), 0, "all released");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetPauseThreshold(), 11250, "0.125 x 90000 again");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetHighWater(), 16000, "the high water stays");

        // PfcResumeOffset 0: resumable as soon as the port is at or below T.
        mmu->SetAttribute("PfcResumeOffset", UintegerValue(0));
        for (uint32_t n = 1; n <= 10; ++n)
        {
            mmu->Admit(0, 1, 3, 1000);
        }
        // s = 10000 = T = 0.125 x 80000: at the threshold, 10000 + 0 <= 10000.
        NS_TEST_ASSERT_MSG_EQ(mmu->IsOverPauseThreshold(0, 3), false, "at T");
        NS_TEST_ASSERT_MSG_EQ(mmu->IsBelowResumeThreshold(0, 3), true, "offset 0: at T");
        for (uint32_t n = 1; n <= 10; ++n)
        {
            mmu->Release(0, 1, 3, 1000);
        }
        NS_TEST_ASSERT_MSG_EQ(mmu->GetUsedBytes(), 0, "all released");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Lossless packets go to the headroom when the shared pool has too few
 * free bytes even below the threshold, and headroom is per (port, priority).
 *
 * BufferSize 30500, priorities 3 and 4 lossless, 2 ports of 5000 B:
 * pool P = 30500 - 5000 x 2 x 2 = 10500. PfcAlpha 100 makes the threshold
 * 100 x free irrelevant until the pool is nearly full.
 */
class MmuLosslessPoolFullTestCase : public TestCase
{
  public:
    MmuLosslessPoolFullTestCase()
        : TestCase("lossless: a full shared pool sends packets to the headroom")
    {
    }

  private:
    /// Fill the shared pool and check lossless packets go to each headroom.
    void DoRun() override
    {
        Ptr<SharedBufferMmu> mmu = MakeMmu(30500, 0x18);
        mmu->SetAttribute("PfcAlpha", DoubleValue(100.0));
        mmu->AddPort(5000);
        mmu->AddPort(5000);
        NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedPoolBytes(), 10500, "30500 - 5000 x 2 x 2");
        // n 1000 <= 100 (10500 - (n-1) 1000) and 1000 <= 10500 - (n-1) 1000: n <= 10.
        for (uint32_t n = 1; n <= 10; ++n)
        {
            ASSERT_ONCE_EQ(mmu->Admit(0, 1, 3, 1000), ADMITTED, "shared");
        }
        NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedUsedBytes(), 10000, "10 x 1000");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomBytes(0, 3), 0, "none in headroom");
        // 100 x 500 free = 50000 >= 10000: under the threshold...
        NS_TEST_ASSERT_MSG_EQ(mmu->GetPauseThreshold(), 50000, "100 x 500");
        NS_TEST_ASSERT_MSG_EQ(mmu->IsOverPauseThreshold(0, 3), false, "10000 <= 50000");
        // ...but 1000 > 500 free: packets 11..15 go to the 5000 B of headroom.
        for (uint32_t k = 1; k <= 5; ++k)
        {
            ASSERT_ONCE_EQ(mmu->Admit(0, 1, 3, 1000), ADMITTED, "headroom");
            NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomBytes(0, 3), 1000 * k, "k x 1000");
        }
        NS_TEST_ASSERT_MSG_EQ(mmu->IsOverPauseThreshold(0, 3), true, "headroom in use");
        ASSERT_ONCE_EQ(mmu->Admit(0, 1, 3, 1000), DROP_HEADROOM, "5000 + 1000 > 5000");
        // Priority 4 of the same port has its own 5000 B: 5 packets, the 6th dropped.
        for (uint32_t k = 1; k <= 5; ++k)
        {
            ASSERT_ONCE_EQ(mmu->Admit(0, 1, 4, 1000), ADMITTED, "priority 4 headroom");
        }
        ASSERT_ONCE_EQ(mmu->Admit(0, 1, 4, 1000), DROP_HEADROOM, "priority 4 full");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomBytes(0, 4), 5000, "5 x 1000");
        // 500 B still fit the pool for port 1 (500 <= 500 free, 500 <= 100 x 500).
        ASSERT_ONCE_EQ(mmu->Admit(1, 0, 3, 500), ADMITTED, "the last 500 B");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomBytes(1, 3), 0, "in the shared pool");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedUsedBytes(), 10500, "pool full");
        // 10500 shared + 5000 + 5000 headroom = 20500
        NS_TEST_ASSERT_MSG_EQ(mmu->GetUsedBytes(), 20500, "shared + headroom");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetHighWater(), 20500, "high water");
        // A lossy packet finds the pool full: threshold 1 x 0 refuses it first.
        ASSERT_ONCE_EQ(mmu->Admit(1, 0, 0, 100), DROP_EGRESS, "100 > 1 x 0");
        // Release everything: headroom first, then the pool.
        mmu->Release(1, 0, 3, 500);
        for (uint32_t k = 0; k < 15; ++k)
        {
            mmu->Release(0, 1, 3, 1000);
            if (k < 5)
            {
                NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedUsedBytes(), 10000, "headroom first");
            }
        }
        for (uint32_t k = 0; k < 5; ++k)
        {
            mmu->Release(0, 1, 4, 1000);
        }
        NS_TEST_ASSERT_MSG_EQ(mmu->GetUsedBytes(), 0, "all released");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetSharedUsedBytes(), 0, "all released");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomBytes(0, 3), 0, "all released");
        NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomBytes(0, 4), 0, "all released");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Test suite for the shared-buffer MMU of the Ethernet Clos switches.
 */
class SharedBufferMmuTestSuite : public TestSuite
{
  public:
    SharedBufferMmuTestSuite()
        : TestSuite("ai-fabric-shared-buffer-mmu", TestSuite::Type::UNIT)
    {
        AddTestCase(new MmuSharedPoolTestCase);
        AddTestCase(new MmuLossyEgressTestCase);
        AddTestCase(new MmuLosslessPfcTestCase);
        AddTestCase(new MmuLosslessPoolFullTestCase);
    }
};

/// The static instance that registers the suite.
static SharedBufferMmuTestSuite g_sharedBufferMmuTestSuite;
