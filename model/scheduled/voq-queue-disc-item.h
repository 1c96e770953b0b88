/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_VOQ_QUEUE_DISC_ITEM_H
#define AI_FABRIC_VOQ_QUEUE_DISC_ITEM_H

#include "ns3/queue-item.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A packet waiting in a VoqQueueDisc, kept whole: its Ipv4Header stays in
 * the packet (the leaf only peeks at it), so nothing is removed or re-added.
 */
class VoqQueueDiscItem : public QueueDiscItem
{
  public:
    /**
     * \param p the packet (starting with its Ipv4Header)
     * \param addr the address it came from
     * \param protocol its L3 protocol
     */
    VoqQueueDiscItem(Ptr<Packet> p, const Address& addr, uint16_t protocol)
        : QueueDiscItem(p, addr, protocol)
    {
    }

    /// The header never left the packet: nothing to add.
    void AddHeader() override
    {
    }

    /// The scheduled fabric is lossless and does not mark. \return false
    bool Mark() override
    {
        return false;
    }
};

} // namespace ns3

#endif /* AI_FABRIC_VOQ_QUEUE_DISC_ITEM_H */
