#!/usr/bin/python3
"""Run an example and check what its results show a user.

Usage: check-example-results.py EXAMPLES_DIR CASE
       check-example-results.py --list

Each case runs one or more examples from EXAMPLES_DIR into a temporary folder and
checks fields of their JSON results (and exits 1, printing FAIL lines, if one is
missing or wrong). With --list, prints the cases, one a line (CMake registers one
ctest test per case).
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path


class Case:
    """A check's state: the examples folder, a scratch folder, the failures."""

    def __init__(self, examples, scratch):
        self.examples = str(Path(examples).resolve())
        self.scratch = Path(scratch)
        self.failures = []

    def run(self, command):
        """Run an example (a command line), returning its standard output."""
        name, *args = command.split()
        print(f"$ {command}")
        run = subprocess.run([f"{self.examples}/{name}", *args], capture_output=True, text=True,
                             timeout=1200, check=False, cwd=self.scratch)
        if run.returncode != 0:
            self.fail(f"{command}: exit status {run.returncode}\n{run.stderr[-2000:]}")
        return run.stdout

    def load(self, path):
        """Read a JSON results file of the scratch folder."""
        with open(self.scratch / path, encoding="utf-8") as text:
            return json.load(text)

    def expect(self, condition, what):
        """Record a failure unless condition holds."""
        print(("ok:   " if condition else "FAIL: ") + what)
        if not condition:
            self.failures.append(what)

    def fail(self, what):
        """Record a failure."""
        self.expect(False, what)


def incast_placement(case):
    """fabric-incast --senderPlacement: the senders' hosts and leaves, in the JSON."""
    out = case.run("fabric-incast --hostsPerLeaf=2 --senders=3 --senderPlacement=remote "
                   "--json=remote.json")
    remote = case.load("remote.json")
    case.expect(remote["senderPlacement"] == "remote", "remote: senderPlacement recorded")
    case.expect(remote["senderHosts"] == [2, 3, 4], f"remote: senders are hosts 2..4 "
                f"({remote['senderHosts']})")
    case.expect(remote["sendersOnReceiverLeaf"] == 0 and remote["sendersOnOtherLeaves"] == 3,
                "remote: no sender on the receiver's leaf, 3 on others")
    case.expect(all(s["leaf"] != 0 for s in remote["perSender"]), "remote: no sender on leaf 0")
    case.expect("--senderPlacement=remote" in out and "0 on the receiver's leaf" in out,
                "remote: the placement is printed")
    case.run("fabric-incast --leaves=2 --hostsPerLeaf=4 --senders=2 --senderPlacement=local "
             "--json=local.json")
    local = case.load("local.json")
    case.expect(local["senderHosts"] == [1, 2], f"local: senders are hosts 1, 2 "
                f"({local['senderHosts']})")
    case.expect(local["sendersOnReceiverLeaf"] == 2 and local["sendersOnOtherLeaves"] == 0,
                "local: both senders on the receiver's leaf")
    case.expect(local["binding"] == "host link", "local: the host link binds, not the fabric")


def congestion_control_default(case):
    """--ns3::RdmaTransport::CongestionControl is used where --congestionControl is auto.

    The examples set the congestion control on their RDMA helper, which overrode an
    attribute default given on the command line: such runs used DCQCN and said so.
    """
    case.run("fabric-incast --fabric=ethernet --transport=rdma --senders=2 "
             "--ns3::RdmaTransport::CongestionControl=ns3::SwiftCongestionControl "
             "--json=swift.json")
    swift = case.load("swift.json")
    case.expect(swift["congestionControl"] == "ns3::SwiftCongestionControl",
                f"the attribute default is used ({swift['congestionControl']})")
    case.run("fabric-incast --fabric=ethernet --transport=rdma --senders=2 --json=auto.json")
    auto = case.load("auto.json")
    case.expect(auto["congestionControl"] == "Dcqcn",
                f"without it, auto is DCQCN on Ethernet ({auto['congestionControl']})")
    case.run("fabric-incast --fabric=ethernet --transport=rdma --senders=2 "
             "--ns3::RdmaTransport::CongestionControl=ns3::SwiftCongestionControl "
             "--congestionControl=None --json=none.json")
    none = case.load("none.json")
    case.expect(none["congestionControl"] == "None", "--congestionControl, when given, wins")


def expert_parallel_routing(case):
    """expert-parallel: the gate's per-expert counts and the AlltoAllv byte matrix."""
    ranks, experts, tokens, top_k, token_bytes = 4, 8, 48, 2, 1024
    case.run(f"expert-parallel --ranks={ranks} --experts={experts} --tokensPerRank={tokens} "
             f"--topK={top_k} --bytesPerToken=1K --gating=zipf --iterations=3 --resultsDir=ep")
    app = case.load("ep/expert-parallel-scheduled.json")["applications"][0]
    counts = app.get("expertTokensPerIteration", [])
    matrices = app.get("dispatchBytesPerIteration", [])
    case.expect(len(counts) == 3 and len(matrices) == 3, "one draw and one matrix per iteration")
    for i, (count, matrix) in enumerate(zip(counts, matrices)):
        case.expect(len(count) == experts and sum(count) == ranks * tokens * top_k,
                    f"iteration {i}: {experts} experts' counts add up to ranks x tokens x topK")
        case.expect(len(matrix) == ranks and all(len(row) == ranks for row in matrix),
                    f"iteration {i}: the matrix is {ranks} x {ranks}")
        case.expect(all(sum(row) == tokens * top_k * token_bytes for row in matrix),
                    f"iteration {i}: each rank sends tokens x topK x bytesPerToken")
        per_rank = experts // ranks
        case.expect(all(sum(matrix[s][d] for s in range(ranks))
                        == sum(count[d * per_rank:(d + 1) * per_rank]) * token_bytes
                        for d in range(ranks)),
                    f"iteration {i}: each rank receives its experts' tokens x bytesPerToken")
    case.expect(len({json.dumps(c) for c in counts}) > 1, "the gate is redrawn every iteration")


def training_job_groups(case):
    """training-job: which GPUs form each TP, PP, DP and EP group."""
    case.run("training-job --model=mixtral-8x7b --layers=2 --hidden=512 --ffnHidden=1024 "
             "--kvHidden=256 --sequenceLength=128 --experts=4 --tp=2 --pp=2 --dp=4 --ep=2 --microbatches=2 "
             "--gpusPerServer=4 --nicPlacement=server --resultsDir=job")
    layout = case.load("job/training-job-scheduled.json")["applications"][0]["layout"]
    groups = layout.get("groups", {})
    # Megatron's order, TP innermost: job index i = tp + 2 x (dp + 4 x pp).
    expected = {
        "tp": [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11], [12, 13], [14, 15]],
        "dp": [[0, 2, 4, 6], [1, 3, 5, 7], [8, 10, 12, 14], [9, 11, 13, 15]],
        "pp": [[0, 8], [1, 9], [2, 10], [3, 11], [4, 12], [5, 13], [6, 14], [7, 15]],
        "ep": [[0, 2], [1, 3], [4, 6], [5, 7], [8, 10], [9, 11], [12, 14], [13, 15]],
    }
    for name, want in expected.items():
        case.expect(groups.get(name) == want, f"{name} groups {groups.get(name)} are {want}")
    case.expect(layout.get("gpus") == list(range(16)), "the job's GPUs are listed")


def collective_perf_rdma(case):
    """collective-perf: RDMA retransmissions, timeouts and failed queue pairs."""
    out = case.run("collective-perf --leaves=2 --hostsPerLeaf=2 --gpusPerServer=2 "
                   "--maxBytes=64K --stepFactor=4 --iterations=1 --resultsDir=idle")
    idle = case.load("idle/RingAllReduce-scheduled.json")
    recovery = {key: idle.get("rdma", {}).get(key)
                for key in ("retransmittedPackets", "timeouts", "qpFailures")}
    case.expect(recovery == {"retransmittedPackets": 0, "timeouts": 0, "qpFailures": 0},
                f"idle scheduled fabric: no loss recovery ({idle.get('rdma')})")
    case.expect("# RDMA loss recovery: 0 packets retransmitted" in out, "the counters are printed")
    # Lossy Ethernet (no PFC, a small buffer): the NICs must resend.
    case.run("collective-perf --fabric=ethernet --pfc=false --bufferSize=200000 "
             "--leaves=2 --hostsPerLeaf=4 --gpusPerServer=4 --nicPlacement=server --op=AlltoAll "
             "--minBytes=4M "
             "--maxBytes=4M --iterations=1 --warmupIterations=0 --resultsDir=lossy")
    lossy = case.load("lossy/PairwiseAlltoAll-ethernet.json")
    rdma = lossy.get("rdma", {})
    case.expect(rdma.get("retransmittedPackets", 0) > 0,
                f"lossy Ethernet: retransmissions counted ({rdma})")
    case.expect(sum(row["rdma"]["retransmittedPackets"] for row in lossy["sizes"])
                == rdma.get("retransmittedPackets"), "the sizes' counts add up to the total")


def permutation_random_bound(case):
    """fabric-permutation --random: all flows together against the most they can carry.

    The bound is the optimum of "maximise the sum of the rates within every host link
    and every leaf's fabric capacity", a maximum flow (examples/permutation-bounds.h):
    the flows' goodput added up is at most it (1% tolerance for the fabric bound's
    per-cell rounding), on both fabrics and three derangements. Each flow's max-min
    fair share is no upper bound on that flow (one may beat its share when another
    sharing its leaves falls below its own), so it is only checked to lie within the
    host link. Against the sum of the fair shares, RngRun=2 reached 1.045: two flows
    between leaves 0 and 1 took the slack of their leaf-mates.
    """
    for fabric in ("scheduled", "ethernet"):
        for run in (1, 2, 5):
            case.run(f"fabric-permutation --fabric={fabric} --leaves=4 --hostsPerLeaf=4 "
                     f"--spines=3 --random=true --RngRun={run} --json=p.json")
            result = case.load("p.json")
            flows = result["flows"]
            total = sum(f["goodputGbps"] for f in flows)
            case.expect(abs(total - result["aggregateGbps"]) <= 1e-9 * total,
                        f"{fabric}, RngRun {run}: aggregateGbps is the flows' sum")
            case.expect(result["aggregateOverBound"] <= 1.01,
                        f"{fabric}, RngRun {run}: all flows {total:.2f} Gb/s = "
                        f"{result['aggregateOverBound']:.4f} of the most they can carry "
                        f"({result['aggregateBoundGbps']:.2f} Gb/s), at most 1.01")
            case.expect(sum(f["fairShareGbps"] for f in flows)
                        <= result["aggregateBoundGbps"] * (1 + 1e-9),
                        "the fair shares add up to no more than the most the flows carry")
            case.expect(all(flow["fairShareGbps"] <= result["hostBoundGbps"] * (1 + 1e-9)
                            for flow in flows), "no fair share above the host link's bound")


def permutation_lossy_link(case):
    """fabric-permutation --lossyLink: that link loses, no other, and every loss is counted.

    On the scheduled fabric a leaf-spine link loses cells: each lost data cell leaves
    its packet incomplete, the egress gives it up after ReassemblyTimeout and the
    RDMA transport resends it; a lost request or grant is made good by the next
    (they are cumulative). The fabric's totals count the cells (linkCorruptedCells,
    the same number the example counts at the link's ends) and still add up.
    """
    for fabric, link in (("ethernet", "1:1:0"), ("scheduled", "0:1:0")):
        case.run(f"fabric-permutation --fabric={fabric} --transport=rdma --messageSize=256K "
                 f"--leaves=2 --hostsPerLeaf=2 --spines=2 --lossyLink={link} --lossRate=0.02 "
                 f"--json=fabric.json")
        result = case.load("fabric.json")
        lossy = result.get("lossyLink", {})
        unit = "cells" if fabric == "scheduled" else "frames"
        case.expect(lossy.get("unit") == unit and lossy.get("lost", 0) > 0
                    and lossy.get("lostElsewhere") == 0,
                    f"{fabric}: fabric link {link} loses {unit}, no other link does ({lossy})")
        case.expect(result["completed"] == 4 and result["retransmittedPackets"] > 0,
                    f"{fabric}: every message completed, with retransmissions")
        case.expect(result["unaccountedPackets"] == 0,
                    f"{fabric}: the fabric's packets add up ({result['unaccountedPackets']})")
        if fabric == "scheduled":
            totals = result["totals"]
            case.expect(totals["unaccountedBytes"] == 0,
                        f"scheduled: the fabric's bytes add up ({totals['unaccountedBytes']})")
            case.expect(totals["linkCorruptedCells"] == lossy["lost"]
                        and totals["reassemblyTimeouts"] > 0,
                        f"scheduled: the totals count the {lossy['lost']} cells "
                        f"({totals['linkCorruptedCells']}) and the packets given up "
                        f"({totals['reassemblyTimeouts']})")
    case.run("fabric-permutation --leaves=2 --hostsPerLeaf=2 --spines=3 --lossyLink=2 "
             "--lossRate=0.05 --json=host.json")
    host = case.load("host.json")
    lossy = host.get("lossyLink", {})
    case.expect(lossy.get("unit") == "frames" and lossy.get("lost", 0) > 0
                and lossy.get("lostElsewhere") == 0,
                f"host 2's link loses on the scheduled fabric, no other link does ({lossy})")
    flows = {flow["src"]: flow for flow in host["flows"]}
    into = [flow for flow in host["flows"] if flow["dst"] == 2]
    case.expect(flows[2]["overFairShare"] < 0.97 and into[0]["overFairShare"] < 0.97,
                "the flows from and to host 2 lose goodput")
    case.expect(all(flow["overFairShare"] > 0.97 for flow in host["flows"]
                    if flow["src"] != 2 and flow["dst"] != 2), "the other flows do not")


CASES = {
    "incast-placement": incast_placement,
    "congestion-control-default": congestion_control_default,
    "expert-parallel-routing": expert_parallel_routing,
    "training-job-groups": training_job_groups,
    "collective-perf-rdma": collective_perf_rdma,
    "permutation-random-bound": permutation_random_bound,
    "permutation-lossy-link": permutation_lossy_link,
}


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--list":
        print("\n".join(CASES))
        return 0
    if len(sys.argv) != 3 or sys.argv[2] not in CASES:
        print(__doc__, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        case = Case(sys.argv[1], scratch)
        CASES[sys.argv[2]](case)
    return 1 if case.failures else 0


if __name__ == "__main__":
    sys.exit(main())
