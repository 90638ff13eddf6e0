// SPDX-License-Identifier: GPL-2.0
/*
 * Target for the reliability tests: a region with a counter at offset 0
 * and a free list of 64-byte buffers; optional PRISM_SERVE_RATE.  Prints
 * its address line (for rel_client) and sleeps in pause().
 *
 * Usage: rel_server IFNAME EP NBUFS [SERVE_RATE]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "liburing-prism.h"
#include "../target.h"

#define BUF_OFF		4096u
#define BUF_SIZE	64u

int main(int argc, char **argv)
{
	unsigned int nbufs, i;
	unsigned char *mem;
	size_t len;
	__u64 rkey, *addrs;
	__u32 fl;
	int fd, err, rate;

	if (argc < 4) {
		fprintf(stderr, "usage: %s IFNAME EP NBUFS [SERVE_RATE]\n", argv[0]);
		return 2;
	}
	nbufs = (unsigned int)strtoul(argv[3], NULL, 0);
	rate = argc > 4 ? atoi(argv[4]) : 0;
	fd = prism_open(argv[1], 0, (__u32)strtoul(argv[2], NULL, 0));
	if (fd < 0) {
		fprintf(stderr, "prism_open: %s\n", strerror(-fd));
		return 1;
	}
	if (rate && setsockopt(fd, SOL_PRISM, PRISM_SERVE_RATE, &rate,
			       sizeof(rate))) {
		perror("PRISM_SERVE_RATE");
		return 1;
	}
	len = BUF_OFF + (size_t)nbufs * BUF_SIZE;
	mem = target_mem(len);
	if (!mem)
		return 1;
	err = prism_reg_mr(fd, mem, len, PRISM_ACCESS_ALL, &rkey);
	if (!err)
		err = prism_fl_create(fd, rkey, BUF_SIZE, nbufs, &fl);
	addrs = calloc(nbufs, sizeof(*addrs));
	if (!err && !addrs)
		err = -ENOMEM;
	for (i = 0; !err && i < nbufs; i++)
		addrs[i] = (__u64)(uintptr_t)(mem + BUF_OFF + i * BUF_SIZE);
	if (!err)
		err = prism_fl_post(fd, fl, addrs, nbufs);
	if (!err)
		err = target_addr_line(fd, rkey, mem, " fl=%u nbufs=%u", fl,
				       nbufs);
	if (err) {
		fprintf(stderr, "setup: %s\n", strerror(-err));
		return 1;
	}
	for (;;)
		pause();
}
