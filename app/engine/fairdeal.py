"""The fair deal: a round's deck order follows from a secret seed published after the round.

Before a round the table sees ``commitment(seed)``; afterwards it sees the seed itself and can
recompute the deck order (and so the whole deal) with ``shuffled_deck``. The recipe is in
docs/protocol.md and needs nothing but SHA-256:

- commitment = SHA-256 of the seed's 64 lowercase hex characters, as hex;
- deck order = the 125 card ids sorted by SHA-256(seed + ":" + card id), compared as bytes.
"""

from __future__ import annotations

import hashlib

from app.engine.cards import CARD_IDS, FULL_DECK, Card

SEED_HEX_LENGTH = 64


def commitment(seed: str) -> str:
    """The SHA-256 commitment published before the round dealt from ``seed``."""
    return hashlib.sha256(seed.encode("ascii")).hexdigest()


def shuffled_deck(seed: str) -> list[Card]:
    """The deck order for ``seed``, top card first."""
    prefix = seed.encode("ascii") + b":"
    keys = [hashlib.sha256(prefix + CARD_IDS[card].encode("ascii")).digest() for card in FULL_DECK]
    return sorted(FULL_DECK, key=keys.__getitem__)


def round_seed(match_seed: str, number: int) -> str:
    """The seed of round ``number`` of a match; revealing it tells nothing of other rounds."""
    return hashlib.sha256(f"{match_seed}:round:{number}".encode()).hexdigest()
