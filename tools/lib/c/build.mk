# SPDX-License-Identifier: MIT
#
# What the Makefiles of the userspace C programs and their unit tests share
# (liburing-prism, apps/kv, apps/rs, apps/tx, tools/lib/c):
#   CC, CFLAGS  defaults (the caller's win)
#   WARN        the warning flags: C11, warnings are errors
#   SAN         the flags of the second, ASan+UBSan build of the unit tests
#   $(call run_tap_tests,NAME,BINARIES[,MORE])
#               a `make check` recipe: runs each TAP binary (relative paths)
#               under the sanitizer options below, then the shell commands
#               MORE (each ending in `;`, may set fail=1), and fails with
#               "# NAME: FAILED" if any did
CC	?= cc
CFLAGS	?= -O2 -g
WARN	:= -std=c11 -Wall -Wextra -Werror -Wshadow -Wpointer-arith \
	   -Wstrict-prototypes -Wmissing-prototypes
SAN	:= -fsanitize=address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=all

define run_tap_tests
@fail=0; \
for t in $(2); do \
	echo "# $$t"; \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		./$$t || fail=1; \
done; \
$(3) \
if [ $$fail -ne 0 ]; then echo "# $(1): FAILED"; exit 1; fi; \
echo "# $(1): all tests passed"
endef
