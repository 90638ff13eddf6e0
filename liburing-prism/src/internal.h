/* SPDX-License-Identifier: MIT */
/* liburing-prism: what prism.c and ring.c share (not installed). */
#ifndef LIBURING_PRISM_INTERNAL_H
#define LIBURING_PRISM_INTERNAL_H

#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds. */
static inline long long prism__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif
