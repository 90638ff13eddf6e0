# SPDX-License-Identifier: GPL-2.0
#
# PRISM top-level Makefile.  The kernel module itself is described by the
# Kbuild files (kbuild reads Kbuild, not this Makefile); this file drives
# the helper scripts under tools/.
#
#   make              module for the stock kernel + userspace subdirectories
#   make check        install missing packages, then run every test stage
#   make module-debug module against the debug kernel (built on first use)
#   make fuzz         install missing packages, fuzz engine/wire 10 min + coverage
#   make deb          install missing packages, Debian packages into build/deb
#   make bench-large  READ/WRITE 4 KiB..1 MiB, PRISM vs rxe vs TCP in one guest
#                     run (tools/bench/large.sh; results in build/vm-out)
#   make bench-cpu    target CPU per op, PRISM vs UDP servers, on two guests
#                     (tools/bench/cpu.sh; results in build/vm-out)
#   make bench-depth  READ 8 B and CAS at depth 1..256, PRISM vs rxe in one
#                     guest run (tools/bench/depth.sh; doc/DEPTH-BENCH.md)
#   make bench-incast 8 client netns x depth 16 -> 1 target, cc=1 and cc=0
#                     (tools/bench/incast.sh; doc/DEPTH-BENCH.md)
#   make bench-mcore  READ 8 B from 4 clients against one 2-vCPU target, receive
#                     pinned to one CPU vs steered (tools/bench/mcore.sh)
#   make bench-udp    raw Ethernet vs UDP/IPv4 vs UDP/IPv6: READ 512, CAS,
#                     indirect READ (tools/bench/udp.sh; doc/UDP-BENCH.md)
#   make bench-udp-mh the same between two guests joined by virtio-net
#   make bench-rss    UDP sessions over 1 vs 2 NIC queues of a 2-vCPU target,
#                     two guests on a host bridge of multi-queue taps (root;
#                     tools/bench/rss_mh.sh; doc/UDP-BENCH.md)
#   make figures      the paper's Figures 3, 4, 6, 7, 9, 10 (stores vs their
#                     baselines; and 7d, figure 7 with the clients waiting on
#                     the network) in one guest run (tools/figures; results
#                     copied to doc/results/figures/, see doc/RESULTS.md)
#   make scale        the three stores at the paper's scale, 8 M objects of
#                     512 B (tools/figures/scale.sh, doc/results/scale/)
#   make kv-mh        PRISM-KV vs Pilaf, a server guest and two client guests
#                     of several processes each, throughput over time
#                     (tools/bench/kv_mh.sh, doc/results/kv-mh/)
#   make tx-mh        PRISM-TX vs FaRM the same way, YCSB-T, and the bank
#                     checked from every client (tools/bench/tx_mh.sh)
#   make demo / deps / clean

# Stock target kernel: the newest installed 6.1 headers (never `uname -r`,
# the host runs another kernel).  Override with `make KVER=...`.
KVER ?= $(shell ls -d /lib/modules/6.1.*/build 2>/dev/null | \
	sed -e 's,^/lib/modules/,,' -e 's,/build$$,,' | sort -V | tail -n 1)
export PRISM_KVER := $(KVER)

# Userspace subdirectories that exist yet, library first.
USER_DIRS := $(foreach d,liburing-prism selftests apps tools,$(if $(wildcard $(d)/Makefile),$(d)))

.PHONY: all module module-debug kernel-debug user deps check demo fuzz deb clean bench-large bench-cpu bench-depth bench-incast bench-mcore bench-udp bench-udp-mh bench-rss figures scale kv-mh tx-mh

all: module user

module:
	tools/kernel/build-module.sh stock

module-debug:
	tools/kernel/build-module.sh debug

kernel-debug:
	tools/kernel/build-debug.sh

# Sequential on purpose: later directories link the library.
user:
	@set -e; for d in $(USER_DIRS); do $(MAKE) -C $$d; done

deps:
	tools/install-deps.sh

check: deps
	tools/run-tests.sh

fuzz: deps
	tools/fuzz/run.sh --seconds 600 --coverage

# prism-dkms, prism-tools, liburing-prism, liburing-prism-dev (committed tree).
deb: deps
	tools/pkg/mkdeb.sh

# Both commands must work as the first one on a fresh machine: install first.
demo: deps
	$(MAKE) all
	tools/demo.sh

# $(call bench_guest,SCRIPT,DEFAULT TIMEOUT[,RUN.SH OPTIONS[,OUT]]): one guest
# run of a benchmark script with the stock module, the commit recorded in
# its results; OUT (emptied first) becomes its PRISM_OUT.
define bench_guest
	$(MAKE) user
	$(if $(4),rm -rf $(4))
	ko=$$(tools/kernel/build-module.sh stock | grep '/prism\.ko$$') && \
	PRISM_KO=$$ko $(if $(4),PRISM_OUT=$(CURDIR)/$(4)) \
	PRISM_BENCH_COMMIT=$$(git rev-parse --short HEAD 2>/dev/null) \
		tools/vm/run.sh --kernel stock $(3) --timeout $${PRISM_TIMEOUT_BENCH:-$(2)} -- $(1)
endef

# The paper's figures (tools/figures/all.sh, about 12 minutes in one guest
# per round: PRISM_FIG_ROUNDS, each point the median of its rounds); the
# data, plots and ratio table then go to doc/results/figures/.
figures: deps
	$(call bench_guest,tools/figures/all.sh,7200,,build/figures)
	mkdir -p doc/results/figures
	cp build/figures/meta.json build/figures/figures.md build/figures/figures.json doc/results/figures/
	for d in build/figures/fig*/; do f=$$(basename $$d); \
		cp $$d/$$f.png $$d/$$f.csv $$d/$$f.summary.json doc/results/figures/ && \
		for c in $$d/c*/; do for j in $$c/bench-*.json $$c/r*/bench-*.json; do \
			[ -f $$j ] || continue; r=$$(basename $$(dirname $$j)); \
			case $$r in r*) r=$$(basename $$c)-$$r ;; esac; \
			cp $$j doc/results/figures/$$f-$$r.json; done; done; \
	done

# The three stores at the paper's scale, 8 M objects of 512 B each
# (tools/figures/scale.sh; about 15 minutes in one guest of 15 GiB: the
# host needs about 17 GiB free); results go to doc/results/scale/.
scale: deps
	$(call bench_guest,tools/figures/scale.sh,7200,--mem $${PRISM_SCALE_MEM:-15360},build/scale)
	mkdir -p doc/results/scale
	cp build/scale/scale/scale.md build/scale/scale/scale.csv build/scale/scale/scale.png \
		build/scale/scale/scale.summary.json build/scale/scale/config.json doc/results/scale/
	for c in build/scale/scale/*/c*/; do s=$$(basename $$(dirname $$c)); \
		cp $$c/bench-*.json doc/results/scale/$$s.json; done

# One guest run each: bench-large (doc/LARGE-BENCH.md), bench-depth and
# bench-incast (doc/DEPTH-BENCH.md).
bench-large bench-depth bench-incast bench-udp: deps
	$(call bench_guest,tools/bench/$(@:bench-%=%).sh,3000)

# tools/bench/mcore.sh in a guest of 2 vCPUs (run.sh's default; doc/MCORE-BENCH.md).
bench-mcore: deps
	$(call bench_guest,tools/bench/mcore.sh,1800)

# Two guests joined by virtio-net, the target's one vCPU measured (doc/CPU-BENCH.md).
bench-cpu: deps
	$(MAKE) user
	ko=$$(tools/kernel/build-module.sh stock | grep '/prism\.ko$$') && \
	PRISM_KO=$$ko PRISM_BENCH_COMMIT=$$(git rev-parse --short HEAD 2>/dev/null) \
		tools/vm/multi.sh -n 2 --timeout $${PRISM_TIMEOUT_BENCH:-3000} -- \
		tools/bench/cpu.sh

# bench-udp between two guests joined by virtio-net (doc/UDP-BENCH.md).
bench-udp-mh: deps
	$(MAKE) user
	ko=$$(tools/kernel/build-module.sh stock | grep '/prism\.ko$$') && \
	PRISM_KO=$$ko PRISM_BENCH_COMMIT=$$(git rev-parse --short HEAD 2>/dev/null) \
		tools/vm/multi.sh -n 2 --timeout $${PRISM_TIMEOUT_BENCH:-3000} -- \
		tools/bench/udp.sh

# Two guests of 2 vCPUs with 2-queue NICs on host taps (doc/UDP-BENCH.md).
bench-rss: deps
	$(MAKE) user
	ko=$$(tools/kernel/build-module.sh stock | grep '/prism\.ko$$') && \
	PRISM_KO=$$ko PRISM_BENCH_COMMIT=$$(git rev-parse --short HEAD 2>/dev/null) \
		tools/vm/multi.sh -n 2 --smp 2 --queues 2 \
		--timeout $${PRISM_TIMEOUT_BENCH:-1500} -- tools/bench/rss_mh.sh

# Clients on two hosts against a server guest (tools/bench/kv_mh.sh,
# tx_mh.sh in tools/vm/multi.sh guests; PRISM_MH_GUESTS, default 3; the
# server guest gets PRISM_MH_MEM0 MB, default 2048: it holds the data);
# the report (JSON, table, plot) is copied to doc/results/kv-mh/, tx-mh/.
kv-mh tx-mh: deps
	$(MAKE) user
	rm -rf build/$@
	ko=$$(tools/kernel/build-module.sh stock | grep '/prism\.ko$$') && \
	PRISM_KO=$$ko PRISM_OUT=$(CURDIR)/build/$@ \
	PRISM_BENCH_COMMIT=$$(git rev-parse --short HEAD 2>/dev/null) \
		tools/vm/multi.sh -n $${PRISM_MH_GUESTS:-3} --mem0 $${PRISM_MH_MEM0:-2048} \
		--timeout $${PRISM_TIMEOUT_BENCH:-3000} -- tools/bench/$(subst -,_,$@).sh
	mkdir -p doc/results/$@
	cp build/$@/$@/bench-$@.* doc/results/$@/

clean:
	tools/kernel/build-module.sh clean
	@set -e; for d in $(USER_DIRS); do $(MAKE) -C $$d clean; done
	rm -rf build
