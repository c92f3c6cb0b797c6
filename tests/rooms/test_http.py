"""Rooms over HTTP: create, join and look up."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests import fetch
from tests.rooms.client import Client, api, create_room, join_room
from tests.server import FAST, Server, running_server

pytestmark = pytest.mark.usefixtures("closing_clients")


CODE = re.compile(r"[23456789ABCDEFGHJKMNPQRSTWXYZ]{4}-[23456789ABCDEFGHJKMNPQRSTWXYZ]{4}")
DEFAULTS = {
    "rounds": 5,
    "multi_pickup": False,
    "ten_card": False,
    "turn_seconds": 60,
    "max_players": 6,
    "hints": True,
}


def post_room(server: Server, body: Any) -> httpx.Response:
    return api(server, "POST", "/api/rooms", body)


def post_join(server: Server, code: str, name: Any) -> httpx.Response:
    return api(server, "POST", f"/api/rooms/{code}/join", {"name": name})


def get_room(server: Server, code: str) -> httpx.Response:
    return api(server, "GET", f"/api/rooms/{code}")


def token_bytes(token: str) -> bytes:
    assert re.fullmatch(r"[A-Za-z0-9_-]+", token), token
    return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))


# Creating.


def test_create_answers_code_url_seat_and_token(rooms_server: Server) -> None:
    response = post_room(rooms_server, {"name": "Ann"})
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"code", "url", "seat", "token", "socket"}
    assert CODE.fullmatch(body["code"])
    assert body["socket"] == f"/ws/rooms/{body['code']}"
    assert body["url"] == f"{rooms_server.url}/r/{body['code']}"
    assert body["seat"] == 0


def test_create_without_settings_uses_the_defaults(rooms_server: Server) -> None:
    room = create_room(rooms_server)
    info = get_room(rooms_server, room["code"]).json()
    assert info["settings"] == DEFAULTS
    assert info["status"] == "lobby"
    assert info["players"] == [
        {"seat": 0, "name": "Ann", "connected": False, "host": True, "bot": None}
    ]
    assert info["spectators"] == 0
    assert info["url"] == f"{rooms_server.url}/r/{room['code']}"


def test_create_keeps_custom_settings(rooms_server: Server) -> None:
    chosen = {
        "rounds": 12,
        "multi_pickup": True,
        "ten_card": False,
        "turn_seconds": 0,
        "max_players": 3,
        "hints": False,
    }
    room = create_room(rooms_server, **chosen)
    assert get_room(rooms_server, room["code"]).json()["settings"] == chosen


def test_partial_settings_leave_the_rest_at_their_defaults(rooms_server: Server) -> None:
    room = create_room(rooms_server, rounds=50, turn_seconds=3600)
    settings = get_room(rooms_server, room["code"]).json()["settings"]
    assert settings == {**DEFAULTS, "rounds": 50, "turn_seconds": 3600}


def test_ten_card_rooms_default_to_four_players(rooms_server: Server) -> None:
    room = create_room(rooms_server, ten_card=True)
    settings = get_room(rooms_server, room["code"]).json()["settings"]
    assert settings["max_players"] == 4
    assert settings["ten_card"] is True


def test_ten_card_rooms_accept_fewer_players(rooms_server: Server) -> None:
    room = create_room(rooms_server, ten_card=True, max_players=2)
    assert get_room(rooms_server, room["code"]).json()["settings"]["max_players"] == 2


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"rounds": 0}, "rounds"),
        ({"rounds": 51}, "rounds"),
        ({"rounds": "3"}, "rounds"),
        ({"rounds": 2.5}, "rounds"),
        ({"turn_seconds": -1}, "turn_seconds"),
        ({"turn_seconds": 3601}, "turn_seconds"),
        ({"max_players": 1}, "max_players"),
        ({"max_players": 7}, "max_players"),
        ({"multi_pickup": "yes"}, "multi_pickup"),
        ({"ten_card": 1}, "ten_card"),
        ({"hints": None}, "hints"),
        ({"colour_blind": True}, "colour_blind"),
    ],
)
def test_bad_settings_get_422_naming_the_field(
    rooms_server: Server, settings: dict[str, Any], field: str
) -> None:
    response = post_room(rooms_server, {"name": "Ann", "settings": settings})
    assert response.status_code == 422
    locations = [error["loc"] for error in response.json()["detail"]]
    assert ["body", "settings", field] in locations


@pytest.mark.parametrize("players", [5, 6])
def test_ten_card_with_too_many_players_gets_422_naming_max_players(
    rooms_server: Server, players: int
) -> None:
    response = post_room(
        rooms_server, {"name": "Ann", "settings": {"ten_card": True, "max_players": players}}
    )
    assert response.status_code == 422
    locations = [error["loc"] for error in response.json()["detail"]]
    assert ["body", "settings", "max_players"] in locations, locations


def test_settings_must_be_an_object(rooms_server: Server) -> None:
    response = post_room(rooms_server, {"name": "Ann", "settings": [5]})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "settings"]


@pytest.mark.parametrize("path", ["/api/rooms", "/api/score"])
def test_a_body_that_is_not_utf_8_is_refused_as_any_body_that_is_not_json(
    rooms_server: Server, path: str
) -> None:
    """A Latin-1 "ë" in a JSON body was answered 400 ``bad_request``, not the 422 at "body"
    of a body that is not JSON; nothing is made either way."""
    body = '{"name": "Zo\u00eb", "cards": ["\u00eb"]}'.encode("latin-1")
    response = fetch.post(
        rooms_server.url + path,
        content=body,
        headers={"Content-Type": "application/json; charset=latin-1"},
    )
    assert response.status_code == 422, response.text
    assert response.json() == {
        "detail": [
            {
                "type": "json_invalid",
                "loc": ["body", body.index(b"\xeb")],
                "msg": "JSON decode error: the body is not UTF-8 text",
            }
        ],
        "code": "invalid_request",
    }


@pytest.mark.parametrize("path", ["/api/rooms", "/api/score"])
def test_a_body_nested_too_deeply_is_refused_as_any_body_that_is_not_json(
    rooms_server: Server, path: str
) -> None:
    """Nesting past the JSON parser's depth was answered 400 ``bad_request``."""
    body = b'{"name": "Ann", "settings": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    response = fetch.post(
        rooms_server.url + path, content=body, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422, response.text
    assert response.json() == {
        "detail": [
            {"type": "json_invalid", "loc": ["body"], "msg": "JSON decode error: nested too deeply"}
        ],
        "code": "invalid_request",
    }


HIDDEN_AFTER_FLAG = "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in "ADMIN") + "\U000e007f"


@pytest.mark.parametrize(
    "name",
    [
        *["", " ", "   \t  ", "\n", "x" * 25, "a" * 97, "Ann\x07", "Ann\u200b", 7, None],
        *["\u3164", "\u2800", " \u3164\u3164 \u2800", "\u0301", "\u0301\u0302"],
        *[".", ".."],
        *["Ann\u200d", "\u200cAnn", "A \u200dB", "A\u200d\u200dB", "Ann\U000e0067\U000e007f"],
        *["A\u202eB"],
        # After a black flag, tags in no region's shape: hidden text, not a flag.
        *[HIDDEN_AFTER_FLAG, "\U0001f3f4\U000e0067\U000e007f", "\U0001f3f4\U000e0020\U000e007f"],
    ],
    ids=[
        *["empty", "space", "blanks", "newline", "25", "97", "bell", "zero-width", "int", "null"],
        *["hangul-filler", "braille-blank", "blank-letters", "accent", "accents"],
        *["dot", "dot-dot"],
        *["joiner-last", "non-joiner-first", "joiner-after-space", "joiners", "stray-tags"],
        *["right-to-left-override"],
        *["hidden-after-flag", "one-tag-after-flag", "tag-space-after-flag"],
    ],
)
def test_bad_names_get_422_on_create_and_join(rooms_server: Server, name: Any) -> None:
    response = post_room(rooms_server, {"name": name})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "name"]
    room = create_room(rooms_server)
    response = post_join(rooms_server, room["code"], name)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "name"]
    assert len(get_room(rooms_server, room["code"]).json()["players"]) == 1


def test_a_name_is_required(rooms_server: Server) -> None:
    assert post_room(rooms_server, {"settings": {}}).status_code == 422
    assert post_room(rooms_server, {"name": "Ann", "extra": 1}).status_code == 422


def test_names_have_their_spaces_tidied(rooms_server: Server) -> None:
    room = create_room(rooms_server, "  Ann \t  Lee ")
    join_room(rooms_server, room["code"], "x" * 24)
    names = [p["name"] for p in get_room(rooms_server, room["code"]).json()["players"]]
    assert names == ["Ann Lee", "x" * 24]


def test_letters_that_show_as_nothing_are_tidied_as_spaces(rooms_server: Server) -> None:
    room = create_room(rooms_server, "\u3164Ann\u2800\u2800Lee\u3164")
    join_room(rooms_server, room["code"], "Jos\u00e9")
    join_room(rooms_server, room["code"], "Jose\u0301 2")  # an accent on a letter stays
    names = [p["name"] for p in get_room(rooms_server, room["code"]).json()["players"]]
    assert names == ["Ann Lee", "Jos\u00e9", "Jos\u00e9 2"]  # composed with its letter


def test_names_keep_the_joiners_their_script_or_emoji_need(rooms_server: Server) -> None:
    """A zero-width non-joiner inside a Persian name, a zero-width joiner inside an emoji and a
    flag's country tags are part of the name; each was refused as a control character."""
    persian = "\u0639\u0644\u06cc\u200c\u0631\u0636\u0627"  # Alireza
    names = [
        persian,
        "\U0001f469\u200d\U0001f4bb",  # a woman at a computer
        "\U0001f3f3\ufe0f\u200d\U0001f308 Zo\u00e9",  # the rainbow flag
        "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f Ewan",
    ]
    room = create_room(rooms_server, names[0])
    for name in names[1:]:
        join_room(rooms_server, room["code"], name)
    seated = [p["name"] for p in get_room(rooms_server, room["code"]).json()["players"]]
    assert seated == names
    # The same letters without the non-joiner are the same name, drawn almost alike.
    assert post_join(rooms_server, room["code"], persian.replace("\u200c", "")).status_code == 409


# Codes and tokens.


def test_codes_are_eight_unambiguous_characters_in_two_groups(rooms_server: Server) -> None:
    codes = {create_room(rooms_server)["code"] for _ in range(40)}
    assert len(codes) == 40
    for code in codes:
        assert CODE.fullmatch(code), code


@pytest.mark.parametrize(
    "spelling",
    [str.lower, lambda code: code.replace("-", ""), lambda code: code.lower().replace("-", "")],
    ids=["lower", "no-dash", "lower-no-dash"],
)
def test_codes_are_accepted_in_any_case_and_without_the_dash(
    rooms_server: Server, spelling: Any
) -> None:
    room = create_room(rooms_server)
    typed = spelling(room["code"])
    info = get_room(rooms_server, typed)
    assert info.status_code == 200
    assert info.json()["code"] == room["code"]
    joined = post_join(rooms_server, typed, "Bob")
    assert joined.status_code == 201
    assert joined.json()["seat"] == 1


async def test_websockets_accept_the_code_in_any_spelling(rooms_server: Server) -> None:
    room = create_room(rooms_server)
    client = Client(rooms_server, room["code"].lower().replace("-", ""), room["token"])
    await client.connect()
    assert client.state is not None
    assert client.state["code"] == room["code"]
    assert client.seat == 0
    await client.close()


def test_tokens_carry_at_least_128_random_bits(rooms_server: Server) -> None:
    room = create_room(rooms_server)
    tokens = [room["token"]] + [
        join_room(rooms_server, room["code"], f"P{n}")["token"] for n in range(1, 6)
    ]
    tokens += [create_room(rooms_server)["token"] for _ in range(20)]
    assert len(set(tokens)) == len(tokens)
    for token in tokens:
        assert len(token_bytes(token)) >= 16, token


def test_tokens_never_appear_in_room_info(rooms_server: Server) -> None:
    room = create_room(rooms_server)
    tokens = [room["token"], join_room(rooms_server, room["code"], "Bob")["token"]]
    text = get_room(rooms_server, room["code"]).text
    for token in tokens:
        assert token not in text
    assert "token" not in text


# Joining.


def test_joins_take_the_next_seats_in_order(rooms_server: Server) -> None:
    room = create_room(rooms_server)
    for seat, name in enumerate(["Bob", "Cid", "Dee", "Eve", "Fay"], start=1):
        response = post_join(rooms_server, room["code"], name)
        assert response.status_code == 201
        body = response.json()
        assert set(body) == {"seat", "token", "socket"}
        assert body["seat"] == seat
    players = get_room(rooms_server, room["code"]).json()["players"]
    assert [(p["seat"], p["name"], p["host"]) for p in players] == [
        (0, "Ann", True),
        (1, "Bob", False),
        (2, "Cid", False),
        (3, "Dee", False),
        (4, "Eve", False),
        (5, "Fay", False),
    ]


def test_join_unknown_room_is_404(rooms_server: Server) -> None:
    response = post_join(rooms_server, "2345-6789", "Bob")
    assert response.status_code == 404
    assert response.json()["code"] == "no_room"
    assert get_room(rooms_server, "2345-6789").status_code == 404
    assert get_room(rooms_server, "not-a-code").status_code == 404


@pytest.mark.parametrize(
    ("settings", "seats"),
    [({}, 6), ({"max_players": 3}, 3), ({"ten_card": True}, 4), ({"max_players": 2}, 2)],
)
def test_join_a_full_room_is_409_room_full(
    rooms_server: Server, settings: dict[str, Any], seats: int
) -> None:
    room = create_room(rooms_server, **settings)
    for seat in range(1, seats):
        join_room(rooms_server, room["code"], f"P{seat}")
    response = post_join(rooms_server, room["code"], "Late")
    assert response.status_code == 409
    assert response.json()["code"] == "room_full"
    assert len(get_room(rooms_server, room["code"]).json()["players"]) == seats


def test_join_with_a_name_taken_is_409_in_any_case_or_width(rooms_server: Server) -> None:
    room = create_room(rooms_server, "Ann Lee")
    for name in ["Ann Lee", "ann lee", " ANN  LEE ", "\uff21nn \uff2cee", "\u3164ann lee"]:
        response = post_join(rooms_server, room["code"], name)
        assert response.status_code == 409
        assert response.json()["code"] == "name_taken"


def test_a_name_is_kept_composed_however_it_was_typed(rooms_server: Server) -> None:
    room = create_room(rooms_server, "Zoe\u0308 Lee")  # e and a combining diaeresis
    assert post_join(rooms_server, room["code"], "Zo\u00eb lee").status_code == 409
    names = [player["name"] for player in get_room(rooms_server, room["code"]).json()["players"]]
    assert names == ["Zo\u00eb Lee"]


def all_taken(server: Server, code: str, names: list[str]) -> None:
    """Each of ``names`` is refused a seat in room ``code``: someone there is called so."""
    for name in names:
        response = post_join(server, code, name)
        assert response.status_code == 409, name
        assert response.json()["code"] == "name_taken"


def test_a_name_that_looks_like_a_seated_one_is_409_name_taken(rooms_server: Server) -> None:
    room = create_room(rooms_server, "Ann Lee")
    join_room(rooms_server, room["code"], "Bill")
    look_alikes = [
        "\u0410nn Lee",  # a Cyrillic capital A
        "\u0430nn \u0406ee",  # Cyrillic small a, capital I for the L
        "\u0391nn Lee",  # a Greek capital alpha
        "Ann L\u0435\u0435",  # Cyrillic small e twice
        "BiII",  # capital I for small l
        "B\u0131ll",  # a dotless i
        "\u1d00\u0274\u0274 \u029f\u1d07\u1d07",  # Latin small capitals
        "B\ua7aell",  # a capital small capital I, which folds to a small capital
    ]
    for name in look_alikes:
        response = post_join(rooms_server, room["code"], name)
        assert response.status_code == 409, name
        body = response.json()
        assert body["code"] == "name_taken"
        assert body["detail"] in (
            "someone here is already called Ann Lee",
            "someone here is already called Bill",
        )
    # Names that only resemble one another in part are different names.
    for name in ["Ann Lea", "Bil", "Anne Lee", "\u0411ill"]:
        assert post_join(rooms_server, room["code"], name).status_code == 201, name
    names = [player["name"] for player in get_room(rooms_server, room["code"]).json()["players"]]
    assert names == ["Ann Lee", "Bill", "Ann Lea", "Bil", "Anne Lee", "\u0411ill"]


def test_coptic_cherokee_and_lisu_letters_drawn_as_latin_ones_are_taken_for_them(
    rooms_server: Server,
) -> None:
    room = create_room(rooms_server, "Bob")
    join_room(rooms_server, room["code"], "Ann Lee")
    all_taken(
        rooms_server,
        room["code"],
        [
            "\ua4d0ob",  # a Lisu letter BA
            "\u13f4ob",  # a Cherokee capital YV
            "\uab9fo\u13f4",  # a Cherokee small SI, which folds to its capital
            "B\u2c9fb",  # a Coptic small O
            "\ua4ee\ua4e0\ua4e0 \ua4e1\ua4f0\ua4f0",  # Lisu A, NA, LA and E
            "\u13aann \u13deee",  # Cherokee GO and TLE
        ],
    )
    # Coptic capitals O and RO read as "OP", which nobody here is called.
    assert post_join(rooms_server, room["code"], "\u2c9e\u2ca2").status_code == 201


def test_a_letter_of_another_script_drawn_like_a_latin_one_is_taken_for_it(
    rooms_server: Server,
) -> None:
    """Beyond the scripts mapped case by case, any letter Unicode's confusables data draws like
    a Latin letter or digit, in place of that letter."""
    room = create_room(rooms_server, "Bob")
    join_room(rooms_server, room["code"], "Oscar Lee")
    join_room(rooms_server, room["code"], "Anna")
    join_room(rooms_server, room["code"], "Will")
    join_room(rooms_server, room["code"], "Bobo")
    all_taken(
        rooms_server,
        room["code"],
        [
            "B\u0d20b",  # a Malayalam letter TTHA
            "B\u0c66b",  # a Telugu digit zero
            "B\u17e0b",  # a Khmer digit zero
            "B\u03c3b",  # a Greek small sigma
            "B\u0647b",  # an Arabic letter HEH
            "\u2d54scar Lee",  # a Tifinagh letter YAR
            "Osc\u15c5r L\u0435e",  # a Canadian syllabics CARRIER GHO, a Cyrillic small ie
            "B0b\u0d20",  # a zero for an o, a Malayalam TTHA for the other
            "\u0251nn\u0251",  # a Latin alpha
            "\u0448ill",  # a Cyrillic small sha
        ],
    )
    # A Greek capital sigma is drawn like no Latin letter (its lunate form is, like a C).
    assert post_join(rooms_server, room["code"], "\u03a3scar Lee").status_code == 201


def test_names_of_one_script_whose_letters_resemble_each_other_are_two_names(
    rooms_server: Server,
) -> None:
    """Letters one script tells apart are not taken for one another, though each is drawn
    somewhat like the same Latin letter: a Hebrew vav and final nun, a Greek sigma and
    omicron, an Urdu heh goal and do-chashmi heh, an Armenian za and gim."""
    for first, second in (
        ("\u05dc\u05d9\u05d0\u05d5", "\u05dc\u05d9\u05d0\u05df"),
        ("\u03a3\u03af\u03b1", "\u039f\u03af\u03b1"),
        ("\u0628\u06c1\u0627\u0631", "\u0628\u06be\u0627\u0631"),
        ("\u0531\u0580\u0561\u0566", "\u0531\u0580\u0561\u0563"),
    ):
        room = create_room(rooms_server, first)
        assert post_join(rooms_server, room["code"], second).status_code == 201, second


def test_each_latin_small_capital_is_taken_for_its_letter(rooms_server: Server) -> None:
    room = create_room(rooms_server, "Abcdefghijklm")
    join_room(rooms_server, room["code"], "nopqrstuvwyz")
    all_taken(
        rooms_server,
        room["code"],
        [
            "\u1d00\u0299\u1d04\u1d05\u1d07\ua730\u0262\u029c\u026a\u1d0a\u1d0b\u029f\u1d0d",
            "\u0274\u1d0f\u1d18\ua7af\u0280\ua731\u1d1b\u1d1c\u1d20\u1d21\u028f\u1d22",
        ],
    )


def test_a_name_with_characters_drawn_as_nothing_is_the_name_without_them(
    rooms_server: Server,
) -> None:
    """Characters Unicode draws as nothing (Default_Ignorable_Code_Point) that pass as
    printable (marks, for Python) are left out when names are compared."""
    room = create_room(rooms_server, "Ann")
    join_room(rooms_server, room["code"], "Bob")
    hidden = [
        "Ann\u034f",  # a combining grapheme joiner
        "Ann\ufe0f",  # a variation selector
        "Ann\u180b",  # a Mongolian free variation selector
        "Ann\u17b5",  # a Khmer inherent vowel
        "A\u034fnn",  # within the name
        "Ann\U000e0100",  # a variation selector of the supplement
        "\ufe00B\u17b4ob\ufe0f\u034f",  # several
    ]
    for name in hidden:
        response = post_join(rooms_server, room["code"], name)
        assert response.status_code == 409, name
        body = response.json()
        assert body["code"] == "name_taken", name
        assert body["detail"] in (
            "someone here is already called Ann",
            "someone here is already called Bob",
        )
    names = [player["name"] for player in get_room(rooms_server, room["code"]).json()["players"]]
    assert names == ["Ann", "Bob"]


def test_an_emoji_with_its_variation_selector_makes_a_name(rooms_server: Server) -> None:
    room = create_room(rooms_server, "Ann")
    joined = post_join(rooms_server, room["code"], "\u2764\ufe0f Ann")  # a red heart emoji
    assert joined.status_code == 201, joined.text
    # Drawn as text or as emoji, the heart is the same heart.
    for name in ["\u2764 Ann", "\u2764\ufe0e ann"]:
        response = post_join(rooms_server, room["code"], name)
        assert response.status_code == 409, name
        assert response.json()["detail"] == "someone here is already called \u2764\ufe0f Ann"
    names = [player["name"] for player in get_room(rooms_server, room["code"]).json()["players"]]
    assert names == ["Ann", "\u2764\ufe0f Ann"]


def test_o_in_other_scripts_reads_as_o(rooms_server: Server) -> None:
    room = create_room(rooms_server, "Bob Olo")
    for name in ["B\u0585b Olo", "B\u1d0fb Olo", "Bob \u0555lo", "B\u0585b \u0555l\u1d0f"]:
        response = post_join(rooms_server, room["code"], name)
        assert response.status_code == 409, name
        assert response.json()["detail"] == "someone here is already called Bob Olo"


@pytest.mark.parametrize(
    "name",
    [
        *["\u200b", "\u2060\u00ad", "\u200e\u3164\u200f", "\U000e0041"],
        *["\u034f\u180b \u17b5", "\u0301 \u0302"],
    ],
    ids=[
        *["zero-width", "joiner-hyphen", "direction-marks", "tag"],
        *["spaced-out", "accents-apart"],
    ],
)
def test_a_name_of_nothing_drawn_but_spaces_is_told_to_show_something(
    rooms_server: Server, name: str
) -> None:
    room = create_room(rooms_server)
    response = post_join(rooms_server, room["code"], name)
    assert response.status_code == 422
    [detail] = response.json()["detail"]
    assert detail["loc"] == ["body", "name"]
    assert detail["msg"] == "a name needs at least one visible character"


async def test_join_after_the_start_is_409_already_started(rooms_server: Server) -> None:
    room = create_room(rooms_server, turn_seconds=0)
    join_room(rooms_server, room["code"], "Bob")
    host = Client(rooms_server, room["code"], room["token"])
    await host.connect()
    await host.act("start")
    response = post_join(rooms_server, room["code"], "Cid")
    assert response.status_code == 409
    assert response.json()["code"] == "already_started"
    assert get_room(rooms_server, room["code"]).json()["status"] == "playing"
    await host.close()


async def test_room_info_shows_presence_host_and_spectators(rooms_server: Server) -> None:
    room = create_room(rooms_server)
    join_room(rooms_server, room["code"], "Bob")
    bob_absent = get_room(rooms_server, room["code"]).json()
    assert [p["connected"] for p in bob_absent["players"]] == [False, False]
    host = Client(rooms_server, room["code"], room["token"])
    watcher = Client(rooms_server, room["code"])
    await host.connect()
    await watcher.connect()
    info = get_room(rooms_server, room["code"]).json()
    assert info["players"] == [
        {"seat": 0, "name": "Ann", "connected": True, "host": True, "bot": None},
        {"seat": 1, "name": "Bob", "connected": False, "host": False, "bot": None},
    ]
    assert info["spectators"] == 1
    await watcher.close()
    await host.close()


# Limits per address (a dedicated server with small limits).


@pytest.fixture(scope="module")
def limited_server() -> Iterator[Server]:
    with running_server(
        **{**FAST, "ROOMS_PER_ADDRESS_PER_MINUTE": "3", "ROOM_MISSES_PER_MINUTE": "3"}
    ) as server:
        yield server


def retry_after(response: httpx.Response) -> int:
    """The Retry-After of a 429: the seconds left of the minute its limit counts."""
    assert response.status_code == 429
    seconds = int(response.headers["retry-after"])
    assert 1 <= seconds <= 60
    return seconds


def test_too_many_rooms_from_one_address_get_429(limited_server: Server) -> None:
    answers = [post_room(limited_server, {"name": "Ann"}) for _ in range(4)]
    assert [answer.status_code for answer in answers] == [201, 201, 201, 429]
    assert all("retry-after" not in answer.headers for answer in answers[:3])
    retry_after(answers[3])


def test_a_creation_refused_is_not_counted_against_the_address() -> None:
    """Only rooms made count: a name refused, or a server full, took one of the address's
    rooms a minute, and once they were spent the address was answered 429 though no room
    had been made."""
    limit = {**FAST, "ROOMS_PER_ADDRESS_PER_MINUTE": "2"}
    with running_server(**limit) as server:
        refused = [post_room(server, {"name": name}) for name in ("   ", "..", "   ")]
        assert [answer.status_code for answer in refused] == [422, 422, 422]
        made = [post_room(server, {"name": name}) for name in ("Ann", "Bob", "Cid")]
        assert [answer.status_code for answer in made] == [201, 201, 429]
    with running_server(**limit, MAX_ROOMS="1") as server:
        made = [post_room(server, {"name": name}) for name in ("Ann", "Bob", "Cid")]
        assert [answer.status_code for answer in made] == [201, 503, 503]


def test_too_many_unknown_codes_from_one_address_get_429(limited_server: Server) -> None:
    answers = [get_room(limited_server, f"2345-678{n}") for n in range(2, 6)]
    assert [answer.status_code for answer in answers] == [404, 404, 404, 429]
    retry_after(answers[3])


def test_a_full_server_refuses_a_new_room_and_says_when_to_ask_again() -> None:
    with running_server(**{**FAST, "MAX_ROOMS": "1"}) as server:
        assert post_room(server, {"name": "Ann"}).status_code == 201
        refused = post_room(server, {"name": "Bob"})
        assert refused.status_code == 503, refused.text
        assert refused.json()["code"] == "server_full"
        assert refused.headers["retry-after"] == "30"


def test_dots_with_more_than_a_path_step_make_a_name(rooms_server: Server) -> None:
    room = create_room(rooms_server, "...")
    joined = post_join(rooms_server, room["code"], ". .")
    assert joined.status_code == 201, joined.text
    names = [player["name"] for player in get_room(rooms_server, room["code"]).json()["players"]]
    assert names == ["...", ". ."]
