"""A TCP relay that holds every chunk for a fixed time each way: a database a network away.

On one machine PostgreSQL answers in a fraction of a millisecond; across a network each round
trip adds the network's. Run the relay in front of the database and point the server at it:

    .venv/bin/python -m bench.delay --listen 6543 --to 127.0.0.1:5432 --ms 0.25 &
    .venv/bin/python -m bench.compare --servers game \\
        --database postgresql+asyncpg://postgres@127.0.0.1:6543/postgres

``--ms`` is added in each direction (0.25 makes a round trip about half a millisecond longer).
Chunks keep their order. Each direction of each connection is a reader thread and a sender
thread that sleeps until a chunk is due (an event loop's timers round to whole milliseconds),
so the relay costs no CPU while it waits.
"""

from __future__ import annotations

import argparse
import queue
import socket
import threading
import time


def direction(source: socket.socket, target: socket.socket, delay: float) -> None:
    """Read ``source`` and send each chunk to ``target`` ``delay`` seconds after it came."""
    due: queue.SimpleQueue[tuple[float, bytes]] = queue.SimpleQueue()

    def send() -> None:
        while True:
            when, data = due.get()
            wait = when - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            if not data:
                target.shutdown(socket.SHUT_WR)
                return
            try:
                target.sendall(data)
            except OSError:
                return

    threading.Thread(target=send, daemon=True).start()
    while True:
        try:
            data = source.recv(65536)
        except OSError:
            data = b""
        due.put((time.monotonic() + delay, data))
        if not data:
            return


def serve(listen: int, host: str, port: int, delay: float) -> None:
    server = socket.create_server(("127.0.0.1", listen))
    while True:
        client, _ = server.accept()
        try:
            upstream = socket.create_connection((host, port))
        except OSError:
            client.close()
            continue
        for one in (client, upstream):
            one.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for source, target in ((client, upstream), (upstream, client)):
            threading.Thread(target=direction, args=(source, target, delay), daemon=True).start()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--listen", type=int, default=6543)
    parser.add_argument("--to", default="127.0.0.1:5432")
    parser.add_argument("--ms", type=float, default=0.25, help="added in each direction")
    arguments = parser.parse_args()
    host, _, port = arguments.to.rpartition(":")
    serve(arguments.listen, host, int(port), arguments.ms / 1000)


if __name__ == "__main__":
    main()
