#! /usr/bin/env python3

# C++ examples that test.py runs as regression tests (ctest runs the same list out
# of tree). Each tuple is (example name with arguments, do_run, do_valgrind_run).
cpp_examples = [
    # The GoogleTest unit and death tests, built as a program inside an ns-3 tree
    # only (out of tree ctest runs them one by one; scripts/examples-to-run.py
    # leaves this entry out there).
    ("ai-fabric-gtest", "True", "False"),
    # The README's first program, on both fabrics.
    ("first-cluster", "True", "True"),
    ("first-cluster --fabric=ethernet", "True", "True"),
    ("fabric-incast --senders=4", "True", "True"),
    ("fabric-incast --senders=4 --transport=rdma --messageSize=200000", "True", "True"),
    ("fabric-incast --fabric=ethernet --senders=4 --transport=rdma --messageSize=200000",
     "True", "True"),
    ("fabric-permutation --leaves=2 --hostsPerLeaf=2 --spines=3", "True", "True"),
    ("fabric-permutation --fabric=ethernet --leaves=2 --hostsPerLeaf=2 --spines=3",
     "True", "True"),
    ("fabric-permutation --transport=rdma --messageSize=64K --leaves=2 --hostsPerLeaf=2 "
     "--spines=3", "True", "True"),
    ("fabric-incast --hostsPerLeaf=2 --senders=3 --senderPlacement=remote --transport=rdma "
     "--messageSize=32K", "True", "True"),
    ("collective-perf --maxBytes=1M --iterations=2", "True", "True"),
    ("collective-perf --fabric=ethernet --op=AllGather --algorithm=hierarchical --maxBytes=1M "
     "--iterations=2", "True", "True"),
    ("collective-perf --op=Broadcast --root=3 --minBytes=64K --maxBytes=1M --stepFactor=4 "
     "--warmupIterations=0 --gpusPerServer=4 --nicPlacement=server --leaves=2 --hostsPerLeaf=8",
     "True", "True"),
    ("collective-perf --op=AlltoAllv --maxBytes=256K --stepFactor=8 --iterations=1",
     "True", "True"),
    ("collective-perf --fabric=ethernet --op=Barrier --maxBytes=64", "True", "True"),
    ("data-parallel --gradientBytes=8M --bucketBytes=2M --iterations=2", "True", "True"),
    ("data-parallel --fabric=ethernet --gradientBytes=8M --bucketBytes=2M --iterations=2 "
     "--slowGpu=3:1.5:0 --slowNic=9:0.5:1ms", "True", "True"),
    ("pipeline-parallel --activationBytes=256K --microbatches=4 --iterations=1", "True", "True"),
    ("pipeline-parallel --fabric=ethernet --schedule=gpipe --stages=3 --gpus=0,9,15 "
     "--activationBytes=256K --microbatches=5 --iterations=1 --slowGpu=9:2:1ms", "True", "True"),
    ("tensor-parallel --layers=1 --activationBytes=1M --iterations=2", "True", "True"),
    ("tensor-parallel --fabric=ethernet --tp=16 --layers=1 --activationBytes=1M "
     "--sequenceParallel --computeJitter=20us --iterations=2", "True", "True"),
    ("tenants --gradientBytes=4M --bucketBytes=1M --iterations=1", "True", "True"),
    ("tenants --fabric=ethernet --placement=interleaved --gradientBytes=4M --bucketBytes=1M "
     "--iterations=1", "True", "True"),
    ("expert-parallel --tokensPerRank=256 --iterations=1", "True", "True"),
    ("expert-parallel --fabric=ethernet --ranks=8 --gpus=0-3,8-11 --experts=16 --gating=zipf "
     "--skew=1.5 --tokensPerRank=256 --iterations=2 --slowGpu=3:2:0", "True", "True"),
    ("training-job --model=custom --layers=4 --hidden=1024 --ffnHidden=4096 "
     "--sequenceLength=512 --microbatches=4", "True", "True"),
    ("training-job --fabric=ethernet --model=mixtral-8x7b --layers=2 --hidden=1024 "
     "--ffnHidden=2048 --sequenceLength=256 --tp=2 --pp=2 --dp=8 --ep=4 --microbatches=2 "
     "--gating=hot --skew=0.5 --gpusPerServer=4 --nicPlacement=server --sequenceParallel "
     "--schedule=gpipe --slowGpu=5:1.5:0", "True", "True"),
    ("tenants --workloads=dp,moe --placement=interleaved --fabric=ethernet --gradientBytes=4M "
     "--bucketBytes=1M --tokensPerRank=256 --iterations=1", "True", "True"),
    # The flagship at a reduced size (scripts/check-comparison-results.py checks its
    # results out of tree); it forks a process per scenario, so no valgrind run.
    ("fabric-comparison --workloads=dp,tp-server --conditions=alone,failure "
     "--dpGradientBytes=4M --dpBucketBytes=1M --iterations=1 --jobs=2 "
     "--resultsDir=results/fabric-comparison-test", "True", "False"),
    ("rdma-point-to-point --size=1000000", "True", "True"),
    ("rdma-point-to-point --size=100000 --mtu=1024 --pcap=true --ascii=true", "True", "False"),
]

# Python examples test.py runs: (example name, do_run).
python_examples = []
