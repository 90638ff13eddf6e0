/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the benchmark programs that link liburing-prism (bench_indirect,
 * bench_uring).  Kept apart from bench_util.h, which mech_bench shares
 * without that library.
 */
#ifndef BENCH_PRISM_H
#define BENCH_PRISM_H

#include <sys/mman.h>
#include <unistd.h>

#include "liburing-prism.h"
#include "bench_util.h"

/*
 * "prism-server IF EP INFO": a region of len bytes, filled by fill() and
 * registered with access, its address published in INFO.  The kernel
 * answers the client's chains; this process only keeps the region alive.
 */
static inline int serve_region(int argc, char **argv, size_t len, __u32 access,
			       void (*fill)(unsigned char *mem))
{
	struct sockaddr_prism me;
	struct server_info si;
	unsigned char *mem;
	__u64 rkey;
	int fd, err;

	if (argc < 4)
		die("usage: prism-server IF EP INFO", EINVAL);
	fd = prism_open(argv[1], 0, (__u32)strtoul(argv[2], NULL, 0));
	if (fd < 0)
		die("prism_open", fd);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die("mmap", errno);
	fill(mem);
	err = prism_reg_mr(fd, mem, len, access, &rkey);
	if (err)
		die("REG_MR", err);
	err = prism_local_addr(fd, &me);
	if (err)
		die("getsockname", err);
	prism_format_mac(me.sprism_mac, si.mac);
	si.ep = me.sprism_ep;
	si.rkey = rkey;
	si.base = (uintptr_t)mem;
	err = server_info_write(argv[3], &si);
	if (err)
		die("info file", err);
	for (;;)
		pause();
	return 0;
}

/* The server's info file: its address goes to dst, rkey and base returned. */
static inline struct server_info read_server(const char *info,
					     struct sockaddr_prism *dst)
{
	struct server_info si;
	__u8 mac[6] = { 0 };

	server_info_read(info, &si);
	prism_parse_mac(si.mac, mac);
	prism_addr_init(dst, mac, si.ep);
	return si;
}

#endif /* BENCH_PRISM_H */
