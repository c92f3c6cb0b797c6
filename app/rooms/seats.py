"""A seat at a room's table: who sits there, and the names players and bots may take."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from app.engine.errors import IllegalAction

MAX_NAME_LENGTH = 24
# How many bots of one level a room can tell apart by name ("Easy bot", "Easy bot 2", ...).
BOTS_PER_LEVEL = 7


@dataclass(slots=True)
class Seat:
    """A player's place at the table, kept for the whole match."""

    name: str
    token_hash: str
    ready: bool = False
    bot: str | None = None  # the level of a computer player; None for a person
    # The SHA-256 of the player key the person's browser sent (history keeps one person's
    # results together by it); "" for a bot or a join without a key.
    key_hash: str = ""
    muted: bool = False  # the host stopped this seat's chat


# Letters that show as nothing (Hangul fillers, the blank Braille pattern): tidied as spaces.
_BLANKS = str.maketrans(dict.fromkeys("\u115f\u1160\u3164\uffa0\u2800", " "))


def clean_name(name: str) -> str:
    """A player name with spaces tidied; raises IllegalAction ``bad_name`` if unusable."""
    cleaned = " ".join(name.translate(_BLANKS).split())
    # A mark alone (an accent, say) is drawn on nothing.
    if not any(unicodedata.category(character)[0] != "M" for character in cleaned):
        raise IllegalAction("bad_name", "a name needs at least one visible character")
    if len(cleaned) > MAX_NAME_LENGTH:
        raise IllegalAction("bad_name", f"a name has at most {MAX_NAME_LENGTH} characters")
    if any(not character.isprintable() for character in cleaned):
        raise IllegalAction("bad_name", "a name cannot hold control characters")
    return cleaned


def name_taken(seats: Iterable[Seat], name: str) -> bool:
    """Whether someone seated is already called ``name``, whatever its case or its width
    (fullwidth letters are the same letters)."""
    wanted = _folded(name)
    return any(_folded(seat.name) == wanted for seat in seats)


def _folded(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold()


def bot_name(seats: Iterable[Seat], level: str) -> str:
    """The first free name for a bot of ``level``: "Easy bot", then "Easy bot 2" and on."""
    taken = {seat.name for seat in seats}
    base = f"{level.capitalize()} bot"
    return next(
        candidate
        for candidate in (base, *(f"{base} {n}" for n in range(2, BOTS_PER_LEVEL + 1)))
        if candidate not in taken
    )
