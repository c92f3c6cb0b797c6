"""The error every refused action raises: a stable code and a human message."""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action the rules do not allow; raised before anything changes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"IllegalAction({self.code!r}, {self.message!r})"
