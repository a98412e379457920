# Kiraly build. `make` builds ./kiraly; `make EXE=path` builds it there
# (the OpenBench convention); `make test` runs every test.

EXE ?= kiraly
CARGO ?= cargo
PYTHON ?= python3
# Tuned for the machine that builds it, as OpenBench and most users want.
# `make NATIVE=` builds a portable binary.
NATIVE ?= -C target-cpu=native

.PHONY: all test test-engine test-tools test-ecosystem bench clean

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

bench: all
	"$(abspath $(EXE))" bench

clean:
	$(CARGO) clean
	rm -f kiraly
