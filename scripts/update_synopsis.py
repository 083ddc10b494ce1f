#!/usr/bin/env python3
"""Regenerates the command lists the docs carry from the program itself.

README.md's "commands" block is the 'commands:' section of `graphopt --help`;
docs/usage.md's "synopsis" block is `graphopt help --synopsis`. The synopsis
test (tests/cli/synopsis_test.cc) fails when either is stale.

usage: scripts/update_synopsis.py [./build/graphopt]
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def output(binary, *args):
    return subprocess.run([binary, *args], check=True, capture_output=True, text=True).stdout


def replace_block(path, name, text):
    with open(path) as f:
        doc = f.read()
    pattern = re.compile(r"(<!-- BEGIN %s -->\n```\n).*?(```\n<!-- END %s -->)" % (name, name), re.S)
    if not pattern.search(doc):
        sys.exit("%s: no block <!-- BEGIN %s --> ... <!-- END %s -->" % (path, name, name))
    new = pattern.sub(lambda m: m.group(1) + text + m.group(2), doc)
    if new != doc:
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(new)
        os.replace(tmp, path)
        print("updated", os.path.relpath(path, ROOT))


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "graphopt")
    help_text = output(binary, "--help")
    start = help_text.index("commands:\n") + len("commands:\n")
    commands = help_text[start:help_text.index("\n\n", start) + 1]
    replace_block(os.path.join(ROOT, "README.md"), "commands", commands)
    replace_block(os.path.join(ROOT, "docs", "usage.md"), "synopsis", output(binary, "help", "--synopsis"))


if __name__ == "__main__":
    main()
