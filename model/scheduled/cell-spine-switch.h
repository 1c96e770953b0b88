/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_CELL_SPINE_SWITCH_H
#define AI_FABRIC_CELL_SPINE_SWITCH_H

#include "fabric-cell.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

class CellNetDevice;

/**
 * \ingroup ai-fabric
 * \brief A spine of a scheduled fabric: a cell switch.
 *
 * Each arriving cell is forwarded towards its destination leaf on one of the
 * spine's healthy links to that leaf (round robin over parallel links). The
 * per-output queue is the output link's FIFO; it stays small because egress
 * schedulers never grant more than their ports drain. A cell that finds its
 * output queue above MaxQueueBytes (data cells only: control cells always get
 * through), or no healthy link to its leaf, is dropped, counted and traced (in
 * normal operation there are none). A link failure is
 * noticed after LinkDetectionDelay; leaves are then told which leaves this spine
 * still reaches.
 */
class CellSpineSwitch : public Object
{
  public:
    /// TracedCallback signature for queue depth: (output port, bytes queued).
    typedef void (*QueueDepthTracedCallback)(uint32_t port, uint64_t bytes);
    /// TracedCallback signature for drops: (input port, cell).
    typedef void (*CellTracedCallback)(uint32_t port, const FabricCell& cell);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    CellSpineSwitch();
    ~CellSpineSwitch() override;

    /**
     * \param leaves number of leaves in the fabric
     * \param index this spine's index
     */
    void Setup(uint32_t leaves, uint32_t index);

    /**
     * Refuse a MaxQueueBytes that cannot hold one full cell.
     * \param cellBytes bytes of a full cell on a link (CellPayload + CellHeader)
     */
    void SetCellSize(uint32_t cellBytes);

    /**
     * Add a fabric port.
     * \param device the spine's end of a leaf-spine link
     * \param leaf the leaf at the other end
     */
    void AddPort(Ptr<CellNetDevice> device, uint32_t leaf);

    /// \param leaf a leaf \return true if the spine has a healthy link to it (as detected)
    bool CanReach(uint32_t leaf) const;

    /// \param cb called when the reachable set changes (after detection)
    void AddReachabilityCallback(Callback<void> cb);

    /// \return this spine's index
    uint32_t GetIndex() const;
    /// \return number of ports
    uint32_t GetNPorts() const;
    /// \param port index \return the device
    Ptr<CellNetDevice> GetPort(uint32_t port) const;
    /// \return cells forwarded
    uint64_t GetCellsForwarded() const;
    /// \return cells dropped (queue full or no link)
    uint64_t GetCellsDropped() const;
    /// \return packet bytes carried by the data cells among them
    uint64_t GetPayloadDropped() const;
    /// \return highest output queue occupancy seen, bytes
    uint64_t GetQueueHighWater() const;

  protected:
    void DoDispose() override;

  private:
    /// A cell arrived on a port.
    void Receive(uint32_t port, const FabricCell& cell);
    /// A link changed state: recompute after the detection delay.
    void LinkChanged();
    /// Recompute healthy links.
    void Recompute();

    uint32_t m_index{0};                                     //!< spine index
    Time m_detectionDelay;                                   //!< attribute LinkDetectionDelay
    uint64_t m_maxQueue;                                     //!< attribute MaxQueueBytes
    std::vector<Ptr<CellNetDevice>> m_ports;                 //!< ports
    std::vector<uint32_t> m_portLeaf;                        //!< leaf of each port
    std::vector<std::vector<uint32_t>> m_toLeaf;             //!< healthy ports per leaf
    std::vector<uint32_t> m_rr;                              //!< round-robin cursor per leaf
    std::vector<Callback<void>> m_reachCbs;                  //!< listeners
    std::vector<EventId> m_recomputeEvents;                  //!< reach updates still due
    uint64_t m_forwarded{0};                                 //!< counter
    uint64_t m_dropped{0};                                   //!< counter
    uint64_t m_droppedPayload{0};                            //!< data cell bytes dropped
    uint64_t m_highWater{0};                                 //!< bytes
    TracedCallback<uint32_t, uint64_t> m_depthTrace;         //!< output queue depth at each enqueue
    TracedCallback<uint32_t, const FabricCell&> m_dropTrace; //!< drops
};

} // namespace ns3

#endif /* AI_FABRIC_CELL_SPINE_SWITCH_H */
