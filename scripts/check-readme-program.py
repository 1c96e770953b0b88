#!/usr/bin/env python3
"""README.md quotes examples/first-cluster.cc as it is.

The README's first program is the example's text from its first #include to its
end, in the ```cpp block that follows the README's link to the file. ctest builds
and runs the example (test/examples-to-run.py); this check keeps the quote equal
to what it runs. Exit 1 with a diff when they differ.

usage: check-readme-program.py MODULE_ROOT
"""
import difflib
import pathlib
import re
import sys

EXAMPLE = "examples/first-cluster.cc"


def main(root: pathlib.Path) -> int:
    readme = (root / "README.md").read_text(encoding="utf-8")
    link = readme.find("(" + EXAMPLE + ")")
    block = re.compile(r"^```cpp\n(.*?)^```$", re.M | re.S).search(readme, link)
    if link < 0 or block is None:
        print(f"README.md: no link to {EXAMPLE} followed by a ```cpp block")
        return 1
    source = (root / EXAMPLE).read_text(encoding="utf-8")
    start = source.find("#include")
    quoted, actual = block.group(1).splitlines(), source[start:].splitlines()
    if quoted != actual:
        sys.stdout.writelines(
            difflib.unified_diff([l + "\n" for l in actual], [l + "\n" for l in quoted],
                                 EXAMPLE, "README.md"))
        print(f"README.md does not quote {EXAMPLE} as it is (from its first #include)")
        return 1
    print(f"README.md quotes {EXAMPLE} as it is ({len(actual)} lines)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(pathlib.Path(sys.argv[1])))
