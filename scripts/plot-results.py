#!/usr/bin/python3
"""Plot the JSON results that the ai-fabric examples write.

Usage: plot-results.py RESULTS_DIR

Reads every *.json in RESULTS_DIR, groups the files by their "scenario" field and
writes one PNG per figure next to them:

  incast-per-sender.png     each sender's goodput in every N:1 incast over its fair
                            share, 1/N of the egress host link's goodput bound
  incast-efficiency.png     egress goodput over its bound, and Jain's index, vs N
  permutation-flows.png     every flow's goodput over the host-link bound
"""
import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the file backend)


def load(results):
    by_scenario = {}
    for path in sorted(results.glob("*.json")):
        data = json.loads(path.read_text())
        by_scenario.setdefault(data.get("scenario", "unknown"), []).append(data)
    return by_scenario


def plot_incast(runs, results):
    runs = sorted(runs, key=lambda r: r["senders"])
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for run in runs:
        n = run["senders"]
        fair = run["boundGbps"] / n
        shares = [s["goodputGbps"] / fair for s in run["perSender"]]
        ax.plot(range(1, n + 1), shares, "o-", label=f"N = {n} (fair share {fair:.2f} Gb/s)")
    ax.axhline(1.0, color="grey", linestyle=":", linewidth=1)
    ax.set_ylim(0.9, 1.05)
    ax.set_xlabel("sender")
    ax.set_ylabel("goodput / (host-link bound / N)")
    ax.set_title("N:1 incast on the scheduled fabric over RDMA: each sender's share")
    ax.legend()
    fig.tight_layout()
    fig.savefig(results / "incast-per-sender.png", dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 4))
    ns = [r["senders"] for r in runs]
    ax.plot(ns, [r["egressOverBound"] for r in runs], "o-",
            label="egress goodput / bound (post to last byte, start-up included)")
    ax.plot(ns, [r["jain"] for r in runs], "s--", label="Jain's fairness index")
    ax.set_xlabel("senders N")
    ax.set_ylim(0.9, 1.01)
    ax.set_title("Incast: link efficiency and fairness")
    ax.legend(loc="lower left")
    fig.tight_layout()
    fig.savefig(results / "incast-efficiency.png", dpi=120)
    plt.close(fig)


def plot_permutation(runs, results):
    run = runs[0]
    flows = run["flows"]
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.bar([f"{f['src']}->{f['dst']}" for f in flows], [f["overBound"] for f in flows])
    ax.axhline(0.97, color="red", linestyle=":", label="0.97 (test threshold)")
    ax.set_ylim(0.9, 1.01)
    ax.set_ylabel("goodput / host-link bound")
    ax.set_title(f"Permutation traffic: {run['cluster'].split(',')[0]}")
    ax.tick_params(axis="x", rotation=90, labelsize=7)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(results / "permutation-flows.png", dpi=120)
    plt.close(fig)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    results = pathlib.Path(sys.argv[1])
    runs = load(results)
    if not runs:
        print(f"no JSON results in {results}", file=sys.stderr)
        return 1
    plotters = {"scheduled-incast": plot_incast, "scheduled-permutation": plot_permutation}
    for scenario, scenario_runs in runs.items():
        if scenario in plotters:
            plotters[scenario](scenario_runs, results)
    for png in sorted(results.glob("*.png")):
        print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
