/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_VOQ_QUEUE_DISC_ITEM_H
#define AI_FABRIC_VOQ_QUEUE_DISC_ITEM_H

#include "ns3/queue-item.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A packet waiting in a VoqQueueDisc, with the VOQ, ingress port and traffic
 * class its leaf looked up.
 *
 * The packet is kept whole: its Ipv4Header stays in the packet (the leaf only
 * peeks at it), so nothing is removed or re-added.
 */
class VoqQueueDiscItem : public QueueDiscItem
{
  public:
    /**
     * \param p the packet (starting with its Ipv4Header)
     * \param addr the address it came from
     * \param protocol its L3 protocol
     * \param voq the VOQ it goes to
     * \param ingressPort the host port it arrived on
     * \param tc its traffic class
     */
    VoqQueueDiscItem(Ptr<Packet> p,
                     const Address& addr,
                     uint16_t protocol,
                     uint32_t voq,
                     uint32_t ingressPort,
                     uint8_t tc)
        : QueueDiscItem(p, addr, protocol),
          m_voq(voq),
          m_ingressPort(ingressPort),
          m_tc(tc)
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

    /// \return the VOQ
    uint32_t GetVoq() const
    {
        return m_voq;
    }

    /// \return the ingress host port
    uint32_t GetIngressPort() const
    {
        return m_ingressPort;
    }

    /// \return the traffic class
    uint8_t GetTrafficClass() const
    {
        return m_tc;
    }

  private:
    uint32_t m_voq;         //!< VOQ index
    uint32_t m_ingressPort; //!< host port it arrived on
    uint8_t m_tc;           //!< traffic class
};

} // namespace ns3

#endif /* AI_FABRIC_VOQ_QUEUE_DISC_ITEM_H */
