# The engine alone, built the way engine-testing frameworks build engines (OpenBench's
# workers run `make -j EXE=NAME` here and then `./NAME bench`): docs/openbench.md.
#
#   make                       ./chessgraph-engine, for this machine's CPU
#   make EXE=path/to/engine    the same, written to that path
#   make tune EXE=...          a tuning build: the search's constants as UCI options
#
# The network is compiled in; EVALFILE, which OpenBench passes for engines that load a
# network file, is not used.

EXE ?= chessgraph-engine
CARGO ?= cargo
FEATURES ?= syzygy
RUSTFLAGS_NATIVE ?= -C target-cpu=native

.PHONY: all openbench tune clean

all openbench:
	@mkdir -p $(dir $(abspath $(EXE)))
	$(CARGO) rustc --release --locked -p chessgraph-engine --bin chessgraph-engine \
		--no-default-features --features "$(FEATURES)" \
		-- $(RUSTFLAGS_NATIVE) --emit link=$(abspath $(EXE))

tune:
	$(MAKE) all FEATURES="$(FEATURES) tune" EXE="$(EXE)"

clean:
	rm -f $(EXE)
