#!/usr/bin/python3
"""Re-run the program that wrote a result file and compare the results.

Usage: rerun-result.py RESULT.json [--program PATH]

Reads the file's runRecord (helper/run-record.h): the program, its arguments,
the environment variables that change ns-3 defaults. Runs the program again
(by default build/examples/<program> of this module) with the same arguments,
its output files (--json, --stats, --resultsDir) sent to a temporary folder,
and compares the new result file with the old one: every value must be equal,
apart from the paths and the module version in the runRecord. Prints each
difference; exit status 0 when the results are the same, 1 when they differ,
2 when the file cannot be re-run.
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

OUTPUT_OPTIONS = ("--json=", "--stats=", "--resultsDir=")


def differences(old, new, where=""):
    """Yield a line for every value that differs between two JSON trees."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            if key not in old or key not in new:
                yield f"{where}/{key}: only in the {'new' if key in new else 'old'} result"
            else:
                yield from differences(old[key], new[key], f"{where}/{key}")
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new)):
            yield from differences(a, b, f"{where}[{i}]")
    elif old != new:
        yield f"{where}: {old!r} before, {new!r} now"


def comparable(result):
    """The result without what legitimately changes between runs: paths, version."""
    result = dict(result)
    record = dict(result.pop("runRecord", {}))
    record.pop("arguments", None)
    record.pop("moduleVersion", None)
    result["runRecord"] = record
    return result


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--program"):
        print(__doc__, file=sys.stderr)
        return 2
    path = pathlib.Path(argv[1])
    old = json.loads(path.read_text())
    record = old.get("runRecord")
    if not record or "program" not in record:
        print(f"{path}: no runRecord with a program: cannot re-run it", file=sys.stderr)
        return 2
    module = pathlib.Path(__file__).resolve().parent.parent
    program = pathlib.Path(argv[3]).resolve() if len(argv) == 4 else (
        module / "build" / "examples" / record["program"])
    if not program.exists():
        print(f"{program}: not built (give --program PATH)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        arguments = [a for a in record["arguments"] if not a.startswith(OUTPUT_OPTIONS)]
        new_path = pathlib.Path(folder) / path.name
        if any(a.startswith("--json=") for a in record["arguments"]):
            arguments.append(f"--json={new_path}")
        else:
            # The workload examples write <resultsDir>/<name>.json.
            arguments.append(f"--resultsDir={folder}")
        environment = dict(os.environ)
        for name in ("NS_ATTRIBUTE_DEFAULT", "NS_GLOBAL_VALUE"):
            environment.pop(name, None)
        environment.update(record.get("environment", {}))
        run = subprocess.run([str(program)] + arguments, env=environment, cwd=folder,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            print(f"{program.name} {' '.join(arguments)} failed ({run.returncode}):\n"
                  f"{run.stderr}", file=sys.stderr)
            return 1
        if not new_path.exists():
            print(f"the re-run wrote no {new_path.name}", file=sys.stderr)
            return 1
        new = json.loads(new_path.read_text())
    lines = list(differences(comparable(old), comparable(new)))
    for line in lines:
        print(line)
    print(f"{path}: {'the same results' if not lines else f'{len(lines)} values differ'}"
          f" when re-run ({program.name} {' '.join(record['arguments'])})")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
