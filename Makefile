# The two commands a fresh machine needs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv test lint demo bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

venv: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check scrapy_cetd tests benchmarks example_project
	$(BIN)/ruff format --check scrapy_cetd tests benchmarks example_project
	$(BIN)/mypy scrapy_cetd

test: lint
	$(BIN)/pytest; status=$$?; echo $$status > $(VENV)/pytest-status; exit $$status

demo: $(STAMP)
	$(BIN)/python -m example_project.demo

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test,bench]"
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache .pytest_cache
