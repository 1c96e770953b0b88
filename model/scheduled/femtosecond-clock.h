/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_FEMTOSECOND_CLOCK_H
#define AI_FABRIC_FEMTOSECOND_CLOCK_H

#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Exact pacing clocks (link departures, credit turns) count femtoseconds in 128
 * bits, so that sub-step remainders add up exactly over any run:
 * Time::GetFemtoSeconds is an int64 and overflows after 2^63 fs (2.56 h of
 * simulated time). The type is spelled __int128_t, as ns-3 spells it: the
 * __int128 keyword draws -Wpedantic's warning, which ns-3.48 enables (an error in
 * its debug builds).
 */
constexpr int64_t FEMTOSECONDS_PER_SECOND = 1000000000000000LL;

/// \return the current simulation time in femtoseconds, 128 bits wide
inline __int128_t
NowInFemtoSeconds()
{
    return static_cast<__int128_t>(Simulator::Now().GetTimeStep()) * TimeStep(1).GetFemtoSeconds();
}

} // namespace ns3

#endif /* AI_FABRIC_FEMTOSECOND_CLOCK_H */
