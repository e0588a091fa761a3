# The two set-up commands (README): `make demo` runs the main job, `make test` runs the tests.
# Both create .venv and install what they need, idempotently.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SDK := $(wildcard subscriber/pyproject.toml)
CLIENT_PY := $(wildcard clients/python/pyproject.toml)

.PHONY: install test demo serve lint bench faults dist clean config-table sdk-python sdk-typescript sdk-check sdk-check-typescript

$(STAMP): pyproject.toml tests/plugin_kind/pyproject.toml $(SDK) $(CLIENT_PY)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install -q --disable-pip-version-check $(if $(SDK),-e ./subscriber) $(if $(CLIENT_PY),-e ./clients/python) -e '.[test,bench]' -e ./tests/plugin_kind
	touch $(STAMP)

install: $(STAMP)

# The suite on PYTEST_WORKERS processes (pytest-xdist): each module on one worker, the longest
# modules first (tests/parallel.py); then the tests marked `solo` (timing across processes) alone
# in one process (exit 5, none selected by PYTEST_ARGS, is fine there). PYTEST_WORKERS=0: the
# first part in this one process too.
PYTEST_WORKERS ?= 6
test: $(STAMP)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder -m "not solo" $(PYTEST_ARGS)
	$(BIN)/python -m pytest -m solo $(PYTEST_ARGS) || test $$? -eq 5

# make demo KEEP=1: the daemon stays up afterwards (console, token, portal link; Ctrl-C stops it)
demo: $(STAMP)
	$(BIN)/hookproof demo $(if $(KEEP),--keep)

serve: $(STAMP)
	$(BIN)/hookproof serve

# ruff, then mypy over the whole package (engine/ and hookproof/ included) under its real
# module names (typecheck/ symlinks); pyproject.toml makes the layers, the composition root and
# the decide modules strict.
lint: $(STAMP)
	$(BIN)/ruff check .
	MYPYPATH=typecheck $(BIN)/mypy -p hookproof
	cd clients/python && ../../$(BIN)/mypy --strict hookproof_client

# The sender SDKs' generated code from the OpenAPI document (scripts/openapi_dump.py).
# sdk-python: regenerate clients/python/hookproof_client/generated (openapi-python-client,
# pinned in pyproject.toml). sdk-check: regenerate into a temporary folder and fail if the
# checked-in code differs (CI, .ci/run).
sdk-python: $(STAMP)
	bash scripts/sdk_python.sh

sdk-check: $(STAMP)
	bash scripts/sdk_python.sh --check
	bash scripts/sdk_typescript.sh check

# The README's configuration table, made from hookproof/config.py (VARIABLES); a test checks it.
config-table: $(STAMP)
	$(BIN)/python scripts/config_table.py

bench: $(STAMP)
	$(BIN)/python bench/bench_event_store.py

# The fault campaign (DESIGN.md section 12) in a network namespace: bench/faults/README.md.
faults: $(STAMP)
	$(BIN)/python bench/faults/launch.py $(FAULTS_ARGS)

# The TypeScript sender SDK's types (clients/typescript/src/generated/openapi.ts), generated from
# the API document by the pinned openapi-typescript (scripts/sdk_typescript.sh); never hand-edited.
sdk-typescript: $(STAMP)
	bash scripts/sdk_typescript.sh generate

# Fails when the checked-in types are not what the current document generates.
sdk-check-typescript: $(STAMP)
	bash scripts/sdk_typescript.sh check

# The engine and SDK as a user installs them: sdists and wheels, twine check, and the wheels
# installed (not editable) into fresh venvs outside the checkout (scripts/dist_check.sh).
dist: $(STAMP)
	bash scripts/dist_check.sh

clean:
	rm -rf dist $(VENV) .pytest_cache .mypy_cache .ruff_cache
