#!/usr/bin/env python3
"""Fail if a built page states that a result is missing: skipped, not installed, NaN.

    python3 .ci/check_pages.py [_build/html]

The book must state the same results on every machine, with or without R and
Graphviz, and never glue NaN into prose.  This reads every HTML page of the
build and reports, with file and text, any of:

- anywhere on a page: "not installed", "is not available", "comparison is
  skipped", "nan%" (a glued NaN formatted as a percentage);
- in a value glued into prose (``{glue:text}``): nan or inf;
- in a code cell's output: "skipped", "skipping", "no Graphviz", "without R", ...

Prose may say that a candidate split "is skipped" (a rule of the algorithm), and
an output may tell to "skip the candidate"; only outputs are searched for
"skipped" and "skipping".  Exit status 1 when something is found or no
page exists, 0 otherwise.  Standard library only.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path

ANYWHERE = re.compile(
    r"not installed|is not available|comparison is skipped|\bnan\s*%", re.IGNORECASE
)
GLUED = re.compile(r"\b(nan|inf)\b", re.IGNORECASE)
OUTPUT = re.compile(
    r"\bskipped\b|\bskipping\b|\bno (R|rpart|Graphviz|dot)\b|\bwithout (R|rpart|Graphviz)\b",
    re.IGNORECASE,
)
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}


class Page(HTMLParser):
    """Collects the text of a page, of its glued values and of its cell outputs."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str]] = []  # (tag, kind): kind "", "glued", "output"
        self.text: list[str] = []
        self.glued: list[str] = []
        self.outputs: list[str] = []
        self.skip_depth = 0  # inside <script> or <style>

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        classes = (dict(attrs).get("class") or "").split()
        kind = "glued" if "pasted-text" in classes else ""
        kind = "output" if "cell_output" in classes else kind
        self.stack.append((tag, kind))
        if tag in ("script", "style"):
            self.skip_depth += 1

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        while self.stack:  # close up to the matching tag (forgiving HTML)
            open_tag, _ = self.stack.pop()
            if open_tag in ("script", "style"):
                self.skip_depth -= 1
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self.skip_depth:
            return
        self.text.append(data)
        kinds = {kind for _, kind in self.stack}
        if "glued" in kinds:
            self.glued.append(data)
        if "output" in kinds:
            self.outputs.append(data)


def findings(path: Path) -> list[str]:
    page = Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    found = []
    for label, pieces, pattern in [
        ("page", page.text, ANYWHERE),
        ("glued value", page.glued, GLUED),
        ("cell output", page.outputs, OUTPUT),
    ]:
        text = " ".join(" ".join(pieces).split())
        for match in pattern.finditer(text):
            start, stop = max(0, match.start() - 60), match.end() + 60
            found.append(f"{label}: ...{text[start:stop]}...")
    return found


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else "_build/html")
    pages = sorted(p for p in root.rglob("*.html") if "_static" not in p.parts)
    if not pages:
        print(f"no HTML page under {root}: build the book first (make book)")
        return 1
    bad = 0
    for path in pages:
        for line in findings(path):
            print(f"{path.relative_to(root)}: {line}")
            bad += 1
    if bad:
        print(f"{bad} statement(s) of a missing result in {len(pages)} pages")
        return 1
    print(f"{len(pages)} pages state every result (nothing skipped, not installed or NaN)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
