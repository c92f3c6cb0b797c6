"""What the host chooses for a room: rounds, variations, the turn timer and the table size."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from app.engine.errors import IllegalAction
from app.engine.match import MAX_ROUNDS, MatchRules
from app.engine.variant import MIN_PLAYERS, Variant

MAX_TURN_SECONDS = 3600


class RoomSettings(BaseModel):
    """A room's settings; ``max_players`` defaults to the most the variant allows."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    rounds: int = Field(5, ge=1, le=MAX_ROUNDS, description="Rounds in a match.")
    multi_pickup: bool = Field(False, description="Variation 1: take 1 to 5 cards a turn.")
    ten_card: bool = Field(False, description="Variation 2: ten cards, two hands (2-4 players).")
    turn_seconds: int = Field(
        60, ge=0, le=MAX_TURN_SECONDS, description="Seconds a turn may take; 0 turns the timer off."
    )
    max_players: int = Field(6, ge=MIN_PLAYERS, le=6, description="Seats at the table.")
    hints: bool = Field(True, description="Whether players may ask for a suggested move.")

    @model_validator(mode="before")
    @classmethod
    def _default_table_size(cls, data: Any) -> Any:
        if isinstance(data, dict) and "max_players" not in data and data.get("ten_card") is True:
            return {**data, "max_players": Variant(ten_card=True).max_players}
        return data

    @field_validator("max_players")
    @classmethod
    def _check_table_size(cls, value: int, info: ValidationInfo) -> int:
        most = Variant(ten_card=info.data.get("ten_card") is True).max_players
        if value > most:
            raise ValueError(f"10-card Spectrum is for 2 to {most} players, not {value}")
        return value

    @property
    def variant(self) -> Variant:
        """The variations in play."""
        return Variant(multi_pickup=self.multi_pickup, ten_card=self.ten_card)

    @property
    def rules(self) -> MatchRules:
        """The rules of a match under these settings."""
        return MatchRules(self.rounds, self.variant)

    def updated(self, changes: dict[str, Any]) -> RoomSettings:
        """These settings with ``changes``; a table too large for a new variant shrinks to fit."""
        merged = {**self.model_dump(), **changes}
        if "max_players" not in changes and merged.get("ten_card") is True:
            merged["max_players"] = min(merged["max_players"], Variant(ten_card=True).max_players)
        return RoomSettings.model_validate(merged)


def changed(settings: RoomSettings, changes: dict[str, Any]) -> RoomSettings:
    """``settings`` with the host's ``changes``; raises IllegalAction ``bad_settings`` naming
    the first fault."""
    try:
        return settings.updated(changes)
    except ValueError as error:
        raise IllegalAction("bad_settings", _first_error(error)) from None


def _first_error(error: ValueError) -> str:
    errors = getattr(error, "errors", None)
    if callable(errors):
        first = errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        return f"{where}: {message}" if where else message
    return str(error)
