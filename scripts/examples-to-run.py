#!/usr/bin/python3
"""Read test/examples-to-run.py (ns-3's format) and print the C++ examples to run.

Usage: examples-to-run.py --list PATH          (out of tree)
       examples-to-run.py --list-in-tree PATH  (inside an ns-3 tree)
Prints one line per example whose do_run condition is true: the program name
followed by its arguments, exactly as test.py would run it. Out of tree the
GoogleTest program is left out: ctest runs its tests one by one.
"""
import sys


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("--list", "--list-in-tree"):
        print(__doc__, file=sys.stderr)
        return 2
    scope = {}
    with open(sys.argv[2], encoding="utf-8") as listing:
        exec(listing.read(), scope)  # the file is Python by ns-3's convention
    for entry in scope.get("cpp_examples", []):
        name, do_run = entry[0], entry[1]
        if sys.argv[1] == "--list" and name.split()[0] == "ai-fabric-gtest":
            continue
        if eval(do_run, {"True": True, "False": False}):
            print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
