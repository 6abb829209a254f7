# SPDX-License-Identifier: MIT
# Builds, tests, demonstrates and installs libgetvalues and its tools.
#
#   make                  library (shared + static), tools, tests, benchmarks
#   make check            run the TAP test suite with prove
#   make check SANITIZE=1 the same, everything built with ASan+UBSan
#   make demo             show the library at work on this machine
#   make bench            run the benchmarks, rewrite bench/RESULTS.md
#   make install          PREFIX=/usr/local DESTDIR= LIBDIR=$(PREFIX)/lib
#   make kcheck           build the patched 6.12 kernel, run the suite in QEMU
#   make kbench           the native calls measured in that QEMU guest
#   make fuzz             libFuzzer on getvalues() for FUZZ_TIME seconds

VERSION		:= 0.1.0
SOVERSION	:= 0

PREFIX		?= /usr/local
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
BINDIR		?= $(PREFIX)/bin
MANDIR		?= $(PREFIX)/share/man
PKGCONFIGDIR	?= $(LIBDIR)/pkgconfig
DESTDIR		?=

CC		?= cc
# V=1 shows the full commands
ifeq ($(V),1)
Q		:=
msg		= @true
else
Q		:= @
msg		= @printf '  %-7s %s\n' $(1) $(2)
endif
CFLAGS		?= -O2 -g
PROVE		?= prove

# Each flavour builds into its own directory, so that switching between them
# never mixes objects.
ifeq ($(SANITIZE),1)
B		:= build-san
FLAVOUR_CFLAGS	:= -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer
FLAVOUR_LDFLAGS	:= -fsanitize=address,undefined
else ifeq ($(STATIC),1)
B		:= build-static
FLAVOUR_LDFLAGS	:= -static
else
B		:= build
endif

WARN		:= -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes \
		   -Wstrict-prototypes -Wpointer-arith -Wvla
ifeq ($(WERROR),1)
WARN		+= -Werror
endif

GV_CFLAGS	:= -std=gnu11 -D_GNU_SOURCE -Iinclude $(WARN) $(FLAVOUR_CFLAGS) \
		   $(CFLAGS)
LIB_CFLAGS	:= $(GV_CFLAGS) -fPIC -fvisibility=hidden -Isrc
LIB_LIBS	:= -luring -lpthread
LDLIBS_ALL	:= $(LIB_LIBS)

LIB_SRCS	:= $(sort $(wildcard src/*.c))
LIB_OBJS	:= $(LIB_SRCS:src/%.c=$(B)/src/%.o)
TOOL_SRCS	:= $(sort $(wildcard tools/*.c))
TOOLS		:= $(TOOL_SRCS:tools/%.c=$(B)/tools/%)
TESTLIB_SRCS	:= $(sort $(wildcard tests/lib/*.c))
TESTLIB_OBJS	:= $(TESTLIB_SRCS:tests/lib/%.c=$(B)/tests/lib/%.o)
TEST_SRCS	:= $(sort $(wildcard tests/*.c))
TESTS		:= $(TEST_SRCS:tests/%.c=$(B)/tests/%)
BENCH_SRCS	:= $(sort $(wildcard bench/*.c))
BENCHES		:= $(BENCH_SRCS:bench/%.c=$(B)/bench/%)
EXAMPLE_SRCS	:= $(sort $(wildcard examples/*.c))
EXAMPLES	:= $(EXAMPLE_SRCS:examples/%.c=$(B)/examples/%)
MANPAGES	:= $(sort $(wildcard man/man*/*.[0-9]))

SHLIB		:= $(B)/libgetvalues.so.$(SOVERSION)
STLIB		:= $(B)/libgetvalues.a

.PHONY: all lib tools tests benches examples check demo bench install \
	uninstall clean deps kcheck kbench fuzz fuzz-deps FORCE
.DEFAULT_GOAL := all

all: lib tools tests benches examples
lib: deps $(SHLIB) $(STLIB)
tools: $(TOOLS)
tests: $(TESTS)
benches: $(BENCHES)
examples: $(EXAMPLES)

# Missing Debian packages are installed when run as root; otherwise the exact
# apt-get line is printed and make stops.
deps:
	@scripts/deps.sh build

$(LIB_OBJS) $(TESTLIB_OBJS): | deps

$(B)/src/%.o: src/%.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(LIB_CFLAGS) -MMD -MP -c -o $@ $<

$(SHLIB): $(LIB_OBJS) src/libgetvalues.map
	$(call msg,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,libgetvalues.so.$(SOVERSION) \
		-Wl,--version-script,src/libgetvalues.map -Wl,-z,defs \
		$(filter-out -static,$(FLAVOUR_LDFLAGS)) $(LDFLAGS) -o $@ \
		$(LIB_OBJS) $(LIB_LIBS)
	$(Q)ln -sf libgetvalues.so.$(SOVERSION) $(B)/libgetvalues.so

$(STLIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

# Tools, tests, benchmarks and examples link the static library, so that they
# run from the build tree and can be copied into the QEMU guest as they are.
$(B)/tests/lib/%.o: tests/lib/%.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(GV_CFLAGS) -Itests -MMD -MP -c -o $@ $<

$(B)/tools/%: tools/%.c $(STLIB)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(GV_CFLAGS) -MMD -MP $(FLAVOUR_LDFLAGS) $(LDFLAGS) -o $@ $< \
		$(STLIB) $(LDLIBS_ALL)

$(B)/tests/%: tests/%.c $(TESTLIB_OBJS) $(STLIB)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(GV_CFLAGS) -Itests -Isrc -MMD -MP $(FLAVOUR_LDFLAGS) $(LDFLAGS) \
		-o $@ $< $(TESTLIB_OBJS) $(STLIB) $(LDLIBS_ALL) -ldl

$(B)/bench/%: bench/%.c $(STLIB)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(GV_CFLAGS) -MMD -MP $(FLAVOUR_LDFLAGS) $(LDFLAGS) -o $@ $< \
		$(STLIB) $(LDLIBS_ALL) -lm

$(B)/examples/%: examples/%.c $(STLIB)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(GV_CFLAGS) -MMD -MP $(FLAVOUR_LDFLAGS) $(LDFLAGS) -o $@ $< \
		$(STLIB) $(LDLIBS_ALL)

# The tests find the build through GV_BUILD (the shared library, the tools).
# A short run of the fuzz target first, so that prove's summary ends it.
check: all
	@scripts/deps.sh check
	@$(MAKE) --no-print-directory fuzz FUZZ_ARGS="$(FUZZ_CHECK_ARGS)"
	GV_BUILD=$(CURDIR)/$(B) SANITIZE=$(SANITIZE) \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(PROVE) --exec '' $(TESTS)

# The libFuzzer target (clang): the library built again with coverage and
# ASan+UBSan into build-fuzz/. `make fuzz` replays the seed corpus and the
# regressions (crashers once found), then fuzzes for FUZZ_TIME seconds; new
# inputs stay in build-fuzz/corpus, crashers land in build-fuzz/crashes/
# (copy them to tests/fuzz/regressions/ once fixed). `make check` runs a
# short bounded round of it.
FUZZ_CC		?= clang
FUZZ_TIME	?= 60
FUZZ_ARGS	?= -max_total_time=$(FUZZ_TIME)
FUZZ_CHECK_ARGS	?= -runs=10000 -verbosity=0
FZ		:= build-fuzz
FUZZ_CFLAGS	:= -std=gnu11 -D_GNU_SOURCE -Iinclude $(WARN) -g -O1 \
		   -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer
FUZZ_LIB_OBJS	:= $(LIB_SRCS:src/%.c=$(FZ)/src/%.o)

fuzz-deps:
	@scripts/deps.sh fuzz

$(FUZZ_LIB_OBJS): | fuzz-deps

$(FZ)/src/%.o: src/%.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -fvisibility=hidden \
		-Isrc -MMD -MP -c -o $@ $<

$(FZ)/fuzz_getvalues: tests/fuzz/fuzz_getvalues.c $(FUZZ_LIB_OBJS)
	$(call msg,CCLD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -o $@ $< \
		$(FUZZ_LIB_OBJS) $(LIB_LIBS)

fuzz: $(FZ)/fuzz_getvalues
	@mkdir -p $(FZ)/corpus $(FZ)/crashes
	$(FZ)/fuzz_getvalues $(FUZZ_ARGS) -timeout=10 -print_final_stats=1 \
		-artifact_prefix=$(FZ)/crashes/ $(FZ)/corpus tests/fuzz/corpus \
		tests/fuzz/regressions

demo: all
	@GV_BUILD=$(CURDIR)/$(B) scripts/demo.sh

bench: all
	@GV_BUILD=$(CURDIR)/$(B) bench/run.sh

kcheck:
	@bash kernel/kcheck.sh

kbench:
	@bench/run.sh native

# Made again every time: it holds PREFIX, LIBDIR and INCLUDEDIR, which may
# differ from one make install to the next.
getvalues.pc: getvalues.pc.in Makefile FORCE
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    $< > $@

install: lib tools getvalues.pc
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(BINDIR)
	install -m 644 include/getvalues.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/libgetvalues.so.$(VERSION)
	ln -sf libgetvalues.so.$(VERSION) \
		$(DESTDIR)$(LIBDIR)/libgetvalues.so.$(SOVERSION)
	ln -sf libgetvalues.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libgetvalues.so
	install -m 644 $(STLIB) $(DESTDIR)$(LIBDIR)/
	install -m 644 getvalues.pc $(DESTDIR)$(PKGCONFIGDIR)/
	$(if $(TOOLS),install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)/)
	for page in $(MANPAGES); do \
		sec=$${page%/*}; sec=$${sec##*/}; \
		install -d $(DESTDIR)$(MANDIR)/$$sec; \
		install -m 644 $$page $(DESTDIR)$(MANDIR)/$$sec/; \
	done

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/getvalues.h \
	      $(DESTDIR)$(LIBDIR)/libgetvalues.so* \
	      $(DESTDIR)$(LIBDIR)/libgetvalues.a \
	      $(DESTDIR)$(PKGCONFIGDIR)/getvalues.pc
	for t in $(notdir $(TOOLS)); do rm -f $(DESTDIR)$(BINDIR)/$$t; done
	for page in $(MANPAGES); do \
		sec=$${page%/*}; sec=$${sec##*/}; \
		rm -f $(DESTDIR)$(MANDIR)/$$sec/$${page##*/}; \
	done

clean:
	rm -rf build build-san build-static build-fuzz getvalues.pc

-include $(shell find $(B) $(FZ) -name '*.d' 2>/dev/null)

FORCE:
