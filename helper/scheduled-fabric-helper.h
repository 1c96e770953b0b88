/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_SCHEDULED_FABRIC_HELPER_H
#define AI_FABRIC_SCHEDULED_FABRIC_HELPER_H

#include "ns3/cell-channel.h"
#include "ns3/cell-spine-switch.h"
#include "ns3/cluster-fabric-helper.h"
#include "ns3/object-factory.h"
#include "ns3/scheduled-leaf-switch.h"

#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Builds a scheduled fabric (hosts, leaves, spines, links, addresses) from
 * a ClusterDescription.
 *
 * Hosts and host links are built as ClusterFabricHelper describes. Every
 * leaf-spine pair gets linksPerLeafSpine FabricChannels. Leaves get a
 * ScheduledLeafSwitch, a VoqQueueDisc and one CreditScheduler per host port;
 * spines a CellSpineSwitch (each aggregated to its node). Attributes of each
 * kind of object are set through the Set*Attribute methods.
 *
 * Tracing: pcap (Ethernet frames) on host links; ascii on host links (frames)
 * and fabric links (one line per cell sent, received or lost).
 */
class ScheduledFabricHelper : public ClusterFabricHelper
{
  public:
    /// Fabric-wide totals (sums over all leaves, spines and fabric links).
    struct Totals
    {
        uint64_t offeredPackets{0};         //!< packets from hosts into leaves
        uint64_t offeredBytes{0};           //!< their bytes
        uint64_t deliveredPackets{0};       //!< packets from leaves to hosts
        uint64_t deliveredBytes{0};         //!< their bytes
        uint64_t voqDropPackets{0};         //!< dropped by a full VOQ buffer
        uint64_t voqDropBytes{0};           //!< their bytes
        uint64_t egressDropPackets{0};      //!< refused by a leaf host port
        uint64_t egressDropBytes{0};        //!< their bytes
        uint64_t unroutablePackets{0};      //!< no route
        uint64_t unroutableBytes{0};        //!< their bytes
        uint64_t reassemblyTimeouts{0};     //!< given up at reassembly
        uint64_t reassemblyTimeoutBytes{0}; //!< their bytes, where a cell of them arrived
        uint64_t spineDroppedCells{0};      //!< dropped at spines
        uint64_t linkLostCells{0};          //!< lost on failed links
        uint64_t noPathCells{0};            //!< no fabric link towards their leaf
        uint64_t dataCells{0};              //!< data cells sprayed
        uint64_t grantedBytes{0};           //!< credit granted by all schedulers
        uint64_t dequeuedBytes{0};          //!< bytes dequeued from all VOQs
        int64_t waitingCreditBytes{0};      //!< credit balance left at VOQs (may be < 0)
        uint64_t queuedBytes{0};            //!< bytes still in VOQs
        uint64_t spineQueueHighWater{0};    //!< largest spine output queue, bytes
        uint64_t voqPauses{0};              //!< PFC pauses requested by VOQ buffers
        uint64_t requestRefreshes{0};       //!< requests repeated by credit watchdogs
        uint64_t grantRefreshes{0};         //!< grants repeated by schedulers

        /// \return packets dropped anywhere, counted
        uint64_t GetDroppedPackets() const;
        /// \return bytes of dropped packets (a packet of which no cell reached
        /// reassembly is counted in packets only: the egress never saw its size)
        uint64_t GetDroppedBytes() const;
    };

    ScheduledFabricHelper();

    /// \param name attribute of ScheduledLeafSwitch \param value its value
    void SetLeafAttribute(const std::string& name, const AttributeValue& value);
    /// \param name attribute of CellSpineSwitch \param value its value
    void SetSpineAttribute(const std::string& name, const AttributeValue& value);
    /// \param name attribute of VoqQueueDisc \param value its value
    void SetVoqAttribute(const std::string& name, const AttributeValue& value);
    /// \param name attribute of CreditScheduler \param value its value
    void SetSchedulerAttribute(const std::string& name, const AttributeValue& value);
    /// \return every fabric device (leaf and spine ends)
    const NetDeviceContainer& GetFabricDevices() const;
    /// \param leaf index \return its switch
    Ptr<ScheduledLeafSwitch> GetLeaf(uint32_t leaf) const;
    /// \param spine index \return its switch
    Ptr<CellSpineSwitch> GetSpine(uint32_t spine) const;
    /**
     * \param leaf leaf index \param spine spine index \param link parallel link index
     * \return the link
     */
    Ptr<CellChannel> GetFabricChannel(uint32_t leaf, uint32_t spine, uint32_t link) const;

    /**
     * Fail (or restore) a fabric link after a delay.
     * \param leaf leaf index \param spine spine index \param link parallel link
     * \param at delay from now (as Simulator::Schedule; not negative)
     * \param up new state
     */
    void ScheduleLinkState(uint32_t leaf, uint32_t spine, uint32_t link, Time at, bool up);

    /// \return totals over the whole fabric
    Totals GetTotals() const;

    /// Write every counter of every leaf, host port scheduler, spine and fabric link.
    void WriteStats(std::ostream& os) const override;

    /**
     * Fix the random streams used (spraying).
     * \param stream first stream
     * \return streams used
     */
    int64_t AssignStreams(int64_t stream) override;

  private:
    const char* GetFabricName() const override;
    void CreateSwitches() override;
    void AddHostPort(uint32_t host, Ptr<RoceNetDevice> port) override;
    void CreateFabricLinks() override;
    void EnableAsciiFabricDevice(Ptr<OutputStreamWrapper> stream, Ptr<NetDevice> device) override;

    ObjectFactory m_leafFactory;                          //!< ScheduledLeafSwitch
    ObjectFactory m_spineFactory;                         //!< CellSpineSwitch
    ObjectFactory m_voqFactory;                           //!< VoqQueueDisc
    ObjectFactory m_schedulerFactory;                     //!< CreditScheduler
    NetDeviceContainer m_fabricDevs;                      //!< fabric devices
    std::vector<Ptr<ScheduledLeafSwitch>> m_leafSwitches; //!< per leaf
    std::vector<Ptr<CellSpineSwitch>> m_spineSwitches;    //!< per spine
    std::vector<Ptr<CellChannel>> m_channels;             //!< (leaf, spine, link) in that order
};

} // namespace ns3

#endif /* AI_FABRIC_SCHEDULED_FABRIC_HELPER_H */
