#!/usr/bin/python3
"""Check that a run depends on its seed whatever the order of its options.

Usage: check-random-options.py EXAMPLES_DIR

Runs fabric-permutation with an error model given as an attribute default
(--ns3::RoceNetDevice::ReceiveErrorModel=ns3::RateErrorModel[...]) and --RngRun
after it, then before it, then with another run number, and passes when the first
two results are the same (whatever the order, the error model follows RngRun), the
third differs from them (the run number reaches the error model), and the run record
writes the error model as its TypeId and attributes, not as a memory address.
"""
import json
import pathlib
import subprocess
import sys
import tempfile

MODEL = ("--ns3::RoceNetDevice::ReceiveErrorModel="
         "ns3::RateErrorModel[ErrorRate=0.006|ErrorUnit=ERROR_UNIT_PACKET]")
SETUP = ["--leaves=2", "--hostsPerLeaf=3", "--spines=2", "--duration=150us", "--warmup=20us"]


def run(examples, folder, name, options):
    """Run fabric-permutation with options; return its JSON results."""
    path = pathlib.Path(folder) / f"{name}.json"
    subprocess.run([f"{examples}/fabric-permutation", *SETUP, *options, f"--json={path}"],
                   check=True, stdout=subprocess.DEVNULL, cwd=folder, timeout=300)
    return json.loads(path.read_text())


def outcome(result):
    """What the run measured: everything but the record of how it was started."""
    result = dict(result)
    record = result.pop("runRecord")
    return result, record


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    examples = str(pathlib.Path(sys.argv[1]).resolve())
    problems = []
    with tempfile.TemporaryDirectory() as folder:
        after, record = outcome(run(examples, folder, "after", [MODEL, "--RngRun=3"]))
        before, _ = outcome(run(examples, folder, "before", ["--RngRun=3", MODEL]))
        other, _ = outcome(run(examples, folder, "other", [MODEL, "--RngRun=2"]))
    losses = {name: (r["deliveredPackets"], r["droppedPackets"])
              for name, r in (("RngRun=3 after the model", after),
                              ("RngRun=3 before it", before), ("RngRun=2", other))}
    print("delivered and dropped packets:", losses)
    if after != before:
        problems.append("--RngRun=3 after the error model and before it give other results")
    if after == other:
        problems.append("--RngRun=2 and --RngRun=3 give the same results: the run number "
                        "does not reach the error model")
    if record.get("rngRun") != 3:
        problems.append(f"the run record says RngRun {record.get('rngRun')}")
    if after["droppedPackets"] == 0:
        problems.append("the error model dropped nothing: the check proves nothing")
    model = record["changedAttributeDefaults"].get("ns3::RoceNetDevice::ReceiveErrorModel", "")
    print("recorded error model:", model)
    if not model.startswith("ns3::RateErrorModel[") or "ErrorRate=0.006" not in model:
        problems.append(f"the run record writes the error model as {model!r}")
    for problem in problems:
        print(f"FAIL: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
