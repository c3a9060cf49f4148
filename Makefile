# Every target installs what it needs into .venv first, so `make demo` and
# `make test` work on a fresh machine with Python 3.11+, make and cargo (the
# Rust core, core/, is built by maturin as part of the install).
PYTHON ?= python3
# rustup puts cargo here; a login shell has it on PATH, make under CI may not.
export PATH := $(HOME)/.cargo/bin:$(PATH)
# Everything the core is built from, tables compiled into it included.
CORE   := core/Cargo.toml core/Cargo.lock core/build.rs $(wildcard core/src/*.rs core/src/*/*.rs core/src/*/*/*.rs \
          core/src/*/*/*/*.rs core/build_tables/*.rs core/data/* spamnb/data/*.txt)
VENV   := .venv
BIN    := $(VENV)/bin
DEMO   := .demo
MODEL  := $(DEMO)/model.spamnb

.PHONY: demo test fuzz install install-test bench compare clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# The editable install is one plain .pth line naming the checkout, no import
# hook (pyproject.toml, [tool.maturin] says why); it builds the core in release
# mode into spamnb/, and again whenever a Rust source changes.
$(VENV)/.installed: pyproject.toml $(CORE) | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	$(BIN)/python -m compileall -q spamnb   # bytecode even where PYTHONDONTWRITEBYTECODE is set
	touch $@

$(VENV)/.installed-test: pyproject.toml $(CORE) | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	$(BIN)/python -m compileall -q spamnb
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

demo: $(VENV)/.installed
	@mkdir -p $(DEMO)
	@echo "== train on sample_data/mail (spam/ and ham/)"
	$(BIN)/spamnb train sample_data/mail --model $(MODEL)
	@echo
	@echo "== classify mail it has not seen: an mbox of spam and a Maildir of ham"
	$(BIN)/spamnb classify --model $(MODEL) sample_data/mbox/spam.mbox sample_data/maildir/ham
	@echo "(120 training messages are too few to fit a spam cutoff on: it stays at 0.99, so the"
	@echo " unseen spam leans spam but is unsure; README, \"What a verdict means\")"
	@echo
	@echo "== why: the tokens behind one verdict (a GB2312 spam read from stdin)"
	$(BIN)/spamnb classify --model $(MODEL) --explain --top 8 - < sample_data/maildir/spam/new/1739205492.M2P4102.sample
	@echo
	@echo "== what the model learned"
	$(BIN)/spamnb inspect --model $(MODEL) --top 12

test: $(VENV)/.installed-test
	@# The mail-flow tests run the README recipes under the real programs: procmail,
	@# SpamAssassin's spamc (against serve --spamd) and Dovecot with Pigeonhole (learn
	@# on move). Install them where we can (root with apt); elsewhere those tests skip
	@# and say why.
	@{ command -v procmail && command -v spamc && [ -x /usr/lib/dovecot/imap ] && \
	   [ -e /usr/lib/dovecot/modules/lib95_imap_sieve_plugin.so ]; } >/dev/null 2>&1 || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && (apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq procmail spamc dovecot-imapd dovecot-sieve) \
	    >/dev/null 2>&1; } || true
	$(BIN)/ruff check spamnb
	$(BIN)/mypy spamnb
	@# Two phases: everything else in three processes on the two cores (many tests wait
	@# on subprocesses and sockets: 259 s, where two took 292 s with 13 s more work), then the tests that compare
	@# CPU timings (pytest mark `timing`) alone, so no other test is billed to them.
	$(BIN)/python -m pytest -q -n 3 --dist loadfile -m "not timing"
	$(BIN)/python -m pytest -q -p no:xdist -m timing tests/system/test_scaling.py tests/system/test_evasion_scaling.py

# 34,000 generated inputs for each of the three properties: 102,000 in all; then
# 10,000 searched for the most time per byte, the slowest written to
# .fuzz-time-per-byte.json (RELIABILITY.md).
fuzz: $(VENV)/.installed-test
	SPAMNB_FUZZ_EXAMPLES=34000 $(BIN)/python -m pytest -q -p no:cacheprovider tests/system/test_properties.py \
	  -k "not time_per_byte"
	SPAMNB_FUZZ_SLOW_EXAMPLES=10000 SPAMNB_FUZZ_REPORT=.fuzz-time-per-byte.json \
	  $(BIN)/python -m pytest -q -p no:cacheprovider tests/system/test_properties.py -k time_per_byte
	@cat .fuzz-time-per-byte.json; echo

bench: $(VENV)/.installed-test
	$(BIN)/python bench/ablate.py

# Accuracy against bogofilter, CRM114 and scikit-learn, split and online
# (bench/compare.py; about an hour on 2 cores).  ARGS="--protocol trec06p-split" etc.
compare: $(VENV)/.installed-test
	$(BIN)/python bench/compare.py $(ARGS)

clean:
	rm -rf $(VENV) $(DEMO) .pytest_cache build *.egg-info .fuzz-time-per-byte.json
