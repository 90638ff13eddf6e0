// SPDX-License-Identifier: MIT
/*
 * Throughput and latency of one READ or WRITE of SIZE bytes (or an 8-byte
 * CAS) with DEPTH of them in flight, over PRISM and over TCP, the two
 * sides of each, for tools/bench/large.sh (issue 14: large operations;
 * it adds rxe through perftest and runs every cell of the grid) and
 * tools/bench/depth.sh, incast.sh (issue 19: READ 8 B and CAS at depth
 * up to 256, several clients).  One cell per client run:
 *
 *   bench_large prism-server IF EP INFO MAXSIZE MAXDEPTH
 *   bench_large prism --if IF --info INFO --op read|write|cas --size S
 *                     --depth D [--n N] [--warmup W] [--seconds T]
 *                     [--ready FILE --go FIFO] [--samples FILE] [--outbuf]
 *   bench_large tcp-server ADDR PORT READY MAXSIZE
 *   bench_large tcp --addr ADDR --port P --op read|write|stream --size S
 *                   [--depth D] [--n N] [--warmup W]
 *
 * The PRISM server registers 2 * MAXDEPTH * MAXSIZE + 8 * MAXDEPTH bytes:
 * a READ area where slot k's SIZE bytes are val_byte(k, i), a WRITE area,
 * and one 8-byte CAS counter per slot.  The client keeps one prebuilt
 * chain per slot (a READ of its value, or a WRITE of its data into its
 * part of the WRITE area; a CAS is built for every op: EQ, the counter's
 * value to that plus one) and keeps DEPTH of them in flight with
 * prism_submit() / prism_wait_from().  With --outbuf each slot's READ has
 * an output buffer of its own (prism_chain_set_outbuf(): the answer is
 * copied once, from the frames into it, and the completion is the
 * result alone); its lines name the stack "prism-ob".  A CAS client reads its counters
 * first (a server outlives its clients) and checks every old value, so
 * two CAS clients must not share a server at the same time.
 *
 * --seconds T measures for T seconds instead of N ops (N then caps the
 * ops); --ready FILE is written after the warm-up, and the measurement
 * starts once the FIFO --go is opened for writing: the barrier of several
 * clients started one by one (incast.sh).  --samples FILE gets every
 * measured latency (us), one per line.
 *
 * TCP (one connection, TCP_NODELAY): a READ is a 16-byte request answered
 * with SIZE bytes, a WRITE is a request followed by SIZE bytes and
 * answered with 8; DEPTH requests are pipelined on the connection.
 * "stream" sends N * SIZE bytes back to back after one request, and the
 * server answers 8 bytes once it has read them all: the time is that of
 * the whole transfer, received.
 *
 * Every completion is checked: status and length, the first and last 8
 * bytes of a READ; warm-up READs are compared byte for byte, and after the
 * measurement one WRITE area (PRISM) is read back and compared.
 * Latency: from submitting an op to seeing its completion.  Throughput:
 * recorded ops * SIZE / their wall time.  One line on stdout:
 *
 *   RESULT stack op size depth n MiB_per_s ops_per_s p50_us p99_us mean_us min_us max_us
 *
 * and, for PRISM, a STATS line with the client socket's counters.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "bench_util.h"

#define MAX_DEPTH	BENCH_NSLOTS	/* 256: slot in the low 8 bits of user_data */
#define WAIT_S		60
#define CHAIN_TIMEOUT_MS 30000
#define SOCK_BUF	(64 << 20)	/* SO_RCVBUFFORCE: every completion in flight */

enum { OP_READ, OP_WRITE, OP_CAS, OP_STREAM, NOPS };
static const char *const op_names[NOPS] = { "read", "write", "cas", "stream" };
#define OP_BIT(op)	(1u << (op))

static size_t g_size;		/* prism-server: MAXSIZE */
static unsigned int g_depth;	/* prism-server: MAXDEPTH */

/* Byte i of slot k's WRITE data (not the READ pattern: a WRITE that
 * landed in the wrong area is seen). */
static unsigned char wr_byte(unsigned int k, size_t i)
{
	return val_byte(k + 101, (unsigned int)i);
}

static void *xalloc(size_t len)
{
	void *p = aligned_alloc(64, (len + 63) & ~(size_t)63);

	if (!p)
		die("aligned_alloc", ENOMEM);
	return p;
}

/* The first and last 8 bytes of p (len bytes) are slot k's pattern. */
static int check_ends(const unsigned char *p, size_t len, unsigned int k,
		      unsigned char (*byte)(unsigned int, size_t))
{
	size_t i, n = len < 8 ? len : 8;

	for (i = 0; i < n; i++)
		if (p[i] != byte(k, i) || p[len - 1 - i] != byte(k, len - 1 - i))
			return -1;
	return 0;
}

static unsigned char rd_byte(unsigned int k, size_t i)
{
	return val_byte(k, (unsigned int)i);
}

/* All len bytes of p are slot k's pattern. */
static int check_all(const unsigned char *p, size_t len, unsigned int k,
		     unsigned char (*byte)(unsigned int, size_t))
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != byte(k, i))
			return -1;
	return 0;
}

/* The options of one cell; the rest is each stack's own. */
struct cell {
	int		op;
	unsigned long	size, depth;
	long		n, warmup;
	double		seconds;		/* nonzero: measure this long */
	const char	*ready, *go, *samples;	/* PRISM only */
};

/* The options of a cell, for a client's pu_opt table (op: its name). */
#define CELL_OPTS(c, op, ops)							\
	PU_OPT("op", op, ops, "the operation (required)"),			\
	PU_OPT("size", (c).size, "BYTES", "bytes per op (required)"),		\
	PU_OPT("depth", (c).depth, "D", "ops in flight (default 1)"),		\
	PU_OPT("n", (c).n, "N", "measured ops (default 100)"),			\
	PU_OPT("warmup", (c).warmup, "W", "ops before them, not measured (default 10)")

/* The index of op name s among the OP_BIT()s of allowed, or -1. */
static int op_index(const char *s, unsigned int allowed)
{
	int i;

	for (i = 0; i < NOPS; i++)
		if ((allowed & OP_BIT(i)) && s && !strcmp(s, op_names[i]))
			return i;
	return -1;
}

/*
 * Parse a client's options (opts has CELL_OPTS(*c, *op, ...)) with the
 * cell's defaults; dies on a bad cell.  -1 after a usage message.
 */
static int cell_parse(int argc, char **argv, const struct pu_opt *opts,
		      const char *synopsis, struct cell *c, const char **op,
		      unsigned int allowed)
{
	c->depth = 1;
	c->n = 100;
	c->warmup = 10;
	if (pu_parse_opts(argc, argv, opts, synopsis) < 0)
		return -1;
	c->op = op_index(*op, allowed);
	if (c->op < 0 || !c->size || !c->depth || c->depth > MAX_DEPTH ||
	    c->n < 1 || c->warmup < 0 || c->seconds < 0 ||
	    (c->op == OP_CAS && c->size != 8)) {
		pu_opts_usage(opts, synopsis);
		return -1;
	}
	return 0;
}

/* Wait for the start: c->ready written, then until c->go is opened. */
static void cell_barrier(const struct cell *c)
{
	int fd;

	if (c->ready && pu_write_atomic(c->ready, "ready\n"))
		die(c->ready, errno);
	if (!c->go)
		return;
	fd = open(c->go, O_RDONLY);	/* blocks until a writer opens it */
	if (fd < 0)
		die(c->go, errno);
	close(fd);
}

/* Every measured latency of m into path, one per line. */
static void write_samples(const char *path, const struct bench_mode *m)
{
	FILE *f = fopen(path, "w");
	unsigned long i;

	if (!f)
		die(path, errno);
	for (i = 0; i < m->n; i++)
		fprintf(f, "%.1f\n", m->v[i]);
	close_or_die(f, path);
}

/*
 * c->warmup ops (*warm set: the stack checks their data byte for byte),
 * then c->n measured ones (or as many as c->seconds allow), c->depth in
 * flight; prints RESULT.
 */
static void run_cell(const char *stack, const struct cell *c,
		     const struct pipeline_ops *ops, void *ctx,
		     struct slot_pool *slots, int *warm)
{
	struct bench_mode m = { .name = stack, .depth = (unsigned int)c->depth };
	struct pu_lat_summary s;

	m.v = calloc((size_t)c->n, sizeof(double));
	if (!m.v)
		die("calloc", ENOMEM);
	slot_pool_init(slots);
	*warm = 1;
	if (c->warmup)
		run_pipelined(slots, ops, ctx, &m, (unsigned long)c->warmup, 0);
	*warm = 0;
	cell_barrier(c);
	if (c->seconds)
		m.stop_us = pu_now_us() + c->seconds * 1e6;
	run_pipelined(slots, ops, ctx, &m, (unsigned long)c->n, 1);
	if (!m.n)
		die("no op completed in the measurement", ETIME);
	if (c->samples)
		write_samples(c->samples, &m);
	s = pu_lat_summarize(m.v, m.n);
	printf("RESULT %s %s %lu %lu %lu %.3f %.1f %.1f %.1f %.1f %.1f %.1f\n",
	       stack, op_names[c->op], c->size, c->depth, m.n,
	       (double)m.n * (double)c->size / (m.busy_us / 1e6) / 1048576.0,
	       (double)m.n / (m.busy_us / 1e6), s.p50, s.p99, s.mean, s.min,
	       s.max);
	free(m.v);
}

/* ---------------------------------------------------------------- PRISM */

/*
 * READ area: slot k's value at k * MAXSIZE; the WRITE area follows, then
 * the CAS counters (8 bytes per slot), all zero.
 */
static void fill_region(unsigned char *mem)
{
	unsigned int k;
	size_t i;

	for (k = 0; k < g_depth; k++)
		for (i = 0; i < g_size; i++)
			mem[k * g_size + i] = rd_byte(k, i);
	memset(mem + (size_t)g_depth * g_size, 0, (size_t)g_depth * (g_size + 8));
}

static int prism_server(int argc, char **argv)
{
	if (argc < 6)
		die("usage: prism-server IF EP INFO MAXSIZE MAXDEPTH", EINVAL);
	g_size = strtoul(argv[4], NULL, 0);
	g_depth = (unsigned int)strtoul(argv[5], NULL, 0);
	if (!g_size || !g_depth || g_depth > MAX_DEPTH)
		die("MAXSIZE and 1 <= MAXDEPTH <= 256", EINVAL);
	return serve_region(argc, argv, (size_t)g_depth * (2 * g_size + 8),
			    PRISM_ACCESS_REMOTE_READ | PRISM_ACCESS_REMOTE_WRITE |
			    PRISM_ACCESS_REMOTE_ATOMIC, fill_region);
}

struct pclient {
	int			fd;
	union prism_sockaddr	dst;
	__u64			rkey, base;
	struct cell		c;
	size_t			maxsize;	/* the server's area per slot */
	unsigned int		maxdepth;
	struct slot_pool	slots;
	struct prism_chain_buf	chain[MAX_DEPTH];
	__u32			gen[MAX_DEPTH];
	__u64			cas_val[MAX_DEPTH];	/* each slot's counter */
	int			busy[MAX_DEPTH];
	int			warm;		/* in the warm-up: full checks */
	unsigned char		*out;
	size_t			out_len;
	int			outbuf;			/* --outbuf */
	unsigned char		*ob[MAX_DEPTH];		/* each slot's output buffer */
};

static __u64 area(const struct pclient *p, int op, unsigned int slot)
{
	if (op == OP_CAS)
		return p->base + 2ull * p->maxdepth * p->maxsize + 8ull * slot;
	return p->base + (op == OP_WRITE ? (__u64)p->maxdepth * p->maxsize : 0) +
	       (__u64)slot * p->maxsize;
}

/* Slot's CAS: its counter from cas_val to cas_val + 1. */
static void prism_build_cas(struct pclient *p, unsigned int slot)
{
	struct prism_chain_buf *c = &p->chain[slot];

	prism_chain_init(c, c->buf, c->cap, 0);
	prism_prep_cas_u64(c, p->rkey, area(p, OP_CAS, slot), PRISM_CAS_EQ,
			   p->cas_val[slot], p->cas_val[slot] + 1);
	prism_chain_set_timeout(c, CHAIN_TIMEOUT_MS);
	if (prism_chain_error(c))
		die("chain", prism_chain_error(c));
}

/* The chain of every slot, built once: only user_data changes. */
static void prism_build(struct pclient *p)
{
	size_t cap = 1024 + PRISM_ALIGN8(p->c.size), i;
	unsigned char *data = NULL;
	unsigned int k;

	if (p->c.op == OP_WRITE)
		data = xalloc(p->c.size);
	for (k = 0; k < p->c.depth; k++) {
		struct prism_chain_buf *c = &p->chain[k];

		prism_chain_init(c, xalloc(cap), cap, 0);
		if (p->c.op == OP_CAS) {
			prism_build_cas(p, k);	/* again per op, with cas_val */
			continue;
		}
		if (p->c.op == OP_READ) {
			prism_prep_read(c, p->rkey, area(p, OP_READ, k), (__u32)p->c.size);
			if (p->outbuf) {
				p->ob[k] = xalloc(PRISM_ALIGN8(p->c.size));
				prism_chain_set_outbuf(c, p->ob[k],
						       PRISM_ALIGN8(p->c.size));
			}
		} else {
			for (i = 0; i < p->c.size; i++)
				data[i] = wr_byte(k, i);
			prism_prep_write(c, p->rkey, area(p, OP_WRITE, k), data,
					 (__u32)p->c.size);
		}
		prism_chain_set_timeout(c, CHAIN_TIMEOUT_MS);
		if (prism_chain_error(c))
			die("chain", prism_chain_error(c));
	}
	free(data);
}

/* pipeline_ops.start */
static void prism_start(void *ctx, int kind, unsigned int slot)
{
	struct pclient *p = ctx;
	int err;

	(void)kind;
	if (slot >= p->c.depth)
		die("slot beyond the depth", EPROTO);
	p->gen[slot]++;
	if (p->c.op == OP_CAS)
		prism_build_cas(p, slot);
	prism_chain_set_user_data(&p->chain[slot], ((__u64)p->gen[slot] << 8) | slot);
	p->busy[slot] = 1;
	p->slots.t_start[slot] = pu_now_us();
	err = prism_submit(p->fd, &p->dst.eth, &p->chain[slot]);
	if (err)
		die("prism_submit", err);
}

/* pipeline_ops.wait: one completion, checked; its slot in done[0]. */
static unsigned int prism_wait_one(void *ctx, int kind, unsigned int *done)
{
	struct pclient *p = ctx;
	const struct prism_msg *m = (const void *)p->out;
	const unsigned char *d;
	unsigned int slot;
	ssize_t n;
	__u64 old;
	__u32 len;

	(void)kind;
	n = prism_wait_from(p->fd, p->out, p->out_len, NULL, 0);
	if (n < 0)
		die("prism_wait_from", (int)n);
	slot = (unsigned int)(m->user_data & 0xff);
	if (!prism_msg_is_completion(m) || slot >= p->c.depth || !p->busy[slot] ||
	    m->user_data >> 8 != p->gen[slot])
		die("unexpected completion", EPROTO);
	if (m->status != PRISM_S_OK || prism_msg_op_status(m, 0) != PRISM_S_OK) {
		fprintf(stderr, "bench_large: %s %lu failed: %s\n",
			op_names[p->c.op], p->c.size, prism_status_str(m->status));
		exit(1);
	}
	if (p->c.op == OP_READ) {
		d = p->outbuf ? prism_msg_outbuf_data(m, 0, p->ob[slot],
						      PRISM_ALIGN8(p->c.size), &len) :
				prism_msg_data(m, 0, &len);
		if (!d || len != p->c.size || check_ends(d, len, slot, rd_byte) ||
		    (p->warm && check_all(d, len, slot, rd_byte)))
			die("READ returned wrong bytes", EIO);
	} else if (p->c.op == OP_CAS) {
		if (prism_msg_u64(m, 0, &old) || old != p->cas_val[slot])
			die("CAS returned a wrong old value", EIO);
		p->cas_val[slot]++;
	}
	p->busy[slot] = 0;
	done[0] = slot;
	return 1;
}

static const struct pipeline_ops prism_pipeline = { prism_start, prism_wait_one };

/* READ back slot 0's WRITE area: the data of the measured WRITEs. */
static void prism_verify_write(struct pclient *p)
{
	_Alignas(8) unsigned char cb[256];
	struct prism_chain_buf c;
	const struct prism_msg *m;
	const unsigned char *d;
	__u32 len;

	prism_chain_init(&c, cb, sizeof(cb), 1ull << 60);
	prism_prep_read(&c, p->rkey, area(p, OP_WRITE, 0), (__u32)p->c.size);
	prism_chain_set_timeout(&c, CHAIN_TIMEOUT_MS);
	m = execute_or_die(p->fd, &p->dst.eth, &c, p->out, p->out_len, "READ back");
	d = prism_msg_data(m, 0, &len);
	if (!d || len != p->c.size || check_all(d, len, 0, wr_byte))
		die("the WRITE area does not hold the written bytes", EIO);
}

/* The CAS counters of the slots, as they are now: one READ of them all. */
static void prism_read_counters(struct pclient *p)
{
	_Alignas(8) unsigned char cb[256], out[8 * MAX_DEPTH + 256];
	struct prism_chain_buf c;
	const struct prism_msg *m;
	const unsigned char *d;
	unsigned int k;
	__u32 len;

	prism_chain_init(&c, cb, sizeof(cb), 1ull << 60);
	prism_prep_read(&c, p->rkey, area(p, OP_CAS, 0), (__u32)(8 * p->c.depth));
	prism_chain_set_timeout(&c, CHAIN_TIMEOUT_MS);
	m = execute_or_die(p->fd, &p->dst.eth, &c, out, sizeof(out), "READ of the CAS counters");
	d = prism_msg_data(m, 0, &len);
	if (!d || len != 8 * p->c.depth)
		die("READ of the CAS counters: wrong length", EIO);
	for (k = 0; k < p->c.depth; k++)
		p->cas_val[k] = prism_get_le64(d + 8 * k);
}

/* Room for every completion in flight (root: past net.core.rmem_max). */
static void big_buffers(int fd)
{
	int v = SOCK_BUF;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
}

static int prism_client(int argc, char **argv)
{
	const char *ifname = NULL, *info = NULL, *op = NULL;
	struct timeval tv = { .tv_sec = WAIT_S };
	static struct pclient p;
	struct server_info si;
	struct prism_stats st;
	unsigned long maxsize = 0, maxdepth = 16;
	const struct pu_opt opts[] = {
		PU_OPT("if", ifname, "IF", "interface (required)"),
		PU_OPT("info", info, "INFO", "the server's info file (required)"),
		CELL_OPTS(p.c, op, "read|write|cas"),
		PU_OPT("maxsize", maxsize, "BYTES", "the server's MAXSIZE (default --size)"),
		PU_OPT("maxdepth", maxdepth, "D", "the server's MAXDEPTH (default 16)"),
		PU_OPT("seconds", p.c.seconds, "T", "measure T seconds (--n: at most)"),
		PU_OPT("ready", p.c.ready, "FILE", "written after the warm-up"),
		PU_OPT("go", p.c.go, "FIFO", "measure once FIFO is opened for writing"),
		PU_OPT("samples", p.c.samples, "FILE", "every measured latency (us)"),
		PU_OPT_FLAG("outbuf", p.outbuf, "READs into output buffers (stack prism-ob)"),
		PU_OPT_END,
	};
	const char *synopsis = "bench_large prism --if IF --info INFO --op OP --size S [options]";
	const char *stack;

	if (cell_parse(argc, argv, opts, synopsis, &p.c, &op,
		       OP_BIT(OP_READ) | OP_BIT(OP_WRITE) | OP_BIT(OP_CAS)))
		return 2;
	if (!ifname || !info || (p.outbuf && p.c.op != OP_READ))
		return pu_opts_usage(opts, synopsis);
	stack = p.outbuf ? "prism-ob" : "prism";
	p.maxsize = maxsize ? maxsize : p.c.size;
	p.maxdepth = (unsigned int)maxdepth;
	if (p.c.size > p.maxsize || p.c.depth > maxdepth)
		die("size or depth beyond the server's", EINVAL);
	si = read_server(info, &p.dst);
	p.rkey = si.rkey;
	p.base = si.base;
	p.fd = prism_open_spec(ifname, 0);
	if (p.fd < 0)
		die("prism_open", p.fd);
	setsockopt(p.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	big_buffers(p.fd);
	prism_build(&p);
	p.out_len = (size_t)prism_chain_completion_size(&p.chain[0]);
	if (p.out_len < p.c.size + sizeof(struct prism_msg))	/* WRITE */
		p.out_len = p.c.size + sizeof(struct prism_msg) + 64;
	p.out = xalloc(p.out_len);
	if (p.c.op == OP_CAS)
		prism_read_counters(&p);

	run_cell(stack, &p.c, &prism_pipeline, &p, &p.slots, &p.warm);
	if (p.c.op == OP_WRITE)
		prism_verify_write(&p);
	memset(&st, 0, sizeof(st));
	prism_get_stats(p.fd, &st);
	/* every counter of the socket, under its name in PRISM_STATS_LIST */
#define STAT_PRINT(ID, name)	printf(" " #name "=%llu", (unsigned long long)st.name);
	printf("STATS %s %s %lu %lu", stack, op_names[p.c.op], p.c.size,
	       p.c.depth);
	PRISM_STATS_LIST(STAT_PRINT)
	printf("\n");
#undef STAT_PRINT
	close(p.fd);
	return 0;
}

/* ---------------------------------------------------------------- TCP */

/* The request: op, size, and for a stream the number of SIZE blocks. */
struct tcp_req {
	__u32	op, size;
	__u64	count;
};

static void xsend(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("send", n < 0 ? errno : EPIPE);
		p += n;
		len -= (size_t)n;
	}
}

/* 0, or -1 at EOF before the first byte; dies on errors and short reads. */
static int xrecv(int fd, void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = recv(fd, p + got, len - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("recv", errno);
		if (n == 0) {
			if (!got)
				return -1;
			die("recv: connection closed mid-message", EPIPE);
		}
		got += (size_t)n;
	}
	return 0;
}

static void tcp_serve(int fd, unsigned char *buf, size_t maxsize)
{
	struct tcp_req r;
	__u64 ack = 0, i;

	while (!xrecv(fd, &r, sizeof(r))) {
		if (r.size > maxsize || r.op > OP_STREAM || r.op == OP_CAS)
			die("bad request", EPROTO);
		if (r.op == OP_READ) {
			xsend(fd, buf, r.size);
			continue;
		}
		for (i = 0; i < (r.op == OP_STREAM ? r.count : 1); i++)
			if (xrecv(fd, buf + maxsize, r.size))
				die("recv: connection closed mid-request", EPIPE);
		ack++;
		xsend(fd, &ack, sizeof(ack));
	}
}

static int tcp_server(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	unsigned char *buf;
	size_t maxsize, i;
	int ls, fd, one = 1;

	if (argc < 5)
		die("usage: tcp-server ADDR PORT READY MAXSIZE", EINVAL);
	maxsize = strtoul(argv[4], NULL, 0);
	if (!maxsize || inet_pton(AF_INET, argv[1], &a.sin_addr) != 1)
		die("ADDR or MAXSIZE", EINVAL);
	a.sin_port = htons((unsigned short)strtoul(argv[2], NULL, 0));
	buf = xalloc(2 * maxsize);
	for (i = 0; i < maxsize; i++)
		buf[i] = rd_byte(0, i);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0)
		die("socket", errno);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 4))
		die("bind/listen", errno);
	if (pu_write_atomic(argv[3], "ready\n"))
		die(argv[3], errno);
	for (;;) {
		fd = accept(ls, NULL, NULL);
		if (fd < 0)
			die("accept", errno);
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		tcp_serve(fd, buf, maxsize);
		close(fd);
	}
	return 0;
}

struct tclient {
	int			fd;
	struct cell		c;
	struct slot_pool	slots;
	unsigned int		fifo[MAX_DEPTH];	/* slots in request order */
	unsigned int		head, count;
	int			warm;
	unsigned char		*buf;			/* WRITE data, READ answers */
	__u64			acks;
};

/* pipeline_ops.start: one request (and a WRITE's data). */
static void tcp_start(void *ctx, int kind, unsigned int slot)
{
	struct tclient *t = ctx;
	struct tcp_req r = { .op = (__u32)t->c.op, .size = (__u32)t->c.size };

	(void)kind;
	t->fifo[(t->head + t->count++) % MAX_DEPTH] = slot;
	t->slots.t_start[slot] = pu_now_us();
	xsend(t->fd, &r, sizeof(r));
	if (t->c.op == OP_WRITE)
		xsend(t->fd, t->buf, t->c.size);
}

/* pipeline_ops.wait: the oldest request's answer, checked. */
static unsigned int tcp_wait_one(void *ctx, int kind, unsigned int *done)
{
	struct tclient *t = ctx;
	__u64 ack;

	(void)kind;
	if (t->c.op == OP_READ) {
		if (xrecv(t->fd, t->buf, t->c.size) ||
		    check_ends(t->buf, t->c.size, 0, rd_byte) ||
		    (t->warm && check_all(t->buf, t->c.size, 0, rd_byte)))
			die("READ answer: wrong bytes", EIO);
	} else if (xrecv(t->fd, &ack, sizeof(ack)) || ack != ++t->acks) {
		die("WRITE answer: wrong ack", EIO);
	}
	done[0] = t->fifo[t->head];
	t->head = (t->head + 1) % MAX_DEPTH;
	t->count--;
	return 1;
}

static const struct pipeline_ops tcp_pipeline = { tcp_start, tcp_wait_one };

/* count blocks of SIZE bytes, then the server's ack; the time in us. */
static double tcp_stream(struct tclient *t, long count)
{
	struct tcp_req r = { .op = OP_STREAM, .size = (__u32)t->c.size,
			     .count = (__u64)count };
	double t0 = pu_now_us();
	__u64 ack;
	long i;

	xsend(t->fd, &r, sizeof(r));
	for (i = 0; i < count; i++)
		xsend(t->fd, t->buf, t->c.size);
	if (xrecv(t->fd, &ack, sizeof(ack)) || ack != ++t->acks)
		die("stream: wrong ack", EIO);
	return pu_now_us() - t0;
}

static int tcp_client(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	const char *addr = NULL, *op = NULL;
	struct timeval tv = { .tv_sec = WAIT_S };
	static struct tclient t;
	unsigned long port = 0;
	int one = 1;
	double us;
	const struct pu_opt opts[] = {
		PU_OPT("addr", addr, "IPV4", "the server's address (required)"),
		PU_OPT("port", port, "PORT", "its port (required)"),
		CELL_OPTS(t.c, op, "read|write|stream"),
		PU_OPT_END,
	};
	const char *synopsis = "bench_large tcp --addr IPV4 --port P --op OP --size S [options]";

	if (cell_parse(argc, argv, opts, synopsis, &t.c, &op,
		       OP_BIT(OP_READ) | OP_BIT(OP_WRITE) | OP_BIT(OP_STREAM)))
		return 2;
	if (!addr || !port || port > 65535 || inet_pton(AF_INET, addr, &a.sin_addr) != 1)
		return pu_opts_usage(opts, synopsis);
	a.sin_port = htons((unsigned short)port);
	t.buf = xalloc(t.c.size);
	memset(t.buf, 0x5a, t.c.size);
	t.fd = socket(AF_INET, SOCK_STREAM, 0);
	if (t.fd < 0)
		die("socket", errno);
	setsockopt(t.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(t.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(t.fd, (struct sockaddr *)&a, sizeof(a)))
		die("connect", errno);
	setsockopt(t.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (t.c.op == OP_STREAM) {
		if (t.c.warmup)
			tcp_stream(&t, t.c.warmup);
		us = tcp_stream(&t, t.c.n);
		printf("RESULT tcp stream %lu 0 %ld %.3f %.1f - - - - -\n", t.c.size,
		       t.c.n, (double)t.c.n * (double)t.c.size / (us / 1e6) / 1048576.0,
		       (double)t.c.n / (us / 1e6));
	} else {
		run_cell("tcp", &t.c, &tcp_pipeline, &t, &t.slots, &t.warm);
	}
	close(t.fd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct subcommand cmds[] = {
		{ "prism-server", prism_server },
		{ "prism", prism_client },
		{ "tcp-server", tcp_server },
		{ "tcp", tcp_client },
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return run_subcommand(argc, argv, cmds, sizeof(cmds) / sizeof(cmds[0]));
}
