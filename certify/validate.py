"""One check for every number that crosses a boundary: command options, spec fields, fixture
amounts, environment variables.

A number is refused unless it is a finite real inside its stated range: NaN, +-inf, a bool, a
value outside the range all raise :class:`certify.errors.InputError` naming the option or field
and the allowed range. Comparisons with NaN are always false, so a range check written as
``not (x < low)`` would let NaN through; :func:`check_number` tests finiteness first.

The bounds of the quantities the bulk kernels tally live here too, so the CLI, the spec and the
kernels state the same limits:

* money is tallied in signed 64-bit integers (``numpy.int64``) in units of ``1 / scale`` of a
  wager, summed over at most ``MAX_ROUNDS`` rounds, so a net result per round may be at most
  ``MAX_NET_UNITS = (2**63 - 1) // MAX_ROUNDS`` such units;
* ``MAX_AMOUNT`` bounds every amount and odds of a spec or fixture (far above any table limit, and
  exact in the 28-digit ``Decimal`` arithmetic with ``AMOUNT_PLACES`` decimals).
"""

from __future__ import annotations

import math
import os
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from numbers import Real
from typing import Any

from certify.errors import InputError

INT64_MAX = 2**63 - 1
MAX_ROUNDS = 10**12            # rounds of one simulation (the lab profile plays 10^8)
MAX_NET_UNITS = INT64_MAX // MAX_ROUNDS  # 9,223,372 scaled money units per round
MAX_CHUNK_ROUNDS = 1 << 22     # decks dealt at once by one worker (4,194,304 x 52 bytes)
MAX_AMOUNT = Decimal(10**9)    # any amount or odds in a spec or a fixture
AMOUNT_PLACES = 6              # decimals of an amount: 9 + 6 digits, exact in Decimal's 28
MAX_WORKERS = 1024
EPOCH_MAX = 253402300799       # 9999-12-31T23:59:59Z, the last second a datetime can hold


def _range_text(low, high, low_open: bool, high_open: bool, integer: bool) -> str:
    kind = "an integer" if integer else "a finite number"
    if low is not None and high is not None:
        return f"{kind} in {'(' if low_open else '['}{low:,}, {high:,}{')' if high_open else ']'}"
    if low is not None:
        return f"{kind} {'>' if low_open else '>='} {low:,}"
    if high is not None:
        return f"{kind} {'<' if high_open else '<='} {high:,}"
    return kind


def check_number(value: Any, name: str, *, low=None, high=None, low_open: bool = False,
                 high_open: bool = False, integer: bool = False, why: str = "") -> Any:
    """``value`` if it is a finite number (an integer when ``integer``) in the range, else
    :class:`InputError` naming ``name``, the range and ``why`` (what sets the bound)."""
    expected = _range_text(low, high, low_open, high_open, integer) + (f" ({why})" if why else "")
    if isinstance(value, bool) or not isinstance(value, (Real, Decimal)):
        raise InputError(f"{name}: expected {expected}, got {_short(value)}")
    if isinstance(value, Decimal):
        finite = value.is_finite()
    elif isinstance(value, (int, Fraction)):
        finite = True
    else:
        finite = math.isfinite(value)
    if not finite:
        raise InputError(f"{name}: expected {expected}, got {_short(value)}")
    if integer and (isinstance(value, float) and not value.is_integer() or
                    isinstance(value, (Decimal, Fraction)) and value != int(value)):
        raise InputError(f"{name}: expected {expected}, got {_short(value)}")
    outside = ((low is not None and (value <= low if low_open else value < low)) or
               (high is not None and (value >= high if high_open else value > high)))
    if outside:
        raise InputError(f"{name}: expected {expected}, got {_short(value)}")
    return value


def check_alpha(alpha: Any, name: str = "alpha") -> float:
    """A significance level: a finite number strictly between 0 and 1."""
    return float(check_number(alpha, name, low=0, high=1, low_open=True, high_open=True))


def check_amount(value: Decimal, name: str, *, low=-MAX_AMOUNT, high=MAX_AMOUNT,
                 places: int = AMOUNT_PLACES) -> Decimal:
    """A spec or fixture amount: finite, in range, at most ``places`` decimals (exact arithmetic)."""
    check_number(value, name, low=low, high=high,
                 why=f"at most {places} decimals; amounts are bounded so that Decimal arithmetic stays exact")
    if value != value.quantize(Decimal(1).scaleb(-places)):
        raise InputError(f"{name}: expected at most {places} decimals, got {_short(value)}")
    return value


def parse_number(text: str, name: str, *, integer: bool = False) -> Any:
    """An option or variable's text as an int (``integer``) or a float; ``InputError`` if it is not one."""
    text = str(text).strip()
    try:
        if integer:
            return int(text)
        return float(text)
    except (ValueError, OverflowError):
        kind = "an integer" if integer else "a number"
        raise InputError(f"{name}: expected {kind}, got {_short(text)}") from None


def env_number(variable: str, *, integer: bool = True, default=None, **bounds) -> Any:
    """``$variable`` as a checked number (``default`` when unset or empty)."""
    raw = os.environ.get(variable)
    if raw is None or not raw.strip():
        return default
    return check_number(parse_number(raw, f"${variable}", integer=integer), f"${variable}", integer=integer,
                        **bounds)


def source_date_epoch() -> int | None:
    """``$SOURCE_DATE_EPOCH`` (reproducible builds): whole seconds a report date can hold."""
    return env_number("SOURCE_DATE_EPOCH", low=0, high=EPOCH_MAX,
                      why="seconds since 1970-01-01 UTC, up to 9999-12-31T23:59:59Z")


def check_rounds(rounds: Any, name: str = "rounds") -> int:
    return int(check_number(rounds, name, low=1, high=MAX_ROUNDS, integer=True,
                            why="money is tallied in 64-bit integers; see certify.validate"))


def _short(value: Any, limit: int = 60) -> str:
    text = str(value) if isinstance(value, (Decimal, Fraction)) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ------------------------------------------------------------------------------------ click


def click_number(low=None, high=None, *, integer: bool = False, low_open: bool = False,
                 high_open: bool = False, why: str = ""):
    """A click parameter type that reads a number and checks it with :func:`check_number`
    (click's own ``FloatRange`` lets NaN through: every comparison with NaN is false)."""
    import click

    class Number(click.ParamType):
        name = "integer" if integer else "number"

        def convert(self, value, param, ctx):
            label = f"--{param.name.replace('_', '-')}" if param is not None and param.name else "value"
            try:
                number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else \
                    parse_number(value, label, integer=integer)
                return check_number(number, label, low=low, high=high, low_open=low_open, high_open=high_open,
                                    integer=integer, why=why)
            except InputError as exc:  # click names the option itself
                self.fail(str(exc).removeprefix(f"{label}: "), param, ctx)

        def __repr__(self) -> str:
            return f"Number({_range_text(low, high, low_open, high_open, integer)})"

    return Number()


def click_alpha():
    return click_number(0, 1, low_open=True, high_open=True, why="a significance level")
