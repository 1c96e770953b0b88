/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_EGRESS_REASSEMBLY_H
#define AI_FABRIC_EGRESS_REASSEMBLY_H

#include "cell-reassembler.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The egress side of a scheduled-fabric leaf: reassembles the cells that
 * arrive from the fabric (a CellReassembler per leaf) and runs its timeouts, one
 * timer per source leaf.
 *
 * Released packets, packets given up at the timeout and discarded cells are
 * handed to the owner's callbacks, which forward, count and trace them.
 */
class EgressReassembly
{
  public:
    /// A packet released or given up.
    typedef Callback<void, const CellReassembler::Output&> OutputCallback;
    /// A cell discarded on arrival: (cell, reason).
    typedef Callback<void, const FabricCell&, CellReassembler::Discard> DiscardCallback;

    /**
     * \param sources source leaves
     * \param window reorder window per source, packets
     * \param timeout reassembly timeout
     * \param released called for each packet released in order
     * \param timedOut called for each packet given up
     * \param discarded called for each cell discarded
     */
    EgressReassembly(uint32_t sources,
                     uint32_t window,
                     Time timeout,
                     OutputCallback released,
                     OutputCallback timedOut,
                     DiscardCallback discarded);
    ~EgressReassembly();

    /// \param cell a data cell from the fabric \return false if it was discarded
    bool Receive(const FabricCell& cell);

    /**
     * A copy of a path-loss notice from a source leaf. When every copy of the
     * newest notice has arrived (one behind the data on each path left), every
     * packet up to the one it names that is still incomplete is given up.
     * \param notice the PATH_LOSS cell
     */
    void ReceivePathLoss(const FabricCell& notice);

    /// \return path-loss notices of which every copy arrived
    uint64_t GetPathLossNotices() const;

    /// Cancel the timers (the owner is being disposed).
    void Cancel();

    /// \return the reassembly state and counters
    const CellReassembler& GetReassembler() const;

  private:
    /// The newest path-loss notice of one source leaf, as its copies arrive.
    struct Notice
    {
        uint64_t number{0};    //!< its number (newer notices supersede it)
        uint32_t lastId{0};    //!< last packet it covers
        uint16_t paths{0};     //!< source links it left on
        uint16_t pathsDone{0}; //!< of them, every spine copy arrived
        bool applied{false};   //!< packets were given up for it
        std::vector<std::pair<uint16_t, uint16_t>> copies; //!< (source link, copies seen)
    };

    /// Hand released and given-up packets to the owner.
    void Flush();
    /**
     * Arm the timer of a source if it has a head waiting.
     * \param source source leaf
     * \param now the current time, in time steps
     */
    void ArmTimer(uint32_t source, int64_t now);
    /// The timer of a source fired. \param source source leaf
    void Timer(uint32_t source);

    CellReassembler m_reassembler;               //!< the reorder buffers
    Time m_timeout;                              //!< ReassemblyTimeout
    std::vector<EventId> m_timers;               //!< per source
    std::vector<bool> m_armed;                   //!< per source: its timer is pending
    std::vector<Notice> m_notices;               //!< per source: its newest path-loss notice
    uint64_t m_noticesApplied{0};                //!< notices of which every copy arrived
    std::vector<CellReassembler::Output> m_out;  //!< scratch: released
    std::vector<CellReassembler::Output> m_lost; //!< scratch: given up
    OutputCallback m_released;                   //!< to the owner
    OutputCallback m_timedOut;                   //!< to the owner
    DiscardCallback m_discarded;                 //!< to the owner
};

} // namespace ns3

#endif /* AI_FABRIC_EGRESS_REASSEMBLY_H */
