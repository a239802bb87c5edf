# cardsim: every target creates .venv when missing and installs the project into it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_DIR := results/demo
DEMO_STUDY := studies/pis-yedili-sevens.toml
DEMO_STUDY_DIR := results/demo-study

.PHONY: demo test test-fast bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# PYTHONWARNINGS: setuptools announces every editable install with a warning, whichever
# mode; nothing in it needs the reader.
$(STAMP): pyproject.toml | $(BIN)/python
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e '.[dev,cluster,cuda]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/cardsim simulate beggar-my-neighbour --players 2 --games 1000000 --seed 2024 --out $(DEMO_DIR) --force
	$(BIN)/cardsim sweep $(DEMO_STUDY) --games 50000 --out $(DEMO_STUDY_DIR) --force
	@echo "Report: $(DEMO_DIR)/report.html (and report.md)"
	@echo "Study (Pis Yedili, stacked 7s adding vs doubling): $(DEMO_STUDY_DIR)/"

test: $(STAMP)
	$(BIN)/python -m pytest

# everything but the tests marked slow (subprocesses, grids, big runs): the inner loop
test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not slow" -q

bench: $(STAMP)
	$(BIN)/python -m simulate.bench

lint: $(STAMP)
	$(BIN)/ruff check simulate analysis tests
	$(BIN)/ruff format --check simulate analysis tests

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
	find . -name __pycache__ -prune -exec rm -rf {} +
