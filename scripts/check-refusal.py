#!/usr/bin/python3
"""Check that an example refuses bad input cleanly, before it builds anything.

Usage: check-refusal.py LISTING INDEX EXAMPLES_DIR
       check-refusal.py --list LISTING

Runs entry INDEX (from 0) of the refused_examples list in LISTING
(test/examples-to-refuse.py) from EXAMPLES_DIR and passes when the program exits
with status 1 (not killed by a signal, not an abort), printed nothing on standard
output (nothing ran) and printed the entry's text on standard error, without an
ns-3 abort's source file and line (file=..., line=...). With --list, prints the command of
every entry, one a line, in order (CMake registers one ctest test per line).
"""
import subprocess
import sys


def read_listing(path):
    """Return the refused_examples list of a listing file."""
    scope = {}
    with open(path, encoding="utf-8") as text:
        exec(text.read(), scope)  # the file is Python, as examples-to-run.py is
    return scope["refused_examples"]


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
    name, *args = command.split()
    run = subprocess.run([f"{examples}/{name}", *args], capture_output=True, text=True,
                         timeout=120, check=False)
    problems = []
    if run.returncode != 1:
        problems.append(f"exit status {run.returncode}, expected 1"
                        + (" (killed by a signal)" if run.returncode < 0 else ""))
    if run.stdout:
        problems.append("it printed on standard output, so it ran:\n" + run.stdout[:2000])
    if expected not in run.stderr:
        problems.append(f"standard error lacks {expected!r}")
    if "file=" in run.stderr and ", line=" in run.stderr:
        problems.append("standard error shows an abort's source file and line, not one clear "
                        "line naming the option")
    print(f"{command}\nstandard error: {run.stderr.strip()}")
    for problem in problems:
        print(f"FAIL: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
