/* SPDX-License-Identifier: MIT */
/* liburing-prism: what its source files share (not installed). */
#ifndef LIBURING_PRISM_INTERNAL_H
#define LIBURING_PRISM_INTERNAL_H

#include <stddef.h>
#include <time.h>

#include "liburing-prism.h"

/* Zero secrets; the stores are not optimised away. */
static inline void prism__wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;

	while (n--)
		*v++ = 0;
}

/* CLOCK_MONOTONIC in nanoseconds. */
static inline long long prism__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif
