/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

/**
 * \defgroup ai-fabric AI fabric
 *
 * Packet-level networks of AI training clusters: a scheduled, lossless cell fabric
 * and a standard Ethernet Clos built from one ClusterDescription, a RoCEv2-like
 * RDMA transport, GPU servers with a scale-up domain, communicators and collective
 * algorithms, and the parallelism workloads that drive them. See
 * doc/ai-fabric.rst for the model description, usage and validation.
 */

/**
 * \defgroup ai-fabric-tests AI fabric tests
 * \ingroup ai-fabric
 * \ingroup tests
 *
 * The module's ns-3 test suites (ai-fabric-*), run by test.py in an ns-3 tree and
 * by ctest out of tree.
 */
