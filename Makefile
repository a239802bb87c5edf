# cardsim: every target creates .venv when missing and installs the project into it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_DIR := results/demo
DEMO_STUDY := studies/pis-yedili-sevens.toml
DEMO_STUDY_DIR := results/demo-study

.PHONY: demo test test-fast test-deep warm bench lint clean

# Python keeps its compiled modules (and pytest its rewritten test modules) in __pycache__
# even where the environment says not to: without them every interpreter the suite starts
# (two workers, and each subprocess, cluster worker and simulator it runs) compiles the
# project from source again, about 5 s of each test-fast worker's minute.
unexport PYTHONDONTWRITEBYTECODE

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# PYTHONWARNINGS: setuptools announces every editable install with a warning, whichever
# mode; nothing in it needs the reader. --no-compile: pip would compile every module of
# every package (32 of the install's 58 s); Python compiles those imported, once, on first
# import (about 6 s here, 2026-12-06).
$(STAMP): pyproject.toml | $(BIN)/python
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet --no-compile -e '.[dev,cluster,cuda]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/cardsim simulate beggar-my-neighbour --players 2 --games 1000000 --seed 2024 --out $(DEMO_DIR) --force
	$(BIN)/cardsim sweep $(DEMO_STUDY) --games 50000 --out $(DEMO_STUDY_DIR) --force
	@echo "Report: $(DEMO_DIR)/report.html (and report.md)"
	@echo "Study (Pis Yedili, stacked 7s adding vs doubling): $(DEMO_STUDY_DIR)/"

# The suite on every core (pytest-xdist; tests that share a cluster, a port, a signal or
# the CUDA simulator are kept to one worker by their xdist_group), after numba's cache is
# filled once; the 25 slowest tests close the output. docs/how-it-works.md#tests
PYTEST_XDIST := -n auto --dist loadgroup

# Again only when a module numba compiles from (or the warm-up itself) changed: a warm
# cache's check costs a few seconds of every make test-fast.
WARM_STAMP := $(VENV)/.warm
$(WARM_STAMP): $(STAMP) $(shell find simulate -name "*.py") tests/warm_numba_cache.py tests/differential/shedding_grid.py
	$(BIN)/python tests/warm_numba_cache.py
	touch $(WARM_STAMP)

warm: $(WARM_STAMP)

test: warm
	$(BIN)/python -m pytest $(PYTEST_XDIST) --durations=25

# the inner loop: everything but the tests marked slow (subprocesses, clusters, the CUDA
# simulator) or end_to_end (whole runs, studies and searches and what they write); the unit,
# property and differential tests it runs check every kernel, reference, rule and statistic
test-fast: warm
	$(BIN)/python -m pytest $(PYTEST_XDIST) -m "not slow and not end_to_end" -q

# the property tests with hypothesis's deep profile: ten times the examples, new ones each run
test-deep: warm
	$(BIN)/python -m pytest $(PYTEST_XDIST) -m hypothesis --hypothesis-profile deep -q

# make bench ARGS="--only aggregates" (any of python -m simulate.app.bench --help's options)
bench: $(STAMP)
	$(BIN)/python -m simulate.app.bench $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check simulate analysis tests
	$(BIN)/ruff format --check simulate analysis tests
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
	find . -name __pycache__ -prune -exec rm -rf {} +
