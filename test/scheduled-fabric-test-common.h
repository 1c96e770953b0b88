/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_SCHEDULED_FABRIC_TEST_COMMON_H
#define AI_FABRIC_SCHEDULED_FABRIC_TEST_COMMON_H

// What the scheduled-fabric suites share, whatever drives the hosts (line-rate
// UDP sources or the RDMA transport): attribute defaults
// for the formulas, and the conservation identities that hold at any moment.

#include "cluster-test-common.h"

#include "ns3/double.h"
#include "ns3/scheduled-fabric-helper.h"
#include "ns3/scheduled-leaf-switch.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <string>

namespace ns3
{

/// \param tid a TypeId \param name one of its integer attributes \return its default
inline uint64_t
UintDefault(TypeId tid, const std::string& name)
{
    TypeId::AttributeInformation info;
    tid.LookupAttributeByName(name, &info);
    return DynamicCast<const UintegerValue>(info.initialValue)->Get();
}

/// \param tid a TypeId \param name one of its double attributes \return its default
inline double
DoubleDefault(TypeId tid, const std::string& name)
{
    TypeId::AttributeInformation info;
    tid.LookupAttributeByName(name, &info);
    return DynamicCast<const DoubleValue>(info.initialValue)->Get();
}

/// \param name a ScheduledLeafSwitch attribute \return its default
inline uint32_t
LeafDefault(const std::string& name)
{
    return static_cast<uint32_t>(UintDefault(ScheduledLeafSwitch::GetTypeId(), name));
}

/// \return bytes of a full cell on a fabric link: CellPayload + CellHeader
inline uint32_t
FullCell()
{
    return LeafDefault("CellPayload") + LeafDefault("CellHeader");
}

/// \return credit granted whose grant has not reached its VOQ yet:
/// granted - dequeued - waiting (waiting may be negative: a VOQ may overdraw)
inline int64_t
GrantsInFlight(const ScheduledFabricHelper::Totals& t)
{
    return static_cast<int64_t>(t.grantedBytes) - static_cast<int64_t>(t.dequeuedBytes) -
           t.waitingCreditBytes;
}

/**
 * \ingroup ai-fabric-tests
 * \brief Base of the scheduled-fabric test cases: checks that hold mid-run.
 */
class ScheduledFabricTestCase : public TestCase
{
  public:
    /// \param name the test case's name
    explicit ScheduledFabricTestCase(std::string name)
        : TestCase(name)
    {
    }

  protected:
    /**
     * Conservation at any moment of a run, from a sample of the counters.
     * \param s the sample
     * \return the credit granted and still on its way to its VOQ
     */
    int64_t CheckMidRunConservation(const ScheduledFabricHelper::Totals& s)
    {
        // every byte offered is queued at a VOQ, dequeued, or dropped before one
        NS_TEST_EXPECT_MSG_EQ(s.offeredBytes,
                              s.queuedBytes + s.dequeuedBytes + s.voqDropBytes + s.unroutableBytes,
                              "mid-run: offered bytes = queued + dequeued + dropped");
        // dequeued bytes are delivered, dropped after the VOQ, or still in the
        // fabric (cells, reassembly, egress queue): never fewer
        NS_TEST_EXPECT_MSG_GT_OR_EQ(s.dequeuedBytes,
                                    s.deliveredBytes + s.egressDropBytes + s.reassemblyTimeoutBytes,
                                    "mid-run: dequeued covers delivered + later drops");
        const int64_t inFlight = GrantsInFlight(s);
        NS_TEST_EXPECT_MSG_GT_OR_EQ(inFlight, 0, "granted >= dequeued + waiting");
        CheckQueueLimits(s);
        return inFlight;
    }

    /// The fabric's queues never went above their limits.
    /// \param s a sample of the counters
    void CheckQueueLimits(const ScheduledFabricHelper::Totals& s)
    {
        NS_TEST_EXPECT_MSG_LT_OR_EQ(s.fabricPortHighWater,
                                    s.fabricPortQueueLimit,
                                    "fabric ports within their queue limit");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(s.spineQueueHighWater,
                                    s.spineQueueLimit,
                                    "spine queues within their limit");
    }
};

} // namespace ns3

#endif /* AI_FABRIC_SCHEDULED_FABRIC_TEST_COMMON_H */
