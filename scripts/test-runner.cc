/*
 * Out-of-tree runner for the module's ns-3 test suites: the same suites that
 * test.py runs inside an ns-3 tree. The suites are compiled into this program,
 * and ns-3's own TestRunner parses the usual options (--suite=NAME, --list,
 * --verbose, --fullness=...).
 */

#include "ns3/test.h"

int
main(int argc, char** argv)
{
    return ns3::TestRunner::Run(argc, argv);
}
