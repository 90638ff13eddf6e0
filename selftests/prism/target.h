/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the selftest targets (reliability/rel_server, hostile/hz_server)
 * share: their memory, their address line.  Header only (static inline), C11 with
 * liburing-prism.
 */
#ifndef PRISM_SELFTEST_TARGET_H
#define PRISM_SELFTEST_TARGET_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "liburing-prism.h"

/* len bytes of anonymous memory, zeroed; NULL (after perror) on failure. */
static inline void *target_mem(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		return NULL;
	}
	memset(p, 0, len);
	return p;
}

/*
 * Print and flush the address line of the target on socket fd, whose
 * region rkey starts at addr: "mac=.. ep=.. rkey=.. addr=.." then fmt
 * (the clients parse its key=value words).  0 or -errno (getsockname).
 */
static inline int __attribute__((format(printf, 4, 5)))
target_addr_line(int fd, __u64 rkey, const void *addr, const char *fmt, ...)
{
	struct sockaddr_prism me;
	char mac[18];
	va_list ap;
	int err = prism_local_addr(fd, &me);

	if (err)
		return err;
	printf("mac=%s ep=%u rkey=0x%llx addr=0x%llx",
	       prism_format_mac(me.sprism_mac, mac), me.sprism_ep,
	       (unsigned long long)rkey, (unsigned long long)(uintptr_t)addr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return 0;
}

#endif /* PRISM_SELFTEST_TARGET_H */
