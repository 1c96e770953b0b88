#!/usr/bin/python3
"""Plot the JSON results that the ai-fabric examples write.

Usage: plot-results.py RESULTS_DIR

Reads every *.json in RESULTS_DIR, groups the runs by their "scenario" and
"fabric" fields and writes one PNG per figure next to them:

  incast-per-sender.png     each sender's goodput in every N:1 incast over its fair
                            share, 1/N of the egress host link's goodput bound, one
                            panel per fabric and congestion control
  incast-efficiency.png     egress goodput over its bound, and Jain's index, vs N,
                            for every fabric
  permutation-flows.png     every flow's goodput over its bound (host link or
                            fabric, whichever binds), for every fabric
  failover-throughput.png   aggregate delivered throughput over time in runs
                            where links fail (and return), with the bound left
                            after the failure, one line per fabric
"""
import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the file backend)


def load(results):
    """Runs by scenario, then by fabric (and congestion control, where it has one)."""
    by_scenario = {}
    for path in sorted(results.glob("*.json")):
        data = json.loads(path.read_text())
        name = data.get("scenario", "unknown")
        if "failure" in data:
            name += "-failover"
        scenario = by_scenario.setdefault(name, {})
        label = data.get("fabric", "scheduled")
        if data.get("transport") == "rdma":
            label += f", congestion control {data['congestionControl']}"
        scenario.setdefault(label, []).append(data)
    return by_scenario


def plot_incast(by_fabric, results):
    fabrics = sorted(by_fabric)
    fig, axes = plt.subplots(1, len(fabrics), figsize=(7 * len(fabrics), 4.5), squeeze=False)
    for ax, fabric in zip(axes[0], fabrics):
        runs = sorted(by_fabric[fabric], key=lambda r: r["senders"])
        for run in runs:
            n = run["senders"]
            fair = run["boundGbps"] / n  # the bound that binds: host link or fabric
            shares = [s["goodputGbps"] / fair for s in run["perSender"]]
            ax.plot(range(1, n + 1), shares, "o-", label=f"N = {n} (fair {fair:.2f} Gb/s)")
        ax.axhline(1.0, color="grey", linestyle=":", linewidth=1)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("sender")
        ax.set_ylabel("goodput / (bound / N)")
        ax.set_title(f"N:1 RDMA incast, {fabric}")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(results / "incast-per-sender.png", dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for fabric in fabrics:
        runs = sorted(by_fabric[fabric], key=lambda r: r["senders"])
        ns = [r["senders"] for r in runs]
        ax.plot(ns, [r["egressOverBound"] for r in runs], "o-",
                label=f"{fabric}: egress goodput / bound")
        ax.plot(ns, [r["jain"] for r in runs], "s--", label=f"{fabric}: Jain's index")
    ax.set_xlabel("senders N")
    ax.set_ylim(0, 1.05)
    ax.set_title("Incast: link efficiency (post to last byte) and fairness")
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    fig.savefig(results / "incast-efficiency.png", dpi=120)
    plt.close(fig)


def plot_permutation(by_fabric, results):
    fabrics = sorted(by_fabric)
    fig, ax = plt.subplots(figsize=(9, 4))
    width = 0.8 / len(fabrics)
    for i, fabric in enumerate(fabrics):
        flows = by_fabric[fabric][0]["flows"]
        xs = [j + i * width for j in range(len(flows))]
        ax.bar(xs, [f["overBound"] for f in flows], width, label=fabric)
    flows = by_fabric[fabrics[0]][0]["flows"]
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(flows))])
    ax.set_xticklabels([f"{f['src']}->{f['dst']}" for f in flows], rotation=90, fontsize=7)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("goodput / its bound")
    ax.set_title(f"Permutation traffic: {by_fabric[fabrics[0]][0]['cluster'].split(',')[0]}")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(results / "permutation-flows.png", dpi=120)
    plt.close(fig)


def plot_failover(by_fabric, results):
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for fabric in sorted(by_fabric):
        run = by_fabric[fabric][0]
        series = run["timeSeries"]
        (line,) = ax.plot([s["timeUs"] for s in series], [s["gbps"] for s in series],
                          label=fabric)
        # Each fabric's own bounds (cells and credits, or frames), in its colour.
        ax.axhline(run["aggregateBoundGbps"], color=line.get_color(), linestyle="--",
                   linewidth=0.8, label=f"{fabric.split(',')[0]} bound, all links")
        ax.axhline(run["failure"]["aggregateBoundGbps"], color=line.get_color(),
                   linestyle=":", linewidth=0.8,
                   label=f"{fabric.split(',')[0]} bound, links left")
    failure = next(iter(by_fabric.values()))[0]["failure"]
    ax.axvline(failure["failAtUs"], color="red", linestyle=":", linewidth=1, label="links fail")
    if failure["restoreAtUs"] > 0:
        ax.axvline(failure["restoreAtUs"], color="green", linestyle=":", linewidth=1,
                   label="links return")
    ax.set_xlabel("time (us)")
    ax.set_ylabel("aggregate delivered (Gb/s)")
    ax.set_ylim(bottom=0)
    ax.set_title(f"{failure['linksDown']} fabric links fail under an RDMA permutation")
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(results / "failover-throughput.png", dpi=120)
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
    plotters = {
        "fabric-incast": plot_incast,
        "fabric-permutation": plot_permutation,
        "fabric-permutation-failover": plot_failover,
    }
    for scenario, by_fabric in runs.items():
        if scenario in plotters:
            plotters[scenario](by_fabric, results)
    for png in sorted(results.glob("*.png")):
        print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
