/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_FABRIC_RING_QUEUE_H
#define AI_FABRIC_RING_QUEUE_H

#include <algorithm>
#include <boost/circular_buffer.hpp>
#include <cstddef>
#include <utility>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A FIFO queue in one contiguous ring that allocates nothing until its first
 * element and doubles when full: a switch or NIC has eight priority queues per
 * port, most of them empty for a whole run, and std::deque allocates more than
 * half a kilobyte for each even when empty.
 * \tparam T the element
 */
template <typename T>
class RingQueue
{
  public:
    /// \param value appended at the back
    void push_back(T value)
    {
        if (m_ring.full())
        {
            m_ring.set_capacity(std::max<std::size_t>(8, 2 * m_ring.capacity()));
        }
        m_ring.push_back(std::move(value));
    }

    /// Remove the front element (the queue must not be empty).
    void pop_front()
    {
        m_ring.pop_front();
    }

    /// \return the front element (the queue must not be empty)
    T& front()
    {
        return m_ring.front();
    }

    /// \return the front element (the queue must not be empty)
    const T& front() const
    {
        return m_ring.front();
    }

    /// \return whether the queue is empty
    bool empty() const
    {
        return m_ring.empty();
    }

    /// \return the number of elements
    std::size_t size() const
    {
        return m_ring.size();
    }

    /// Remove every element (the ring keeps its capacity).
    void clear()
    {
        m_ring.clear();
    }

  private:
    boost::circular_buffer<T> m_ring; //!< the elements, oldest first
};

} // namespace ns3

#endif /* AI_FABRIC_RING_QUEUE_H */
