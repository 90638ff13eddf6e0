// SPDX-License-Identifier: GPL-2.0
/*
 * Target of the hostile tests: region 1 and region 2 laid out as hz.h
 * says, optionally PRISM_OPEN_SEND.  Prints its address line and pid and
 * sleeps in pause(); the kernel serves the clients.
 *
 * Usage: hz_server IFNAME EP [open_send]
 */
#define _GNU_SOURCE
#include <sys/socket.h>

#include "hz.h"
#include "../target.h"

int main(int argc, char **argv)
{
	__u64 rkey, rkey2;
	uint64_t *slot;
	uint8_t *mem, *mem2;
	long page = sysconf(_SC_PAGESIZE);
	int fd, err, one = 1, open_send = 0;
	uint32_t i;

	if (argc < 3) {
		fprintf(stderr, "usage: %s IFNAME EP [open_send]\n", argv[0]);
		return 2;
	}
	fd = prism_open(argv[1], 0, (uint32_t)strtoul(argv[2], NULL, 0));
	if (fd < 0) {
		fprintf(stderr, "prism_open: %s\n", strerror(-fd));
		return 1;
	}
	if (argc > 3 && !strcmp(argv[3], "open_send")) {
		open_send = setsockopt(fd, SOL_PRISM, PRISM_OPEN_SEND, &one,
				       sizeof(one)) ? -errno : 1;
	}

	mem = target_mem(HZ_REGION_LEN);
	mem2 = target_mem(HZ_R2_PAGES * page);
	if (!mem || !mem2)
		return 1;
	for (i = 0; i < HZ_KNOWN_LEN; i++)
		mem[HZ_KNOWN_OFF + i] = hz_byte(HZ_KNOWN_OFF + i);
	for (i = 0; i < HZ_COPY_LEN; i++)
		mem[HZ_SRC_OFF + i] = hz_byte(HZ_SRC_OFF + i);
	slot = (uint64_t *)(void *)(mem + HZ_SLOT_OFF);
	slot[0] = (uint64_t)(uintptr_t)mem + HZ_REGION_LEN;	/* little endian */
	slot[1] = 0;
	slot = (uint64_t *)(void *)(mem2 + HZ_R2_SKIP);
	slot[0] = (uint64_t)(uintptr_t)mem2 + HZ_R2_PAGES * page;
	slot[1] = 0;

	err = prism_reg_mr(fd, mem, HZ_REGION_LEN, PRISM_ACCESS_ALL, &rkey);
	if (!err)
		err = prism_reg_mr(fd, mem2 + HZ_R2_SKIP,
				   HZ_R2_PAGES * page - HZ_R2_SKIP,
				   PRISM_ACCESS_ALL, &rkey2);
	if (!err)
		err = target_addr_line(fd, rkey, mem,
				       " len=%u rkey2=0x%llx addr2=0x%llx len2=%lu pid=%d open_send=%s",
				       HZ_REGION_LEN, (unsigned long long)rkey2,
				       (unsigned long long)(uintptr_t)(mem2 + HZ_R2_SKIP),
				       HZ_R2_PAGES * page - HZ_R2_SKIP, (int)getpid(),
				       open_send == 1 ? "1" : open_send ? hz_err(open_send) : "0");
	if (err) {
		fprintf(stderr, "setup: %s\n", strerror(-err));
		return 1;
	}
	for (;;)
		pause();
}
