"""Shared game machinery: ``base`` (rounds, events, money) and ``kernels`` (the bulk simulation's
kernel interface). Every game is a rules-model spec played by ``certify.rules.engine``; the names
here reach it from a spec (``engine``, ``round_class``, ``replay_round``).

The engine offers ``settle`` (pure settlement of one seat on cards, the reference for the
simulation kernels), the round class (a state machine with ``legal_actions``/``act`` and an event
log), ``strategy_from_spec`` and ``play_round`` (one round from a shuffled deck).
"""

from __future__ import annotations

from types import ModuleType


def engine(spec) -> ModuleType:
    """The module that plays a spec: the rules model's one engine."""
    from certify.rules import engine as rules_engine

    return rules_engine


def round_class(spec):
    from certify.rules.engine import RulesRound

    return RulesRound


def replay_round(spec, events):
    """Rebuild a round from its event log."""
    from certify.games.base import replay

    cls = round_class(spec)
    return replay(lambda open_event: cls.from_open(spec, open_event), events)
