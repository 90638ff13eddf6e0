/* SPDX-License-Identifier: MIT */
/* Minimal TAP output for the PRISM-RS unit tests. */
#ifndef RS_TAP_H
#define RS_TAP_H

#include <stdio.h>

static int tap_n, tap_failed;

#define TAP_OK(cond, ...) do {						\
	int tap_ok_ = !!(cond);						\
	tap_n++;							\
	if (tap_ok_) {							\
		printf("ok %d - ", tap_n);				\
	} else {							\
		tap_failed++;						\
		printf("not ok %d - ", tap_n);				\
	}								\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	if (!tap_ok_)							\
		printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* RS_TAP_H */
