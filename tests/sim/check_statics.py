#!/usr/bin/env python3
"""The simulator's function-local statics are never destroyed.

A program may call CUDA after its main returns: from the destructor of a
global object, or from an atexit handler, and the simulator's own leak check
reports from one. A static object of a function is destroyed at exit in the
reverse order of its construction, so one first built after the leak check was
registered is gone when the check runs. Each such static is therefore a
reference to an object made with new (`static auto &t = *new std::map<...>`),
and this script refuses a function-local static of a class type (std::...)
declared any other way.

usage: check_statics.py [--self-test]   (from the repository's root)
"""
import pathlib
import re
import sys

# An indented `static` (inside a function or class body) of a std:: type, not a
# reference or a pointer.
BAD = re.compile(r'^\s+static\s+(?:thread_local\s+)?(?:const\s+)?std::[\w:]+(?:<[^;=]*>)?\s+\w')


def problems(name, text):
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        if BAD.match(line):
            found.append(f"{name}:{n}: a static of a function that is destroyed at exit "
                         f"(write it as static auto &x = *new T; see tests/sim/check_statics.py): "
                         f"{line.strip()}")
    return found


def self_test():
    bad = ["    static std::string cwd;", "    static std::map<std::string, int> origin;",
           "  static const std::vector<int> v{1, 2};", "    static std::set<std::string> told;"]
    good = ["    static auto &cwd = *new std::string;", "static std::map<int, int> g_table;",
            "    static std::atomic<int> *p = nullptr;", "    static int calls = 0;",
            "    static auto &t = *new std::map<std::string, std::vector<std::string>>;"]
    for line in bad:
        assert problems("x.cpp", line), f"not refused: {line}"
    for line in good:
        assert not problems("x.cpp", line), f"refused: {line}"
    print("check_statics.py: self-test passed")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    found = []
    for path in sorted(pathlib.Path("lib/cudasim").rglob("*")):
        if path.suffix in (".cpp", ".h") and path.is_file():
            found += problems(str(path), path.read_text(encoding="utf-8"))
    for p in found:
        print(p)
    if found:
        return 1
    print("check_statics.py: no function-local static of lib/cudasim is destroyed at exit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
