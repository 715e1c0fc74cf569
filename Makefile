# SPDX-License-Identifier: MIT
# futexsim: a discrete-event simulator of Linux futex hashing on NUMA machines.
#
#   make run     install missing Debian packages, build, run scenarios/quickstart.yaml
#   make check   install missing Debian packages, build, run every test (CHECK_JOBS at once)
#   make bench   the simulator's speed: simulated ops per CPU-second, events per op, peak RSS
#                (QUEUES="4-ary-heap binary-heap": with each of the engine's queues in turn)
#   make bench-callgrind  host instructions (the engine's share), events, cache misses per op (valgrind)
#   make validate  simulate the published measurements, print and plot the fit
#   make claims  check the claims of the seed threads in simulation
#   make calibrate  refit the uncertain parameters, rewrite the generated configs
#   make plot    plot a result file or a sweep (see the plot target)
#   make sweep-demo  the E5-2650 bucket sweep, simulated and plotted against the published one
#   make same-results [REF=rev]  this build's results bit-identical to REF's (default HEAD)
#   make         build bin/futexsim and the analysis tools (bin/futexsim-*)
#   make install [PREFIX=/usr/local] [DESTDIR=]  install them, the configs, scenarios
#                and plotting tools under PREFIX; make uninstall removes them
#
# Variables (GNU conventions: set on the command line or in the environment):
#   CC (default gcc; clang works), CFLAGS (default: $(OPT) -g and the warnings),
#   CPPFLAGS, LDFLAGS, OPT (optimisation flags inside the default CFLAGS), WERROR=1
#   (warnings are errors; check and sanitize set it), SANITIZE (e.g.
#   -fsanitize=address,undefined), SCENARIO (for `make run`), V=1 (show commands),
#   PYTHON (the python3 with h5py and matplotlib, for validate, plot and sweep-demo),
#   PREFIX, DESTDIR (for `make install` and `make uninstall`), REVISION (the revision
#   --version and the result files name, instead of git's: for a tree built outside git).
# The flags the build needs (-std=c11, -I., the defines, dependency files) are in
# FUTEXSIM_CPPFLAGS and FUTEXSIM_CFLAGS, which CFLAGS and CPPFLAGS do not replace.

# make's built-in default for CC is cc, which makes `CC ?= gcc` a no-op.
ifeq ($(origin CC),default)
CC       := gcc
endif
CC       ?= gcc
OPT      ?= -O2
SANITIZE ?=
WERROR   ?=
WARN_CFLAGS := -Wall -Wextra -Wshadow -Wstrict-prototypes
CFLAGS   ?= $(OPT) -g $(WARN_CFLAGS)
CPPFLAGS ?=
LDFLAGS  ?=
PKGS     := gsl yaml-0.1 hdf5 check
# Debian packages the build and the tests need; `make deps` installs the missing ones.
# hdf5-tools (h5dump) and python3-h5py are for the tests that read result files.
DEB_PKGS := libgsl-dev libyaml-dev libhdf5-dev check pkgconf hdf5-tools python3-h5py
# Sweeps (scenarios/sweep: GNU parallel; over ssh, rsync moves the files; the test
# of the multi-host path starts its own sshd) and plots (analysis/plot).
DEB_PKGS += parallel openssh-client openssh-server rsync python3-numpy python3-matplotlib
# Man pages (make man, make install) are generated from --help by help2man.
DEB_PKGS += help2man

VERSION  := 0.1.0

# Required: not for the user to override (CFLAGS and CPPFLAGS come after them).
FUTEXSIM_CPPFLAGS = -I. -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
            -DFUTEXSIM_VERSION='"$(VERSION)"' \
            -DFUTEXSIM_DATA_DIR='"$(CURDIR)"' \
            $(if $(SANITIZE),-DFUTEXSIM_DEBUG)
FUTEXSIM_CFLAGS = -std=c11 $(SANITIZE) $(if $(filter-out 0,$(WERROR)),-Werror)
FUTEXSIM_LDFLAGS = $(SANITIZE)
# All of a compile line's flags but the dependency ones.
ALL_CFLAGS = $(FUTEXSIM_CPPFLAGS) $(CPPFLAGS) $(FUTEXSIM_CFLAGS) $(CFLAGS)
DEP_CFLAGS = $(shell pkg-config --cflags gsl yaml-0.1 hdf5 2>/dev/null)
# hdf5_hl (H5DOappend) has no .pc file of its own: it sits beside libhdf5.
DEP_LIBS   = $(shell pkg-config --libs-only-L hdf5 2>/dev/null) -lhdf5_hl \
             $(shell pkg-config --libs gsl yaml-0.1 hdf5 2>/dev/null) -lm
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null)

BUILD    := build
# One library per layer (docs/architecture.md), linked program, models, substrate:
# tests/layers.py checks their objects' symbols against the layers' order.
CORE_SRCS  := $(sort $(wildcard sim/core/*.c))
MODEL_SRCS := $(sort $(wildcard models/*.c models/sched/*.c models/workloads/*.c))
PROG_SRCS  := $(filter-out sim/main.c,$(sort $(wildcard sim/*.c sim/probe/*.c sim/cmd/*.c sim/views/*.c)))
CORE_OBJS  := $(CORE_SRCS:%.c=$(BUILD)/%.o)
MODEL_OBJS := $(MODEL_SRCS:%.c=$(BUILD)/%.o)
PROG_OBJS  := $(PROG_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/gen/revision.o
LIB_SRCS := $(CORE_SRCS) $(MODEL_SRCS) $(PROG_SRCS)
LIB_OBJS := $(CORE_OBJS) $(MODEL_OBJS) $(PROG_OBJS)
LIB      := $(BUILD)/libfutexsim-program.a $(BUILD)/libfutexsim-models.a $(BUILD)/libfutexsim-core.a
BIN      := bin/futexsim
# analysis tools: analysis/NAME.c -> bin/futexsim-NAME, sharing analysis/points.c
# (beside BIN: the sanitized build's are build-san/bin/futexsim-NAME)
TOOL_SRCS := analysis/validate.c analysis/calibrate.c analysis/claims.c
TOOL_DIR := $(dir $(BIN))
TOOLS    := $(TOOL_SRCS:analysis/%.c=$(TOOL_DIR)futexsim-%)
TOOL_LIB_OBJS := $(BUILD)/analysis/points.o $(BUILD)/analysis/claimset.o
# the tools' objects are made by pattern rules for pattern rules: kept, or make deletes
# them as intermediates (every make relinks the tools; the mutant tests link them)
.SECONDARY: $(TOOL_SRCS:%.c=$(BUILD)/%.o) $(TOOL_LIB_OBJS)
TEST_SRCS := $(sort $(wildcard tests/check_*.c))
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
TEST_HELPERS := $(filter-out $(TEST_SRCS),$(wildcard tests/*.c))
SCENARIO ?= scenarios/quickstart.yaml

.PHONY: all run check bench bench-callgrind validate calibrate regression-data claims studies deps clean
.DELETE_ON_ERROR:

all: $(BIN) $(TOOLS)

# Installs the Debian packages the build needs: with apt-get when run as root,
# otherwise prints the exact command to run and stops.
deps:
	@missing=""; \
	for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "Installing missing packages:$$missing"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing || exit 1; \
	  else \
	    echo "Missing Debian packages. Run:"; \
	    echo "  sudo apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi

# Quiet by default; `make V=1` shows the commands.
Q := $(if $(V),,@)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) $(DEP_CFLAGS) -MMD -MP -c $< -o $@

# The exact revision (`git describe --always --dirty --abbrev=12`, "unknown" outside
# git, REVISION=... when given: a tree copied out of its checkout keeps the revision it
# was built at) for --version and the result files' provenance: regenerated by every make,
# rewritten only when it changed, so a commit or an edit rebuilds one object and
# relinks, and nothing otherwise.
REVISION_C := $(BUILD)/gen/revision.c
.PHONY: FORCE
FORCE:
$(REVISION_C): FORCE
	@mkdir -p $(dir $@)
	$(Q)rev='$(REVISION)'; [ -n "$$rev" ] || rev=$$( { [ -e .git ] && git describe --always --dirty --abbrev=12; } 2>/dev/null || echo unknown); \
	printf '%s\n' '/* SPDX-License-Identifier: MIT */' '/* generated by the Makefile: the revision built */' '#include "sim/revision.h"' \
	  "const char futexsim_git_rev[] = \"$$rev\";" > $@.tmp; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi

$(BUILD)/gen/revision.o: $(REVISION_C)
	@$(if $(V),,echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libfutexsim-core.a: $(CORE_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(BUILD)/libfutexsim-models.a: $(MODEL_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(BUILD)/libfutexsim-program.a: $(PROG_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BIN): $(BUILD)/sim/main.o $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(FUTEXSIM_LDFLAGS) $(LDFLAGS) -o $@ $^ $(DEP_LIBS)

$(TOOL_DIR)futexsim-%: $(BUILD)/analysis/%.o $(TOOL_LIB_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(FUTEXSIM_LDFLAGS) $(LDFLAGS) -o $@ $^ $(DEP_LIBS)

$(BUILD)/tests/%: tests/%.c $(TEST_HELPERS) $(TOOL_LIB_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC+LD   $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS) -o $@ $< $(TEST_HELPERS) $(TOOL_LIB_OBJS) $(LIB) \
	  $(FUTEXSIM_LDFLAGS) $(LDFLAGS) $(CHECK_LIBS) $(DEP_LIBS)

run: deps
	@$(MAKE) --no-print-directory $(BIN)
	$(BIN) run $(SCENARIO)

# Every test binary prints Check's summary line; any failure fails `make check`.
# tests/layers.py checks the include lines and the objects' symbols against the layers
# and the models' order (docs/architecture.md);
# tests/config_sources.py that every constant of a machine or kernel config names its source.
# tests/protocol_mutants.sh that tests/check_protocol.c fails on a mutation of any row of the
# coherence protocol's table (models/coherence.h); tests/sched_mutants.sh that
# tests/check_sched.c fails on a mutation of each scheduler rule (models/sched/).
# make check runs its steps on every host CPU (CHECK_JOBS, default the online CPUs), each
# step's output printed whole when it ends, with its wall time; the slowest steps first.
CHECK_JOBS ?= $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
CHECK_SCRIPTS := protocol_mutants sched_mutants install docs_examples fuzz_tools studies \
                 slurm layers config_sources fuzz_targets
CHECK_STEPS := $(CHECK_SCRIPTS:%=check-step/%) $(TEST_BINS:$(BUILD)/tests/%=check-step/%)
.PHONY: check-steps $(CHECK_STEPS)

check: deps
	@$(MAKE) --no-print-directory WERROR=1 $(BIN) $(TOOLS) $(TEST_BINS)
	@rm -rf $(BUILD)/check-failed; mkdir -p $(BUILD)/check-failed
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory -k -j$(CHECK_JOBS) --output-sync=target check-steps || true; \
	secs=$$(( $$(date +%s) - start )); \
	if [ -n "$$(ls $(BUILD)/check-failed)" ]; then \
	  echo "make check: FAILED ($$(ls $(BUILD)/check-failed | tr '\n' ' ')), $$secs s on $(CHECK_JOBS) CPUs"; exit 1; fi; \
	echo "make check: all tests passed, $$secs s on $(CHECK_JOBS) CPUs"

check-steps: $(CHECK_STEPS)

# One step: its command, timed; a failure leaves its name in $(BUILD)/check-failed.
check_step = @t0=$$(date +%s); echo "== $(1)"; \
	if $(2); then echo "== $(1): passed in $$(( $$(date +%s) - t0 )) s"; \
	else touch $(BUILD)/check-failed/$(notdir $@); echo "== $(1): FAILED after $$(( $$(date +%s) - t0 )) s"; fi

check-step/layers:
	$(call check_step,tests/layers.py,$(PYTHON) tests/layers.py --self-test && $(PYTHON) tests/layers.py --objects $(BUILD) .)
check-step/config_sources:
	$(call check_step,tests/config_sources.py,$(PYTHON) tests/config_sources.py --self-test && $(PYTHON) tests/config_sources.py)
check-step/slurm:
	$(call check_step,tests/slurm.sh,PYTHON=$(PYTHON) sh tests/slurm.sh)
check-step/studies:
	$(call check_step,tests/studies.py,FUTEXSIM=$(CURDIR)/$(BIN) PYTHON=$(PYTHON) $(PYTHON) tests/studies.py)
check-step/fuzz_tools:
	$(call check_step,tests/fuzz/fuzz_tools.py,$(PYTHON) tests/fuzz/fuzz_tools.py --runs 6 --out $(BUILD)/tools-artifacts)
# the fuzz targets compile (make fuzz builds them with clang; check_fuzz_replay and
# check_fuzz_trace include the scenario's and the trace's, not the result reader's)
check-step/fuzz_targets:
	$(call check_step,tests/fuzz/fuzz_*.c,$(CC) $(ALL_CFLAGS) $(DEP_CFLAGS) -Werror -fsyntax-only tests/fuzz/fuzz_results.c \
	  tests/fuzz/fuzz_scenario.c tests/fuzz/fuzz_trace.c)
check-step/docs_examples:
	$(call check_step,tests/docs_examples.sh,PYTHON=$(PYTHON) FUTEXSIM=$(CURDIR)/$(BIN) sh tests/docs_examples.sh)
# install.sh's makes (of this tree: nothing to do; of its copy) keep this make's variables
# (make sanitize's BUILD) but run serially outside the job server; named through
# CHECK_MAKE, or make would take the line for a recursive make and not sync its output.
CHECK_MAKE := $(MAKE)
check-step/install:
	$(call check_step,tests/install.sh,MAKEFLAGS="$(filter-out -j% -O% --jobserver-auth=%,$(MAKEFLAGS))" \
	  MAKE="$(CHECK_MAKE)" BUILD_DIR="$(BUILD)" sh tests/install.sh)
check-step/protocol_mutants:
	$(call check_step,tests/protocol_mutants.sh,CC="$(CC)" CFLAGS="$(ALL_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)" HELPERS="$(TEST_HELPERS)" \
	  LIBS="$(TOOL_LIB_OBJS) $(LIB) $(FUTEXSIM_LDFLAGS) $(LDFLAGS) $(CHECK_LIBS) $(DEP_LIBS)" \
	  OUT=$(BUILD)/protocol-mutants sh tests/protocol_mutants.sh)
check-step/sched_mutants:
	$(call check_step,tests/sched_mutants.sh,CC="$(CC)" CFLAGS="$(ALL_CFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS)" HELPERS="$(TEST_HELPERS)" \
	  LIBS="$(TOOL_LIB_OBJS) $(LIB) $(FUTEXSIM_LDFLAGS) $(LDFLAGS) $(CHECK_LIBS) $(DEP_LIBS)" \
	  OUT=$(BUILD)/sched-mutants sh tests/sched_mutants.sh)
$(TEST_BINS:$(BUILD)/tests/%=check-step/%): check-step/%:
	$(call check_step,$(BUILD)/tests/$*,FUTEXSIM=$(CURDIR)/$(BIN) $(BUILD)/tests/$*)

bench: deps
	@$(MAKE) --no-print-directory $(BIN)
	@PYTHON=$(PYTHON) QUEUES="$(QUEUES)" sh tests/bench.sh $(BIN)

# Host instructions and cache misses per simulated op under callgrind (E5, E7, 1024 CPUs),
# for the speed work's before/after figures; about a quarter of an hour.
bench-callgrind: deps
	@$(MAKE) --no-print-directory $(BIN)
	@sh tests/bench_callgrind.sh $(BIN)

# Simulates every published point, prints the fit, writes results/validation/; then the
# leave-one-out predictions: each table (or series) predicted from a fit that left it out
# (analysis/calibration-loo-*.yaml, fitted by make calibrate), with the costs fitted on
# the left-out tables back at their unfitted values, each point with the 1-sigma band of
# its error from that fit's covariance (--band: 2 more passes per fitted machine cost);
# then every table from the E5's hardware facts alone (what a machine without data gets);
# last, two figures of the 4-socket E7 from its hardware facts: a published contended-lock
# result (analysis/cna-check) and the v11 table predicted blind (analysis/predict-v11).
LOO_PREDICT := --set "kernel.costs.key_shared=250 cycles" --set "kernel.hash_costs.jhash2_addr_offs=28 cycles" \
  --set "kernel.hash_costs.xxhash=25 cycles" --set "kernel.hash_costs.hash_long=5 cycles" \
  --set "kernel.hash_costs.crc32c=10 cycles" --set "kernel.hash_costs.crc32=30 cycles" \
  --set "kernel.hash_costs.siphash=80 cycles" --set "kernel.hash_costs.hsiphash=45 cycles"
validate: deps
	@$(MAKE) --no-print-directory $(BIN) $(TOOLS)
	bin/futexsim-validate
	@echo; echo "== the same fit, each point the mean of five heap layouts (run.seed 1-5): the 2024 figures are means of five runs"
	@bin/futexsim-validate --seeds 5 --out results/validation/seeds5 | sed -n '/^== error per table/,/^$$/p;/orderings at least/p'
	@echo "== leave-one-out: fitted on the bucket sweep alone, predicting the other tables"
	@bin/futexsim-validate --band --table e5-hashfn-2024 --table e5-v11-2025 --set machine=e5-2650-2s-loo-sweep \
	  $(LOO_PREDICT) --out results/validation/loo-sweep | sed '/^== shape/,$$d'
	@echo "== leave-one-out: fitted on the node-bound points alone, predicting the 28 threads on both nodes"
	@bin/futexsim-validate --band --table e5-sweep-2024 --series all_28 --set machine=e5-2650-2s-loo-node \
	  --out results/validation/loo-node | sed '/^== shape/,$$d'
	@echo "== hardware facts alone: e5-2650-2s-hw (nothing fitted but the kernel path's cycle costs), every table"
	@bin/futexsim-validate --set machine=e5-2650-2s-hw --out results/validation/hw | \
	  sed -n '/^== error per table/,/^$$/p;/orderings at least/p'
	@echo "== anchored: e5-2650-2s-hw fitted by futexsim fit to its five stock-kernel rows alone (analysis/data/e5-2650-stock-rows.yaml), predicting every table"
	@mkdir -p results/validation/anchored
	@bin/futexsim fit analysis/data/e5-2650-stock-rows.yaml -o results/validation/anchored/e5-2650-2s-anchored.yaml --quiet | \
	  sed -n '/^# Rows/,/^name:/p' | sed '$$d'
	@bin/futexsim-validate --set machine=results/validation/anchored/e5-2650-2s-anchored.yaml --out results/validation/anchored | \
	  sed -n '/^== error per table/,/^$$/p;/orderings at least/p'
	@echo "== another machine, hardware facts alone: qspinlock and CNA on the 4-socket E7 (published: locktorture on an E7-8895 v3)"
	@sh analysis/cna-check $(BIN)
	@echo "== another machine, hardware facts alone: the stock qspinlock's locktorture curve (CNA v15 cover letter) against arbitration locality K"
	@sh analysis/locktorture-check $(BIN)
	@echo "== another machine, hardware facts alone: the v11 table predicted for the 4-socket E7 (its figures are not in our sources)"
	@sh analysis/predict-v11 e7-8890v3-4s $(BIN)
	@if $(PYTHON) -c 'import matplotlib' 2>/dev/null; then \
	  $(PYTHON) analysis/plot_validation.py results/validation; \
	else echo "python3-matplotlib missing: no plot (apt-get install python3-matplotlib)"; fi

# Fits the parameters of analysis/calibration*.yaml to the published points and
# rewrites the generated configs (see docs/calibration.md); then refresh the
# regression data of make check with `make regression-data`.
calibrate: deps
	@$(MAKE) --no-print-directory $(BIN) $(TOOLS)
	bin/futexsim-calibrate --spec analysis/calibration.yaml
	bin/futexsim-calibrate --spec analysis/calibration-hash.yaml
	bin/futexsim-calibrate --spec analysis/calibration-loo-sweep.yaml
	bin/futexsim-calibrate --spec analysis/calibration-loo-node.yaml

# The claims of the seed threads, checked in simulation (scenarios/claims/).
claims: deps
	@$(MAKE) --no-print-directory $(BIN) $(TOOLS)
	bin/futexsim-claims

# The what-if studies of the futex threads (scenarios/studies/NAME/run; docs/studies.md):
# each sweeps its scenarios, then prints one verdict line computed from its runs and
# draws its figure (results/studies-small/NAME/, or results/studies-full/ with FULL=1,
# the published grids). ONLY=NAME runs one; J=N runs N at once.
studies: deps
	@$(MAKE) --no-print-directory $(BIN)
	@failed=0; for s in scenarios/studies/*/run; do \
	  n=$$(basename $$(dirname $$s)); \
	  [ -z "$(ONLY)" ] || [ "$(ONLY)" = "$$n" ] || continue; \
	  PYTHON=$(PYTHON) FUTEXSIM=$(CURDIR)/$(BIN) FULL=$(FULL) J=$(J) $$s || failed=1; \
	done; exit $$failed

REGRESSION_SETS := --set run.duration=2ms --set run.warmup=500us
regression-data: deps
	@$(MAKE) --no-print-directory $(BIN) $(TOOLS)
	bin/futexsim-validate --points tests/regression/points.tsv $(REGRESSION_SETS) \
	  --out results/regression --save tests/regression/calibration.tsv

# Plots (analysis/plot; docs/sweeps.md), with Debian's h5py and matplotlib:
#   make plot                 the newest result file in results/: its PNGs beside it
#   make plot RESULT=FILE.h5  that result file
#   make plot SWEEP=DIR       collects the result files under DIR, plots DIR/sweep.png
# PYTHON: the interpreter that sees python3-h5py and python3-matplotlib.
PYTHON ?= /usr/bin/python3
.PHONY: plot sweep-demo
plot: deps
	@if [ -n "$(SWEEP)" ]; then \
	  $(PYTHON) analysis/collect "$(SWEEP)" && $(PYTHON) analysis/plot sweep "$(SWEEP)/sweep.h5"; \
	else \
	  f="$(RESULT)"; [ -n "$$f" ] || f=$$(ls -t results/*.h5 2>/dev/null | head -n 1); \
	  if [ -z "$$f" ]; then echo "make plot: no result file in results/ (make run writes one; or RESULT=FILE.h5)"; exit 1; fi; \
	  $(PYTHON) analysis/plot run "$$f"; \
	fi

# The published E5-2650 bucket sweep simulated: 28 threads on both nodes, the global
# hash and 2..16384 buckets, seeds 1-3, collected and plotted against the published
# all_28 column (results/sweep-demo/sweep.png; docs/sweep-demo.png is a copy).
# J=N runs N at once (default: one per CPU); run again, it continues where it stopped.
SWEEP_DEMO_BUCKETS := 0,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384
sweep-demo: deps
	@$(MAKE) --no-print-directory $(BIN)
	scenarios/sweep scenarios/e5-2650-hashbench.yaml results/sweep-demo --resume $(if $(J),-j $(J)) \
	  --param kernel.private_hash.buckets=$(SWEEP_DEMO_BUCKETS) --param run.seed=1,2,3
	$(PYTHON) analysis/collect results/sweep-demo
	$(PYTHON) analysis/plot sweep results/sweep-demo/sweep.h5 \
	  --published analysis/data/e5-2650-sweep-2024.csv:all_28

# Robustness (docs/robustness.md):
#   make fuzz       every target below in turn, FUZZ_SECONDS each, then a table of the
#                   inputs tried, crashes, hangs and out-of-memory inputs of each
#                   (tests/fuzz/fuzz_all.sh; logs in build-fuzz/TARGET.log)
#   make fuzz-scenario  libFuzzer (clang) over the scenario loader and --set parser for
#                   FUZZ_SECONDS; new inputs collect in build-fuzz/corpus, crashes land in
#                   tests/fuzz/crashes/ (make check replays them: fix, then commit them)
#   make fuzz-merge minimize tests/fuzz/corpus with what make fuzz found
#   make fuzz-results  libFuzzer over the result-file reader for FUZZ_SECONDS, seeded with
#                   tests/fuzz/results-corpus/ (a result file of every workload); inputs that
#                   crash futexsim's reader land in tests/fuzz/results-crashes/ (make check
#                   replays both directories through futexsim show)
#   make fuzz-trace libFuzzer over the trace reader and small replays for FUZZ_SECONDS,
#                   seeded with tests/fuzz/trace-corpus/; crashes land in
#                   tests/fuzz/trace-crashes/ (make check replays both directories)
#   make fuzz-tools analysis/collect and analysis/plot on mutants of those files and of a
#                   sweep table for FUZZ_SECONDS: no traceback, no hang (make check runs 6
#                   rounds); inputs that break one land in build-fuzz/tools-artifacts/
#   make sanitize   every test with ASan+UBSan in build-san/ (the normal build is left
#                   alone), then valgrind memcheck on one short scenario
FUZZ_SECONDS ?= 60
FUZZ_BIN     := build-fuzz/fuzz_scenario
FUZZ_FLAGS   := -timeout=10 -rss_limit_mb=2048 -max_len=8192 -dict=tests/fuzz/scenario.dict
SAN_FLAGS    := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_RESULTS_BIN := build-fuzz/fuzz_results
# libhdf5's own hangs and crashes on damaged files are not futexsim's (it reads
# untrusted files in a child for them): libFuzzer goes on past them (-fork) and keeps
# them under build-fuzz/results-artifacts/ for a look
FUZZ_RESULTS_FLAGS := -timeout=10 -rss_limit_mb=2048 -max_len=262144 -fork=1 -ignore_timeouts=1 \
  -ignore_crashes=1 -ignore_ooms=1
FUZZ_TRACE_BIN := build-fuzz/fuzz_trace
FUZZ_TRACE_FLAGS := -timeout=10 -rss_limit_mb=2048 -max_len=16384
.PHONY: fuzz fuzz-scenario fuzz-merge fuzz-results fuzz-trace fuzz-tools sanitize
# The fuzz targets (tests/fuzz/fuzz_*.c): clang's own flags, whatever CC and CFLAGS
# are, warnings as errors.
build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(LIB_SRCS) $(REVISION_C) $(wildcard sim/*.h sim/core/*.h sim/views/*.h models/*.h)
	@mkdir -p $(dir $@)
	@echo "  CLANG   $@"
	$(Q)clang $(FUTEXSIM_CPPFLAGS) -std=c11 -g $(WARN_CFLAGS) -Werror -O1 -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=undefined $(DEP_CFLAGS) -o $@ $< $(LIB_SRCS) $(REVISION_C) $(DEP_LIBS)

fuzz: deps
	@MAKE='$(MAKE)' FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/fuzz_all.sh

fuzz-scenario: deps
	@$(MAKE) --no-print-directory deps DEB_PKGS=clang
	@$(MAKE) --no-print-directory $(FUZZ_BIN)
	@mkdir -p build-fuzz/corpus tests/fuzz/crashes
	$(FUZZ_BIN) $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	  -artifact_prefix=tests/fuzz/crashes/ build-fuzz/corpus tests/fuzz/corpus

fuzz-results: deps
	@$(MAKE) --no-print-directory deps DEB_PKGS=clang
	@$(MAKE) --no-print-directory $(FUZZ_RESULTS_BIN)
	@mkdir -p build-fuzz/results-corpus build-fuzz/results-artifacts
	ASAN_OPTIONS=detect_leaks=0 $(FUZZ_RESULTS_BIN) $(FUZZ_RESULTS_FLAGS) -max_total_time=$(FUZZ_SECONDS) \
	  -print_final_stats=1 -artifact_prefix=build-fuzz/results-artifacts/ build-fuzz/results-corpus \
	  tests/fuzz/results-corpus

fuzz-trace: deps
	@$(MAKE) --no-print-directory deps DEB_PKGS=clang
	@$(MAKE) --no-print-directory $(FUZZ_TRACE_BIN)
	@mkdir -p build-fuzz/trace-corpus tests/fuzz/trace-crashes
	$(FUZZ_TRACE_BIN) $(FUZZ_TRACE_FLAGS) -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	  -artifact_prefix=tests/fuzz/trace-crashes/ build-fuzz/trace-corpus tests/fuzz/trace-corpus

# The Python tools through their command lines (tests/fuzz/fuzz_tools.py): mutants of
# every workload's result file and of a sweep table, for FUZZ_SECONDS.
fuzz-tools: deps
	$(PYTHON) tests/fuzz/fuzz_tools.py --seconds $(FUZZ_SECONDS)

fuzz-merge: deps
	@$(MAKE) --no-print-directory deps DEB_PKGS=clang
	@$(MAKE) --no-print-directory $(FUZZ_BIN)
	@rm -rf build-fuzz/merged && mkdir -p build-fuzz/merged build-fuzz/corpus
	$(FUZZ_BIN) $(FUZZ_FLAGS) -merge=1 build-fuzz/merged tests/fuzz/corpus build-fuzz/corpus
	rm -rf tests/fuzz/corpus && mv build-fuzz/merged tests/fuzz/corpus

sanitize: deps
	@$(MAKE) --no-print-directory deps DEB_PKGS=valgrind
	@$(MAKE) --no-print-directory BUILD=build-san BIN=build-san/bin/futexsim OPT=-O1 \
	  SANITIZE="$(SAN_FLAGS)" WERROR=1 check
	@$(MAKE) --no-print-directory $(BIN)
	valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
	  $(BIN) run scenarios/quickstart.yaml --set run.duration=100us --set run.warmup=20us \
	  -o build-san/valgrind.h5 > /dev/null
	@echo "make sanitize: ASan+UBSan tests and valgrind memcheck clean"

# Result-preserving changes (restructuring, optimisation) prove it here: the
# regression scenarios run by this tree's build and by REF's give identical
# result files but for the wall clock and the command line (tests/same_results.sh).
REF ?= HEAD
.PHONY: same-results
same-results: deps
	@PYTHON=$(PYTHON) sh tests/same_results.sh $(REF)

# Models the machine make runs on and checks the model against it (docs/probe.md):
# futexsim probe reads its topology, measures its costs for PROBE_SECONDS (default 20)
# and writes HOST_MACHINE (default results/host-machine.yaml); every constant's source
# comment is checked; then `probe --check` runs perf bench futex hash's loop on this
# machine (1 thread, 1 per core, every CPU, private and shared, private hash sizes)
# for CHECK_SECONDS (default 20), with perf itself when installed, simulates the same
# on HOST_MACHINE, prints real vs simulated and writes the table to HOST_CHECK
# (default results/host-check.csv).
HOST_MACHINE  ?= results/host-machine.yaml
HOST_CHECK    ?= results/host-check.csv
PROBE_SECONDS ?= 20
CHECK_SECONDS ?= 20
.PHONY: host-check
host-check: deps
	@$(MAKE) --no-print-directory $(BIN)
	@mkdir -p $(dir $(HOST_MACHINE)) $(dir $(HOST_CHECK))
	$(BIN) probe --seconds $(PROBE_SECONDS) -o $(HOST_MACHINE)
	$(PYTHON) tests/config_sources.py $(HOST_MACHINE)
	$(BIN) probe --check --machine $(HOST_MACHINE) --seconds $(CHECK_SECONDS) -o $(HOST_CHECK)

# Install (GNU conventions: PREFIX, DESTDIR for staging). The installed futexsim and its
# tools find their data (configs/, scenarios/, analysis/) in PREFIX/share/futexsim,
# beside their own PREFIX/bin (through /proc/self/exe, so a staged or moved tree works
# too; a source tree's bin/futexsim finds the tree above it the same way).
PREFIX   ?= /usr/local
DESTDIR  ?=
INSTALL  ?= install
bindir   := $(PREFIX)/bin
pkgdatadir := $(PREFIX)/share/futexsim
docdir   := $(PREFIX)/share/doc/futexsim
# analysis/collect, analysis/plot and analysis/study with the modules they import, run through
# bin/futexsim-collect, -plot and -study (links: python finds the modules beside them)
PY_TOOLS := collect plot study
# what futexsim-validate, -calibrate and -claims read (found in PREFIX/share/futexsim
# beside their PREFIX/bin; the scenarios the points name are installed with the rest)
TOOL_DATA := analysis/validation-points.tsv $(wildcard analysis/calibration*.yaml)
PY_MODULES := analysis/results_io.py analysis/plot_run.py analysis/plot_sweep.py analysis/studies.py
mandir   := $(PREFIX)/share/man/man1
compdir  := $(PREFIX)/share/bash-completion/completions
# One page per command, generated from the same text as its --help (help2man), so
# they cannot drift: futexsim(1), futexsim-run(1), ..., and the analysis tools'
# futexsim-validate(1), -calibrate(1), -claims(1). A command's page's program is a
# two-line wrapper that runs `futexsim COMMAND`. Every page ends with the same SEE ALSO.
# `make install` builds them again in build/man-install with FUTEXSIM_DATA set to the
# installed data directory, so that they name the directories the installed --help does.
MAN_CMDS := run bench show compare explain c2c list probe record fit
MAN_TOOLS := validate calibrate claims
MAN_DIR  := $(BUILD)/man
MAN_DATA ?=
MAN_PAGES = $(MAN_DIR)/futexsim.1 $(MAN_CMDS:%=$(MAN_DIR)/futexsim-%.1) $(MAN_TOOLS:%=$(MAN_DIR)/futexsim-%.1) \
  $(PY_TOOLS:%=$(MAN_DIR)/futexsim-%.1)
MAN_NAME_run := simulate a futex hashing scenario and write its results
MAN_NAME_bench := perf bench futex (hash, wake, wake-parallel, requeue, lock-pi), typed as perf users type it, simulated
MAN_NAME_show := print the summary and figures of futexsim result files
MAN_NAME_compare := compare futexsim result files, gate CI on thresholds
MAN_NAME_explain := where the simulated threads' time went, per op
MAN_NAME_c2c := a perf-c2c-like report of the hottest cache lines of a simulated run
MAN_NAME_list := list the machines, kernels, scenarios, workloads, hashes and refcount modes
MAN_NAME_probe := model the machine it runs on and check the model against its kernel
MAN_NAME_fit := fit a machine's CPU-side costs to its stock kernel's perf bench futex rows
MAN_NAME_validate := simulate the published points and print published vs simulated
MAN_NAME_calibrate := fit the model's costs to the published points
MAN_NAME_claims := check the claims of twenty years of futex-hashing threads in simulation
MAN_NAME_collect := tabulate a directory of futexsim result files (a sweep) as CSV and HDF5
MAN_NAME_plot := plot a futexsim result file, a collected sweep, or designs side by side
MAN_NAME_study := compute a futexsim study's verdict from its runs and draw its figure
MAN_ENV = env -u FUTEXSIM_CONFIGS $(if $(MAN_DATA),FUTEXSIM_DATA='$(MAN_DATA)',-u FUTEXSIM_DATA)
MAN_NAME_record := record a program's futex calls as a trace for workload.type: trace to replay
.PHONY: man
man: $(MAN_PAGES)
$(MAN_DIR)/see-also.h2m: Makefile
	@mkdir -p $(dir $@)
	$(Q){ printf '[SEE ALSO]\n'; \
	  for p in futexsim $(MAN_CMDS:%=futexsim-%) $(MAN_TOOLS:%=futexsim-%) $(PY_TOOLS:%=futexsim-%); do printf '.BR %s (1),\n' $$p; done; \
	  printf 'and README.md and docs/*.md in %s.\n' '$(docdir)'; } > $@
$(MAN_DIR)/futexsim.1: $(BIN) $(MAN_DIR)/see-also.h2m
	$(Q)$(MAN_ENV) help2man --no-info --no-discard-stderr -i $(MAN_DIR)/see-also.h2m \
	  -n "a discrete-event simulator of Linux futex hashing on NUMA machines" -o $@ $(BIN)
$(MAN_CMDS:%=$(MAN_DIR)/futexsim-%.1): $(MAN_DIR)/futexsim-%.1: $(BIN) $(MAN_DIR)/see-also.h2m
	$(Q)printf '#!/bin/sh\nexec "%s" %s "$$@"\n' "$(CURDIR)/$(BIN)" "$*" > $(MAN_DIR)/futexsim-$* && \
	  chmod +x $(MAN_DIR)/futexsim-$* && \
	  $(MAN_ENV) help2man --no-info --no-discard-stderr -i $(MAN_DIR)/see-also.h2m -n "$(MAN_NAME_$*)" \
	    --version-string="futexsim-$* $$($(BIN) --version | cut -d' ' -f2-)" -o $@ $(MAN_DIR)/futexsim-$*
$(MAN_TOOLS:%=$(MAN_DIR)/futexsim-%.1): $(MAN_DIR)/futexsim-%.1: $(TOOL_DIR)futexsim-% $(MAN_DIR)/see-also.h2m
	$(Q)$(MAN_ENV) help2man --no-info --no-discard-stderr -i $(MAN_DIR)/see-also.h2m -n "$(MAN_NAME_$*)" \
	    --version-string="futexsim-$* $$($(BIN) --version | cut -d' ' -f2-)" -o $@ $(TOOL_DIR)futexsim-$*

# The Python tools' pages: help2man runs each through a link named as make install names
# it (futexsim-collect, ...), so that its usage line names the installed command.
$(PY_TOOLS:%=$(MAN_DIR)/futexsim-%.1): $(MAN_DIR)/futexsim-%.1: analysis/% analysis/results_io.py $(BIN) $(MAN_DIR)/see-also.h2m
	$(Q)ln -sf "$(CURDIR)/analysis/$*" $(MAN_DIR)/futexsim-$* && \
	  if $(MAN_DIR)/futexsim-$* --help >/dev/null 2>&1; then \
	    $(MAN_ENV) help2man --no-info --no-discard-stderr -i $(MAN_DIR)/see-also.h2m -n "$(MAN_NAME_$*)" \
	      --version-string="futexsim-$* $$($(BIN) --version | cut -d' ' -f2-)" -o $@ $(MAN_DIR)/futexsim-$*; \
	  else echo "futexsim-$*(1) not made: its --help fails (/usr/bin/python3 lacks h5py, numpy or matplotlib?)"; fi

.PHONY: install uninstall
install: $(BIN) $(TOOLS)
	$(INSTALL) -d $(DESTDIR)$(bindir) $(DESTDIR)$(pkgdatadir)/configs/machines \
	  $(DESTDIR)$(pkgdatadir)/configs/kernels $(DESTDIR)$(pkgdatadir)/analysis $(DESTDIR)$(docdir)/docs
	$(INSTALL) -m 755 $(BIN) $(TOOLS) $(DESTDIR)$(bindir)/
	$(INSTALL) -m 644 configs/machines/*.yaml $(DESTDIR)$(pkgdatadir)/configs/machines/
	$(INSTALL) -m 644 configs/kernels/*.yaml $(DESTDIR)$(pkgdatadir)/configs/kernels/
	rm -rf $(DESTDIR)$(pkgdatadir)/scenarios
	cp -R scenarios $(DESTDIR)$(pkgdatadir)/scenarios
	$(INSTALL) -m 755 $(PY_TOOLS:%=analysis/%) $(DESTDIR)$(pkgdatadir)/analysis/
	$(INSTALL) -m 644 $(PY_MODULES) $(DESTDIR)$(pkgdatadir)/analysis/
	$(INSTALL) -m 644 $(TOOL_DATA) $(DESTDIR)$(pkgdatadir)/analysis/
	for t in $(PY_TOOLS); do ln -sf ../share/futexsim/analysis/$$t $(DESTDIR)$(bindir)/futexsim-$$t; done
	$(INSTALL) -m 644 README.md LICENSE $(DESTDIR)$(docdir)/
	$(INSTALL) -m 644 docs/*.md docs/*.png $(DESTDIR)$(docdir)/docs/
	$(INSTALL) -d $(DESTDIR)$(compdir)
	$(INSTALL) -m 644 sim/futexsim.bash $(DESTDIR)$(compdir)/futexsim
	@if command -v help2man >/dev/null 2>&1; then \
	  rm -rf $(BUILD)/man-install && \
	  $(MAKE) --no-print-directory man MAN_DIR=$(BUILD)/man-install MAN_DATA='$(pkgdatadir)' && \
	  $(INSTALL) -d $(DESTDIR)$(mandir) && \
	  for page in $(MAN_PAGES:$(MAN_DIR)/%=$(BUILD)/man-install/%); do \
	    if [ -f $$page ]; then $(INSTALL) -m 644 $$page $(DESTDIR)$(mandir)/ || exit 1; fi; done; \
	else echo "help2man missing: no man pages installed (apt-get install help2man)"; fi

uninstall:
	rm -f $(DESTDIR)$(bindir)/futexsim $(TOOLS:$(TOOL_DIR)%=$(DESTDIR)$(bindir)/%) \
	  $(PY_TOOLS:%=$(DESTDIR)$(bindir)/futexsim-%)
	rm -rf $(DESTDIR)$(pkgdatadir) $(DESTDIR)$(docdir)
	rm -f $(DESTDIR)$(mandir)/futexsim.1 $(MAN_CMDS:%=$(DESTDIR)$(mandir)/futexsim-%.1) \
	  $(MAN_TOOLS:%=$(DESTDIR)$(mandir)/futexsim-%.1) $(PY_TOOLS:%=$(DESTDIR)$(mandir)/futexsim-%.1)
	rm -f $(DESTDIR)$(compdir)/futexsim

clean:
	rm -rf $(BUILD) bin build-san build-fuzz build-ref

-include $(LIB_OBJS:.o=.d) $(BUILD)/sim/main.d $(TOOL_LIB_OBJS:.o=.d) $(TOOL_SRCS:analysis/%.c=$(BUILD)/analysis/%.d)
