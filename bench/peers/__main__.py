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


def install() -> None:
    """Run `npm ci` in every folder, from its committed package-lock.json."""
    if shutil.which("npm") is None:
        sys.exit("npm is needed (Node 20 or newer)")
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
