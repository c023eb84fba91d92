# The two commands a fresh machine needs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv test lint redis-server demo corpus-demo bench fuzz clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

venv: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check scrapy_cetd tests benchmarks example_project fuzz
	$(BIN)/ruff format --check scrapy_cetd tests benchmarks example_project fuzz
	$(BIN)/mypy scrapy_cetd
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

# Coverage-guided fuzzing of extract() and TPS pruning (fuzz/extract.py); not part of `make test`.
FUZZ_SECONDS ?= 600
fuzz: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test,fuzz]"
	mkdir -p .fuzz/crashes
	$(BIN)/python -m fuzz.extract .fuzz/corpus -max_total_time=$(FUZZ_SECONDS) -timeout=30 \
	  -max_len=262144 -artifact_prefix=.fuzz/crashes/

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache .pytest_cache
