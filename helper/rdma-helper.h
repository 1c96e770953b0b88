/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_RDMA_HELPER_H
#define AI_FABRIC_RDMA_HELPER_H

#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-transport.h"

#include <memory>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Installs one RdmaTransport per host, aggregated to the host's node, and
 * assigns ranks in installation order (rank i = the i-th host or NIC given).
 *
 * Each host's RoCE address is read from its RoceNetDevice's Ipv4Address attribute
 * (set by the fabric builder); a missing or repeated address stops the simulation.
 */
class RdmaHelper
{
  public:
    RdmaHelper();

    /**
     * Set an attribute of every transport created afterwards.
     * \param name attribute name (of ns3::RdmaTransport)
     * \param value its value
     */
    void SetTransportAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Set an attribute of the congestion control of every queue pair of the
     * transports created afterwards (RdmaTransport::SetCongestionControlAttribute),
     * after its CongestionControl attribute: SetCongestionControlAttribute("MinRate",
     * DataRateValue(DataRate("1Gbps"))) for DCQCN.
     * \param name attribute of the congestion control's TypeId \param value its value
     */
    void SetCongestionControlAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Find a congestion control by a short name or a TypeId name: "None" is
     * ns3::RdmaCongestionControl (the line rate), "Dcqcn" ns3::DcqcnCongestionControl,
     * and any RdmaCongestionControl subclass by its TypeId name.
     * \param name the name \param tid set to the TypeId if found
     * \return whether it names a congestion control
     */
    static bool LookupCongestionControl(const std::string& name, TypeId* tid);

    /**
     * Install on hosts; each host's NIC is its first RoceNetDevice.
     * \param hosts rank i = hosts.Get(i)
     */
    void Install(const NodeContainer& hosts);
    /**
     * Install on explicit NICs (one per host).
     * \param nics rank i = the node of nics.Get(i), using that RoceNetDevice
     */
    void Install(const NetDeviceContainer& nics);

    /// \return the number of ranks installed
    uint32_t GetNRanks() const;
    /// \param rank rank \return its transport (an unknown rank stops the simulation)
    Ptr<RdmaTransport> GetTransport(uint32_t rank) const;

    /**
     * Post a message between two ranks (shorthand for GetTransport(src)->PostMessage).
     * \param srcRank sending rank
     * \param dstRank receiving rank
     * \param size bytes (>= 1)
     * \param tag application tag
     * \param onSent sender completion (may be null)
     * \param onReceived receiver completion (may be null)
     * \param connection queue pair between the two ranks (see RdmaTransport::PostMessage)
     * \param onFailed called at the sender if the message is given up (its queue pair
     *        failed; may be null)
     * \return the message id
     */
    uint64_t Post(uint32_t srcRank,
                  uint32_t dstRank,
                  uint64_t size,
                  uint64_t tag,
                  RdmaCompletionCallback onSent,
                  RdmaCompletionCallback onReceived = RdmaCompletionCallback(),
                  uint32_t connection = 0,
                  RdmaCompletionCallback onFailed = RdmaCompletionCallback()) const;

    /// \return every counter of RdmaTransport::Stats summed over the ranks installed
    RdmaTransport::Stats GetTotals() const;

    /**
     * Stop the simulation as soon as nothing posted can progress any more: every
     * message posted on the transports installed has completed at its sender or has
     * been given up (RdmaTransport::MessageFailed), and at least one has been given
     * up. For programs that post all their messages up front and wait for them; a
     * run in which no message fails ends as it would without this. Call after
     * Install.
     */
    void StopWhenStalled();

    /**
     * \param totals counters summed over the ranks (GetTotals)
     * \return why the messages that were given up were, in one line ("" if none was):
     *         how many queue pairs failed after how many timeouts, and how many
     *         messages and bytes could not be delivered
     */
    static std::string DescribeFailures(const RdmaTransport::Stats& totals);

  private:
    /// Stop the simulation if every message is done or given up, and one given up.
    /// \param table the ranks watched
    static void CheckStalled(const RdmaTransport::RankTable* table, const RdmaCompletion&);

    ObjectFactory m_factory; //!< transport factory
    /// congestion-control attributes for every transport
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_ccAttributes;
    std::shared_ptr<RdmaTransport::RankTable> m_table; //!< ranks installed by this helper
};

} // namespace ns3

#endif /* AI_FABRIC_RDMA_HELPER_H */
