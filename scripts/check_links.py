#!/usr/bin/env python3
"""Checks the references of the documentation (the docs_links test).

(a) Every relative Markdown link (and image) in README.md and docs/**/*.md points to
    an existing file or folder; a link with `#anchor` into a Markdown file (or into the
    same file) names one of its headings, as GitHub makes their anchors.
(b) Every comment under src/, bench/, scripts/ and tests/ that cites a section, as in
    `(docs/pretrain.md, "Zero-shot")` or `(README, "Usage")`, names an existing file
    whose headings include a heading starting with that title; every `docs/...md` path a
    comment names (outside docs/results/, where outputs go) exists, and so does every
    other Markdown file a comment cites by its bare name (`DESIGN.md, "Contracts"`).
(c) Every source file a comment names exists: `sim/plan.h`, `cli/args.cc` (under src/),
    `bench/plans_unchanged.sh`, `tests/cli/cli_test.cc`, `scripts/fuzz.sh`: a path of
    a source folder, ending .h, .cc, .py or .sh.

Run from the repository root (or anywhere: it finds the root beside itself). Prints
each broken reference as `FILE:LINE: what is broken`; exits 1 if any, 0 otherwise.
Standard library only.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
INLINE_CODE = re.compile(r"`+[^`]*`+")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def markdown_files():
    files = ["README.md"]
    for base, dirs, names in os.walk(os.path.join(ROOT, "docs")):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(".md"):
                files.append(os.path.relpath(os.path.join(base, name), ROOT))
    return files


def read_lines(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read().split("\n")


def prose_lines(lines):
    """Yields (line number, line) outside fenced code blocks."""
    in_fence = False
    for number, line in enumerate(lines, 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence:
            yield number, line


def heading_texts(lines):
    texts = []
    for _, line in prose_lines(lines):
        m = HEADING.match(line)
        if m:
            texts.append(m.group(2))
    return texts


def plain(text):
    """A heading as rendered: links reduced to their text, emphasis marks dropped."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return text


def github_slug(text):
    text = plain(text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)  # \w keeps letters, digits, underscore
    return text.replace(" ", "-")


_anchor_cache = {}


def anchors_of(rel):
    if rel not in _anchor_cache:
        seen = {}
        anchors = set()
        for text in heading_texts(read_lines(rel)):
            slug = github_slug(text)
            if slug in seen:
                seen[slug] += 1
                anchors.add("%s-%d" % (slug, seen[slug]))
            else:
                seen[slug] = 0
                anchors.add(slug)
        _anchor_cache[rel] = anchors
    return _anchor_cache[rel]


def normalize_title(text):
    text = plain(text).replace("*", "").replace("`", "")
    text = re.sub(r"\s+", " ", text).strip().lower()
    return text.rstrip(".:;,")


def check_markdown(rel, problems):
    prose = list(prose_lines(read_lines(rel)))
    for index, (number, line) in enumerate(prose):
        # A link may wrap onto the next line: match over both, keep those starting here.
        line = INLINE_CODE.sub(lambda c: "_" * len(c.group(0)), line)
        following = prose[index + 1] if index + 1 < len(prose) else None
        text = line
        if following and following[0] == number + 1:
            text += " " + INLINE_CODE.sub("", following[1])
        for m in LINK.finditer(text):
            if m.start() >= len(line):
                continue
            target = m.group(1)
            if SCHEME.match(target) or target.startswith("//"):
                continue
            path, _, anchor = target.partition("#")
            if path:
                full = os.path.normpath(os.path.join(os.path.dirname(os.path.join(ROOT, rel)), path))
                if not os.path.exists(full):
                    problems.append("%s:%d: link to a missing file: %s" % (rel, number, target))
                    continue
                target_rel = os.path.relpath(full, ROOT)
            else:
                target_rel = rel
            if anchor and target_rel.endswith(".md") and os.path.isfile(os.path.join(ROOT, target_rel)):
                if anchor not in anchors_of(target_rel):
                    problems.append("%s:%d: no heading with the anchor #%s in %s" %
                                    (rel, number, anchor, target_rel))


COMMENT_PREFIX = {".h": "//", ".cc": "//", ".cpp": "//", ".hpp": "//", ".c": "//",
                  ".sh": "#", ".py": "#", ".cmake": "#", ".txt": "#"}
CITATION = re.compile(r"(?<![\w/.])(README(?:\.md)?|docs/[A-Za-z0-9_./-]+\.md|[A-Za-z0-9_-]+\.md)['’]?s?[,:]?\s*\"([^\"]+)\"")
# Paths of documents a comment cites (results files under docs/results/ are outputs, and
# comments name them as examples of where to write).
DOCS_PATH = re.compile(r"(?<![\w/.])(docs/(?!results/)[A-Za-z0-9_./-]*\.md)")


# Source files a comment names: a module folder of src/ (as the code includes them) or
# a top-level folder of the repository, then a path ending in a source extension.
SOURCE_DIRS = ("bench", "scripts", "tests", "python", "fuzz", "src")
SOURCE_PATH = re.compile(r"(?<![\w/.-])((?:[a-z_]+/)+[A-Za-z0-9_.-]+\.(?:h|cc|py|sh))(?![\w/])")


def source_exists(path):
    top = path.split("/")[0]
    if top in SOURCE_DIRS:
        return os.path.exists(os.path.join(ROOT, path))
    if os.path.isdir(os.path.join(ROOT, "src", top)):
        return os.path.exists(os.path.join(ROOT, "src", path))
    return True  # not a path of this repository's sources (a system header, an example)


def comment_blocks(lines, prefix):
    """Yields runs of consecutive comment lines as (joined text, [(offset, line number)])."""
    block, starts = [], []
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith(prefix) and not stripped.startswith("#!"):
            text = stripped[len(prefix):].strip()
            starts.append((sum(len(t) + 1 for t in block), number))
            block.append(text)
            continue
        # A comment after code on the line ends the block and stands alone.
        if block:
            yield " ".join(block), starts
            block, starts = [], []
        if prefix in line and prefix == "//":
            index = line.index(prefix)
            if line[:index].count('"') % 2 == 0:
                yield line[index + 2:].strip(), [(0, number)]
    if block:
        yield " ".join(block), starts


def line_at(starts, offset):
    number = starts[0][1]
    for start, line in starts:
        if start <= offset:
            number = line
    return number


def check_comments(problems):
    for top in ("src", "bench", "scripts", "tests"):
        for base, dirs, names in os.walk(os.path.join(ROOT, top)):
            dirs.sort()
            for name in sorted(names):
                ext = os.path.splitext(name)[1]
                prefix = COMMENT_PREFIX.get(ext)
                if name == "CMakeLists.txt":
                    prefix = "#"
                elif ext == ".txt":
                    prefix = None
                if prefix is None:
                    continue
                rel = os.path.relpath(os.path.join(base, name), ROOT)
                if rel == os.path.join("scripts", "check_links.py"):
                    continue
                try:
                    lines = read_lines(rel)
                except UnicodeDecodeError:
                    continue
                for text, starts in comment_blocks(lines, prefix):
                    for m in CITATION.finditer(text):
                        where = "%s:%d" % (rel, line_at(starts, m.start()))
                        doc, title = m.group(1), m.group(2)
                        if doc.startswith("README"):
                            doc = "README.md"
                        elif "/" not in doc:
                            doc = doc if os.path.isfile(os.path.join(ROOT, doc)) else "docs/" + doc
                        if not os.path.isfile(os.path.join(ROOT, doc)):
                            problems.append("%s: cites a missing file: %s" % (where, doc))
                            continue
                        wanted = normalize_title(title)
                        if not any(normalize_title(h).startswith(wanted)
                                   for h in heading_texts(read_lines(doc))):
                            problems.append('%s: %s has no heading "%s"' % (where, doc, title))
                    for m in DOCS_PATH.finditer(text):
                        path = m.group(1)
                        if not os.path.exists(os.path.join(ROOT, path)):
                            where = "%s:%d" % (rel, line_at(starts, m.start()))
                            problems.append("%s: names a missing path: %s" % (where, path))
                    for m in SOURCE_PATH.finditer(text):
                        if not source_exists(m.group(1)):
                            where = "%s:%d" % (rel, line_at(starts, m.start()))
                            problems.append("%s: names a missing source file: %s" % (where, m.group(1)))


def main():
    os.chdir(ROOT)
    problems = []
    for rel in markdown_files():
        check_markdown(rel, problems)
    check_comments(problems)
    for problem in problems:
        print(problem)
    if problems:
        print("%d broken reference(s)" % len(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
