#!/usr/bin/python3
"""Run the fabric comparison at a reduced size and check its results.

Usage: check-comparison-results.py FABRIC_COMPARISON_PROGRAM [EXTRA_ARGUMENTS...]

Runs the program twice on a reduced matrix (every fabric; dp, tp-server and ep;
alone, failure and neighbour), once with --jobs=1 and once with --jobs=2, into
temporary folders, and checks:

- the schema: every scenario file (scenarios/<id>.json) has the fields
  doc/ai-fabric.rst lists (Results), every number in it is finite, and
  summary.csv has one row per scenario with the documented columns;
- every job completed;
- nothing lost without being counted, on every fabric: offered packets =
  delivered + dropped (counted) + still queued, and nothing still queued at the end;
- the scheduled fabric drops nothing inside the fabric: no VOQ or egress-port
  drop, no unroutable packet, cells dropped at spines (with no way on to their
  leaf) only where links failed, and packets given up at reassembly only where
  cells were lost on failed links;
- on an idle fabric, where the fabric does not bind, every fabric's time within
  2% of the ideal fabric's; tp-server (inside one server) within 2% everywhere;
- --jobs does not change a result: both runs' scenario files are identical but
  for their run records;
- the matrix --list prints has as many scenarios as worked out in MATRIX_SIZES;
- --reuse takes every result of a run with the same options, and runs again a
  scenario whose earlier result came from other sizes;
- tp-fabric crosses the spine layer with 4 servers per leaf, not only with 2;
- fabricBinds follows its documented rule on every row of summary.csv.

Exit status 1 on any failure, with one line per problem.
"""
import csv
import json
import math
import pathlib
import subprocess
import sys
import tempfile

REDUCED = ["--workloads=dp,tp-server,ep", "--conditions=alone,failure,neighbour",
           "--dpGradientBytes=8M", "--dpBucketBytes=2M", "--epTokensPerRank=256",
           "--neighbourGradientBytes=8M", "--neighbourIterations=2", "--iterations=1",
           "--tpLayers=2"]

SCENARIO_FIELDS = {"scenario", "cluster", "fabricSetup", "simulatedTime_us", "jobsDone_us", "events",
                   "completed", "metrics", "counters", "series", "runRecord"}
SCENARIO_KEYS = {"id", "workload", "fabric", "condition", "variant", "sweep"}
COUNTERS = {"offeredPackets", "deliveredPackets", "droppedPackets", "queuedPackets",
            "unaccountedPackets", "pfcPauses", "ecnMarks", "retransmissions", "timeouts",
            "receiverDiscards", "cnps", "qpFailures", "maxQueuedBytes", "uplinkImbalance",
            "cellsLostOnFailedLinks", "grantedBytes", "controlBytes", "drops"}
CSV_COLUMNS = {"workload", "fabric", "condition", "variant", "sweep", "completed", "normalised",
               "slowdown", "neighbourSlowdown", "failureDip", "recovery_us", "blackout_us",
               "baselineSilence_us", "fabricBinds", "iteration_us", "droppedPackets",
               "pfcPauses", "retransmissions", "ecnMarks", "maxQueuedBytes", "grantedBytes",
               "controlBytes", "dropsByPlace"}

# Scenarios in the whole matrix (6 workloads, 4 fabrics), worked out by hand:
# alone 6 x 4 = 24, the neighbour alone 4 (for the neighbour and nic conditions);
# focused: neighbour (dp, pp, tp-fabric, ep) x 4 = 16, failure "none" dp x 4 = 4,
# "spine" (dp, ep) x 3 non-ideal fabrics = 6, 1, 2 and 4 links dp x 3 x 3 = 9, nic
# (dp, pp) x 4 = 8, linkspeed (dp, ep) x 3 = 6: 77 in all; full: every condition on
# all 6 workloads: neighbour 24, failure 24 + 18 + 54, nic 24, linkspeed 18: 190.
MATRIX_SIZES = {(): 77, ("--matrix=full",): 190, ("--scale=large",): 190,
                ("--scale=large", "--matrix=focused"): 77}


def check_matrix_sizes(program, problems):
    """The number of scenarios --list prints for each matrix."""
    for options, expected in MATRIX_SIZES.items():
        command = [program, *options, "--list"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
        ids = done.stdout.split()
        if done.returncode != 0 or len(ids) != expected or len(set(ids)) != len(ids):
            problems.append(f"{' '.join(command)}: {len(ids)} scenarios ({len(set(ids))} "
                            f"distinct, exit {done.returncode}), not {expected}")


def check_reuse(program, folder, extra, problems):
    """--reuse after the run into folder: every result taken with the same options
    (the files untouched), a result of other sizes run again."""
    before = {p.name: p.read_bytes() for p in (folder / "scenarios").glob("*.json")}
    command = [program, *REDUCED, "--jobs=2", f"--resultsDir={folder}", "--reuse", *extra]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    taken = done.stdout.count("(earlier run)")
    after = {p.name: p.read_bytes() for p in (folder / "scenarios").glob("*.json")}
    if done.returncode != 0 or taken != len(before) or after != before:
        problems.append(f"--reuse with the same options took {taken} of {len(before)} results "
                        f"(exit {done.returncode}, files {'un' if after == before else ''}changed)")
    # Nothing ran, so no progress line may promise time left.
    progress = [l for l in done.stdout.splitlines() if l.lstrip().startswith("[")]
    if not progress or any(not l.endswith(", nothing left") for l in progress):
        problems.append("--reuse with every result taken: a progress line estimates time left: "
                        + (progress[0] if progress else "no progress line"))
    # Other gradient bytes: the one dp scenario chosen runs again with them.
    other = [a if not a.startswith("--dpGradientBytes=") else "--dpGradientBytes=4M"
             for a in REDUCED]
    command = [program, *other, "--workloads=dp", "--fabrics=ideal", "--conditions=alone",
               "--jobs=1", f"--resultsDir={folder}", "--reuse", *extra]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    record = json.loads((folder / "scenarios" / "dp_ideal_alone.json").read_text())["runRecord"]
    if (done.returncode != 0 or "(earlier run)" in done.stdout
            or "1 earlier results came from other options" not in done.stdout
            or "--dpGradientBytes=4M" not in record["arguments"]):
        problems.append("--reuse with other --dpGradientBytes took the earlier result: "
                        + done.stdout[-500:])


def check_tensor_fabric_crosses_spines(program, extra, problems):
    """tp-fabric's group crosses the spine layer also where the workload's job
    has more than one server per leaf (here 16 hosts a leaf, 4 servers of 4 GPUs)."""
    command = [program, "--scenario=tp-fabric_ethernet_alone", "--hostsPerLeaf=16",
               "--tpLayers=2", *extra]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    try:
        imbalance = json.loads(done.stdout)["counters"]["uplinkImbalance"]
    except (ValueError, KeyError):
        imbalance = None
    # 0 when no packet took a leaf uplink: both servers on one leaf.
    if done.returncode != 0 or not imbalance:
        problems.append(f"{' '.join(command)}: uplink imbalance {imbalance} "
                        f"(exit {done.returncode}): tp-fabric did not cross the spines")


def finite_numbers(value, path, problems):
    """Add a problem for every number in value that is not finite."""
    if isinstance(value, dict):
        for key, item in value.items():
            finite_numbers(item, f"{path}.{key}", problems)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            finite_numbers(item, f"{path}[{index}]", problems)
    elif isinstance(value, float) and not math.isfinite(value):
        problems.append(f"{path} is {value}")


def check_scenario(result, problems):
    """Check one scenario file's schema and invariants."""
    name = result.get("scenario", {}).get("id", "?")
    missing = SCENARIO_FIELDS - set(result)
    if missing:
        problems.append(f"{name}: missing {sorted(missing)}")
        return
    if SCENARIO_KEYS - set(result["scenario"]):
        problems.append(f"{name}: scenario lacks {sorted(SCENARIO_KEYS - set(result['scenario']))}")
    if COUNTERS - set(result["counters"]):
        problems.append(f"{name}: counters lack {sorted(COUNTERS - set(result['counters']))}")
    if "iteration_us" not in result["metrics"]:
        problems.append(f"{name}: metrics lack iteration_us")
    finite_numbers(result, name, problems)
    if not result["completed"]:
        problems.append(f"{name}: did not complete")
    c = result["counters"]
    if c["unaccountedPackets"] != 0:
        problems.append(f"{name}: {c['unaccountedPackets']} packets unaccounted "
                        f"(offered {c['offeredPackets']}, delivered {c['deliveredPackets']}, "
                        f"dropped {c['droppedPackets']}, queued {c['queuedPackets']})")
    if c["queuedPackets"] != 0:
        problems.append(f"{name}: {c['queuedPackets']} packets still queued after every job ended")
    if result["scenario"]["fabric"] == "scheduled":
        drops = c["drops"]
        for place in ("voqFull", "egressPort", "unroutable"):
            if drops[place]:
                problems.append(f"{name}: scheduled fabric dropped {drops[place]} at {place}")
        failed = result["scenario"]["condition"] == "failure"
        if c.get("spineDroppedCells", 0) and not failed:
            problems.append(f"{name}: scheduled fabric dropped {c['spineDroppedCells']} cells "
                            "at spines with no link failed")
        if drops["reassemblyTimeout"] and not c["cellsLostOnFailedLinks"]:
            problems.append(f"{name}: {drops['reassemblyTimeout']} packets given up at "
                            "reassembly with no cell lost on a failed link")


def check_summary(folder, results, problems):
    """Check summary.csv against the scenario files."""
    with open(folder / "summary.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    if len(rows) != len(results):
        problems.append(f"summary.csv has {len(rows)} rows for {len(results)} scenarios")
    if rows and CSV_COLUMNS - set(rows[0]):
        problems.append(f"summary.csv lacks columns {sorted(CSV_COLUMNS - set(rows[0]))}")
        return
    check_fabric_binds(rows, problems)
    for row in rows:
        name = f"{row['workload']} on {row['fabric']}, {row['condition']} {row['variant']}"
        for key, value in row.items():
            if key not in ("workload", "fabric", "condition", "variant", "sweep", "dropsByPlace"):
                try:
                    if not math.isfinite(float(value)):
                        problems.append(f"summary.csv: {name}: {key} is {value}")
                except ValueError:
                    problems.append(f"summary.csv: {name}: {key} is not a number: {value!r}")
        if row["condition"] != "alone" or row["fabric"] == "ideal" or row["sweep"]:
            continue
        normalised = float(row["normalised"])
        if row["workload"] == "tp-server" and abs(normalised - 1) > 0.02:
            problems.append(f"summary.csv: {name}: inside a server, yet {normalised:.4f} of ideal")
        if row["fabricBinds"] == "0" and abs(normalised - 1) > 0.02:
            problems.append(f"summary.csv: {name}: the fabric does not bind, yet "
                            f"{normalised:.4f} of ideal (more than 2% off)")


def check_fabric_binds(rows, problems):
    """fabricBinds as documented: a fabric (ideal aside) that did not finish, one
    more than 5% above ideal, or the fabrics more than 5% apart."""
    groups = {}
    for row in rows:
        if row["fabric"] != "ideal":
            key = (row["workload"], row["condition"], row["variant"], row["sweep"])
            groups.setdefault(key, []).append(row)
    for key, group in groups.items():
        finished = [float(r["normalised"]) for r in group
                    if r["completed"] == "1" and float(r["normalised"]) > 0]
        binds = (len(finished) < len(group)
                 or (finished and (max(finished) > 1.05 or max(finished) > min(finished) * 1.05)))
        for row in group:
            if row["fabricBinds"] != ("1" if binds else "0"):
                problems.append(f"summary.csv: {' '.join(key)}: fabricBinds {row['fabricBinds']} "
                                f"for normalised times {finished}")


def run(program, folder, jobs, extra):
    """Run the reduced comparison into folder; return its scenario results by id."""
    command = [program, *REDUCED, f"--jobs={jobs}", f"--resultsDir={folder}", *extra]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
        raise SystemExit(f"FAIL: {' '.join(command)} exited with {done.returncode}")
    results = {}
    for path in sorted((folder / "scenarios").glob("*.json")):
        results[path.stem] = json.loads(path.read_text())
    return results


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    program, extra = sys.argv[1], sys.argv[2:]
    problems = []
    check_matrix_sizes(program, problems)
    check_tensor_fabric_crosses_spines(program, extra, problems)
    with tempfile.TemporaryDirectory() as tmp:
        one = run(program, pathlib.Path(tmp) / "jobs1", 1, extra)
        two = run(program, pathlib.Path(tmp) / "jobs2", 2, extra)
        for result in one.values():
            check_scenario(result, problems)
        check_summary(pathlib.Path(tmp) / "jobs1", one, problems)
        if not (pathlib.Path(tmp) / "jobs1" / "report.md").stat().st_size:
            problems.append("report.md is empty")
        if set(one) != set(two):
            problems.append(f"--jobs=1 and --jobs=2 ran other scenarios: {sorted(set(one) ^ set(two))}")
        for name in sorted(set(one) & set(two)):
            a = {k: v for k, v in one[name].items() if k != "runRecord"}
            b = {k: v for k, v in two[name].items() if k != "runRecord"}
            if a != b:
                problems.append(f"{name}: --jobs=1 and --jobs=2 give other results")
        check_reuse(program, pathlib.Path(tmp) / "jobs2", extra, problems)
        print(f"{len(one)} scenarios checked")
    for problem in problems:
        print(f"FAIL {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
