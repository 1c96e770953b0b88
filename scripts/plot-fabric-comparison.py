#!/usr/bin/python3
"""Plot the results of the fabric comparison (examples/fabric-comparison.cc).

Usage: plot-fabric-comparison.py RESULTS_DIR [--failAt=TIME]

Reads RESULTS_DIR/summary.csv and RESULTS_DIR/scenarios/*.json and writes into
RESULTS_DIR/plots/:

  normalised-time.png     every workload and condition's iteration time over the
                          ideal fabric's, one bar per fabric
  latency-cdf.png         CDF of the pp and tp workloads' latency samples, alone
                          and with a neighbour, one line per fabric
  failure-throughput.png  dp throughput over time under each failure variant, with
                          the moment the links fail (as the scenario files
                          record it, or --failAt)
  queue-depth.png         bytes queued in the fabric over time: dp alone, with a
                          neighbour and with a failed spine
  slowdown.png            the workload's and the neighbour's slowdown under the
                          neighbour and nic conditions
  failed-links.png        dp slowdown against the number of failed leaf-spine links

A plot whose scenarios are not in the results (a subset of the matrix was run)
is skipped with one line saying so. Exit status 0 unless a plot failed.
"""
import argparse
import csv
import json
import math
import pathlib
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the file backend)
import numpy as np  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

DPI = 110
FABRICS = ["ideal", "scheduled", "ethernet", "ai-ethernet"]
FABRIC_STYLES = {
    "ideal": {"color": "grey", "linestyle": ":"},
    "scheduled": {"color": "tab:blue", "linestyle": "-"},
    "ethernet": {"color": "tab:orange", "linestyle": "--"},
    "ai-ethernet": {"color": "tab:green", "linestyle": "-."},
}
WORKLOADS = ["dp", "pp", "tp-server", "tp-fabric", "ep", "job", "neighbour"]
FAILURE_VARIANTS = ["none", "spine", "links1", "links2", "links4"]
SCENARIO_FIELDS = ["workload", "fabric", "condition", "variant"]
TIME_UNITS_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


class NoData(Exception):
    """The results hold nothing for this plot: skip it."""


def time_in_us(text):
    """'150us' or '0.2ms' (ns, us, ms, s) in microseconds."""
    match = re.fullmatch(r"\s*([0-9.]+(?:[eE][-+]?[0-9]+)?)\s*(ns|us|ms|s)\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"'{text}' is not a time such as 150us or 0.2ms")
    return float(match.group(1)) * TIME_UNITS_US[match.group(2)]


def number(record, column):
    """The column's value as a float, None if absent, empty or not finite."""
    try:
        value = float(record.get(column, ""))
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def fabric_style(fabric):
    """Colour and line style of a fabric, the same in every plot."""
    return FABRIC_STYLES.get(fabric, {"color": "black", "linestyle": "-"})


def rank(value, preferred):
    """Sort key: the value's place in preferred, values not in it after, by name."""
    return (preferred.index(value) if value in preferred else len(preferred), value)


def in_order(values, preferred):
    """Distinct values, those in preferred first in its order, then the rest by name."""
    return sorted(set(values), key=lambda v: rank(v, preferred))


def read_summary(results):
    """Rows of summary.csv as dicts, swept runs aside (report.md lists those), [] if
    the file is missing."""
    path = results / "summary.csv"
    if not path.exists():
        return []
    with path.open(newline="") as f:
        return [row for row in csv.DictReader(f) if not row.get("sweep")]


def read_scenarios(results):
    """Every scenario file but the swept ones, as a dict of its scenario fields plus
    'data', the whole file."""
    scenarios = []
    for path in sorted((results / "scenarios").glob("*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as error:
            print(f"ignored {path}: {error}", file=sys.stderr)
            continue
        fields = data.get("scenario", {})
        if fields.get("sweep"):
            continue  # swept runs are listed in report.md, not plotted
        scenarios.append({name: fields.get(name, "") for name in SCENARIO_FIELDS})
        scenarios[-1]["data"] = data
    return scenarios


def select(records, **fields):
    """The records (summary rows or scenarios) whose fields have these values."""
    return [r for r in records if all(r.get(k, "") == v for k, v in fields.items())]


def by_fabric(records):
    """{fabric: record} in the comparison's order of fabrics."""
    return {r["fabric"]: r for r in sorted(records, key=lambda r: rank(r["fabric"], FABRICS))}


def condition_label(record):
    """'neighbour' or 'failure links2': the condition and its variant."""
    return " ".join(filter(None, [record["condition"], record.get("variant", "")]))


def series(scenario, name):
    """(times in us, values) of a scenario's time series, None if it has none."""
    data = scenario["data"].get("series", {})
    values = data.get(name)
    width = data.get("binWidth_us")
    if not values or not width:
        return None
    return np.arange(len(values)) * width, np.array(values, dtype=float)  # null: NaN


def grouped_bars(ax, group_labels, bars):
    """Bars side by side per group; bars: (values per group, bar style, legend label)."""
    width = 0.8 / len(bars)
    for i, (values, style, label) in enumerate(bars):
        xs = [g + (i - (len(bars) - 1) / 2) * width for g, v in enumerate(values) if v is not None]
        ax.bar(xs, [v for v in values if v is not None], width, label=label, **style)
    ax.set_xticks(range(len(group_labels)))
    ax.set_xticklabels(group_labels, rotation=35, ha="right")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xlim(-0.6, len(group_labels) - 0.4)
    ax.grid(axis="y", alpha=0.3)


def plot_normalised_time(summary, scenarios, options):
    """Grouped bars of normalised time, one group per workload and condition."""
    rows = [r for r in summary if r["workload"] != "neighbour"
            and number(r, "normalised") is not None]
    groups = list(dict.fromkeys((r["workload"], condition_label(r)) for r in rows))
    if not groups:
        raise NoData("no workload's normalised time in summary.csv")
    fabrics = in_order((r["fabric"] for r in rows), FABRICS)
    normalised = {(r["workload"], condition_label(r), r["fabric"]): number(r, "normalised")
                  for r in rows}
    fig, ax = plt.subplots(figsize=(max(8, 0.6 * len(groups) + 2), 5))
    bars = [([normalised.get(g + (f,)) for g in groups], {"color": fabric_style(f)["color"]}, f)
            for f in fabrics]
    grouped_bars(ax, [f"{w}, {c}" for w, c in groups], bars)
    values = [v for v in normalised.values() if v is not None]
    if max(values) > 10:
        # A timeout's stall (tens of times ideal) beside gaps of a few percent: on a
        # linear axis the small gaps would vanish.
        ax.set_yscale("log")
    ax.set_ylabel("time / ideal fabric's")
    ax.set_title("Iteration time over the ideal fabric's")
    ax.legend(ncol=len(fabrics))
    return fig


def panel_grid(count, columns, panel_size, **subplot_options):
    """A figure with count panels in rows of columns, the unused ones hidden."""
    columns = min(columns, count)
    rows = math.ceil(count / columns)
    fig, axes = plt.subplots(rows, columns, squeeze=False, **subplot_options,
                             figsize=(panel_size[0] * columns, panel_size[1] * rows + 0.6))
    axes = axes.flatten()
    for ax in axes[count:]:
        ax.set_visible(False)
    return fig, axes[:count]


def plot_latency_cdf(summary, scenarios, options):
    """CDF of latencySamples_us per pp and tp workload and condition, one line per fabric."""
    panels = {}
    for s in scenarios:
        samples = s["data"].get("metrics", {}).get("latencySamples_us")
        if samples and (s["workload"] == "pp" or s["workload"].startswith("tp")) \
                and s["condition"] in ("alone", "neighbour"):
            panels.setdefault((s["workload"], s["condition"]), {})[s["fabric"]] = samples
    if not panels:
        raise NoData("no latency samples of pp or tp alone or with a neighbour")
    keys = sorted(panels, key=lambda k: (rank(k[0], WORKLOADS), k[1]))
    fig, axes = panel_grid(len(keys), 3, (5, 3.6))
    for ax, (workload, condition) in zip(axes, keys):
        everything = []
        for fabric in in_order(panels[(workload, condition)], FABRICS):
            samples = np.sort(np.array(panels[(workload, condition)][fabric], dtype=float))
            everything.extend(samples)
            fraction = np.arange(1, len(samples) + 1) / len(samples)
            ax.step(samples, fraction, where="post", label=fabric, linewidth=1.6,
                    **fabric_style(fabric))
        if min(everything) > 0 and max(everything) / min(everything) > 10:
            ax.set_xscale("log")
        ax.set_title(f"{workload}, {condition}")
        ax.set_xlabel("latency (us)")
        ax.set_ylabel("fraction of samples")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    fig.suptitle("Latency CDFs (pp: transfer, tp: operation)")
    return fig


def draw_series_panels(panels, series_name, scale, ylabel, fail_at_us, sharex=False):
    """One panel per (title, {fabric: scenario}, links failed), a line per fabric of the
    scaled series, and where links failed a line at fail_at_us."""
    fig, axes = panel_grid(len(panels), 1, (11, 2.6), sharex=sharex)
    for ax, (title, scenarios, links_failed) in zip(axes, panels):
        for fabric, scenario in scenarios.items():
            times_values = series(scenario, series_name)
            if times_values is not None:
                ax.plot(times_values[0], times_values[1] * scale, label=fabric, linewidth=1.3,
                        **fabric_style(fabric))
        if links_failed:
            ax.axvline(fail_at_us, color="red", linestyle="--", linewidth=1,
                       label=f"links fail ({fail_at_us:g} us)")
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    axes[-1].set_xlabel("time (us)")
    return fig


def panels_of(scenarios, workload, conditions_and_variants):
    """[(title, {fabric: scenario}, links failed)] of the workload's (condition, variant)s
    that ran."""
    panels = []
    for condition, variant in conditions_and_variants:
        found = select(scenarios, workload=workload, condition=condition, variant=variant)
        if found:
            title = f"{workload}, {condition_label(found[0])}"
            links_failed = condition == "failure" and variant != "none"
            panels.append((title, by_fabric(found), links_failed))
    return panels


def plot_failure_throughput(summary, scenarios, options):
    """dp throughput over time, one panel per failure variant."""
    variants = in_order((s["variant"] for s in select(scenarios, workload="dp",
                                                      condition="failure")), FAILURE_VARIANTS)
    panels = panels_of(scenarios, "dp", [("failure", v) for v in variants])
    if not panels:
        raise NoData("no dp failure scenario")
    fig = draw_series_panels(panels, "deliveredGbps", 1.0, "delivered (Gb/s)",
                             options.failAt, sharex=True)
    fig.suptitle("dp: throughput delivered to its GPUs when fabric links fail")
    return fig


def plot_queue_depth(summary, scenarios, options):
    """Bytes queued in the fabric over time for dp alone, with a neighbour, failed spine."""
    panels = panels_of(scenarios, "dp", [("alone", ""), ("neighbour", ""),
                                         ("failure", "spine")])
    if not panels:
        raise NoData("no dp alone, neighbour or failure spine scenario")
    fig = draw_series_panels(panels, "queuedBytes", 1e-6, "queued (MB)",
                             options.failAt)
    fig.suptitle("Bytes queued in the fabric (scheduled: VOQs; Ethernet: switch buffers)")
    return fig


def plot_slowdown(summary, scenarios, options):
    """Workload's and neighbour's slowdown per fabric under the neighbour and nic conditions."""
    rows = [r for r in summary
            if r["condition"] in ("neighbour", "nic") and number(r, "slowdown") is not None]
    groups = list(dict.fromkeys((r["workload"], r["condition"]) for r in rows))
    if not groups:
        raise NoData("no neighbour or nic condition in summary.csv")
    fabrics = in_order((r["fabric"] for r in rows), FABRICS)
    rows = {(r["workload"], r["condition"], r["fabric"]): r for r in rows}

    def values(fabric, column):
        """The column for the fabric in every group; a slowdown of 0 means none measured."""
        return [number(rows.get(g + (fabric,), {}), column) or None for g in groups]

    bars = []
    for fabric in fabrics:
        colour = fabric_style(fabric)["color"]
        bars.append((values(fabric, "slowdown"), {"color": colour}, fabric))
        bars.append((values(fabric, "neighbourSlowdown"),
                     {"color": "white", "edgecolor": colour, "hatch": "///"}, None))
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(groups) + 2), 5))
    grouped_bars(ax, [f"{w}, {c}" for w, c in groups], bars)
    ax.set_ylabel("time / same fabric's without the condition")
    ax.set_title("Slowdown: the workload (solid) and its neighbour (hatched)")
    handles, labels = ax.get_legend_handles_labels()
    handles.append(Patch(facecolor="white", edgecolor="black", hatch="///"))
    labels.append("the neighbour")
    ax.legend(handles, labels, ncol=len(labels), fontsize=9)
    return fig


def plot_failed_links(summary, scenarios, options):
    """dp slowdown against the number of failed leaf-spine links, one line per fabric."""
    curves = {}
    for row in select(summary, workload="dp", condition="failure"):
        match = re.fullmatch(r"links(\d+)", row["variant"])
        if match and number(row, "slowdown") is not None:
            curves.setdefault(row["fabric"], {0: 1.0})[int(match.group(1))] = \
                number(row, "slowdown")
    if not curves:
        raise NoData("no dp failure with failed links (links1, links2, ...) in summary.csv")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for fabric in in_order(curves, FABRICS):
        counts = sorted(curves[fabric])
        ax.plot(counts, [curves[fabric][n] for n in counts], marker="o", label=fabric,
                **fabric_style(fabric))
    ax.set_xticks(sorted({n for curve in curves.values() for n in curve}))
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel("failed leaf-spine links")
    ax.set_ylabel("time / same fabric's without failure")
    ax.set_title("dp: slowdown against failed links")
    ax.grid(alpha=0.3)
    ax.legend()
    return fig


PLOTS = [
    ("normalised-time.png", plot_normalised_time),
    ("latency-cdf.png", plot_latency_cdf),
    ("failure-throughput.png", plot_failure_throughput),
    ("queue-depth.png", plot_queue_depth),
    ("slowdown.png", plot_slowdown),
    ("failed-links.png", plot_failed_links),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", type=pathlib.Path, metavar="RESULTS_DIR")
    parser.add_argument("--failAt", type=time_in_us, default=None,
                        help="when links failed under the failure condition (default: as "
                             "the scenario files say, else 150us)")
    options = parser.parse_args()
    if not options.results.is_dir():
        parser.error(f"{options.results} is not a folder")
    summary = read_summary(options.results)
    scenarios = read_scenarios(options.results)
    if options.failAt is None:
        recorded = [s["data"]["failAt_us"] for s in scenarios if "failAt_us" in s["data"]]
        options.failAt = recorded[0] if recorded else 150.0
    if not summary and not scenarios:
        print(f"no summary.csv nor scenarios/*.json in {options.results}", file=sys.stderr)
        return 1
    plots = options.results / "plots"
    plots.mkdir(exist_ok=True)
    failed = False
    for name, plot in PLOTS:
        try:
            fig = plot(summary, scenarios, options)
        except NoData as reason:
            print(f"skipped {name}: {reason}")
            continue
        except Exception as error:  # one broken plot should not cost the others
            print(f"failed {name}: {type(error).__name__}: {error}", file=sys.stderr)
            failed = True
            continue
        fig.tight_layout()
        fig.savefig(plots / name, dpi=DPI)
        plt.close(fig)
        print(f"wrote {plots / name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
