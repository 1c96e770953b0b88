#!/usr/bin/python3
"""Check that the test runner knows exactly the ai-fabric suites CMake registered.

Usage: check-suite-list.py RUNNER SUITE[,SUITE...]
"""
import subprocess
import sys


def main():
    runner, registered = sys.argv[1], sys.argv[2]
    expected = sorted(s for s in registered.split(",") if s)
    listing = subprocess.run([runner, "--list"], check=True, capture_output=True, text=True)
    known = sorted(
        word for line in listing.stdout.splitlines() for word in line.split()
        if word.startswith("ai-fabric-"))
    if known != expected:
        print("suites in the runner:   ", known)
        print("suites registered in ctest:", expected)
        return 1
    print(f"{len(known)} suites registered, all known to the runner")
    return 0


if __name__ == "__main__":
    sys.exit(main())
