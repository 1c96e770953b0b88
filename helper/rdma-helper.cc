/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "rdma-helper.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaHelper");

RdmaHelper::RdmaHelper()
{
    m_factory.SetTypeId(RdmaTransport::GetTypeId());
}

void
RdmaHelper::SetTransportAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

void
RdmaHelper::SetCongestionControlAttribute(const std::string& name, const AttributeValue& value)
{
    m_ccAttributes.emplace_back(name, value.Copy());
}

bool
RdmaHelper::LookupCongestionControl(const std::string& name, TypeId* tid)
{
    const std::string full = name == "None"    ? "ns3::RdmaCongestionControl"
                             : name == "Dcqcn" ? "ns3::DcqcnCongestionControl"
                                               : name;
    TypeId found;
    if (!TypeId::LookupByNameFailSafe(full, &found) ||
        (found != RdmaCongestionControl::GetTypeId() &&
         !found.IsChildOf(RdmaCongestionControl::GetTypeId())) ||
        !found.HasConstructor())
    {
        return false;
    }
    *tid = found;
    return true;
}

void
RdmaHelper::Install(const NodeContainer& hosts)
{
    NetDeviceContainer nics;
    for (uint32_t i = 0; i < hosts.GetN(); ++i)
    {
        Ptr<Node> node = hosts.Get(i);
        Ptr<RoceNetDevice> nic;
        for (uint32_t d = 0; d < node->GetNDevices() && !nic; ++d)
        {
            nic = DynamicCast<RoceNetDevice>(node->GetDevice(d));
        }
        NS_ABORT_MSG_IF(!nic,
                        "RdmaHelper: host " << i << " (node " << node->GetId()
                                            << ") has no RoceNetDevice");
        nics.Add(nic);
    }
    Install(nics);
}

void
RdmaHelper::Install(const NetDeviceContainer& nics)
{
    NS_ABORT_MSG_IF(m_table, "RdmaHelper: Install may be called once per helper (one job)");
    NS_ABORT_MSG_IF(nics.GetN() == 0, "RdmaHelper: Install needs at least one host");
    m_table = std::make_shared<RdmaTransport::RankTable>();
    for (uint32_t rank = 0; rank < nics.GetN(); ++rank)
    {
        Ptr<RoceNetDevice> nic = DynamicCast<RoceNetDevice>(nics.Get(rank));
        NS_ABORT_MSG_IF(!nic, "RdmaHelper: device of rank " << rank << " is not a RoceNetDevice");
        Ipv4Address address = nic->GetIpv4Address();
        NS_ABORT_MSG_IF(address == Ipv4Address::GetAny(),
                        "RdmaHelper: the RoceNetDevice of rank "
                            << rank << " has no Ipv4Address (set the attribute)");
        for (uint32_t other = 0; other < rank; ++other)
        {
            NS_ABORT_MSG_IF(m_table->addresses[other] == address,
                            "RdmaHelper: ranks " << other << " and " << rank
                                                 << " share the Ipv4Address " << address);
        }
        Ptr<Node> node = nic->GetNode();
        NS_ABORT_MSG_IF(!node,
                        "RdmaHelper: the RoceNetDevice of rank " << rank << " is on no node");
        NS_ABORT_MSG_IF(node->GetObject<RdmaTransport>(),
                        "RdmaHelper: node " << node->GetId() << " already has an RdmaTransport");
        Ptr<RdmaTransport> transport = m_factory.Create<RdmaTransport>();
        for (const auto& [name, value] : m_ccAttributes)
        {
            transport->SetCongestionControlAttribute(name, *value);
        }
        node->AggregateObject(transport);
        transport->SetDevice(nic);
        m_table->transports.push_back(transport);
        m_table->addresses.push_back(address);
    }
    for (uint32_t rank = 0; rank < nics.GetN(); ++rank)
    {
        m_table->transports[rank]->SetRankTable(rank, m_table);
    }
}

uint32_t
RdmaHelper::GetNRanks() const
{
    return m_table ? static_cast<uint32_t>(m_table->transports.size()) : 0;
}

Ptr<RdmaTransport>
RdmaHelper::GetTransport(uint32_t rank) const
{
    NS_ABORT_MSG_IF(rank >= GetNRanks(),
                    "RdmaHelper: rank " << rank << " is unknown (" << GetNRanks()
                                        << " ranks installed)");
    return m_table->transports[rank];
}

uint64_t
RdmaHelper::Post(uint32_t srcRank,
                 uint32_t dstRank,
                 uint64_t size,
                 uint64_t tag,
                 RdmaCompletionCallback onSent,
                 RdmaCompletionCallback onReceived,
                 uint32_t connection,
                 RdmaCompletionCallback onFailed) const
{
    return GetTransport(srcRank)
        ->PostMessage(dstRank, size, tag, onSent, onReceived, connection, onFailed);
}

RdmaTransport::Stats
RdmaHelper::GetTotals() const
{
    RdmaTransport::Stats sum;
    for (uint32_t rank = 0; rank < GetNRanks(); ++rank)
    {
        const RdmaTransport::Stats& s = m_table->transports[rank]->GetStats();
        sum.messagesPosted += s.messagesPosted;
        sum.messagesSent += s.messagesSent;
        sum.messagesReceived += s.messagesReceived;
        sum.bytesPosted += s.bytesPosted;
        sum.bytesDelivered += s.bytesDelivered;
        sum.dataPacketsSent += s.dataPacketsSent;
        sum.retransmittedPackets += s.retransmittedPackets;
        sum.timeouts += s.timeouts;
        sum.acksSent += s.acksSent;
        sum.naksSent += s.naksSent;
        sum.acksReceived += s.acksReceived;
        sum.naksReceived += s.naksReceived;
        sum.duplicatesReceived += s.duplicatesReceived;
        sum.outOfOrderDropped += s.outOfOrderDropped;
        sum.outOfOrderPlaced += s.outOfOrderPlaced;
        sum.cnpsSent += s.cnpsSent;
        sum.cnpsReceived += s.cnpsReceived;
        sum.ceReceived += s.ceReceived;
        sum.qpFailures += s.qpFailures;
        sum.messagesFailed += s.messagesFailed;
        sum.bytesFailed += s.bytesFailed;
        sum.malformedDropped += s.malformedDropped;
    }
    return sum;
}

void
RdmaHelper::StopWhenStalled()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(!m_table, "RdmaHelper: StopWhenStalled before Install");
    const auto check =
        MakeBoundCallback(&RdmaHelper::CheckStalled,
                          static_cast<const RdmaTransport::RankTable*>(m_table.get()));
    for (const auto& transport : m_table->transports)
    {
        transport->TraceConnectWithoutContext("MessageSent", check);
        transport->TraceConnectWithoutContext("MessageFailed", check);
    }
}

void
RdmaHelper::CheckStalled(const RdmaTransport::RankTable* table, const RdmaCompletion&)
{
    uint64_t posted = 0;
    uint64_t done = 0;
    uint64_t failed = 0;
    for (const auto& transport : table->transports)
    {
        const RdmaTransport::Stats& s = transport->GetStats();
        posted += s.messagesPosted;
        done += s.messagesSent + s.messagesFailed;
        failed += s.messagesFailed;
    }
    if (failed > 0 && done == posted)
    {
        NS_LOG_LOGIC("every message completed or given up (" << failed
                                                             << " given up): the run stops");
        Simulator::Stop();
    }
}

std::string
RdmaHelper::DescribeFailures(const RdmaTransport::Stats& totals)
{
    if (totals.messagesFailed == 0 && totals.qpFailures == 0)
    {
        return "";
    }
    std::ostringstream text;
    text << totals.qpFailures << " queue pair" << (totals.qpFailures == 1 ? "" : "s")
         << " failed (RdmaTransport::RetryLimit retransmission timeouts without progress; "
         << totals.timeouts << " timeouts in all): " << totals.messagesFailed << " message"
         << (totals.messagesFailed == 1 ? "" : "s") << " (" << totals.bytesFailed
         << " B) could not be delivered";
    return text.str();
}

} // namespace ns3
