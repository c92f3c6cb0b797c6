"""A room's chat: short lines and quick reactions, their limits, and the recent lines kept.

The room keeps the last ``CHAT_KEPT`` lines with its live state (they are journaled, so they
survive a restart) and never writes them to the match history. Each line has a number ``n``
that only grows, so a client (and the patches) can tell a new line from one it already holds.
"""

from __future__ import annotations

import re
import unicodedata
from collections import deque
from dataclasses import dataclass, replace

from app.engine.errors import IllegalAction
from app.rooms.seats import BLANKS, IGNORABLE, REGION_TAGS

MAX_CHAT_LENGTH = 200
CHAT_KEPT = 50
# The quick reactions a client may send; anything else is refused.
REACTIONS = ("👍", "👏", "😂", "😮", "🎉", "😢", "🔥")
# Each sender (a seat, or a spectator's connection) may send this many lines in this many
# seconds, reactions included; on top of the per-connection limit on every message.
CHAT_BURST = 5
CHAT_WINDOW = 10.0

# What is taken out of a line: what Unicode says to draw as nothing (zero-width spaces, marks
# that turn text around, tags, the byte order mark) and the interlinear annotation marks. What
# emoji and scripts are made of stays: the joiners, the variation selectors (Mongolian's
# included, and its vowel separator), the combining grapheme joiner (which orders Hebrew
# marks), and the tags that name a flag's region after a black flag (Scotland's, Wales's).
# Letters that show as nothing are spaces (``BLANKS``).
_HIDDEN = (IGNORABLE | frozenset("\ufff9\ufffa\ufffb")) - frozenset(
    "\u034f\u200c\u200d"
    + "".join(chr(code) for code in range(0x180B, 0x1810))
    + "".join(chr(code) for code in range(0xFE00, 0xFE10))
    + "".join(chr(code) for code in range(0xE0100, 0xE01F0))
    + "".join(map(chr, BLANKS))
)
# A region's flag: a black flag and the region's tags. Any other run of tags is hidden text.
_FLAG = re.compile(f"\U0001f3f4{REGION_TAGS}")
# Marks drawn over or under one letter: past this many the rest are taken out (a joiner or
# another format character between them leaves them on the same letter). No script needs more
# on one letter (pointed Hebrew with its cantillation takes four), and a pile of dozens (48
# accents on one letter were sent) covers the lines above and below it.
MARKS_ON_A_LETTER = 6


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One line of a room's chat, as everyone sees it."""

    n: int
    seat: int | None  # None: a spectator, or a player who has since left
    name: str | None  # the sender's name as it was; None for a spectator
    text: str | None
    reaction: str | None
    at: int


class RoomChat:
    """A room's recent lines, whether spectators may chat, and a version that changes with
    either (or with who is muted)."""

    __slots__ = ("count", "lines", "spectators", "version")

    def __init__(self) -> None:
        self.lines: deque[ChatLine] = deque(maxlen=CHAT_KEPT)
        self.count = 0  # lines ever said: the next line's number
        self.spectators = False
        self.version = 0

    def add(
        self, seat: int | None, name: str | None, text: str | None, reaction: str | None, at: int
    ) -> None:
        """Keep a new line (the oldest goes past ``CHAT_KEPT``)."""
        self.lines.append(ChatLine(self.count, seat, name, text, reaction, at))
        self.count += 1
        self.version += 1

    def seat_left(self, left: int) -> None:
        """Seat ``left`` left: its lines keep the name but no seat, later seats' lines move up
        one."""
        self.version += 1
        if any(line.seat is not None and line.seat >= left for line in self.lines):
            self.lines = deque(
                (
                    line
                    if line.seat is None or line.seat < left
                    else replace(line, seat=None if line.seat == left else line.seat - 1)
                    for line in self.lines
                ),
                maxlen=CHAT_KEPT,
            )

    def let_spectators(self, allowed: bool) -> None:
        """Let spectators chat, or stop them."""
        self.spectators = allowed
        self.version += 1

    def mutes_changed(self) -> None:
        """Who is muted changed (the seats hold it; the chat's view shows it)."""
        self.version += 1

    def oldest(self) -> int:
        """The number of the oldest line kept (the next line's when none is)."""
        return self.lines[0].n if self.lines else self.count


# What draws nothing on its own: marks, spaces, controls, format characters (joiners). Letters
# newer than this Python's Unicode tables (a new emoji) and private-use ones are drawn.
INVISIBLE = frozenset({"Mn", "Mc", "Me", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs"})


def clean_text(text: str) -> str:
    """A chat line on one line, spaces tidied, control and direction marks and what draws as
    nothing taken out, and marks piled on one letter past ``MARKS_ON_A_LETTER``; raises
    IllegalAction ``chat_empty`` (nothing visible left: only spaces, letters that show as
    nothing, joiners and other invisible marks) or ``chat_too_long``."""
    flags = {at for flag in _FLAG.finditer(text) for at in range(flag.start(), flag.end())}
    kept: list[str] = []
    marks = 0
    for at, character in enumerate(text):
        category = unicodedata.category(character)
        if at not in flags and (
            character in _HIDDEN or (category in ("Cc", "Cs") and not character.isspace())
        ):
            continue
        if category in ("Mn", "Me"):
            marks += 1
            if marks > MARKS_ON_A_LETTER:
                continue
        elif category != "Cf":
            marks = 0
        kept.append(character)
    tidied = " ".join("".join(kept).translate(BLANKS).split())
    if not any(unicodedata.category(character) not in INVISIBLE for character in tidied):
        raise IllegalAction("chat_empty", "a chat message needs at least one visible character")
    if len(tidied) > MAX_CHAT_LENGTH:
        raise IllegalAction(
            "chat_too_long", f"a chat message has at most {MAX_CHAT_LENGTH} characters"
        )
    return tidied


def check_reaction(reaction: str) -> str:
    """``reaction`` if it is one of the quick reactions; raises IllegalAction otherwise."""
    if reaction not in REACTIONS:
        raise IllegalAction("unknown_reaction", f"the quick reactions are {' '.join(REACTIONS)}")
    return reaction


class ChatLimit:
    """How many lines each sender sent in the last ``CHAT_WINDOW`` seconds (room clock)."""

    __slots__ = ("_sent",)

    def __init__(self) -> None:
        self._sent: dict[object, deque[float]] = {}

    def check(self, sender: object, now: float) -> None:
        """Raise IllegalAction ``chat_too_fast`` if ``sender`` has used up the window."""
        sent = self._sent.get(sender)
        if sent is None:
            return
        while sent and sent[0] <= now - CHAT_WINDOW:
            sent.popleft()
        if len(sent) >= CHAT_BURST:
            wait = max(1, int(sent[0] + CHAT_WINDOW - now + 0.999))
            raise IllegalAction(
                "chat_too_fast",
                f"at most {CHAT_BURST} chat messages in {CHAT_WINDOW:g} seconds; wait {wait} s",
            )

    def sent(self, sender: object, now: float) -> None:
        """Count a line ``sender`` sent at ``now``."""
        if len(self._sent) > 256:  # senders quiet for the whole window are forgotten
            for key in [key for key, times in self._sent.items() if times[-1] <= now - CHAT_WINDOW]:
                del self._sent[key]
        self._sent.setdefault(sender, deque()).append(now)

    def unseat(self, removed: int) -> None:
        """Seat ``removed`` is gone and the seats after it moved down one: their counts go
        with them (a spectator's stay)."""
        moved: dict[object, deque[float]] = {}
        for sender, times in self._sent.items():
            match sender:
                case ("seat", int(seat)) if seat == removed:
                    continue
                case ("seat", int(seat)) if seat > removed:
                    moved[("seat", seat - 1)] = times
                case _:
                    moved[sender] = times
        self._sent = moved
