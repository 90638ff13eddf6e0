/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the benchmark programs that link liburing-prism (bench_indirect,
 * bench_uring, rxe_lat).  Kept apart from bench_util.h, which mech_bench
 * shares without that library.
 */
#ifndef BENCH_PRISM_H
#define BENCH_PRISM_H

#include <sys/mman.h>
#include <unistd.h>

#include "liburing-prism.h"
#include "bench_util.h"

/*
 * The region of bench_indirect and rxe_lat: at 0 a table of nvals
 * pointers (slot k holds the address of value k, little-endian), at
 * val_off the nvals values of size bytes (val_byte()).
 */
static inline void fill_pointed_values(unsigned char *mem, unsigned int nvals,
				       unsigned int val_off, unsigned int size)
{
	unsigned int k, i;

	for (k = 0; k < nvals; k++) {
		prism_put_le64(mem + 8 * k,
			       (__u64)(uintptr_t)(mem + val_off + k * size));
		for (i = 0; i < size; i++)
			mem[val_off + k * size + i] = val_byte(k, i);
	}
}

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

/*
 * Execute chain c on fd to dst (prism_execute(), blocking); dies naming
 * what unless the chain completed with PRISM_S_OK.  The completion is in
 * out, which must be 8-byte aligned.
 */
static inline const struct prism_msg *execute_or_die(int fd,
						     const struct sockaddr_prism *dst,
						     struct prism_chain_buf *c,
						     unsigned char *out,
						     size_t out_len,
						     const char *what)
{
	const struct prism_msg *m = (const void *)out;
	ssize_t got;

	got = prism_execute(fd, dst, c, out, out_len);
	if (got < 0 || m->status != PRISM_S_OK)
		die(what, got < 0 ? (int)got : EIO);
	return m;
}

/* Dies with message what unless op 0 of m output value k (check_value()). */
static inline void check_msg_value(const struct prism_msg *m, unsigned int k,
				   unsigned int size, const char *what)
{
	const void *p;
	__u32 len;

	p = prism_msg_data(m, 0, &len);
	if (check_value(p, len, k, size))
		die(what, EIO);
}

#endif /* BENCH_PRISM_H */
