/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_ABORT_LINE_FILTER_H
#define AI_FABRIC_ABORT_LINE_FILTER_H

// Standard error and log of the examples (ExampleInput installs it on std::cerr and
// std::clog, to which ns-3 writes an abort's time prefix): an ns-3 abort's line is
// held back, so that a model's refusal of the configuration shows as one line.

#include <algorithm>
#include <streambuf>
#include <string>

namespace ns3
{

/**
 * Standard error, line by line, holding back the line of an ns-3 abort
 * ("aborted. cond=..., msg=\"...\", file=..., line=..."): ExampleInput prints a
 * refusal before the first event as one line with the model's message, and an
 * abort after it as ns-3 wrote it. Other lines pass through unchanged.
 */
class AbortLineFilter : public std::streambuf
{
  public:
    /// \param target where the text goes (standard error's own buffer)
    explicit AbortLineFilter(std::streambuf* target)
        : m_target(target)
    {
    }

    /// \return the model's message of the abort line held back ("" if none)
    std::string GetHeldMessage() const
    {
        // msg="MESSAGE", [time and node prefixes] file=FILE, line=LINE
        const std::size_t msg = m_held.find("msg=\"");
        const std::size_t file = m_held.rfind("file=");
        const std::size_t end = file == std::string::npos ? file : m_held.rfind("\", ", file);
        if (msg != std::string::npos && end != std::string::npos && end >= msg + 5)
        {
            return m_held.substr(msg + 5, end - msg - 5);
        }
        const std::size_t cond = m_held.find("cond=\"");
        return cond == std::string::npos ? m_held : m_held.substr(cond);
    }

    /// Forget the abort line held back (its message has been shown otherwise).
    void DiscardHeld()
    {
        m_held.clear();
    }

    /// Write the abort line held back, as ns-3 wrote it.
    void ReleaseHeld()
    {
        m_target->sputn(m_held.data(), static_cast<std::streamsize>(m_held.size()));
        m_target->pubsync();
        m_held.clear();
    }

  protected:
    /// \param c a character \return c
    int overflow(int c) override
    {
        if (c != traits_type::eof())
        {
            m_line += static_cast<char>(c);
            if (c == '\n')
            {
                EndLine();
            }
        }
        return traits_type::not_eof(c);
    }

    /// \return 0; a part line passes unless it may start an abort line
    int sync() override
    {
        if (!m_line.empty() && !MayBeAbortLine(m_line))
        {
            Pass();
        }
        return m_target->pubsync();
    }

  private:
    /// \param text a line, or its start \return whether it starts as an abort
    ///        line of ns-3's NS_ABORT or NS_FATAL_ERROR does (or may, being short)
    static bool MayBeAbortLine(const std::string& text)
    {
        for (const std::string start : {"aborted. ", "msg=\"", "file="})
        {
            const std::size_t n = std::min(start.size(), text.size());
            if (text.compare(0, n, start, 0, n) == 0)
            {
                return true;
            }
        }
        return false;
    }

    /// A line has ended: hold it if it is an abort line, else pass it.
    void EndLine()
    {
        if (MayBeAbortLine(m_line) && m_line.find("file=") != std::string::npos &&
            m_line.find(", line=") != std::string::npos)
        {
            if (!m_held.empty())
            {
                ReleaseHeld(); // the program went on after the previous one
            }
            m_held = m_line;
            m_line.clear();
            return;
        }
        if (!m_held.empty())
        {
            ReleaseHeld();
        }
        Pass();
    }

    /// Write the line so far.
    void Pass()
    {
        m_target->sputn(m_line.data(), static_cast<std::streamsize>(m_line.size()));
        m_line.clear();
    }

    std::streambuf* m_target; //!< standard error's own buffer
    std::string m_line;       //!< the line being written
    std::string m_held;       //!< an abort line held back
};

} // namespace ns3

#endif /* AI_FABRIC_ABORT_LINE_FILTER_H */
