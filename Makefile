# Kiraly build. `make` builds ./kiraly; `make EXE=path` builds it there
# (the OpenBench convention); `make test` runs every test.
# `make release` builds the downloadable archives into dist/ (Linux and
# Windows, portable and AVX2, and Linux ARM64); `make test-release` runs the
# Windows binary under Wine and the ARM64 one under qemu. `make
# release-setup` installs what both need (Debian, rustup).

EXE ?= kiraly
CARGO ?= cargo
# The interpreter that creates the tests' virtual environment.
PYTHON ?= python3
# The Python tests run in this virtual environment, which `make test` fills
# from requirements.txt on first use (and again when that file changes).
VENV ?= .venv
VENV_PYTHON = $(VENV)/bin/python
# Tuned for the machine that builds it, as OpenBench and most users want.
# `make NATIVE=` builds a portable binary.
NATIVE ?= -C target-cpu=native

.PHONY: all trainer burst-datagen test test-imports test-engine test-checked test-tools test-ecosystem venv bench selfplay clean release release-setup test-release

# Profile-guided optimisation (tools/pgo_build.sh): an instrumented build
# runs `bench`, the final build uses its profile; about 7 % more nodes a
# second, the same search. Needs llvm-profdata (`rustup component add
# llvm-tools`), else it builds plainly and says so. `make PGO=` builds
# plainly on purpose (one build instead of two).
PGO ?= 1

all:
ifeq ($(PGO),)
	RUSTFLAGS="$(NATIVE)" $(CARGO) build --release --bin kiraly --target-dir target/native
	cp target/native/release/kiraly "$(EXE)"
else
	CARGO="$(CARGO)" tools/pgo_build.sh "$(EXE)" "$(NATIVE)"
endif

# The net trainer (tools/trainer), built for this machine's CPU into
# target/native/release/trainer: its float loops vectorise with the wider
# instructions, about 2.4 times the positions a second of a portable build
# with the same losses (docs/evaluation.md).
trainer:
	RUSTFLAGS="$(NATIVE)" $(CARGO) build --release -p trainer --target-dir target/native

test: all test-imports test-engine test-checked test-tools test-ecosystem

# The modules of src/ import one another one way only, and no file of src/
# is over 800 lines (standard library only; tools/test_import_graph.py checks
# the checks on made-up trees).
# Every recorded mutant's edit still applies to the code (tools/mutants.sh
# runs them; here only whether they have gone stale).
test-imports:
	$(PYTHON) -m unittest tools/test_import_graph.py
	$(PYTHON) tools/import_graph.py
	tools/mutants.sh --check

# The engine crate and the workspace tools (tools/datagen, tools/tuner).
# The failing-thread test needs the fault-injection build, which is kept in
# a target folder of its own so that it never replaces the plain binary.
test-engine:
	$(CARGO) test --release --workspace
	$(CARGO) test --release --features fault-injection --target-dir target/faults --test reliability

# The `checked` profile (Cargo.toml): optimised, with debug assertions and
# overflow checks, which the release builds above leave out. The engine's
# unit tests; `bench 6`, whose node count must equal the release build's;
# a 2-thread search, where an assertion failing in any thread shows as an
# `internal error` line; and the tuning build (`--features tune`): its unit
# tests and engine-tests/tune.rs.
CHECKED = target/checked/kiraly
test-checked: all
	$(CARGO) test --profile checked -p kiraly --lib
	$(CARGO) build --profile checked --bin kiraly
	@checked=$$($(CHECKED) bench 6 | tail -n 1); release=$$("$(abspath $(EXE))" bench 6 | tail -n 1); \
	if [ "$${checked%% *}" != "$${release%% *}" ]; then \
		echo "test-checked: bench 6: $$checked (checked) but $$release (release)"; exit 1; \
	fi; echo "test-checked: bench 6: $${checked%% *} nodes in both builds"
	@out=$$( (printf 'setoption name Threads value 2\nposition startpos moves e2e4 c7c5\ngo movetime 2000\n'; \
		sleep 4; echo quit) | $(CHECKED)); \
	if echo "$$out" | grep -q "internal error" || ! echo "$$out" | grep -q "^bestmove [a-h]"; then \
		echo "$$out" | tail -n 5; echo "test-checked: the 2-thread search failed"; exit 1; \
	fi; echo "test-checked: $$(echo "$$out" | grep '^bestmove') with 2 threads, no assertion failed"
	$(CARGO) test --profile checked -p kiraly --features tune --lib parameters
	$(CARGO) test --profile checked -p kiraly --features tune --test tune

# The match and suite tests play real games with the engine just built.
# datagen converts the match runner's PGNs (tools/test_datagen_pgn.py).
test-tools: all $(VENV)/installed
	$(CARGO) build --release -p datagen -p trainer
	MATCH_ENGINE="$(abspath $(EXE))" DATAGEN_BIN="$(abspath target/release/datagen)" \
		TRAINER_BIN="$(abspath target/release/trainer)" \
		$(VENV_PYTHON) -m unittest discover -s tools -p 'test_*.py'

# lichess-bot (python-chess), UCI option grammar, OpenBench commands.
test-ecosystem: all $(VENV)/installed
	KIRALY_BIN="$(abspath $(EXE))" $(VENV_PYTHON) -m unittest discover -s engine-tests -p 'test_*.py'

# The stamp is written last, so an interrupted install is redone next time.
$(VENV)/installed: requirements.txt
	@$(PYTHON) -m venv $(VENV) || { echo "cannot create $(VENV): on Debian, apt-get install python3-venv" >&2; exit 1; }
	$(VENV_PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

venv: $(VENV)/installed

# The archives: kiraly-VERSION-{linux,windows}-{x86-64,x86-64-v3} and
# kiraly-VERSION-linux-aarch64, each with the binary, README.md, LICENSE and
# WHICH-BINARY.txt.
DIST ?= dist
release: release-setup
	tools/release/build.sh --dist "$(DIST)"

release-setup:
	tools/release/setup.sh

# The portable Windows binary (the one every Windows user can run) under
# Wine: a UCI transcript with Windows line endings and a short game. Skips,
# saying so, where Wine or the Windows toolchain cannot be installed; with
# the environment variable CI set (CI services set it; .ci/run does) a skip
# fails instead.
test-release: $(VENV)/installed
	-tools/release/setup.sh --wine
	@if tools/release/setup.sh --check; then \
		tools/release/build.sh --binaries-only --os windows --levels x86-64 && \
		$(VENV_PYTHON) tools/release/test_windows.py target/release-x86-64/x86_64-pc-windows-gnu/release/kiraly.exe; \
	else \
		case "$${CI:-}" in \
		""|0|false|no) echo "test-release: SKIPPED: the Windows build tools could not be installed (see above)";; \
		*) echo "test-release: FAILED: the Windows build tools could not be installed (see above); CI is set, so a skip is a failure"; exit 1;; \
		esac; \
	fi

# The Linux ARM64 binary under qemu-user (tools/release/test_arm64.sh): the
# net's SIMD tests cross-compiled, bench and eval equal to the host
# binary's, a UCI transcript and a short game. Unlike the Wine test it skips
# nothing: a missing emulator or cross toolchain fails it.
.PHONY: test-release-arm64
test-release: test-release-arm64
test-release-arm64: $(VENV)/installed
	tools/release/test_arm64.sh "$(VENV_PYTHON)"

bench: all
	"$(abspath $(EXE))" bench

# The self-play generator as a background service on DATA (a folder outside
# the repository); docs/data.md.
selfplay:
	@test -n "$(DATA)" || { echo "make selfplay DATA=<folder for the data>" >&2; exit 2; }
	$(PYTHON) tools/selfplay.py start "$(DATA)"

# datagen for a burst on a borrowed machine (docs/data.md, "A burst on a
# borrowed machine"): for any CPU with AVX2 rather than this one,
# profile-guided where llvm-profdata is found, as target/burst/datagen, the
# path the burst's command carries.
burst-datagen:
	mkdir -p target/burst
	CARGO="$(CARGO)" tools/pgo_build.sh --datagen target/burst/datagen "-C target-cpu=x86-64-v3"

clean:
	$(CARGO) clean
	rm -f kiraly
	rm -rf $(VENV)
	rm -rf "$(DIST)"
