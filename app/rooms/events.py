"""A room's events as typed values, and the one codec between them and the journal's dicts.

Each event has a schema version. The journal keeps the dicts rooms have always written, without
a version field: a dict without one is version 1. A match's start that names a first dealer other
than seat 0 is version 2. Departures (left, kicked, bot removed) share
one journal form, as do a first match and a rematch: they change the state alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from app.engine.actions import Action, action_from_dict, action_to_dict
from app.rooms.settings import RoomSettings

JournalEvent = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Joined:
    """A person took the next seat."""

    version: ClassVar[int] = 1
    name: str
    token_hash: str
    at: int
    key_hash: str = ""  # the hash of the player's key; "" without one (and in older journals)


@dataclass(frozen=True, slots=True)
class Rejoined:
    """A person took their seat again with a new token: a join with the seat's name and player
    key, whose first answer (and token) was lost. The old token holds no seat any more."""

    version: ClassVar[int] = 1
    seat: int
    token_hash: str


@dataclass(frozen=True, slots=True)
class BotAdded:
    """The host seated a computer player of ``level``."""

    version: ClassVar[int] = 1
    name: str
    level: str


@dataclass(frozen=True, slots=True)
class Left:
    """A player gave up their seat; later seats move up one."""

    version: ClassVar[int] = 1
    seat: int


@dataclass(frozen=True, slots=True)
class Kicked(Left):
    """The host removed a player; later seats move up one."""


@dataclass(frozen=True, slots=True)
class BotRemoved(Left):
    """The host removed a computer player; later seats move up one."""


@dataclass(frozen=True, slots=True)
class HostPassed:
    """Another seat became the host."""

    version: ClassVar[int] = 1
    seat: int


@dataclass(frozen=True, slots=True)
class SettingsChanged:
    """The host changed the settings to ``settings``."""

    version: ClassVar[int] = 1
    settings: RoomSettings


@dataclass(frozen=True, slots=True)
class MatchStarted:
    """A match began (the first, or a rematch) and its first round was dealt by ``dealer``."""

    version: ClassVar[int] = 1
    match_id: str
    seed: str
    at: int
    dealer: int = 0  # a rematch's first dealer; 0 in a first match (and in older journals)


@dataclass(frozen=True, slots=True)
class RematchStarted(MatchStarted):
    """The host began another match with the same seats; series totals carry on."""


@dataclass(frozen=True, slots=True)
class Played:
    """A turn action, by its player or (``auto``) by a timer or a bot playing for them."""

    version: ClassVar[int] = 1
    action: Action
    auto: bool
    at: int


@dataclass(frozen=True, slots=True)
class MarkedReady:
    """A player is ready for the next round."""

    version: ClassVar[int] = 1
    seat: int


@dataclass(frozen=True, slots=True)
class Dealt:
    """The next round of the match was dealt."""

    version: ClassVar[int] = 1
    at: int


@dataclass(frozen=True, slots=True)
class Chatted:
    """A chat line: ``text``, or one of the quick ``reaction``s, from a seat (None: a
    spectator). Kept with the live room only, never in the match history."""

    version: ClassVar[int] = 1
    seat: int | None
    text: str | None
    reaction: str | None
    at: int


@dataclass(frozen=True, slots=True)
class Muted:
    """The host muted (or, ``muted`` false, unmuted) a seat's chat."""

    version: ClassVar[int] = 1
    seat: int
    muted: bool


@dataclass(frozen=True, slots=True)
class SpectatorChat:
    """The host let spectators chat, or stopped them."""

    version: ClassVar[int] = 1
    allowed: bool


RoomEvent = (
    Joined
    | Rejoined
    | BotAdded
    | Left
    | Kicked
    | BotRemoved
    | HostPassed
    | SettingsChanged
    | MatchStarted
    | RematchStarted
    | Played
    | MarkedReady
    | Dealt
    | Chatted
    | Muted
    | SpectatorChat
)


def encode(event: RoomEvent) -> JournalEvent:
    """The journal's dict for ``event``."""
    match event:
        case Played(action=action, auto=auto, at=at):
            return {"type": "play", "action": action_to_dict(action), "auto": auto, "at": at}
        case Joined(name=name, token_hash=token_hash, at=at, key_hash=key_hash):
            joined = {"type": "join", "name": name, "token_hash": token_hash, "at": at}
            if key_hash:
                joined["key_hash"] = key_hash
            return joined
        case Rejoined(seat=seat, token_hash=token_hash):
            return {"type": "rejoin", "seat": seat, "token_hash": token_hash}
        case BotAdded(name=name, level=level):
            return {"type": "join", "name": name, "token_hash": "", "bot": level}
        case Left(seat=seat):  # and Kicked, BotRemoved
            return {"type": "leave", "seat": seat}
        case HostPassed(seat=seat):
            return {"type": "host", "seat": seat}
        case SettingsChanged(settings=settings):
            return {"type": "settings", "settings": settings.model_dump()}
        case MatchStarted(match_id=match_id, seed=seed, at=at, dealer=dealer):  # and Rematch…
            started = {"type": "start", "match_id": match_id, "seed": seed, "at": at}
            if dealer:
                # Version 2: an older server, which would deal from seat 0, refuses it instead.
                started.update(version=2, dealer=dealer)
            return started
        case MarkedReady(seat=seat):
            return {"type": "ready", "seat": seat}
        case Dealt(at=at):
            return {"type": "deal", "at": at}
        case Chatted(seat=seat, text=text, reaction=reaction, at=at):
            said = {"text": text} if reaction is None else {"reaction": reaction}
            return {"type": "chat", "seat": seat, **said, "at": at}
        case Muted(seat=seat, muted=muted):
            return {"type": "mute", "seat": seat, "muted": muted}
        case SpectatorChat(allowed=allowed):
            return {"type": "spectator_chat", "allowed": allowed}


def decode(raw: JournalEvent) -> RoomEvent:
    """The event a journal dict holds; raises ValueError for a kind or version not known."""
    version = raw.get("version", 1)
    if version != 1 and not (version == 2 and raw.get("type") == "start"):
        raise ValueError(f"room event version {version!r} is not known")
    match raw["type"]:
        case "play":
            return Played(action_from_dict(raw["action"]), raw["auto"], raw["at"])
        case "join" if raw.get("bot") is not None:
            return BotAdded(raw["name"], raw["bot"])
        case "join":
            return Joined(raw["name"], raw["token_hash"], raw["at"], raw.get("key_hash", ""))
        case "rejoin":
            return Rejoined(raw["seat"], raw["token_hash"])
        case "leave":
            return Left(raw["seat"])
        case "host":
            return HostPassed(raw["seat"])
        case "settings":
            return SettingsChanged(RoomSettings.model_validate(raw["settings"]))
        case "start":
            return MatchStarted(raw["match_id"], raw["seed"], raw["at"], raw.get("dealer", 0))
        case "ready":
            return MarkedReady(raw["seat"])
        case "deal":
            return Dealt(raw["at"])
        case "chat":
            return Chatted(raw["seat"], raw.get("text"), raw.get("reaction"), raw["at"])
        case "mute":
            return Muted(raw["seat"], raw["muted"])
        case "spectator_chat":
            return SpectatorChat(raw["allowed"])
        case kind:
            raise ValueError(f"unknown room event {kind!r}")
