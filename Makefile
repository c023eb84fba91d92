# The two commands a fresh machine needs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv test lint redis-server demo corpus-demo bench fuzz docs test-lowest-scrapy clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

venv: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check scrapy_cetd tests benchmarks example_project fuzz docs/conf.py
	$(BIN)/ruff format --check scrapy_cetd tests benchmarks example_project fuzz docs/conf.py
	$(BIN)/mypy scrapy_cetd benchmarks tests
	$(BIN)/lint-imports

# The scrapy-redis integration test starts a real redis-server: install Debian's package when it
# is missing, as root or through password-less sudo. Where it cannot be installed, this says so
# and the test is skipped with the same reason.
redis-server:
	@if command -v redis-server >/dev/null 2>&1; then :; \
	elif ! command -v apt-get >/dev/null 2>&1; then \
	  echo "redis-server is missing and there is no apt-get: the scrapy-redis test will be skipped"; \
	else \
	  if [ "$$(id -u)" = 0 ]; then sudo=; \
	  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; \
	  else echo "redis-server is missing and we are neither root nor sudoer: the scrapy-redis test will be skipped"; exit 0; fi; \
	  echo "Installing the Debian package redis-server (for the scrapy-redis test)"; \
	  { $$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	      redis-server >/dev/null; } || \
	  echo "Could not install redis-server: the scrapy-redis test will be skipped"; \
	fi

test: lint redis-server
	$(BIN)/pytest; status=$$?; echo $$status > $(VENV)/pytest-status; exit $$status

demo: $(STAMP)
	$(BIN)/python -m example_project.demo

# scrapy-cetd corpus on the bundled WARC (a crawl of the example site, benchmarks/make_warc.py).
corpus-demo: $(STAMP)
	$(BIN)/scrapy-cetd corpus tests/data/example-site.warc.gz --out example_project/output/corpus.jsonl

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test,bench]"
	$(BIN)/python -m benchmarks
	$(BIN)/python -m benchmarks.metadata

# Coverage-guided fuzzing of extract() and TPS pruning (fuzz/extract.py); not part of `make test`.
FUZZ_SECONDS ?= 600
fuzz: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test,fuzz]"
	mkdir -p .fuzz/crashes
	$(BIN)/python -m fuzz.extract .fuzz/corpus -max_total_time=$(FUZZ_SECONDS) -timeout=30 \
	  -max_len=262144 -artifact_prefix=.fuzz/crashes/

# The docs site (Sphinx + MyST, docs/) into docs/_build/html; a warning fails the build.
DOCS_STAMP := $(VENV)/.docs-installed
$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test,docs]"
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(BIN)/sphinx-build -W --keep-going -q -b html docs docs/_build/html

# pytest once more against the lowest Scrapy pyproject.toml declares, in a venv of its own (the
# package is installed there from a copy, so the checkout and .venv are left as they are).
LOWEST_SCRAPY := $(shell sed -n 's/^ *"scrapy>=\([0-9.]*\)",$$/\1/p' pyproject.toml)
LOWEST_VENV := .venv-lowest
LOWEST_STAMP := $(LOWEST_VENV)/.installed-$(LOWEST_SCRAPY)
$(LOWEST_STAMP): pyproject.toml
	rm -rf $(LOWEST_VENV)
	$(PYTHON) -m venv $(LOWEST_VENV)
	$(LOWEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LOWEST_VENV)/bin/python -m pip install --quiet "scrapy==$(LOWEST_SCRAPY)" ".[test]"
	touch $(LOWEST_STAMP)

# The checkout's code comes first on the path, so the run tests the code as it is now (with the
# accelerator .venv compiled, when its lxml is the same). The tests marked `datasets` (accuracy
# and the accelerator on every shared page) do not depend on Scrapy's version and are left out.
test-lowest-scrapy: $(LOWEST_STAMP) redis-server
	$(LOWEST_VENV)/bin/python -c "import scrapy; print('Scrapy', scrapy.__version__)"
	PYTHONPATH=$(CURDIR) $(LOWEST_VENV)/bin/pytest -p no:cacheprovider -q -m "not datasets"

clean:
	rm -rf $(VENV) $(LOWEST_VENV) build *.egg-info .mypy_cache .ruff_cache .pytest_cache docs/_build
