"""Checkpoints of a simulation that cannot lie: what a resumed run takes from disk it proves.

A checkpoint holds the finished chunks of one run (``certify.simulate``): each chunk's tallies,
the SHA-256 of each chunk (over its index and tallies), and a digest chain over all of them in
index order, started from the run's identity (spec digest, rounds, seed, chunk size, fault). It
is written whole or not at all (``certify.atomic``), one chunk a line (the reader bounds lines).

What each check catches:

- shape (``CheckpointError``, exit 2): anything but exactly the expected object -- ``[]``,
  ``null``, a missing or extra key, a chunk index outside the run, tallies of the wrong keys,
  lengths or types, counts that do not add up to the chunk's rounds, money that is not count x
  pay. One message naming the chunk and field.
- digests (``CheckpointForged``, exit 1): an edit that did not recompute the SHA-256s and the
  chain (a careless edit, a torn copy, a chunk pasted from another run).
- re-play (``CheckpointForged``, exit 1): the chain is not keyed -- anyone can recompute it -- so
  a consistent forgery passes the digests. Every chunk is a pure function of (seed, index), so a
  resumed run plays again a sample of the checkpointed chunks, chosen with ``os.urandom`` after
  the checkpoint is read (a forger cannot know which), and refuses on any difference. With s of
  m chunks re-played, f forged chunks are caught with probability 1 - C(m-f, s) / C(m, s): at
  least s/m for one forged chunk (0.5 at the default fraction), 1 - 2^-f roughly for f of them
  (0.97 for 5). ``--replay-fraction 1`` re-plays every chunk: certainty at the cost of the run.
- lock (``CheckpointLocked``, exit 2): one runner per checkpoint (``fcntl.flock`` on
  ``<checkpoint>.lock``); a second one is refused, naming the holder's process id.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from certify.atomic import atomic_write, check_output_path
from certify.errors import InputError, VerificationFailed
from certify.inputs import CHECKPOINT_LIMITS, excerpt, load_json

VERSION = 2  # 1: no digests (refused: it cannot be verified)
REPLAY_FRACTION = 0.5
MIN_REPLAY = 4  # a checkpoint of up to 4 chunks is re-played whole
_COMPACT = {"separators": (",", ":")}
_POSITIONS = "positions"


class CheckpointError(InputError):
    """A checkpoint file that is not a checkpoint of this run (malformed, another run): exit 2."""


class CheckpointForged(VerificationFailed):
    """A checkpoint whose digests or re-played chunks do not match its tallies: exit 1."""


class CheckpointLocked(InputError):
    """Another run holds the checkpoint: exit 2."""


# ---------------------------------------------------------------------------------- digests

def _canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, **_COMPACT).encode()


def chunk_digest(index: int, encoded_tally: dict) -> str:
    """SHA-256 of a chunk: its index and its tallies (plain lists), canonical JSON."""
    return hashlib.sha256(_canonical({"index": index, "tally": encoded_tally})).hexdigest()


def chain_digest(identity: dict, digests: dict[int, str]) -> str:
    """The chain over the chunks in index order, started from the run's identity: adding,
    removing, re-numbering or editing any chunk changes it."""
    link = hashlib.sha256(b"certify checkpoint chain v2\0" + _canonical(identity)).digest()
    for index in sorted(digests):
        link = hashlib.sha256(link + index.to_bytes(8, "big") + bytes.fromhex(digests[index])).digest()
    return link.hex()


def encode(tally: dict[str, np.ndarray]) -> dict:
    return {k: v.tolist() for k, v in tally.items()}


def save(path: Path, identity: dict, chunks: dict[int, dict[str, np.ndarray]]) -> None:
    """Write the checkpoint whole (one chunk a line), with every digest and the chain."""
    encoded = {i: encode(t) for i, t in sorted(chunks.items())}
    digests = {i: chunk_digest(i, t) for i, t in encoded.items()}
    lines = [f'"{i}":{json.dumps({"sha256": digests[i], "tally": t}, **_COMPACT)}' for i, t in encoded.items()]
    atomic_write(path, f'{{"config":{json.dumps(identity, **_COMPACT)},\n"chain":"{chain_digest(identity, digests)}",'
                       f'\n"chunks":{{\n' + ",\n".join(lines) + "\n}}\n")


# ---------------------------------------------------------------------------------- reading

def _shape_of(value) -> str:
    if isinstance(value, dict):
        return f"an object with keys {excerpt(sorted(map(str, value)))}"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    return excerpt(value)


def expected_tally(kernel) -> dict[str, tuple[int, ...]]:
    """The keys and array shapes of one chunk's tallies for ``kernel`` (``run_chunk``'s output)."""
    from certify.games.kernels import N_CATEGORIES

    shapes = {"dealt": (N_CATEGORIES,), _POSITIONS: (kernel.dealt_positions, 52)}
    for w in kernel.wagers:
        shapes[f"{w.name}.counts"] = shapes[f"{w.name}.money"] = (len(w.events),)
    return shapes


def _int_array(value, shape: tuple[int, ...], where: str) -> np.ndarray:
    def flat(v, dims):
        if not dims:
            if type(v) is not int:  # noqa: E721 - bool and float are not counts
                raise CheckpointError(f"{where}: expected whole numbers, got {excerpt(v)}")
            return [v]
        if not isinstance(v, list) or len(v) != dims[0]:
            raise CheckpointError(f"{where}: expected a list of {dims[0]}, got {_shape_of(v)}")
        return [x for item in v for x in flat(item, dims[1:])]

    values = flat(value, shape)
    if any(abs(v) >= 1 << 62 for v in values):
        raise CheckpointError(f"{where}: a number beyond the 64-bit tallies")
    return np.array(values, dtype=np.int64).reshape(shape)


def _tally(index: int, rounds: int, raw, kernel, where: str) -> dict[str, np.ndarray]:
    """One chunk's tallies, checked for shape and for the sums every real chunk has."""
    shapes = expected_tally(kernel)
    if not isinstance(raw, dict) or set(raw) != set(shapes):
        raise CheckpointError(f"{where}: expected tallies {sorted(shapes)}, got {_shape_of(raw)}")
    tally = {k: _int_array(raw[k], shapes[k], f"{where}.{k}") for k in shapes}
    if tally["dealt"].min() < 0 or tally["dealt"].sum() != rounds:
        raise CheckpointError(f"{where}.dealt: expected non-negative counts adding up to the chunk's {rounds} rounds")
    if tally[_POSITIONS].min() < 0 or (tally[_POSITIONS].sum(axis=1) != rounds).any():
        raise CheckpointError(f"{where}.{_POSITIONS}: expected non-negative counts, each position adding up to "
                              f"{rounds} rounds")
    for w in kernel.wagers:
        counts, money = tally[f"{w.name}.counts"], tally[f"{w.name}.money"]
        if counts.min() < 0 or counts.sum() != rounds:
            raise CheckpointError(f"{where}.{w.name}.counts: expected non-negative counts adding up to {rounds}")
        if (money != counts * w.scaled_nets).any():
            raise CheckpointError(f"{where}.{w.name}.money: expected each event's count x its pay")
    return tally


def load(path: Path, identity: dict, sizes: dict[int, int], kernel) -> dict[int, dict[str, np.ndarray]]:
    """The chunks of the checkpoint at ``path``, refused unless it is exactly a checkpoint of
    the run ``identity`` (chunk sizes ``sizes`` by index, tallies of ``kernel``) whose digests
    and chain verify. Re-playing a sample is the caller's (``replay_sample``)."""
    if not path.exists():
        raise CheckpointError(f"{path}: no checkpoint to resume from")
    body = load_json(path, CHECKPOINT_LIMITS, CheckpointError)  # bounded: size, lines, depth
    keys = {"config", "chain", "chunks"}
    if not isinstance(body, dict) or set(body) != keys:
        raise CheckpointError(f"{path}: not a checkpoint: expected an object with keys chain, chunks, config, "
                              f"got {_shape_of(body)}")
    saved = body["config"]
    if not isinstance(saved, dict):
        raise CheckpointError(f"{path}: config: expected an object, got {_shape_of(saved)}")
    if saved.get("checkpoint_version") != identity["checkpoint_version"]:
        raise CheckpointError(f"{path}: checkpoint format {excerpt(saved.get('checkpoint_version'))}, expected "
                              f"{identity['checkpoint_version']} (an older checkpoint has no digests and cannot be "
                              "verified: run again without --resume)")
    if saved != identity:
        differs = ", ".join(f"{k} {excerpt(saved.get(k))} there, {identity[k]!r} here"
                            for k in identity if saved.get(k) != identity[k])
        extra = sorted(set(saved) - set(identity))
        differs += (", " if differs else "") + (f"unknown keys {excerpt(extra)}" if extra else "")
        raise CheckpointError(f"{path}: checkpoint was written by a different run ({differs})")
    chunks_raw = body["chunks"]
    if not isinstance(chunks_raw, dict):
        raise CheckpointError(f"{path}: chunks: expected an object by chunk index, got {_shape_of(chunks_raw)}")
    chunks, digests = {}, {}
    for key, entry in chunks_raw.items():
        if not (key.isdigit() and key == str(int(key)) and int(key) in sizes):
            raise CheckpointError(f"{path}: chunks: {excerpt(key)} is not a chunk of this run (chunks 0 to "
                                  f"{len(sizes) - 1})")
        index, where = int(key), f"{path}: chunks.{key}"
        if not isinstance(entry, dict) or set(entry) != {"sha256", "tally"}:
            raise CheckpointError(f"{where}: expected an object with keys sha256, tally, got {_shape_of(entry)}")
        chunks[index] = _tally(index, sizes[index], entry["tally"], kernel, f"{where}.tally")
        digests[index] = chunk_digest(index, entry["tally"])
        if entry["sha256"] != digests[index]:
            raise CheckpointForged(f"{where}: the chunk's SHA-256 does not match its tallies (edited or corrupted): "
                                   "refused")
    if body["chain"] != chain_digest(identity, digests):
        raise CheckpointForged(f"{path}: the digest chain does not match the chunks (a chunk was added, removed or "
                               "edited): refused")
    return chunks


# ---------------------------------------------------------------------------------- re-play

def replay_sample(indices, fraction: float = REPLAY_FRACTION) -> list[int]:
    """The checkpointed chunks to play again: ``ceil(fraction x m)`` of the m (at least
    ``MIN_REPLAY``, or all), chosen with the OS's randomness after the checkpoint was read."""
    indices = sorted(indices)
    if not 0 < fraction <= 1:
        raise InputError(f"the re-played fraction of checkpointed chunks must be in (0, 1], got {fraction}")
    size = min(len(indices), max(MIN_REPLAY, math.ceil(fraction * len(indices))))
    return sorted(random.SystemRandom().sample(indices, size))


def detection_probability(resumed: int, replayed: int, forged: int = 1) -> float | None:
    """P(at least one of ``forged`` forged chunks is among ``replayed`` of ``resumed``), sampled
    without replacement: 1 - C(m - f, s) / C(m, s). None when nothing was resumed."""
    if resumed == 0:
        return None
    return 1 - math.comb(resumed - forged, replayed) / math.comb(resumed, replayed)


def check_replayed(index: int, saved: dict[str, np.ndarray], replayed: dict[str, np.ndarray], path: Path) -> None:
    """Refuse (CheckpointForged) a checkpointed chunk that differs from its re-play."""
    differing = sorted(k for k in saved if not np.array_equal(saved[k], replayed[k]))
    if differing:
        raise CheckpointForged(f"{path}: chunk {index} played again from (seed, {index}) differs from the checkpoint "
                               f"in {', '.join(differing)}: the checkpoint was forged or its chunks come from "
                               "another engine: refused")


# ---------------------------------------------------------------------------------- lock

@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold ``<path>.lock`` (``fcntl.flock``, exclusive) for the run: a second runner on the
    same checkpoint is refused at once (CheckpointLocked), never blocked or interleaved."""
    lock_path = check_output_path(path.with_name(path.name + ".lock"))
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    held = False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            raise CheckpointLocked(f"{path}: another run (process {excerpt(holder, 20, quoted=False)}) is using this "
                                   "checkpoint; wait for it to finish, or give another --checkpoint") from None
        if os.fstat(fd).st_ino != os.stat(lock_path).st_ino:  # released and removed while we opened it
            raise CheckpointLocked(f"{path}: another run took this checkpoint just now; try again")
        held = True
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        if held:
            lock_path.unlink(missing_ok=True)  # while still held: a waiting opener sees the inode change
        os.close(fd)
