#!/usr/bin/python3
"""Give every option of an example values it must refuse, and check each refusal.

Usage: check-bad-values.py EXAMPLES_DIR EXAMPLE

Reads the example's options and their defaults from its --PrintHelp, picks bad
values for each from the kind of its default (a whole number, a signed or a
decimal number, a time, a data rate, an address, a switch, a name from a list,
an output file), runs the example once per value, and passes when every run
exits with status 1 (not a signal, not another status), printed nothing on
standard output (nothing ran) and named the option on standard error (as
--option, or as option= in the cluster description's messages). Prints one
line per run; a failing line starts with FAIL.
"""
import re
import subprocess
import sys

# Options whose value is a file, a file prefix or a directory the example writes:
# any name is a valid one, a place nobody can create is not (not even root, who
# may create any missing directory elsewhere).
OUTPUT_OPTIONS = {"json", "stats", "csv", "pcapPrefix", "resultsDir", "output", "writeChakra"}
UNWRITABLE = "/proc/no-such-directory/result"

TIME = re.compile(r"^[0-9.]+(s|ms|us|ns|ps|fs)$")
RATE = re.compile(r"^[0-9.]+[kMGT]?bps$")
ADDRESS = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$")


def read_options(program):
    """Return [(name, default)] from the program's --PrintHelp."""
    help_text = subprocess.run([program, "--PrintHelp"], capture_output=True, text=True,
                               timeout=60, check=True).stdout
    options = []
    in_program_options = False
    for line in help_text.splitlines():
        if line.startswith("Program Options:"):
            in_program_options = True
            continue
        if in_program_options and not line.startswith("    --"):
            break
        if in_program_options:
            match = re.match(r"^\s+--(\w+):\s.*?(?:\[([^\]]*)\])?$", line)
            options.append((match.group(1), match.group(2) or ""))
    return options


def bad_values(name, default):
    """Return the values option name, with this default, must refuse."""
    if name in OUTPUT_OPTIONS:
        return [UNWRITABLE]
    if default in ("true", "false"):
        return ["maybe"]
    if default == "0":  # a whole number or a time
        return ["-1", "1x", "0.5.5"]
    if re.fullmatch(r"[0-9]+", default):
        # (not 1.5: a decimal option may show a whole default, as 400)
        return ["-1", "1x", "99999999999999999999999"]
    if re.fullmatch(r"-[0-9]+", default):
        return ["1x", "-1.5", "99999999999999999999999"]
    if TIME.match(default):
        return ["-1us", "10", "fast", "1xs"]
    if RATE.match(default):
        return ["fast", "-5Gbps", "100"]
    if ADDRESS.match(default):
        return ["10.0.0", "not-an-address"]
    if re.fullmatch(r"[0-9]*\.[0-9]+|[0-9]+\.[0-9]*", default):
        return ["abc", "nan", "inf", "1.5x"]
    return ["no-such-value"]


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    examples, name = sys.argv[1], sys.argv[2]
    program = f"{examples}/{name}"
    failures = 0
    runs = 0
    for option, default in read_options(program):
        for value in bad_values(option, default):
            argument = f"--{option}={value}"
            run = subprocess.run([program, argument], capture_output=True, text=True,
                                 timeout=120, check=False)
            runs += 1
            problems = []
            if run.returncode != 1:
                problems.append(f"exit status {run.returncode}"
                                + (" (a signal)" if run.returncode < 0 else "") + ", expected 1")
            if run.stdout:
                problems.append("it printed on standard output, so it ran")
            # The example's own refusals say --option=value; the cluster
            # description's say field=value (the option has the field's name).
            if f"--{option}" not in run.stderr and f"{option}=" not in run.stderr:
                problems.append(f"standard error does not name --{option}")
            first_line = run.stderr.strip().splitlines()[0] if run.stderr.strip() else ""
            status = "FAIL " + "; ".join(problems) if problems else "ok"
            print(f"{status}: {name} {argument} [default {default!r}]: {first_line}")
            failures += bool(problems)
    print(f"{runs} bad values given to {name}, {failures} not refused as they should be")
    return 1 if failures or runs == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
