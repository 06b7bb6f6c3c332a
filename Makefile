# mysqlmemprof: `make` builds, `make check` tests, `make demo` shows it.
# `make check` and `make demo` first install missing Debian packages.

PROG    = mysqlmemprof
# One place for the version: the package's changelog, whose first line is
# "mysqlmemprof (VERSION) ...".
VERSION = $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DESTDIR ?=

CC      ?= cc
CFLAGS  ?= -O2 -g
# `override`: what the project needs stays when CFLAGS is given on the
# command line. -MMD -MP: objects depend on the headers they include.
override CFLAGS += -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -MMD -MP
override CPPFLAGS += -Iinclude -Isrc -D_GNU_SOURCE -DMYSQLMEMPROF_VERSION='"$(VERSION)"'
# WERROR=1 (CI) makes every warning an error.
ifeq ($(WERROR),1)
override CFLAGS += -Werror
endif

# SANITIZE=1 builds everything with AddressSanitizer and UBSan, in a build
# folder of its own, and leaves ./mysqlmemprof alone.
ifeq ($(SANITIZE),1)
override CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
override LDFLAGS += -fsanitize=address,undefined
BUILD   ?= build/sanitize
endif
BUILD   ?= build

# Recursive (=) so they are computed when used, after `deps` has run.
# mysqlclient: Oracle's library, or Connector/C through Debian's
# default-libmysqlclient-dev; libmariadb: Connector/C installed alone
# (libmariadb-dev, as Debian 13 users do).
MYSQL_CFLAGS = $(shell pkg-config --cflags mysqlclient 2>/dev/null || pkg-config --cflags libmariadb 2>/dev/null || mysql_config --cflags)
MYSQL_LIBS   = $(shell pkg-config --libs mysqlclient 2>/dev/null || pkg-config --libs libmariadb 2>/dev/null || mysql_config --libs)
CMOCKA_LIBS  = $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)
# The pprof format: protobuf-c for the message, zlib for its gzip.
PPROF_CFLAGS = $(shell pkg-config --cflags libprotobuf-c zlib 2>/dev/null)
PPROF_LIBS   = $(shell pkg-config --libs libprotobuf-c zlib 2>/dev/null || echo -lprotobuf-c -lz)
# The live view: ncurses, the wide-character build.
CURSES_CFLAGS = $(shell pkg-config --cflags ncursesw 2>/dev/null)
CURSES_LIBS   = $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw -ltinfo)
# --listen's HTTP server.
MHD_CFLAGS   = $(shell pkg-config --cflags libmicrohttpd 2>/dev/null)
# Loaded by --listen only (src/exporter.c says why): its soname, not a link.
MHD_SONAME   = $(shell objdump -p $$(pkg-config --variable=libdir libmicrohttpd 2>/dev/null)/libmicrohttpd.so 2>/dev/null | awk '/SONAME/ { print $$2 }')
JANSSON_LIBS = $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
# --heap's names of return addresses: elfutils' libdwfl reads the ELF
# files, libstdc++'s __cxa_demangle demangles (src/symbols.c says why).
DW_CFLAGS    = $(shell pkg-config --cflags libdw 2>/dev/null)
DW_LIBS      = $(shell pkg-config --libs libdw 2>/dev/null || echo -ldw -lelf) -lstdc++

# The modules that never see the server: unit-tested on their own.
CORE = cli cli_check cli_apply modes cli_options cli_usage optfile clock gate ring topn delta filter sampler \
       summary units output output_format output_table output_columns \
       clean output_text output_text_summary output_text_list output_csv output_json \
       threads match outname \
       statement trigger recorder reconnect look follow guard finished scrub diag pfs_rows \
       pfs_sql profile pprof output_profile output_folded output_pprof live_model live_grid live_draw live_draw_list live_draw_layers history
# One capture, waiting and the output file: through the session's
# operations, so the fake server drives them.
CORE += outfile outpath capture capture_chain capture_end hunt
# The whole run's statistics, beside the ring's summary.
CORE += runstats names
# --global with --listen: the top threads read beside the samples.
CORE += top_threads
# --global: every connection read beside the samples, for the record.
CORE += conns
# --explain: the layers' structs and MySQLTuner's estimate.
CORE += layers
# --global: the server's process beside the samples (its /proc files),
# its memory cgroup and the kernel's line on an OOM kill; --explain: its
# layers (procmaps: allocator, arenas, smaps).
CORE += procmem procmaps procfs cgroup kmsg resident
# The buffer the text, CSV and JSON formats write a sample into.
CORE += obuf
# --listen: the page of the exporter (metrics), and the exporter.
CORE   += metrics
# --heap: the names of a process's return addresses, from its ELF files.
CORE   += symbols
# The modules that talk to the server, and the program.
SERVER = conn conn_auth conn_auth_connector conn_auth_oracle conn_pin conn_io conn_stmt pfs_check pfs_list pfs_look pfs_read session prompt \
         app signals live top
SERVER += exporter
# The picture of a run (--format html, svg) and the reader of captures (--read).
CORE   += chart picture output_html output_svg jsonl
# --record: its folder, its connections lines, its incidents; --since.
CORE   += utc segments reader conns_lines dirfile dirlist incident_line incident incident_plot incident_page incident_queue beat
# A thread's own count each tick, its rows when it moves (issue 33).
CORE   += total
# --explain: the gap between resident and counted memory, in layers.
CORE   += explain explain_model explain_out gap
# --heap: jemalloc's heap profiles, parsed and found (issue 34).
CORE   += heapdump heapfind
SERVER += replay record
# --heap: the server's jemalloc heap profile, named (issue 34).
CORE   += heap heap_pick heap_profile heap_out heap_pprof heap_summary
# --record: the server's dumps kept, drawn on an incident's page.
CORE   += heap_flame heapkeep incident_heap

CORE_OBJS   = $(CORE:%=$(BUILD)/%.o) $(BUILD)/profile.pb-c.o
SERVER_OBJS = $(SERVER:%=$(BUILD)/%.o)
UNIT_TESTS  = $(patsubst tests/unit/%.c,$(BUILD)/%,$(wildcard tests/unit/test_*.c))

ifeq ($(SANITIZE),1)
all: $(BUILD)/$(PROG)
else
all: $(PROG)
endif

$(PROG): $(BUILD)/$(PROG)
	cp $< $@

$(BUILD)/$(PROG): $(BUILD)/main.o $(SERVER_OBJS) $(BUILD)/libcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(MYSQL_LIBS) $(CURSES_LIBS) -ldl -lpthread -lcsv $(PPROF_LIBS) $(JANSSON_LIBS) $(DW_LIBS) -lssl -lcrypto -lm

$(BUILD)/libcore.a: $(CORE_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/conn.o $(BUILD)/conn_auth.o $(BUILD)/conn_auth_connector.o $(BUILD)/conn_auth_oracle.o $(BUILD)/conn_pin.o $(BUILD)/conn_io.o $(BUILD)/conn_stmt.o: override CPPFLAGS += $(MYSQL_CFLAGS)
$(BUILD)/live.o: override CPPFLAGS += $(CURSES_CFLAGS)
$(BUILD)/symbols.o: override CPPFLAGS += $(DW_CFLAGS)
$(BUILD)/exporter.o: override CPPFLAGS += $(MHD_CFLAGS) $(if $(MHD_SONAME),-DMHD_SONAME='"$(MHD_SONAME)"')

$(BUILD)/%.o: src/%.c | $(BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The C of proto/profile.proto is generated into the build folder, never
# committed: protoc-c (protobuf-c-compiler) is a build dependency, so the
# code always matches the .proto and the library installed.
$(BUILD)/profile.pb-c.c $(BUILD)/profile.pb-c.h: proto/profile.proto | $(BUILD)
	protoc-c --proto_path=proto --c_out=$(BUILD) $<

$(BUILD)/profile.pb-c.o: $(BUILD)/profile.pb-c.c
	$(CC) $(CPPFLAGS) $(PPROF_CFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/pprof.o $(BUILD)/heap_pprof.o: $(BUILD)/profile.pb-c.h
$(BUILD)/pprof.o $(BUILD)/heap_pprof.o: override CPPFLAGS += -I$(BUILD) $(PPROF_CFLAGS)

-include $(wildcard $(BUILD)/*.d)

$(BUILD)/test_%: tests/unit/test_%.c $(BUILD)/libcore.a | $(BUILD)
	$(CC) $(CPPFLAGS) -Itests/unit -I$(BUILD) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libcore.a $(CMOCKA_LIBS) -lcsv $(PPROF_LIBS) $(JANSSON_LIBS) $(DW_LIBS) -lcrypto -ldl -lm

# test_pfs_read drives the thread reader (a server module) with rows of its
# own, through a conn_query_shared() of its own in place of conn_stmt.c's.
$(BUILD)/test_pfs_read: tests/unit/test_pfs_read.c $(BUILD)/pfs_read.o $(BUILD)/libcore.a | $(BUILD)
	$(CC) $(CPPFLAGS) -Itests/unit -I$(BUILD) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/pfs_read.o $(BUILD)/libcore.a $(CMOCKA_LIBS) -lm

# test_symbols' programs to name (tests/unit/symfix/): a shared library
# with .symtab, the same stripped, one whose symbols are in a debug file
# found by build id under a root folder, a PIE executable with and
# without .symtab, and one not PIE. -O0: functions stay in the order written, so a static
# one follows an exported one. Not named test_*: tests/run.sh runs those.
SYMFIX       = $(BUILD)/symfix
SYMFIX_CC    = $(CC) -O0 -g -Wl,--build-id
SYMFIX_FILES = $(SYMFIX)/libsymfix.so $(SYMFIX)/libsymfix_stripped.so \
	       $(SYMFIX)/root/lib/libsymfix_split.so $(SYMFIX)/prog $(SYMFIX)/prog_stripped \
	       $(SYMFIX)/prog_nopie $(SYMFIX)/shoff_past_end.elf

$(BUILD)/test_symbols: $(SYMFIX_FILES)

$(SYMFIX)/cxx.o: tests/unit/symfix/cxx.cpp
	@mkdir -p $(SYMFIX)
	$(CXX) -O0 -g -fPIC -c -o $@ $<

# Its segments start at 2 MiB, not 0 (as prelink left libraries): a load
# bias is not the mapping's start less its offset.
$(SYMFIX)/libsymfix.so: tests/unit/symfix/lib.c $(SYMFIX)/cxx.o
	$(SYMFIX_CC) -fPIC -shared -Wl,-soname,libsymfix.so -Wl,-Ttext-segment=0x200000 -o $@ $^

$(SYMFIX)/libsymfix_stripped.so: $(SYMFIX)/libsymfix.so
	strip --strip-all -o $@ $<

# Stripped, its .symtab moved to ROOT/usr/lib/debug/.build-id/xx/yyyy.debug,
# as Debian's -dbgsym packages install it.
$(SYMFIX)/root/lib/libsymfix_split.so: $(SYMFIX)/libsymfix.so
	@mkdir -p $(@D)
	id=$$(readelf -n $< | awk '/Build ID:/ { print $$3 }') && \
	[ -n "$$id" ] && d=$(SYMFIX)/root/usr/lib/debug/.build-id/$$(echo $$id | cut -c1-2) && \
	mkdir -p $$d && objcopy --only-keep-debug $< $$d/$$(echo $$id | cut -c3-).debug && \
	strip --strip-all -o $@ $<

$(SYMFIX)/prog: tests/unit/symfix/prog.c
	@mkdir -p $(SYMFIX)
	$(SYMFIX_CC) -fPIE -pie -o $@ $<

$(SYMFIX)/prog_stripped: $(SYMFIX)/prog
	strip --strip-all -o $@ $<

# ET_EXEC: at the addresses it was linked for, whatever its mapping says.
$(SYMFIX)/prog_nopie: tests/unit/symfix/prog.c
	@mkdir -p $(SYMFIX)
	$(SYMFIX_CC) -fno-pie -no-pie -o $@ $<

# fuzz_symbols' first find: section headers past the end of a file cut
# short, which libelf 0.188 read out of bounds.
$(SYMFIX)/shoff_past_end.elf: tests/unit/symfix/shoff_past_end.elf
	@mkdir -p $(SYMFIX)
	cp $< $@

# bench/record_cost.py's driver of an incident at many connections: the
# core's own writer, no server.
$(BUILD)/incident_delay: bench/incident_delay.c $(BUILD)/libcore.a | $(BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libcore.a -lcsv $(PPROF_LIBS) $(JANSSON_LIBS) $(DW_LIBS) -lcrypto -lm

$(BUILD):
	mkdir -p $@

unit: $(UNIT_TESTS)

# What building and the demo need; deps-test adds what only the tests,
# the fuzzers and the bench use.
deps:
	scripts/deps.sh

deps-test:
	scripts/deps.sh --test

# The README's test command: unit tests and bench/docfigures.py, then the
# real binary against throwaway MariaDB and MySQL servers (tests/run.sh).
check: deps-test
	$(MAKE) all $(BUILD)/$(PROG) unit
	BUILD=$(BUILD) MMP_BIN=$(CURDIR)/$(BUILD)/$(PROG) tests/run.sh

demo: deps
	$(MAKE) all
	scripts/demo.sh

# bench/run.py (mysqlmemprof against the samplers people use), then
# bench/overhead.py on MariaDB 10.11 and on MySQL 9.7 (what sampling costs
# the server under sysbench and with up to 1,000 connections, the 1.05x and
# 1.2x targets), then bench/servers.sh (a sample, a look and --list on each
# server), then bench/scale_cost.py (what sampling one thread at 250 ms
# costs each server at 0, 100 and 1,000 connections with the own count each
# tick, beside the bare queries and the Python sampler: issue 33's
# figures), then bench/record_cost.py (what --record costs each server's CPU
# at 0 to 1,000 connections, the 1% target, and its disk use), each on a
# throwaway server of its own, then bench/incident_delay.py (how long
# writing an incident holds up the recorder's sampling at 1,000 and
# 10,000 connections, synthetic: no server), then bench/heap_cost.py
# (what jemalloc's heap profiling costs a server's throughput, the dumps it
# writes and what --heap takes to read them), on MariaDB 10.11 and on
# MySQL 9.7. Each rewrites its section
# of a new build/bench/RESULTS.md, copied with the raw runs over
# bench/RESULTS.md once all have run: nothing of an earlier run survives;
# bench/docfigures.py then says which figures the guide (README.md and
# doc/*.md) and the man page quote from it are not the ones it now holds,
# and fails the bench until they are put in.
# About 77 minutes on two cores (run.py 8, overhead.py 11 on each server,
# servers.sh 4, scale_cost.py 14, record_cost.py 16, incident_delay.py 10,
# heap_cost.py 2 and 3;
# each section says how long it took). MMP_BENCH_QUICK=1: a smoke run of
# about 13 minutes, left in build/bench.
BENCH_OUT = build/bench
BENCH_ENV = BUILD=$(BUILD) CC='$(CC)' CFLAGS='$(CFLAGS)' \
	    MYSQL_CFLAGS='$(MYSQL_CFLAGS)' MYSQL_LIBS='$(MYSQL_LIBS)' \
	    MMP_BENCH_RESULTS=$(CURDIR)/$(BENCH_OUT)/RESULTS.md
bench: deps-test
	$(MAKE) all
	rm -rf $(BENCH_OUT) && mkdir -p $(BENCH_OUT)
	$(BENCH_ENV) python3 bench/run.py
	$(BENCH_ENV) python3 bench/overhead.py
	MMP_SERVER=mysql $(BENCH_ENV) python3 bench/overhead.py
	$(BENCH_ENV) bench/servers.sh
	$(BENCH_ENV) python3 bench/scale_cost.py
	$(BENCH_ENV) python3 bench/record_cost.py
	$(MAKE) $(BUILD)/incident_delay
	$(BENCH_ENV) python3 bench/incident_delay.py
	$(BENCH_ENV) python3 bench/heap_cost.py
	MMP_SERVER=mysql $(BENCH_ENV) python3 bench/heap_cost.py
	@if [ "$$MMP_BENCH_QUICK" = 1 ]; then \
		echo "bench: a smoke run; its results stay in $(BENCH_OUT)"; \
	else \
		cp $(BENCH_OUT)/RESULTS* bench/ && echo "bench: wrote bench/RESULTS.md"; \
	fi
	[ "$$MMP_BENCH_QUICK" = 1 ] || python3 bench/docfigures.py

# The Debian package (debian/), built from a copy of the tree in
# build/deb/src so that what dpkg-buildpackage writes beside the tree
# lands in build/deb: mysqlmemprof_VERSION_ARCH.deb there.
DEB_DIR = build/deb
deb:
	scripts/deps.sh --deb
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	tar -cf - --exclude=./build --exclude=./.git --exclude=./$(PROG) . | tar -C $(DEB_DIR)/src -xf -
	cd $(DEB_DIR)/src && dpkg-buildpackage -b -us -uc
	@ls $(DEB_DIR)/*.deb

# libFuzzer harnesses (clang): `make fuzz` builds them, `make fuzz-run`
# runs each for FUZZ_SECONDS on a corpus kept under build/, with the words
# of fuzz/NAME.dict and the inputs of fuzz/NAME.seeds/ when there are.
# The core is compiled once, instrumented (fuzzer-no-link), into an
# archive each harness links: not once a harness.
FUZZ_CC      ?= clang
FUZZ_CFLAGS   = -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -Iinclude -Isrc -Ibuild -D_GNU_SOURCE
FUZZ_SECONDS ?= 30
FUZZ_OBJS    = $(CORE:%=build/fuzz/obj/%.o) build/fuzz/obj/profile.pb-c.o
FUZZERS      = $(patsubst fuzz/%.c,build/fuzz/%,$(wildcard fuzz/fuzz_*.c))

fuzz: $(FUZZERS)

build/fuzz/obj/%.o: src/%.c build/profile.pb-c.h
	@mkdir -p build/fuzz/obj
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(PPROF_CFLAGS) $(DW_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

build/fuzz/obj/profile.pb-c.o: build/profile.pb-c.c
	@mkdir -p build/fuzz/obj
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(PPROF_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/libcore.a: $(FUZZ_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

-include $(wildcard build/fuzz/obj/*.d)

build/fuzz/%: fuzz/%.c build/fuzz/libcore.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< build/fuzz/libcore.a -lcsv $(PPROF_LIBS) $(JANSSON_LIBS) $(DW_LIBS) -lcrypto -lm

# Two at a time by default (FUZZ_JOBS): each harness is one process on
# one core, and CI waits for all of them.
FUZZ_JOBS ?= 2
FUZZ_RUNS  = $(FUZZERS:%=%.run)

fuzz-run: fuzz
	@$(MAKE) --no-print-directory -j$(FUZZ_JOBS) $(FUZZ_RUNS)

$(FUZZ_RUNS): %.run: %
	@mkdir -p $*.corpus
	@d=fuzz/$(notdir $*).dict; seeds=fuzz/$(notdir $*).seeds; \
	$* -max_total_time=$(FUZZ_SECONDS) -print_final_stats=0 \
		$$([ -f $$d ] && echo -dict=$$d) $*.corpus \
		$$([ -d $$seeds ] && echo $$seeds) \
		2>$*.log || { tail -n 40 $*.log; exit 1; }; \
	echo "$*: $$(grep -c . $*.log) log lines, no crash in $(FUZZ_SECONDS) s"

install: $(PROG)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(PROG) $(DESTDIR)$(BINDIR)/$(PROG)
	install -m 0644 man/$(PROG).1 $(DESTDIR)$(MANDIR)/man1/$(PROG).1

clean:
	rm -rf build $(PROG)

.PHONY: all unit deps deps-test check demo bench deb install clean fuzz fuzz-run $(FUZZ_RUNS)
