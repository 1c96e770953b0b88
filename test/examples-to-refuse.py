#! /usr/bin/env python3

# Example invocations that must be refused before anything is built or run; ctest
# runs each one out of tree through scripts/check-refusal.py, which wants exit
# status 1 (not a signal, not an abort), nothing on standard output, and the given
# text, which names the option and its value, on standard error. Each tuple is
# (example name with arguments, text its error output must contain).
refused_examples = [
    ("collective-perf --op=AllToNone", "--op=AllToNone is not a collective (AllGather, AllReduce,"),
    ("collective-perf --algorithm=butterfly",
     "--algorithm=butterfly is not an algorithm of AllReduce (ns3::"),
    ("collective-perf --op=AllGather --algorithm=ns3::RingAllReduce",
     "--algorithm=ns3::RingAllReduce is not an algorithm of AllGather"),
    ("collective-perf --minBytes=0", "--minBytes=0 must be at least 1"),
    ("collective-perf --minBytes=1M --maxBytes=64K", "--maxBytes=64K is below --minBytes=1M"),
    ("collective-perf --maxBytes=12Q", "--maxBytes=12Q is not a whole number of bytes"),
    ("collective-perf --maxBytes=99999999999999999999", "--maxBytes=99999999999999999999 is too large"),
    ("collective-perf --stepFactor=1", "--stepFactor=1 must be at least 2"),
    ("collective-perf --iterations=0", "--iterations=0 must be in 1..4294967295"),
    ("collective-perf --iterations=-1", "--iterations=-1 is not a whole number"),
    ("collective-perf --channels=0", "--channels=0 must be in 1..64"),
    ("collective-perf --channels=65", "--channels=65 must be in 1..64"),
    ("collective-perf --ns3::CollectiveOperation::Channels=0",
     "ns3::RingAllReduce::Channels=0 must be in 1..64"),
    ("collective-perf --chunkSize=0", "--chunkSize=0 must be at least 1"),
    ("collective-perf --op=Broadcast --root=16", "--root=16 is not a rank (the communicator has 16 ranks)"),
    ("collective-perf --gpusPerServer=3", "16 hosts is not a multiple of gpusPerServer=3"),
    ("collective-perf --gpusPerServer=0", "gpusPerServer must be at least 1, got 0"),
    ("collective-perf --nicPlacement=ring", "nicPlacement=\"ring\" is unknown (valid: rail, server)"),
    ("collective-perf --nicPlacement=server", "nicPlacement=server needs hostsPerLeaf a multiple of gpusPerServer"),
    ("collective-perf --leaves=0", "leaves must be at least 1, got 0"),
    ("collective-perf --fabric=token-ring", "--fabric must be scheduled or ethernet, got token-ring"),
    ("collective-perf --sprayPolicy=Hose", "--sprayPolicy=Hose is not a spray policy"),
    ("collective-perf --fabric=ethernet --loadBalancing=Hash", "--loadBalancing=Hash is not a load balancing"),
    ("collective-perf --congestionControl=Reno", "--congestionControl=Reno is not a congestion control"),
]
