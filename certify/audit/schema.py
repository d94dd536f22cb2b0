"""A small JSON Schema validator for the round log's schema (the subset that schema uses).

``jsonschema`` is not a dependency of the suite; the round-log schema (``schema/round-log-v1.json``,
shipped in the package so other tools can validate with their own validator) uses only these
keywords of draft 2020-12: ``type``, ``const``, ``enum``, ``required``, ``properties``,
``additionalProperties``, ``items``, ``minItems``/``maxItems``, ``minLength``/``maxLength``,
``pattern``, ``minimum``/``maximum``, ``$ref`` (local ``#/$defs/...``), ``allOf``, ``anyOf``,
``if``/``then`` and boolean schemas. A keyword outside this set is refused when the schema is
loaded, so the validator can never silently skip a rule.

``first_error(instance)`` returns ``(field path, what was expected)`` for the first violation, or
None: the message a user gets names the field (``actions[3].cards[1]``) and the rule.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any

SUPPORTED = {"$schema", "$id", "title", "description", "$defs", "type", "const", "enum", "required", "properties",
             "additionalProperties", "items", "minItems", "maxItems", "minLength", "maxLength", "pattern",
             "minimum", "maximum", "$ref", "allOf", "anyOf", "if", "then"}
_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _check_keywords(node: Any, where: str = "#") -> None:
    if isinstance(node, bool):
        return
    unknown = set(node) - SUPPORTED
    if unknown:
        raise ValueError(f"round-log schema {where}: keywords {sorted(unknown)} are not supported by certify's validator")
    for key in ("properties", "$defs"):
        for name, sub in node.get(key, {}).items():
            _check_keywords(sub, f"{where}/{key}/{name}")
    for key in ("items", "additionalProperties", "if", "then"):
        if isinstance(node.get(key), dict):
            _check_keywords(node[key], f"{where}/{key}")
    for key in ("allOf", "anyOf"):
        for i, sub in enumerate(node.get(key, [])):
            _check_keywords(sub, f"{where}/{key}/{i}")


class Validator:
    """The schema compiled once into nested checks (a round log is validated line by line, so the
    per-line cost matters); a field path is rendered only for the error reported."""

    def __init__(self, schema: dict):
        _check_keywords(schema)
        self.schema = schema
        self._refs: dict[str, Any] = {}
        self._check = self._compile(schema)

    def first_error(self, instance: Any) -> tuple[str, str] | None:
        error = self._check(instance, ())
        return None if error is None else (_render(error[0]), _text(error[1]))

    def _compile(self, schema: Any):
        if schema is True:
            return lambda value, at: None
        if schema is False:
            return lambda value, at: (at, "no such field")
        checks = []
        if "$ref" in schema:
            ref = schema["$ref"]
            if not ref.startswith("#/"):
                raise ValueError(f"round-log schema: only local references are supported, got {ref!r}")
            if ref not in self._refs:
                self._refs[ref] = None           # a recursive reference resolves when called
                node: Any = self.schema
                for part in ref[2:].split("/"):
                    node = node[part]
                self._refs[ref] = self._compile(node)
            refs = self._refs
            if refs[ref] is not None and len(schema) == 1:
                return refs[ref]                  # a plain reference: the target's check itself
            checks.append(lambda value, at: refs[ref](value, at))
        kind = schema.get("type")
        if kind == "string" and set(schema) <= {"type", "minLength", "maxLength", "pattern", "description"}:
            return self._string(schema)           # one closure for the commonest leaf (cards, amounts)
        if kind is not None:
            test, article = _TYPES[kind], "an" if kind[0] in "aeiou" else "a"
            checks.append(lambda value, at: None if test(value) else
                          (at, lambda: f"expected {article} {kind}, got {_show(value)}"))
        if "const" in schema:
            const = schema["const"]
            checks.append(lambda value, at: None if value == const and type(value) is type(const)
                          else (at, lambda: f"expected {json.dumps(const)}, got {_show(value)}"))
        if "enum" in schema:
            options = schema["enum"]
            text = ", ".join(json.dumps(e) for e in options)
            typed = frozenset((type(e), e) for e in options)     # 1 is not true, "1" is not 1
            checks.append(lambda value, at: None if _hashable(value) and (type(value), value) in typed
                          else (at, lambda: f"expected one of {text}, got {_show(value)}"))
        checks += self._scalars(schema)
        if any(k in schema for k in ("required", "properties", "additionalProperties")):
            checks.append(self._object(schema))
        if any(k in schema for k in ("items", "minItems", "maxItems")):
            checks.append(self._array(schema))
        for sub in schema.get("allOf", ()):
            checks.append(self._compile(sub))
        if "anyOf" in schema:
            options_any = [self._compile(sub) for sub in schema["anyOf"]]

            def any_of(value, at):
                errors = [check(value, at) for check in options_any]
                return None if not all(errors) else (at, lambda: " or ".join(_text(e[1]) for e in errors))
            checks.append(any_of)
        if "if" in schema and "then" in schema:
            condition, then = self._compile(schema["if"]), self._compile(schema["then"])
            checks.append(lambda value, at: then(value, at) if condition(value, at) is None else None)
        if len(checks) == 1:
            return checks[0]

        def all_of(value, at):
            for check in checks:
                error = check(value, at)
                if error is not None:
                    return error
            return None
        return all_of

    def _string(self, schema: dict):
        low, high = schema.get("minLength", 0), schema.get("maxLength", 1 << 62)
        match = re.compile(schema["pattern"]).search if "pattern" in schema else None

        def check(value, at):
            if type(value) is not str:
                return at, lambda: f"expected a string, got {_show(value)}"
            if not low <= len(value) <= high:
                return at, lambda: f"expected {low} to {high} characters, got {_show(value)}"
            if match is not None and not match(value):
                return at, lambda: f"expected a string matching {schema['pattern']}, got {_show(value)}"
            return None
        return check

    def _scalars(self, schema: dict) -> list:
        checks = []
        low, high = schema.get("minLength", 0), schema.get("maxLength")
        pattern = re.compile(schema["pattern"]) if "pattern" in schema else None
        if low or high is not None or pattern is not None:
            def string(value, at):
                if not isinstance(value, str):
                    return None
                if len(value) < low:
                    return at, f"expected at least {low} characters, got {_show(value)}"
                if high is not None and len(value) > high:
                    return at, f"expected at most {high} characters, got {_show(value)}"
                if pattern is not None and not pattern.search(value):
                    return at, lambda: f"expected a string matching {pattern.pattern}, got {_show(value)}"
                return None
            checks.append(string)
        if "minimum" in schema or "maximum" in schema:
            minimum, maximum = schema.get("minimum"), schema.get("maximum")

            def number(value, at):
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    return None
                if minimum is not None and value < minimum:
                    return at, f"expected at least {minimum}, got {_show(value)}"
                if maximum is not None and value > maximum:
                    return at, f"expected at most {maximum}, got {_show(value)}"
                return None
            checks.append(number)
        return checks

    def _object(self, schema: dict):
        required = tuple(schema.get("required", ()))
        props = {name: self._compile(sub) for name, sub in schema.get("properties", {}).items()}
        extra = schema.get("additionalProperties", True)
        extra_check = None if extra is True or extra is False else self._compile(extra)

        def check(value, at):
            if not isinstance(value, dict):
                return None
            for name in required:
                if name not in value:
                    return (at, name), "required field is missing"
            for name, item in value.items():
                sub = props.get(name)
                if sub is None:
                    if extra is False:
                        return (at, name), "unknown field (not part of the round-log schema)"
                    sub = extra_check
                    if sub is None:
                        continue
                error = sub(item, (at, name))
                if error is not None:
                    return error
            return None
        return check

    def _array(self, schema: dict):
        low, high = schema.get("minItems", 0), schema.get("maxItems")
        items = self._compile(schema["items"]) if "items" in schema else None

        def check(value, at):
            if not isinstance(value, list):
                return None
            if len(value) < low:
                return at, f"expected at least {low} item(s), got {len(value)}"
            if high is not None and len(value) > high:
                return at, f"expected at most {high} items, got {len(value)}"
            if items is not None:
                for i, item in enumerate(value):
                    error = items(item, (at, i))
                    if error is not None:
                        return error
            return None
        return check


def _hashable(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def _text(message) -> str:
    """A message, built only now when it was deferred (a failed ``if`` is no error to report)."""
    return message() if callable(message) else message


def _render(at: tuple) -> str:
    parts = []
    while at:
        at, key = at
        parts.append(f"[{key}]" if isinstance(key, int) else key)
    text = ""
    for part in reversed(parts):
        text += part if part.startswith("[") or not text else f".{part}"
    return text or "(line)"


def _show(value: Any, limit: int = 60) -> str:
    text = json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@lru_cache(maxsize=None)
def round_log_validator(version: int = 1) -> Validator:
    """The validator of the shipped schema ``schema/round-log-v<version>.json``."""
    text = resources.files("certify.audit").joinpath(f"schema/round-log-v{version}.json").read_text("utf-8")
    return Validator(json.loads(text))
