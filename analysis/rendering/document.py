"""A report as a list of blocks, rendered to Markdown or to self-contained HTML.

The report's numbers are formatted once, into these blocks; both renderers only lay
them out, so the two files cannot disagree. In text, `backticks` mark code.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Table:
    """Rows of preformatted cells; ``align`` has one letter per column, ``l`` or ``r``;
    cells of the ``code`` columns are shown as code."""

    columns: Sequence[str]
    rows: Sequence[Sequence[str]]
    align: str
    code: frozenset[int] = field(default_factory=frozenset)


@dataclass(frozen=True)
class Chart:
    """A chart stored as ``charts/<name>.png``, ``.svg`` and ``.pdf`` (those of them the
    report writes); ``alt`` describes it."""

    name: str
    alt: str


Block = Heading | Paragraph | Table | Chart

_CODE = re.compile(r"`([^`]+)`")

_CSS = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto;
       padding: 0 1rem; line-height: 1.45; color: #111; }
h1, h2 { border-bottom: 1px solid #bbb; padding-bottom: .2rem; }
table { border-collapse: collapse; margin: .8rem 0; font-size: .92rem; }
th, td { border: 1px solid #bbb; padding: .25rem .6rem; vertical-align: top; }
th { background: #eee; }
td.r, th.r { text-align: right; font-variant-numeric: tabular-nums; }
code { font-family: ui-monospace, monospace; font-size: .88rem; overflow-wrap: break-word; }
td.code, td code { white-space: nowrap; word-break: keep-all; overflow-wrap: normal; }
img { max-width: 100%; height: auto; }
"""


def to_markdown(blocks: Sequence[Block], formats: Sequence[str] = ("png", "svg", "pdf")) -> str:
    """Markdown text; each chart is shown from ``charts/<name>.png`` (``.svg`` when
    ``formats``, the files written, has no PNG), and its other formats are linked beside."""
    out = []
    for block in blocks:
        match block:
            case Heading(text, level):
                out.append(f"{'#' * level} {_markdown_text(text)}")
            case Paragraph(text):
                out.append(_markdown_text(text))
            case Table():
                out.append(_markdown_table(block))
            case Chart(name, alt):
                out.append(_markdown_chart(name, alt, formats))
    return "\n\n".join(out) + "\n"


_CODE_SPAN = re.compile(r"(`[^`]*`)")
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")


def _markdown_text(text: str) -> str:
    """``text`` with what would open raw HTML in Markdown (``<b>``, ``<script>``, ``<!--``:
    a title or name a user gave) written as ``&lt;``, outside code spans, as report.html
    escapes it; a ``<`` before a space or a number (``p < 0.05``) stays as it is."""
    parts = _CODE_SPAN.split(text)
    return "".join(part if i % 2 else _TAG_START.sub("&lt;", part) for i, part in enumerate(parts))


def _markdown_chart(name: str, alt: str, formats: Sequence[str]) -> str:
    shown = next((fmt for fmt in ("png", "svg") if fmt in formats), None)
    links = [f"[{fmt.upper()} version](charts/{name}.{fmt})" for fmt in formats if fmt != shown]
    if shown is None:
        return f"{alt}: " + " · ".join(links)
    image = f"![{alt}](charts/{name}.{shown})"
    return image + ("\n\n" + " · ".join(links) if links else "")


def _markdown_table(table: Table) -> str:
    def cell(text: str, col: int) -> str:
        text = text.replace("|", r"\|")
        return f"`{text}`" if col in table.code and text else _markdown_text(text)

    rule = ["---:" if a == "r" else "---" for a in table.align]
    lines = [table.columns, rule, *([cell(c, i) for i, c in enumerate(r)] for r in table.rows)]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


def to_html(blocks: Sequence[Block], title: str, charts_png: Mapping[str, bytes]) -> str:
    """A standalone HTML page: inline CSS, charts embedded as base64 PNG from
    ``charts_png`` (chart name → PNG bytes); it loads nothing from elsewhere."""
    body = []
    for block in blocks:
        match block:
            case Heading(text, level):
                body.append(f"<h{level}>{_inline_html(text)}</h{level}>")
            case Paragraph(text):
                body.append(f"<p>{_inline_html(text)}</p>")
            case Table():
                body.append(_html_table(block))
            case Chart(name, alt):
                data = base64.b64encode(charts_png[name]).decode("ascii")
                body.append(
                    f'<figure><img src="data:image/png;base64,{data}" '
                    f'alt="{html.escape(alt)}"></figure>'
                )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _inline_html(text: str) -> str:
    return _CODE.sub(r"<code>\1</code>", html.escape(text, quote=False))


def _html_table(table: Table) -> str:
    def row(cells: Sequence[str], tag: str) -> str:
        parts = []
        for i, text in enumerate(cells):
            classes = ["r"] if table.align[i] == "r" else []
            if tag == "td" and i in table.code and text:
                classes.append("code")
                text = f"<code>{html.escape(text, quote=False)}</code>"
            else:
                text = _inline_html(text)
            cls = f' class="{" ".join(classes)}"' if classes else ""
            parts.append(f"<{tag}{cls}>{text}</{tag}>")
        return "<tr>" + "".join(parts) + "</tr>"

    head = row(table.columns, "th")
    rows = "\n".join(row(r, "td") for r in table.rows)
    return f"<table>\n<thead>{head}</thead>\n<tbody>\n{rows}\n</tbody>\n</table>"
