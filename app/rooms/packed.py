"""The binary encoding: the compact encoding's patches as MessagePack, in binary frames.

A client that asks for it at hello gets what a compact client gets (docs/protocol.md, "The
binary encoding"), except that each patch, ``[version, ops]`` or ``[version, ops, ack]``, is
MessagePack (https://msgpack.org) in a binary frame instead of JSON text: a small number is one
byte, a short string one byte more than its text, and no brackets, commas or quotes are
spelled out. Full states, errors, hints and pongs stay JSON text frames. The shared operations
are packed once per change; only a connection's own are packed for it.
"""

from __future__ import annotations

from typing import Any

import msgpack

from app.rooms.compact import CompactConnection

# One packer for the event loop's thread: it returns each object's bytes and starts afresh.
_packer = msgpack.Packer()

# MessagePack's array headers: up to 15 members in the first byte, then 16 and 32 bits.
_SMALL_ARRAYS = [bytes((0x90 | count,)) for count in range(16)]

# The shared operations of a change, packed: how many, and their bytes without an array header.
Packed = tuple[int, bytes]
NOTHING: Packed = (0, b"")


def pack(value: Any) -> bytes:
    """``value`` (JSON's kinds of values) as MessagePack."""
    packed: bytes = _packer.pack(value)
    return packed


def array_header(count: int) -> bytes:
    """The header of a MessagePack array of ``count`` members."""
    if count < 16:
        return _SMALL_ARRAYS[count]
    if count < 1 << 16:
        return b"\xdc" + count.to_bytes(2, "big")
    return b"\xdd" + count.to_bytes(4, "big")


def pack_ops(ops: list[Any]) -> Packed:
    """Compact operations, packed one after another."""
    if not ops:
        return NOTHING
    packed = pack(ops)
    return len(ops), packed[len(array_header(len(ops))) :]


def patch_frame(version: int, shared: Packed, private: list[Any], ack: object = None) -> bytes:
    """A binary patch: the ``shared`` operations (already packed), then the connection's own."""
    count, ops = shared
    if private:
        more, packed = pack_ops(private)
        count += more
        ops += packed
    if ack is None:
        return b"\x92" + pack(version) + array_header(count) + ops
    return b"\x93" + pack(version) + array_header(count) + ops + pack(ack)


class BinaryConnection(CompactConnection):
    """A connection whose client asked for the binary encoding at hello."""

    __slots__ = ()
