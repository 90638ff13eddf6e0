/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the benchmark programs (bench_indirect, bench_uring,
 * rxe_lat): errors, options, the server's region and info file, running a
 * chain, the interleaved-rounds driver and JSON boilerplate.  Clocks,
 * latency statistics and atomic file writes are prism_util's (tools/lib/c;
 * the programs compile prism_util.c in).
 *
 * Needs _GNU_SOURCE (program_invocation_short_name).
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "liburing-prism.h"
#include "prism_util.h"

/* Print "PROGRAM: what: error" and exit; err may be negative (-errno). */
static inline void die(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		strerror(err < 0 ? -err : err));
	exit(1);
}

/* The options both benchmark clients (bench_indirect, bench_uring) take. */
#define BENCH_CLIENT_OPTS(ifname, info, n, warmup, json)			\
	PU_OPT("if", ifname, "IF", "interface, or udp[:IP] (required)"),	\
	PU_OPT("info", info, "INFO", "the server's info file (required)"),	\
	PU_OPT("n", n, "N", "measured iterations"),				\
	PU_OPT("warmup", warmup, "W", "warm-up iterations, not measured"),	\
	PU_OPT("json", json, "FILE", "results, JSON")

/*
 * What a PRISM server publishes for its client: "key value" lines with
 * its address and registered region.  The MAC stays text here; the
 * programs that link liburing-prism parse it.
 */
struct server_info {
	char			mac[18];
	unsigned int		ep;
	unsigned long long	rkey, base;
	char			addr[80];	/* UDP: "IP:PORT/EP"; else "-" */
};

static inline int server_info_write(const char *path, const struct server_info *si)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "mac %s\nep %u\nrkey 0x%llx\nbase 0x%llx\naddr %s\n",
		 si->mac, si->ep, si->rkey, si->base,
		 si->addr[0] ? si->addr : "-");
	return pu_write_atomic(path, text);
}

static inline void server_info_read(const char *path, struct server_info *si)
{
	char key[64], val[128];
	FILE *f;

	memset(si, 0, sizeof(*si));
	f = fopen(path, "r");
	if (!f)
		die(path, errno);
	while (fscanf(f, "%63s %127s", key, val) == 2) {
		if (!strcmp(key, "mac"))
			snprintf(si->mac, sizeof(si->mac), "%.*s",
				 (int)sizeof(si->mac) - 1, val);
		else if (!strcmp(key, "ep"))
			si->ep = (unsigned int)strtoul(val, NULL, 0);
		else if (!strcmp(key, "rkey"))
			si->rkey = strtoull(val, NULL, 0);
		else if (!strcmp(key, "base"))
			si->base = strtoull(val, NULL, 0);
		else if (!strcmp(key, "addr") && strcmp(val, "-"))
			snprintf(si->addr, sizeof(si->addr), "%.79s", val);
	}
	fclose(f);
}

/* Byte i of value k, as the servers fill their values and clients check. */
static inline unsigned char val_byte(unsigned int k, unsigned int i)
{
	return (unsigned char)(k * 31 + i * 7 + 3);
}

/* 0 if p holds exactly value k of size bytes (val_byte()), else -1. */
static inline int check_value(const unsigned char *p, unsigned int len,
			      unsigned int k, unsigned int size)
{
	unsigned int i;

	if (!p || len != size)
		return -1;
	for (i = 0; i < size; i++)
		if (p[i] != val_byte(k, i))
			return -1;
	return 0;
}

/*
 * Modes measured in interleaved rounds (bench_uring): every round runs
 * each mode once, a warm-up segment then a recorded one, in an order that
 * rotates, so that drift in a loaded TCG guest affects all modes alike.
 */
#define BENCH_MAX_ROUNDS	100
#define BENCH_NSLOTS		256	/* slot index: low 8 bits of a tag */

struct bench_mode {
	const char	*name;
	int		kind;		/* the program's enum kind */
	unsigned int	depth;
	double		*v;		/* latencies, us */
	unsigned long	n;
	double		busy_us;	/* recorded segments, wall clock */
	double		seg_ops[BENCH_MAX_ROUNDS];	/* ops/s of each recorded segment */
	unsigned int	nseg;
	double		stop_us;	/* nonzero: no op started from then (pu_now_us()) */
};

/*
 * ops_s: all recorded ops / their wall time; ops_seg: median over the
 * rounds of each segment's ops/s (robust against stalls of a loaded host).
 */
struct mode_summary {
	double ops_s, ops_seg;
	struct pu_lat_summary lat;
};

/* Account a recorded segment of nops that started at t0. */
static inline void mode_segment_done(struct bench_mode *m, unsigned long nops,
				     double t0)
{
	double t = pu_now_us() - t0;

	m->busy_us += t;
	m->seg_ops[m->nseg++] = (double)nops / (t / 1e6);
}

/* Slots of the requests in flight and when each was started. */
struct slot_pool {
	unsigned int	free[BENCH_NSLOTS];
	unsigned int	nfree;
	double		t_start[BENCH_NSLOTS];
};

static inline void slot_pool_init(struct slot_pool *p)
{
	unsigned int i;

	for (i = 0; i < BENCH_NSLOTS; i++)
		p->free[i] = BENCH_NSLOTS - 1 - i;
	p->nfree = BENCH_NSLOTS;
}

/*
 * The program's side of a pipelined segment: start() queues or sends the
 * op of a slot (and sets its t_start), wait() blocks for at least one
 * finished op and returns their slots in done[] (at most BENCH_NSLOTS).
 */
struct pipeline_ops {
	void		(*start)(void *ctx, int kind, unsigned int slot);
	unsigned int	(*wait)(void *ctx, int kind, unsigned int *done);
};

/*
 * nops ops with m->depth in flight; recorded unless warm-up.  With
 * m->stop_us set, no op starts from that time on (nops is then a cap): the
 * ops in flight finish, and the segment counts those completed.
 */
static inline void run_pipelined(struct slot_pool *p, const struct pipeline_ops *ops,
				 void *ctx, struct bench_mode *m,
				 unsigned long nops, int record)
{
	unsigned long issued = 0, completed = 0;
	unsigned int done[BENCH_NSLOTS], inflight = 0, nd, i, slot;
	double t0 = pu_now_us(), t;
	int stopped = 0;

	while (completed < issued || (issued < nops && !stopped)) {
		while (inflight < m->depth && issued < nops && !stopped) {
			if (m->stop_us && pu_now_us() >= m->stop_us) {
				stopped = 1;
				break;
			}
			slot = p->free[--p->nfree];
			ops->start(ctx, m->kind, slot);
			inflight++;
			issued++;
		}
		if (!inflight)
			break;
		nd = ops->wait(ctx, m->kind, done);
		t = pu_now_us();
		for (i = 0; i < nd; i++) {
			if (record)
				m->v[m->n++] = t - p->t_start[done[i]];
			p->free[p->nfree++] = done[i];
		}
		inflight -= nd;
		completed += nd;
	}
	if (record)
		mode_segment_done(m, completed, t0);
}

/* Room for rounds * per latencies in every mode. */
static inline void modes_alloc(struct bench_mode *modes, unsigned int nmodes,
			       unsigned long per, long rounds)
{
	unsigned int j;

	for (j = 0; j < nmodes; j++) {
		modes[j].v = calloc((size_t)per * (size_t)rounds, sizeof(double));
		if (!modes[j].v)
			die("calloc", ENOMEM);
	}
}

typedef void run_segment_fn(void *ctx, struct bench_mode *m,
			    unsigned long nops, int record);

/* All rounds of all modes; their summaries go to sum[]. */
static inline void run_rounds(struct bench_mode *modes, unsigned int nmodes,
			      long rounds, long warmup, unsigned long per,
			      run_segment_fn *run, void *ctx,
			      struct mode_summary *sum)
{
	struct bench_mode *m;
	unsigned int j;
	long r;

	for (j = 0; j < nmodes; j++) {
		modes[j].n = 0;
		modes[j].nseg = 0;
		modes[j].busy_us = 0;
	}
	for (r = 0; r < rounds; r++) {
		for (j = 0; j < nmodes; j++) {
			m = &modes[(j + (unsigned long)r) % nmodes];
			run(ctx, m, (unsigned long)warmup, 0);
			run(ctx, m, per, 1);
		}
	}
	for (j = 0; j < nmodes; j++) {
		m = &modes[j];
		sum[j].lat = pu_lat_summarize(m->v, m->n);
		sum[j].ops_s = (double)m->n / (m->busy_us / 1e6);
		qsort(m->seg_ops, m->nseg, sizeof(double), pu_cmp_double);
		sum[j].ops_seg = pu_median_sorted(m->seg_ops, m->nseg);
	}
}

/* Open path and write the fields every result file starts with. */
static inline FILE *json_open(const char *path, const char *benchmark)
{
	struct utsname u;
	FILE *f;

	uname(&u);
	f = fopen(path, "w");
	if (!f)
		die(path, errno);
	fprintf(f, "{\n  \"benchmark\": \"%s\",\n  \"kernel\": \"%s\",\n",
		benchmark, u.release);
	return f;
}

/* A mode's results, left open for fields of the program's own. */
static inline void json_mode_fields(FILE *f, const struct bench_mode *m,
				    const struct mode_summary *x)
{
	fprintf(f, "      \"%s\": {\"depth\": %u, \"ops_per_s\": %.0f, \"ops_per_s_segment_median\": %.0f, \"mean\": %.2f, \"p50\": %.2f, \"p99\": %.2f, \"min\": %.2f, \"max\": %.2f",
		m->name, m->depth, x->ops_s, x->ops_seg, x->lat.mean,
		x->lat.p50, x->lat.p99, x->lat.min, x->lat.max);
}

/* Close a result file; a failed write is fatal, not a truncated file. */
static inline void close_or_die(FILE *f, const char *path)
{
	if (fclose(f))
		die(path, errno);
}

/* main() of a program with sub-commands: "prog NAME ARGS...". */
struct subcommand {
	const char	*name;
	int		(*run)(int argc, char **argv);
};

static inline int run_subcommand(int argc, char **argv,
				 const struct subcommand *cmds, unsigned int ncmds)
{
	unsigned int i;

	for (i = 0; argc >= 2 && i < ncmds; i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	fprintf(stderr, "usage: %s ", argv[0]);
	for (i = 0; i < ncmds; i++)
		fprintf(stderr, "%s%s", i ? "|" : "", cmds[i].name);
	fprintf(stderr, " ...\n");
	return 2;
}

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
 * registered with access, its address published in INFO.  IF may be
 * udp:IP (prism_open_spec()).  The kernel
 * answers the client's chains; this process only keeps the region alive.
 */
static inline int serve_region(int argc, char **argv, size_t len, __u32 access,
			       void (*fill)(unsigned char *mem))
{
	union prism_sockaddr me;
	struct server_info si;
	unsigned char *mem;
	__u64 rkey;
	int fd, err;

	if (argc < 4)
		die("usage: prism-server IF EP INFO", EINVAL);
	fd = prism_open_spec(argv[1], (__u32)strtoul(argv[2], NULL, 0));
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
	err = prism_local_addr(fd, &me.eth);
	if (err)
		die("getsockname", err);
	memset(&si, 0, sizeof(si));
	prism_format_mac(me.eth.sprism_mac, si.mac);
	si.ep = me.eth.sprism_ep;
	if (me.eth.sprism_kind == PRISM_ADDR_UDP)
		prism_format_addr(&me.eth, si.addr);
	si.rkey = rkey;
	si.base = (uintptr_t)mem;
	err = server_info_write(argv[3], &si);
	if (err)
		die("info file", err);
	for (;;)
		pause();
	return 0;
}

/*
 * The server's info file: its address (MAC, or UDP address) goes to dst,
 * rkey and base returned.
 */
static inline struct server_info read_server(const char *info,
					     union prism_sockaddr *dst)
{
	struct server_info si;
	__u8 mac[6] = { 0 };

	server_info_read(info, &si);
	if (si.addr[0]) {
		if (prism_parse_addr(si.addr, dst))
			die(si.addr, EINVAL);
		return si;
	}
	prism_parse_mac(si.mac, mac);
	prism_addr_init(&dst->eth, mac, si.ep);
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

#endif /* BENCH_UTIL_H */
