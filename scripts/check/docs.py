#!/usr/bin/env python3
"""Checks the README and docs/ without building anything (CI runs it from .ci/run).

- Every relative link in README.md, docs/**/*.md and scripts/README.md names a file that
  exists, and a `#fragment` names a heading of that page (GitHub's anchors).
- Every `scripts/...` path written in a tracked text file (docs, scripts, source comments,
  fixtures) exists, so moving a script cannot leave a stale reference behind.
- The README's Usage block writes only under `out/` (git ignores it) besides the default
  database: every --out, --out-dir, --output, --pgn and `>` target starts with `out/`.

Usage: scripts/check/docs.py   (from anywhere; exits 1 with one line per problem)
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tracked():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    return [f for f in out.splitlines() if os.path.isfile(os.path.join(ROOT, f))]


def slug(heading):
    """GitHub's anchor for a Markdown heading."""
    text = re.sub(r"`|\*\*|\[|\]\([^)]*\)", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    seen = {}
    result = set()
    in_code = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
                continue
            m = None if in_code else re.match(r"#{1,6} (.*)", line)
            if m:
                base = slug(m.group(1))
                n = seen.get(base, 0)
                seen[base] = n + 1
                result.add(base if n == 0 else f"{base}-{n}")
    return result


def check_links(pages, problems):
    link = re.compile(r"\]\(([^)\s]+)\)")
    for page in pages:
        in_code = False
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.startswith("```"):
                    in_code = not in_code
                if in_code:
                    continue
                for target in link.findall(line):
                    if re.match(r"[a-z]+:", target):
                        continue
                    path, _, frag = target.partition("#")
                    full = os.path.normpath(os.path.join(ROOT, os.path.dirname(page), path)) \
                        if path else os.path.join(ROOT, page)
                    if not os.path.exists(full):
                        problems.append(f"{page}:{n}: link to {target}: no such file")
                    elif frag and full.endswith(".md") and frag not in anchors(full):
                        problems.append(f"{page}:{n}: link to {target}: no such heading")


def check_script_paths(files, problems):
    mention = re.compile(r"(?<![\w./-])scripts/[\w./-]*[\w]")
    for f in files:
        if f.startswith("scripts/check/docs.py"):
            continue
        try:
            with open(os.path.join(ROOT, f), encoding="utf-8") as fh:
                text = fh.read()
        except (UnicodeDecodeError, OSError):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for path in mention.findall(line):
                if not os.path.exists(os.path.join(ROOT, path)):
                    problems.append(f"{f}:{n}: {path} does not exist")


def check_usage_outputs(problems):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## Usage\n.*?^```sh\n(.*?)^```", text, re.S | re.M)
    if not m:
        problems.append("README.md: no ```sh block under ## Usage")
        return
    flag = re.compile(r"(?:--out|--out-dir|--output|--pgn)[ =](\S+)|>\s*(\S+)")
    for line in m.group(1).splitlines():
        code = re.sub(r'"[^"]*"', '""', line.split("  #")[0])
        for a, b in flag.findall(code):
            target = a or b
            if not target.startswith("out/"):
                problems.append(f"README.md Usage: writes {target} outside out/: {code.strip()}")


def main():
    files = tracked()
    pages = [f for f in files if f.endswith(".md") and
             (f == "README.md" or f.startswith("docs/") or f == "scripts/README.md")]
    problems = []
    check_links(pages, problems)
    check_script_paths(files, problems)
    check_usage_outputs(problems)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"docs: {len(pages)} pages, links, script paths and the Usage block's outputs checked")


if __name__ == "__main__":
    main()
