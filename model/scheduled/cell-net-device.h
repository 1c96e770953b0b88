/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CELL_NET_DEVICE_H
#define AI_FABRIC_CELL_NET_DEVICE_H

#include "fabric-cell.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <utility>
#include <vector>

namespace ns3
{

class CellChannel;
class Node;

/**
 * \ingroup ai-fabric
 * \brief One end of a leaf-spine link: transmits cells at DataRate, FIFO.
 *
 * The transmit queue is kept as a departure clock: each cell's arrival at the
 * peer is computed when it is queued (start = max(now, link busy until), plus its
 * serialisation time, plus the channel delay) and the cell joins a FIFO of cells
 * in flight; one event, for the head of that FIFO, delivers it and schedules the
 * next. That is one event per cell per hop, one pending event per link, and the
 * exact FIFO timing of a real link.
 * The backlog in bytes is derived from the clock. Time is kept in femtoseconds so
 * serialisation times do not accumulate rounding error.
 *
 * On a link whose ends are in different processes of a distributed run
 * (CellChannel::CrossesProcesses), each cell is serialised (CellMessageHeader,
 * with its arrival time) instead. The cells sent before the first of them
 * finishes serialising go to the other process as one message, handed to the
 * channel then, a link delay (the lookahead) before that cell arrives; the other
 * process delivers each at its own arrival time (ReceiveFromProcess; no trains),
 * and loses it there if the link failed while it was on the wire.
 *
 * Ordinary packets cannot be sent on it (Send returns false): it carries cells.
 */
class CellNetDevice : public NetDevice
{
  public:
    /// The most a message to another process may take serialised: ns-3's MPI
    /// interfaces (3.37 to 3.48) receive into buffers of 2000 bytes, 16 of them
    /// the arrival time, node and device.
    static constexpr uint32_t MAX_MESSAGE_BYTES = 2000 - 16;

    /// Receives a cell: (local port index of the receiving device, cell).
    typedef Callback<void, uint32_t, const FabricCell&> CellReceiveCallback;

    /// TracedCallback signature for cell events: (port, cell).
    typedef void (*CellTracedCallback)(uint32_t port, const FabricCell& cell);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    CellNetDevice();
    ~CellNetDevice() override;

    /// \param channel the link to attach to
    void Attach(Ptr<CellChannel> channel);

    /**
     * Queue a cell for transmission.
     * \param cell the cell
     * \return false if the link is down (the cell still takes its serialisation
     *         time, and is counted as lost)
     */
    bool SendCell(const FabricCell& cell);

    /// \param cb called for each cell received
    void SetCellReceiveCallback(CellReceiveCallback cb);

    /**
     * Send a spine's flow-control indication to the switch at the other end, in
     * another process (the link must CrossesProcesses).
     * \param spine the indicating spine \param leaf the destination leaf it is about
     * \param stop stop or go on \param delay when it arrives, from now
     */
    void SendIndication(uint32_t spine, uint32_t leaf, bool stop, Time delay);
    /// \param cb called with each flow-control indication from another process
    void SetIndicationCallback(Callback<void, uint32_t, uint32_t, bool> cb);
    /**
     * A cell or an indication arrives from the process at the other end of the
     * link (the callback of the device's MpiReceiver).
     * \param message one indication, or cells one after another: each a
     *        CellMessageHeader, a packet's first cell followed by the packet serialised
     */
    void ReceiveFromProcess(Ptr<Packet> message);

    /// \param port the index of this device among its switch's fabric ports
    void SetPortIndex(uint32_t port);
    /// \return the index of this device among its switch's fabric ports
    uint32_t GetPortIndex() const;

    /// \return bytes queued or being serialised now
    uint64_t GetBacklogBytes() const;

    /**
     * Limit the bytes the sender may queue (checked by its callers through
     * HasRoomFor; SendCell itself never refuses a cell for space).
     * \param bytes the limit (0: none)
     */
    void SetQueueLimit(uint64_t bytes);
    /// \return the queue limit in bytes (0: none)
    uint64_t GetQueueLimit() const;
    /// \param wireBytes a cell's size \return true if the cell fits under the queue limit
    bool HasRoomFor(uint32_t wireBytes) const;
    /**
     * \param bytes a backlog
     * \return how long until the backlog is at most that (zero if it is now),
     *         rounded up to the simulator's resolution
     */
    Time GetTimeUntilBacklog(uint64_t bytes) const;

    /// \return the link rate
    DataRate GetDataRate() const;
    /// \param rate the link rate (the DataRate attribute)
    void SetDataRate(DataRate rate);

    /// \return the attached channel
    Ptr<CellChannel> GetFabricChannel() const;

    /// Called by the channel when the link changes state.
    void NotifyLinkChange();

    /// \return cells sent
    uint64_t GetCellsSent() const;
    /// \return link bytes sent
    uint64_t GetBytesSent() const;
    /// \return data cells sent
    uint64_t GetDataCellsSent() const;
    /// \return cells received
    uint64_t GetCellsReceived() const;
    /// \return cells lost: refused while down, or in flight when the link failed
    uint64_t GetCellsLost() const;
    /// \return packet bytes carried by the data cells among them
    uint64_t GetPayloadLost() const;
    /**
     * Judge every cell this end receives with an error model (a lossy link's end):
     * the cell is judged as a packet of its wire bytes, so a per-byte or per-bit
     * rate corrupts long cells more often. A corrupted cell of any type is dropped,
     * as its CRC would fail. \param em the error model, or null for none
     */
    void SetReceiveErrorModel(Ptr<ErrorModel> em);
    /// \return cells this end received corrupted and dropped
    uint64_t GetCellsCorrupted() const;
    /// \return packet bytes carried by the data cells among them
    uint64_t GetPayloadCorrupted() const;
    /// \return packet bytes carried by data cells queued or on the wire now
    uint64_t GetPayloadInFlight() const;
    /// \return highest backlog seen at a send, in bytes
    uint64_t GetBacklogHighWater() const;

    // NetDevice
    /// \param index the interface index
    void SetIfIndex(const uint32_t index) override;
    /// \return the interface index
    uint32_t GetIfIndex() const override;
    /// \return the attached CellChannel
    Ptr<Channel> GetChannel() const override;
    /// \param address the nominal MAC address (a Mac48Address)
    void SetAddress(Address address) override;
    /// \return the nominal MAC address
    Address GetAddress() const override;
    /// \param mtu the nominal MTU (cells do not depend on it) \return true
    bool SetMtu(const uint16_t mtu) override;
    /// \return the nominal MTU
    uint16_t GetMtu() const override;
    /// \return true if attached to a channel that is up
    bool IsLinkUp() const override;
    /// \param callback called by NotifyLinkChange
    void AddLinkChangeCallback(Callback<void> callback) override;
    /// \return false: a point-to-point link of cells
    bool IsBroadcast() const override;
    /// \return the Ethernet broadcast address (never used)
    Address GetBroadcast() const override;
    /// \return false
    bool IsMulticast() const override;
    /// \param multicastGroup ignored \return the Ethernet broadcast address (never used)
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    /// \param addr ignored \return the Ethernet broadcast address (never used)
    Address GetMulticast(Ipv6Address addr) const override;
    /// \return false
    bool IsBridge() const override;
    /// \return true
    bool IsPointToPoint() const override;
    /**
     * Refuse a packet: the link carries cells only (see SendCell).
     * \param packet ignored
     * \param dest ignored
     * \param protocolNumber ignored
     * \return false
     */
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    /**
     * Refuse a packet: the link carries cells only (see SendCell).
     * \param packet ignored
     * \param source ignored
     * \param dest ignored
     * \param protocolNumber ignored
     * \return false
     */
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    /// \return the owning node
    Ptr<Node> GetNode() const override;
    /// \param node the owning node
    void SetNode(Ptr<Node> node) override;
    /// \return false
    bool NeedsArp() const override;
    /// \param cb ignored: cells go to the CellReceiveCallback
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    /// \param cb ignored: cells go to the CellReceiveCallback
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    /// \return false
    bool SupportsSendFrom() const override;

  protected:
    /// Release the node, channel and peer, lose the cells in flight, drop the callbacks.
    void DoDispose() override;

  private:
    /// \param bytes on the wire \return their serialisation time, fs (exact)
    __int128_t WireFemtoSeconds(uint64_t bytes) const;
    /// \param fs a time on the departure clock \return the bytes sent in it, rounded down
    uint64_t WireBytes(__int128_t fs) const;
    /// Schedule the arrival of the head of the in-flight list.
    void ScheduleHead();
    /**
     * The head cell reaches the peer (if the link has not failed since).
     * \param generation m_generation when the event was scheduled
     */
    void DeliverHead(uint32_t generation);
    /// Deliver the head and the cells that arrive within TrainWindow of it.
    void DeliverTrain();
    /// A cell arrived from the peer. \param cell the cell
    void Receive(const FabricCell& cell);
    /// The cell is lost on the link: count and trace it. \param cell the cell
    void Lose(const FabricCell& cell);
    /**
     * Put a cell in the message to the other process (a link that
     * CrossesProcesses), the message opened if none is.
     * \param cell the cell \param nowFs the time now \param arrivalFs its arrival, fs
     */
    void SendToProcess(const FabricCell& cell, __int128_t nowFs, __int128_t arrivalFs);
    /// Hand the message of cells to the channel, as its first cell finishes serialising.
    void FlushToProcess();
    /// Deliver the cells from another process due now; schedule the next.
    void DeliverArriving();

    /// A cell from another process, to arrive.
    struct Arriving
    {
        Time arrival;    //!< when it reaches this end
        uint32_t epoch;  //!< the link's failure epoch when it was sent
        FabricCell cell; //!< the cell, with its packet if it brings it
    };

    Ptr<Node> m_node;            //!< owner
    Ptr<CellChannel> m_channel;  //!< link
    Ptr<CellNetDevice> m_peer;   //!< other end (cached)
    uint32_t m_ifIndex{0};       //!< interface index
    uint32_t m_port{0};          //!< switch port index
    Mac48Address m_address;      //!< nominal address
    uint16_t m_mtu{1500};        //!< nominal MTU (cells are smaller)
    DataRate m_rate;             //!< link rate
    uint64_t m_bitRate{0};       //!< m_rate in bit/s (read per cell)
    int64_t m_fsPerByte{0};      //!< 8e15 / m_bitRate when exact, else 0 (then divide)
    __int128_t m_busyUntilFs{0}; //!< departure clock, femtoseconds (128 bits: no overflow)
    std::deque<std::pair<__int128_t, FabricCell>> m_inFlight; //!< (arrival fs, cell), FIFO
    Time m_trainWindow{0};                                    //!< TrainWindow attribute
    std::vector<FabricCell> m_train;   //!< the train being delivered (reused)
    uint32_t m_generation{0};          //!< bumped when in-flight cells are lost
    bool m_crossesProcesses{false};    //!< the link's other end is in another process
    Ptr<Packet> m_outgoing;            //!< the message to the other process being filled
    std::vector<uint8_t> m_serialised; //!< a packet serialised (reused)
    Time m_outgoingArrival;            //!< when its first cell arrives
    EventId m_flushEvent;              //!< FlushToProcess of m_outgoing
    std::deque<Arriving> m_arriving;   //!< cells from another process, in arrival order
    EventId m_arrivingEvent;           //!< DeliverArriving of the first of them
    CellReceiveCallback m_rxCallback;  //!< to the switch
    Callback<void, uint32_t, uint32_t, bool> m_indicationCallback; //!< to the switch
    std::vector<Callback<void>> m_linkChangeCb;                    //!< link change listeners
    uint64_t m_cellsSent{0};                                       //!< counter
    uint64_t m_bytesSent{0};                                       //!< counter
    uint64_t m_dataCellsSent{0};                                   //!< counter
    uint64_t m_cellsReceived{0};                                   //!< counter
    uint64_t m_cellsLost{0};                                       //!< counter
    uint64_t m_payloadLost{0};                                     //!< data cell bytes lost
    Ptr<ErrorModel> m_receiveErrorModel; //!< judges received cells (null: none)
    uint64_t m_cellsCorrupted{0};        //!< counter
    uint64_t m_payloadCorrupted{0};      //!< data cell bytes corrupted
    uint64_t m_payloadInFlight{0};       //!< data cell bytes queued or on the wire
    uint64_t m_backlogHighWater{0};      //!< bytes
    uint64_t m_queueLimit{0};            //!< bytes (0: none)
    TracedCallback<uint32_t, const FabricCell&> m_txTrace;        //!< cell sent
    TracedCallback<uint32_t, const FabricCell&> m_rxTrace;        //!< cell received
    TracedCallback<uint32_t, const FabricCell&> m_lostTrace;      //!< cell lost on the link
    TracedCallback<uint32_t, const FabricCell&> m_corruptedTrace; //!< cell received corrupted
};

} // namespace ns3

#endif /* AI_FABRIC_CELL_NET_DEVICE_H */
