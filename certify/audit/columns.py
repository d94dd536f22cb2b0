"""Columnar round logs (Parquet, ``certify-round-columns/1``) and their fast audit path.

JSON Lines stays the interchange format; this is the bulk format for logs of millions of rounds
(docs/round-log.md, "Columnar logs"). One row is one round of one seat, dealt once, with at most
one decision: the one-decision shape of the rules model (``certify.rules.analysis.one_decision``:
Caribbean and Casino Stud, Three Card Poker, any game written in that shape). pyarrow reads it
(an optional extra: ``pip install .[parquet]``); ``certify audit`` tells it from JSON Lines by its
magic bytes.

The fast path never settles a round itself. A batch of rows is validated column by column (the
first bad value is ``file:row: column``, exit 2); the bulk kernel's own loop
(``certify.rules.kernel.one_decision_cells``) gives each row's dealer cell (does not qualify /
win / tie / lose), the player's category and the spec strategy's option, and the rows are put in
*settlement classes*: the same logged option, cell, category, wagers and strategy declaration
settle alike, since the model reads nothing else of the hands (``certify.rules.engine``'s
settlement: every pay by cell and category). One row of each class is re-settled by the spec's
own round class (``certify.audit.rounds``, exactly as a JSON line is), and every row of the class
must carry that row's settlement. Every row that does not (a mis-pay, a wrong outcome), every row
of another shape (a dead hand, a misdeal, a card not of the deck or twice in the round, a
decision against the declared strategy) and every row whose progressive award is read off the
meter or moves it is audited on its own through the exact path (``Auditor.settle``): the
findings are the exact path's, word for word (tested: tests/test_audit_columns.py compares both
paths on fair and faulty rounds). Games of other shapes are read from columns too, every row
through the exact path.
"""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal
from types import SimpleNamespace
from typing import Any, Iterable

import numpy as np
from numba import njit

from certify.audit.log import LogError, LogFile
from certify.cards import card_str

FORMAT = "certify-round-columns/1"
MAGIC = b"PAR1"
BATCH_ROWS = 1 << 17
AHEAD = 2                  # row groups decoded ahead of the one tallied
REQUIRED = ("round", "table", "time", "spec_name", "spec_version", "seat", "player_cards", "dealer_cards", "outcome")
CENTS = Decimal(100)


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise LogError("a columnar (Parquet) log needs pyarrow: pip install 'table-game-certify[parquet]'") from None
    return pa, pq


def is_columnar(path) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == MAGIC


# ------------------------------------------------------------------ writing (tests, bench, conversion)

def row_of(record: dict) -> dict[str, Any]:
    """A round-log v1 record as one columnar row; ``ValueError`` for a round of another shape."""
    if len(record["seats"]) != 1 or "deck" in record or "balance" in record["seats"][0]:
        raise ValueError(f"round {record['round']}: columnar v1 holds one seat, no deck order, no balance")
    seat = record["seats"][0]["seat"]
    row: dict[str, Any] = {"round": record["round"], "table": record["table"], "time": record["time"],
                           "spec_name": record["spec"]["name"], "spec_version": record["spec"]["version"],
                           "strategy": record.get("strategy"), "seat": seat, "lockout": False, "decision": None,
                           "outcome": record["outcome"]}
    meter = record.get("meter") or {}
    row["meter_before"], row["meter_after"] = meter.get("before"), meter.get("after")
    expect = ["wager", "lockout", "player", "dealer", "decision", "reveal"]
    for action in record["actions"]:
        kind = action["type"]
        step = {"wager": "wager", "lockout": "lockout", "decision": "decision", "reveal": "reveal",
                "deal": "player" if action.get("to") == seat else "dealer" if action.get("to") == "dealer" else "?"}
        key = step.get(kind, "?")
        if key not in expect:
            raise ValueError(f"round {record['round']}: action {action} out of the columnar v1 order")
        expect = expect[expect.index(key) + (key != "wager"):]
        if kind == "wager":
            row[f"wager_{action['wager']}"] = action["amount"]
        elif kind == "lockout":
            row["lockout"] = True
        elif kind == "deal":
            row[f"{key}_cards"] = [_code(c) for c in action["cards"]]
        elif kind == "decision":
            row["decision"] = action["action"]
    for entry in record["settlement"]:
        row[f"net_{entry['wager']}"] = entry["net"]
    return row


def _code(token: str) -> int:
    """The card's code 0..51 (rank x 4 + suit); 255 for a token that is no card of the deck."""
    from certify.audit.rounds import card_code
    from certify.cards import CardError

    try:
        return card_code(token)
    except CardError:
        return 255


def write_columns(records: Iterable[dict], path, row_group: int = BATCH_ROWS) -> int:
    """Write records (of the columnar shape) as a Parquet log; returns the rows written."""
    pa, pq = _pyarrow()
    rows = [row_of(r) for r in records]
    money = sorted({k for r in rows for k in r if k.startswith(("wager_", "net_"))} | {"meter_before", "meter_after"})
    wagers = [k for r in rows for k in r if k.startswith("wager_")]
    money = list(dict.fromkeys(wagers)) + [k for k in money if not k.startswith("wager_")]
    decimal = pa.decimal128(18, 2)
    fields = [("round", pa.int64()), ("table", pa.string()), ("time", pa.timestamp("us", tz="UTC")),
              ("spec_name", pa.string()), ("spec_version", pa.string()), ("strategy", pa.string()),
              ("seat", pa.int16()), ("lockout", pa.bool_()), ("player_cards", pa.list_(pa.uint8())),
              ("dealer_cards", pa.list_(pa.uint8())), ("decision", pa.string()), ("outcome", pa.string())]
    fields += [(name, decimal) for name in money]
    columns = {}
    for name, kind in fields:
        values = [r.get(name) for r in rows]
        if name == "time":
            values = [datetime.fromisoformat(v.replace("Z", "+00:00")) for v in values]
        elif kind == decimal:
            values = [None if v is None else Decimal(v) for v in values]
        columns[name] = pa.array(values, type=kind)
    table = pa.table(columns, metadata={"format": FORMAT})
    pq.write_table(table, path, row_group_size=row_group, store_decimal_as_integer=True)   # INT64 money: faster to read
    return len(rows)


# ------------------------------------------------------------------ reading

def _fail(where: str, column: str, what: str) -> None:
    raise LogError(f"{where}: {column}: {what}")


def _check_schema(schema, path: str) -> None:
    pa, _ = _pyarrow()
    if (schema.metadata or {}).get(b"format") != FORMAT.encode():
        _fail(path, "(file metadata) format", f"expected {FORMAT!r}")
    kinds = {"round": pa.types.is_int64, "table": pa.types.is_string, "spec_name": pa.types.is_string,
             "spec_version": pa.types.is_string, "strategy": pa.types.is_string, "seat": pa.types.is_int16,
             "lockout": pa.types.is_boolean, "decision": pa.types.is_string, "outcome": pa.types.is_string,
             "time": lambda t: pa.types.is_timestamp(t) and t.tz in ("UTC", "+00:00"),
             "player_cards": lambda t: pa.types.is_list(t) and pa.types.is_uint8(t.value_type),
             "dealer_cards": lambda t: pa.types.is_list(t) and pa.types.is_uint8(t.value_type)}
    for name in REQUIRED:
        if name not in schema.names:
            _fail(path, name, "required column is missing")
    for name, kind in zip(schema.names, schema.types):
        money = name.startswith(("wager_", "net_")) or name in ("meter_before", "meter_after")
        ok = (pa.types.is_decimal(kind) and kind.scale == 2) if money else kinds.get(name, lambda t: False)(kind)
        if not ok:
            expected = "decimal(p, 2)" if money else "a column of the columnar v1 schema" if name not in kinds else \
                "the type docs/round-log.md gives"
            _fail(path, name, f"expected {expected}, got {kind}")


class _Batch:
    """One batch of rows as numpy columns, and each row as a v1 record when needed."""

    def __init__(self, batch, first_row: int, path: str, spec, options: tuple[str, ...] = ()):
        pa, _ = _pyarrow()
        self.batch, self.first, self.path, self.n = batch, first_row, path, batch.num_rows
        names = batch.schema.names
        for name in REQUIRED:
            column = batch.column(name)
            if column.null_count:
                row = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
                _fail(self.where(row), name, "required value is missing")
        self.round = batch.column("round").to_numpy()
        self.seat = batch.column("seat").to_numpy()
        self.time = batch.column("time").cast(pa.int64()).to_numpy()
        for name, low, high, values in (("round", 1, 9007199254740991, self.round), ("seat", 0, 99, self.seat)):
            bad = np.flatnonzero((values < low) | (values > high))
            if len(bad):
                _fail(self.where(int(bad[0])), name, f"expected {low}..{high}, got {values[bad[0]]}")
        words, self.table = self._dictionary("table")
        used = np.flatnonzero(np.bincount(self.table, minlength=len(words)))
        self.table_names = [words[i] for i in used]     # in the dictionary's order, the tables of this batch
        self.table = np.searchsorted(used, self.table)
        for i, name in enumerate(self.table_names):
            if not 1 <= len(name) <= 64:
                _fail(self.where(int(np.flatnonzero(self.table == i)[0])), "table", f"expected 1 to 64 characters, got {name!r}")
        for column, want, text in (("spec_name", spec.name, "a round of {got!r}, but the audit is of {want!r}"),
                                   ("spec_version", str(spec.version),
                                    f"{spec.name} version {{got!r}}, but the spec given is version {{want}}")):
            words, codes = self._dictionary(column)
            wrong = [i for i, w in enumerate(words) if w != want]
            if wrong:
                bad = np.flatnonzero(np.isin(codes, wrong))
                if len(bad):
                    _fail(self.where(int(bad[0])), column.replace("_", "."),
                          text.format(got=words[codes[bad[0]]], want=want))
        self.outcome = self._codes("outcome", ("played", "misdeal"))
        self.strategy = self._codes("strategy", ("spec", "free"))
        self.decision = self._codes("decision", options, strict=False)   # the option's index; -1: none or another
        self.money = {}
        for name in names:
            if name.startswith(("wager_", "net_")) or name in ("meter_before", "meter_after"):
                self.money[name] = self._cents(name, batch.column(name))
        self.wagers = [n for n in names if n.startswith("wager_")]
        self.nets = [n for n in names if n.startswith("net_")]
        self.cards = {}
        for name in ("player_cards", "dealer_cards"):
            column = batch.column(name)          # no nulls (checked above): the offsets say every list
            offsets = column.offsets.to_numpy()
            flat = column.values.to_numpy()[offsets[0]:offsets[-1]]
            starts = offsets - offsets[0]
            self.cards[name] = (np.diff(starts), flat, starts)

    def _cents(self, name: str, column) -> tuple[np.ndarray, np.ndarray]:
        """A decimal(p, 2) column as (int64 cents, 0 where null; the nulls), read from its buffer:
        a decimal128 value is the unscaled integer (the cents) in 16 little-endian bytes; one past
        int64 is refused."""
        words = np.frombuffer(column.buffers()[1], dtype=np.int64)
        words = words[2 * column.offset: 2 * (column.offset + len(column))].reshape(-1, 2)
        null = column.is_null().to_numpy(zero_copy_only=False) if column.null_count else np.zeros(len(words), bool)
        low = np.empty(len(words), np.int64)
        bad = _low_words(words, null, low)
        if bad >= 0:
            _fail(self.where(int(bad)), name, "expected an amount within 64 bits of cents")
        return low, null

    def where(self, row: int) -> str:
        return f"{self.path}:{self.first + row}"

    def _dictionary(self, name: str) -> tuple[list, np.ndarray]:
        """A string column as (its distinct words, each row's index among them; a null: the index
        one past the words). The reader hands string columns over dictionary-encoded (cheap)."""
        column = self.batch.column(name)
        if not hasattr(column, "dictionary"):
            column = column.dictionary_encode()
        words = column.dictionary.to_pylist()
        indices = column.indices
        indices = indices.fill_null(len(words)) if indices.null_count else indices
        return words, indices.to_numpy().astype(np.int64, copy=False)

    def _codes(self, name: str, allowed: tuple[str, ...], strict: bool = True) -> np.ndarray:
        """-1 for a null (or, not ``strict``, a value not allowed); the index in ``allowed``; a
        value not allowed is exit 2 when ``strict``, as the schema refuses it."""
        if name not in self.batch.schema.names:
            return np.full(self.n, -1)
        words, indices = self._dictionary(name)
        lookup = np.array([allowed.index(w) if w in allowed else -2 for w in words] + [-1], np.int64)
        out = lookup[indices]
        bad = np.flatnonzero(out == -2)
        if strict and len(bad):
            got = words[indices[bad[0]]]
            _fail(self.where(int(bad[0])), name, f"expected one of {', '.join(map(repr, allowed))}, got {got!r}")
        return np.where(out == -2, -1, out)

    def hands(self, name: str, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows holding exactly k cards, their cards as an (n, k) array)."""
        lengths, flat, starts = self.cards[name]
        ok = lengths == k
        if ok.all():                          # the usual log: a view, no copy
            return ok, flat.reshape(self.n, k)
        index = starts[:-1][ok][:, None] + np.arange(k)
        return ok, flat[index] if len(index) else np.empty((0, k), np.uint8)

    def time_text(self, row: int) -> str:
        stamp = datetime.fromtimestamp(self.time[row] / 1e6, tz=timezone.utc)
        micro = int(self.time[row] % 1_000_000)
        text = stamp.strftime("%Y-%m-%dT%H:%M:%S")
        return text + (f".{micro:06d}" if micro else "") + "Z"

    def record(self, row: int, spec) -> dict:
        """Row ``row`` as the round-log v1 record it stands for (the exact path's input)."""
        b = self.batch
        seat = int(self.seat[row])
        record: dict[str, Any] = {"log": "certify-round-log/1", "round": int(self.round[row]),
                                  "table": self.table_names[self.table[row]], "time": self.time_text(row),
                                  "spec": {"name": spec.name, "version": str(spec.version)}}
        if self.strategy[row] >= 0:
            record["strategy"] = ("spec", "free")[self.strategy[row]]
        before, after = (b.column(n)[row].as_py() if n in b.schema.names else None
                         for n in ("meter_before", "meter_after"))
        if before is not None or after is not None:
            record["meter"] = {"before": _text(before), "after": _text(after)}
        record["seats"] = [{"seat": seat}]
        actions = [{"type": "wager", "seat": seat, "wager": n[len("wager_"):], "amount": _text(b.column(n)[row].as_py())}
                   for n in self.wagers if b.column(n)[row].is_valid]
        if "lockout" in b.schema.names and b.column("lockout")[row].as_py():
            actions.append({"type": "lockout"})
        for name, to in (("player_cards", seat), ("dealer_cards", "dealer")):
            lengths, flat, starts = self.cards[name]
            cards = flat[starts[row]:starts[row + 1]]
            actions.append({"type": "deal", "to": to, "cards": [_token(c) for c in cards]})
        decision = b.column("decision")[row].as_py() if "decision" in b.schema.names else None
        if decision is not None:
            actions += [{"type": "decision", "seat": seat, "action": decision}, {"type": "reveal"}]
        record["actions"] = actions
        record["outcome"] = ("played", "misdeal")[self.outcome[row]]
        record["settlement"] = [{"seat": seat, "wager": n[len("net_"):], "net": _text(b.column(n)[row].as_py())}
                                for n in self.nets if b.column(n)[row].is_valid]
        return record


def _text(value) -> str | None:
    return None if value is None else str(value)


def _token(code: int) -> str:
    return card_str(code) if 0 <= code < 52 else f"#{int(code)}"    # not a card: the exact path says so


# ------------------------------------------------------------------ the audit of a columnar log

def read_columns(path, spec, auditor, info: LogFile, batch_rows: int = BATCH_ROWS, jobs: int = 1) -> None:
    """Audit every row of one columnar log into ``auditor`` (the same tallies and findings as the
    JSON Lines path); ``info`` gets the file's size, SHA-256, rounds, tables and period.

    ``jobs`` > 1 (a game of the one-decision shape, two row groups or more, a system that forks):
    the row groups are split into ``jobs`` runs of consecutive groups; this process audits the
    first run while forked processes audit the others, each into tallies of its own, merged here
    in row order (``_merge``: counts added, the findings kept and the battery's sample taken in
    row order). Where a run's first round of a table does not follow the previous run's last one
    (a round id or time out of order across the split) the merge cannot know what one pass would
    have found: that run is audited again here, after the runs before it, exactly as one pass."""
    _, pq = _pyarrow()
    path = str(path)
    try:
        reader = pq.ParquetFile(path)
    except Exception as exc:            # pyarrow's errors: a damaged or truncated file
        raise LogError(f"{path}: not a readable Parquet log ({exc})") from None
    _check_schema(reader.schema_arrow, path)
    groups = reader.metadata.num_row_groups
    rules = one_decision_rules(spec)
    runs = _runs(groups, jobs if rules is not None else 1)
    if len(runs) == 1:
        _read_groups(path, spec, auditor, info, runs[0], reader, rules, True, batch_rows)
        return
    import multiprocessing

    _warm(spec, rules)                 # the compiled kernels loaded once, inherited by the forked processes
    context = multiprocessing.get_context("fork")
    children = []
    try:
        for run in runs[1:]:       # forked before this process starts any thread
            receive, send = context.Pipe(duplex=False)
            child = context.Process(target=_child, args=(send, path, spec, auditor, run, batch_rows),
                                    daemon=True)
            child.start()
            send.close()
            children.append((child, receive, run))
        _read_groups(path, spec, auditor, info, runs[0], reader, rules, True, batch_rows)
        for child, receive, run in children:
            try:
                outcome = receive.recv()
            except EOFError:
                child.join()
                raise LogError(f"{path}: the process auditing row groups {run.start}..{run.stop - 1} died "
                               f"(exit status {child.exitcode})") from None
            if isinstance(outcome, BaseException):
                raise outcome
            if not _merge(auditor, info, *outcome):
                _read_groups(path, spec, auditor, info, run, reader, rules, False, batch_rows)
    finally:
        for child, receive, _ in children:
            receive.close()
            if child.is_alive():
                child.kill()
            child.join()


def _warm(spec, rules) -> None:
    """Load the compiled loops the pass runs (from numba's cache: a second or more per process)."""
    from certify.rules.kernel import one_decision_cells

    cards = np.arange(2 * rules.k, dtype=np.uint8)[None, :]
    one_decision_cells(spec, rules, cards)
    _distinct_cards(cards)
    _low_words(np.zeros((1, 2), np.int64), np.zeros(1, np.bool_), np.empty(1, np.int64))


def _runs(groups: int, jobs: int) -> list[range]:
    """The row groups in ``jobs`` runs of consecutive groups (fewer when there are fewer groups)."""
    import multiprocessing

    if jobs < 2 or groups < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [range(groups)]
    jobs = min(jobs, groups)
    bounds = [groups * j // jobs for j in range(jobs + 1)]
    return [range(a, b) for a, b in zip(bounds, bounds[1:])]


def _child(send, path: str, spec, parent, run: range, batch_rows: int) -> None:
    """A forked process's run of row groups, audited into tallies of its own; sends back what
    ``_merge`` needs (or the ``LogError`` that stopped it)."""
    from certify.audit.audit import Auditor

    try:
        auditor = Auditor.__new__(Auditor)
        auditor.__dict__.update(parent.__dict__)          # the spec, strategy and limits of the parent
        auditor.tally, auditor._pending, auditor._outcome_keys = type(parent.tally)(), {}, {}
        info = LogFile(path)
        _read_groups(path, spec, auditor, info, run, None, one_decision_rules(spec), False, batch_rows)
        auditor.flush_cards()
        send.send((auditor.tally, info))
    except LogError as exc:
        send.send(exc)
    finally:
        send.close()


def _merge(auditor, info: LogFile, tally, part: LogFile) -> bool:
    """Add a later run's tallies to ``auditor``'s, as one pass would have made them; False (nothing
    merged) when a table's first round in the run does not follow its last round before it."""
    t = auditor.tally
    for table, (number, micros) in tally.first_seen.items():
        last = t.last.get(table)
        if last is not None and (number != last[0] + 1 or micros < _micros(last[1])):
            return False
    from certify.audit.audit import KEEP_FINDINGS

    for name in ("rounds", "declared", "free_rounds", "decisions", "free_deviations"):
        setattr(t, name, getattr(t, name) + getattr(tally, name))
    for name in ("counts", "choices", "choice_count", "outcomes", "dealer", "side_events", "side_nets"):
        getattr(t, name).update(getattr(tally, name))
    for kind, found in tally.findings.items():
        t.findings[kind].extend(found[:KEEP_FINDINGS - len(t.findings[kind])])
    auditor.flush_cards()               # one pass would tally this run's cards after these
    for size, table in tally.positions.items():
        if size in t.positions:
            t.positions[size] += table
        else:
            t.positions[size] = table
    blocks = {size: iter(rows) for size, rows in tally.sample.items()}
    for size in tally.sample_order:     # the run's sample in the order it was taken
        auditor.add_sample(next(blocks[size]))
    for table in tally.first_seen:
        t.first_seen.setdefault(table, tally.first_seen[table])
    t.last.update(tally.last)
    info.rounds += part.rounds
    info.tables |= part.tables
    for text in (part.first_time, part.last_time):
        if text is None:
            continue
        from certify.audit.audit import _time

        if info.first_time is None or _time(text) < _time(info.first_time):
            info.first_time = text
        if info.last_time is None or _time(text) > _time(info.last_time):
            info.last_time = text
    return True


def _read_groups(path: str, spec, auditor, info: LogFile, run: range, reader, rules, digest: bool,
                 batch_rows: int = BATCH_ROWS) -> None:
    """Audit the row groups of ``run`` in order into ``auditor`` (``digest``: also the file's size
    and SHA-256 into ``info``)."""
    from concurrent.futures import ThreadPoolExecutor

    _, pq = _pyarrow()
    reader = reader if reader is not None else pq.ParquetFile(path)
    strings = [name for name, kind in zip(reader.schema_arrow.names, reader.schema_arrow.types) if kind == "string"]
    fast = _Fast(spec, auditor, rules) if rules is not None else None
    options = tuple(o.name for o in rules.options) if rules is not None else ()
    meta = reader.metadata
    starts = np.concatenate([[1], 1 + np.cumsum([meta.row_group(g).num_rows for g in range(meta.num_row_groups)])])

    def decode(group: int) -> list[_Batch]:
        """One row group decoded (strings as dictionaries: each word checked once), validated (the
        first bad value: exit 2, raised when its turn comes) and prepared for the classes."""
        table = pq.ParquetFile(path, read_dictionary=strings).read_row_group(group)
        out, row = [], int(starts[group])
        for batch in table.to_batches(max_chunksize=batch_rows):
            b = _Batch(batch, row, path, spec, options)
            if fast is not None:
                fast.prepare(b)
            out.append(b)
            row += b.n
        return out

    # two threads decode and prepare the next row groups while this one tallies (pyarrow and numpy
    # release the interpreter lock), a third hashes the file; at most AHEAD row groups are in
    # flight, so memory stays flat
    groups = list(run)
    with ThreadPoolExecutor(3) as threads:
        hashed = threads.submit(_sha256, path) if digest else None
        pending = [threads.submit(decode, g) for g in groups[:AHEAD]]
        try:
            for i in range(len(groups)):
                batches = pending.pop(0).result()
                if i + AHEAD < len(groups):
                    pending.append(threads.submit(decode, groups[i + AHEAD]))
                for b in batches:
                    _audit_batch(b, spec, auditor, fast, info)
        except OSError as exc:
            raise LogError(f"{path}: the Parquet log is damaged or truncated ({exc})") from None
        finally:
            for future in pending:
                future.cancel()
        if hashed is not None:
            info.size, info.sha256 = hashed.result()


def _sha256(path: str) -> tuple[int, str]:
    import hashlib

    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            digest.update(block)
            size += len(block)
    return size, digest.hexdigest()


def _audit_batch(b: _Batch, spec, auditor, fast, info: LogFile) -> None:
    t = auditor.tally
    t.rounds += b.n
    out_of_order = _sequence(b, auditor)
    info.rounds += b.n
    info.tables.update(b.table_names)
    lo, hi = int(np.argmin(b.time)), int(np.argmax(b.time))
    from certify.audit.audit import _time

    for row in (lo, hi):
        text = b.time_text(row)
        if info.first_time is None or _time(text) < _time(info.first_time):
            info.first_time = text
        if info.last_time is None or _time(text) > _time(info.last_time):
            info.last_time = text
    if fast is None:
        exact, valid, cards = np.ones(b.n, bool), np.zeros(b.n, bool), None
    else:
        exact, valid, cards = fast.batch(b)
        fast.cards(cards if valid.all() else cards[valid])    # in row order, as the exact path tallies them
    # in row order, a row's sequence finding before its round's (the order of the JSON Lines path)
    steps = sorted([(row, 0, finding) for row, finding in out_of_order] +
                   [(int(row), 1, None) for row in np.flatnonzero(exact)], key=lambda s: s[:2])
    for row, _, finding in steps:
        if finding is not None:
            t.add(finding)
        else:
            auditor.settle(b.record(row, spec), b.where(row), cards=not valid[row])


def _sequence(b: _Batch, auditor) -> list[tuple[int, Any]]:
    """Round ids and times per table, vectorised; a row out of order goes through the exact
    ``Auditor._sequence`` with the table's state as it stood before that row (the same finding).
    Returns the findings with their rows (the caller adds them in row order)."""
    t = auditor.tally
    found: list[tuple[int, Any]] = []
    for index, name in enumerate(b.table_names):
        rows = np.flatnonzero(b.table == index)
        numbers, times = b.round[rows], b.time[rows]
        last = t.last.get(name)
        if last is None:
            t.first_seen[name] = (int(numbers[0]), int(times[0]))
        start_n = last[0] if last else numbers[0] - 1
        start_t = _micros(last[1]) if last else times[0]
        run_n = np.maximum.accumulate(np.concatenate([[start_n], numbers]))
        run_t = np.maximum.accumulate(np.concatenate([[start_t], times]))
        odd = (numbers != run_n[:-1] + 1) | (times < run_t[:-1])
        if last is None:
            odd[0] = False
        for j in np.flatnonzero(odd):
            where = last[2] if j == 0 and last else b.where(int(rows[j - 1])) if j else None
            t.last[name] = (int(run_n[j]), _datetime(int(run_t[j])), where)
            t.add = lambda finding, row=int(rows[j]): found.append((row, finding))
            try:
                auditor._sequence({"table": name, "round": int(numbers[j]), "time": b.time_text(int(rows[j]))},
                                  b.where(int(rows[j])))
            finally:
                del t.add
        t.last[name] = (int(run_n[-1]), _datetime(int(run_t[-1])), b.where(int(rows[-1])))
    return found


def _picker(rows: np.ndarray, n: int):
    """``a[rows]``, or ``a`` itself when the rows are every row (the usual batch: no copy)."""
    if len(rows) == n:
        return lambda a: a
    return lambda a: a[rows]


@njit(cache=True)
def _low_words(words, null, out):
    """The low 64 bits of each decimal128 (0 where null) into ``out``; the first row whose value
    needs the high word (past int64), or -1."""
    bad = -1
    for i in range(words.shape[0]):
        if null[i]:
            out[i] = 0
            continue
        low = words[i, 0]
        if words[i, 1] != (low >> 63) and bad < 0:
            bad = i
        out[i] = low
    return bad


@njit(cache=True)
def _distinct_cards(cards):
    """Per row: every card a card of the deck (0..51) and no card twice."""
    out = np.empty(cards.shape[0], np.bool_)
    for r in range(cards.shape[0]):
        seen = np.uint64(0)
        ok = True
        for j in range(cards.shape[1]):
            c = cards[r, j]
            if c > 51 or (seen >> np.uint64(c)) & np.uint64(1):
                ok = False
                break
            seen |= np.uint64(1) << np.uint64(c)
        out[r] = ok
    return out


def _meter_categories(spec) -> dict[int, str]:
    """Category index -> the progressive wager that pays it as a share of the meter."""
    from certify.rules.model import ranking_categories

    out = {}
    for name, w in spec.wagers.items():
        prog = w.settle.progressive
        if prog is not None:
            for c, key in enumerate(ranking_categories(spec.ranking)):
                entry = getattr(prog.pays, key)
                if entry is not None and entry.meter_percent is not None:
                    out[c] = name
    return out


def _micros(stamp: datetime) -> int:
    delta = stamp - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def _datetime(micros: int) -> datetime:
    from datetime import timedelta

    return datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(microseconds=micros)


def one_decision_rules(spec):
    """The spec's rules when the game is of the one-decision shape (the columnar fast path's), else
    None: every row goes through the exact path. A spec with a decision-free side wager
    (``certify.audit.sides``) takes the exact path too: its events are read off each round, which
    the settlement classes do not keep (no shipped one-decision spec has one)."""
    from certify.audit.sides import decision_free
    from certify.rules.analysis import ShapeError, one_decision

    if decision_free(spec).wagers:
        return None
    try:
        return one_decision(spec)
    except ShapeError:
        return None


class _Fast:
    """The settlement classes of a rules-model game of the one-decision shape (see the module
    docstring): the strategy's option, the dealer cell and the player's category of every row
    from the bulk kernel's loop (``certify.rules.kernel.one_decision_cells``)."""

    def __init__(self, spec, auditor, rules):
        self.spec, self.auditor, self.rules = spec, auditor, rules
        self.classes: dict[tuple, dict | None] = {}
        self.meter_categories = _meter_categories(spec)

    def prepare(self, b: _Batch) -> None:
        """What the classes need of a batch that depends on the batch alone (a thread computes it
        for the next batch while this one is tallied): the rows of the one-decision shape with
        2k distinct cards of the deck, each row's class and the first row of each class."""
        from certify.rules.kernel import one_decision_cells

        k, rules = self.rules.k, self.rules
        ok_p, player = b.hands("player_cards", k)
        ok_d, dealer = b.hands("dealer_cards", k)
        common = ok_p & ok_d & (b.outcome == 0) & (b.decision >= 0)
        if common.all():
            cards = np.concatenate([player, dealer], axis=1)
        else:
            cards = np.full((b.n, 2 * k), 255, np.uint8)
            cards[ok_p, :k] = player
            cards[ok_d, k:] = dealer
        valid = _distinct_cards(np.ascontiguousarray(cards)) & ok_p & ok_d
        common &= valid
        rows = np.flatnonzero(common)
        pick = _picker(rows, b.n)
        b.prepared = prepared = SimpleNamespace(exact=~common, valid=valid, cards=cards, rows=rows, pick=pick)
        if not len(rows):
            return
        want, cell, category = one_decision_cells(self.spec, rules, pick(cards))
        decision = pick(b.decision)
        deviates = (want != decision) if self.auditor.strategy is not None else np.zeros(len(rows), bool)
        lockout = (pick(b.batch.column("lockout").fill_null(False).to_numpy(zero_copy_only=False))
                   if "lockout" in b.batch.schema.names else np.zeros(len(rows), bool))
        parts = [(decision, len(rules.options)), (cell, 4), (category, len(rules.categories)),
                 (deviates, 2), (lockout, 2), (pick(b.strategy) + 1, 3)]
        amounts = []
        for name in b.wagers:           # a wager's amount and whether it is placed at all
            cents, null = b.money[name]
            cents, null = pick(cents), pick(null)
            placed = cents[~null] if null.any() else cents
            if not len(placed) or placed.min() == placed.max():     # the usual log: one amount
                values, codes = placed[:1] if len(placed) else np.zeros(1, np.int64), np.zeros(len(rows), np.int64)
            else:
                values, codes = np.unique(cents, return_inverse=True)      # cents are 0 where null
            parts += [(codes.reshape(-1), len(values)), (null, 2)]
            amounts.append(values)
        group, size = np.zeros(len(rows), np.int64), 1
        for part, n_values in parts:          # one integer per class (a few hundred classes at most)
            group = group * n_values + part.astype(np.int64)
            size *= n_values
        if size <= 1 << 22:                  # classes by counting (no sort): the first row of each, each row's
            present = np.flatnonzero(np.bincount(group, minlength=size))
            lookup = np.zeros(size, np.int64)
            lookup[present] = np.arange(len(present))
            inverse = lookup[group]
            first = np.zeros(size, np.int64)
            first[group[::-1]] = np.arange(len(rows) - 1, -1, -1)     # the last write, the first row, wins
            first = first[present]
        else:
            _, first, inverse = np.unique(group, return_index=True, return_inverse=True)
        prepared.__dict__.update(parts=parts, amounts=amounts, first=first, inverse=inverse.reshape(-1),
                                 decision=decision)

    def batch(self, b: _Batch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Tally every row the classes settle; returns the rows the exact path must take, the rows
        whose 2k cards are 2k distinct cards of the deck, and the cards (row order)."""
        p = getattr(b, "prepared", None)
        if p is None:
            self.prepare(b)
            p = b.prepared
        exact, valid, cards, rows, pick = p.exact, p.valid, p.cards, p.rows, p.pick
        if not len(rows):
            return exact, valid, cards
        parts, amounts, first, inverse, decision = p.parts, p.amounts, p.first, p.inverse, p.decision
        k = self.rules.k
        classes = []
        for i in first.tolist():
            key = tuple(int(part[i]) for part, _ in parts[:6]) + tuple(
                (0, True) if parts[7 + 2 * j][0][i] else (int(values[parts[6 + 2 * j][0][i]]), False)
                for j, values in enumerate(amounts))
            classes.append(self._class(key, b, int(rows[i])))
        known = np.array([c is not None for c in classes])
        good = known[inverse]
        for name in set(b.nets) | {n for c in classes if c is not None for n in c["nets"]}:
            cents, null = b.money[name] if name in b.money else (np.zeros(b.n, np.int64), np.ones(b.n, bool))
            want_net = np.array([c["nets"].get(name, 0) if c is not None else 0 for c in classes], np.int64)
            want_null = np.array([c is None or name not in c["nets"] for c in classes])
            null, cents = pick(null), pick(cents)
            good &= np.where(want_null[inverse], null, ~null & (cents == want_net[inverse]))
        metered = np.array([c is not None and c["meter"] for c in classes])
        if metered.any():
            before, after = b.money.get("meter_before"), b.money.get("meter_after")
            if before is None or after is None:
                good &= ~metered[inverse]
            else:
                good &= ~metered[inverse] | (~pick(before[1]) & ~pick(after[1]) & (pick(before[0]) == pick(after[0])))
        for c, n in zip(classes, np.bincount(inverse[good], minlength=len(classes)).tolist()):
            if c is not None:
                self._tally(c, n)
        exact[rows[~good]] = True
        free = good & (pick(b.strategy) != 0)
        if free.any():
            self._choices(b, rows[free], np.sort(cards[rows[free], :k], axis=1).astype(np.int64), decision[free])
        return exact, valid, cards

    def _choices(self, b: _Batch, rows: np.ndarray, hands: np.ndarray, options: np.ndarray) -> None:
        """Free play: each decision by the player's cards, as ``Auditor.settle`` keeps them (what
        the decisions cost is counted from these at the end)."""
        t, names = self.auditor.tally, [o.name for o in self.rules.options]
        unit = b.money.get(f"wager_{self.spec.unit}")
        cents = unit[0][rows] if unit is not None else np.zeros(len(rows), np.int64)
        packed = np.zeros(len(rows), np.int64)
        for j in range(hands.shape[1]):
            packed = packed * 64 + hands[:, j]
        keys = np.stack([packed, options, cents], axis=1)
        groups, first, counts = np.unique(keys, axis=0, return_index=True, return_counts=True)
        for (_, option, amount), i, n in zip(groups.tolist(), first.tolist(), counts.tolist()):
            key = (tuple(int(c) for c in hands[i]), names[option])
            t.choices[key] += Decimal(amount) / CENTS * n
            t.choice_count[key] += n

    def _class(self, key: tuple, b: _Batch, row: int) -> dict | None:
        """The settlement every row of the class must carry, from one row re-settled by the spec's
        own round class; None: the class goes through the exact path (its meter moves, or its
        decision is not the declared strategy's: the finding is the exact path's)."""
        if key in self.classes:
            return self.classes[key]
        prog = f"wager_{self.meter_categories.get(key[2])}"
        if prog in b.wagers and not key[6 + b.wagers.index(prog)][1]:
            self.classes[key] = None        # an award read off the meter: each row on its own
            return None
        from certify.audit.audit import _dealer_flag
        from certify.audit.rounds import feed

        record = b.record(row, self.spec)
        declared = record.get("strategy") == "spec"
        fed = feed(self.spec, record, self.auditor.strategy)
        expected = None
        if fed.round is not None and not (declared and fed.deviations) and fed.round.phase == "settled":
            result = fed.round.result()
            moves = result.meter_after is not None and result.meter_after != result.meter_before
            whole = all((n * CENTS) % 1 == 0 for n in result.seats[0].net.values())
            if not moves and whole:
                nets = {f"net_{w}": int(n * CENTS) for w, n in result.seats[0].net.items()}
                expected = {"nets": nets, "meter": result.meter_after is not None, "table": result.table,
                            "dealer": _dealer_flag(fed.round), "decisions": fed.decisions,
                            "deviations": fed.deviations, "declared": declared, "record": record}
                if result.table != "played":
                    expected = None
        self.classes[key] = expected
        return expected

    def _tally(self, expected: dict, n: int) -> None:
        if not n:
            return
        t = self.auditor.tally
        t.decisions += expected["decisions"] * n
        if expected["dealer"] is not None:
            t.dealer[expected["dealer"]] += n
        if expected["declared"]:
            t.declared += n
            if "outcome" not in expected:
                expected["outcome"] = self.auditor.outcome_key(expected["record"])
            key = expected["outcome"]
            if key is not None:
                t.outcomes[key] += n
        else:
            t.free_rounds += n
            t.free_deviations += expected["deviations"] * n

    def cards(self, cards: np.ndarray) -> None:
        """Card x position and the battery's sample, in row order (the exact path's tally). The
        rows the previous batch left pending are tallied first, whatever this batch holds: a
        batch with no row of the fast path must not let them wait for the next one (a forked
        run starts with nothing pending, and the merge tallies the run before first: the same
        order as one pass)."""
        self.auditor.flush_cards()
        if len(cards):
            self.auditor.add_cards(cards.astype(np.uint8, copy=False))
