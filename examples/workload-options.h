/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_WORKLOAD_OPTIONS_H
#define AI_FABRIC_WORKLOAD_OPTIONS_H

// A workload's command-line options, each declared once (name, help, default,
// what it accepts, the attribute it sets): the list registers them, reads and
// refuses them by name, sets the attributes and writes the workload's summary, so a
// new option is one line where its workload declares its options.

#include "fabric-example.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * The options of one workload, in the order they are declared (the order --help
 * shows them and the order they are read in). Declare each with one call (Count,
 * Bytes, Duration, Real, Flag, Word), then AddToCommandLine before
 * CommandLine::Parse, Parse after it, Apply to a helper and Describe for the
 * summary line; the values are read back by name (GetNumber, GetTime, ...).
 */
class WorkloadOptions
{
  public:
    /// A whole-number bound that is the cluster's GPU count (Parse's hosts).
    static constexpr uint64_t HOSTS = 0;

    /**
     * Declare a whole number without suffix.
     * \param name the option \param help its help text \param value its default
     * \param min smallest accepted \param max largest accepted (HOSTS: the cluster's
     *        GPUs) \param attribute the UintegerValue attribute it sets ("": none)
     * \return this list
     */
    WorkloadOptions& Count(const std::string& name,
                           const std::string& help,
                           const std::string& value,
                           uint64_t min,
                           uint64_t max,
                           const std::string& attribute = "")
    {
        return Declare({name, help, value, COUNT, min, max, attribute});
    }

    /**
     * Declare a size: a whole number with an optional K, M, G or T suffix.
     * \param name the option \param help its help text \param value its default
     * \param min smallest accepted \param max largest accepted
     * \param attribute the UintegerValue attribute it sets ("": none)
     * \return this list
     */
    WorkloadOptions& Bytes(const std::string& name,
                           const std::string& help,
                           const std::string& value,
                           uint64_t min,
                           uint64_t max,
                           const std::string& attribute = "")
    {
        return Declare({name, help, value, BYTES, min, max, attribute});
    }

    /**
     * Declare a time that is not negative.
     * \param name the option \param help its help text \param value its default
     * \param attribute the attribute it sets ("": none)
     * \param shown the unit Describe writes it in
     * \param constant set the attribute as a ConstantRandomVariable of the time in
     *        seconds (for a RandomVariableStream attribute) instead of a TimeValue
     * \return this list
     */
    WorkloadOptions& Duration(const std::string& name,
                              const std::string& help,
                              const std::string& value,
                              const std::string& attribute,
                              Time::Unit shown,
                              bool constant = false)
    {
        Option option{name, help, value, TIME, 0, 0, attribute};
        option.shown = shown;
        option.constant = constant;
        return Declare(option);
    }

    /**
     * Declare a decimal number.
     * \param name the option \param help its help text \param value its default
     * \return this list
     */
    WorkloadOptions& Real(const std::string& name,
                          const std::string& help,
                          const std::string& value)
    {
        return Declare({name, help, value, REAL, 0, 0, ""});
    }

    /**
     * Declare a switch (--name or --name=true|false).
     * \param name the option \param help its help text \param value its default
     * \param attribute the BooleanValue attribute it sets ("": none)
     * \param words how Describe writes it: {when false, when true} (empty: false,
     *        true)
     * \return this list
     */
    WorkloadOptions& Flag(const std::string& name,
                          const std::string& help,
                          bool value,
                          const std::string& attribute = "",
                          std::pair<std::string, std::string> words = {"false", "true"})
    {
        Option option{name, help, "", FLAG, 0, 0, attribute};
        option.flag = value;
        option.words = std::move(words);
        return Declare(option);
    }

    /**
     * Declare a word, refused when it is not one of choices.
     * \param name the option \param help its help text \param value its default
     * \param choices the words accepted, in the order the refusal lists them
     * \param what what a word names, for the refusal ("a schedule")
     * \return this list
     */
    WorkloadOptions& Word(const std::string& name,
                          const std::string& help,
                          const std::string& value,
                          const std::vector<std::string>& choices = {},
                          const std::string& what = "")
    {
        Option option{name, help, value, WORD, 0, 0, ""};
        option.choices = choices;
        option.what = what;
        return Declare(option);
    }

    /**
     * Declare --iterations, the training iterations (1 .. 2^32-1) every workload
     * runs, setting its Iterations attribute.
     * \param value its default \param help its help text
     * \return this list
     */
    WorkloadOptions& Iterations(const std::string& value,
                                const std::string& help = "training iterations")
    {
        return Count("iterations", help, value, 1, UINT32_MAX, "Iterations");
    }

    /**
     * Change an option's default: before AddToCommandLine (for an example whose
     * runs need other defaults than the workload's), or before Parse for an option
     * left off the command line (Leave).
     * \param name the option \param value its new default
     */
    void SetDefault(const std::string& name, const std::string& value)
    {
        Find(name).text = value;
    }

    /**
     * Leave an option off the command line: it keeps its default, or the one
     * SetDefault gives it before Parse (for an example that takes the value from
     * another workload's option).
     * \param name the option
     */
    void Leave(const std::string& name)
    {
        Find(name).listed = false;
    }

    /// \param cmd the command line to add the options to, in their order
    void AddToCommandLine(CommandLine& cmd)
    {
        for (Option& option : m_options)
        {
            if (!option.listed)
            {
                continue;
            }
            if (option.kind == FLAG)
            {
                AddCheckedValue(cmd, option.name, option.help, option.flag);
            }
            else
            {
                AddCheckedValue(cmd, option.name, option.help, option.text);
            }
        }
    }

    /**
     * Read the options, in their order, refusing a bad one by name.
     * \param input the example's input \param hosts the cluster's GPUs (HOSTS bounds)
     */
    void Parse(const ExampleInput& input, uint32_t hosts)
    {
        for (Option& option : m_options)
        {
            switch (option.kind)
            {
            case COUNT:
            case BYTES:
                option.number = input.ParseNumberIn(option.name,
                                                    option.text,
                                                    option.min,
                                                    option.max == HOSTS ? hosts : option.max,
                                                    option.kind == BYTES);
                break;
            case TIME:
                option.time = input.ParseTime(option.name, option.text);
                break;
            case REAL:
                option.real = input.ParseReal(option.name, option.text);
                break;
            case WORD:
                if (!option.choices.empty() && FindChoice(option) == option.choices.size())
                {
                    std::string choices;
                    for (std::size_t i = 0; i < option.choices.size(); ++i)
                    {
                        choices += (i == 0                           ? ""
                                    : i + 1 == option.choices.size() ? " or "
                                                                     : ", ") +
                                   option.choices[i];
                    }
                    input.Refuse("--" + option.name + "=" + option.text + " is not " + option.what +
                                 " (" + choices + ")");
                }
                break;
            case FLAG:
                break;
            }
        }
    }

    /**
     * Set the attributes the options name.
     * \tparam Set a callable taking (attribute name, AttributeValue)
     * \param set sets one attribute
     */
    template <typename Set>
    void ApplyWith(Set set) const
    {
        for (const Option& option : m_options)
        {
            if (option.attribute.empty())
            {
                continue;
            }
            switch (option.kind)
            {
            case COUNT:
            case BYTES:
                set(option.attribute, UintegerValue(option.number));
                break;
            case TIME:
                if (option.constant)
                {
                    set(option.attribute, StringValue(ConstantSeconds(option.time)));
                }
                else
                {
                    set(option.attribute, TimeValue(option.time));
                }
                break;
            case FLAG:
                set(option.attribute, BooleanValue(option.flag));
                break;
            case REAL:
            case WORD:
                break;
            }
        }
    }

    /**
     * Set the attributes the options name on a helper.
     * \tparam Helper a helper with SetAttribute(name, value)
     * \param helper the helper
     */
    template <typename Helper>
    void Apply(Helper& helper) const
    {
        ApplyWith([&helper](const std::string& name, const AttributeValue& value) {
            helper.SetAttribute(name, value);
        });
    }

    /**
     * \param format the summary, with {name} where an option's value goes (a count
     *        or size as a number, a time in its unit, a switch as its words)
     * \return the summary with the values
     */
    std::string Describe(const std::string& format) const
    {
        std::string out;
        std::size_t at = 0;
        while (at < format.size())
        {
            const std::size_t open = format.find('{', at);
            if (open == std::string::npos)
            {
                break;
            }
            const std::size_t close = format.find('}', open);
            out += format.substr(at, open - at);
            const Option& option = Find(format.substr(open + 1, close - open - 1));
            std::ostringstream value;
            switch (option.kind)
            {
            case COUNT:
            case BYTES:
                value << option.number;
                break;
            case TIME:
                value << option.time.As(option.shown);
                break;
            case REAL:
                value << option.real;
                break;
            case FLAG:
                value << (option.flag ? option.words.second : option.words.first);
                break;
            case WORD:
                value << option.text;
                break;
            }
            out += value.str();
            at = close + 1;
        }
        return out + format.substr(at);
    }

    /// \param name an option \return its whole number, after Parse
    uint64_t GetNumber(const std::string& name) const
    {
        return Find(name).number;
    }

    /// \param name an option \return its time, after Parse
    Time GetTime(const std::string& name) const
    {
        return Find(name).time;
    }

    /// \param name an option \return its decimal number, after Parse
    double GetReal(const std::string& name) const
    {
        return Find(name).real;
    }

    /// \param name a switch \return its value
    bool GetFlag(const std::string& name) const
    {
        return Find(name).flag;
    }

    /// \param name an option \return its text as given
    const std::string& GetText(const std::string& name) const
    {
        return Find(name).text;
    }

    /// \param time a time \return a ConstantRandomVariable of it in seconds, as text
    static std::string ConstantSeconds(Time time)
    {
        std::ostringstream text;
        text.precision(17);
        text << "ns3::ConstantRandomVariable[Constant=" << time.GetSeconds() << "]";
        return text.str();
    }

  private:
    /// How an option's text is read.
    enum Kind
    {
        COUNT, //!< a whole number
        BYTES, //!< a whole number with an optional binary suffix
        TIME,  //!< a time, not negative
        REAL,  //!< a decimal number
        FLAG,  //!< a switch
        WORD,  //!< a word, optionally one of a list
    };

    /// One option: its declaration and, after Parse, its value.
    struct Option
    {
        std::string name;                          //!< without the leading --
        std::string help;                          //!< help text
        std::string text;                          //!< default, then as given
        Kind kind;                                 //!< how it is read
        uint64_t min;                              //!< COUNT, BYTES: smallest
        uint64_t max;                              //!< COUNT, BYTES: largest
        std::string attribute;                     //!< the attribute it sets
        Time::Unit shown{Time::MS};                //!< TIME: unit in Describe
        bool constant{false};                      //!< TIME: as a random variable
        bool listed{true};                         //!< on the command line (Leave)
        bool flag{false};                          //!< FLAG: the value
        std::pair<std::string, std::string> words; //!< FLAG: false, true in Describe
        std::vector<std::string> choices;          //!< WORD: accepted words
        std::string what;                          //!< WORD: what a word names
        uint64_t number{0};                        //!< COUNT, BYTES: after Parse
        Time time;                                 //!< TIME: after Parse
        double real{0};                            //!< REAL: after Parse
    };

    /// \param option a new option \return this list
    WorkloadOptions& Declare(const Option& option)
    {
        m_options.push_back(option);
        return *this;
    }

    /// \param name an option \return it (aborts for a name never declared: a typo)
    const Option& Find(const std::string& name) const
    {
        for (const Option& option : m_options)
        {
            if (option.name == name)
            {
                return option;
            }
        }
        NS_ABORT_MSG("WorkloadOptions: no option " << name);
    }

    /// \param name an option \return it (aborts for a name never declared)
    Option& Find(const std::string& name)
    {
        return const_cast<Option&>(static_cast<const WorkloadOptions&>(*this).Find(name));
    }

    /// \param option a WORD option \return the index of its text in its choices
    static std::size_t FindChoice(const Option& option)
    {
        std::size_t i = 0;
        while (i < option.choices.size() && option.choices[i] != option.text)
        {
            ++i;
        }
        return i;
    }

    std::vector<Option> m_options; //!< in declaration order
};

} // namespace ns3

#endif /* AI_FABRIC_WORKLOAD_OPTIONS_H */
