#!/usr/bin/env python3
"""The test suites compile against every ns-3 release the module supports.

ns-3.42 made TestCase's durations and TestSuite's types scoped enums
(TestCase::Duration::QUICK, TestSuite::Type::UNIT); the unscoped spellings
(TestCase::QUICK, TestSuite::UNIT, a bare UNIT) no longer compile there, while
TestSuite::Type::UNIT compiles in every release (model/compat/ai-fabric-ns3-compat.h).
Quick cases name no duration; others use ai_fabric::ExtensiveDuration(). Exit 1
listing every unscoped use with its file and line.

usage: check-test-enums.py MODULE_ROOT
"""
import pathlib
import re
import sys

UNSCOPED = re.compile(
    r"TestCase::(QUICK|EXTENSIVE|TAKES_FOREVER)\b"
    r"|TestSuite::(UNIT|SYSTEM|PERFORMANCE|EXAMPLE)\b"
    r"|TestSuite\s*\([^,()]*,\s*(UNIT|SYSTEM|PERFORMANCE|EXAMPLE)\s*\)")


def main(root: pathlib.Path) -> int:
    sources = sorted(p for p in (root / "test").rglob("*") if p.suffix in (".h", ".cc"))
    found = []
    for source in sources:
        for number, line in enumerate(source.read_text().splitlines(), 1):
            if UNSCOPED.search(line):
                found.append(f"{source.relative_to(root)}:{number}: {line.strip()}: an "
                             "unscoped test enum (ns-3.42+ needs TestSuite::Type::UNIT; "
                             "quick cases name no duration)")
    for f in found:
        print(f)
    print(f"{len(sources)} test files, {len(found)} unscoped test enums")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1])))
