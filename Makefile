# SPDX-License-Identifier: MIT
# Builds, tests, demonstrates and installs libgetvalues and its tools.
# `make help` lists the targets and the variables they take.

# One version for everything, from the header: the library, getvalues.pc,
# the man pages' 0.2.0, the Debian packages.
VERSION		:= $(shell sed -n \
			's/^\#define GETVALUES_VERSION_\(MAJOR\|MINOR\|PATCH\) //p' \
			include/getvalues.h | paste -sd.)
SOVERSION	:= 0

PREFIX		?= /usr/local
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
BINDIR		?= $(PREFIX)/bin
MANDIR		?= $(PREFIX)/share/man
COMPLETIONDIR	?= $(PREFIX)/share/bash-completion/completions
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
		   $(CPPFLAGS) $(CFLAGS)
# -fexceptions: glibc's pthread_cleanup_push() is then a cleanup attribute
# that the unwinding of a cancellation runs, not a setjmp() on every call
# (sync.c), as in glibc's own cancellation points.
LIB_CFLAGS	:= $(GV_CFLAGS) -fPIC -fvisibility=hidden -fexceptions -Isrc
LIB_LIBS	:= -luring -lpthread
LDLIBS_ALL	:= $(LIB_LIBS)

LIB_SRCS	:= $(sort $(wildcard src/*.c))
LIB_OBJS	:= $(LIB_SRCS:src/%.c=$(B)/src/%.o)
# each tool is a directory of sources (tools/NAME/), one binary
TOOLS		:= $(B)/tools/getvalues $(B)/tools/gvlsof
tool_objs	= $(patsubst tools/%.c,$(B)/tools/obj/%.o,\
			     $(sort $(wildcard tools/$(1)/*.c)))
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

# The Python module, for Debian's python3 (not whatever python3 is first in
# PATH): built when its headers (python3-dev) are there. It links the static
# library (position-independent, its symbols kept inside the module), so
# that it imports from wherever Python finds it, the build tree, a user's
# site-packages or a virtualenv, with no rpath tied to one install prefix
# and no LD_LIBRARY_PATH.
PYTHON		?= /usr/bin/python3
PY_VARS		:= $(shell $(PYTHON) -c 'import sysconfig as s; \
		     print(s.get_config_var("EXT_SUFFIX") or "", \
			   s.get_paths()["include"], \
			   s.get_config_var("py_version_short"))' 2>/dev/null)
PY_EXT		:= $(word 1,$(PY_VARS))
PY_INCLUDE	:= $(word 2,$(PY_VARS))
PY_VERSION	:= $(word 3,$(PY_VARS))
# PYTHONDIR is where that python3 looks for modules under PREFIX: Debian's
# dist-packages for /usr and /usr/local, the user's site-packages for the
# user base (PREFIX=$HOME/.local), else PREFIX/lib/pythonX.Y/dist-packages,
# which make install says how to reach.
PY_USER_BASE	= $(shell $(PYTHON) -m site --user-base 2>/dev/null)
PY_USER_SITE	= $(shell $(PYTHON) -m site --user-site 2>/dev/null)
PYTHONDIR	?= $(if $(filter /usr /usr/,$(PREFIX)),/usr/lib/python3/dist-packages,$\
		   $(if $(filter $(PY_USER_BASE) $(PY_USER_BASE)/,$(PREFIX)),$\
		   $(PY_USER_SITE),$(PREFIX)/lib/python$(PY_VERSION)/dist-packages))
PYMOD		:= $(if $(wildcard $(PY_INCLUDE)/Python.h),$(B)/python/getvalues$(PY_EXT))

.PHONY: all lib tools tests benches examples python check demo bench install \
	uninstall clean help deps deps-build kcheck kcheck-cross kcheck-arm64 \
	kbench fuzz fuzz-deps layers FORCE
.DEFAULT_GOAL := all

all: lib tools tests benches examples python
python: $(PYMOD)
lib: deps-build $(SHLIB) $(STLIB)
tools: $(TOOLS)
tests: $(TESTS)
benches: $(BENCHES)
examples: $(EXAMPLES)

# Missing Debian packages are installed when run as root (saying which, why
# and how much disk they take); otherwise the exact apt-get line is printed
# and make stops. `make deps` installs at once every package the README's
# commands need, so that root's one command lets anyone run them. NO_DEPS=1
# never looks (a package build, whose Build-Depends say it all).
ifeq ($(NO_DEPS),1)
DEPS		:= @true
else
DEPS		:= @scripts/deps.sh
endif

deps:
	$(DEPS) -v all

deps-build:
	$(DEPS) build

$(LIB_OBJS) $(TESTLIB_OBJS): | deps-build

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
	$(Q)$(CC) $(GV_CFLAGS) -Itests -Isrc -MMD -MP -c -o $@ $<

$(B)/tools/obj/%.o: tools/%.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(GV_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/tools/getvalues: $(call tool_objs,getvalues) $(STLIB)
$(B)/tools/gvlsof: $(call tool_objs,gvlsof) $(STLIB)
$(TOOLS):
	$(call msg,LD,$@)
	$(Q)$(CC) $(FLAVOUR_LDFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) \
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

# The module is getvalues.c and the process table's files (proctable*.c).
PY_SRCS		:= python/getvalues.c $(wildcard python/proctable*.c)
$(B)/python/getvalues$(PY_EXT): $(PY_SRCS) $(wildcard python/proctable*.h) $(STLIB)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(GV_CFLAGS) -fPIC -fvisibility=hidden -I$(PY_INCLUDE) -MMD -MP \
		-shared $(filter-out -static,$(FLAVOUR_LDFLAGS)) $(LDFLAGS) \
		-o $@ $(PY_SRCS) $(STLIB) $(LIB_LIBS) -lm -Wl,--exclude-libs,ALL

$(B)/examples/%: examples/%.c $(STLIB)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(GV_CFLAGS) -MMD -MP $(FLAVOUR_LDFLAGS) $(LDFLAGS) -o $@ $< \
		$(STLIB) $(LDLIBS_ALL)

# The Python module's pytest suite, the shell completion's test and the
# run in a chroot without /proc (root only), as more TAP programs.
PY_TESTS	:= python/run-tests tests/completion.sh tests/bare_chroot.sh
COMPLETIONS	:= $(sort $(wildcard completion/*))

# The tests find the build through GV_BUILD (the shared library, the tools).
# A short run of the fuzz target first, through plain system calls and
# through io_uring (the backend GETVALUES_BACKEND names, if set), each
# summed up in one line, so that prove's summary ends the output. FUZZ=0
# leaves it out (and clang with it): tests/getvalues_fuzz still replays the
# corpus.
FUZZ_BACKENDS	?= $(or $(GETVALUES_BACKEND),sync uring)
check: all
	$(DEPS) check python $(if $(filter 0,$(FUZZ)),,fuzz)
ifneq ($(FUZZ),0)
	@$(MAKE) --no-print-directory $(FZ)/fuzz_getvalues
	@for be in $(FUZZ_BACKENDS); do \
		GV_BUILD=$(CURDIR)/$(B) GETVALUES_BACKEND=$$be \
			scripts/fuzz-check.sh $(FZ) $(FUZZ_CHECK_ARGS) || exit 1; \
	done
endif
	$(Q)scripts/layers.py --quiet $(LIB_OBJS)
	$(call msg,PROVE,"$(words $(TESTS) $(PY_TESTS)) test programs")
	$(Q)GV_BUILD=$(CURDIR)/$(B) SANITIZE=$(SANITIZE) CC=$(CC) \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(PROVE) --exec '' $(TESTS) $(PY_TESTS)

# The calls and data references between the files of src/, as the
# objects link them, level by level; fails on a cycle (src/internal.h
# describes the layers). make check runs it quietly.
layers: $(LIB_OBJS)
	$(Q)scripts/layers.py $(LIB_OBJS)

# The libFuzzer target (clang): the library built again with coverage and
# ASan+UBSan into build-fuzz/. `make fuzz` replays the seed corpus and the
# regressions (crashers once found), then fuzzes for FUZZ_TIME seconds; new
# inputs stay in build-fuzz/corpus, crashers land in build-fuzz/crashes/
# (copy them to tests/fuzz/regressions/ once fixed). `make check` runs a
# short bounded round of it.
FUZZ_CC		?= clang
FUZZ_TIME	?= 60
FUZZ_ARGS	?= -max_total_time=$(FUZZ_TIME)
FUZZ_CHECK_ARGS	?= -runs=10000
FZ		:= build-fuzz
FUZZ_CFLAGS	:= -std=gnu11 -D_GNU_SOURCE -Iinclude $(WARN) -g -O1 \
		   -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer
FUZZ_LIB_OBJS	:= $(LIB_SRCS:src/%.c=$(FZ)/src/%.o)

fuzz-deps:
	$(DEPS) fuzz

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

# Only what the demo runs, so that it starts in seconds once built.
DEMO_PROGS	:= $(B)/tools/getvalues $(B)/tools/gvlsof \
		   $(B)/examples/readfile-dir $(addprefix $(B)/bench/,mounts lsof \
		   batch readfile_speed) $(PYMOD)

demo: $(DEMO_PROGS)
	@GV_BUILD=$(CURDIR)/$(B) scripts/demo.sh

bench: all
	@GV_BUILD=$(CURDIR)/$(B) bench/run.sh

kcheck:
	@bash kernel/kcheck.sh

kcheck-cross:
	@bash kernel/kcross.sh

kcheck-arm64:
	@bash kernel/kcross.sh --boot-arm64

kbench:
	@bench/run.sh native

# Made again every time: it holds PREFIX, LIBDIR and INCLUDEDIR, which may
# differ from one make install to the next.
getvalues.pc: getvalues.pc.in Makefile FORCE
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    $< > $@

# The directories make install makes, recorded (scripts/install-dirs.sh)
# so that make uninstall removes those again and no other.
MANSECTS	:= $(sort $(patsubst man/%/,%,$(dir $(MANPAGES))))
INSTALL_DIRS	= $(addprefix $(DESTDIR),$(INCLUDEDIR) $(LIBDIR) \
		  $(PKGCONFIGDIR) $(BINDIR) $(COMPLETIONDIR) \
		  $(addprefix $(MANDIR)/,$(MANSECTS)) $(if $(PYMOD),$(PYTHONDIR)))
INSTALL_LOG	:= build/installed-dirs

install: lib tools python getvalues.pc
	@scripts/install-dirs.sh record $(INSTALL_LOG) $(INSTALL_DIRS)
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(BINDIR)
	install -m 644 include/getvalues.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/libgetvalues.so.$(VERSION)
	ln -sf libgetvalues.so.$(VERSION) \
		$(DESTDIR)$(LIBDIR)/libgetvalues.so.$(SOVERSION)
	ln -sf libgetvalues.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libgetvalues.so
	install -m 644 $(STLIB) $(DESTDIR)$(LIBDIR)/
	install -m 644 getvalues.pc $(DESTDIR)$(PKGCONFIGDIR)/
	install -d $(DESTDIR)$(COMPLETIONDIR)
	$(if $(COMPLETIONS),install -m 644 $(COMPLETIONS) $(DESTDIR)$(COMPLETIONDIR)/)
	$(if $(PYMOD),install -d $(DESTDIR)$(PYTHONDIR))
	$(if $(PYMOD),install -m 644 $(PYMOD) python/getvalues.pyi \
		$(DESTDIR)$(PYTHONDIR)/)
	$(if $(TOOLS),install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)/)
	for page in $(MANPAGES); do \
		sec=$${page%/*}; sec=$${sec##*/}; \
		install -d $(DESTDIR)$(MANDIR)/$$sec; \
		if [ -L $$page ]; then \
			ln -sf $$(readlink $$page) \
				$(DESTDIR)$(MANDIR)/$$sec/$${page##*/}; \
		else \
			install -m 644 $$page $(DESTDIR)$(MANDIR)/$$sec/; \
		fi; \
	done
	@scripts/ldconfig.sh "$(LIBDIR)" "$(DESTDIR)"
	$(if $(and $(PYMOD),$(if $(DESTDIR),,y)),@$(PYTHON) -c "$$PY_FINDS" \
		"$(PYTHON)" "$(PYTHONDIR)" "$(PY_USER_BASE)")

# What make install says about the Python module: whether PYTHON imports
# it from PYTHONDIR, and if not, how to make it.
define PY_FINDS
import os, sys
python, d, user = sys.argv[1:]
if os.path.realpath(d) in map(os.path.realpath, sys.path):
    print(f"  PYTHON  {python} imports getvalues from {d} (libgetvalues is "
          "linked into the module)")
else:
    print(f"note: {python} does not look in {d} for modules: run it with "
          f"PYTHONPATH={d},\n  or install with PREFIX={user} (your "
          "site-packages) or with PYTHONDIR= a directory it searches")
endef
export PY_FINDS

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/getvalues.h \
	      $(DESTDIR)$(LIBDIR)/libgetvalues.so* \
	      $(DESTDIR)$(LIBDIR)/libgetvalues.a \
	      $(DESTDIR)$(PKGCONFIGDIR)/getvalues.pc \
	      $(DESTDIR)$(PYTHONDIR)/getvalues$(PY_EXT) \
	      $(DESTDIR)$(PYTHONDIR)/getvalues.pyi
	for t in $(notdir $(TOOLS) $(COMPLETIONS)); do \
		rm -f $(DESTDIR)$(BINDIR)/$$t $(DESTDIR)$(COMPLETIONDIR)/$$t; \
	done
	for page in $(MANPAGES); do \
		sec=$${page%/*}; sec=$${sec##*/}; \
		rm -f $(DESTDIR)$(MANDIR)/$$sec/$${page##*/}; \
	done
	@scripts/install-dirs.sh remove $(INSTALL_LOG) $(INSTALL_DIRS)
	@[ -n "$(DESTDIR)" ] || [ "$$(id -u)" -ne 0 ] || \
		! [ -x /sbin/ldconfig ] || /sbin/ldconfig

# The list of targets and variables; kept beside the rules it describes.
help:
	@echo 'Targets:'
	@echo '  make                  the library (shared + static), tools, tests,'
	@echo '                        benchmarks and examples, in build/'
	@echo '  make deps             as root, once: every Debian package that the'
	@echo '                        targets below need, saying which and why'
	@echo '                        (make kcheck installs its own)'
	@echo '  make python           the Python module alone (built by make when'
	@echo '                        python3-dev is there), in build/python/'
	@echo '  make demo             show the library and tools at work on this machine'
	@echo '  make check            run the test suite (TAP, run by prove) after a'
	@echo '                        short fuzz round; runs as any user'
	@echo '  make bench            run the benchmarks, rewrite bench/RESULTS.md'
	@echo '  make install          install (PREFIX, DESTDIR, LIBDIR); runs ldconfig'
	@echo '  make uninstall        remove what make install put there'
	@echo '  make fuzz             libFuzzer on getvalues() for FUZZ_TIME seconds'
	@echo '  make layers           the calls between the files of src/, level by'
	@echo '                        level; fails on a cycle (make check runs it)'
	@echo '  make kcheck           build Linux with the native system calls, run the'
	@echo '                        kselftests and this suite in QEMU (KASAN=1)'
	@echo '  make kcheck-cross     build-test the series for arm64, i386 and riscv64'
	@echo '                        (cross compilers); checks their syscall tables'
	@echo '  make kcheck-arm64     the arm64 kernel booted in QEMU: the calls with'
	@echo '                        tagged pointers (TBI)'
	@echo '  make kbench           the native system calls measured in that guest'
	@echo '  make clean            remove every build directory'
	@echo '  make help             this list'
	@echo 'Variables:'
	@echo '  SANITIZE=1            build and test with ASan+UBSan (in build-san/)'
	@echo '  STATIC=1              link tools, tests statically (in build-static/)'
	@echo '  WERROR=1              warnings are errors'
	@echo '  V=1                   show the full commands'
	@echo '  FUZZ=0                make check without the fuzz round (no clang)'
	@echo '  FUZZ_TIME=60          seconds of make fuzz'
	@echo '  NO_DEPS=1             never check for or install Debian packages'
	@echo '  PREFIX=$(PREFIX)  LIBDIR=$(LIBDIR)  DESTDIR=$(DESTDIR)'
	@echo '  PYTHONDIR=$(PYTHONDIR)'
	@echo '                        where make install puts things'
	@echo '  PYTHON=$(PYTHON)  the python3 the module is built for'
	@echo '  GETVALUES_BACKEND=sync|uring|native|auto  (environment) force a mechanism'

clean:
	rm -rf build build-san build-static build-fuzz getvalues.pc

# (build/tools/NAME.d are from when the tools were one file each: not read)
-include $(filter-out %/tools/gvlsof.d %/tools/getvalues.d,$(shell find $(B) $(FZ) -name '*.d' 2>/dev/null))

FORCE:
