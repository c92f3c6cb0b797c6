"""Installs the pinned Node packages of the peer servers and the load generator (`npm ci`).

Run: .venv/bin/python -m bench.peers install
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FOLDERS = ("harness", "colyseus", "boardgameio", "relay")
# The generator imports the browser's frontend/js/patch.js, an ES module with no package.json
# of its own to say so: Node reads it as one by its syntax from 20.19 and from 22.7 on.


def node_version() -> tuple[int, ...]:
    """The installed Node's version, as numbers."""
    text = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout
    return tuple(int(part) for part in text.strip().lstrip("v").split(".")[:2])


def detects_modules(version: tuple[int, ...]) -> bool:
    """Whether this Node reads a .js file with import statements as an ES module by default."""
    return (20, 19) <= version < (21,) or version >= (22, 7)


def install() -> None:
    """Run `npm ci` in every folder, from its committed package-lock.json."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        sys.exit("Node and npm are needed (Node 20.19 or newer, or 22.7 or newer)")
    if not detects_modules(node_version()):
        sys.exit("Node 20.19 or newer, or 22.7 or newer, is needed")
    for folder in FOLDERS:
        print(f"npm ci in bench/peers/{folder}", flush=True)
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel", "error"],
            cwd=HERE / folder,
            check=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("command", choices=["install"])
    parser.parse_args()
    install()


if __name__ == "__main__":
    main()
