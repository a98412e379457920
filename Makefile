# Kiraly build. `make` builds ./kiraly; `make EXE=path` builds it there
# (the OpenBench convention); `make test` runs every test.
# `make release` builds the downloadable archives into dist/ (Linux and
# Windows, portable and AVX2); `make test-release` runs the Windows binary
# under Wine. `make release-setup` installs what both need (Debian, rustup).

EXE ?= kiraly
CARGO ?= cargo
PYTHON ?= python3
# Tuned for the machine that builds it, as OpenBench and most users want.
# `make NATIVE=` builds a portable binary.
NATIVE ?= -C target-cpu=native

.PHONY: all test test-engine test-tools test-ecosystem bench clean release release-setup test-release

all:
	RUSTFLAGS="$(NATIVE)" $(CARGO) build --release --bin kiraly --target-dir target/native
	cp target/native/release/kiraly "$(EXE)"

test: all test-engine test-tools test-ecosystem

# The engine crate and the workspace tools (tools/datagen, tools/tuner).
test-engine:
	$(CARGO) test --release --workspace

# The match and suite tests play real games with the engine just built.
test-tools: all
	MATCH_ENGINE="$(abspath $(EXE))" $(PYTHON) -m unittest discover -s tools -p 'test_*.py'

# lichess-bot (python-chess), UCI option grammar, OpenBench commands.
test-ecosystem: all
	KIRALY_BIN="$(abspath $(EXE))" $(PYTHON) -m unittest discover -s engine-tests -p 'test_*.py'

# The archives: kiraly-VERSION-{linux,windows}-{x86-64,x86-64-v3}, each with
# the binary, README.md, LICENSE and WHICH-BINARY.txt.
DIST ?= dist
release: release-setup
	tools/release/build.sh --dist "$(DIST)"

release-setup:
	tools/release/setup.sh

# The portable Windows binary (the one every Windows user can run) under
# Wine: a UCI transcript with Windows line endings and a short game. Skips,
# saying so, where Wine or the Windows toolchain cannot be installed.
test-release:
	-tools/release/setup.sh --wine
	@if tools/release/setup.sh --check; then \
		tools/release/build.sh --binaries-only --os windows --levels x86-64 && \
		$(PYTHON) tools/release/test_windows.py target/release-x86-64/x86_64-pc-windows-gnu/release/kiraly.exe; \
	else \
		echo "test-release: SKIPPED: the Windows build tools could not be installed (see above)"; \
	fi

bench: all
	"$(abspath $(EXE))" bench

clean:
	$(CARGO) clean
	rm -f kiraly
	rm -rf "$(DIST)"
