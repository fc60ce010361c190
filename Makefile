# Climbing Trees: the two commands of the README, and a few helpers.
#
#   make book          set up .venv (first time) and build the book strictly
#   make test          set up .venv (first time) and run every test
#   make lint          ruff check
#   make browser-test  open the built book in headless Chromium and check every page
#   make clean         remove the build output and caches (keeps .venv)
#   make distclean     also remove .venv
#
# The virtual environment is created from requirements.txt with `python3 -m venv`;
# it is reinstalled whenever requirements.txt or pyproject.toml changes.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# Tools started by the build (the notebook kernel, nbmake) come from the venv.
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: book test lint browser-test clean distclean venv

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

book: $(STAMP)
	$(BIN)/jupyter-book build . -W -n --keep-going

test: $(STAMP)
	$(BIN)/pytest

lint: $(STAMP)
	$(BIN)/ruff check .

# Needs a built book (make book) and Chromium at /usr/bin/chromium (apt-get install chromium).
browser-test: $(STAMP)
	$(BIN)/pytest -m browser tests/browser

clean:
	rm -rf _build _build-without-r-and-graphviz .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -not -path "./$(VENV)/*" -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
