"""Chapters list package code with its docstring's prose, not its reference sections.

Every public object's docstring ends in numpydoc sections (Parameters, Returns,
Examples, ...): the reference a user reads with ``help()``. Printed in a chapter they
would bury the few lines the chapter teaches, so a ``literalinclude`` of Python source
keeps each docstring's summary and prose and drops everything from its first section
header to the closing quotes.  ``:docstring: full`` keeps a listing's docstrings whole.

``tests/test_book_listings.py`` measures what the chapters show with the same function.
"""

from __future__ import annotations

SECTIONS = frozenset(
    {
        "Parameters",
        "Other Parameters",
        "Returns",
        "Yields",
        "Raises",
        "Warns",
        "Attributes",
        "Methods",
        "See Also",
        "Notes",
        "References",
        "Examples",
    }
)
QUOTES = ('"""', "'''")


def _is_section(lines: list[str], i: int) -> bool:
    underline = lines[i + 1].strip() if i + 1 < len(lines) else ""
    is_rule = len(underline) >= 3 and set(underline) == {"-"}
    return lines[i].strip() in SECTIONS and is_rule


def drop_docstring_sections(lines: list[str]) -> list[str]:
    r'''Lines of Python source (newlines kept) without their docstrings' sections.

    >>> source = ['def f(x):\n', '    """Twice x.\n', '\n', '    Returns\n',
    ...           '    -------\n', '    float\n', '    """\n', '    return 2 * x\n']
    >>> print("".join(drop_docstring_sections(source)), end="")
    def f(x):
        """Twice x."""
        return 2 * x
    '''
    out: list[str] = []
    opening = None  # index in ``out`` of the open docstring's first line
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if opening is None:
            text = stripped.lstrip("rRbBuU")
            if text.startswith(QUOTES) and not any(q in text[3:] for q in QUOTES):
                opening = len(out)  # a string that goes on past this line
        elif any(q in stripped for q in QUOTES):
            opening = None
        elif _is_section(lines, i):
            closing = i
            while not any(q in lines[closing] for q in QUOTES):
                closing += 1
            while len(out) > opening + 1 and not out[-1].strip():
                out.pop()
            if len(out) == opening + 1:  # only the summary is left: one line
                out[-1] = out[-1].rstrip("\n") + '"""\n'
            else:
                end = lines[closing]
                out.append(end[: len(end) - len(end.lstrip())] + '"""\n')
            opening, i = None, closing + 1
            continue
        out.append(line)
        i += 1
    return out


def setup(app):
    from docutils.parsers.rst import directives
    from sphinx.directives import code

    class Reader(code.LiteralIncludeReader):
        def pyobject_filter(self, lines, location=None):
            lines = super().pyobject_filter(lines, location=location)
            full = self.options.get("docstring") == "full"
            if self.filename.endswith(".py") and not full:
                lines = drop_docstring_sections(lines)
            return lines

    code.LiteralInclude.option_spec = {
        **code.LiteralInclude.option_spec,
        "docstring": directives.unchanged,
    }
    code.LiteralIncludeReader = Reader  # LiteralInclude.run looks the reader up here
    return {"parallel_read_safe": True, "parallel_write_safe": True}
