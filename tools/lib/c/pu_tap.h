/* SPDX-License-Identifier: MIT */
/*
 * TAP output for host unit tests: ok(cond, printf format, ...) prints
 * "ok N - ..." or "not ok N - ..."; tap_run and tap_failed count them.
 */
#ifndef PU_TAP_H
#define PU_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_run, tap_failed;

static inline void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_run++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_run);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

#endif /* PU_TAP_H */
