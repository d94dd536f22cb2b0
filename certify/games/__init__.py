"""Game engines, one module per family: ``mulligan`` (Five Card Mulligan); a rules-model spec
(Caribbean Stud, Casino Stud, Texas Hold'em Bonus, Three Card Poker, ...) is played by
``certify.rules.engine``. Shared machinery in ``base``.

Each family module offers the same names: ``settle`` (pure settlement of one seat on cards, the
reference for the simulation kernels), ``settle_values`` (the same on hand values), the round
class (a state machine with ``legal_actions``/``act`` and an event log), ``replay_*``,
``strategy_from_spec`` and ``play_round`` (one round from a shuffled deck).
"""

from __future__ import annotations

import importlib
from types import ModuleType

FAMILY_MODULES = {
    "mulligan": "certify.games.mulligan",
    "rules": "certify.rules.engine",  # rules-model specs: one engine reading the model
}
ROUND_CLASSES = {"mulligan": "MulliganRound", "rules": "RulesRound"}


def engine(spec) -> ModuleType:
    """The engine module of a spec's family."""
    return importlib.import_module(FAMILY_MODULES[spec.family])


def round_class(spec):
    return getattr(engine(spec), ROUND_CLASSES[spec.family])


def replay_round(spec, events):
    """Rebuild a round of any family from its event log."""
    from certify.games.base import replay

    cls = round_class(spec)
    return replay(lambda open_event: cls.from_open(spec, open_event), events)
