/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_RING_COLLECTIVE_H
#define AI_FABRIC_RING_COLLECTIVE_H

#include "collective-operation.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief The pipelined ring shared by the ring algorithms (AllReduce, ReduceScatter,
 * AllGather, Broadcast, Reduce, SendRecv), as NCCL runs them.
 *
 * Ranks form the ring 0 -> 1 -> ... -> n-1 -> 0 in communicator order. The data are
 * cut into ring chunks (GetRingChunks); chunk j enters the ring at rank
 * GetFirstSender(j) and travels GetHops() hops, one rank forward per hop. Each chunk
 * is split over the Channels (each its own connection) and, on a channel, into
 * pieces of at most ChunkSize bytes. A piece is forwarded as soon as it has arrived
 * (after the reduction kernel, on the hops where the receiver reduces it), so the
 * steps of one channel overlap: this is the pipelining. Pieces a rank forwards on one
 * channel leave in arrival order on that channel's queue pair.
 *
 * Events: one arrival per piece per hop (and one more per reduced piece when the
 * reduction takes time); nothing per packet.
 */
class RingCollective : public CollectiveOperation
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    RingCollective();
    ~RingCollective() override;

  protected:
    void DoStart() override;

    /// \param n ranks \return the ring chunks the data are cut into
    virtual uint32_t GetRingChunks(uint32_t n) const = 0;
    /// \param chunk a ring chunk \param n ranks \return the rank that sends it first
    virtual uint32_t GetFirstSender(uint32_t chunk, uint32_t n) const = 0;
    /// \param n ranks \return hops every chunk travels
    virtual uint32_t GetHops(uint32_t n) const = 0;
    /// \param n ranks \return arrivals on hops below this are reduced by the receiver
    virtual uint32_t GetReducedHops(uint32_t n) const = 0;
    /**
     * \param chunk a ring chunk
     * \param chunks ring chunks
     * \return its bytes (default: S split evenly over the chunks)
     */
    virtual uint64_t GetChunkBytes(uint32_t chunk, uint32_t chunks) const;

  private:
    /// \param chunk a ring chunk \param channel a channel \param piece a piece on it
    /// \return bytes of piece `piece` of chunk `chunk` on channel `channel`
    uint64_t GetPieceBytes(uint32_t chunk, uint32_t channel, uint64_t piece) const;
    /// Post a piece on a hop, from its sender to the next rank.
    /// \param chunk ring chunk \param channel channel \param piece piece \param hop hop
    void Forward(uint32_t chunk, uint32_t channel, uint64_t piece, uint32_t hop);
    /// A piece arrived at the end of a hop.
    /// \param chunk ring chunk \param channel channel \param piece piece \param hop hop
    void OnArrival(uint32_t chunk, uint32_t channel, uint64_t piece, uint32_t hop);
    /// The receiver of a hop is done with a piece (reduced if it had to).
    /// \param chunk ring chunk \param channel channel \param piece piece \param hop hop
    void OnReady(uint32_t chunk, uint32_t channel, uint64_t piece, uint32_t hop);

    uint32_t m_chunks{0};      //!< ring chunks
    uint32_t m_hops{0};        //!< hops per chunk
    uint32_t m_reducedHops{0}; //!< hops whose arrival is reduced
    uint64_t m_piecesLeft{0};  //!< pieces that have not finished their last hop
};

} // namespace ns3

#endif /* AI_FABRIC_RING_COLLECTIVE_H */
