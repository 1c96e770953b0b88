/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "gpu-compute.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GpuCompute");

NS_OBJECT_ENSURE_REGISTERED(GpuCompute);

TypeId
GpuCompute::GetTypeId()
{
    static TypeId tid = TypeId("ns3::GpuCompute")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<GpuCompute>()
                            .AddTraceSource("Slowdown",
                                            "The compute slowdown factor changed",
                                            MakeTraceSourceAccessor(&GpuCompute::m_slowdown),
                                            "ns3::TracedValueCallback::Double");
    return tid;
}

GpuCompute::GpuCompute()
    : m_slowdown(1.0)
{
    NS_LOG_FUNCTION(this);
}

GpuCompute::~GpuCompute() = default;

void
GpuCompute::DoDispose()
{
    NS_LOG_FUNCTION(this);
    Object::DoDispose();
}

void
GpuCompute::ScheduleSlowdown(double factor, Time at)
{
    NS_LOG_FUNCTION(this << factor << at);
    NS_ABORT_MSG_IF(!(factor > 0), "GpuCompute: slowdown factor " << factor << " must be above 0");
    NS_ABORT_MSG_IF(at < Simulator::Now(),
                    "GpuCompute: slowdown at " << at.As(Time::US) << " is in the past (now "
                                               << Simulator::Now().As(Time::US) << ")");
    Simulator::Schedule(at - Simulator::Now(), [this, factor]() {
        NS_LOG_LOGIC("compute slowdown " << m_slowdown.Get() << " -> " << factor);
        m_slowdown = factor;
    });
}

double
GpuCompute::GetSlowdown() const
{
    return m_slowdown;
}

Time
GpuCompute::GetComputeTime(Time nominal) const
{
    return m_slowdown == 1.0 ? nominal : nominal * m_slowdown.Get();
}

} // namespace ns3
