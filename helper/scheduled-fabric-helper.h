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

#include <functional>
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
    /**
     * Fabric-wide totals (sums over all leaves, spines and fabric links), with
     * everything the conservation of packets and bytes needs: every offered
     * packet is delivered, queued in one place, or dropped for a counted reason.
     * Bytes are IPv4 packet bytes; a packet lost in the fabric is counted in
     * bytes where each of its cells went (lost on a link, dropped at a spine,
     * discarded at reassembly, or held at reassembly when it timed out) and in
     * packets once, as a reassembly timeout. The host links' receive error models
     * count too: a packet a leaf host port's model took was offered and dropped
     * there, one a host NIC's took was delivered by the leaf and dropped at the NIC
     * (deliveredPackets is what the host NICs accepted).
     */
    struct Totals
    {
        uint64_t offeredPackets{0};   //!< packets from hosts into leaves
        uint64_t offeredBytes{0};     //!< their bytes
        uint64_t deliveredPackets{0}; //!< packets from leaves to hosts, not lost at the NIC
        uint64_t deliveredBytes{0};   //!< their bytes
        // Queued now
        uint64_t queuedPackets{0};          //!< in VOQs
        uint64_t queuedBytes{0};            //!< in VOQs
        uint64_t transmitPendingPackets{0}; //!< partly cut into cells, waiting for room
        uint64_t transmitPendingBytes{0};   //!< their bytes not yet in cells
        uint64_t fabricPackets{0};          //!< sent into the fabric, not yet released or given up
        uint64_t linkBytes{0};              //!< in data cells queued at or crossing fabric links
        uint64_t reassemblyPackets{0};      //!< held at reassembly
        uint64_t reassemblyBytes{0};        //!< their bytes received so far
        // Dropped
        uint64_t voqDropPackets{0};          //!< dropped by a full VOQ buffer
        uint64_t voqDropBytes{0};            //!< their bytes
        uint64_t egressDropPackets{0};       //!< refused by a leaf host port
        uint64_t egressDropBytes{0};         //!< their bytes
        uint64_t unroutablePackets{0};       //!< no route
        uint64_t unroutableBytes{0};         //!< their bytes
        uint64_t reassemblyTimeouts{0};      //!< packets given up at reassembly
        uint64_t reassemblyTimeoutBytes{0};  //!< their bytes that had arrived
        uint64_t reassemblyNoticeDrops{0};   //!< of the packets given up, on a path-loss notice
        uint64_t linkLostCells{0};           //!< cells lost on failed links
        uint64_t linkLostBytes{0};           //!< packet bytes in them
        uint64_t linkCorruptedCells{0};      //!< cells dropped corrupted (link error models)
        uint64_t linkCorruptedBytes{0};      //!< packet bytes in them
        uint64_t spineDroppedCells{0};       //!< cells dropped at spines
        uint64_t spineDroppedBytes{0};       //!< packet bytes in them
        uint64_t beyondWindowCells{0};       //!< discarded at reassembly: beyond the reorder window
        uint64_t beyondWindowBytes{0};       //!< their bytes
        uint64_t lateCells{0};               //!< discarded at reassembly: packet given up
        uint64_t lateBytes{0};               //!< their bytes
        uint64_t duplicateCells{0};          //!< discarded at reassembly: packet complete
        uint64_t duplicateBytes{0};          //!< their bytes
        uint64_t noPathCells{0};             //!< control cells with no link towards their leaf
        uint64_t hostNicErrorDropPackets{0}; //!< taken by host NICs' receive error models
        uint64_t hostNicErrorDropBytes{0};   //!< their bytes
        uint64_t leafPortErrorDropPackets{0}; //!< taken by leaf host ports' receive error models
        uint64_t leafPortErrorDropBytes{0};   //!< their bytes
        // Credit and flow control
        uint64_t dataCells{0};            //!< data cells sprayed
        uint64_t grantedBytes{0};         //!< credit granted by all schedulers
        uint64_t dequeuedBytes{0};        //!< bytes dequeued from all VOQs
        int64_t waitingCreditBytes{0};    //!< credit balance left at VOQs (may be < 0)
        uint64_t windowStalls{0};         //!< grants held back by credit windows
        uint64_t writtenOffBytes{0};      //!< credit written off after WindowTimeout
        uint64_t transmitStalls{0};       //!< packets that waited for fabric-port room
        uint64_t fabricPortHighWater{0};  //!< largest leaf fabric-port queue, bytes
        uint64_t fabricPortQueueLimit{0}; //!< the smallest leaf fabric-port queue limit, bytes
        uint64_t spineQueueHighWater{0};  //!< largest spine output queue, bytes
        uint64_t spineQueueLimit{0};      //!< the smallest spine output queue limit, bytes
        uint64_t voqPauses{0};            //!< PFC pauses requested by VOQ buffers
        uint64_t requestRefreshes{0};     //!< requests repeated by credit watchdogs
        uint64_t grantRefreshes{0};       //!< grants repeated by schedulers

        /**
         * Visit every total by name (for CSV and JSON output).
         * \param visit called with each name and value
         */
        void ForEach(const std::function<void(const char*, int64_t)>& visit) const;
        /// \return packets dropped anywhere, counted
        uint64_t GetDroppedPackets() const;
        /// \return bytes dropped anywhere, counted
        uint64_t GetDroppedBytes() const;
        /// \return offered - delivered - queued - dropped packets (0 when every one is counted)
        int64_t GetUnaccountedPackets() const;
        /// \return offered - delivered - queued - dropped bytes (0 when every one is counted)
        int64_t GetUnaccountedBytes() const;
    };

    ScheduledFabricHelper();

    /// \param name attribute of ScheduledLeafSwitch \param value its value
    void SetLeafAttribute(const std::string& name, const AttributeValue& value);
    /// \param name attribute of CellSpineSwitch \param value its value
    void SetSpineAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \param name attribute of CellNetDevice, both ends of every leaf-spine link
     *        (its DataRate is the cluster's fabric link rate whatever is set here)
     * \param value its value
     */
    void SetFabricDeviceAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \param type the TypeId name of the leaf-spine links' channel: ns3::CellChannel
     *        (the default) or a subclass (a link whose ends are in different
     *        processes of a distributed run is always a CellRemoteChannel)
     */
    void SetFabricChannelType(const std::string& type);
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

    void SetFabricLinkErrorModel(uint32_t leaf,
                                 uint32_t spine,
                                 uint32_t link,
                                 Ptr<ErrorModel> em) override;

    /**
     * Fail (or restore) a fabric link after a delay.
     * \param leaf leaf index \param spine spine index \param link parallel link
     * \param at delay from now (as Simulator::Schedule; not negative)
     * \param up new state
     */
    void ScheduleLinkState(uint32_t leaf, uint32_t spine, uint32_t link, Time at, bool up) override;

    /// \return totals over the whole fabric
    Totals GetTotals() const;

    /**
     * The fabric's goodput bound per host when every leaf sends and receives
     * packets of one size at the same rate (a permutation or an all-to-all of
     * long flows), from the cell arithmetic and the control cells: a leaf's
     * fabric links carry, per packet of P bytes, its cells (P + ceil(P / CellPayload)
     * x CellHeader bytes, or padded cells) and, for the traffic it receives, one
     * grant cell of ControlCellSize per CreditSize (or GrantBatch) granted, plus
     * one request cell per RequestInterval per busy VOQ (one VOQ per host):
     *
     *   bound = (links x rate - hosts x ControlCellSize x 8 / RequestInterval)
     *           / (hosts x (wire(P) / P + ControlCellSize / grantBytes))
     *
     * in IPv4 packet bits per second per host. Call after Install.
     * \param packetSize IPv4 packet bytes
     * \param usableLinks fabric links per leaf in use (0: all of them)
     * \return the bound, bit/s of packet bytes per host
     */
    double GetFabricBound(uint32_t packetSize, uint32_t usableLinks = 0) const;

    /**
     * The goodput bound of the fabric links into one leaf that only receives
     * (an incast into it): its links carry the cells of each packet,
     *
     *   bound = links x rate x P / wire(P),
     *
     * in IPv4 packet bits per second for the whole leaf. Call after Install.
     * \param packetSize IPv4 packet bytes
     * \param usableLinks the leaf's fabric links in use (0: all of them)
     * \return the bound, bit/s of packet bytes into the leaf
     */
    double GetIncastBound(uint32_t packetSize, uint32_t usableLinks = 0) const;

    /// Write every counter of every leaf, host port scheduler, spine and fabric link.
    /// \param os the stream
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
    /**
     * \param leafEnd the leaf's end of a link \param spineEnd the spine's end
     * \return a new channel for it: a CellRemoteChannel, with an MpiReceiver on
     *         each end, if the two are in different processes
     */
    Ptr<CellChannel> CreateChannel(Ptr<CellNetDevice> leafEnd, Ptr<CellNetDevice> spineEnd) const;
    void EnableAsciiFabricDevice(Ptr<OutputStreamWrapper> stream, Ptr<NetDevice> device) override;

    ObjectFactory m_leafFactory;                          //!< ScheduledLeafSwitch
    ObjectFactory m_spineFactory;                         //!< CellSpineSwitch
    ObjectFactory m_voqFactory;                           //!< VoqQueueDisc
    ObjectFactory m_schedulerFactory;                     //!< CreditScheduler
    ObjectFactory m_fabricDeviceFactory;                  //!< CellNetDevice
    ObjectFactory m_fabricChannelFactory;                 //!< CellChannel
    NetDeviceContainer m_fabricDevs;                      //!< fabric devices
    std::vector<Ptr<ScheduledLeafSwitch>> m_leafSwitches; //!< per leaf
    std::vector<Ptr<CellSpineSwitch>> m_spineSwitches;    //!< per spine
    std::vector<Ptr<CellChannel>> m_channels;             //!< (leaf, spine, link) in that order
};

} // namespace ns3

#endif /* AI_FABRIC_SCHEDULED_FABRIC_HELPER_H */
