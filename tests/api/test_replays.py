"""Replays and the leaderboard of people, from matches played to the end over a real server (with
the server's own bots), on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import jsonschema_rs
import pytest

from app.engine.cards import CARD_IDS, parse_card
from app.engine.variant import Variant
from tests import fetch
from tests.databases import BACKENDS, fresh_database
from tests.replays import new_key, play_match, replayed_hands
from tests.server import FAST, Server, running_server

VARIANTS = {
    "standard": {},
    "multi": {"multi_pickup": True},
    "ten": {"ten_card": True},
    "ten-multi": {"ten_card": True, "multi_pickup": True},
}
ANN_1, ANN_2, BOB = new_key(1), new_key(2), new_key(3)


@dataclass
class Played:
    server: Server
    by_variant: dict[str, str] = field(default_factory=dict)
    anns: list[str] = field(default_factory=list)  # the matches of Ann 1, then Ann 2


async def play_all(server: Server) -> Played:
    played = Played(server)
    for index, (name, flags) in enumerate(VARIANTS.items()):
        settings = {"rounds": 2, "turn_seconds": 0, **flags}
        played.by_variant[name] = await play_match(
            server, ["Ann", "Bob"], settings, bots=["easy"], keys=[ANN_1, BOB], seed=index
        )
    # Another person called Ann, with her own key, against the same Bob and a bot.
    settings = {"rounds": 1, "turn_seconds": 0}
    played.anns = [
        played.by_variant["standard"],
        await play_match(server, ["Bob", "ann"], settings, ["normal"], keys=[BOB, ANN_2]),
    ]
    return played


@pytest.fixture(scope="module", params=BACKENDS)
def played(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Played]:
    """A server (SQLite, then PostgreSQL) where matches of every variant were played."""
    with (
        fresh_database(request.param, tmp_path_factory.mktemp("replays")) as url,
        running_server(url, **FAST, BOT_DELAY_SECONDS="0", STANDIN_SECONDS="600") as server,
    ):
        yield asyncio.run(play_all(server))


def deck_order(seed: str) -> list[str]:
    """The deck order ``seed`` gives by the recipe in docs/rules.md, top card first."""
    prefix = seed.encode() + b":"
    return sorted(CARD_IDS, key=lambda card: hashlib.sha256(prefix + card.encode()).digest())


def get(server: Server, path: str, **params: Any) -> httpx.Response:
    return fetch.get(f"{server.url}{path}", params=params)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_each_round_replays_move_by_move_to_the_stored_hands(played: Played, variant: str) -> None:
    match = get(played.server, f"/api/matches/{played.by_variant[variant]}").json()
    rules = Variant.from_flags(match["settings"])
    assert rules.name == variant
    assert [seat["bot"] for seat in match["players"]] == [None, None, "easy"]
    assert len(match["rounds"]) == 2
    for stored in match["rounds"]:
        moves = stored["moves"]
        kinds = {move["type"] for move in moves}
        assert {"take", "discard"} <= kinds
        assert {move["seat"] for move in moves} == {0, 1, 2}  # the bot's moves are there too
        hands = replayed_hands(stored["seed"], stored["dealer"], 3, rules.hand_size, moves)
        assert hands == [hand["cards"] for hand in stored["hands"]]
        for hand, points in zip(hands, (hand["points"] for hand in stored["hands"]), strict=True):
            assert rules.points([parse_card(card) for card in hand]) == points
        if stored["ending"] == "knock":
            assert [move["seat"] for move in moves if move["type"] == "knock"] == [
                stored["knocker"]
            ]
        one = get(played.server, f"/api/matches/{match['id']}/rounds/{stored['number']}/moves")
        assert one.status_code == 200
        assert one.json() == {
            "match_id": match["id"],
            "number": stored["number"],
            "players": 3,
            "hand_size": rules.hand_size,
            "dealer": stored["dealer"],
            "seed": stored["seed"],
            "commitment": stored["commitment"],
            "deck": deck_order(stored["seed"]),
            "moves": moves,
            "hands": stored["hands"],
        }


def test_a_take_of_several_cards_names_each_pile_and_card(played: Played) -> None:
    match = get(played.server, f"/api/matches/{played.by_variant['multi']}").json()
    takes = [m for r in match["rounds"] for m in r["moves"] if m["type"] == "take"]
    assert any(len(take["piles"]) > 1 for take in takes)
    assert all(len(take["piles"]) == len(take["cards"]) for take in takes)


def test_the_leaderboard_ranks_people_apart_and_never_a_bot(played: Played) -> None:
    board = get(played.server, "/api/leaderboard", limit=100).json()["players"]
    assert not any("bot" in line["name"].casefold() for line in board)
    anns = [line for line in board if line["name"].casefold() == "ann"]
    assert len(anns) == 2
    assert {line["matches"] for line in anns} == {4, 1}
    assert len({line["tag"] for line in anns}) == 2
    assert all(line["tag"] and len(line["tag"]) == 12 for line in anns)
    bobs = [line for line in board if line["name"] == "Bob"]
    assert [line["matches"] for line in bobs] == [5]
    # Neither the key nor its hash is given out.
    text = get(played.server, "/api/leaderboard").text
    for key in (ANN_1, ANN_2, BOB):
        assert key not in text
        assert hashlib.sha256(key.encode()).hexdigest() not in text


def test_a_player_page_is_one_person_of_the_name(played: Played) -> None:
    board = get(played.server, "/api/leaderboard", limit=100).json()["players"]
    tags = {line["matches"]: line["tag"] for line in board if line["name"].casefold() == "ann"}
    first = get(played.server, "/api/players/Ann", tag=tags[4]).json()
    assert (first["name"], first["tag"], first["matches"]) == ("Ann", tags[4], 4)
    assert first["others"] == [{"tag": tags[1], "matches": 1}]
    second = get(played.server, "/api/players/ANN", tag=tags[1]).json()
    assert (second["name"], second["matches"], second["rounds"]) == ("ann", 1, 1)
    # Without a tag: the one with the most matches.
    assert get(played.server, "/api/players/ann").json()["tag"] == tags[4]
    listed = get(played.server, "/api/matches", player="Ann", tag=tags[1]).json()["matches"]
    assert [match["id"] for match in listed] == [played.anns[1]]
    everyone = get(played.server, "/api/matches", player="Ann").json()["matches"]
    assert len(everyone) == 5
    match = get(played.server, f"/api/matches/{played.anns[1]}").json()
    assert [seat["tag"] for seat in match["players"]] == [
        get(played.server, "/api/players/Bob").json()["tag"],
        tags[1],
        None,
    ]
    assert get(played.server, "/api/players/Easy bot").status_code == 404


def test_bad_requests_are_refused_plainly(played: Played) -> None:
    server = played.server
    match_id = played.by_variant["standard"]
    unknown = get(server, f"/api/matches/{'0' * 32}/rounds/1/moves")
    assert unknown.status_code == 404
    assert unknown.json()["code"] == "no_match"
    beyond = get(server, f"/api/matches/{match_id}/rounds/3/moves")
    assert beyond.status_code == 404
    assert beyond.json() == {
        "code": "no_round",
        "detail": f"match {match_id} has no finished round 3 (rounds 1 to 2 are finished)",
    }
    for number in ("0", "51", "two"):
        bad = get(server, f"/api/matches/{match_id}/rounds/{number}/moves")
        assert bad.status_code == 422, number
        assert bad.json()["detail"][0]["loc"] == ["path", "number"]
    bad_tag = get(server, "/api/players/Ann", tag="XYZ")
    assert bad_tag.status_code == 422
    assert get(server, "/api/players/Ann", tag="0" * 12).status_code == 404
    assert get(server, "/api/matches", player="Ann", tag="0" * 12).json()["matches"] == []
    for key in ("short", "A" * 64, "g" * 64, "0" * 65, 7):
        body = {"name": "Zed", "key": key}
        refused = fetch.post(f"{server.url}/api/rooms", json=body)
        assert refused.status_code == 422, key
        assert refused.json()["detail"][0]["loc"] == ["body", "key"]
    board = get(server, "/api/leaderboard", limit=100).json()["players"]
    assert not any(line["name"] == "Zed" for line in board)


def test_the_answers_keep_to_the_openapi_schema(played: Played) -> None:
    server = played.server
    spec = get(server, "/openapi.json").json()
    match_id = played.by_variant["ten-multi"]
    tag = get(server, "/api/players/Ann").json()["tag"]
    answers = {
        ("/api/matches/{match_id}/rounds/{number}/moves", "200"): (
            f"/api/matches/{match_id}/rounds/2/moves",
            {},
        ),
        ("/api/matches/{match_id}/rounds/{number}/moves", "404"): (
            f"/api/matches/{match_id}/rounds/9/moves",
            {},
        ),
        ("/api/matches/{match_id}", "200"): (f"/api/matches/{match_id}", {}),
        ("/api/leaderboard", "200"): ("/api/leaderboard", {}),
        ("/api/players/{name}", "200"): ("/api/players/Ann", {"tag": tag}),
        ("/api/matches", "200"): ("/api/matches", {"player": "Ann", "tag": tag}),
    }
    for (route, status), (path, params) in answers.items():
        response = get(server, path, **params)
        assert str(response.status_code) == status, path
        content = spec["paths"][route]["get"]["responses"][status]["content"]
        schema = {**content["application/json"]["schema"], "components": spec["components"]}
        jsonschema_rs.validator_for(schema).validate(response.json())
    moves = spec["components"]["schemas"]["MoveOut"]
    assert moves["properties"]["type"]["enum"] == ["take", "discard", "knock"]


@pytest.mark.parametrize("flags", [{}, {"ten_card": True, "multi_pickup": True}])
def test_a_stand_in_s_moves_replay_too_and_the_seat_stays_a_person_s(
    tmp_path: Path, flags: dict[str, bool]
) -> None:
    settings = {"BOT_DELAY_SECONDS": "0", "STANDIN_SECONDS": "0.05"}
    with running_server(f"sqlite+aiosqlite:///{tmp_path}/s.db", **FAST, **settings) as server:
        rules = {"rounds": 2, "turn_seconds": 0, **flags}
        keys: list[str | None] = [new_key(7), new_key(8)]
        # Cy knocks on her first turn of each round. In the second round she plays first (the
        # dealer moves on a seat), so the stand-in's last turn there is a take and a discard,
        # whatever its own choices: nobody knocks after a knock.
        played = play_match(server, ["Cy", "Dee"], rules, keys=keys, away=[1], knock_chance=1.0)
        match = get(server, f"/api/matches/{asyncio.run(played)}").json()
        assert [seat["bot"] for seat in match["players"]] == [None, None]
        first, second = match["rounds"]
        assert [move["type"] for move in second["moves"]] == ["knock", "take", "discard"]
        assert [move["seat"] for move in second["moves"]] == [0, 1, 1]
        size = Variant.from_flags(flags).hand_size
        for stored in (first, second):
            hands = replayed_hands(stored["seed"], stored["dealer"], 2, size, stored["moves"])
            assert hands == [hand["cards"] for hand in stored["hands"]]
        board = get(server, "/api/leaderboard").json()["players"]
        assert sorted(line["name"] for line in board) == ["Cy", "Dee"]
