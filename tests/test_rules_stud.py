"""The stud family reproduced by the rules model, part by part: Caribbean and Casino Stud written in
the model (fixtures/rules/) against the family specs (specs/) -- the bulk kernel deck for deck on
the simulation's own fixed-seed decks, the round engine seat for seat (progressive and meter
included), and every procedure scenario of the family. (The exact sheets: tests/test_rules_analysis.py,
slow tier.)"""

from pathlib import Path

import numpy as np
import pytest
import yaml

from certify.games import stud
from certify.games.kernels import kernel_for
from certify.procedures import run_fixture
from certify.rules.engine import RulesRound, hand_value, strategy_option
from certify.simulate import deal_chunk
from certify.spec import load_spec

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["caribbean_stud", "casino_stud"]


def _model(name):
    return load_spec(ROOT / "fixtures" / "rules" / f"{name}.yaml")


@pytest.mark.parametrize("name", NAMES)
def test_the_rules_kernel_plays_the_simulation_decks_as_the_stud_kernel(name):
    family, model = kernel_for(load_spec(name)), kernel_for(_model(name))
    assert family.cards_per_round == model.cards_per_round == 10  # the same deck positions dealt
    assert [(w.name, w.events, w.nets) for w in model.wagers] == [(w.name, w.events, w.nets) for w in family.wagers]
    decks = deal_chunk(1, 0, 50_000, 10)  # chunk 0 of seed 1, as `certify simulate --seed 1` deals it
    ev_family, dealt_family = family.events(decks)
    ev_model, dealt_model = model.events(decks)
    assert (ev_model == ev_family).all() and (dealt_model == dealt_family).all()
    tally_family, tally_model = family.play(decks), model.play(decks)
    for key in (k for k in tally_family if k != "dealt"):
        assert (tally_model[key] == tally_family[key]).all(), key
    assert len(set(ev_family[:, 0].tolist())) > 5  # folds, wins of several categories, losses


def _rules_round(spec, deck, antes, progressive, meter):
    """A round of the model spec played as stud.play_round plays the family's: seats in turn, the
    progressive where asked, the spec's strategy."""
    rnd = RulesRound(spec, balances=[None] * len(antes), meter=meter)
    for i, ante in enumerate(antes):
        rnd.place_wager(seat=i, wager="ante", amount=ante)
        if progressive[i]:
            rnd.place_wager(seat=i, wager="progressive", amount="1.00")
    if rnd.locks_out:
        rnd.lock_out()
    rnd.deal(hands=[tuple(deck[i * 5:(i + 1) * 5]) for i in range(len(antes))],
             dealer=tuple(deck[5 * len(antes):5 * len(antes) + 5]))
    for i in range(len(antes)):
        if rnd.legal_actions(i):
            rnd.act(seat=i, action=strategy_option(spec, "bet_or_fold", hand_value(spec, rnd.seats[i].cards)))
    return rnd


def test_the_rules_engine_settles_rounds_as_the_stud_engine():
    family, model = load_spec("caribbean_stud"), _model("caribbean_stud")
    strategy = stud.strategy_from_spec(family)
    rng = np.random.default_rng(1414)
    meter = "10000.00"
    for r in range(400):
        deck = [int(c) for c in rng.permutation(52)]
        if r % 40 == 0:  # a royal flush to seat 0 now and then: the meter pays and resets
            royal = [48, 44, 40, 36, 32]
            deck = royal + [c for c in deck if c not in royal]
        progressive = [bool(rng.integers(2)), True]
        a = stud.play_round(family, deck, strategy, antes=["1.00", "2.50"], progressive=progressive, meter=meter)
        b = _rules_round(model, deck, ["1.00", "2.50"], progressive, meter)
        ra, rb = a.result(), b.result()
        assert rb.table == ra.table and rb.meter_after == ra.meter_after, r
        for sa, sb in zip(ra.seats, rb.seats):
            assert (sb.status, sb.hand) == (sa.status, sa.hand), r
            assert {k: v for k, v in sb.net.items() if v} == {k: v for k, v in sa.net.items() if v}, r
        meter = ra.meter_after


@pytest.mark.parametrize("name", NAMES)
def test_every_stud_procedure_scenario_gives_the_same_outcome_under_the_model(tmp_path, name):
    data = yaml.safe_load((ROOT / "fixtures" / "procedures" / f"{name}.yaml").read_text())
    data["spec"] = str(ROOT / "fixtures" / "rules" / f"{name}.yaml")
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    results = run_fixture(path)
    assert len(results) == len(data["scenarios"]) >= 10
    assert [(r.id, r.differences) for r in results if not r.passed] == []
