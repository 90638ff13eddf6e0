/* SPDX-License-Identifier: MIT */
/* Minimal TAP (version 13) output for the unit tests. */
#ifndef PRISM_TAP_H
#define PRISM_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed, tap_case_failed;

static inline void tap_plan(int n)
{
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
}

/* Record a failed check of the current case, with a diagnostic. */
#define CHECK(cond) do {						\
	if (!(cond)) {							\
		printf("#   %s:%d: check failed: %s\n",			\
		       __FILE__, __LINE__, #cond);			\
		tap_case_failed = 1;					\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b) {							\
		printf("#   %s:%d: %s == %s: got %lld, expected %lld\n",	\
		       __FILE__, __LINE__, #a, #b, _a, _b);		\
		tap_case_failed = 1;					\
	}								\
} while (0)

static inline void tap_hexdump(const char *what, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	printf("#   %s:", what);
	for (i = 0; i < n; i++)
		printf("%s%02x", i % 8 ? "" : " ", b[i]);
	printf("\n");
}

#define CHECK_MEM(a, b, n) do {						\
	if (memcmp((a), (b), (n))) {					\
		printf("#   %s:%d: memory differs: %s vs %s\n",		\
		       __FILE__, __LINE__, #a, #b);			\
		tap_hexdump("got     ", (a), (n));			\
		tap_hexdump("expected", (b), (n));			\
		tap_case_failed = 1;					\
	}								\
} while (0)

static inline void tap_case(void (*fn)(void), const char *name)
{
	tap_case_failed = 0;
	fn();
	tap_n++;
	if (tap_case_failed)
		tap_failed++;
	printf("%sok %d - %s\n", tap_case_failed ? "not " : "", tap_n, name);
	fflush(stdout);
}

#define RUN(fn) tap_case(fn, #fn)

static inline int tap_done(void)
{
	if (tap_failed)
		printf("# %d of %d failed\n", tap_failed, tap_n);
	return tap_failed ? 1 : 0;
}

#endif
