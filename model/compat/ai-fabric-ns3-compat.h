/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_NS3_COMPAT_H
#define AI_FABRIC_NS3_COMPAT_H

/**
 * \file
 * \ingroup ai-fabric
 * The ns-3 APIs that ai-fabric uses and that differ between the releases it
 * builds against (Debian's ns-3.37 to ns-3.48). The module's code calls the
 * helpers below; this header is the only place that tests the ns-3 version.
 *
 * AI_FABRIC_NS3_VERSION is major * 100 + minor (337 for ns-3.37). The module's
 * build defines it: CMakeLists.txt from ns-3's VERSION file inside an ns-3 tree
 * and from the CMake package's ns3_VERSION out of tree, wscript-compat/wscript
 * from waf's VERSION. Code compiled outside those builds gets it from
 * ns3/version-defines.h where ns-3 installs that header (Debian's 3.37 does).
 *
 * ns-3.42 made TestCase's durations and TestSuite's types scoped enums
 * (TestCase::Duration::QUICK, TestSuite::Type::UNIT). The test suites name no
 * duration for quick cases (AddTestCase defaults to QUICK in every release),
 * use ExtensiveDuration() for the others, and spell TestSuite::Type::UNIT,
 * which also names the unscoped enumerator before 3.42. ns-3.41's EnumValue<T> is
 * deduced from EnumValue(x) in C++17, and MakeEnumChecker from its arguments.
 */

#include "ns3/attribute.h"
#include "ns3/enum.h"
#include "ns3/event-id.h"
#include "ns3/ptr.h"

#ifndef AI_FABRIC_NS3_VERSION
#if __has_include("ns3/version-defines.h")
#include "ns3/version-defines.h"
#define AI_FABRIC_NS3_VERSION (NS3_VERSION_MAJOR * 100 + NS3_VERSION_MINOR)
#else
#error "ai-fabric: unknown ns-3 version; define AI_FABRIC_NS3_VERSION (337 for ns-3.37)"
#endif
#endif

namespace ns3
{

class TestCase;

namespace ai_fabric
{

/**
 * \ingroup ai-fabric
 * The accessor of an enum attribute held in a data member.
 *
 * ns-3.41 made EnumValue a template on the enum type, and MakeEnumAccessor
 * takes the enum type as its first template argument (it cannot be deduced);
 * before, it takes none.
 *
 * \tparam E the enum type
 * \tparam C the class holding the member
 * \param [in] member the data member (&C::m_member)
 * \return the accessor
 */
template <typename E, typename C>
Ptr<const AttributeAccessor>
MakeEnumAccessor(E C::*member)
{
#if AI_FABRIC_NS3_VERSION >= 341
    return ns3::MakeEnumAccessor<E>(member);
#else
    return ns3::MakeEnumAccessor(member);
#endif
}

/**
 * \ingroup ai-fabric
 * Whether an event is scheduled and has neither run nor been cancelled.
 *
 * ns-3.42 renamed EventId::IsRunning to EventId::IsPending (IsRunning is gone
 * from ns-3.46).
 *
 * \param [in] event the event
 * \return true while the event is pending
 */
inline bool
IsPending(const EventId& event)
{
#if AI_FABRIC_NS3_VERSION >= 342
    return event.IsPending();
#else
    return event.IsRunning();
#endif
}

/**
 * \ingroup ai-fabric
 * The duration of a test case that test.py runs only from its EXTENSIVE
 * fullness on: AddTestCase(testCase, ai_fabric::ExtensiveDuration()).
 *
 * ns-3.42 moved TestCase::EXTENSIVE to TestCase::Duration::EXTENSIVE. The
 * template parameter, TestCase by default, keeps this header free of
 * ns3/test.h: the name is looked up where a test suite calls it.
 *
 * \tparam T TestCase
 * \return the EXTENSIVE duration
 */
template <typename T = TestCase>
constexpr auto
ExtensiveDuration()
{
#if AI_FABRIC_NS3_VERSION >= 342
    return T::Duration::EXTENSIVE;
#else
    return T::EXTENSIVE;
#endif
}

} // namespace ai_fabric
} // namespace ns3

#endif // AI_FABRIC_NS3_COMPAT_H
