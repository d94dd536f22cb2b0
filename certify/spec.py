"""Game specs: YAML in, validated typed objects out.

Every rule that differs between versions of a game is a field here, never a branch in code.
``load_spec(name_or_path) -> RulesSpec`` is the only way a spec is read: a bare name such as
``caribbean_stud`` is looked up as ``specs/<name>.yaml``; anything with a slash or a ``.yaml``
suffix is a path. A bad spec raises ``SpecError`` whose message names the file, the field path
(with its YAML line) and what was expected, one line per problem.

The model is pydantic v2, unknown fields refused everywhere.

Every spec is a rules-model spec: the file carries a top-level ``model: rules/1`` and is read as
``certify.rules.model.RulesSpec`` (docs/rules-model.md: one model for every house-banked poker
game). A file without ``model`` is refused, naming the field. A dumped spec (``model_dump``, json or
python mode) validates back to itself.

The building blocks below are the model's scalar and table types.

Money (limits, fixed progressive amounts, meters) is ``Decimal``, written as a quoted string
("2.50") or an integer; a float is refused because it is not exact. Odds are ``Decimal`` "X to 1".

Category pay tables are keyed by ``HAND_KEYS`` (high_card, pair, two_pair, trips, straight, flush,
full_house, quads, straight_flush, royal_flush): ``HAND_KEYS[i]`` is ``certify.hands.Category(i)``
(``key_category`` / ``category_key`` convert). An entry (``PayEntry``) is odds (a number, paid X to
1) or ``lose``.

``HandThreshold`` (category + minimum leading ranks) expresses "Ace-King or better" as data:
``{category: high_card, ranks: [A, K]}``. A hand meets it when its category is higher, or equal
with its tie-break ranks (as ``certify.hands`` packs them: bigger groups first, then higher rank)
at least ``ranks`` lexicographically. ``HandThreshold.value()`` is the smallest hand value that
meets it and ``met_by(hand_value)`` is ``hand_value >= value()``.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    PlainSerializer,
    Field,
    ValidationError,
    model_validator,
)

from certify.errors import InputError
from certify.validate import check_amount
from certify.inputs import excerpt

SPECS_DIR = Path(__file__).resolve().parent.parent / "specs"

HAND_KEYS: tuple[str, ...] = (
    "high_card", "pair", "two_pair", "trips", "straight",
    "flush", "full_house", "quads", "straight_flush", "royal_flush",
)

RANK_TOKENS = {"2": 0, "3": 1, "4": 2, "5": 3, "6": 4, "7": 5, "8": 6, "9": 7, "10": 8, "T": 8,
               "J": 9, "Q": 10, "K": 11, "A": 12}


class SpecError(InputError):
    """A spec that cannot be used; the message names the file, field path and expectation."""


def category_key(category: int) -> str:
    """The pay-table key of a hand category (``certify.hands.Category`` or its int)."""
    return HAND_KEYS[int(category)]


def key_category(key: str):
    """The ``certify.hands.Category`` of a pay-table key such as ``"royal_flush"``."""
    from certify.hands import Category

    return Category(HAND_KEYS.index(key))


# ---------------------------------------------------------------- scalar types

def _to_decimal(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("expected an exact amount as a quoted decimal string such as \"2.50\"")
    if isinstance(value, float):
        raise ValueError(f"expected an exact amount as a quoted string such as \"{value}\", not a float")
    if isinstance(value, (int, str, Decimal)):
        try:
            result = Decimal(str(value).strip())
        except InvalidOperation:
            raise ValueError(f"expected a decimal amount such as \"2.50\", got {excerpt(value)}") from None
        if not result.is_finite():
            raise ValueError(f"expected a finite amount, got {excerpt(value)}")
        return check_amount(result, "amount")
    raise ValueError(f"expected a decimal amount such as \"2.50\", got {type(value).__name__}")


def _money(value: Any) -> Decimal:
    amount = _to_decimal(value)
    if amount < 0:
        raise ValueError(f"expected an amount >= 0, got {excerpt(value)}")
    if amount != amount.quantize(Decimal("0.01")):
        raise ValueError(f"expected whole cents (at most 2 decimals), got {excerpt(value)}")
    return amount


def _number(value: Any, what: str) -> Decimal:
    """A Decimal from an int or decimal string, with ``what`` in the error message."""
    if isinstance(value, (bool, float)) or not isinstance(value, (int, str, Decimal)):
        raise ValueError(f"expected {what}, got {excerpt(value)}")
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError(f"expected {what}, got {excerpt(value)}") from None
    if not number.is_finite():
        raise ValueError(f"expected {what}, got {excerpt(value)}")
    return check_amount(number, what.split(" as ")[0])


def _odds(value: Any) -> Decimal:
    amount = _number(value, "odds as a number (paid X to 1) or the word lose")
    if amount < 0:
        raise ValueError(f"expected odds >= 0 (paid X to 1), got {excerpt(value)}")
    return amount


def _positive(value: Any) -> Decimal:
    amount = _number(value, "a multiple of the Ante as a number > 0, such as 2")
    if amount <= 0:
        raise ValueError(f"expected a multiple > 0, got {excerpt(value)}")
    return amount


def _rank(value: Any) -> int:
    token = str(value).strip().upper()
    if token not in RANK_TOKENS:
        raise ValueError(f"expected a rank (2-10, T, J, Q, K, A), got {excerpt(value)}")
    return RANK_TOKENS[token]


Money = Annotated[Decimal, BeforeValidator(_money)]
Odds = Annotated[Decimal, BeforeValidator(_odds)]
Multiple = Annotated[Decimal, BeforeValidator(_positive)]
RANK_TEXT = "23456789TJQKA"
# Ranks are ints 0..12 in the model and rank tokens in a dump, so a dumped spec validates again.
Rank = Annotated[int, BeforeValidator(_rank), PlainSerializer(lambda r: RANK_TEXT[r], return_type=str)]
HandKey = Literal[
    "high_card", "pair", "two_pair", "trips", "straight",
    "flush", "full_house", "quads", "straight_flush", "royal_flush",
]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


# ---------------------------------------------------------------- building blocks

def _lose_or_odds(value: Any) -> Any:
    if isinstance(value, str) and value.strip().lower() == "lose":
        return None
    return _odds(value)


def _lose_text(value: Any) -> Any:
    return "lose" if value is None else value


PayEntry = Annotated[Decimal | None, BeforeValidator(_lose_or_odds), PlainSerializer(_lose_text)]


class HandThreshold(Model):
    """A minimum hand: category, then leading ranks (grouped, as poker compares hands)."""

    category: HandKey
    ranks: list[Rank] = Field(default_factory=list, max_length=5)

    @property
    def category_index(self) -> int:
        return HAND_KEYS.index(self.category)

    def value(self) -> int:
        """The smallest ``certify.hands`` hand value that meets the threshold (missing ranks 0)."""
        from certify.hands import CATEGORY_SHIFT

        value = self.category_index << CATEGORY_SHIFT
        for place, rank in enumerate(self.ranks):
            value |= rank << (CATEGORY_SHIFT - 4 * (place + 1))
        return value

    def met_by(self, hand_value: int) -> bool:
        """Whether a hand of this ``certify.hands`` value (5 or best-of-7) meets the threshold."""
        return int(hand_value) >= self.value()


class Source(Model):
    documents: list[str] = Field(min_length=1)
    follows: str = Field(min_length=1, description="which rule is followed where documents disagree")
    notes: str = ""


class Deck(Model):
    size: Literal[52] = 52
    jokers: Literal[0] = 0


# ---------------------------------------------------------------- progressive pay lines (the rules model's)

class ProgressiveEntry(Model):
    """One progressive pay line: a share of the meter, a fixed amount, or nothing."""

    meter_percent: Annotated[Decimal, BeforeValidator(_to_decimal)] | None = None
    amount: Money | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> "ProgressiveEntry":
        if (self.meter_percent is None) == (self.amount is None):
            raise ValueError("expected exactly one of meter_percent or amount (or the word lose)")
        if self.meter_percent is not None and not 0 < self.meter_percent <= 100:
            raise ValueError(f"expected meter_percent in (0, 100], got {self.meter_percent}")
        return self


def _progressive_entry(value: Any) -> Any:
    if isinstance(value, str) and value.strip().lower() == "lose":
        return None
    return value


ProgEntry = Annotated[ProgressiveEntry | None, BeforeValidator(_progressive_entry), PlainSerializer(_lose_text)]


class ProgressivePayTable(Model):
    high_card: ProgEntry
    pair: ProgEntry
    two_pair: ProgEntry
    trips: ProgEntry
    straight: ProgEntry
    flush: ProgEntry
    full_house: ProgEntry
    quads: ProgEntry
    straight_flush: ProgEntry
    royal_flush: ProgEntry

    def entry(self, category: int) -> ProgressiveEntry | None:
        return getattr(self, HAND_KEYS[int(category)])


# ---------------------------------------------------------------- loading

class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (YAML would keep the last)."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, yaml.Node] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if not isinstance(key, str):
            raise yaml.constructor.ConstructorError(
                "while reading a mapping", node.start_mark,
                f"the key {excerpt(key_node.value)} is read as {type(key).__name__}, expected text "
                "(YAML 1.1 reads on/off/yes/no as booleans: quote the key)", key_node.start_mark)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                "while reading a mapping", node.start_mark,
                f"found the key {excerpt(key)} twice (first on line {seen[key].start_mark.line + 1})",
                key_node.start_mark)
        seen[key] = key_node
    return yaml.SafeLoader.construct_mapping(loader, node, deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def resolve_spec_path(name_or_path: str | Path) -> Path:
    text = str(name_or_path)
    if "/" in text or "\\" in text or text.endswith((".yaml", ".yml")):
        return Path(text)
    return SPECS_DIR / f"{text}.yaml"


def read_yaml_tree(path: Path, what: str = "file") -> tuple[Any, yaml.Node | None]:
    """(data, YAML node tree) of a spec or fixture file, read within ``certify.inputs.YAML_LIMITS``
    (size, line length, depth, aliases expanded); syntax errors, duplicate keys and any bound
    exceeded become SpecError naming the line (and column)."""
    from dataclasses import replace

    from certify.inputs import YAML_LIMITS, load_yaml

    return load_yaml(path, replace(YAML_LIMITS, what=what), SpecError, loader=_UniqueKeyLoader)


def read_yaml(path: Path, what: str = "file") -> Any:
    """The data of a YAML file (``read_yaml_tree``)."""
    return read_yaml_tree(path, what)[0]


def _node_line(root: yaml.Node | None, loc: tuple) -> int | None:
    """The 1-based line of the deepest node found along ``loc`` in the composed YAML tree."""
    node, line = root, None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            match = next((v for k, v in node.value if k.value == str(part)), None)
            if match is None:
                break
            line = next(k for k, v in node.value if v is match).start_mark.line + 1
            node = match
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


def _describe(error: dict) -> str:
    kind, msg = error["type"], error["msg"]
    if kind == "extra_forbidden":
        return "unknown field (not part of the spec schema; check the spelling)"
    if kind == "missing":
        return "required field is missing"
    if kind == "literal_error":
        return f"expected {error['ctx']['expected']}, got {excerpt(error['input'])}"
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    if kind in ("int_type", "int_parsing", "bool_type", "bool_parsing", "string_type", "dict_type",
                "list_type", "model_type"):
        return f"{excerpt(msg, 200, quoted=False)}, got {excerpt(error['input'])}"
    return excerpt(msg, 200, quoted=False)  # pydantic's own messages may quote the input


def format_validation_error(path: Path, exc: ValidationError, root: yaml.Node | None = None,
                            prefix: tuple = (), tags: frozenset = frozenset()) -> str:
    """One line per error; ``tags`` are a tagged union's tags, dropped from a path after a list
    index (``steps.2.decide.options`` reads ``steps.2.options``, as the YAML is written)."""
    lines = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        loc = tuple(part for i, part in enumerate(loc)
                    if not (part in tags and i > 0 and isinstance(loc[i - 1], int)))
        loc = prefix + tuple(part for part in loc if part != "[key]")  # a bad mapping key: its own name
        field = ".".join(excerpt(str(part), quoted=False) for part in loc) or "(top level)"
        line = _node_line(root, loc) if root is not None else None
        where = f"{path}:{line}" if line else f"{path}"
        lines.append(f"{where}: {field}: {_describe(error)}")
    return "\n".join(lines)


def parse_spec(data: Any, path: Path, root: yaml.Node | None = None) -> "RulesSpec":
    if data is None:
        raise SpecError(f"{path}: the file is empty; expected a mapping of spec fields (model, name, title, ...)")
    if not isinstance(data, dict):
        raise SpecError(f"{path}: expected a mapping of spec fields at the top level, got {type(data).__name__}")
    if "model" not in data:
        raise SpecError(format_problems(path, root, [(("model",), "required field is missing (expected "
                                                                  "'rules/1': every game is a rules-model spec)")]))
    return _parse_rules(data, path, root)


def _parse_rules(data: dict, path: Path, root: yaml.Node | None) -> Any:
    from certify.rules.model import MODEL_TAG, STEP_KINDS, RulesSpec

    if data["model"] != MODEL_TAG:
        raise SpecError(format_problems(path, root, [(("model",), f"expected {MODEL_TAG!r} (the rules model), "
                                                                  f"got {excerpt(data['model'])}")]))
    try:
        spec = RulesSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(format_validation_error(path, exc, root, tags=STEP_KINDS)) from None
    problems = spec.problems()
    if problems:
        raise SpecError(format_problems(path, root, problems))
    return spec


def format_problems(path: Path, root: yaml.Node | None, problems: list[tuple[tuple, str]]) -> str:
    """``file:line: field.path: message`` lines for problems found after the shape validated."""
    lines = []
    for loc, message in problems:
        field = ".".join(excerpt(str(part), quoted=False) for part in loc) or "(top level)"
        line = _node_line(root, loc) if root is not None else None
        lines.append(f"{path}:{line}: {field}: {message}" if line else f"{path}: {field}: {message}")
    return "\n".join(lines)


def load_spec(name_or_path: str | Path) -> "RulesSpec":
    """Read and validate a spec: a name in specs/ (``caribbean_stud``) or a path to a YAML file.
    The file must be a rules-model spec (``model: rules/1``): a ``certify.rules.model.RulesSpec``."""
    path = resolve_spec_path(name_or_path)
    if not path.exists() and path.parent == SPECS_DIR:
        raise SpecError(_unknown_spec_name(path.stem))
    data, root = read_yaml_tree(path, "spec file")
    spec = parse_spec(data, path, root)
    if spec.name != path.stem:
        line = _node_line(root, ("name",)) if root is not None else None
        raise SpecError(f"{path}:{line}: name: expected {path.stem!r} (the file name), got {excerpt(spec.name)}")
    return spec


def spec_names() -> list[str]:
    return sorted(p.stem for p in SPECS_DIR.glob("*.yaml"))


def _unknown_spec_name(name: str) -> str:
    import difflib

    known = spec_names()
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"no spec named {excerpt(name)} in {SPECS_DIR} (known: {', '.join(known)}){hint}"
