#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""config_sources [FILE...]: every constant of a machine or kernel config has its source.

A constant is a line of a config under configs/machines/ or configs/kernels/ that
gives a key a value (`key: value`, or `key: {a: 1, b: 2}` on one line). Each must
carry a comment on the same line that names its source: a label [M] (measured and
published), [D] (derived by arithmetic from published numbers), [A] (an
assumption nobody measured) or [F] (fitted by make calibrate), or a public
citation: a kernel commit id, a kernel source file, an LKML message or thread, a
paper, a datasheet or manual, a URL, or docs/sources.md. A sequence of rows under
a key (a distance matrix) is covered by the key's comment. The keys that name a
config rather than state a fact (name, description, inherit, preset) need none.
Prints FILE:LINE: the key, for each constant without one; exit 1 if any.
"""
import glob
import os
import re
import sys

EXEMPT = {"name", "description", "inherit", "preset"}
SOURCE = re.compile(
    r"\[(M|D|A|F)\b"                       # a label, possibly with words after it: [M for ...]
    r"|\bcommit [0-9a-f]{7,40}\b"           # a kernel commit
    r"|\b(kernel|include|mm|arch|tools)/[\w/.-]+\.[ch]\b"  # a kernel source file
    r"|\bLKML\b|message-id|\bhttps?://"
    r"|\bdatasheet\b|\bSDM\b|\bmanual\b|\bpaper\b|docs/sources\.md"
)
KEY = re.compile(r"^(\s*)(-\s+)?([A-Za-z_][\w.-]*)\s*:(.*)$")


def strip_comment(text):
    """(value, comment) of a YAML line; '#' inside quotes is not a comment."""
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i].rstrip(), text[i + 1:].strip()
    return text.rstrip(), ""


def check(path):
    bad = []
    block_value = False  # inside a block scalar (description: >-) or a key's row list
    block_indent = -1
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, raw in enumerate(lines, 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip())
        if block_value and indent > block_indent:
            continue
        block_value = False
        body, comment = strip_comment(raw)
        m = KEY.match(body)
        if not m:
            continue
        key, value = m.group(3), m.group(4).strip()
        if value in ("", ">", ">-", "|", "|-"):
            # opens a map, a block scalar or a list of rows: the rows (sequence
            # items without keys) and block text are covered by this line
            block_indent = indent
            block_value = value != "" or key_opens_rows(lines, n)
            if value == "" and block_value and not SOURCE.search(comment):
                bad.append((n, key))
            continue
        if key in EXEMPT:
            continue
        if not SOURCE.search(comment):
            bad.append((n, key))
    return bad


def key_opens_rows(lines, n):
    """Whether the key on line n (1-based) is followed by sequence rows, not a map."""
    for raw in lines[n:]:
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        s = raw.lstrip()
        return s.startswith("- ") and not KEY.match(s[2:].strip() or "x")
    return False


def self_test():
    """The checker flags an unsourced constant, a row list without a source on its
    key, and passes sourced lines, labels with words and exempt keys."""
    import tempfile
    good = ("name: x  \ndescription: >-\n  text: not a key\ninherit: y\ncosts:\n"
            "  a: 1ns   # [M] measured (docs/sources.md: k)\n  b: 2    # [A for Intel] assumed\n"
            "  c: {x: 1} # commit 63e8595c060a\ndistance:   # [A] typical\n  - [10, 21]\n  - [21, 10]\n")
    bad = "costs:\n  a: 1ns\n  b: 2  # no label here\ndistance:\n  - [10, 21]\n"
    with tempfile.TemporaryDirectory() as d:
        pg, pb = os.path.join(d, "good.yaml"), os.path.join(d, "bad.yaml")
        with open(pg, "w") as f:
            f.write(good)
        with open(pb, "w") as f:
            f.write(bad)
        got_good, got_bad = check(pg), [k for _, k in check(pb)]
    ok = got_good == [] and got_bad == ["a", "b", "distance"]
    print("config_sources self-test: %s (clean file: %s; flagged: %s)" % ("passed" if ok else "FAILED", got_good, got_bad))
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    files = sys.argv[1:] or sorted(glob.glob("configs/machines/*.yaml") + glob.glob("configs/kernels/*.yaml"))
    total = 0
    for path in files:
        for n, key in check(path):
            print(f"{path}:{n}: '{key}' has no source comment (a label [M], [D], [A], [F] or a public citation)")
            total += 1
    print(f"config_sources: {len(files)} files, {total} constants without a source")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
