/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "out-of-order-placement-recovery.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OutOfOrderPlacementRecovery");

NS_OBJECT_ENSURE_REGISTERED(OutOfOrderPlacementRecovery);

TypeId
OutOfOrderPlacementRecovery::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::OutOfOrderPlacementRecovery")
            .SetParent<RdmaLossRecovery>()
            .SetGroupName("AiFabric")
            .AddConstructor<OutOfOrderPlacementRecovery>()
            // The checker takes any value so that Validate refuses a bad one by name.
            .AddAttribute("ReorderWindow",
                          "Packets beyond a PSN gap the receiver holds, 1..2^20 (its "
                          "reordering tolerance; ReorderWindow + 1 slots per queue pair)",
                          UintegerValue(256),
                          MakeUintegerAccessor(&OutOfOrderPlacementRecovery::m_reorderWindow),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

OutOfOrderPlacementRecovery::OutOfOrderPlacementRecovery()
{
    NS_LOG_FUNCTION(this);
}

OutOfOrderPlacementRecovery::~OutOfOrderPlacementRecovery() = default;

void
OutOfOrderPlacementRecovery::Validate() const
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_reorderWindow == 0 || m_reorderWindow > MAX_REORDER_WINDOW,
                    GetInstanceTypeId().GetName()
                        << ": ReorderWindow " << m_reorderWindow << " must be in 1.."
                        << MAX_REORDER_WINDOW << " (go-back-N is ns3::RdmaLossRecovery)");
}

uint32_t
OutOfOrderPlacementRecovery::GetReorderWindow() const
{
    return m_reorderWindow;
}

} // namespace ns3
