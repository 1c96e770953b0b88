/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_RUN_RECORD_H
#define AI_FABRIC_RUN_RECORD_H

#include <nlohmann/json_fwd.hpp>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief What made a run, for its result files: enough to repeat it from a
 * result file alone (scripts/rerun-result.py does).
 *
 * A program calls Begin() first in main, before its CommandLine parses anything;
 * Get() then returns the program and its arguments, the ns-3 environment
 * variables that change defaults, RngSeed and RngRun and every other global
 * value, every attribute default that differs from what it was at Begin() (the
 * program's --ns3:: options and Config::SetDefault calls; an object, such as an
 * error model, as its TypeId and attributes, AttributeText), the ns-3 version and
 * the module's version (its git commit when the build was configured).
 *
 * Begin() also applies --RngSeed and --RngRun before CommandLine reads the other
 * options (ApplyRandomOptions): an object that an attribute default creates while
 * the command line is read (an error model given as
 * --ns3::RoceNetDevice::ReceiveErrorModel=ns3::RateErrorModel[...]) draws from the
 * run's random streams whatever the order of the options.
 *
 * \code
 *   int main(int argc, char* argv[])
 *   {
 *       RunRecord::Begin(argc, argv);
 *       CommandLine cmd(__FILE__);
 *       ...
 *       results["runRecord"] = RunRecord::Get();
 * \endcode
 */
class RunRecord
{
  public:
    /**
     * Keep the command line and the attribute defaults as they are now.
     * \param argc the program's argc \param argv the program's argv
     */
    static void Begin(int argc, char* argv[]);
    /**
     * Set RngSeed and RngRun from the command line's --RngSeed= and --RngRun=
     * options (the last of each, as CommandLine reads them), before CommandLine
     * reads anything else; a value the global refuses is left for CommandLine to
     * refuse. Begin calls it.
     * \param argc the program's argc \param argv the program's argv
     */
    static void ApplyRandomOptions(int argc, char* argv[]);
    /// \return the record (empty if Begin was not called)
    static nlohmann::json Get();
};

} // namespace ns3

#endif /* AI_FABRIC_RUN_RECORD_H */
