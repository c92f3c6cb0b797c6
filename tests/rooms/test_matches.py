"""Whole matches for every variant and table size, and what their frames reveal.

Each match is played once (module fixture, its own event loop) in this process by random legal
moves chosen from each player's own view, with a spectator watching; the tests then check the
outcome and every frame that every connection received. test_smoke plays one over sockets.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson
import pytest

from app.engine.cards import CARD_IDS, parse_card
from app.engine.fairdeal import shuffled_deck
from app.engine.scoring import score_cards
from tests.patching import apply_patch
from tests.rooms.client import State, Table, card_ids_in, clone, public
from tests.rooms.local import Host, LocalClient, open_table

ROUNDS = 2
DECK = 125

# (multi_pickup, ten_card, players)
GAMES = [
    *((False, False, n) for n in range(2, 7)),
    *((True, False, n) for n in range(2, 7)),
    *((False, True, n) for n in range(2, 5)),
    *((True, True, n) for n in range(2, 5)),
]


def game_id(game: tuple[bool, bool, int]) -> str:
    multi, ten, players = game
    variant = "+".join(name for name, on in (("multi", multi), ("ten", ten)) if on) or "standard"
    return f"{variant}-{players}p"


@dataclass
class Played:
    """A finished match and everything its connections received."""

    players: int
    multi_pickup: bool
    ten_card: bool
    table: Table[LocalClient]
    finals: list[State | None]
    actions: int
    status: str
    scored: list[tuple[Any, Any]]

    @property
    def final(self) -> State:
        """The host's last view, before anyone left."""
        assert self.finals[0] is not None
        return self.finals[0]

    @property
    def hand_size(self) -> int:
        return 10 if self.ten_card else 5


async def play_match(server: Host, multi: bool, ten: bool, players: int, seed: int) -> Played:
    table = await open_table(
        server,
        players,
        spectators=1,
        rounds=ROUNDS,
        turn_seconds=0,
        multi_pickup=multi,
        ten_card=ten,
    )
    rng = random.Random(seed)
    # Two players taking several cards a turn never knock: their rounds exhaust the piles.
    knock_chance = 0.0 if players == 2 and multi else 0.04
    await table.host.act("start")
    last: LocalClient = table.host
    actions = 0
    while True:
        await table.settle(last)
        state = last.state
        assert state is not None
        if state["status"] == "finished":
            break
        if state["status"] == "round_over":
            for client in table.players:
                await client.act("ready")
                last = client
            continue
        assert state["status"] == "playing", state["status"]
        mover = table.mover()
        await mover.play(mover.random_move(rng, knock_chance=knock_chance))
        await mover.resync()
        actions += 1
        last = mover
        if actions % 15 == 0:
            for client in table.everyone:
                await client.resync()
    for client in table.everyone:
        await client.resync()
    status = server.rooms[table.code].state.status.value
    finals = [clone(client.state) for client in table.everyone]
    scored = []
    for state in finals[:players]:
        assert state is not None
        # What the score endpoint answers for these cards (test_smoke asks it over HTTP).
        answer = score_cards([parse_card(card) for card in state["you"]["hand"]]).as_dict()
        scored.append((state["you"]["evaluation"], answer))
    await table.close()
    return Played(players, multi, ten, table, finals, actions, status, scored)


@pytest.fixture(scope="module", params=GAMES, ids=game_id)
def played(request: pytest.FixtureRequest) -> Played:
    multi, ten, players = request.param
    seed = GAMES.index(request.param)
    return asyncio.run(play_match(Host(), multi, ten, players, seed))


# The outcome.


def test_every_patched_state_equals_the_fresh_state(played: Played) -> None:
    checked = 0
    for client in played.table.everyone:
        for before, fresh in client.resyncs:
            assert before == fresh
            checked += 1
    assert checked >= played.actions


def test_match_ends_finished_with_one_result_per_round(played: Played) -> None:
    final = played.final
    assert final["status"] == "finished"
    assert [result["number"] for result in final["results"]] == list(range(1, ROUNDS + 1))
    assert final["round"]["number"] == ROUNDS
    assert final["round"]["turn"] is None
    assert final["round"]["ending"] in ("knock", "exhausted")
    assert played.status == "finished"


def test_final_totals_are_the_sums_of_round_points(played: Played) -> None:
    final = played.final
    running = [0] * played.players
    for result in final["results"]:
        assert len(result["points"]) == played.players
        running = [total + points for total, points in zip(running, result["points"], strict=True)]
        assert result["totals"] == running
    assert [player["total"] for player in final["players"]] == running
    assert [player["series"] for player in final["players"]] == running


def test_places_share_ties(played: Played) -> None:
    totals = [player["total"] for player in played.final["players"]]
    for player in played.final["players"]:
        assert player["place"] == 1 + sum(other > player["total"] for other in totals)


def test_result_hands_score_as_the_rules_say(played: Played) -> None:
    for result in played.final["results"]:
        assert [hand["seat"] for hand in result["hands"]] == list(range(played.players))
        seen: set[str] = set()
        for hand, points in zip(result["hands"], result["points"], strict=True):
            assert len(hand["cards"]) == played.hand_size
            seen.update(hand["cards"])
            score = score_cards([parse_card(card) for card in hand["cards"]])
            assert hand["points"] == points == score.points
        assert len(seen) == played.players * played.hand_size, "a card in two hands"
        if result["ending"] == "knock":
            assert result["knocker"] is not None
        else:
            assert result["ending"] == "exhausted"
        assert result["dealer"] == (result["number"] - 1) % played.players


def test_evaluation_is_what_the_score_endpoint_reports(played: Played) -> None:
    for evaluation, answer in played.scored:
        assert evaluation is not None
        assert evaluation == answer


def test_every_player_saw_the_same_match(played: Played) -> None:
    for state in played.finals:
        assert state is not None
        assert public(state) == public(played.final)
    seats = [client.seat for client in played.table.players]
    assert seats == list(range(played.players))


# What the frames reveal.


@dataclass
class Seen:
    """What one connection was shown of one round."""

    seat: int | None
    commitments: set[str]
    dealer: int | None = None
    first_hand: list[str] | None = None
    first_tops: list[str | None] | None = None
    first_turn: int | None = None


def walk(client: LocalClient) -> Iterator[tuple[str, dict[str, Any], State]]:
    """Every frame the client received, with its state right after applying it."""
    state: State | None = None
    for text in client.frames:
        frame = orjson.loads(text)
        if frame["type"] == "state":
            state = frame["state"]
        elif frame["type"] == "patch":
            assert state is not None
            state = apply_patch(state, frame["ops"])
        assert state is not None
        yield text, frame, state


def visible_cards(state: State) -> set[str]:
    """Cards the recipient may know of: its hand, the face-up tops, the round's moves (each
    card in them was face up as it moved: see the test below) and finished rounds."""
    allowed = set(state["you"]["hand"])
    current = state["round"]
    if current is not None:
        allowed.update(pile["top"] for pile in current["piles"] if pile["top"])
        if current["discard"]["top"]:
            allowed.add(current["discard"]["top"])
        allowed.update(card for move in current["log"] for card in move.get("cards", []))
    allowed |= card_ids_in(json.dumps(state["results"]))
    return allowed


def results_only_hold_finished_rounds(state: State) -> None:
    current = state["round"]
    for result in state["results"]:
        assert current is not None
        assert result["number"] < current["number"] or (
            result["number"] == current["number"] and current["ending"] is not None
        ), f"result {result['number']} shown while round {current['number']} is played"


def seed_paths(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
    """Where the key "seed" occurs in ``value`` (found at ``path``)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "seed":
                yield (*path, key)
            yield from seed_paths(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from seed_paths(inner, (*path, index))


def frame_seed_paths(frame: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Where the key "seed" occurs in a frame, as paths in the recipient's state."""
    if frame["type"] == "state":
        return list(seed_paths(frame["state"], ()))
    if frame["type"] == "patch":
        found = []
        for op in frame["ops"]:
            parts = tuple(
                int(p) if p.isdigit() else p.replace("~1", "/").replace("~0", "~")
                for p in op["path"].split("/")[1:]
            )
            found += list(seed_paths(op.get("value"), parts))
        return found
    return list(seed_paths(frame, ("<error>",)))


def is_result_seed(path: tuple[Any, ...]) -> bool:
    return len(path) == 3 and path[0] == "results" and isinstance(path[1], int)


def test_no_frame_shows_a_card_its_recipient_may_not_see(played: Played) -> None:
    for client in played.table.everyone:
        for text, _frame, state in walk(client):
            results_only_hold_finished_rounds(state)
            hidden = card_ids_in(text) - visible_cards(state)
            assert not hidden, f"seat {state['you']['seat']} was sent {hidden}: {text:.300}"


def test_the_move_log_shows_only_cards_that_were_face_up(played: Played) -> None:
    """Each move added to the log took the face-up tops of its piles, or put its cards face up
    on the discard pile; the log only grows during a round."""
    for client in played.table.everyone:
        before: State | None = None
        for _text, _frame, state in walk(client):
            previous, before = before, clone(state)
            if previous is None or not previous["round"] or state["round"] is None:
                continue
            was, now = previous["round"], state["round"]
            if (was["number"], previous["match_id"]) != (now["number"], state["match_id"]):
                continue
            assert now["log"][: len(was["log"])] == was["log"]
            tops = [pile["top"] for pile in [*was["piles"], was["discard"]]]
            discard = was["discard"]["count"]
            for move in now["log"][len(was["log"]) :]:
                if move["type"] == "take":
                    assert move["cards"] == [tops[pile] for pile in move["piles"]]
                    if 4 in move["piles"]:
                        discard -= 1
                        tops[4] = now["discard"]["top"]  # the card beneath, not known before
                elif move["type"] == "discard":
                    discard += len(move["cards"])
                    tops[4] = move["cards"][-1]
            assert (tops[4], discard) == (now["discard"]["top"], now["discard"]["count"])


def test_seeds_appear_only_in_results(played: Played) -> None:
    for client in played.table.everyone:
        for text, frame, _state in walk(client):
            paths = frame_seed_paths(frame)
            assert all(is_result_seed(path) for path in paths), paths
            assert text.count('"seed"') == len(paths)


def rounds_seen(client: LocalClient, dealt: int) -> dict[tuple[str, int], Seen]:
    """What the client saw of each round while it was played."""
    seen: dict[tuple[str, int], Seen] = {}
    for _text, _frame, state in walk(client):
        current = state["round"]
        if current is None or current["ending"] is not None:
            continue
        key = (state["match_id"], current["number"])
        entry = seen.setdefault(key, Seen(state["you"]["seat"], set()))
        entry.commitments.add(current["commitment"])
        untouched = current["discard"]["count"] == 0 and (
            sum(pile["count"] for pile in current["piles"]) == DECK - dealt
        )
        if untouched and entry.first_tops is None:
            entry.dealer = current["dealer"]
            entry.first_turn = current["turn"]["seat"]
            entry.first_hand = list(state["you"]["hand"])
            entry.first_tops = [pile["top"] for pile in current["piles"]]
    return seen


def test_results_reveal_the_seed_that_was_committed(played: Played) -> None:
    dealt = played.players * played.hand_size
    match_id = played.final["match_id"]
    for client in played.table.everyone:
        seen = rounds_seen(client, dealt)
        for result in played.final["results"]:
            entry = seen[(match_id, result["number"])]
            assert len(entry.commitments) == 1, "the commitment changed during the round"
            digest = hashlib.sha256(result["seed"].encode("ascii")).hexdigest()
            assert entry.commitments == {digest} == {result["commitment"]}


def expected_deal(seed: str, players: int, dealer: int, size: int) -> tuple[list[list[str]], list]:
    """Hands and pile tops recomputed by docs/protocol.md's recipe, from the engine's deck."""
    ids = [
        f"{n}-{s}-{c}"
        for n in "12345"
        for s in ("circle", "crescent", "triangle", "square", "star")
        for c in ("violet", "cyan", "yellow", "orange", "red")
    ]
    deck = sorted(ids, key=lambda card: hashlib.sha256(f"{seed}:{card}".encode()).digest())
    assert deck == [CARD_IDS[card] for card in shuffled_deck(seed)]
    hands: list[list[str]] = [[] for _ in range(players)]
    for index in range(players * size):
        hands[(dealer + 1 + index) % players].append(deck[index])
    rest = deck[players * size :]
    base, extra = divmod(len(rest), 4)
    tops, start = [], 0
    for pile in range(4):
        tops.append(rest[start])
        start += base + (pile < extra)
    return hands, tops


def test_deal_recomputed_from_the_seed_matches_what_was_shown(played: Played) -> None:
    dealt = played.players * played.hand_size
    match_id = played.final["match_id"]
    for client in played.table.everyone:
        seen = rounds_seen(client, dealt)
        for result in played.final["results"]:
            entry = seen[(match_id, result["number"])]
            assert entry.first_tops is not None, "the untouched deal was never shown"
            assert entry.dealer == result["dealer"]
            assert entry.first_turn == (result["dealer"] + 1) % played.players
            hands, tops = expected_deal(
                result["seed"], played.players, result["dealer"], played.hand_size
            )
            assert entry.first_tops == tops
            if entry.seat is None:
                assert entry.first_hand == []
            else:
                assert entry.first_hand == hands[entry.seat]


def test_results_reveal_the_hands_the_players_held(played: Played) -> None:
    for client in played.table.players:
        revealed = 0
        for _text, _frame, state in walk(client):
            results = state["results"]
            if len(results) > revealed:
                (result,) = results[revealed:]
                seat = state["you"]["seat"]
                assert result["hands"][seat]["cards"] == state["you"]["hand"]
                assert state["round"]["number"] == result["number"]
                revealed = len(results)
        assert revealed == ROUNDS


def test_no_frame_holds_a_token(played: Played) -> None:
    for client in played.table.everyone:
        for text in client.frames:
            for token in played.table.tokens:
                assert token not in text


def test_spectator_never_holds_cards(played: Played) -> None:
    (spectator,) = played.table.spectators
    frames = 0
    for _text, _frame, state in walk(spectator):
        assert state["you"]["seat"] is None
        assert state["you"]["hand"] == []
        assert state["you"]["evaluation"] is None
        frames += 1
    assert frames > played.actions
