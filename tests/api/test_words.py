"""The client's words: English and French tables with the same ids and the same parameters, and
every id the client asks for defined in them."""

from __future__ import annotations

import re
from pathlib import Path

from app.rooms.seats import BOT_WORDS

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
LANGS = FRONTEND / "js" / "lang"
PARAM = re.compile(r"\{(\w+)\}")


def table(lang: str) -> dict[str, str]:
    """A language's table: its lines between export default ` and `;, each "id text"."""
    source = (LANGS / f"{lang}.js").read_text()
    body = source.split("export default `\n", 1)[1].split("\n`;", 1)[0]
    words: dict[str, str] = {}
    for line in body.split("\n"):
        match = re.fullmatch(r"(\w+) (\S.*\S|\S)", line)
        assert match, f"{lang}.js: not an 'id text' line: {line!r}"
        assert match[1] not in words, f"{lang}.js: {match[1]} twice"
        # The table is a template literal: nothing in it may end or interpolate it.
        assert not re.search(r"`|\$\{|\\", match[2]), line
        words[match[1]] = match[2]
    return words


def forms(text: str) -> list[set[str]]:
    """The parameters of each form of a text (one, or the forms for one and many)."""
    return [set(PARAM.findall(form)) for form in text.split("|")]


def test_english_and_french_have_the_same_ids_and_parameters() -> None:
    english, french = table("en"), table("fr")
    assert len(english) > 300
    assert english.keys() == french.keys()
    for key, text in english.items():
        assert len(text.split("|")) <= 2, key
        params = set().union(*forms(text))
        assert set().union(*forms(french[key])) == params, key
        # Each form of a plural names what the other does, but for the count it may leave out.
        for form in forms(text) + forms(french[key]):
            assert params - form <= {"n"}, key


def client_sources() -> str:
    files = sorted((FRONTEND / "js").glob("*.js"))
    return "\n".join(path.read_text() for path in [*files, FRONTEND / "index.html"])


def first_argument(source: str, start: int) -> str:
    """The text of a call's first argument, from just after its "(" at ``start``."""
    depth = 0
    for end in range(start, len(source)):
        if source[end] in "([{":
            depth += 1
        elif source[end] in ")]}":
            if depth == 0:
                return source[start:end]
            depth -= 1
        elif source[end] == "," and depth == 0:
            return source[start:end]
    return source[start:]


def ids_used(source: str) -> set[str]:
    """The ids the client names as they are: in t(), th() and tap() the first argument's quoted
    ids (each of a choice "x ? 'a' : 'b'", each of a list), and data-t / data-tl in index.html."""
    used = set(re.findall(r'\bdata-tl?="(\w+)"', source))
    for call in re.finditer(r"\b(?:t|th|tap)\(", source):
        argument = first_argument(source, call.end())
        used |= set(re.findall(r"(?:^|[?:\[]\s*|,\s)'(\w+)'", argument))
    return used


def test_every_id_the_client_uses_is_in_the_tables() -> None:
    english = table("en")
    source = client_sources()
    used = ids_used(source)
    assert len(used) > 200
    assert used - english.keys() == set()
    # Ids made at run time: a card's shape and colour, the known closes, the bot levels and
    # the bots' names.
    made = {"circle", "crescent", "triangle", "square", "star"}
    made |= {"violet", "cyan", "yellow", "orange", "red", "easy", "normal", "strong"}
    made |= {"easyBot", "normalBot", "strongBot"}
    closes = re.search(
        r"FINAL_CLOSES = new Set\(\[([\d, ]+)\]", (FRONTEND / "js" / "room.js").read_text()
    )
    assert closes
    for code in closes[1].split(", "):
        made |= {f"closed{code}", f"closedText{code}"}
    made |= {f"{name}s" for name in ("number", "shape", "colour")}
    made |= {f"{name}sTitle" for name in ("number", "shape", "colour")}
    assert made - english.keys() == set()


def test_each_table_says_the_same_thing_in_its_own_language() -> None:
    english, french = table("en"), table("fr")
    # A text the same in both, besides its parameters, would be one left untranslated ("point"
    # is French too).
    same = {
        key for key, text in english.items() if text == french[key] and len(PARAM.sub("", text)) > 8
    }
    assert same == {"points"}, same


def test_each_refusal_with_words_is_a_code_the_server_gives() -> None:
    server = "\n".join(path.read_text() for path in (FRONTEND.parent / "app").rglob("*.py"))
    codes = [key.removeprefix("e_") for key in table("en") if key.startswith("e_")]
    assert len(codes) > 10
    for code in codes:
        assert f'"{code}"' in server, code


def test_no_french_text_puts_de_before_a_name() -> None:
    """French writes "d'Alice", not "de Alice": a name given at run time may begin with a
    vowel, so no text puts "de", "que" or "le" before one (each is said another way)."""
    french = table("fr")
    before = re.compile(r"\b(?:de|que|le|la|du)\s+\{(?:name|names|player|who|by)\}", re.I)
    assert [key for key, text in french.items() if before.search(text)] == []


def test_the_server_knows_the_names_the_client_shows_its_bots_under() -> None:
    """A person may take none of them (``app.rooms.seats.BOT_WORDS``)."""
    for lang in ("en", "fr"):
        words = table(lang)
        shown = {level: words[f"{level}Bot"] for level in ("easy", "normal", "strong")}
        if lang == "en":
            assert shown == {level: f"{level.capitalize()} bot" for level in shown}
        else:
            assert shown == {level: BOT_WORDS[level][0] for level in shown}
