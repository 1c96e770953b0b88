/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_ROCE_TEST_SWITCH_H
#define AI_FABRIC_ROCE_TEST_SWITCH_H

#include "ns3/ipv4-header.h"
#include "ns3/node.h"
#include "ns3/random-variable-stream.h"
#include "ns3/roce-net-device.h"
#include "ns3/simple-ref-count.h"

#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric-tests
 * \brief Test-only output-queued switch for RoceNetDevice ports: forwards by IPv4
 * destination and marks ECN CE on egress with a RED-like probability on the egress
 * priority queue's bytes (0 below Kmin, Pmax (q - Kmin)/(Kmax - Kmin) between, 1
 * above Kmax). The real Ethernet switches come in a later issue.
 */
class RoceTestSwitch : public SimpleRefCount<RoceTestSwitch>
{
  public:
    /// \param stream random stream for the marking decision (deterministic)
    explicit RoceTestSwitch(int64_t stream)
        : m_uniform(CreateObject<UniformRandomVariable>())
    {
        m_uniform->SetStream(stream);
    }

    /// \param device a port on the switch node \return its port index
    uint32_t AddPort(Ptr<RoceNetDevice> device)
    {
        device->SetReceiveCallback(MakeCallback(&RoceTestSwitch::Receive, this));
        m_ports.push_back(device);
        return static_cast<uint32_t>(m_ports.size() - 1);
    }

    /// \param destination host address \param port egress port for it
    void AddRoute(Ipv4Address destination, uint32_t port)
    {
        m_routes.emplace_back(destination, port);
    }

    /// \param kmin bytes \param kmax bytes \param pmax marking probability at kmax
    void SetEcn(uint64_t kmin, uint64_t kmax, double pmax)
    {
        m_kmin = kmin;
        m_kmax = kmax;
        m_pmax = pmax;
        m_ecn = true;
    }

    /// \return packets marked CE
    uint64_t GetMarked() const
    {
        return m_marked;
    }

    /// \return packets forwarded
    uint64_t GetForwarded() const
    {
        return m_forwarded;
    }

    /// Drop the receive callbacks (they point to this object).
    void Dispose()
    {
        m_ports.clear();
    }

  private:
    bool Receive(Ptr<NetDevice>, Ptr<const Packet> packet, uint16_t protocol, const Address&)
    {
        Ptr<Packet> p = packet->Copy();
        Ipv4Header ip;
        p->PeekHeader(ip);
        Ptr<RoceNetDevice> out;
        for (const auto& [address, port] : m_routes)
        {
            if (address == ip.GetDestination())
            {
                out = m_ports[port];
                break;
            }
        }
        if (!out)
        {
            return true;
        }
        if (m_ecn && (ip.GetEcn() == Ipv4Header::ECN_ECT0 || ip.GetEcn() == Ipv4Header::ECN_ECT1))
        {
            uint64_t q = out->GetQueueBytes(RoceNetDevice::PriorityFromDscp(ip.GetDscp()));
            double prob = 0;
            if (q >= m_kmax)
            {
                prob = 1;
            }
            else if (q > m_kmin)
            {
                prob =
                    m_pmax * static_cast<double>(q - m_kmin) / static_cast<double>(m_kmax - m_kmin);
            }
            if (prob > 0 && m_uniform->GetValue() < prob)
            {
                p->RemoveHeader(ip);
                ip.SetEcn(Ipv4Header::ECN_CE);
                ip.EnableChecksum();
                p->AddHeader(ip);
                ++m_marked;
            }
        }
        ++m_forwarded;
        out->Send(p, Address(), protocol);
        return true;
    }

    std::vector<Ptr<RoceNetDevice>> m_ports;                //!< ports
    std::vector<std::pair<Ipv4Address, uint32_t>> m_routes; //!< destination -> port
    Ptr<UniformRandomVariable> m_uniform;                   //!< marking draws
    bool m_ecn{false};                                      //!< marking enabled
    uint64_t m_kmin{0};                                     //!< Kmin bytes
    uint64_t m_kmax{0};                                     //!< Kmax bytes
    double m_pmax{0};                                       //!< Pmax
    uint64_t m_marked{0};                                   //!< CE marks
    uint64_t m_forwarded{0};                                //!< packets forwarded
};

} // namespace ns3

#endif /* AI_FABRIC_ROCE_TEST_SWITCH_H */
