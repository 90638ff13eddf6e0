// SPDX-License-Identifier: MIT
/*
 * Minimal PRISM server: binds, registers a region, creates and fills a
 * free list, prints its address and sleeps in pause() while remote
 * clients operate on its memory.
 *
 * Usage: prism-example-server IFNAME [EP]
 * Prints one line of key=value pairs that prism-example-client takes as
 * arguments:
 *   mac=02:00:00:00:00:01 ep=7 rkey=0x... addr=0x... len=... fl=1 bufsize=256
 *
 * Region layout (1 MiB):
 *   0x0000  counter (8 bytes, little-endian)
 *   0x0040  pointer slot: address of the current value
 *   0x1000  initial value: "hello from the server"
 *   0x10000.. free list buffers of 256 bytes
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "liburing-prism.h"

#define REGION_LEN	(1u << 20)
#define BUF_OFF		0x10000u
#define BUF_SIZE	256u

int main(int argc, char **argv)
{
	unsigned int nbufs = (REGION_LEN - BUF_OFF) / BUF_SIZE, i;
	struct sockaddr_prism me;
	unsigned char *mem;
	__u64 rkey, *addrs;
	char mac[18];
	__u32 fl;
	int fd, err;

	if (argc < 2) {
		fprintf(stderr, "usage: %s IFNAME [EP]\n", argv[0]);
		return 2;
	}
	fd = prism_open(argv[1], 0, argc > 2 ? (__u32)strtoul(argv[2], NULL, 0) : 0);
	if (fd < 0) {
		fprintf(stderr, "prism_open(%s): %s\n", argv[1], strerror(-fd));
		return 1;
	}
	mem = mmap(NULL, REGION_LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memset(mem, 0, REGION_LEN);
	strcpy((char *)mem + 0x1000, "hello from the server");
	prism_put_le64(mem + 0x40, (__u64)(uintptr_t)(mem + 0x1000));

	err = prism_reg_mr(fd, mem, REGION_LEN, PRISM_ACCESS_ALL, &rkey);
	if (!err)
		err = prism_fl_create(fd, rkey, BUF_SIZE, nbufs, &fl);
	if (err) {
		fprintf(stderr, "register: %s\n", strerror(-err));
		return 1;
	}
	addrs = calloc(nbufs, sizeof(*addrs));
	if (!addrs)
		return 1;
	for (i = 0; i < nbufs; i++)
		addrs[i] = (__u64)(uintptr_t)(mem + BUF_OFF + i * BUF_SIZE);
	err = prism_fl_post(fd, fl, addrs, nbufs);
	free(addrs);
	if (err) {
		fprintf(stderr, "FL_POST: %s\n", strerror(-err));
		return 1;
	}
	/*
	 * Posted buffers become allocatable once every op that might still
	 * touch them has finished (an RCU grace period); membarrier(GLOBAL)
	 * waits for one, so the first ALLOC after we print already succeeds.
	 */
	syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
	err = prism_local_addr(fd, &me);
	if (err) {
		fprintf(stderr, "getsockname: %s\n", strerror(-err));
		return 1;
	}
	printf("mac=%s ep=%u rkey=0x%llx addr=0x%llx len=%u fl=%u bufsize=%u\n",
	       prism_format_mac(me.sprism_mac, mac), me.sprism_ep,
	       (unsigned long long)rkey, (unsigned long long)(uintptr_t)mem,
	       REGION_LEN, fl, BUF_SIZE);
	fflush(stdout);
	/* From here on the kernel serves every request; we never wake up. */
	for (;;)
		pause();
}
