#!/usr/bin/env python3
"""Every trace source of the module names a signature typedef that exists.

ns-3 documents a trace source by the name of the function-pointer typedef given to
AddTraceSource ("ns3::Class::NameCallback"). For each such name in model/ and
helper/, the header that defines the class must declare `typedef ... (*Name)(...)`.
Names of ns-3's own typedefs (ns3::Packet::TracedCallback,
ns3::TracedValueCallback::*) are taken as they are. Exit 1 listing every name that
has no typedef.

usage: check-trace-signatures.py MODULE_ROOT
"""
import pathlib
import re
import sys

NS3_OWN = ("ns3::Packet::", "ns3::TracedValueCallback::")


def main(root: pathlib.Path) -> int:
    sources = [p for d in ("model", "helper") for p in (root / d).rglob("*.cc")]
    headers = [p for d in ("model", "helper") for p in (root / d).rglob("*.h")]
    named = set()
    for source in sources:
        named.update(re.findall(r'"(ns3::\w+::\w+)"\)', source.read_text()))
    missing = []
    for name in sorted(named):
        if name.startswith(NS3_OWN):
            continue
        _, cls, typedef = name.split("::")
        defining = [h for h in headers
                    if re.search(rf"^class {cls}\b[^;]*$", h.read_text(), re.M)]
        if not any(re.search(rf"\(\*{typedef}\)", h.read_text()) for h in defining):
            missing.append(f"{name} (class in {', '.join(map(str, defining)) or 'no header'})")
    for m in missing:
        print(f"trace signature without a typedef: {m}")
    print(f"{len(named)} trace signatures, {len(missing)} without a typedef")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1])))
