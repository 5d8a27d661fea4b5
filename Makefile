# Two entry points a fresh machine needs: `make demo` and `make test`.
# Both create .venv, install skillyard with its test extras (and Ray, whose tests run here) and,
# when run as root on Debian, the system tools the sandbox, installer and Ray tests use.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.skillyard-installed

.PHONY: setup system-deps demo test lint bench clean

setup: $(STAMP)

system-deps:
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  missing=""; \
	  command -v bwrap >/dev/null 2>&1 || missing="$$missing bubblewrap"; \
	  command -v git   >/dev/null 2>&1 || missing="$$missing git"; \
	  command -v setpriv >/dev/null 2>&1 || missing="$$missing util-linux"; \
	  command -v ip >/dev/null 2>&1 || missing="$$missing iproute2"; \
	  ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2' || missing="$$missing libseccomp2"; \
	  if [ -n "$$missing" ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  fi; \
	fi

$(STAMP): pyproject.toml | system-deps
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "skillyard needs Python >= 3.11"'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install -q --upgrade pip
	@$(PY) -m pip install -q -e '.[dev,ray]'
	@touch $(STAMP)

demo: setup
	@bash scripts/demo.sh

# pytest exits 5 when it collected nothing: that is a failure here, never a pass.
test: setup
	@$(VENV)/bin/ruff check src tests benchmarks
	@$(PY) -m pytest; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi; \
	  [ $$rc -eq 0 ] || exit $$rc
	@# as root, the isolation tests run again as an unprivileged user (the sandbox's other path)
	@$(PY) scripts/test_unprivileged.py

lint: setup
	@$(VENV)/bin/ruff check src tests benchmarks
	@$(VENV)/bin/ruff format --check src tests benchmarks

bench: setup
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .ruff_cache
