/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_COLLECTIVE_HELPER_H
#define AI_FABRIC_COLLECTIVE_HELPER_H

#include "ns3/cluster-description.h"
#include "ns3/collective-operation.h"
#include "ns3/communicator.h"
#include "ns3/gpu-compute.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-helper.h"
#include "ns3/scale-up-switch.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Turns a cluster into GPU servers for collectives: one ScaleUpSwitch per
 * server, GPU ranks mapped to their NICs' RDMA transports (by the description's NIC
 * placement), communicators, and the algorithm of each collective.
 *
 * The RdmaHelper must have been installed on the fabric's host NICs in host order
 * (transport rank = host index), as the fabric helpers' GetHostDevices() gives them.
 * Algorithms are chosen per collective by TypeId, as TCP chooses its congestion
 * control: SetAlgorithm("AllReduce", "ns3::RingAllReduce"). Defaults: the ring
 * algorithms (RingAllReduce, RingReduceScatter, RingAllGather, RingBroadcast,
 * RingReduce, RingSendRecv), the pairwise exchange for AlltoAll and AlltoAllv
 * (PairwiseAlltoAll, PairwiseAlltoAllv) and DisseminationBarrier for Barrier.
 */
class CollectiveHelper
{
  public:
    CollectiveHelper();

    /**
     * \param name attribute of the ScaleUpSwitch of every server built afterwards
     * \param value its value
     */
    void SetScaleUpAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Build the servers. Stops with a message naming the field if the cluster cannot
     * be divided into servers, or if rdma does not have one rank per host.
     * \param cluster the cluster (as built by a fabric helper)
     * \param rdma transports installed on the host NICs in host order
     */
    void Install(const ClusterDescription& cluster, const RdmaHelper& rdma);

    /// \return GPUs of the cluster (= hosts)
    uint32_t GetNGpus() const;

    /**
     * \param gpu a GPU rank
     * \return its compute, for stragglers (GpuCompute::ScheduleSlowdown)
     */
    Ptr<GpuCompute> GetGpuCompute(uint32_t gpu) const;
    /// \param server a server \return its scale-up switch
    Ptr<ScaleUpSwitch> GetScaleUpSwitch(uint32_t server) const;

    /**
     * \param gpus global GPU ranks, in the communicator's rank order; each exists and
     *        appears once (stops naming the GPU otherwise)
     * \return a communicator with its own connections
     */
    Ptr<Communicator> CreateCommunicator(const std::vector<uint32_t>& gpus) const;
    /// \return a communicator of every GPU, rank = GPU rank
    Ptr<Communicator> CreateWorldCommunicator() const;

    /**
     * Choose the algorithm of a collective. Stops if the collective is unknown, the
     * TypeId does not exist or implements another collective.
     * \param collective "AllReduce", "ReduceScatter", "AllGather", "AlltoAll",
     *        "AlltoAllv", "Broadcast", "Reduce", "SendRecv" or "Barrier"
     * \param typeId TypeId name of a CollectiveOperation subclass
     */
    void SetAlgorithm(const std::string& collective, const std::string& typeId);
    /// \return the collectives this helper has an algorithm for, in name order
    std::vector<std::string> GetCollectives() const;
    /**
     * \param collective a collective (stops if unknown)
     * \return the TypeId name of its algorithm (the default or SetAlgorithm's)
     */
    std::string GetAlgorithm(const std::string& collective) const;
    /**
     * Every registered algorithm of a collective: the CollectiveOperation subclasses
     * with a constructor whose GetCollectiveName() is that collective, each probed
     * with one instance, so algorithms added to the module are found without a list.
     * \param collective a collective name ("AllReduce", ...)
     * \return their TypeId names, in name order (empty if none)
     */
    static std::vector<std::string> GetAlgorithms(const std::string& collective);
    /**
     * Set an attribute of the algorithm of a collective (after SetAlgorithm).
     * \param collective the collective
     * \param name attribute name \param value its value
     */
    void SetAlgorithmAttribute(const std::string& collective,
                               const std::string& name,
                               const AttributeValue& value);
    /**
     * \param collective the collective
     * \return a new operation of its algorithm, not started (set its own attributes,
     *         then Start it)
     */
    Ptr<CollectiveOperation> Create(const std::string& collective) const;

    /// \return every collective's algorithm, as chosen (for applications that create
    /// their own operations)
    const std::map<std::string, ObjectFactory>& GetAlgorithms() const;
    /**
     * Create and start an operation.
     * \param comm communicator
     * \param collective the collective
     * \param bytes S (see the algorithm)
     * \param done completion callback (may be null)
     * \return the operation
     */
    Ptr<CollectiveOperation> Start(Ptr<Communicator> comm,
                                   const std::string& collective,
                                   uint64_t bytes,
                                   CollectiveOperation::DoneCallback done) const;

  private:
    /// \param collective a collective \return its factory (stops if unknown)
    ObjectFactory& GetFactory(const std::string& collective);
    /// \copydoc GetFactory
    const ObjectFactory& GetFactory(const std::string& collective) const;

    ClusterDescription m_cluster;                      //!< the cluster
    ObjectFactory m_scaleUpFactory;                    //!< scale-up switches
    std::vector<Ptr<ScaleUpSwitch>> m_scaleUp;         //!< per server
    std::vector<Communicator::Member> m_gpus;          //!< per GPU rank
    std::map<std::string, ObjectFactory> m_algorithms; //!< collective -> algorithm
};

} // namespace ns3

#endif /* AI_FABRIC_COLLECTIVE_HELPER_H */
