"""Card encoding: one small integer per card.

A card is ``4 * rank + suit`` with rank 0..12 for 2..A and suit 0..3 for clubs, diamonds,
hearts, spades, so ``card >> 2`` is the rank and ``card & 3`` the suit. Tokens are a rank
(2-9, T or 10, J, Q, K, A) followed by a suit letter (c, d, h, s), in any case.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from certify.errors import InputError

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK_SIZE = 52
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


class CardError(InputError):
    """A card token or a set of cards is not what was expected."""


def card(rank: int, suit: int) -> int:
    return 4 * rank + suit


def rank_of(c: int) -> int:
    return c >> 2


def suit_of(c: int) -> int:
    return c & 3


def parse_card(token: str) -> int:
    """Parse one token such as ``AS``, ``as``, ``10s``, ``Ts`` or ``Td``."""
    text = token.strip()
    if len(text) < 2:
        raise CardError(f"bad card {token!r}: expected a rank (2-10, J, Q, K, A) and a suit (c, d, h, s)")
    rank_text, suit_text = text[:-1].upper(), text[-1].lower()
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANKS:
        raise CardError(f"bad card {token!r}: rank {text[:-1]!r} is not one of 2-10, J, Q, K, A")
    if suit_text not in SUITS:
        raise CardError(f"bad card {token!r}: suit {text[-1]!r} is not one of c, d, h, s")
    return card(RANKS.index(rank_text), SUITS.index(suit_text))


def parse_cards(tokens: str | Iterable[str], count: int | Sequence[int] | None = None) -> list[int]:
    """Parse several cards (a string split on spaces/commas, or tokens), refusing duplicates.

    ``count`` is the number of cards expected, or a sequence of the numbers allowed.
    """
    if isinstance(tokens, str):
        tokens = tokens.replace(",", " ").split()
    tokens = list(tokens)
    cards: list[int] = []
    seen: dict[int, str] = {}
    for token in tokens:
        c = parse_card(token)
        if c in seen:
            raise CardError(f"duplicate card {token!r} (already given as {seen[c]!r})")
        seen[c] = token
        cards.append(c)
    if count is not None:
        allowed = (count,) if isinstance(count, int) else tuple(count)
        if len(cards) not in allowed:
            want = " or ".join(str(n) for n in allowed)
            raise CardError(f"expected {want} cards, got {len(cards)}: {' '.join(tokens)}")
    return cards


def card_str(c: int) -> str:
    """Print a card as rank letter + suit letter, e.g. ``As``, ``Td``."""
    if not 0 <= int(c) < DECK_SIZE:
        raise CardError(f"card code {c} is outside 0..51")
    return RANKS[int(c) >> 2] + SUITS[int(c) & 3]


def cards_str(cards: Iterable[int]) -> str:
    return " ".join(card_str(c) for c in cards)


def full_deck() -> np.ndarray:
    return np.arange(DECK_SIZE, dtype=np.uint8)
