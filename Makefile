# Set-up and everyday commands. `make run` serves the game; `make test` runs every check.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Test processes side by side (pytest-xdist); each takes whole modules, so a module's shared
# server starts once, in the order collected (longest suites first), except the tests of modules
# that share nothing, taken one by one (tests/conftest.py). Test servers are forked from one
# process per test process that has imported the server already (tests/zygote.py).
# Four on two cores: most tests spend their time waiting on a server, a browser or Docker (five
# were slower than four: the browsers and containers then compete for the cores).
# WORKERS=0 runs the suite in this process alone.
WORKERS ?= 4

.PHONY: run test lint typecheck unit screenshots bench clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (set PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)

$(VENV)/.runtime: pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e .
	@touch $@

$(VENV)/.dev: pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev]'
	@touch $@ $(VENV)/.runtime

run: $(VENV)/.runtime
	$(BIN)/python -m app.scripts.start

lint: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.dev
	$(BIN)/mypy --strict app

# Compiled modules, pytest's rewritten test modules among them, are written (to __pycache__,
# which git ignores) even where PYTHONDONTWRITEBYTECODE is set: otherwise every test process
# and server compiles them all again, half of a test process's start.
TEST_ENV := PYTHONDONTWRITEBYTECODE=

unit: $(VENV)/.dev
	$(TEST_ENV) $(BIN)/pytest -n $(WORKERS) --dist loadscope --no-loadscope-reorder

test: lint typecheck unit

# The browser tests again, saving a picture of every page and stage in tests/e2e/screenshots/.
screenshots: $(VENV)/.dev
	SCREENSHOTS=1 $(TEST_ENV) $(BIN)/pytest -n $(WORKERS) --dist loadscope tests/e2e

bench: $(VENV)/.dev
	$(BIN)/python -m bench.scoring

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
