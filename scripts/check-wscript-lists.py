#!/usr/bin/python3
"""Check that wscript-compat/wscript builds exactly what CMakeLists.txt builds.

Usage: check-wscript-lists.py MODULE_DIR

Reads the library sources, headers and test sources of the build_lib() call in
CMakeLists.txt and the examples of examples/CMakeLists.txt, runs the wscript's
build() against a recording stand-in for waf's build context, and prints every
difference. Exit status 1 when the lists differ.
"""
import pathlib
import re
import sys

KEYWORDS = {"LIBNAME", "SOURCE_FILES", "HEADER_FILES", "LIBRARIES_TO_LINK", "TEST_SOURCES",
            "DEPRECATED_HEADER_FILES", "MODULE_ENABLED_FEATURES", "PRIVATE_HEADER_FILES",
            "NAME", "IGNORE_PCH"}


def cmake_calls(text, function):
    """Yield {keyword: [values]} for each call of function in a CMake file."""
    text = re.sub(r"#[^\n]*", "", text)
    for match in re.finditer(function + r"\s*\((.*?)\)", text, re.S):
        args, key = {}, None
        for word in match.group(1).split():
            if word in KEYWORDS:
                key = word
                args.setdefault(key, [])
            elif key and not word.startswith(("${ai_fabric_mpi_", "${ai_fabric_protobuf_")):
                # ${ai_fabric_mpi_...} lists hold the MPI-only files and
                # ${ai_fabric_protobuf_...} the generated Chakra schema, which the
                # waf-era build does not offer (its Chakra reader says so).
                args[key].append(word)
        yield args


def cmake_lists(module):
    (lib,) = list(cmake_calls((module / "CMakeLists.txt").read_text(), r"\bbuild_lib"))
    examples = {}
    example_file = module / "examples" / "CMakeLists.txt"
    if example_file.exists():
        for call in cmake_calls(example_file.read_text(), r"\bbuild_lib_example"):
            # The GoogleTest program of an ns-3 tree has no waf counterpart: waf-era
            # trees run the ns-3 suites only.
            if call["NAME"][0] != "ai-fabric-gtest":
                examples[call["NAME"][0]] = sorted("examples/" + s for s in call["SOURCE_FILES"])
    return {
        "library sources": sorted(lib.get("SOURCE_FILES", [])),
        "headers": sorted(lib.get("HEADER_FILES", [])),
        "test sources": sorted(lib.get("TEST_SOURCES", [])),
        "examples": examples,
    }


class Recorder:
    """Stands in for a waf task generator: remembers what is assigned to it."""

    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)
        self.source = []
        self.env = self

    def append_value(self, *args):
        pass


class FakeBuild:
    """Stands in for waf's build context and ns-3's helpers on it."""

    def __init__(self):
        self.module = self.test = self.headers = None
        self.programs = []
        self.env = Recorder(ENABLE_EXAMPLES=True, ENABLE_TESTS=True)

    def create_ns3_module(self, name, deps=()):
        self.module = Recorder(name=name)
        return self.module

    def create_ns3_module_test_library(self, name):
        self.test = Recorder(name=name)
        return self.test

    def create_ns3_program(self, name, deps=()):
        program = Recorder(name=name)
        self.programs.append(program)
        return program

    def __call__(self, **kwargs):
        self.headers = Recorder(**kwargs)
        return self.headers


def listed(value):
    return sorted(value.split() if isinstance(value, str) else value)


def wscript_lists(module):
    scope = {}
    exec((module / "wscript-compat" / "wscript").read_text(), scope)
    bld = FakeBuild()
    scope["build"](bld)
    return {
        "library sources": listed(bld.module.source),
        "headers": listed(bld.headers.source),
        "test sources": listed(bld.test.source),
        "examples": {p.name: listed(p.source) for p in bld.programs},
    }


def main():
    module = pathlib.Path(sys.argv[1])
    want, have = cmake_lists(module), wscript_lists(module)
    failures = 0
    for key in want:
        if want[key] != have[key]:
            failures += 1
            print(f"{key} differ:\n  CMakeLists.txt: {want[key]}\n  wscript:        {have[key]}")
    if failures:
        print("wscript-compat/wscript is out of date with CMakeLists.txt")
        return 1
    print("wscript-compat/wscript lists the same files as CMakeLists.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
