"""Bounded reading of every input the suite takes: specs, procedure fixtures, published tables,
RNG files under test, checkpoints, any JSON.

A hostile or careless input must not hang or exhaust the machine, nor flood a message. Every
reader goes through ``read_input`` / ``read_text`` / ``load_yaml`` / ``load_json`` with the
``Limits`` of its kind of input, which bound:

- size: the file is read in one bounded call (``max_bytes`` + 1 bytes at most; a device such as
  /dev/zero or a FIFO that never ends is cut off there and refused);
- line length: the longest line of a line-based format (a CSV row, a YAML line, a deck);
- nesting depth: refused while the YAML is composed (the composer recurses) and after a JSON
  parse (the parser's own recursion limit is caught too);
- YAML aliases: the document is composed once (aliases are references, so this is cheap), then
  the size it would have with every alias expanded is counted (memoised, linear in the distinct
  nodes) and refused above ``max_nodes`` before anything is constructed: a billion-laughs
  document is refused in milliseconds, wherever it sits in the tree;
- echoes: a message shows bad input only through ``excerpt`` (a short repr and the full length).

Each reader passes its own error type (``SpecError``, ``FixtureError``, ...) so that its callers
keep catching what they caught; the default is ``InputTooLarge``/``InputError`` (exit 2).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from certify.errors import InputError
from rng.base import excerpt  # the one bounded echo of untrusted input (rng may not import certify)

__all__ = ["Limits", "InputTooLarge", "excerpt", "read_input", "read_text", "load_yaml", "load_json",
           "YAML_LIMITS", "CSV_LIMITS", "JSON_LIMITS", "CHECKPOINT_LIMITS", "RNG_TEXT_LIMITS", "RNG_BITS_LIMITS"]

MIB = 1 << 20


class InputTooLarge(InputError):
    """An input beyond a bound of its kind (size, line, depth, expanded nodes); exit 2."""


@dataclass(frozen=True)
class Limits:
    """Bounds of one kind of input. ``max_line`` None: the format has no lines (whitespace-free
    bits); ``max_depth``/``max_nodes`` apply to structured formats (YAML, JSON)."""

    what: str
    max_bytes: int
    max_line: int | None = None
    max_depth: int = 32
    max_nodes: int = 100_000


# The suite's own largest: a spec ~3.5 KB (160 nodes, depth 5), a fixture ~11 KB (1,261 nodes,
# depth 8, lines <= 171), the CAVP vectors 260 KB: every bound is far above what is real.
YAML_LIMITS = Limits("YAML file", max_bytes=1 * MIB, max_line=4096, max_depth=32, max_nodes=100_000)
CSV_LIMITS = Limits("table", max_bytes=1 * MIB, max_line=4096)
JSON_LIMITS = Limits("JSON file", max_bytes=16 * MIB, max_line=None, max_depth=32, max_nodes=2_000_000)
# A checkpoint holds one line per chunk (~3 KB); 256 MiB is ~80,000 chunks = 10^10 rounds.
CHECKPOINT_LIMITS = Limits("checkpoint", max_bytes=256 * MIB, max_line=1 * MIB, max_depth=8,
                           max_nodes=50_000_000)
# RNG data under test: the lab profile needs 100 x 10^6 bits (an ASCII-bits file ~100 MB) or
# 10^6 decks (~160 MB); text formats are parsed in memory, so their size is bounded.
RNG_TEXT_LIMITS = Limits("RNG text file", max_bytes=512 * MIB, max_line=1 * MIB)
RNG_BITS_LIMITS = Limits("ASCII bits file", max_bytes=512 * MIB, max_line=None)  # whitespace is ignored


def _fail(error: type[Exception], message: str) -> Exception:
    return error(message) if error is not InputError else InputTooLarge(message)


def read_input(path: str | Path, limits: Limits, error: type[Exception] = InputError) -> bytes:
    """The bytes of ``path``, refusing (``error``) a file over ``limits.max_bytes`` without reading
    more than one byte past the bound, and a line over ``limits.max_line``."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > limits.max_bytes:  # a regular file says its size: refuse without reading
                raise _fail(error, f"{path}: {size:,} bytes; a {limits.what} may hold at most "
                                   f"{limits.max_bytes:,} bytes")
            data = handle.read(limits.max_bytes + 1)
    except FileNotFoundError:
        raise error(f"{path}: no such {limits.what}") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, not a {limits.what}") from None
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > limits.max_bytes:
        raise _fail(error, f"{path}: more than {limits.max_bytes:,} bytes; a {limits.what} may hold at most "
                           f"{limits.max_bytes:,} bytes")
    if limits.max_line is not None:
        _check_lines(path, data, limits, error)
    return data


def _check_lines(path: Path, data: bytes, limits: Limits, error: type[Exception]) -> None:
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n"))
    starts = np.concatenate(([0], ends + 1))
    lengths = np.concatenate((ends, [len(data)])) - starts
    over = np.flatnonzero(lengths > limits.max_line)
    if len(over):
        line = int(over[0])
        raise _fail(error, f"{path}: line {line + 1} is {int(lengths[line]):,} bytes long; a {limits.what} "
                           f"may have lines of at most {limits.max_line:,} bytes")


def read_text(path: str | Path, limits: Limits, error: type[Exception] = InputError,
              encoding: str = "utf-8") -> str:
    """``read_input`` decoded; a byte that does not decode is named by line, column and offset."""
    data = read_input(path, limits, error)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise error(f"{path}: line {line}, column {column} (byte offset {exc.start}): byte "
                    f"{data[exc.start]:#04x} is not {encoding.upper()} text") from None


# ---------------------------------------------------------------------------------- YAML

def _bounded_loader(base: type, limits: Limits, path: Path, error: type[Exception]) -> type:
    """``base`` (a yaml Loader class) whose composer refuses nesting beyond ``limits.max_depth``."""

    class BoundedLoader(base):
        _depth = 0

        def compose_node(self, parent, index):
            self._depth += 1
            try:
                if self._depth > limits.max_depth:
                    mark = self.peek_event().start_mark
                    raise _fail(error, f"{path}: line {mark.line + 1}: nested more than {limits.max_depth} "
                                       f"levels deep; a {limits.what} may nest at most {limits.max_depth}")
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    return BoundedLoader


def _expanded_size(root: yaml.Node, limits: Limits, path: Path, error: type[Exception]) -> int:
    """The number of nodes ``root`` would construct with every alias expanded (an alias is the
    same node object as its anchor, so a memo by identity makes this linear in the distinct
    nodes); refused above ``limits.max_nodes`` or beyond ``max_depth`` once expanded (a
    self-referencing anchor never ends)."""
    sizes: dict[int, int] = {}

    def size(node: yaml.Node, depth: int) -> int:
        if depth > limits.max_depth:
            raise _fail(error, f"{path}: line {node.start_mark.line + 1}: nested more than {limits.max_depth} "
                               "levels deep once its aliases are expanded (or an anchor refers to itself)")
        if id(node) in sizes:
            return sizes[id(node)]
        if isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = node.value
        else:
            children = []
        total = 1
        for child in children:
            total += size(child, depth + 1)
            if total > limits.max_nodes:
                raise _fail(error, f"{path}: line {node.start_mark.line + 1}: expands to more than "
                                   f"{limits.max_nodes:,} values (YAML aliases); a {limits.what} may hold at most "
                                   f"{limits.max_nodes:,}")
        sizes[id(node)] = total
        return total

    return size(root, 1)


def load_yaml(path: str | Path, limits: Limits = YAML_LIMITS, error: type[Exception] = InputError,
              loader: type = yaml.SafeLoader) -> tuple[Any, yaml.Node | None]:
    """(data, node tree) of a one-document YAML file, within ``limits``; the tree gives line
    numbers to messages. YAML syntax errors are ``error`` naming line and column."""
    path = Path(path)
    text = read_text(path, limits, error)
    bounded = _bounded_loader(loader, limits, path, error)(text)
    try:
        root = bounded.get_single_node()
        if root is None:
            return None, None
        _expanded_size(root, limits, path, error)
        return bounded.construct_document(root), root
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "unknown position"
        raise error(f"{path}: invalid YAML at {where}: {exc.problem or 'invalid YAML'}") from None
    except yaml.YAMLError as exc:
        raise error(f"{path}: YAML error: {excerpt(str(exc), 200)}") from None
    finally:
        bounded.dispose()


# ---------------------------------------------------------------------------------- JSON

def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number a certification file may hold")


def load_json(path: str | Path, limits: Limits = JSON_LIMITS, error: type[Exception] = InputError) -> Any:
    """A JSON document within ``limits``; NaN and Infinity are refused (they are not JSON, and
    a NaN compares false with everything: fail closed)."""
    path = Path(path)
    text = read_text(path, limits, error)
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise error(f"{path}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise _fail(error, f"{path}: nested too deep; a {limits.what} may nest at most {limits.max_depth}") from None
    except ValueError as exc:  # a refused constant, an integer of more digits than Python converts
        raise error(f"{path}: {excerpt(str(exc), 200)}") from None
    _check_tree(path, data, limits, error)
    return data


def _check_tree(path: Path, data: Any, limits: Limits, error: type[Exception]) -> None:
    """Depth and node count of parsed JSON, without recursion; floats must be finite."""
    stack, nodes = [(data, 1)], 0
    while stack:
        value, depth = stack.pop()
        nodes += 1
        if depth > limits.max_depth or nodes > limits.max_nodes:
            what = (f"nested more than {limits.max_depth} levels deep" if depth > limits.max_depth
                    else f"more than {limits.max_nodes:,} values")
            raise _fail(error, f"{path}: {what}; a {limits.what} may hold at most that")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
        elif isinstance(value, float) and not math.isfinite(value):  # 1e400 parses as inf
            raise error(f"{path}: a number out of range ({value}); expected a finite number")
