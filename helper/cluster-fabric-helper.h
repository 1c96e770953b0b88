/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CLUSTER_FABRIC_HELPER_H
#define AI_FABRIC_CLUSTER_FABRIC_HELPER_H

#include "ns3/cluster-description.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/roce-net-device.h"
#include "ns3/trace-helper.h"

#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief What every fabric builder shares: the nodes of a ClusterDescription, the
 * host links, and the host side that applications and the RDMA transport see.
 *
 * Install() creates the host, leaf and spine nodes, lets the fabric create its
 * switches, links every host h to leaf h / hostsPerLeaf with a RoceChannel between
 * two RoceNetDevices (the host's NIC and the leaf's host port, both carrying the
 * host's address ClusterDescription::GetHostAddress(h) as their Ipv4Address), then
 * lets the fabric build its leaf-spine links. Applications see only hosts and NICs,
 * so they run unchanged on any fabric.
 *
 * pcap (DLT_EN10MB) and ascii traces work on every RoceNetDevice; a fabric adds
 * ascii tracing of its own devices.
 */
class ClusterFabricHelper : public PcapHelperForDevice, public AsciiTraceHelperForDevice
{
  public:
    /**
     * Packets (every frame but PFC) that the receive error models
     * (RoceNetDevice::ReceiveErrorModel) of the host links' devices took, by place:
     * frame bytes, Ethernet header included.
     */
    struct HostLinkErrorDrops
    {
        uint64_t hostNicPackets{0};      //!< at host NICs: frames from their leaf
        uint64_t hostNicBytes{0};        //!< their bytes
        uint64_t leafHostPortPackets{0}; //!< at leaf host ports: frames from their host
        uint64_t leafHostPortBytes{0};   //!< their bytes
    };

    ClusterFabricHelper();
    ~ClusterFabricHelper() override;

    /// \param name attribute of the RoceNetDevices the helper creates \param value its value
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Build the fabric. Stops with a message naming the field if the description
     * is impossible.
     * \param cluster the cluster
     */
    void Install(const ClusterDescription& cluster);

    /**
     * Split the cluster over the processes of a distributed run on ns-3's MPI
     * engine (set before Install). Leaf l and its hosts go to process
     * l * partitions / leaves, spine s to process s * partitions / spines; every
     * leaf-spine link whose ends are in different processes becomes a remote
     * channel (RoceRemoteChannel on the Ethernet Clos, CellRemoteChannel on the
     * scheduled fabric, which sends its cells and each spine's flow-control
     * indications as messages), whose propagation delay is the lookahead. Every
     * process builds the whole cluster; each runs only what happens on its own
     * nodes, so applications go on its own hosts only (IsLocalHost). 1, the
     * default, is a sequential run. More needs ns-3 built with MPI
     * (--enable-mpi), MpiInterface enabled with exactly that many processes, no
     * more partitions than leaves and a positive fabric link delay; Install stops
     * with a message otherwise.
     * \param partitions processes, at least 1
     */
    void SetPartitions(uint32_t partitions);
    /// \return the processes the cluster is split over
    uint32_t GetPartitions() const;
    /// \param host index \return whether this process runs that host (always, when sequential)
    bool IsLocalHost(uint32_t host) const;

    /// \return the cluster built
    const ClusterDescription& GetCluster() const;
    /// \return host nodes, in host order
    const NodeContainer& GetHosts() const;
    /// \return leaf nodes
    const NodeContainer& GetLeaves() const;
    /// \return spine nodes
    const NodeContainer& GetSpines() const;
    /// \return host NICs, in host order
    const NetDeviceContainer& GetHostDevices() const;
    /// \return leaf host ports, in host order
    const NetDeviceContainer& GetLeafHostDevices() const;
    /// \param host index \return its NIC
    Ptr<RoceNetDevice> GetHostDevice(uint32_t host) const;
    /// \return the packets the host links' receive error models took, by place
    HostLinkErrorDrops GetHostLinkErrorDrops() const;

    /**
     * Write every counter of the fabric, one "element,index,counter,value" line
     * each (CSV with a header line).
     * \param os the stream
     */
    virtual void WriteStats(std::ostream& os) const = 0;

    /**
     * Fail (or restore) a leaf-spine link after a delay; each fabric says how it
     * notices and routes around it.
     * \param leaf leaf index \param spine spine index \param link parallel link
     * \param at delay from now (as Simulator::Schedule; not negative)
     * \param up new state
     */
    virtual void ScheduleLinkState(uint32_t leaf,
                                   uint32_t spine,
                                   uint32_t link,
                                   Time at,
                                   bool up) = 0;

    /**
     * Slow a host's NIC: from a time on, it transmits at a fraction of the cluster's
     * host link rate (a degraded NIC or PCIe link; the leaf still sends to it at the
     * link rate). Stops with a message naming a bad host, fraction or time.
     * \param host host index
     * \param fraction of hostLinkRate, in (0, 1] (1 restores it)
     * \param at delay from now (as Simulator::Schedule; not negative)
     */
    void ScheduleNicSlowdown(uint32_t host, double fraction, Time at);

    /**
     * Lose frames on one host link: the error model judges every frame either end
     * receives (the host's NIC and its leaf port), so the link loses both ways; no
     * other link does (RoceNetDevice::ReceiveErrorModel as an attribute default
     * would put it on every NIC). Call after Install.
     * \param host host index (stops on one not in the cluster)
     * \param em the error model (e.g. a RateErrorModel per packet)
     */
    void SetHostLinkErrorModel(uint32_t host, Ptr<ErrorModel> em);

    /**
     * Lose frames (or, on the scheduled fabric, cells) on one leaf-spine link, both
     * ways, and on no other link: both ends judge what they receive with the error
     * model. Call after Install.
     * \param leaf leaf index \param spine spine index \param link parallel link
     * \param em the error model
     */
    virtual void SetFabricLinkErrorModel(uint32_t leaf,
                                         uint32_t spine,
                                         uint32_t link,
                                         Ptr<ErrorModel> em) = 0;

    /**
     * Fix the random streams the fabric uses: its switches', then those of the
     * receive error models of its RoceNetDevices (AssignErrorModelStreams).
     * \param stream first stream
     * \return streams used
     */
    virtual int64_t AssignStreams(int64_t stream) = 0;

  protected:
    /// \return the fabric's name, for messages
    virtual const char* GetFabricName() const = 0;
    /// Create the leaf and spine switches (nodes exist).
    virtual void CreateSwitches() = 0;
    /**
     * Give a leaf the host port of a host.
     * \param host dense host index \param port the leaf's RoceNetDevice (attached)
     */
    virtual void AddHostPort(uint32_t host, Ptr<RoceNetDevice> port) = 0;
    /// Create the leaf-spine links (host links exist).
    virtual void CreateFabricLinks() = 0;
    /**
     * Ascii tracing of a device that is not a RoceNetDevice (default: none).
     * \param stream the stream \param device the device
     */
    virtual void EnableAsciiFabricDevice(Ptr<OutputStreamWrapper> stream, Ptr<NetDevice> device);

    /**
     * \param rate line rate
     * \return a new RoceNetDevice from the device attributes, with a fresh MAC address
     */
    Ptr<RoceNetDevice> CreateDevice(DataRate rate) const;

    /**
     * Fix the streams of the random variables of the receive error models of every
     * RoceNetDevice created (each model once, in the order the devices were made:
     * every RandomVariableStream its attributes point to). A model given as an
     * attribute default is made while the command line is read, before --RngRun may
     * have been read: its draws then follow RngRun and the stream given here,
     * whatever the order of the options.
     * \param stream first stream
     * \param others more devices with a ReceiveErrorModel attribute, after the
     *        RoceNetDevices (the scheduled fabric's CellNetDevices)
     * \return streams used
     */
    int64_t AssignErrorModelStreams(int64_t stream,
                                    const NetDeviceContainer& others = NetDeviceContainer());

    /**
     * Connect two devices (already on their nodes) with a wire: a RoceChannel, or a
     * RoceRemoteChannel with an MpiReceiver on each end if the nodes are in
     * different processes (see SetPartitions).
     * \param a one end \param b the other end \param delay propagation delay
     * \return the wire
     */
    Ptr<RoceChannel> CreateLink(Ptr<RoceNetDevice> a, Ptr<RoceNetDevice> b, Time delay) const;

    /**
     * Write one CSV line of WriteStats.
     * \param os stream \param element kind \param index which \param counter name
     * \param value value
     */
    static void WriteStatsLine(std::ostream& os,
                               const char* element,
                               const std::string& index,
                               const char* counter,
                               int64_t value);

    ClusterDescription m_cluster;      //!< what was built
    NodeContainer m_hosts;             //!< hosts
    NodeContainer m_leaves;            //!< leaves
    NodeContainer m_spines;            //!< spines
    NetDeviceContainer m_hostDevs;     //!< host NICs
    NetDeviceContainer m_leafHostDevs; //!< leaf host ports

  private:
    /**
     * Write an Ethernet pcap file of a RoceNetDevice (a cell link has none).
     * \param prefix the file name prefix
     * \param nd the device
     * \param promiscuous hook PromiscSniffer rather than Sniffer
     * \param explicitFilename prefix is the whole file name
     */
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;
    /**
     * Trace a RoceNetDevice's Enqueue (+) and Drop (d) frames as text; other
     * devices go to EnableAsciiFabricDevice.
     * \param stream the stream, or null to create a file from prefix
     * \param prefix the file name prefix
     * \param nd the device
     * \param explicitFilename prefix is the whole file name
     */
    void EnableAsciiInternal(Ptr<OutputStreamWrapper> stream,
                             std::string prefix,
                             Ptr<NetDevice> nd,
                             bool explicitFilename) override;

    /// Stop with a message if the partitions cannot run (see SetPartitions).
    void CheckPartitions() const;
    /**
     * \param index a leaf (it and its hosts) or a spine
     * \param count leaves or spines
     * \return the process that runs it: index * partitions / count
     */
    uint32_t GetPartition(uint32_t index, uint32_t count) const;

    ObjectFactory m_deviceFactory; //!< RoceNetDevice
    uint32_t m_partitions{1};      //!< processes of a distributed run
    /// every RoceNetDevice CreateDevice made, in order
    mutable std::vector<Ptr<RoceNetDevice>> m_roceDevices;
};

} // namespace ns3

#endif /* AI_FABRIC_CLUSTER_FABRIC_HELPER_H */
