/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_ETHERNET_CLOS_HELPER_H
#define AI_FABRIC_ETHERNET_CLOS_HELPER_H

#include "ns3/cluster-fabric-helper.h"
#include "ns3/ethernet-switch.h"
#include "ns3/object-factory.h"
#include "ns3/roce-channel.h"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Builds the standard Ethernet Clos (hosts, leaf and spine EthernetSwitches,
 * links, addresses, routes) from a ClusterDescription: the baseline the scheduled
 * fabric is compared with.
 *
 * Hosts and host links are built as ClusterFabricHelper describes. Every leaf-spine
 * pair gets linksPerLeafSpine RoceChannels between RoceNetDevices. Each leaf and
 * spine gets an EthernetSwitch with a SharedBufferMmu (aggregated to its node);
 * a leaf routes its own hosts to their host ports and every other host over all of
 * its uplinks, a spine routes each host over its links to that host's leaf.
 *
 * Tracing: pcap and ascii on every link (all carry Ethernet frames).
 */
class EthernetClosHelper : public ClusterFabricHelper
{
  public:
    /**
     * Fabric-wide totals (sums over all switches), with what the conservation of
     * packets needs: every offered packet is delivered, still queued in a switch,
     * or dropped for a counted reason (GetDroppedPackets, GetUnaccountedPackets).
     * The receive error models of the RoceNetDevices count too: a packet a leaf host
     * port's model took was offered and dropped there, one a host NIC's took was
     * delivered by the leaf and dropped at the NIC (deliveredPackets is what the
     * host NICs accepted), one a fabric port's took was dropped between switches.
     */
    struct Totals
    {
        uint64_t offeredPackets{0};          //!< packets from hosts into leaves
        uint64_t offeredBytes{0};            //!< their frame bytes
        uint64_t deliveredPackets{0};        //!< packets from leaves to hosts, not lost at the NIC
        uint64_t deliveredBytes{0};          //!< their frame bytes
        uint64_t droppedPackets{0};          //!< dropped by any switch (buffer, route or link down)
        uint64_t droppedBytes{0};            //!< their frame bytes
        uint64_t bufferDrops{0};             //!< of those: the buffer (or PFC headroom) was full
        uint64_t noRouteDrops{0};            //!< of those: no route to the destination
        uint64_t linkDownDrops{0};           //!< of those: sent towards a link known to be down
        uint64_t headroomDrops{0};           //!< lossless packets beyond PFC headroom
        uint64_t queuedPackets{0};           //!< still buffered in switches
        uint64_t queuedBytes{0};             //!< their frame bytes
        uint64_t inTransitPackets{0};        //!< sent by a switch to another, not yet received
        uint64_t ecnMarked{0};               //!< packets marked CE
        uint64_t pfcPauses{0};               //!< pauses sent by switches
        uint64_t pfcResumes{0};              //!< resumes sent by switches
        uint64_t bufferHighWater{0};         //!< largest switch buffer use, bytes
        uint64_t linkLostFrames{0};          //!< frames lost on failed leaf-spine links
        uint64_t linkLostPackets{0};         //!< of those, packets (PFC frames aside)
        uint64_t hostNicErrorDropPackets{0}; //!< taken by host NICs' receive error models
        uint64_t leafPortErrorDropPackets{0};   //!< taken by leaf host ports' error models
        uint64_t fabricPortErrorDropPackets{0}; //!< taken by leaf-spine ports' error models

        /// \return packets dropped anywhere, counted: by switches, on failed links
        ///         and by error models
        uint64_t GetDroppedPackets() const;
        /// \return offered - delivered - queued - in transit - dropped packets (0
        ///         when every one is counted)
        int64_t GetUnaccountedPackets() const;
    };

    EthernetClosHelper();

    /// \param name attribute of the leaf EthernetSwitches \param value its value
    void SetLeafAttribute(const std::string& name, const AttributeValue& value);
    /// \param name attribute of the spine EthernetSwitches \param value its value
    void SetSpineAttribute(const std::string& name, const AttributeValue& value);
    /// \param name attribute of every switch \param value its value
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);
    /// \param name attribute of every SharedBufferMmu \param value its value
    void SetMmuAttribute(const std::string& name, const AttributeValue& value);

    /// \param leaf index \return its switch
    Ptr<EthernetSwitch> GetLeaf(uint32_t leaf) const;
    /// \param spine index \return its switch
    Ptr<EthernetSwitch> GetSpine(uint32_t spine) const;
    /// \return every leaf-spine link device (leaf and spine ends)
    const NetDeviceContainer& GetFabricDevices() const;
    /**
     * \param leaf leaf index \param spine spine index \param link parallel link index
     * \return the link
     */
    Ptr<RoceChannel> GetFabricChannel(uint32_t leaf, uint32_t spine, uint32_t link) const;
    /**
     * \param leaf leaf index \param spine spine index \param link parallel link index
     * \return the leaf's port index of that link
     */
    uint32_t GetLeafUplinkPort(uint32_t leaf, uint32_t spine, uint32_t link) const;

    void SetFabricLinkErrorModel(uint32_t leaf,
                                 uint32_t spine,
                                 uint32_t link,
                                 Ptr<ErrorModel> em) override;

    /**
     * Fail (or restore) a leaf-spine link after a delay. Frames on the wire and
     * sent into it while it is down are lost (counted). The two switches at its ends
     * stop (resume) routing over it after their LinkDetectionDelay, and drop what
     * they had queued for it. If the spine loses its last link to the leaf, the
     * other leaves keep sending it that leaf's traffic, which it drops for want of
     * a route, until the spine's withdrawal has spread (RouteWithdrawDelay after it
     * noticed); then every leaf routes over the spines that still reach each leaf
     * (and back, the same way, when the link returns).
     * \param leaf leaf index \param spine spine index \param link parallel link
     * \param at delay from now (as Simulator::Schedule; not negative)
     * \param up new state
     */
    void ScheduleLinkState(uint32_t leaf, uint32_t spine, uint32_t link, Time at, bool up) override;

    /// \return totals over the whole fabric
    Totals GetTotals() const;

    /// Write every counter of every switch and switch port. \param os the stream
    void WriteStats(std::ostream& os) const override;

    /**
     * Fix the random streams used (ECN marking).
     * \param stream first stream
     * \return streams used
     */
    int64_t AssignStreams(int64_t stream) override;

  private:
    const char* GetFabricName() const override;
    void CreateSwitches() override;
    void AddHostPort(uint32_t host, Ptr<RoceNetDevice> port) override;
    void CreateFabricLinks() override;
    /**
     * \param leaf leaf index \param spine spine index \param link parallel link
     * \return the index of a leaf-spine link in Topology::channels (stops if there is none)
     */
    uint32_t GetLinkIndex(uint32_t leaf, uint32_t spine, uint32_t link) const;

    /// What the leaves' routes are computed from; shared with scheduled route updates,
    /// so they need not outlive the helper.
    struct Topology
    {
        ClusterDescription cluster;              //!< the cluster
        std::vector<Ptr<EthernetSwitch>> leaves; //!< per leaf
        std::vector<Ptr<RoceChannel>> channels;  //!< (leaf, spine, link) order
        std::vector<uint32_t> leafUplinkPorts;   //!< leaf port of each channel
        std::vector<Ptr<EthernetSwitch>> spines; //!< per spine
        std::vector<uint32_t> spineDownPorts;    //!< spine port of each channel
    };

    /// Route every leaf's traffic for every remote host over its uplinks to the
    /// spines that advertise a link to that host's leaf (all uplinks if none does);
    /// each leaf itself stops using an uplink whose link it has noticed down.
    /// \param topology the leaves, spines and their links
    static void UpdateLeafRoutes(const std::shared_ptr<const Topology>& topology);
    /// \param factory switch factory \return a switch with its MMU
    Ptr<EthernetSwitch> CreateSwitch(const ObjectFactory& factory) const;

    ObjectFactory m_leafFactory;                                        //!< leaf EthernetSwitch
    ObjectFactory m_spineFactory;                                       //!< spine EthernetSwitch
    ObjectFactory m_mmuFactory;                                         //!< SharedBufferMmu
    NetDeviceContainer m_fabricDevs;                                    //!< leaf-spine link devices
    std::shared_ptr<Topology> m_topology{std::make_shared<Topology>()}; //!< leaves, links
};

} // namespace ns3

#endif /* AI_FABRIC_ETHERNET_CLOS_HELPER_H */
