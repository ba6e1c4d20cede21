# Two commands do all the set-up: `make app` runs the app, `make test` runs every check.
# Each creates .venv if it is missing and installs what it needs (again only when a
# requirements file changed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
APP_STAMP := $(VENV)/.app-$(shell cat requirements.txt | sha1sum | cut -c1-12)
TEST_STAMP := $(VENV)/.test-$(shell cat requirements.txt requirements-dev.txt | sha1sum | cut -c1-12)
PORT ?= 8501

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

# Re-trains the shipped English→German model (about an hour on 2 CPU cores; resumable).
train: $(TEST_STAMP)
	$(BIN)/python -m model.train --name en-de --train-size 200000 --steps 2400 \
		--batch-tokens 4000 --warmup 800 --lr-factor 0.7 --threads 1
