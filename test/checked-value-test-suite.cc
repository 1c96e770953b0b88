/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ns3/checked-value.h"
#include "ns3/test.h"

#include <cstdint>
#include <limits>
#include <string>

using namespace ns3;

/**
 * \ingroup ai-fabric-tests
 * \brief The option parsers read exactly the text a field can hold and refuse
 * the rest with a reason; ns-3's own reader would wrap -1 into an unsigned field
 * and read 4x as 4.
 */
class CheckedValueParsersTestCase : public TestCase
{
  public:
    CheckedValueParsersTestCase()
        : TestCase("whole, signed and decimal numbers, times, rates and addresses")
    {
    }

  private:
    /// Each parser on accepted values (exact results) and on refused ones.
    void DoRun() override
    {
        uint64_t whole = 7;
        NS_TEST_EXPECT_MSG_EQ(FindWholeNumberProblem("4294967295", UINT32_MAX, false, &whole),
                              "",
                              "the largest uint32_t");
        NS_TEST_EXPECT_MSG_EQ(whole, 4294967295ULL, "read exactly");
        NS_TEST_EXPECT_MSG_EQ(FindWholeNumberProblem("4294967296", UINT32_MAX, false, &whole),
                              " must be in 0..4294967295",
                              "one more does not fit");
        NS_TEST_EXPECT_MSG_EQ(FindWholeNumberProblem("-1", UINT32_MAX, false, &whole),
                              " is not a whole number (digits only, 0..4294967295)",
                              "no wrap-around");
        NS_TEST_EXPECT_MSG_NE(FindWholeNumberProblem("4x", UINT32_MAX, false, &whole),
                              "",
                              "trailing text");
        NS_TEST_EXPECT_MSG_NE(FindWholeNumberProblem("", UINT32_MAX, false, &whole), "", "empty");
        NS_TEST_EXPECT_MSG_EQ(
            FindWholeNumberProblem("99999999999999999999", UINT64_MAX, false, &whole),
            " is too large",
            "beyond 64 bits");
        NS_TEST_EXPECT_MSG_EQ(FindWholeNumberProblem("64K", UINT64_MAX, true, &whole), "", "64K");
        NS_TEST_EXPECT_MSG_EQ(whole, 65536U, "64 x 1024");
        NS_TEST_EXPECT_MSG_EQ(FindWholeNumberProblem("1GB", UINT64_MAX, true, &whole), "", "1GB");
        NS_TEST_EXPECT_MSG_EQ(whole, 1073741824ULL, "1024^3");
        NS_TEST_EXPECT_MSG_NE(FindWholeNumberProblem("64K", UINT64_MAX, false, &whole),
                              "",
                              "no suffix where none is allowed");
        NS_TEST_EXPECT_MSG_EQ(whole, 1073741824ULL, "a refused value leaves the field alone");

        int64_t integer = 0;
        NS_TEST_EXPECT_MSG_EQ(FindIntegerProblem("-1", -1, 100, &integer), "", "-1");
        NS_TEST_EXPECT_MSG_EQ(integer, -1, "read exactly");
        NS_TEST_EXPECT_MSG_EQ(FindIntegerProblem("-2", -1, 100, &integer),
                              " must be in -1..100",
                              "below the range");
        const int64_t min = std::numeric_limits<int64_t>::min();
        const int64_t max = std::numeric_limits<int64_t>::max();
        NS_TEST_EXPECT_MSG_EQ(FindIntegerProblem("-9223372036854775808", min, max, &integer),
                              "",
                              "the smallest int64_t");
        NS_TEST_EXPECT_MSG_EQ(integer, min, "its magnitude exceeds the largest by one");
        NS_TEST_EXPECT_MSG_NE(FindIntegerProblem("9223372036854775808", min, max, &integer),
                              "",
                              "one beyond the largest");
        NS_TEST_EXPECT_MSG_NE(FindIntegerProblem("-", min, max, &integer), "", "a sign alone");

        double real = 0;
        NS_TEST_EXPECT_MSG_EQ(FindRealProblem("1.05", &real), "", "1.05");
        NS_TEST_EXPECT_MSG_EQ(real, 1.05, "read exactly as strtod does");
        NS_TEST_EXPECT_MSG_EQ(FindRealProblem("-2e3", &real), "", "an exponent");
        NS_TEST_EXPECT_MSG_EQ(real, -2000.0, "-2 x 10^3");
        for (const std::string bad : {"nan", "inf", "1.5x", " 1", "0x10", ""})
        {
            NS_TEST_EXPECT_MSG_EQ(FindRealProblem(bad, &real), " is not a number", bad);
        }

        Time time;
        NS_TEST_EXPECT_MSG_EQ(FindTimeProblem("10ms", &time), "", "10ms");
        NS_TEST_EXPECT_MSG_EQ(time, MilliSeconds(10), "ms, not s");
        NS_TEST_EXPECT_MSG_EQ(FindTimeProblem("1.5us", &time), "", "1.5us");
        NS_TEST_EXPECT_MSG_EQ(time, NanoSeconds(1500), "a fraction of a unit");
        NS_TEST_EXPECT_MSG_EQ(FindTimeProblem("0", &time), "", "0 alone");
        NS_TEST_EXPECT_MSG_EQ(time, Time(0), "zero");
        NS_TEST_EXPECT_MSG_EQ(FindTimeProblem("-1us", &time), " must not be negative", "-1us");
        for (const std::string bad : {"10", "fast", "10m", "us", "1xs", "nanms"})
        {
            NS_TEST_EXPECT_MSG_NE(FindTimeProblem(bad, &time), "", bad);
        }
        NS_TEST_EXPECT_MSG_EQ(ShowTime(MicroSeconds(200)), "200us", "the largest exact unit");
        NS_TEST_EXPECT_MSG_EQ(ShowTime(NanoSeconds(1500)), "1500ns", "1.5us is not whole in us");
        NS_TEST_EXPECT_MSG_EQ(ShowTime(Seconds(2)), "2s", "seconds");
        NS_TEST_EXPECT_MSG_EQ(ShowTime(Time(0)), "0", "zero as the parser reads it");
        NS_TEST_EXPECT_MSG_EQ(FindTimeProblem(ShowTime(NanoSeconds(1500)), &time),
                              "",
                              "reads back");
        NS_TEST_EXPECT_MSG_EQ(time, NanoSeconds(1500), "the same time");

        DataRate rate;
        NS_TEST_EXPECT_MSG_EQ(FindDataRateProblem("400Gbps", &rate), "", "400Gbps");
        NS_TEST_EXPECT_MSG_EQ(rate.GetBitRate(), 400000000000ULL, "400 x 10^9 bit/s");
        for (const std::string bad : {"100", "-5Gbps", "fast", "Gbps"})
        {
            NS_TEST_EXPECT_MSG_NE(FindDataRateProblem(bad, &rate), "", bad);
        }
        NS_TEST_EXPECT_MSG_EQ(ShowDataRate(DataRate("400Gbps")), "400Gbps", "Gbps");
        NS_TEST_EXPECT_MSG_EQ(ShowDataRate(DataRate("1.5Gbps")), "1500Mbps", "Mbps when exact");

        Ipv4Address address;
        NS_TEST_EXPECT_MSG_EQ(FindIpv4AddressProblem("10.1.2.3", &address), "", "10.1.2.3");
        NS_TEST_EXPECT_MSG_EQ(address, Ipv4Address("10.1.2.3"), "read exactly");
        for (const std::string bad : {"10.0.0", "256.0.0.0", "1.2.3.4.5", "a.b.c.d", "1..2.3"})
        {
            NS_TEST_EXPECT_MSG_NE(FindIpv4AddressProblem(bad, &address), "", bad);
        }
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief AddCheckedValue through a real CommandLine: accepted values reach the
 * fields, and --help shows each field's value at the call as its default.
 */
class CheckedValueCommandLineTestCase : public TestCase
{
  public:
    CheckedValueCommandLineTestCase()
        : TestCase("AddCheckedValue stores parsed values and shows defaults")
    {
    }

  private:
    /// Parse one command line with a field of every kind.
    void DoRun() override
    {
        uint32_t count = 4;
        int64_t spine = -1;
        double factor = 1.05;
        Time delay = NanoSeconds(500);
        DataRate rate("100Gbps");
        Ipv4Address network("10.0.0.0");
        bool flag = false;
        std::string name = "a";
        CommandLine cmd("checked-value-test");
        AddCheckedValue(cmd, "count", "a count", count);
        AddCheckedValue(cmd, "spine", "a spine or -1", spine);
        AddCheckedValue(cmd, "factor", "a factor", factor);
        AddCheckedValue(cmd, "delay", "a delay", delay);
        AddCheckedValue(cmd, "rate", "a rate", rate);
        AddCheckedValue(cmd, "network", "a network", network);
        AddCheckedValue(cmd, "flag", "a switch", flag);
        AddCheckedValue(cmd, "name", "a name", name);

        std::ostringstream help;
        cmd.PrintHelp(help);
        for (const std::string shown :
             {"[4]", "[-1]", "[1.05]", "[500ns]", "[100Gbps]", "[10.0.0.0]", "[false]", "[a]"})
        {
            NS_TEST_EXPECT_MSG_NE(help.str().find(shown), std::string::npos, "help shows " + shown);
        }

        cmd.Parse(std::vector<std::string>{"checked-value-test",
                                           "--count=4294967295",
                                           "--spine=3",
                                           "--factor=2.5",
                                           "--delay=1.5us",
                                           "--rate=400Gbps",
                                           "--network=192.168.0.0",
                                           "--flag=true",
                                           "--name=b"});
        NS_TEST_EXPECT_MSG_EQ(count, 4294967295U, "count");
        NS_TEST_EXPECT_MSG_EQ(spine, 3, "spine");
        NS_TEST_EXPECT_MSG_EQ(factor, 2.5, "factor");
        NS_TEST_EXPECT_MSG_EQ(delay, NanoSeconds(1500), "delay");
        NS_TEST_EXPECT_MSG_EQ(rate, DataRate("400Gbps"), "rate");
        NS_TEST_EXPECT_MSG_EQ(network, Ipv4Address("192.168.0.0"), "network");
        NS_TEST_EXPECT_MSG_EQ(flag, true, "flag, read by ns-3");
        NS_TEST_EXPECT_MSG_EQ(name, "b", "name, read by ns-3");
    }
};

/**
 * \ingroup ai-fabric-tests
 * \brief Test suite for the checked command-line options (refusals that exit are
 * checked by running every example with bad values, scripts/check-bad-values.py).
 */
class CheckedValueTestSuite : public TestSuite
{
  public:
    CheckedValueTestSuite()
        : TestSuite("ai-fabric-checked-value", TestSuite::Type::UNIT)
    {
        AddTestCase(new CheckedValueParsersTestCase);
        AddTestCase(new CheckedValueCommandLineTestCase);
    }
};

/// The static instance that registers the suite.
static CheckedValueTestSuite g_checkedValueTestSuite;
