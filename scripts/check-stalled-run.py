#!/usr/bin/python3
"""Check that an example in which nothing can progress ends, and says why.

Usage: check-stalled-run.py LISTING INDEX EXAMPLES_DIR
       check-stalled-run.py --list LISTING

Runs entry INDEX (from 0) of the stalled_examples list in LISTING
(test/examples-to-stall.py) from EXAMPLES_DIR, in a temporary folder that also
receives its result files, and passes when the program ends by itself within the
time limit with exit status 1 (not killed by a signal, not an abort), its standard
output says "nothing more could progress" and holds the entry's text, nothing it
printed is a NaN, an infinity or a negative time, and every JSON file it wrote reads
as JSON without NaN or Infinity. With --list, prints the command of every entry, one
a line, in order (CMake registers one ctest test per line).
"""
import json
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

TIME_LIMIT = 300  # seconds of wall time: a stalled run used to go on for ever
NOT_FINITE = re.compile(r"(?<![\w-])-?(nan|inf|infinity)(?![\w])", re.IGNORECASE)
NEGATIVE_TIME = re.compile(r"((?<![\w.-])|\+)-\d+(\.\d+)?\s?(s|ms|us|ns)\b")


def read_listing(path):
    """Return the stalled_examples list of a listing file."""
    scope = {}
    with open(path, encoding="utf-8") as text:
        exec(text.read(), scope)  # the file is Python, as examples-to-run.py is
    return scope["stalled_examples"]


def reject_constant(token):
    """json.loads hook: NaN and Infinity are not JSON."""
    raise ValueError(f"{token} in JSON")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--list":
        for command, _ in read_listing(sys.argv[2]):
            print(command)
        return 0
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    listing, index, examples = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    command, expected = read_listing(listing)[index]
    name, *args = shlex.split(command)
    problems = []
    with tempfile.TemporaryDirectory() as folder:
        if name.startswith("fabric-") or name == "collective-perf":
            args.append(f"--json={folder}/{name}.json")
        elif name != "rdma-point-to-point":
            args.append(f"--resultsDir={folder}")
        program = str(pathlib.Path(examples).resolve() / name)
        try:
            run = subprocess.run([program, *args], capture_output=True, text=True,
                                 timeout=TIME_LIMIT, check=False, cwd=folder)
        except subprocess.TimeoutExpired:
            print(f"{command}\nFAIL: still running after {TIME_LIMIT} s")
            return 1
        if run.returncode != 1:
            problems.append(f"exit status {run.returncode}, expected 1"
                            + (" (killed by a signal)" if run.returncode < 0 else ""))
        if "nothing more could progress" not in run.stdout:
            problems.append("standard output does not say that nothing more could progress")
        if expected not in run.stdout:
            problems.append(f"standard output lacks {expected!r}")
        for line in run.stdout.splitlines():
            if NOT_FINITE.search(line) or NEGATIVE_TIME.search(line):
                problems.append(f"printed: {line.strip()}")
        for path in sorted(pathlib.Path(folder).rglob("*.json")):
            try:
                json.loads(path.read_text(), parse_constant=reject_constant)
            except ValueError as error:
                problems.append(f"{path.name}: {error}")
    print(f"{command}\n{run.stdout}\nstandard error: {run.stderr.strip()[:2000]}")
    for problem in problems:
        print(f"FAIL: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
