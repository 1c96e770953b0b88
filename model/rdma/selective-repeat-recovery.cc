/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "selective-repeat-recovery.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SelectiveRepeatRecovery");

NS_OBJECT_ENSURE_REGISTERED(SelectiveRepeatRecovery);

TypeId
SelectiveRepeatRecovery::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SelectiveRepeatRecovery")
            .SetParent<OutOfOrderPlacementRecovery>()
            .SetGroupName("AiFabric")
            .AddConstructor<SelectiveRepeatRecovery>()
            .AddAttribute("NakThreshold",
                          "Packets held beyond a gap before the receiver NAKs it (then it "
                          "NAKs, with a SACK, every arrival while the gap lasts), and "
                          "packets sent after an unacknowledged one that must be acknowledged "
                          "before the sender deems it lost: 1..ReorderWindow (1: at once, as "
                          "IRN does; more tolerates that much reordering without a "
                          "retransmission)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&SelectiveRepeatRecovery::m_nakThreshold),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

SelectiveRepeatRecovery::SelectiveRepeatRecovery()
{
    NS_LOG_FUNCTION(this);
}

SelectiveRepeatRecovery::~SelectiveRepeatRecovery() = default;

void
SelectiveRepeatRecovery::Validate() const
{
    NS_LOG_FUNCTION(this);
    OutOfOrderPlacementRecovery::Validate();
    NS_ABORT_MSG_IF(m_nakThreshold == 0 || m_nakThreshold > GetReorderWindow(),
                    "SelectiveRepeatRecovery: NakThreshold "
                        << m_nakThreshold << " must be in 1..ReorderWindow (" << GetReorderWindow()
                        << ")");
}

uint32_t
SelectiveRepeatRecovery::GetNakThreshold() const
{
    return m_nakThreshold;
}

} // namespace ns3
