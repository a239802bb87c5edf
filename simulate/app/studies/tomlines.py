"""Where a key sits in a TOML file: the line numbers that one-line errors quote.

``tomllib`` gives values but not positions, so :class:`KeyLines` scans the text once and
maps every key path to the line that defines it. A path is a tuple of keys, with the index
of an array-of-tables element in place: in ::

    [[variant]]              # line 1
    name = "a"               # line 2
    [[variant]]              # line 3
    rules = { stacking = "any_draw", effects = { A = "skip" } }   # line 4

``("variant", 1, "rules", "effects", "A")`` is on line 4 and ``("variant", 0)`` on line 1.
Dotted keys (``effects.A = ...``) and inline tables are followed; multi-line strings are
not (a key inside one may be misplaced, which only costs the error its line number).
"""

from __future__ import annotations

import re

_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r"\"(?:[^\"\\]|\\.)*\"|'[^']*'"
_PART = rf"(?:{_BARE}|{_QUOTED})"
_DOTTED = rf"{_PART}(?:\s*\.\s*{_PART})*"
_HEADER = re.compile(rf"^\s*(\[\[?)\s*({_DOTTED})\s*\]\]?\s*(?:#.*)?$")
_KEY = re.compile(rf"\s*({_DOTTED})\s*=\s*")
_PARTS = re.compile(rf"\s*({_PART})\s*(?:\.|$)")


def split_key(dotted: str) -> tuple[str, ...]:
    """``a."b.c".d`` -> ``("a", "b.c", "d")``."""
    parts = []
    for match in _PARTS.finditer(dotted):
        part = match.group(1)
        parts.append(part[1:-1] if part[0] in "\"'" else part)
    return tuple(parts)


class KeyLines:
    """The line (1-based) of every key path in a TOML text."""

    def __init__(self, text: str):
        self.lines: dict[tuple, int] = {}
        table: tuple = ()
        arrays: dict[tuple, int] = {}  # array-of-tables path -> index of its last element
        for number, line in enumerate(text.splitlines(), start=1):
            header = _HEADER.match(line)
            if header:
                path = self._resolve(split_key(header.group(2)), arrays)
                if header.group(1) == "[[":
                    index = arrays.get(path, -1) + 1
                    arrays[path] = index
                    self.lines.setdefault(path, number)
                    path = (*path, index)
                table = path
                self.lines.setdefault(table, number)
                continue
            key = _KEY.match(line)
            if key and not line.lstrip().startswith("#"):
                path = (*table, *split_key(key.group(1)))
                self.lines.setdefault(path, number)
                if line[key.end() : key.end() + 1] == "{":
                    self._inline(line, key.end(), path, number)

    @staticmethod
    def _resolve(parts: tuple, arrays: dict[tuple, int]) -> tuple:
        """A header's path, with the current element of each array of tables on the way."""
        path: tuple = ()
        for index, part in enumerate(parts):
            path = (*path, part)
            if path in arrays and index < len(parts) - 1:
                path = (*path, arrays[path])
        return path

    def _inline(self, line: str, start: int, prefix: tuple, number: int) -> int:
        """Record the keys of the inline table at ``line[start] == "{"``; returns the
        position after its closing brace."""
        position = start + 1
        while position < len(line):
            char = line[position]
            if char in " \t,":
                position += 1
            elif char == "}":
                return position + 1
            else:
                key = _KEY.match(line, position)
                if not key:
                    return len(line)
                path = (*prefix, *split_key(key.group(1)))
                self.lines.setdefault(path, number)
                position = key.end()
                if line[position : position + 1] == "{":
                    position = self._inline(line, position, path, number)
                else:
                    position = _skip_value(line, position)
        return position

    def line_of(self, path: tuple) -> int | None:
        """The line of ``path``, else of its longest prefix that has one, else None."""
        for end in range(len(path), 0, -1):
            if path[:end] in self.lines:
                return self.lines[path[:end]]
        return None


def _skip_value(line: str, position: int) -> int:
    """The position of the ``,`` or ``}`` that ends the value starting at ``position``."""
    depth = 0
    while position < len(line):
        char = line[position]
        if char in "\"'":
            closing = line.find(char, position + 1)
            while char == '"' and closing > 0 and line[closing - 1] == "\\":
                closing = line.find(char, closing + 1)
            position = len(line) if closing < 0 else closing + 1
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            if depth == 0:
                return position
            depth -= 1
        elif char == "," and depth == 0:
            return position
        position += 1
    return position
