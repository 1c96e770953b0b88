/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "run-record.h"

#include "ns3/attribute-text.h"
#include "ns3/checked-value.h"
#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#ifndef AI_FABRIC_MODULE_VERSION
#define AI_FABRIC_MODULE_VERSION "unknown"
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RunRecord");

namespace
{

/// What Begin kept.
struct Start
{
    bool begun{false};                           //!< Begin was called
    std::vector<std::string> arguments;          //!< argv[0..argc)
    std::map<std::string, std::string> defaults; //!< attribute defaults, by full name
};

/// \return the one record of this process
Start&
GetStart()
{
    static Start start;
    return start;
}

/// \return every attribute default, "ns3::Type::Attribute" -> its text
std::map<std::string, std::string>
AttributeDefaults()
{
    std::map<std::string, std::string> defaults;
    for (uint16_t t = 0; t < TypeId::GetRegisteredN(); ++t)
    {
        const TypeId tid = TypeId::GetRegistered(t);
        for (std::size_t a = 0; a < tid.GetAttributeN(); ++a)
        {
            const TypeId::AttributeInformation info = tid.GetAttribute(a);
            if (info.initialValue && info.checker)
            {
                // An object (a PointerValue) as its TypeId and attributes, not its
                // address, so that a re-run writes the same text.
                defaults[tid.GetName() + "::" + info.name] =
                    AttributeText::ToString(*info.initialValue, info.checker);
            }
        }
    }
    return defaults;
}

} // namespace

void
RunRecord::Begin(int argc, char* argv[])
{
    NS_LOG_FUNCTION(argc);
    Start& start = GetStart();
    start.begun = true;
    start.arguments.assign(argv, argv + argc);
    start.defaults = AttributeDefaults();
    ApplyRandomOptions(argc, argv);
}

void
RunRecord::ApplyRandomOptions(int argc, char* argv[])
{
    NS_LOG_FUNCTION(argc);
    // As CommandLine reads them: any number of leading dashes, name=value, the last
    // one given wins. A value the global refuses is left for CommandLine to refuse.
    for (int i = 1; i < argc; ++i)
    {
        std::string argument = argv[i];
        const std::size_t name = argument.find_first_not_of('-');
        if (name == 0 || name == std::string::npos)
        {
            continue;
        }
        const std::size_t equal = argument.find('=', name);
        if (equal == std::string::npos)
        {
            continue;
        }
        const std::string option = argument.substr(name, equal - name);
        if (option == "RngRun" || option == "RngSeed")
        {
            // ns-3 reads them as unsigned integers: "-1" would wrap to 2^64 - 1,
            // and RngSeed 0 is no seed.
            const std::string text = argument.substr(equal + 1);
            const uint64_t lowest = option == "RngSeed" ? 1 : 0;
            const uint64_t highest = option == "RngSeed" ? 0xFFFFFFFFull : UINT64_MAX;
            errno = 0;
            char* end = nullptr;
            const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
            if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])) ||
                *end != '\0' || errno == ERANGE || value < lowest || value > highest)
            {
                const std::string program = argv[0];
                RefuseOption(program.substr(program.find_last_of('/') + 1),
                             "--" + option + "=" + text + " must be a whole number in " +
                                 std::to_string(lowest) + ".." + std::to_string(highest));
            }
            const bool bound =
                GlobalValue::BindFailSafe(option, StringValue(argument.substr(equal + 1)));
            NS_LOG_LOGIC(option << " = " << argument.substr(equal + 1)
                                << (bound ? " applied first" : " left to CommandLine"));
        }
    }
}

nlohmann::json
RunRecord::Get()
{
    NS_LOG_FUNCTION_NOARGS();
    const Start& start = GetStart();
    if (!start.begun)
    {
        return nlohmann::json::object();
    }
    nlohmann::json changed = nlohmann::json::object();
    for (const auto& [name, value] : AttributeDefaults())
    {
        const auto before = start.defaults.find(name);
        if (before == start.defaults.end() || before->second != value)
        {
            changed[name] = value;
        }
    }
    nlohmann::json globals = nlohmann::json::object();
    for (auto g = GlobalValue::Begin(); g != GlobalValue::End(); ++g)
    {
        StringValue value;
        (*g)->GetValue(value);
        globals[(*g)->GetName()] = value.Get();
    }
    nlohmann::json environment = nlohmann::json::object();
    for (const char* variable : {"NS_ATTRIBUTE_DEFAULT", "NS_GLOBAL_VALUE"})
    {
        if (const char* value = std::getenv(variable))
        {
            environment[variable] = value;
        }
    }
    const std::string program = start.arguments.empty() ? "" : start.arguments.front();
    return {
        {"program", program.substr(program.find_last_of('/') + 1)},
        {"arguments",
         std::vector<std::string>(start.arguments.begin() + (start.arguments.empty() ? 0 : 1),
                                  start.arguments.end())},
        {"environment", environment},
        {"rngSeed", RngSeedManager::GetSeed()},
        {"rngRun", RngSeedManager::GetRun()},
        {"globalValues", globals},
        {"changedAttributeDefaults", changed},
        {"ns3Version",
         std::to_string(AI_FABRIC_NS3_VERSION / 100) + "." +
             std::to_string(AI_FABRIC_NS3_VERSION % 100)},
        {"moduleVersion", AI_FABRIC_MODULE_VERSION},
    };
}

} // namespace ns3
