/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PRISM selftests: shared declarations of prism_test (one binary with
 * subcommands, driven by run_all.sh inside the guest).
 */
#ifndef PRISM_ST_H
#define PRISM_ST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "liburing-prism.h"
#include "prism_util.h"	/* pu_now_ns(), pu_write_atomic() */

/* ------------------------------------------------------------------------
 * Server memory layout (set up by cmd_server() in prism_test.c).  Offsets
 * into the RW region.
 */
#define RW_LEN		(256u * 1024)
#define PAT_END		0x10000u	/* [0, PAT_END): pattern, never written */
#define T_AREA		0x10000u	/* [T_AREA, T_END): per-test state */
#define T_END		0x1e000u
#define SMALL_BUF	0x1e000u	/* the one buffer of the small free list */
#define SMALL_BUF_SIZE	64u
#define FL_OFF		0x20000u	/* main free list buffers */
#define FL_BUF_SIZE	128u
#define FL_COUNT	((RW_LEN - FL_OFF) / FL_BUF_SIZE)
#define RO_LEN		4096u
#define NA_LEN		4096u

/* Byte i of the RW pattern area, and of the read-only region. */
static inline unsigned char pat(uint64_t i)
{
	return (unsigned char)(i * 7 + (i >> 8) * 13 + 1);
}

static inline unsigned char ro_pat(uint64_t i)
{
	return (unsigned char)(pat(i) ^ 0x55);
}

/* What a server publishes in its info file ("key value" lines). */
struct srv_info {
	pid_t	pid;
	__u8	mac[6];
	__u32	ep;
	int	ifindex;
	__u64	rw_addr, rw_rkey;
	__u64	ro_addr, ro_rkey;
	__u64	na_addr, na_rkey;	/* READ|WRITE, no ATOMIC */
	__u32	fl_main, fl_small;
	__u64	big_addr, big_len, big_rkey;
	/* UDP: "IP:PORT/EP" (prism_parse_addr()); "-" or empty: Ethernet. */
	char	addr[PRISM_ADDR_STRLEN];
};

int srv_info_load(const char *path, struct srv_info *s);
int srv_info_save(const char *path, const struct srv_info *s);

/* ------------------------------------------------------------------------
 * Checks: print "# ..." diagnostics, remember failure, continue.
 */
extern int st_failed;

void st_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void st_fail_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define FAIL(...) st_fail_at(__FILE__, __LINE__, __VA_ARGS__)
#define EXPECT(cond, ...) do {						\
	if (!(cond))							\
		FAIL("expected " #cond ": " __VA_ARGS__);		\
} while (0)
#define EXPECT_EQ(got, want, what) do {					\
	long long _g = (long long)(got), _w = (long long)(want);	\
	if (_g != _w)							\
		FAIL("%s: expected %lld (0x%llx), got %lld (0x%llx)",	\
		     what, _w, (unsigned long long)_w, _g,		\
		     (unsigned long long)_g);				\
} while (0)
/* errno checks: rc is 0 / -errno (library style). */
#define EXPECT_ERR(rc, err, what) do {					\
	int _r = (rc);							\
	if (_r != -(err))						\
		FAIL("%s: expected %s, got %s", what, errno_name(err),	\
		     _r ? errno_name(-_r) : "success");			\
} while (0)
#define EXPECT_ERR2(rc, e1, e2, what) do {				\
	int _r = (rc);							\
	if (_r != -(e1) && _r != -(e2))					\
		FAIL("%s: expected %s or %s, got %s", what,		\
		     errno_name(e1), errno_name(e2),			\
		     _r ? errno_name(-_r) : "success");			\
} while (0)
#define EXPECT_MEM(got, want, n, what) do {				\
	if (memcmp((got), (want), (n)))					\
		st_mem_diff(__FILE__, __LINE__, what, (got), (want), (n)); \
} while (0)

const char *errno_name(int e);
void st_mem_diff(const char *file, int line, const char *what,
		 const void *got, const void *want, size_t n);

/* ------------------------------------------------------------------------
 * Utilities
 */
long long now_ms(void);
/* Read/write server memory with process_vm_readv/writev. */
int peek(pid_t pid, __u64 addr, void *buf, size_t len);
int poke(pid_t pid, __u64 addr, const void *buf, size_t len);
/* utime + stime of a process, in clock ticks; -1 on error. */
long long proc_cpu_ticks(pid_t pid);
/* voluntary + nonvoluntary context switches; -1 on error. */
long long proc_ctxt_switches(pid_t pid);
/* The destination of the server of info s (UDP if it has an address). */
int st_dest(const struct srv_info *s, union prism_sockaddr *dst);
/* Open a socket bound in network namespace ns (/run/netns/ns), as prism_open_spec(). */
int open_in_netns(const char *ns, const char *ifname, __u32 ep);
/* A packet socket (ETH_P_ALL, non-blocking) seeing every interface of ns. */
int capture_in_netns(const char *ns);

/* ------------------------------------------------------------------------
 * Client context for the test cases (cases/: one file per feature, the
 * table st_cases[] in cases/registry.c, their helpers in cases/cases.h).
 */
struct client {
	int			fd;
	struct srv_info		s;
	union prism_sockaddr	dst;
	union prism_sockaddr	me;
	const char		*ifname;
	const char		*peer_ns;	/* server's netns name */
	const char		*peer_if;	/* server's interface there */
	__u64			next_ud;
	_Alignas(8) unsigned char cbuf[4096];
	_Alignas(8) unsigned char out[4096];
};

static inline const struct prism_msg *cl_msg(const struct client *c)
{
	return (const struct prism_msg *)(const void *)c->out;
}

/* Address of offset off of the server's RW region. */
static inline __u64 rw(const struct client *c, __u64 off)
{
	return c->s.rw_addr + off;
}

void cl_chain(struct client *c, struct prism_chain_buf *ch);
/*
 * Execute a chain: NULL (with a diagnostic) if it could not be submitted or
 * completed, else the completion; when want_ok, a chain status other than
 * OK is a failure too.
 */
const struct prism_msg *cl_exec(struct client *c, struct prism_chain_buf *ch,
				bool want_ok);
/* cl_exec() to another destination than the server of c. */
const struct prism_msg *cl_exec_at(struct client *c,
				   const struct sockaddr_prism *dst,
				   struct prism_chain_buf *ch, bool want_ok);
/* Execute, retrying while op alloc_idx fails with NO_BUFFER (posted
 * buffers become allocatable after an RCU grace period). */
const struct prism_msg *cl_exec_alloc(struct client *c,
				      struct prism_chain_buf *ch,
				      unsigned int alloc_idx);
/* Check op i's status; if want_data, its output against want (len bytes). */
void cl_expect_op(const struct prism_msg *m, unsigned int i, int status,
		  const void *want, __u32 len, const char *what);
int cl_read_u64(struct client *c, __u64 addr, __u64 *v);

typedef int (*case_fn)(struct client *c);
struct st_case {
	const char	*name;
	case_fn		fn;
	const char	*help;
};
extern const struct st_case st_cases[];

#endif
