# foliotrace top-level Makefile.
#
#   make          build build/foliotrace, the babeltrace2 plugin, the policy plugins of
#                 contrib/policies/ (build/policies/NAME.so) and the workloads
#   make deps     install the Debian packages everything needs (apt-get, as root)
#   make check    deps + build + every test, guest tests included, then check-asan and
#                 fuzz-smoke (what .ci/run runs)
#   make check-asan  the unit and CLI tests with AddressSanitizer and UBSan (build-asan/)
#   make fuzz     the libFuzzer harnesses of tests/fuzz/, FUZZ_SECONDS (60) each
#   make demo     deps + build + record bundled workloads in a guest, replay, compare, report
#   make install  the program, its guest files, man pages, completion, babeltrace2 plugin
#                 (PREFIX, DESTDIR and the GNU directory variables; docs/install.md)
#   make uninstall  what make install installed
#   make deb      the Debian package, build/foliotrace_VERSION_ARCH.deb (debian/)
#
# Sources are picked up by directory: a new file in lib/, db/, tracer/, replay/, report/, vm/ or cli/
# no Makefile change. Dependencies point one way (see docs/architecture.md).

# CFLAGS and LDFLAGS belong to the user (optimisation, sanitizers: `make CFLAGS='-O1
# -fsanitize=address'`); the flags the code needs are in FT_CFLAGS and always added, as in
# git's and the kernel's Makefiles. CFLAGS is also passed when linking, so that a
# sanitizer's runtime is linked in. B is the build directory (check-asan uses build-asan).
CC      ?= gcc
CFLAGS  ?= -O2 -g
B       ?= build
FT_WARN   := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes -Wmissing-prototypes
FT_CFLAGS := -std=gnu11 $(FT_WARN) -fPIC -D_GNU_SOURCE -I. -I$(B)/gen
# The static programs that run in the guest (workloads, replayer, tracer, launcher): the
# same warnings, their own optimisation (they are measured, so never the user's -O0).
GUEST_CFLAGS := -std=gnu11 -O2 $(FT_WARN)
LDLIBS  += -lsqlite3 -lm -lpthread -ldl
BT_CFLAGS := $(shell pkg-config --cflags babeltrace2 2>/dev/null)
BT_LIBS   := $(shell pkg-config --libs babeltrace2 2>/dev/null || echo -lbabeltrace2)
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
ALL_CFLAGS  = $(FT_CFLAGS) $(BT_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(CFLAGS) $(LDFLAGS)

LIB_SRC    := $(wildcard lib/*.c)
DB_SRC     := $(wildcard db/*.c)
TRACER_SRC := $(filter-out tracer/plugin.c,$(wildcard tracer/*.c))
REPLAY_SRC := $(wildcard replay/*.c)
VM_SRC     := $(wildcard vm/*.c)
REPORT_SRC := $(wildcard report/*.c)
CLI_SRC    := $(wildcard cli/*.c)
WORKLOADS  := $(basename $(notdir $(wildcard workloads/*.c workloads/*.sh)))
UNIT_SRC   := $(wildcard tests/unit/*.c)
HARNESS_SRC := $(wildcard tests/harness/*.c)
SCHEMA_SQL := $(sort $(wildcard schema/[0-9]*.sql))

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))

all: $(B)/foliotrace $(B)/plugins/foliotrace.so policies workloads $(B)/tests-built

$(B)/obj/%.o: %.c $(B)/gen/schema.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DFT_VERSION='"$(VERSION)"' -MMD -MP -c -o $@ $<

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)

# GNU installation directories (make install, docs/install.md). The program finds its
# guest files at BINDIR/FT_HOME_REL, a path relative to itself, so a DESTDIR install, or a
# prefix moved elsewhere, runs as well; the header is rewritten only when it changes.
PREFIX        ?= /usr/local
prefix        ?= $(PREFIX)
exec_prefix   ?= $(prefix)
bindir        ?= $(exec_prefix)/bin
libexecdir    ?= $(exec_prefix)/libexec
datarootdir   ?= $(prefix)/share
mandir        ?= $(datarootdir)/man
man1dir       ?= $(mandir)/man1
pkglibexecdir ?= $(libexecdir)/foliotrace
bashcompdir   ?= $(datarootdir)/bash-completion/completions
# babeltrace2 2.0 loads system plugins from LIBDIR/babeltrace2/plugins of its own libdir
# (not a prefix of ours: /usr/lib/x86_64-linux-gnu/babeltrace2/plugins on Debian 12)
btplugindir   ?= $(shell pkg-config --variable=libdir babeltrace2 2>/dev/null || echo /usr/lib)/babeltrace2/plugins
FT_HOME_REL := $(shell realpath -m --relative-to='$(bindir)' '$(pkglibexecdir)')
$(B)/gen/paths.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define FT_HOME_REL "$(FT_HOME_REL)"' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(B)/obj/cli/main.o: $(B)/gen/paths.h

# Schema files are compiled in, so a binary and its migrations can never disagree.
$(B)/gen/schema.h: $(SCHEMA_SQL) schema/embed.sh
	@mkdir -p $(dir $@)
	sh schema/embed.sh $(SCHEMA_SQL) > $@.tmp && mv $@.tmp $@

$(B)/libft.a: $(call obj,$(LIB_SRC) $(DB_SRC) $(TRACER_SRC) $(REPLAY_SRC) $(REPORT_SRC) $(VM_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/foliotrace: $(call obj,$(CLI_SRC)) $(B)/libft.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(BT_LIBS) $(LDLIBS)

# The same sink component class, as a plugin for the babeltrace2 CLI:
#   babeltrace2 --plugin-path=build/plugins TRACE -c sink.foliotrace.sqlite -p 'path="x.db"'
# -Bsymbolic: the plugin's own symbols bind inside it, never to a same-named symbol of a
# library babeltrace2 loaded first (our cause recorder was once error(), which resolved to
# glibc's error(3) and exited the whole CLI on any failure; it is fail() now).
$(B)/plugins/foliotrace.so: $(call obj,tracer/plugin.c) $(B)/libft.a
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-Bsymbolic $(ALL_LDFLAGS) -o $@ $^ $(BT_LIBS) $(LDLIBS)

# Policy plugins (docs/policies.md, "Writing a policy outside the tree"): the examples of
# contrib/policies/ as $(B)/policies/NAME.so, and the broken ones tests/cli/plugin.sh
# loads as $(B)/testprogs/plugins/NAME.so. Header only: they link nothing of ours.
POLICIES      := $(basename $(notdir $(wildcard contrib/policies/*.c)))
TEST_PLUGINS  := $(basename $(notdir $(wildcard tests/cli/plugins/*.c)))
policies: $(addprefix $(B)/policies/,$(addsuffix .so,$(POLICIES)))
$(B)/policies/%.so: contrib/policies/%.c include/foliotrace/policy.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(FT_WARN) -fPIC -I. $(CFLAGS) $(LDFLAGS) -shared -o $@ $<
$(B)/testprogs/plugins/%.so: tests/cli/plugins/%.c include/foliotrace/policy.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(FT_WARN) -fPIC -I. $(CFLAGS) $(LDFLAGS) -shared -o $@ $<

# Bundled workloads and the in-guest replayer: static, one binary per source, per arch.
# The replayer (replay/guest/, docs/guest-replay.md) is bundled the same way.
# tests/guest/record.sh copies a static program foliotrace does not bundle into the guest.
workloads: $(addprefix $(B)/workloads/x86_64/,$(WORKLOADS) ft-replayer ft-launch ft-sites ft-frag) \
	   $(B)/testprogs/x86_64/hello-anon $(B)/testprogs/x86_64/sites-demo-hdr \
	   $(B)/testprogs/x86_64/sites-demo-dyn $(B)/testprogs/x86_64/sites-ptrace \
	   $(B)/testprogs/x86_64/sites-exit $(B)/testprogs/x86_64/map-place
workloads-arm64: $(addprefix $(B)/workloads/arm64/,$(WORKLOADS) ft-replayer ft-launch ft-sites ft-frag) \
		 $(B)/testprogs/arm64/hello-anon $(B)/testprogs/arm64/sites-demo-hdr \
		 $(B)/testprogs/arm64/sites-demo-dyn $(B)/testprogs/arm64/map-place
$(B)/testprogs/x86_64/hello-anon $(B)/testprogs/x86_64/map-place: $(B)/testprogs/x86_64/%: tests/guest/%.c
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -static -o $@ $<
# sites-demo with PT_GNU_EH_FRAME, which `gcc -static` leaves out (tests/guest/sites.sh
# checks that the bundled plain -static build, unwound from .eh_frame, counts the same).
$(B)/testprogs/x86_64/sites-demo-hdr: workloads/sites-demo.c
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -static -Wl,--eh-frame-hdr -o $@ $<
# and dynamically linked, run in the guest on the host's root filesystem (record's chroot)
$(B)/testprogs/x86_64/sites-demo-dyn: workloads/sites-demo.c
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -o $@ $<
# hostile workloads for record --sites (tests/guest/sites-hostile.sh): one that uses
# ptrace itself, one that exits while its threads are in mmap
$(B)/testprogs/x86_64/sites-%: tests/guest/sites-%.c
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -static -pthread -Wl,--eh-frame-hdr -o $@ $<
$(B)/testprogs/arm64/hello-anon $(B)/testprogs/arm64/map-place: $(B)/testprogs/arm64/%: tests/guest/%.c
	@mkdir -p $(dir $@)
	aarch64-linux-gnu-gcc $(GUEST_CFLAGS) -static -o $@ $<
$(B)/workloads/x86_64/ft-replayer: replay/guest/ft-replayer.c replay/guest/ftr.h
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -static -o $@ $<
# The call-site tracer (tracer/guest/, docs/sites.md): libunwind's remote unwinder
# (libunwind-generic) with our own accessors, linked statically.
SITES_SRC := tracer/guest/ft-sites.c tracer/guest/sites-unwind.c tracer/guest/sites-elf.c
SITES_HDR := tracer/guest/sites-unwind.h tracer/guest/sites-elf.h tracer/guest/seccomp-trace.h
$(B)/workloads/x86_64/ft-sites: $(SITES_SRC) $(SITES_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -static -o $@ $(SITES_SRC) -lunwind-generic -lunwind -llzma
# Debian's libunwind-dev:arm64 and liblzma-dev:arm64 (multiarch, tools/install-deps.sh)
$(B)/workloads/arm64/ft-sites: $(SITES_SRC) $(SITES_HDR)
	@mkdir -p $(dir $@)
	aarch64-linux-gnu-gcc $(GUEST_CFLAGS) -static -I/usr/include/aarch64-linux-gnu -o $@ \
		$(SITES_SRC) -L/usr/lib/aarch64-linux-gnu -lunwind-generic -lunwind -llzma
$(B)/testprogs/arm64/sites-demo-hdr: workloads/sites-demo.c
	@mkdir -p $(dir $@)
	aarch64-linux-gnu-gcc $(GUEST_CFLAGS) -static -Wl,--eh-frame-hdr -o $@ $<
# dynamically linked against Debian's cross libc6 (2.36, the arm64 root's), run in that root
$(B)/testprogs/arm64/sites-demo-dyn: workloads/sites-demo.c
	@mkdir -p $(dir $@)
	aarch64-linux-gnu-gcc $(GUEST_CFLAGS) -o $@ $<
$(B)/workloads/arm64/ft-replayer: replay/guest/ft-replayer.c replay/guest/ftr.h
	@mkdir -p $(dir $@)
	aarch64-linux-gnu-gcc $(GUEST_CFLAGS) -static -o $@ $<
# the guest's workload launcher (guest-kernel/ft-launch.c), bundled the same way
LAUNCH_SRC := guest-kernel/ft-launch.c guest-kernel/launch-pagemap.c
$(B)/workloads/x86_64/ft-launch: $(LAUNCH_SRC) guest-kernel/launch-pagemap.h tracer/guest/seccomp-trace.h
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -static -o $@ $(LAUNCH_SRC)
$(B)/workloads/arm64/ft-launch: $(LAUNCH_SRC) guest-kernel/launch-pagemap.h tracer/guest/seccomp-trace.h
	@mkdir -p $(dir $@)
	aarch64-linux-gnu-gcc $(GUEST_CFLAGS) -static -o $@ $(LAUNCH_SRC)
# the fragmenter (--fragment, guest-kernel/ft-frag.c, docs/guest.md), bundled the same way
$(B)/workloads/x86_64/ft-frag: guest-kernel/ft-frag.c guest-kernel/fragspec.h
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -static -o $@ $<
$(B)/workloads/arm64/ft-frag: guest-kernel/ft-frag.c guest-kernel/fragspec.h
	@mkdir -p $(dir $@)
	aarch64-linux-gnu-gcc $(GUEST_CFLAGS) -static -o $@ $<
$(B)/workloads/x86_64/%: workloads/%.c $(wildcard workloads/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -static -o $@ $<
$(B)/workloads/arm64/%: workloads/%.c $(wildcard workloads/*.h)
	@mkdir -p $(dir $@)
	aarch64-linux-gnu-gcc $(GUEST_CFLAGS) -static -o $@ $<
# shell workloads (services driven by their own clients) are the same on every arch
$(B)/workloads/x86_64/%: workloads/%.sh
	@mkdir -p $(dir $@)
	install -m 755 $< $@
$(B)/workloads/arm64/%: workloads/%.sh
	@mkdir -p $(dir $@)
	install -m 755 $< $@

# Unit tests: one TAP program per tests/unit/*.c, linked with everything but the CLI.
# Test programs the shell tests run (tests/cli/synth-db.c, set-latency.c), and the C files
# of the harness self-test (tests/harness/, TAP files that must fail), are built the same way.
$(B)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(B)/libft.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(filter-out %.h,$^) $(BT_LIBS) $(LDLIBS)
# the call-site tracer's .eh_frame indexer, tested on the host
$(B)/tests/sites-elf: tracer/guest/sites-elf.c tracer/guest/sites-elf.h
$(B)/testprogs/%: tests/cli/%.c $(B)/libft.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(BT_LIBS) $(LDLIBS)
$(B)/harness/%: tests/harness/%.c tests/unit/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<
$(B)/tests-built: $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC)) \
		  $(B)/testprogs/synth-db $(B)/testprogs/set-latency $(B)/testprogs/stream-allocs \
		  $(B)/testprogs/advise-naive \
		  $(addprefix $(B)/policies/,$(addsuffix .so,$(POLICIES))) \
		  $(addprefix $(B)/testprogs/plugins/,$(addsuffix .so,$(TEST_PLUGINS))) \
		  $(patsubst tests/harness/%.c,$(B)/harness/%,$(HARNESS_SRC))
	@touch $@

deps:
	sh tools/install-deps.sh

check: deps
	$(MAKE) all
	sh tests/run.sh
	$(MAKE) check-asan
	$(MAKE) fuzz-smoke

# The unit and CLI tests against an AddressSanitizer + UBSan build in build-asan/; any
# sanitizer report fails (tests/check-asan.sh). clang, because GCC 12's UBSan ignores
# log_path, and a report from a command whose status a test ignores must not be lost.
ASAN_CC     ?= clang-14
ASAN_CFLAGS ?= -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	       -fno-omit-frame-pointer
check-asan: all
	$(MAKE) B=build-asan CC=$(ASAN_CC) CFLAGS='$(ASAN_CFLAGS)' \
		build-asan/foliotrace build-asan/tests-built
	sh tests/check-asan.sh

# libFuzzer harnesses of the parsers users feed directly (tests/fuzz/*.c), in build-fuzz/:
# `make fuzz` runs each for FUZZ_SECONDS (tests/fuzz/run.sh); `make check` runs a
# 5-second smoke of each.
FUZZ_SRC     := $(wildcard tests/fuzz/*.c)
FUZZ_CFLAGS  ?= -O1 -g -fsanitize=fuzzer-no-link,address,undefined \
		-fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SECONDS ?= 60
$(B)/fuzz/%: tests/fuzz/%.c $(B)/libft.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer $(LDFLAGS) -o $@ $^ $(BT_LIBS) $(LDLIBS)
fuzz-build:
	$(MAKE) B=build-fuzz CC=$(ASAN_CC) CFLAGS='$(FUZZ_CFLAGS)' \
		$(patsubst tests/fuzz/%.c,build-fuzz/fuzz/%,$(FUZZ_SRC))
fuzz: fuzz-build
	sh tests/fuzz/run.sh $(FUZZ_SECONDS)
fuzz-smoke: fuzz-build
	sh tests/fuzz/run.sh 5

check-unit: all
	FT_SKIP_GUEST=1 sh tests/run.sh

demo: deps
	$(MAKE) all
	sh tools/demo.sh

# make install: the binary; PREFIX/libexec/foliotrace holding guest-kernel/ (scripts,
# patches, configs, the guest programs' sources) and workloads/ (sources, and the built
# static programs in workloads/ARCH/: x86_64, and arm64 when its cross compiler is
# installed) with the source tree's relative paths, so the kernel's cache key (which
# hashes them by those paths) is the tree's; the man pages, the bash completion and the
# babeltrace2 plugin. install-files.sh lists every file, so uninstall removes just those.
INSTALL_ARM64 ?= $(if $(shell command -v aarch64-linux-gnu-gcc),1)
install: all $(if $(INSTALL_ARM64),workloads-arm64)
	sh tools/install-files.sh install '$(DESTDIR)' '$(bindir)' '$(pkglibexecdir)' \
		'$(man1dir)' '$(bashcompdir)' '$(btplugindir)' '$(B)'
uninstall:
	sh tools/install-files.sh uninstall '$(DESTDIR)' '$(bindir)' '$(pkglibexecdir)' \
		'$(man1dir)' '$(bashcompdir)' '$(btplugindir)' '$(B)'

# make deb: dpkg-buildpackage on debian/ (binary only, unsigned), the .deb moved to
# build/foliotrace_VERSION_ARCH.deb; lintian checks it when installed (make deps).
deb:
	sh tools/make-deb.sh

FORCE:

clean:
	rm -rf $(B) build-asan build-fuzz

.PHONY: all policies workloads workloads-arm64 deps check check-asan check-unit fuzz fuzz-build fuzz-smoke demo clean \
	install uninstall deb FORCE
