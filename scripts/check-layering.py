#!/usr/bin/env python3
"""No file under model/ includes a header of helper/.

Dependencies run one way: helpers build models, models never use a helper. A
helper header is any file under helper/ ending in .h; a model file includes one
when it has `#include "ns3/<name>.h"`, `#include "<name>.h"`, `#include
<ns3/<name>.h>` or an include path ending in `helper/<name>.h` with <name>.h one
of them (headers install flat as ns3/<name>.h, so the path alone does not tell).
Exit 1 listing every such include with its file and line.

usage: check-layering.py MODULE_ROOT
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def helper_header(path: str, helpers: set) -> bool:
    """Whether an include path names one of the helper headers."""
    name = path.rsplit("/", 1)[-1]
    if name not in helpers:
        return False
    return path in (name, "ns3/" + name) or path.endswith("helper/" + name)


def main(root: pathlib.Path) -> int:
    helpers = {p.name for p in (root / "helper").rglob("*.h")}
    model = sorted(p for p in (root / "model").rglob("*") if p.suffix in (".h", ".cc"))
    found = []
    for source in model:
        for number, line in enumerate(source.read_text().splitlines(), 1):
            match = INCLUDE.match(line)
            if match and helper_header(match.group(2), helpers):
                found.append(f"{source.relative_to(root)}:{number}: {line.strip()}: "
                             f"a header of helper/ (model/ must not include helpers)")
    for f in found:
        print(f)
    print(f"{len(model)} model files, {len(helpers)} helper headers, "
          f"{len(found)} helper includes in model/")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1])))
