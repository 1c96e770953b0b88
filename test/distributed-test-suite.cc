/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ai-fabric-distributed (only in an ns-3 tree configured with --enable-mpi): the
// UDP permutation and incast, split over 2 and 4 MPI processes on each of ns-3's
// distributed simulators. On the Ethernet Clos they deliver exactly what the
// sequential run delivers, host by host, at the same instants; on the scheduled
// fabric, whose cells tie often and whose ties a process may take in another
// order (ai-fabric-cell-messages), each host's deliveries within 1% of the
// sequential run's. fabric-benchmark runs each case in one process and under
// mpiexec and prints one "check:" line per distributed run, agreeing or "DIFFER"
// (with the number of hosts that differ); the reference logs hold the agreeing
// lines.

#include "ns3/example-as-test.h"
#include "ns3/test.h"

#include <string>

using namespace ns3;

namespace
{

/// fabric-benchmark's distributed checks, compared with a reference log.
class DistributedCheckTestCase : public ExampleAsTestCase
{
  public:
    /**
     * \param engine granted or nullmessage (fabric-benchmark's --mpiEngine)
     */
    explicit DistributedCheckTestCase(const std::string& engine)
        : ExampleAsTestCase("distributed-" + engine,
                            "fabric-benchmark",
                            NS_TEST_SOURCEDIR,
                            "--scenarios=permutation,incast --fabrics=ethernet,scheduled "
                            "--gpus=16 "
                            "--simTime=300us --processes=2,4 --rawEvents=1000 --json=/dev/null "
                            "--mpiEngine=" +
                                engine)
    {
    }

    /// \return only the check lines (the table holds wall times)
    std::string GetPostProcessingCommand() const override
    {
        return "| grep '^check:'";
    }
};

/// The suite: one case per distributed simulator.
class DistributedTestSuite : public TestSuite
{
  public:
    DistributedTestSuite()
        : TestSuite("ai-fabric-distributed", TestSuite::Type::SYSTEM)
    {
        AddTestCase(new DistributedCheckTestCase("granted"));
        AddTestCase(new DistributedCheckTestCase("nullmessage"));
    }
};

/// Registers the suite.
DistributedTestSuite g_distributedTestSuite;

} // namespace
