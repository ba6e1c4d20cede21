# Two commands do all the set-up: `make app` runs the app, `make test` runs every check.
# Each creates .venv if it is missing and installs what it needs (again only when a
# requirements file changed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
APP_STAMP := $(VENV)/.app-$(shell cat requirements.txt requirements-nodeps.txt pyproject.toml | sha1sum | cut -c1-12)
TEST_STAMP := $(VENV)/.test-$(shell cat requirements.txt requirements-nodeps.txt requirements-dev.txt pyproject.toml | sha1sum | cut -c1-12)
BENCH_STAMP := $(VENV)/.bench-$(shell cat requirements.txt requirements-nodeps.txt requirements-dev.txt requirements-bench.txt pyproject.toml | sha1sum | cut -c1-12)
PORT ?= 8501
# `make bench BENCH_ARGS=--quick` for a short run; the default also refreshes the table in
# docs/benchmarks.md.
BENCH_ARGS ?= --readme

.PHONY: app test screenshots bench train ship-now lecture-hall flaky

# Each step says in one line what it installs; pip's own output (setuptools' warnings about the
# editable install among it) goes to .venv/pip.log and is shown only when a step fails.
PIP_LOG := $(VENV)/pip.log
PIP := $(BIN)/pip install --quiet --disable-pip-version-check
LOGGED = >> $(PIP_LOG) 2>&1 || (tail -40 $(PIP_LOG); exit 1)

$(BIN)/python:
	@echo "Creating the virtual environment .venv/ ..."
	@$(PYTHON) -m venv $(VENV)
	@$(PIP) --upgrade pip $(LOGGED)

# The project itself is installed in editable mode, so bench/, scripts and the command line
# import its packages from anywhere without path tricks.
$(APP_STAMP): requirements.txt requirements-nodeps.txt pyproject.toml | $(BIN)/python
	@echo "Installing the app's packages (requirements.txt: torch, streamlit, plotly, ...) ..."
	@$(PIP) -r requirements.txt $(LOGGED)
	@$(PIP) --no-deps --require-hashes -r requirements-nodeps.txt $(LOGGED)
	@echo "Installing Attention Atlas itself (editable) ..."
	@$(PIP) --no-deps -e . $(LOGGED)
	@touch $@

$(TEST_STAMP): requirements.txt requirements-nodeps.txt requirements-dev.txt pyproject.toml | $(BIN)/python
	@echo "Installing the app's and the checks' packages (requirements-dev.txt) ..."
	@$(PIP) -r requirements-dev.txt $(LOGGED)
	@$(PIP) --no-deps --require-hashes -r requirements-nodeps.txt $(LOGGED)
	@echo "Installing Attention Atlas itself (editable) ..."
	@$(PIP) --no-deps -e . $(LOGGED)
	@touch $@ $(APP_STAMP)

app: $(APP_STAMP)
	@echo "Starting the app: open http://localhost:$(PORT) in a browser once it says so (Ctrl+C stops it)."
	@$(BIN)/streamlit run server.py --server.port $(PORT) --browser.serverAddress localhost

SERIAL_FILES = $(shell grep -rlE '$(SERIAL_MARK)' tests --include='test_*.py')
SERIAL_MARK := mark\.serial
test: $(TEST_STAMP)
	bash scripts/ensure-chromium.sh
	bash scripts/ensure-nginx.sh
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	@# Two workers share the two cores; the tests marked serial (a server's memory or answer
	@# times measured under load, or both cores taken by one test) run after them, alone. Both
	@# runs report, then either's failure fails the target.
	@# The serial run collects only the files that mark tests serial (collecting every file again
	@# took ~12 s); tests/conftest.py fails a serial test marked in a file this grep would miss.
	$(BIN)/python -m pytest -n 2 -m "not serial and not lecture_hall"; first=$$?; \
	$(BIN)/python -m pytest -m "serial and not lecture_hall" $(SERIAL_FILES); second=$$?; \
	test $$first -eq 0 && test $$second -eq 0

# Tests that fail by chance: the suite N times on fresh clones, every failure counted with its
# server's log and thread stacks (scripts/flaky.py). `make flaky FLAKY_ARGS="--runs 3 --load"`
# keeps one CPU-bound process beside each run; `FLAKY_ARGS="--runs 10 tests/e2e"` the browser
# tests alone. Its report: /tmp/flaky/report.md.
FLAKY_ARGS ?= --runs 5
flaky: $(TEST_STAMP)
	bash scripts/ensure-chromium.sh
	bash scripts/ensure-nginx.sh
	$(BIN)/python scripts/flaky.py $(FLAKY_ARGS)

# Trains the English→German model of configs/en-de.toml on corpus v2, resuming from
# checkpoints/en-de/ (git-ignored; scripts/restore-checkpoint.sh brings the last resumable
# checkpoint back from git history when the folder is empty). `make train TRAIN_MINUTES=100`
# stops cleanly at a checkpoint, `TRAIN_STOP_AT=N` at step N; after the recipe's last step it
# evaluates and ships the weights. `make ship-now` evaluates and ships the checkpoint as it stands.
TRAIN_MINUTES ?=
TRAIN_STOP_AT ?=
train: $(TEST_STAMP)
	bash scripts/restore-checkpoint.sh
	$(BIN)/python -m model.train --recipe configs/en-de.toml $(if $(TRAIN_MINUTES),--minutes $(TRAIN_MINUTES)) $(if $(TRAIN_STOP_AT),--stop-at $(TRAIN_STOP_AT))

ship-now: $(TEST_STAMP)
	bash scripts/restore-checkpoint.sh
	$(BIN)/python -m model.train --recipe configs/en-de.toml --ship-now

# Refreshes docs/screenshots/ (one PNG a tab) from the browser test's tour of the running app.
screenshots: $(TEST_STAMP)
	bash scripts/screenshots.sh

$(BENCH_STAMP): requirements.txt requirements-nodeps.txt requirements-dev.txt requirements-bench.txt pyproject.toml | $(BIN)/python
	@echo "Installing the benchmarks' packages (requirements-bench.txt) ..."
	@$(PIP) -r requirements-bench.txt $(LOGGED)
	@$(PIP) --no-deps --require-hashes -r requirements-nodeps.txt $(LOGGED)
	@$(PIP) --no-deps -e . $(LOGGED)
	@touch $@ $(TEST_STAMP) $(APP_STAMP)

# Speed and memory against transformers, bertviz and torch.nn.Transformer, in one run (about
# half an hour on 2 cores); writes bench/results.md and bench/results.json.
bench: $(BENCH_STAMP)
	bash scripts/ensure-chromium.sh
	$(BIN)/python -m bench.run $(BENCH_ARGS)

# A lecture hall at once: 100 simulated students open the app on one server within a minute,
# each with its own sentence, layer, head and tab, through Streamlit's own websocket protocol
# (harness/streamlit_client.py); prints p50/p95 open -> own heatmap and the server's peak
# memory. A few minutes on 2 cores; `make test` runs its 10-student smoke version.
# `make lecture-hall HALL_MODEL=smollm2-135m`: the same hall on the chat model.
HALL_MODEL ?= minilm-l6
lecture-hall: $(TEST_STAMP)
	ATLAS_HALL_MODEL=$(HALL_MODEL) $(BIN)/python -m pytest tests/e2e/test_lecture_hall.py -s -m lecture_hall
