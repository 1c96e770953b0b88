/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "dcqcn-congestion-control.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DcqcnCongestionControl");

NS_OBJECT_ENSURE_REGISTERED(DcqcnCongestionControl);

TypeId
DcqcnCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DcqcnCongestionControl")
            .SetParent<RdmaCongestionControl>()
            .SetGroupName("AiFabric")
            .AddConstructor<DcqcnCongestionControl>()
            .AddAttribute("G",
                          "Alpha gain g",
                          DoubleValue(1.0 / 256),
                          MakeDoubleAccessor(&DcqcnCongestionControl::m_g),
                          MakeDoubleChecker<double>())
            .AddAttribute("AlphaPeriod",
                          "Alpha update period without CNP (1 us, as ConnectX NICs; the "
                          "paper's K is 55 us)",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&DcqcnCongestionControl::m_alphaPeriod),
                          MakeTimeChecker())
            .AddAttribute("RateIncreaseTimer",
                          "Rate-increase timer T (300 us, as ConnectX NICs; the paper's is "
                          "55 us)",
                          TimeValue(MicroSeconds(300)),
                          MakeTimeAccessor(&DcqcnCongestionControl::m_increaseTimer),
                          MakeTimeChecker())
            .AddAttribute("ByteCounter",
                          "Rate-increase byte counter B",
                          UintegerValue(10000000),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_byteCounter),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("FastRecoverySteps",
                          "Fast-recovery steps F (the paper's is 5)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&DcqcnCongestionControl::m_fastRecoverySteps),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RateAi",
                          "Additive increase step R_AI for a NIC of ReferenceRate, scaled "
                          "with the NIC's rate (5 Mb/s per 25 Gb/s: 80 Mb/s at 400 Gb/s)",
                          DataRateValue(DataRate("5Mbps")),
                          MakeDataRateAccessor(&DcqcnCongestionControl::m_rateAi),
                          MakeDataRateChecker())
            .AddAttribute("RateHai",
                          "Hyper increase step R_HAI for a NIC of ReferenceRate, scaled "
                          "with the NIC's rate",
                          DataRateValue(DataRate("50Mbps")),
                          MakeDataRateAccessor(&DcqcnCongestionControl::m_rateHai),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "Minimum sending rate (1 Gb/s, a public DCQCN configuration's; "
                          "NICs allow down to 1 Mb/s)",
                          DataRateValue(DataRate("1Gbps")),
                          MakeDataRateAccessor(&DcqcnCongestionControl::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("RateDecreasePeriod",
                          "At most one rate cut per period (0: a cut on every CNP, as the "
                          "paper's reaction point)",
                          TimeValue(MicroSeconds(4)),
                          MakeTimeAccessor(&DcqcnCongestionControl::m_decreasePeriod),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ClampTargetRate",
                          "The target rate takes the current rate at every cut (the paper); "
                          "false: only at a cut after a rate increase",
                          BooleanValue(false),
                          MakeBooleanAccessor(&DcqcnCongestionControl::m_clampTargetRate),
                          MakeBooleanChecker())
            .AddAttribute("ReferenceRate",
                          "The NIC rate RateAi and RateHai are given for; a NIC of another "
                          "rate scales them by its rate over this one",
                          DataRateValue(DataRate("25Gbps")),
                          MakeDataRateAccessor(&DcqcnCongestionControl::m_referenceRate),
                          MakeDataRateChecker());
    return tid;
}

DcqcnCongestionControl::DcqcnCongestionControl()
{
    NS_LOG_FUNCTION(this);
}

DcqcnCongestionControl::~DcqcnCongestionControl() = default;

void
DcqcnCongestionControl::DoDispose()
{
    NS_LOG_FUNCTION(this);
    // Removed, not only cancelled: a disposed queue pair leaves no event behind.
    Simulator::Remove(m_timer);
    m_controller.reset();
    RdmaCongestionControl::DoDispose();
}

void
DcqcnCongestionControl::DoInstall(Time now)
{
    NS_LOG_FUNCTION(this << now);
    NS_ABORT_MSG_IF(m_referenceRate.GetBitRate() == 0,
                    "DcqcnCongestionControl: ReferenceRate 0bps must be above 0");
    DcqcnConfig c;
    c.lineRateBps = GetLineRate();
    c.g = m_g;
    c.alphaPeriod = m_alphaPeriod;
    c.increaseTimer = m_increaseTimer;
    c.byteCounter = m_byteCounter;
    c.fastRecoverySteps = m_fastRecoverySteps;
    // The increase steps scale with the NIC's rate (given for ReferenceRate).
    const double scale = GetLineRate() / static_cast<double>(m_referenceRate.GetBitRate());
    c.rateAiBps = static_cast<double>(m_rateAi.GetBitRate()) * scale;
    c.rateHaiBps = static_cast<double>(m_rateHai.GetBitRate()) * scale;
    c.minRateBps = static_cast<double>(m_minRate.GetBitRate());
    c.decreasePeriod = m_decreasePeriod;
    c.clampTargetRate = m_clampTargetRate;
    // Alpha decays from the queue pair's creation, not from time 0.
    m_controller = std::make_unique<DcqcnRateController>(c, now);
}

double
DcqcnCongestionControl::GetRate() const
{
    return m_controller ? m_controller->GetRate() : RdmaCongestionControl::GetRate();
}

bool
DcqcnCongestionControl::UsesCnp() const
{
    return true;
}

void
DcqcnCongestionControl::OnSend(uint64_t bytes, Time /* now */)
{
    NS_LOG_FUNCTION(this << bytes);
    const double before = m_controller->GetRate();
    m_controller->OnBytesSent(bytes);
    if (m_controller->GetRate() != before)
    {
        NS_LOG_LOGIC("byte counter: rate " << m_controller->GetRate());
        NotifyRateChange();
    }
}

void
DcqcnCongestionControl::OnCnp(Time now)
{
    NS_LOG_FUNCTION(this << now);
    if (m_controller->OnCnp(now))
    {
        NS_LOG_LOGIC("cut to " << m_controller->GetRate() << " bit/s, target "
                               << m_controller->GetTargetRate());
        NotifyRateChange();
        RestartTimer();
    }
}

void
DcqcnCongestionControl::RestartTimer()
{
    NS_LOG_FUNCTION(this);
    m_timer.Cancel();
    m_timer = Simulator::Schedule(m_increaseTimer, &DcqcnCongestionControl::IncreaseTimer, this);
}

void
DcqcnCongestionControl::IncreaseTimer()
{
    NS_LOG_FUNCTION(this);
    m_controller->OnTimer();
    NotifyRateChange();
    if (m_controller->IsLimited())
    {
        RestartTimer();
    }
}

double
DcqcnCongestionControl::GetTargetRate() const
{
    return m_controller ? m_controller->GetTargetRate() : GetLineRate();
}

double
DcqcnCongestionControl::GetAlpha(Time now) const
{
    return m_controller ? m_controller->GetAlpha(now) : 1.0;
}

uint64_t
DcqcnCongestionControl::GetCuts() const
{
    return m_controller ? m_controller->GetCuts() : 0;
}

} // namespace ns3
