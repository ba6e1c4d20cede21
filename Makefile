# Two commands do all the set-up: `make app` runs the app, `make test` runs every check.
# Each creates .venv if it is missing and installs what it needs (again only when a
# requirements file changed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
APP_STAMP := $(VENV)/.app-$(shell cat requirements.txt | sha1sum | cut -c1-12)
TEST_STAMP := $(VENV)/.test-$(shell cat requirements.txt requirements-dev.txt | sha1sum | cut -c1-12)
BENCH_STAMP := $(VENV)/.bench-$(shell cat requirements.txt requirements-dev.txt requirements-bench.txt | sha1sum | cut -c1-12)
PORT ?= 8501
TRAIN_STEPS ?= 14000  # the shipped weights' step count is in model/weights/en-de.json
# `make bench BENCH_ARGS=--quick` for a short run; the default also refreshes README's table.
BENCH_ARGS ?= --readme

.PHONY: app test screenshots bench train

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(APP_STAMP): requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(TEST_STAMP): requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@ $(APP_STAMP)

app: $(APP_STAMP)
	$(BIN)/streamlit run app.py --server.port $(PORT)

test: $(TEST_STAMP)
	bash scripts/ensure-chromium.sh
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest

# Re-trains the shipped English→German model (about 2 hours of compute on 2 CPU cores;
# resumable). Three phases, as the shipped weights were made, each resuming from the checkpoint
# in runs/en-de/: a gentle learning rate through the early plateau of the 6-layer post-norm
# model, a larger one once it is out, and a larger one again once the loss is below 1.8,
# which is where it learned the lexicon (see the sidecar's loss_history).
TRAIN_ARGS := --name en-de --train-size 200000 --batch-tokens 3000 --warmup 400 \
	--d-model 96 --d-ff 384 --checkpoint-every 100
train: $(TEST_STAMP)
	$(BIN)/python -m model.train $(TRAIN_ARGS) --steps 1600 --lr-factor 0.2
	$(BIN)/python -m model.train $(TRAIN_ARGS) --steps 6000 --lr-factor 0.5
	$(BIN)/python -m model.train $(TRAIN_ARGS) --steps $(TRAIN_STEPS) --lr-factor 0.8

# Refreshes docs/screenshots/ (one PNG a tab) from the browser test's tour of the running app.
screenshots: $(TEST_STAMP)
	bash scripts/screenshots.sh

$(BENCH_STAMP): requirements.txt requirements-dev.txt requirements-bench.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-bench.txt
	touch $@ $(TEST_STAMP) $(APP_STAMP)

# Speed and memory against transformers, bertviz and torch.nn.Transformer, in one run (about
# half an hour on 2 cores); writes bench/results.md and bench/results.json.
bench: $(BENCH_STAMP)
	bash scripts/ensure-chromium.sh
	$(BIN)/python -m bench.run $(BENCH_ARGS)
