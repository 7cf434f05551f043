# Two commands do all the set-up on a fresh machine (Python 3.11 + make):
#   make demo   install into .venv, then build a context window and print a skeleton and a
#               symbol from the example workspace
#   make test   install into .venv (and what the tests need from Debian when missing), then
#               lint, type-check and run the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXAMPLE := examples/workspace

.PHONY: install deps demo test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/ctxls construct $(EXAMPLE)/billing/pricing.py --symbol compute_line_total \
		--task "Bulk tiers should stack with coupons up to MAX_DISCOUNT" --ceiling 6000 \
		--root $(EXAMPLE)
	$(BIN)/ctxls skeleton $(EXAMPLE)/auth/tokens.py --target refresh_token --root $(EXAMPLE)
	$(BIN)/ctxls read $(EXAMPLE)/billing/cache.py ShardedLRUCache._evict --root $(EXAMPLE)

lint: $(STAMP)
	$(BIN)/ruff check server client tests bench
	$(BIN)/mypy

deps:
	sh scripts/test-deps.sh

test: lint deps
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python bench/stdlib.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
