#! /usr/bin/env python3

# Example runs in which nothing can progress after a while: every RDMA message
# crossing the fabric is lost (a receive error model losing every frame, or every
# spine failed), so every queue pair fails after RetryLimit timeouts. ctest runs each
# one out of tree through scripts/check-stalled-run.py, which wants the run to end
# by itself within its time limit, with exit status 1 (not a signal, not an abort),
# "nothing more could progress" and the given text on standard output, and no NaN,
# infinity or negative time printed or written. Each tuple is (example name with
# arguments, text its output must contain).
LOSE_ALL = "--ns3::RoceNetDevice::ReceiveErrorModel=ns3::RateErrorModel[ErrorRate=1|ErrorUnit=ERROR_UNIT_PACKET]"

stalled_examples = [
    ("fabric-permutation --transport=rdma --messageSize=300000 --leaves=3 --hostsPerLeaf=2 "
     "--spines=1 --failSpine=0 --failAt=20us",
     "6 messages (1800000 B) could not be delivered"),
    ("fabric-permutation --fabric=ethernet --transport=rdma --messageSize=300000 --leaves=3 "
     "--hostsPerLeaf=2 --spines=1 --failSpine=0 --failAt=20us",
     "6 messages (1800000 B) could not be delivered"),
    ("fabric-incast --senders=2 --transport=rdma --messageSize=70000 " + LOSE_ALL,
     "2 of 2 messages undelivered"),
    ("fabric-incast --fabric=ethernet --senders=2 --transport=rdma --messageSize=70000 "
     + LOSE_ALL, "2 of 2 messages undelivered"),
    ("rdma-point-to-point --size=40000 " + LOSE_ALL, "1 message (40000 B) could not be delivered"),
    ("collective-perf --op=AllGather --maxBytes=64K --iterations=1 " + LOSE_ALL,
     "its RDMA queue pair failed"),
    ("collective-perf --fabric=ethernet --maxBytes=64K --iterations=1 " + LOSE_ALL,
     "its RDMA queue pair failed"),
    ("data-parallel --gradientBytes=2M --bucketBytes=1M --iterations=2 " + LOSE_ALL,
     "stopped after 0 of 2 iterations"),
    ("pipeline-parallel --fabric=ethernet --activationBytes=128K --microbatches=2 "
     "--iterations=1 " + LOSE_ALL, "stopped after 0 of 1 iterations"),
    ("tensor-parallel --tp=16 --layers=1 --activationBytes=512K --iterations=1 " + LOSE_ALL,
     "stopped after 0 of 1 iterations"),
    ("expert-parallel --tokensPerRank=64 --iterations=1 " + LOSE_ALL,
     "stopped after 0 of 1 iterations"),
    ("tenants --gradientBytes=2M --bucketBytes=1M --iterations=1 " + LOSE_ALL,
     "stopped after 0 of 1 iterations"),
    ("training-job --model=custom --layers=2 --hidden=512 --ffnHidden=2048 "
     "--sequenceLength=128 --microbatches=2 " + LOSE_ALL, "stopped after 0 of 1 iterations"),
]
