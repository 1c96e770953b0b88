#!/usr/bin/env python3
"""Doxygen runs over the module without a warning.

Runs doxygen with doc/doxygen.conf from MODULE_ROOT, its output and warning log in
a temporary directory that is removed afterwards, prints every warning and exits 1
if there is any (or if doxygen fails or is missing).

usage: check-doxygen.py MODULE_ROOT
"""
import pathlib
import shutil
import subprocess
import sys
import tempfile


def main(root: pathlib.Path) -> int:
    doxygen = shutil.which("doxygen")
    if doxygen is None:
        print("doxygen not found: apt-get install doxygen")
        return 1
    config = (root / "doc" / "doxygen.conf").read_text()
    with tempfile.TemporaryDirectory(prefix="ai-fabric-doxygen-") as tmp:
        log = pathlib.Path(tmp) / "warnings.log"
        # Later settings override earlier ones; "-" reads the configuration from stdin.
        config += f'\nOUTPUT_DIRECTORY = "{tmp}"\nWARN_LOGFILE = "{log}"\n'
        run = subprocess.run([doxygen, "-"], input=config, cwd=root, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        warnings = log.read_text().splitlines() if log.exists() else []
    for line in warnings:
        print(line)
    if run.returncode != 0:
        print(run.stdout, end="")
        print(f"doxygen failed with exit code {run.returncode}")
        return 1
    count = sum(1 for line in warnings if ": warning: " in line)
    print(f"{count} doxygen warnings")
    return 1 if warnings else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1]).resolve()))
