#!/usr/bin/python3
"""Check that packets an error model takes are counted, by place, in an example's totals.

Usage: check-error-model-drops.py EXAMPLES_DIR

Runs fabric-incast with a receive error model on every RoceNetDevice (given as an
attribute default), with UDP and RDMA on both fabrics, and passes when each result
file counts the packets the models took by place (dropsByPlace: host NICs, leaf
host ports and, on the Ethernet Clos, leaf-spine ports, each above 0), the places
add up to droppedPackets, the conservation offered = delivered + dropped + queued
holds (unaccountedPackets 0, and on the Ethernet Clos from the fields themselves,
queued in switches or in transit between them),
and the printed totals name the host NICs' error model.
"""
import json
import pathlib
import subprocess
import sys
import tempfile

MODEL = ("--ns3::RoceNetDevice::ReceiveErrorModel="
         "ns3::RateErrorModel[ErrorRate=0.01|ErrorUnit=ERROR_UNIT_PACKET]")
RUNS = [
    ("scheduled", ["--senders=5", "--duration=120us", "--warmup=20us"]),
    ("ethernet", ["--senders=5", "--duration=120us", "--warmup=20us"]),
    ("scheduled", ["--senders=3", "--transport=rdma", "--messageSize=400000"]),
    ("ethernet", ["--senders=3", "--transport=rdma", "--messageSize=400000"]),
]


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    examples = pathlib.Path(sys.argv[1]).resolve()
    problems = []
    with tempfile.TemporaryDirectory() as folder:
        for index, (fabric, options) in enumerate(RUNS):
            path = pathlib.Path(folder) / f"incast-{index}.json"
            command = [str(examples / "fabric-incast"), f"--fabric={fabric}", *options, MODEL,
                       f"--json={path}"]
            run = subprocess.run(command, capture_output=True, text=True, cwd=folder,
                                 timeout=300, check=False)
            name = f"{fabric} {' '.join(options)}"
            if run.returncode != 0:
                problems.append(f"{name}: exit status {run.returncode}: {run.stderr[-1000:]}")
                continue
            result = json.loads(path.read_text())
            places = result.get("dropsByPlace")
            if not places:
                problems.append(f"{name}: no dropsByPlace in the results")
                continue
            counted = {key: place["packets"] for key, place in places.items()}
            print(f"{name}: offered {result['offeredPackets']}, delivered "
                  f"{result['deliveredPackets']}, dropped {result['droppedPackets']}: {counted}")
            wanted = ["hostNicErrorModel", "leafPortErrorModel"]
            if fabric == "ethernet":
                wanted.append("fabricPortErrorModel")
            for key in wanted:
                if counted.get(key, 0) <= 0:
                    problems.append(f"{name}: nothing counted at {key}")
            if sum(counted.values()) != result["droppedPackets"]:
                problems.append(f"{name}: the places add up to {sum(counted.values())}, "
                                f"droppedPackets is {result['droppedPackets']}")
            if result.get("unaccountedPackets") != 0:
                problems.append(f"{name}: {result.get('unaccountedPackets')} packets "
                                "unaccounted")
            if fabric == "ethernet":
                balance = (result["offeredPackets"] - result["deliveredPackets"]
                           - result["droppedPackets"] - result["queuedPackets"]
                           - result["inTransitPackets"])
                if balance != 0:
                    problems.append(f"{name}: offered - delivered - dropped - queued - in transit"
                                    f" = {balance}")
            if "host NIC (receive error model)" not in run.stdout:
                problems.append(f"{name}: the printed totals do not name the host NICs' "
                                "error model")
    for problem in problems:
        print(f"FAIL: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
