"""The street-bets shape (certify.rules.board_streets) with other decision points than Texas Hold'em
Bonus's: games written as copies of its spec from docs/rules-model.md alone (no code), each decision
after 3, 4 or 5 board cards or none.

- ``four_bets``: a fourth wager, 1x, after the river card (decisions after 0, 3, 4 and 5 cards);
- ``flop_and_last``: that game without the bet on the turn card, the turn and river dealt as one
  step of 2 (decisions after 0, 3 and 5);
- ``first_and_last``: only the first and the last decision (after 0 and 5).

Each gets an exact sheet whose returns (derived and spec strategy) agree with an independent brute
force on a small deck (the plain evaluator; the round engine's own reading of the strategy), figures
that move as the combinatorics say against the base game, and a bulk kernel that plays what the
round engine decides deck for deck; the spec-strategy parser takes rules at the new decisions and
refuses a malformed one naming the file and the field. Slow: on the full deck the simulation passes
against the exact sheet and its negative controls fail, and ``certify run`` gives a signed PASS.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import combinations
from math import comb

import numpy as np
import pytest
import yaml

from certify.hands import rank_hand
from certify.rules import board_streets as hb
from certify.rules.analysis import ShapeError
from certify.spec import SPECS_DIR, load_spec
from test_board_walk import HOLDEM_DECK, brute_force

STRAIGHT = 4


# ---- the games, as a studio would write them from the docs ---------------------------------------
def four_bets(d):
    """A 1x Final bet, offered after the river card; the spec strategy makes it with two pair or
    better when a hole card plays."""
    d["steps"].append({"decide": "final", "options": [{"name": "check_final"},
                                                      {"name": "bet_final", "add": {"last": 1}}]})
    d["wagers"] = {**{k: v for k, v in d["wagers"].items() if k != "bonus"},
                   "last": {"made": "decision", "settle": {"versus_dealer": {"win": 1, "tie": "push"}}},
                   "bonus": d["wagers"]["bonus"]}
    d["strategy"]["decisions"]["final"] = [
        {"option": "bet_final", "at_least": {"category": "two_pair"}, "hole_card_plays": True},
        {"option": "check_final"}]


def _drop_decision(d, decide, wager):
    d["steps"] = [s for s in d["steps"] if s.get("decide") != decide]
    del d["wagers"][wager], d["strategy"]["decisions"][decide]


def flop_and_last(d):
    """``four_bets`` without the decision on the turn card; turn and river dealt in one step."""
    four_bets(d)
    _drop_decision(d, "river", "river")
    i = next(i for i, s in enumerate(d["steps"]) if s.get("cards") == 1)
    d["steps"][i:i + 2] = [{"deal": "board", "cards": 2, "face": "up"}]


def first_and_last(d):
    """``four_bets`` with the bets on the flop and the turn card taken out."""
    four_bets(d)
    _drop_decision(d, "turn", "turn")
    _drop_decision(d, "river", "river")


VARIANTS = {"four_bets": (four_bets, (3, 4, 5), (3, 1, 1)),
            "flop_and_last": (flop_and_last, (3, 5), (3, 2)),
            "first_and_last": (first_and_last, (5,), (3, 1, 1))}


def write_variant(folder, name, change, base="texas_holdem_bonus"):
    """specs/<base>.yaml with ``change`` applied, written as <folder>/holdem_<name>.yaml (its own
    name: nothing of the shipped game's is looked up for it); (spec, path)."""
    data = yaml.safe_load((SPECS_DIR / f"{base}.yaml").read_text())
    change(data)
    data["name"], data["title"] = f"holdem_{name}", f"Texas Hold'em Bonus ({name.replace('_', ' ')})"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"holdem_{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return load_spec(path), path


@pytest.fixture(scope="module")
def variants(tmp_path_factory):
    folder = tmp_path_factory.mktemp("variants")
    return {name: write_variant(folder, name, change)[0] for name, (change, _, _) in VARIANTS.items()}


def test_the_shape_reads_each_games_decisions(variants):
    for name, (_, levels, steps) in VARIANTS.items():
        spec = variants[name]
        assert hb.is_street_shape(spec)
        rules = hb.street_rules(spec)
        assert (rules.board_cards, rules.board_steps) == (levels, steps)
        assert rules.wagers[-1] == "last" and rules.multiples[-1] == 1
        assert len(hb.event_names(rules)) == 1 + 4 * 2 ** len(levels)
        strategy = hb.spec_strategy(spec, rules)
        assert strategy.rule.at_least[-1] == 2 and strategy.rule.straight[-1] == STRAIGHT  # two pair, a hole card
        assert strategy.text.endswith("Last bet with two_pair or better when a hole card plays")
    four = hb.street_rules(variants["four_bets"])
    assert four.patterns[:3] == ("flop", "flop+last", "flop+river")
    assert four.pays(0b111, hb.WIN_STRONG) == (Fraction(1 + 4), Fraction(5))  # Ante 1 + four bets
    assert four.pays(0b101, hb.LOSE) == (Fraction(-4), Fraction(4))  # Ante, Flop, Turn, Last


# ---- brute force on a small deck ----------------------------------------------------------------
HOLES = list(combinations(HOLDEM_DECK, 2))[::8]  # 7 of the 55 holes


def small_counts(spec, holes=HOLES):
    rules = hb.street_rules(spec)
    strategy = hb.spec_strategy(spec, rules)
    return rules, strategy, hb.compute_decision_counts(
        HOLDEM_DECK, holes, [1] * len(holes), [str(h) for h in holes], rules.ante_category, rules.win_pays,
        strategy.rule, levels=rules.board_cards, board_steps=rules.board_steps)


def _net(rules, cells, bets):
    """A path's net over its six cells by category: the Ante from its category up, every decision
    wager standing (the first, and the later ones bet) won at the odds or lost; a tie pushes."""
    raises = rules.multiples[0] + sum(m for m, b in zip(rules.multiples[1:], bets) if b)
    total = Fraction(0)
    for cat in range(10):
        win, lose = int(cells[0, cat]), int(cells[2, cat])
        ante = rules.ante_odds if cat >= rules.ante_category else 0
        total += win * (ante + rules.win_pays * raises) - lose * (1 + raises)
    return total


def derived_ev(spec, hole):
    """The exact value of making the first wager with ``hole``: every later decision by the exact
    sum over what is unseen (test_board_walk.brute_force), every deal played out."""
    rules = hb.street_rules(spec)
    unit = np.zeros((6, 10), np.int64)
    unit[0], unit[2] = 1, -1  # each later wager: win 1 to 1 or lose it
    _, paths, _ = brute_force(HOLDEM_DECK, hole, 0, hb.street_points(rules.board_cards), np.zeros_like(unit), unit, 0,
                              rules.board_steps)
    deals = hb.deals_per_hole(len(HOLDEM_DECK), rules.board_steps)
    return sum(_net(rules, cells, [o == 1 for _, o in path]) for path, cells in paths.items()) / deals


def spec_rule_ev(spec, hole):
    """The value of ``hole`` under the spec's strategy as the round engine reads it (RuleStrategy),
    every deal played out: None when the strategy folds it."""
    from certify.rules.engine import RuleStrategy

    rules = hb.street_rules(spec)
    strategy = RuleStrategy(spec)
    if strategy.option(rules.decisions[0], hole) == rules.passive[0]:
        return None
    rest = [c for c in HOLDEM_DECK if c not in hole]
    at = dict(zip(rules.board_cards, zip(rules.decisions[1:], rules.bets[1:])))

    @cache
    def value(cards):
        return rank_hand(sorted(cards))

    total, deals = Fraction(0), 0

    def play(board, steps, bets):
        nonlocal total, deals
        if len(board) in at:
            decision, bet = at[len(board)]
            bets = bets + (strategy.option(decision, hole, board) == bet,)
        if not steps:
            mine = value(board + hole)
            cells = np.zeros((6, 10), np.int64)
            for dealer in combinations([c for c in rest if c not in board], 2):
                theirs = value(board + dealer)
                cells[0 if mine > theirs else 1 if mine == theirs else 2, mine >> 20] += 1
                deals += 1
            total += _net(rules, cells, bets)
            return
        for cards in combinations([c for c in rest if c not in board], steps[0]):
            play(board + cards, steps[1:], bets)

    play((), rules.board_steps, ())
    return total / deals


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_exact_sheet_agrees_with_brute_force_on_a_small_deck(variants, name):
    spec = variants[name]
    rules, strategy, dc = small_counts(spec)
    for counts in (dc.counts, dc.rule_counts):
        assert (counts.sum(axis=(1, 2)) == dc.deals_per_hole).all()
    derived = [derived_ev(spec, hole) for hole in HOLES]
    assert [d.ev_play for d in hb.hole_decisions(rules, dc)] == derived
    sheet = hb.main_game_sheet(rules, dc)
    assert sheet.cycle == len(HOLES) * dc.deals_per_hole
    assert sheet.expected_return == sum(max(ev, Fraction(-1)) for ev in derived) / len(HOLES)
    by_rule = [spec_rule_ev(spec, hole) for hole in HOLES]
    folds = frozenset(str(h) for h, ev in zip(HOLES, by_rule) if ev is None)
    played = hb.SpecStrategy(folds, strategy.rule, strategy.text)
    assert hb.main_game_sheet(rules, dc, "spec", strategy=played).expected_return == \
        sum(Fraction(-1) if ev is None else ev for ev in by_rule) / len(HOLES)
    assert sheet.expected_return >= hb.main_game_sheet(rules, dc, "spec", strategy=played).expected_return
    assert sum(r.combinations for r in sheet.rows if r.event.endswith(("lose", "tie")) and "last" in r.event) > 0


def test_the_figures_move_as_the_combinatorics_say(tmp_path):
    """The Final bet adds, per hole, exactly its own value on each board (max(0, wins - losses) over
    the dealer's holes: the earlier decisions do not depend on it), so the derived return can only
    rise; taking decisions away can only lower it."""
    base = load_spec("texas_holdem_bonus")
    four = write_variant(tmp_path, "four_bets", four_bets)[0]
    evs = {}
    for name, spec in (("base", base), ("four", four),
                       ("flop_and_last", write_variant(tmp_path, "flop_and_last", flop_and_last)[0]),
                       ("first_and_last", write_variant(tmp_path, "first_and_last", first_and_last)[0])):
        rules, _, dc = small_counts(spec)
        evs[name] = ([d.ev_play for d in hb.hole_decisions(rules, dc)], hb.main_game_sheet(rules, dc).expected_return)
    orders = 20  # flop unordered, turn, river
    deals = hb.deals_per_hole(len(HOLDEM_DECK))
    for h, hole in enumerate(HOLES):
        rest = [c for c in HOLDEM_DECK if c not in hole]
        final = 0
        for board in combinations(rest, 5):
            mine = rank_hand(list(board + hole))
            theirs = [rank_hand(list(board + d)) for d in combinations([c for c in rest if c not in board], 2)]
            final += max(0, sum(mine > t for t in theirs) - sum(mine < t for t in theirs))
        assert evs["four"][0][h] - evs["base"][0][h] == Fraction(orders * final, deals), hole
    assert evs["four"][1] > evs["base"][1]
    assert all(a >= b for a, b in zip(evs["four"][0], evs["flop_and_last"][0]))
    assert all(a >= b for a, b in zip(evs["flop_and_last"][0], evs["first_and_last"][0]))
    assert evs["four"][1] >= evs["flop_and_last"][1] >= evs["first_and_last"][1]


# ---- the bulk kernel plays what the round engine decides ----------------------------------------
@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_bulk_kernel_plays_the_engines_decisions_deck_for_deck(variants, name):
    from certify.games.kernels import kernel_for
    from certify.rules.engine import RuleStrategy
    from certify.simulate import deal_chunk

    spec = variants[name]
    rules = hb.street_rules(spec)
    strategy = RuleStrategy(spec)
    kernel = kernel_for(spec)
    assert kernel.wagers[0].events == hb.event_names(rules)
    decks = deal_chunk(5, 0, 3000, 9).astype(np.int64)
    ev, dealt = kernel.events(decks)
    seen = set()
    for deck, e in zip(decks.tolist(), ev[:, 0].tolist()):
        hole, dealer, board = tuple(deck[:2]), deck[2:4], tuple(deck[4:9])
        if strategy.option(rules.decisions[0], hole) == rules.passive[0]:
            assert e == 0, deck
            continue
        pattern = 0
        for level, decision, bet in zip(rules.board_cards, rules.decisions[1:], rules.bets[1:]):
            pattern = 2 * pattern + (strategy.option(decision, hole, board[:level]) == bet)
        mine, theirs = rank_hand(list(hole + board)), rank_hand(list(dealer) + list(board))
        result = (hb.WIN_STRONG if mine >> 20 >= rules.ante_category else hb.WIN_WEAK) if mine > theirs else \
            hb.TIE if mine == theirs else hb.LOSE
        assert e == 1 + 4 * pattern + result, deck
        seen.add(pattern)
    assert {p & 1 for p in seen} == {0, 1} and len(seen) > len(rules.board_cards)  # the Last bet made and not


# ---- the spec strategy's rules at the new decisions ---------------------------------------------
def _final_rules(rules):
    def change(d):
        four_bets(d)
        d["strategy"]["decisions"]["final"] = rules
    return change


@pytest.mark.parametrize("rules, expected", [
    ([{"option": "check_final", "at_least": {"category": "flush"}}, {"option": "bet_final"}],
     r"strategy\.decisions\.final: expected one rule making the wager"),
    ([{"option": "bet_final", "hands": ["AKs"]}, {"option": "check_final"}],
     r"strategy\.decisions\.final\.0: expected a category threshold"),
    ([{"option": "bet_final", "at_least": {"category": "pair", "ranks": ["K"]}}, {"option": "check_final"}],
     r"strategy\.decisions\.final\.0: expected a category threshold"),
    ([{"option": "bet_final", "at_least": {"category": "pair"}},
      {"option": "bet_final", "at_least": {"category": "trips"}}, {"option": "check_final"}], r"strategy\.decisions\.final: expected one rule making the wager")],
    ids=["bet-last", "starting-hands", "ranks", "two-bet-rules"])
def test_a_malformed_rule_at_a_new_decision_is_refused_naming_file_and_field(tmp_path, rules, expected):
    spec = write_variant(tmp_path, "bad", _final_rules(rules))[0]
    with pytest.raises(ShapeError, match=rf"holdem_bad\.yaml: {expected}"):
        hb.spec_strategy(spec, hb.street_rules(spec))
    from certify.games.kernels import KernelError, kernel_for

    with pytest.raises((ShapeError, KernelError), match=expected):
        kernel_for(spec)


def test_rules_at_the_new_decision_are_played_as_written(tmp_path):
    never = write_variant(tmp_path / "a", "never", _final_rules([{"option": "check_final"}]))[0]
    rule = hb.spec_strategy(never, hb.street_rules(never))
    assert rule.rule.at_least == (1, 1, 10) and rule.text.endswith("Last bet never")  # 10 categories: none reaches it
    flush = [{"option": "bet_final", "at_least": {"category": "flush"}}, {"option": "check_final"}]
    plain = write_variant(tmp_path / "b", "plain", _final_rules(flush))[0]
    rule = hb.spec_strategy(plain, hb.street_rules(plain))
    assert rule.rule.at_least[-1] == 5 and rule.rule.straight == (STRAIGHT, STRAIGHT, 0)  # no hole card asked
    assert rule.text.endswith("Last bet with flush or better")


def test_a_decision_after_two_board_cards_is_refused_naming_the_steps(tmp_path):
    def two_card_flop(d):
        d["steps"][3]["cards"], d["steps"][5]["cards"] = 2, 2
    spec = write_variant(tmp_path, "two", two_card_flop)[0]
    assert not hb.is_street_shape(spec)
    with pytest.raises(ShapeError, match="at most after each of 3, 4 and 5 board cards"):
        hb.street_rules(spec)


# ---- the full deck (minutes) --------------------------------------------------------------------
SMALL_CHUNK = 4096


@pytest.fixture(scope="module")
def full_sheet(tmp_path_factory):
    """``full_sheet(name)``: (spec, path, exact full-deck PAR sheet) of a variant, counted once a module."""
    folder = tmp_path_factory.mktemp("full")
    made = {}

    def get(name):
        if name not in made:
            spec, path = write_variant(folder, name, VARIANTS[name][0])
            made[name] = (spec, path, hb.par_sheet(spec))
        return made[name]
    return get


@pytest.mark.slow
@pytest.mark.parametrize("name", ["four_bets", "flop_and_last"])
def test_the_simulation_passes_against_the_exact_sheet_and_its_negative_controls_fail(full_sheet, name, monkeypatch):
    from certify import simulate as sim

    spec, path, sheet = full_sheet(name)
    base = load_spec("texas_holdem_bonus")
    assert sheet.main.cycle == comb(52, 2) * hb.deals_per_hole(52, hb.street_rules(spec).board_steps)
    result = sim.simulate(str(path), 60 * SMALL_CHUNK, seed=2024, workers=1, chunk_rounds=SMALL_CHUNK)
    verification = sim.verify(result, sheet)
    assert verification.passed, [t.to_dict() for t in verification.tests if t.passed is False]

    wrong_pay = sim.simulate(str(path), 60 * SMALL_CHUNK, seed=2024, workers=1, fault="ante-pays-on-pair",
                             chunk_rounds=SMALL_CHUNK)
    assert not sim.verify(wrong_pay, sheet).passed

    def last_bet_from_a_pair(kernel):  # a wrong decision: the Final bet made from a pair, not two pair
        kernel.params["at_least"][-1] = 1
    monkeypatch.setitem(sim.KERNEL_FAULTS, "last-bet-from-pair", last_bet_from_a_pair)
    wrong_decision = sim.simulate(str(path), 60 * SMALL_CHUNK, seed=2024, workers=1, fault="last-bet-from-pair",
                                  chunk_rounds=SMALL_CHUNK)
    failed = sim.verify(wrong_decision, sheet)
    assert not failed.passed and "main: outcome frequencies" in {t.name for t in failed.tests if t.passed is False}
    if name == "four_bets":  # a wager more: the derived return can only rise over the shipped game's
        assert sheet.main.expected_return > sim.par_wager(sheet, "main").expected_return
        from certify.analysis.cache import read_golden

        assert sheet.main.expected_return > read_golden(base).main.expected_return


FOUR_BETS_PROCEDURES = """\
# Hold'em Bonus with a Final bet (the Last wager, 1x) after the river card: expected nets by hand.
spec: {spec}
scenarios:
  - id: straight-wins-every-bet
    rule: A winning straight pays the Ante and the Flop, Turn, River and Last bets 1 to 1.
    source: test_street_decisions
    seats: [{{wagers: {{ante: "5.00"}}, cards: [8C, 9D], actions: [bet_flop, bet_turn, bet_river, bet_final]}}]
    dealer: {{cards: [5H, 5C]}}
    board: [TH, JS, QC, 2D, 4S]
    expect: {{table: played, seats: [{{status: played, net: {{ante: "5.00", flop: "5.00", turn: "5.00", river: "5.00",
                                                          last: "5.00"}}}}]}}
  - id: last-bet-alone-wins-below-straight
    rule: A pair of aces beats queens; the Ante pushes below a straight, the Flop and Last bets win.
    source: test_street_decisions
    seats: [{{wagers: {{ante: "5.00"}}, cards: [AC, KD], actions: [bet_flop, check_turn, check_river, bet_final]}}]
    dealer: {{cards: [QS, QH]}}
    board: [AH, 7S, 4D, 9C, 2H]
    expect: {{table: played, seats: [{{status: played, net: {{ante: "0", flop: "5.00", last: "5.00"}}}}]}}
  - id: dealer-wins-the-last-bet-loses
    rule: The dealer's kings with the ace beat the player's; every wager standing loses.
    source: test_street_decisions
    seats: [{{wagers: {{ante: "5.00"}}, cards: [3C, 4D], actions: [bet_flop, check_turn, bet_river, bet_final]}}]
    dealer: {{cards: [AH, 8D]}}
    board: [KH, KS, 9D, 7C, 2S]
    expect: {{table: played, seats: [{{status: played, net: {{ante: "-5.00", flop: "-5.00", river: "-5.00",
                                                          last: "-5.00"}}}}]}}
  - id: tie-pushes-the-last-bet
    rule: Both play the board's straight; every wager pushes.
    source: test_street_decisions
    seats: [{{wagers: {{ante: "5.00"}}, cards: [2C, 3D], actions: [bet_flop, bet_turn, bet_river, bet_final]}}]
    dealer: {{cards: [2H, 3S]}}
    board: [AS, KH, QD, JC, TS]
    expect: {{table: played, seats: [{{status: played, net: {{ante: "0", flop: "0", turn: "0", river: "0",
                                                          last: "0"}}}}]}}
  - id: fold-loses-the-ante
    rule: Folding before the flop gives up the Ante.
    source: test_street_decisions
    seats: [{{wagers: {{ante: "5.00"}}, cards: [7C, 2D], actions: [fold]}}]
    dealer: {{cards: [AH, 8D]}}
    expect: {{table: played, seats: [{{status: folded, net: {{ante: "-5.00"}}}}]}}
"""


@pytest.mark.slow
def test_certify_run_of_the_four_bet_game_gives_a_signed_pass(full_sheet, tmp_path, monkeypatch):
    """End to end: batteries, the exact sheet, 10^7 simulated rounds against it, procedure
    scenarios (written for this game, found by its name) and the signed report."""
    import json

    from certify import run as run_module
    from certify import signing

    spec, path, sheet = full_sheet("four_bets")  # the run counts it again from the same counts (full_deck_counts)
    procedures = tmp_path / "procedures"
    procedures.mkdir()
    (procedures / "holdem_four_bets.yaml").write_text(FOUR_BETS_PROCEDURES.format(spec=path.resolve()))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    outcome = run_module.run(path, "quick", seed=1, out_dir=tmp_path / "out", signing_key=signing.load_signing_key(),
                             procedures=procedures)  # the studio's own folder (certify run --procedures DIR)
    assert outcome["verdict"] == "PASS", outcome
    report = json.loads(outcome["paths"]["json"].read_text())
    assert report["verdict"] == "PASS" and set(report["section_status"].values()) <= {"pass", "computed"}
    assert [s["status"] for s in report["sections"]["procedures"]["scenarios"]] == ["pass"] * 5
    assert str(sheet.main.house_edge) in json.dumps(report["sections"]["par_sheet"])  # the exact sheet counted here
    roots = signing.default_roots()
    signing.verify_file(outcome["paths"]["pdf"], roots, allow_development=True)  # raises if it does not verify
    signing.verify_file(outcome["paths"]["json"], roots, allow_development=True)
