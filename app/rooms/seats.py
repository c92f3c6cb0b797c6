"""A seat at a room's table: who sits there, and the names players and bots may take."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from app.engine.errors import IllegalAction
from app.rooms.lookalikes import AS, DRAWN_LIKE

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
BLANKS = str.maketrans(dict.fromkeys("\u115f\u1160\u3164\uffa0\u2800", " "))


def tidy_name(name: str) -> str:
    """A name as it is kept: spaces tidied (blank letters count as spaces), and accented
    letters composed (NFC), so that one name typed two ways is kept one way."""
    return unicodedata.normalize("NFC", " ".join(name.translate(BLANKS).split()))


# Unicode's Default_Ignorable_Code_Point characters: drawn as nothing wherever they stand
# (variation selectors, the combining grapheme joiner, joiners, direction marks, the
# Hangul fillers, tags and the code points kept for more of them).
_IGNORABLE_RANGES = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
IGNORABLE = frozenset(
    chr(code) for first, last in _IGNORABLE_RANGES for code in range(first, last + 1)
)
_UNSEEN = str.maketrans(dict.fromkeys(IGNORABLE))


def visible(name: str) -> bool:
    """Whether a tidied name shows anything but spaces: a mark alone (an accent, say) is drawn
    on nothing, and a character Unicode says to draw as nothing (a variation selector, say) is
    not drawn at all."""
    return any(
        not character.isspace()
        and unicodedata.category(character)[0] != "M"
        and character not in IGNORABLE
        for character in name
    )


NOT_VISIBLE = "a name needs at least one visible character"


def clean_name(name: str) -> str:
    """A player name with spaces tidied; raises IllegalAction ``bad_name`` if unusable."""
    cleaned = tidy_name(name)
    if not visible(cleaned):
        raise IllegalAction("bad_name", NOT_VISIBLE)
    if len(cleaned) > MAX_NAME_LENGTH:
        raise IllegalAction("bad_name", f"a name has at most {MAX_NAME_LENGTH} characters")
    if any(not character.isprintable() for character in _JOINING.sub("", cleaned)):
        raise IllegalAction("bad_name", "a name cannot hold control characters")
    return cleaned


# The tags that name a region after a black flag, making its flag (Scotland's, Wales's): its
# country's two letters, then one to four letters or digits, and the cancel tag. Any other run
# of tags is hidden text.
REGION_TAGS = (
    "[\U000e0061-\U000e007a]{2}[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,4}\U000e007f"
)

# What Unicode calls format characters yet a name needs where it joins two of its characters:
# the zero-width non-joiner of Persian names ("علی‌رضا"), the zero-width joiner of Indic
# scripts and of emoji ("👩‍💻"), and a region's tags after a black flag. Anywhere else, as
# every other format character, they are refused.
_JOINING = re.compile(
    f"(?<=[^\\s\u200c\u200d])[\u200c\u200d](?=[^\\s\u200c\u200d])|(?<=\U0001f3f4){REGION_TAGS}"
)


# Names a player page's address cannot hold: /players/.. is read as a step up to the site.
PATH_STEPS = frozenset({".", ".."})


# Letters drawn like Latin ones, as each looks: "Ann" with a Cyrillic capital A reads as "Ann".
# Mapped case by case, since a capital and its small letter can look like different Latin
# letters (the Greek capital nu like "N", its small letter like "v"). A capital I reads as a
# small l, whatever its script.
_LOOKALIKE = str.maketrans(
    {
        # Cyrillic capitals
        **dict(
            zip(
                "\u0410\u0412\u0415\u0405\u0406\u0408\u041a\u041c\u041d"
                "\u041e\u0420\u0421\u0422\u0425\u0423\u04ae\u051c",
                "ABESlJKMHOPCTXYYW",
                strict=True,
            )
        ),
        # Cyrillic small letters
        **dict(
            zip(
                "\u0430\u0435\u0455\u0456\u0458\u043e\u0440\u0441\u0445"
                "\u0443\u04bb\u0501\u051b\u051d\u04cf",
                "aesijopcxyhdqwl",
                strict=True,
            )
        ),
        # Greek capitals
        **dict(
            zip(
                "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d"
                "\u039f\u03a1\u03a4\u03a5\u03a7",
                "ABEZHlKMNOPTYX",
                strict=True,
            )
        ),
        # Greek small letters
        **dict(zip("\u03bf\u03b9\u03bd\u03ba\u03c1\u03c7\u03c5", "oivkpxu", strict=True)),
        # Armenian capital and small oh
        **dict(zip("\u0555\u0585", "Oo", strict=True)),
        # Coptic capitals and small letters
        **dict(
            zip(
                "\u2c8e\u2c92\u2c94\u2c98\u2c9a\u2c9e\u2ca2\u2ca4\u2ca6\u2ca8\u2cac\u2cd0"
                "\u2c9f\u2ca3\u2ca5",
                "HlKMNOPCTYXLopc",
                strict=True,
            )
        ),
        # Cherokee capitals, as small Latin letters: a Cherokee small letter folds to its
        # capital, which the second look-up then finds
        **dict(
            zip(
                "\u13a0\u13a1\u13a2\u13a5\u13a9\u13aa\u13ab\u13ac\u13b3\u13b7\u13bb\u13bd"
                "\u13c0\u13c2\u13c3\u13cf\u13d2\u13d4\u13d5\u13d9\u13da\u13de\u13df\u13e2"
                "\u13e6\u13e7\u13f3\u13f4",
                "drtiyajewmhyghzbrwsvslcpkdgb",
                strict=True,
            )
        ),
        # Lisu letters (drawn as Latin capitals)
        **dict(
            zip(
                "\ua4d0\ua4d1\ua4d2\ua4d3\ua4d4\ua4d6\ua4d7\ua4d9\ua4da\ua4dc\ua4dd\ua4df"
                "\ua4e0\ua4e1\ua4e2\ua4e3\ua4e6\ua4e7\ua4ea\ua4eb\ua4ec\ua4ee\ua4f0\ua4f2"
                "\ua4f3\ua4f4",
                "BPdDTGKJCZFMNLSRVHWXYAElOU",
                strict=True,
            )
        ),
        # Latin small capitals, each its letter (there is none of x)
        **dict(
            zip(
                "\u1d00\u0299\u1d04\u1d05\u1d07\ua730\u0262\u029c\u026a\u1d0a\u1d0b\u029f\u1d0d"
                "\u0274\u1d0f\u1d18\ua7af\u0280\ua731\u1d1b\u1d1c\u1d20\u1d21\u028f\u1d22",
                "abcdefghijklmnopqrstuvwyz",
                strict=True,
            )
        ),
        # dotless i, capital I, one, zero
        **dict(zip("\u0131I10", "illO", strict=True)),
    }
)


# What each character Unicode's confusables data draws like one Latin letter or digit is drawn
# like, in any script.
_DRAWN_LIKE = dict(zip(DRAWN_LIKE, AS, strict=True))


def name_taken(seats: Iterable[Seat], name: str) -> str | None:
    """The name of someone seated already called ``name``, whatever its case or its width
    (fullwidth letters are the same letters) and whatever it holds that is drawn as nothing
    (a variation selector), or by a name that looks the same (a Cyrillic capital A for a
    Latin "A", "I" for "l", "0" for "O", a Malayalam TTHA for "o"); None if nobody is."""
    shown = _shown(name)
    wanted = shown.casefold()
    looks = _looks(shown)
    for seat in seats:
        for seated in shown_names(seat):
            drawn = _shown(seated)
            if drawn.casefold() == wanted or _looks(drawn) == looks or _drawn_alike(drawn, shown):
                return seated
    return None


# A bot's name in the client's other languages (frontend/js/lang): "Easy bot 2" is shown as
# "Bot facile 2" on a French page.
BOT_WORDS = {"easy": ("Bot facile",), "normal": ("Bot moyen",), "strong": ("Bot fort",)}


def shown_names(seat: Seat) -> tuple[str, ...]:
    """The names a seat is shown under: a person's own, a bot's in each of the client's
    languages (no one else may be shown as the same)."""
    if seat.bot is None or not seat.name.startswith(base := f"{seat.bot.capitalize()} bot"):
        return (seat.name,)
    rest = seat.name.removeprefix(base)
    return (seat.name, *(words + rest for words in BOT_WORDS.get(seat.bot, ())))


def _drawn_alike(one: str, other: str) -> bool:
    """Whether two names (as drawn) differ only where each has a letter of another script and
    the two are drawn alike, whatever their case: "Bob" and "Bob" with a Malayalam TTHA for
    its "o"; not two names of one script whose letters only resemble each other's (the Hebrew
    names "ליאו" and "ליאן", a vav and a final nun)."""
    if len(one) != len(other):
        return False
    for a, b in zip(one, other, strict=True):
        if a == b or _looks(a) == _looks(b):  # the same letter, or alike as ``_looks`` has it
            continue
        if _script(a) == _script(b) or _drawn_as(a) != _drawn_as(b):
            return False
    return True


def _drawn_as(character: str) -> str:
    """The Latin letter or digit a character is drawn like (case folded), else itself."""
    return _DRAWN_LIKE.get(character, character.translate(_LOOKALIKE)).casefold()


def _script(character: str) -> str:
    """The script of a character, as its Unicode name begins ("HEBREW LETTER VAV"); ASCII
    apart from the rest of Latin, whose letters drawn like ASCII ones (a Latin alpha, a
    script g) are the look-alikes of those."""
    if character.isascii():
        return "ASCII"
    return unicodedata.name(character, "").partition(" ")[0]


def _shown(name: str) -> str:
    """A name as it is drawn, in compatibility form: what is drawn as nothing is left out
    first (a combining grapheme joiner would keep an accent apart from its letter)."""
    return unicodedata.normalize("NFKC", name.translate(_UNSEEN))


def _looks(shown: str) -> str:
    """What a name as drawn (``_shown``) looks like: its look-alike letters made Latin, then
    case folded (and those of the folded letters again: a capital may fold to a small capital,
    U+01A6 to U+0280)."""
    return shown.translate(_LOOKALIKE).casefold().translate(_LOOKALIKE)


def bot_name(seats: Iterable[Seat], level: str) -> str:
    """The first free name for a bot of ``level``: "Easy bot", then "Easy bot 2" and on (a
    name is free when no seated name is it or looks like it, "easy bot" included, in any of
    the languages it is shown in: not "Easy bot" beside a person called "Bot facile")."""
    seated = list(seats)
    base = f"{level.capitalize()} bot"
    return next(
        candidate
        for candidate in (base, *(f"{base} {n}" for n in range(2, BOTS_PER_LEVEL + 1)))
        if all(
            name_taken(seated, shown) is None
            for shown in shown_names(Seat(candidate, "", bot=level))
        )
    )
