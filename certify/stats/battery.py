"""The RNG batteries as one call: SP 800-22 on bit sequences, the card and shuffle tests on
dealt decks, the draw tests on scaled integers, the section 4.2 second level and the family verdict. Returns plain data (a dict
that is also the JSON written by ``certify rng``), so ``certify rng``, ``certify run``, the report
and the pytest plugin all run and read the same thing.

Data is drawn from the source in a fixed order: ``sequences`` x ``bits`` bits, then ``decks``
52-card deals, then ``small_decks`` deals of a 4-card and of a 5-card deck, then ``draws``
integers in [0, 51] (``rng.bounded.integers``, or the source's own scaling when it has one, as the
modulo-biased negative control does; a file of integers gives its values and declared range). A source that only
deals decks (a file of decks, a broken shuffle) skips the bit battery; a file of 52-card decks
has no 4- and 5-card decks, so its permutation test looks at the relative order of the first
4 and 5 cards of each deal instead (equally uniform for a fair shuffle).

The verdict is the family verdict of ``certify.stats.multiple`` (Holm-Bonferroni over every test
of both batteries); the NIST section 4.2 figures are reported beside it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from certify.stats import cards
from certify.stats.multiple import CONFIRMATION_RULE, Unconfirmable, confirm, holm, member_pvalue, second_level
from certify.stats.result import TestResult
from certify.validate import check_alpha

SCHEMA = "certify.rng/1"
PARALLEL_MIN_BITS = 2_000_000  # below this, a second thread has too little work to share


@dataclass(frozen=True)
class Profile:
    """How much data each battery looks at."""

    name: str
    bits: int          # bits per SP 800-22 sequence (0: no bit battery)
    sequences: int
    decks: int         # 52-card deals for the card battery (0: no card battery)
    small_decks: int   # deals of 4- and 5-card decks for the full permutation test
    draws: int         # scaled integers for the draw tests (0: none)
    description: str


PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile("quick", 1_000_000, 1, 100_000, 100_000, 1_000_000,
            "one 1,000,000-bit sequence, 100,000 deals, 1,000,000 draws: a CI smoke test (about 10 s)"),
    Profile("standard", 1_000_000, 10, 200_000, 200_000, 2_000_000,
            "ten 1,000,000-bit sequences, 200,000 deals, 2,000,000 draws (the `certify rng` default)"),
    Profile("lab", 1_000_000, 100, 1_000_000, 1_000_000, 10_000_000,
            "a hundred 1,000,000-bit sequences (SP 800-22 4.2 uniformity needs >= 55), 1,000,000 deals"),
    Profile("cards", 0, 0, 200_000, 200_000, 2_000_000, "the card, shuffle and draw batteries only"),
    Profile("bits", 1_000_000, 10, 0, 0, 0, "the SP 800-22 battery only"),
)}

# The card battery: (name, function) in report order; Permutations4/5 are added from small decks.
CARD_TESTS: tuple[tuple[str, Callable[..., TestResult]], ...] = (
    ("CardPosition", cards.card_position),
    ("SuitByPosition", cards.suit_by_position),
    ("RankByPosition", cards.rank_by_position),
    ("AdjacentPairs", cards.adjacent_pairs),
    ("Runs", cards.runs),
    ("Gaps", cards.gaps),
    ("CouponCollector", cards.coupon_collector),
    ("Poker", cards.poker),
    ("SerialIndependence", cards.serial_independence),
    ("RepeatedDeals", cards.repeated_deals),
)


def resolve_profile(profile: str | Profile = "standard", **overrides: int | None) -> Profile:
    """A profile by name, with any of bits/sequences/decks/small_decks/draws overridden (None: keep)."""
    if isinstance(profile, str):
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r}: expected one of {', '.join(PROFILES)}")
        profile = PROFILES[profile]
    changes = {k: v for k, v in overrides.items() if v is not None}
    for key, value in changes.items():
        if key not in ("bits", "sequences", "decks", "small_decks", "draws"):
            raise ValueError(f"unknown profile field {key!r}")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{key} must be a non-negative integer, got {value!r}")
    if changes.get("bits", profile.bits) % 8 and changes.get("sequences", profile.sequences):
        raise ValueError(f"bits per sequence must be a multiple of 8, got {changes.get('bits', profile.bits)}")
    return replace(profile, **changes) if changes else profile


# ---------------------------------------------------------------------------------------------
# SP 800-22 over many sequences
# ---------------------------------------------------------------------------------------------

def _run_sequence(packed: bytes, n_bits: int, alpha: float, reference: str = "exact") -> list[dict[str, Any]]:
    from certify.stats import sp800_22

    bits = np.unpackbits(np.frombuffer(packed, dtype=np.uint8))[:n_bits]
    return [r.to_dict() for r in sp800_22.run_all(bits, alpha, reference=reference)]


def _series_labels(name: str, results: list[dict[str, Any]]) -> list[str]:
    for r in results:
        if r["applicable"]:
            labels = (r.get("details") or {}).get("labels")
            if labels and len(labels) == len(r["pvalues"]):
                return [str(label) for label in labels]
            return [name] if len(r["pvalues"]) == 1 else [f"{name}[{i}]" for i in range(len(r["pvalues"]))]
    return [name]


def sequence_workers(jobs: int, sequences: int, n_bits: int) -> int:
    """Threads for the SP 800-22 sequences: at most ``jobs``, one per sequence and one per CPU this
    process may run on; one below PARALLEL_MIN_BITS of work.

    Threads, not processes: the tests spend most of their time in numba kernels compiled with
    ``nogil`` and in scipy.fft, which release the GIL, so two threads use two cores; the
    sequences and the compiled kernels are shared, where a worker process pays about 1.2 s CPU to
    import the suite and load the kernels from numba's cache, plus a pickled copy of its input."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    if sequences < 2 or n_bits * sequences < PARALLEL_MIN_BITS:
        return 1
    return max(1, min(jobs, sequences, cpus))


def sp800_22_battery(source, n_bits: int, sequences: int, alpha: float = 0.01, jobs: int = 1,
                     progress: Callable[[str], None] | None = None,
                     reference: str = "exact") -> dict[str, dict[str, Any]]:
    """Every SP 800-22 test on ``sequences`` sequences of ``n_bits`` bits, with the 4.2 second level,
    computed as ``reference`` says ("exact", or "nist-sts": what the NIST reference code computes).

    Returns ``{NIST name: {"pvalues": [[p per series] or None per sequence], "labels": [...],
    "second_level": [...], "member_pvalue": p or None, "results": [per-sequence result dicts]}}``.
    """
    from certify.stats.sp800_22 import check_reference
    from certify.pool import map_in_order

    if n_bits % 8:
        raise ValueError(f"bits per sequence must be a multiple of 8, got {n_bits}")
    check_reference(reference)
    packed = [bytes(source.random_bytes(n_bits // 8)) for _ in range(sequences)]
    workers = sequence_workers(jobs, sequences, n_bits)

    def report(i: int) -> None:
        if progress:
            progress(f"SP 800-22 sequence {i + 1}/{sequences}")

    # more than one worker: the process's lasting thread pool (certify.pool), no start-up per call
    per_sequence = map_in_order(_run_sequence, [(p, n_bits, alpha, reference) for p in packed], workers, report)
    out: dict[str, dict[str, Any]] = {}
    names = [r["name"] for r in per_sequence[0]] if per_sequence else []
    for t, name in enumerate(names):
        results = [seq[t] for seq in per_sequence]
        labels = _series_labels(name, results)
        pvalues = [list(r["pvalues"]) if r["applicable"] else None for r in results]
        levels = [second_level([ps[s] if ps is not None else None for ps in pvalues], alpha, label)
                  for s, label in enumerate(labels)]
        components = [c for level in levels for c in level.components()]
        out[name] = {
            "labels": labels,
            "pvalues": pvalues,
            "applicable_sequences": sum(ps is not None for ps in pvalues),
            "second_level": [level.to_dict() for level in levels],
            "nist_second_level_ok": None if not components else all(level.nist_ok for level in levels if level.m),
            "member_pvalue": member_pvalue(components) if components else None,
            "components": len(components),
            "results": results,
        }
    return out


# ---------------------------------------------------------------------------------------------
# Card battery
# ---------------------------------------------------------------------------------------------

def _deals_only_from_file(source) -> bool:
    return hasattr(source, "decks") and hasattr(source, "cards_per_deck")


def card_battery(source, n_decks: int, small_decks: int, alpha: float = 0.01,
                 progress: Callable[[str], None] | None = None, cards_per_deal: int = 52) -> dict[str, dict[str, Any]]:
    """The card and shuffle tests on ``n_decks`` deals (the first ``cards_per_deal`` cards of a
    52-card deck) and on ``small_decks`` 4- and 5-card deals."""
    out: dict[str, dict[str, Any]] = {}
    deals = cards.check_deals(source.deal_batch(n_decks, cards_per_deal, 52), what=f"deals from {_name(source)}")
    for name, test in CARD_TESTS:
        out[name] = test(deals, alpha).to_dict()
        if progress:
            progress(f"card test {name}")
    for size in (4, 5):
        if _deals_only_from_file(source) or small_decks == 0:
            result = cards.permutations(deals, alpha, size=size)
        else:
            small = cards.check_deals(source.deal_batch(small_decks, size, size), size,
                                      what=f"{size}-card deals from {_name(source)}")
            result = cards.permutations(small, alpha, deck_size=size)
        out[f"Permutations{size}"] = result.to_dict()
    return out


# ---------------------------------------------------------------------------------------------
# Draw battery
# ---------------------------------------------------------------------------------------------

DRAW_RANGE = (0, 51)  # what a game scales to before it deals: a card index


DRAW_METHODS = {
    "file": "the integers of the file, in its declared range",
    "own": "the source's own scaling to [0, 51]",
    "suite": "the suite's unbiased scaling (rng.bounded) of its words to [0, 51]",
}


def draw_method(source) -> str | None:
    """Where the draws come from (a ``DRAW_METHODS`` key), or None when the source has none."""
    if hasattr(source, "low") and hasattr(source, "high") and hasattr(source, "integers"):
        return "file"
    if hasattr(source, "integers"):
        return "own"
    return "suite" if _gives_bits(source) else None


def draw_values(source, n: int) -> tuple[np.ndarray, int, int] | None:
    """``n`` scaled integers from ``source`` and their range, or None when it has none to give."""
    method = draw_method(source)
    if method == "file":
        return source.integers(n), source.low, source.high
    low, high = DRAW_RANGE
    if method == "own":
        return np.asarray(source.integers(high - low + 1, n)) + low, low, high
    if method == "suite":
        from rng.bounded import integers

        return integers(source, high - low + 1, n) + low, low, high
    return None


def draw_battery(source, n_draws: int, alpha: float = 0.01) -> dict[str, dict[str, Any]]:
    """The draw tests (``certify.stats.draws``) on ``n_draws`` scaled integers, if the source has them."""
    from certify.stats.draws import DRAW_TESTS

    drawn = draw_values(source, n_draws)
    if drawn is None:
        return {}
    values, low, high = drawn
    return {name: test(values, low, high, alpha).to_dict() for name, test in DRAW_TESTS}


# ---------------------------------------------------------------------------------------------
# Sources by name (the CLI and the plugin)
# ---------------------------------------------------------------------------------------------

FILE_FORMATS = {"raw": "binary", "ascii-bits": "bits", "ints": "integers", "decks": "decks"}
DRBG_SOURCES = {"drbg:ctr": "ctr", "drbg:hmac": "hmac"}


def drbg_source(name: str, seed: int):
    """Our certified DRBG (``drbg:ctr`` or ``drbg:hmac``): the sub-stream 0 of master seed ``seed``."""
    from rng.streams import stream

    if name not in DRBG_SOURCES:
        raise ValueError(f"unknown source {name!r}: expected one of {', '.join(DRBG_SOURCES)}")
    source = stream(seed, 0, DRBG_SOURCES[name])
    source.name = f"{name} (rng.streams, master seed {seed}, stream 0)"
    return source


def file_source(path: str | Path, fmt: str, *, low: int | None = None, high: int | None = None,
                cards_per_deal: int = 52):
    """A file under test by format name (raw, ascii-bits, ints, decks): ``rng.sources`` adapters,
    which validate the whole file up front and name the line/byte of the first bad token. A text
    file is read within ``certify.inputs.RNG_TEXT_LIMITS`` / ``RNG_BITS_LIMITS`` (size; line length
    of ints and decks files)."""
    from rng import sources

    if fmt not in FILE_FORMATS:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FILE_FORMATS)}")
    if fmt == "ints" and (low is None or high is None):
        raise ValueError("--format ints needs the declared range: --low and --high")
    if fmt == "ints":  # a range the draw tests cannot tally fails before the file is read
        from certify.stats.draws import check_draws

        check_draws(np.zeros(0, dtype=np.int64), low, high)
    if not Path(path).is_file():
        raise ValueError(f"{path}: no such file")
    data = None  # a raw file is read as the tests use it; the text formats are parsed whole, so bounded
    if fmt != "raw":
        from certify.inputs import RNG_BITS_LIMITS, RNG_TEXT_LIMITS, read_input

        data = read_input(path, RNG_BITS_LIMITS if fmt == "ascii-bits" else RNG_TEXT_LIMITS)
    return sources.open_file(path, FILE_FORMATS[fmt], low=low, high=high, cards_per_deck=cards_per_deal, data=data)


def available_bits(source) -> int | None:
    """How many bits a file source still holds (None: not a file, or unlimited)."""
    if hasattr(source, "size") and hasattr(source, "offset"):
        return 8 * (source.size - source.offset)
    if hasattr(source, "bits") and hasattr(source, "position"):
        return len(source.bits) - source.position
    return None


def available_draws(source) -> int | None:
    """How many integers a file of integers still holds (None: not such a file)."""
    if hasattr(source, "values") and hasattr(source, "low") and hasattr(source, "high"):
        return len(source.values) - source.position
    return None


def available_decks(source) -> int | None:
    if _deals_only_from_file(source):
        return len(source.decks) - source.position
    return None


# ---------------------------------------------------------------------------------------------
# Both batteries and the family verdict
# ---------------------------------------------------------------------------------------------

def _name(source) -> str:
    return str(getattr(source, "name", type(source).__name__))


def what_was_tested(source, profile: Profile, bits_skipped: str | None, decks: bool, draws: bool) -> list[str]:
    """What each battery read from ``source``, one line each (the result's ``tested``): the
    bits read, the deals as the source deals them or as the suite deals from its words."""
    from rng.base import RandomSource

    name = _name(source)
    if bits_skipped:
        lines = [f"bits: not tested ({bits_skipped})"]
    elif profile.bits and profile.sequences:
        lines = [f"bits: SP 800-22 on {profile.sequences} x {profile.bits:,} bits read from {name}"]
    else:
        lines = ["bits: not tested (none asked for)"]
    if decks:
        dealt_by_suite = getattr(type(source), "deal_batch", None) is RandomSource.deal_batch
        how = (f"dealt from the words of {name} by the suite's unbiased Fisher-Yates (rng.shuffle)" if dealt_by_suite
               else f"as {name} deals them")
        lines.append(f"deals: card battery on {profile.decks:,} deals {how}")
    if draws:
        lines.append(f"draws: {profile.draws:,} integers, {DRAW_METHODS[draw_method(source)]}")
    return lines


def _gives_bits(source) -> bool:
    try:
        source.random_bytes(0)
    except TypeError:
        return False
    return True


def _batteries(source, chosen: Profile, alpha: float, jobs: int, cards_per_deal: int,
               progress: Callable[[str], None] | None, reference: str = "exact"):
    """The three batteries of ``chosen`` on the source's next data: (bit, card, draw results, skip reason)."""
    bit_results: dict[str, dict[str, Any]] = {}
    bits_skipped = None
    if chosen.bits and chosen.sequences:
        if _gives_bits(source):
            bit_results = sp800_22_battery(source, chosen.bits, chosen.sequences, alpha, jobs, progress, reference)
        else:
            bits_skipped = f"{_name(source)} deals decks and gives no bits"
    card_results = card_battery(source, chosen.decks, chosen.small_decks, alpha, progress, cards_per_deal) \
        if chosen.decks else {}
    draw_results = draw_battery(source, chosen.draws, alpha) if chosen.draws else {}
    return bit_results, card_results, draw_results, bits_skipped


def _members(bit_results, card_results, draw_results) -> dict[str, float]:
    """The family's members and their p-values (module docstring of certify.stats.multiple)."""
    members: dict[str, float] = {}
    for name, entry in bit_results.items():
        if entry["member_pvalue"] is not None:
            members[f"SP800-22/{name}"] = entry["member_pvalue"]
    for battery_name, results in (("cards", card_results), ("draws", draw_results)):
        for name, entry in results.items():
            if entry["applicable"]:
                members[f"{battery_name}/{name}"] = entry["pvalue"]
    return members


def _fresh_retest(source, chosen: Profile, alpha: float, jobs: int, cards_per_deal: int,
                  progress: Callable[[str], None] | None, reference: str = "exact"):
    """Stage 2 of the confirmatory rule: the batteries holding the failing members, again, on the
    source's next (fresh, non-overlapping) output at the same sizes."""
    from rng.base import RandomSourceError

    def retest(names: list[str]):
        need = {name.split("/", 1)[0] for name in names}
        fresh = replace(chosen, sequences=chosen.sequences if "SP800-22" in need else 0,
                        decks=chosen.decks if "cards" in need else 0,
                        small_decks=chosen.small_decks if "cards" in need else 0,
                        draws=chosen.draws if "draws" in need else 0)
        if progress:
            progress(f"confirmation on fresh data: {', '.join(names)}")
        try:
            bit, card, draw, _ = _batteries(source, fresh, alpha, jobs, cards_per_deal, progress, reference)
        except RandomSourceError as exc:
            raise Unconfirmable(f"the source has no fresh data: {exc}") from None
        members = _members(bit, card, draw)
        by_member = {f"SP800-22/{n}": {"name": n, "member_pvalue": e["member_pvalue"]} for n, e in bit.items()}
        by_member.update({f"cards/{n}": e for n, e in card.items()})
        by_member.update({f"draws/{n}": e for n, e in draw.items()})
        return ({n: members[n] for n in names if n in members},
                [dict(by_member[n], member=n) for n in names if n in by_member])

    return retest


def run_battery(source, profile: str | Profile = "standard", *, alpha: float = 0.01, jobs: int = 1,
                bits: int | None = None, sequences: int | None = None, decks: int | None = None,
                small_decks: int | None = None, draws: int | None = None, cards_per_deal: int = 52, source_label: str | None = None,
                progress: Callable[[str], None] | None = None, confirm_failures: bool = True,
                reference: str = "exact") -> dict[str, Any]:
    """Run the batteries of ``profile`` on ``source``; return the plain-data result (module docstring).

    ``reference`` is the SP 800-22 computation mode: "exact" (default), or "nist-sts" to compute
    what the NIST reference code computes (``certify.stats.sp800_22.REFERENCE_MODES``); the
    result records it as ``sp800_22_reference``.

    ``result["family"]`` is the stage-1 family verdict; ``result["confirmation"]`` applies the
    confirmatory rule (``certify.stats.multiple.CONFIRMATION_RULE``: members that fail are repeated
    on the source's next, fresh output) and ``result["passed"]`` / ``result["failing"]`` are its
    verdict. ``confirm_failures=False`` gives the stage-1 verdict alone.
    """
    alpha = check_alpha(alpha)
    from certify.stats.sp800_22 import check_reference
    from certify.pool import map_in_order

    check_reference(reference)
    chosen = resolve_profile(profile, bits=bits, sequences=sequences, decks=decks, small_decks=small_decks,
                             draws=draws)
    started = time.perf_counter()
    bit_results, card_results, draw_results, bits_skipped = _batteries(source, chosen, alpha, jobs, cards_per_deal,
                                                                       progress, reference)
    members = _members(bit_results, card_results, draw_results)
    if not members:
        raise ValueError("no applicable test: give more bits, decks or draws")
    family = holm(members, alpha)
    retest = _fresh_retest(source, chosen, alpha, jobs, cards_per_deal, progress, reference) if confirm_failures else None
    verdict = confirm(family, retest)
    return {
        "schema": SCHEMA,
        "source": source_label or _name(source),
        "profile": asdict(chosen),
        "alpha": alpha,
        "sp800_22": bit_results,
        "sp800_22_reference": reference,
        "sp800_22_skipped": bits_skipped,
        "tested": what_was_tested(source, chosen, bits_skipped, bool(card_results), bool(draw_results)),
        "cards": card_results,
        "draws": draw_results,
        "family": family.to_dict(),
        "confirmation": verdict.to_dict(),
        "passed": verdict.passed,
        "failing": verdict.failing,
        "seconds": round(time.perf_counter() - started, 3),
        "method": ("Holm-Bonferroni over the tests of both batteries at alpha; an SP 800-22 test over m "
                   "sequences enters with the Bonferroni minimum of, per p-value series, m x its smallest "
                   "p-value, the exact binomial tail of its failure count (SP 800-22 4.2.1) and, for m >= 55, "
                   "the 4.2.2 uniformity P-value_T; a multi-p-value card test enters with its Bonferroni p-value. "
                   + (CONFIRMATION_RULE if confirm_failures else "Stage 1 only (no confirmation).")),
    }


def summary_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One plain row per test, in report order, for a table: what the CLI and the report print."""
    adjusted = {m["name"]: m for m in result["family"]["members"]}
    confirmed = set(result["failing"])
    rows = []
    for name, entry in result["sp800_22"].items():
        member = adjusted.get(f"SP800-22/{name}")
        levels = [lv for lv in entry["second_level"] if lv["m"]]
        if levels:
            worst = min(levels, key=lambda lv: lv["passed_count"] / lv["m"])
            proportion = f"{worst['passed_count']}/{worst['m']}"
            uniform = [lv["uniformity_pvalue"] for lv in levels if lv["uniformity_pvalue"] is not None]
        else:
            proportion, uniform = "-", []
        min_p = min((lv["min_pvalue"] for lv in levels), default=None)
        outside = sum(not lv["nist_ok"] for lv in levels)
        nist = "-" if not levels else ("ok" if not outside else f"{outside}/{len(levels)} out")
        rows.append({"battery": "SP 800-22", "test": name, "series": len(entry["labels"]), "nist": nist,
                     "sample": f"{entry['applicable_sequences']} seq", "proportion": proportion,
                     "uniformity": min(uniform) if uniform else None,
                     "nist_ok": entry["nist_second_level_ok"], "min_p": min_p,
                     "member_p": entry["member_pvalue"], "adjusted_p": member["adjusted"] if member else None,
                     "verdict": _verdict(member, confirmed)})
    for battery_name, unit in (("cards", "deals"), ("draws", "draws")):
        for name, entry in result.get(battery_name, {}).items():
            member = adjusted.get(f"{battery_name}/{name}")
            rows.append({"battery": battery_name, "test": name, "series": max(1, len(entry["pvalues"])), "nist": "-",
                         "sample": f"{entry['n']:,} {unit}", "proportion": "-", "uniformity": None,
                         "nist_ok": None, "min_p": min(entry["pvalues"]) if entry["pvalues"] else None,
                         "member_p": entry["pvalue"], "adjusted_p": member["adjusted"] if member else None,
                         "verdict": _verdict(member, confirmed)})
    return rows


def _verdict(member: dict[str, Any] | None, confirmed: set[str]) -> str:
    if member is None:
        return "n/a"
    if not member["rejected"]:
        return "pass"
    return "FAIL" if member["name"] in confirmed else "unconfirmed"  # stage 1 only: fresh data passed


def failure_message(result: dict[str, Any]) -> str:
    """One paragraph naming the failing tests, their adjusted p-values and what they looked at."""
    tested = "".join(f"\n    {line}" for line in result.get("tested", ()))
    tested = f"\n  what was tested:{tested}" if tested else ""
    if result["passed"]:
        return f"{result['source']}: all tests pass (family verdict, alpha {result['alpha']}){tested}"
    lines = [f"{result['source']} fails the RNG battery (Holm-Bonferroni at alpha {result['alpha']}); "
             "confirmed on fresh data where the source has more:"]
    for member in result["family"]["members"]:
        if member["name"] not in result["failing"]:
            continue
        battery, name = member["name"].split("/", 1)
        entry = result["sp800_22"][name] if battery == "SP800-22" else result[battery][name]
        what = entry.get("looked_at") or f"{entry.get('applicable_sequences')} sequences"
        lines.append(f"  {member['name']}: adjusted p = {member['adjusted']:.3g} ({what})")
    if "confirmation" in result:
        lines.append(f"  {result['confirmation']['summary']}")
    return "\n".join(lines) + tested


def write_json_atomic(path: str | Path, data: dict[str, Any]) -> Path:
    """Write ``data`` as JSON, whole or not at all (``certify.atomic``)."""
    from certify.atomic import atomic_write

    text = json.dumps(_finite(data), indent=1, allow_nan=False, default=_json_default)
    return atomic_write(path, text + "\n")


def _finite(obj: Any) -> Any:
    """JSON has no inf/NaN: an infinite statistic (an impossible outcome observed) becomes "inf"."""
    if isinstance(obj, float) and not np.isfinite(obj):
        return "nan" if obj != obj else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON-serialisable: {type(obj).__name__}")
