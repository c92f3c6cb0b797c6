"""What the browser tests' Chromium costs: a fresh context, a page load, an offline socket, a draw.

Starts a server the way the tests do (tests.server.running_server) and Debian's Chromium with
the tests' own flags (tests/e2e/conftest.py), then counts the CPU time of every process the
browser started, by kind (the browser, renderers, the GPU process, the network service, other
utilities), over each of these steps, --runs times each (the offline step a fifth as often):

- context: a new browser context with one blank page, closed again (each test page's is new);
- home: the home page loaded again in one page, until the network is quiet;
- document: a near-empty document of the server's (its health check) loaded the same way;
- offline: a player's page in a room, its context set offline for --offline seconds, the page
  keeping its WebSocket open until it finds the link silent (docs/protocol.md: 3.5 s and a
  ping's wait), as the dead-link tests do.

Run: .venv/bin/python -m bench.browser [--runs 10] [--offline 8]
Needs /usr/bin/chromium and the dev extras (playwright).
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, DESKTOP, E2E_SETTINGS
from tests.e2e.ui import create_room
from tests.server import running_server

TICKS = os.sysconf("SC_CLK_TCK")


def kind(command: str) -> str:
    """The kind of a Chromium process, from its command line."""
    if "--utility-sub-type=" in command:
        sub = command.split("--utility-sub-type=", 1)[1].split()[0]
        return "network service" if sub.startswith("network.") else "other utility"
    if "--type=" in command:
        # The zygote forks the renderers and reaps them: their time comes to it when they end.
        kinds = {"renderer": "renderer", "zygote": "renderer", "gpu-process": "GPU process"}
        return kinds.get(command.split("--type=", 1)[1].split()[0], "other utility")
    return "browser"


def descendants(pid: int) -> list[int]:
    """The processes ``pid`` started, and theirs, from any of its threads."""
    found: list[int] = []
    for children in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            started = [int(child) for child in children.read_text().split()]
        except OSError:
            continue
        for child in started:
            found += [child, *descendants(child)]
    return found


def browser_cpu() -> Counter[str]:
    """CPU seconds used so far by each live Chromium process this benchmark started and by the
    children it has reaped, by kind (of the live process)."""
    used: Counter[str] = Counter()
    for pid in descendants(os.getpid()):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if os.path.basename(command.split(" ", 1)[0]) == CHROMIUM.name:
            # Its own time and its reaped children's: a renderer that has ended counts too.
            used[kind(command)] += sum(int(field) for field in fields[11:15]) / TICKS
    return used


def measure(step: Callable[[], None], runs: int) -> Counter[str]:
    """Chromium's CPU seconds for one run of ``step``, by kind (the mean of ``runs``)."""
    before = browser_cpu()
    for _ in range(runs):
        step()
    after = browser_cpu()
    return Counter({k: (after[k] - before[k]) / runs for k in after if after[k] > before[k]})


def report(name: str, used: Counter[str]) -> None:
    parts = ", ".join(f"{k} {v:.3f}" for k, v in used.most_common())
    print(f"{name:<10} {sum(used.values()):6.3f} CPU s a run ({parts})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--offline", type=float, default=8.0, help="seconds offline a run")
    args = parser.parse_args()
    with running_server(**E2E_SETTINGS) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        options: dict[str, Any] = {"viewport": DESKTOP, "reduced_motion": "reduce"}

        def context() -> None:
            opened = browser.new_context(**options)
            opened.new_page().goto("about:blank")
            opened.close()

        page = browser.new_context(**options).new_page()

        def load(path: str) -> Callable[[], None]:
            def step() -> None:
                page.goto(server.url + path)
                page.wait_for_load_state("networkidle")

            return step

        report("context", measure(context, args.runs))
        report("home", measure(load("/"), args.runs))
        report("document", measure(load("/healthz"), args.runs))

        room = browser.new_context(**options)
        player = room.new_page()
        player.goto(server.url + "/")
        create_room(player, "Ann")

        def offline() -> None:
            # Connected again (after the run before): no banner saying otherwise.
            player.wait_for_selector(".roombar")
            player.wait_for_selector(".banner", state="detached", timeout=30000)
            room.set_offline(True)
            time.sleep(args.offline)
            room.set_offline(False)

        report("offline", measure(offline, max(1, args.runs // 5)))

        table = browser.new_context(**options).new_page()
        table.goto(server.url + "/")
        create_room(table, "Bea")
        for _ in range(3):
            table.click("[data-act=add-bot][data-level=easy]")
        table.wait_for_selector(".seatlist li:nth-child(4)")
        table.click("text=Start the match")
        table.wait_for_selector(".hand .card")
        # The room page draws itself again in full whenever it is shown again.
        drawn = table.evaluate(
            """() => {
                const start = performance.now();
                for (let i = 0; i < 100; i++) {
                    document.dispatchEvent(new Event('visibilitychange'));
                    void document.body.offsetHeight;
                }
                return (performance.now() - start) / 100;
            }"""
        )
        print(f"{'render':<10} {drawn:6.2f} ms a full draw of the table")
        browser.close()


if __name__ == "__main__":
    main()
