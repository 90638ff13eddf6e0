// SPDX-License-Identifier: GPL-2.0
/*
 * Driver for the io_uring mechanism prototype (uring_mech.ko): ops/s and
 * per-op latency of one request/reply through
 *
 *   sync        the socket, blocking send() + recv()
 *   sock_uring  the socket, io_uring SENDMSG + multishot RECV over a ring
 *               of provided buffers (the mechanism liburing-prism uses)
 *   cmd_uring   /dev/prism_mech, IORING_OP_URING_CMD, reply copied to a
 *               per-request user buffer
 *
 * each with 1 and with 64 requests in flight (refilled as replies
 * arrive), for each reply size.  The modes run interleaved in rounds (the
 * order rotates every round) so that drift in a loaded TCG guest affects
 * them alike; each segment starts with a few unrecorded warm-up ops.
 * Latency: from queuing a request (before its submission syscall) to
 * seeing its reply.  Every reply is checked (length, tag, fill bytes).
 *
 *   mech_bench [--family F] [--dev PATH] [--n N] [--warmup W]
 *              [--rounds R] [--lens L1,L2,...] [--json FILE]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <liburing.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "uring_mech.h"

#define MAX_DEPTH	64
#define NSLOTS		128		/* slot index: low 8 bits of a tag */
#define RING_ENTRIES	128
#define NBUFS		256
#define BUF_SIZE	MECH_MAX_REPLY
#define BGID		7
#define MAX_LENS	8
#define MAX_ROUNDS	100
#define WAIT_S		5

#define UD_SEND		(1ULL << 32)
#define UD_RECV		(2ULL << 32)

#define P_SEND		1u
#define P_REPLY		2u

enum kind { K_SYNC, K_SOCK_URING, K_CMD_URING };

struct mode {
	const char	*name;
	enum kind	kind;
	unsigned int	depth;
	double		*v;		/* latencies, us */
	unsigned long	n;
	double		busy_us;	/* recorded segments, wall clock */
	double		seg_ops[MAX_ROUNDS];	/* ops/s of each recorded segment */
	unsigned int	nseg;
};

/*
 * ops_s: all recorded ops / their wall time; ops_seg: median over the
 * rounds of each segment's ops/s (robust against stalls of a loaded host).
 */
struct summary {
	double ops_s, ops_seg, mean, p50, p99, min, max;
};

struct bench {
	int			yfd;		/* socket of the sync modes */
	int			sfd;		/* socket of sock_uring */
	int			dfd;
	unsigned int		len;
	struct io_uring		sring, cring;
	struct io_uring_buf_ring *br;
	unsigned char		*bufs;
	int			ms_armed;
	unsigned int		free_slots[NSLOTS];
	unsigned int		nfree;
	unsigned int		pending[NSLOTS];
	unsigned int		gen[NSLOTS];
	double			t_start[NSLOTS];
	struct mech_req		req[NSLOTS];
	struct iovec		iov[NSLOTS];
	struct msghdr		mh[NSLOTS];
	unsigned char		*cmdbuf;	/* NSLOTS * BUF_SIZE */
	unsigned char		rbuf[BUF_SIZE];
};

static const char *cur_mode = "setup";

static void die(const char *what, int err)
{
	fprintf(stderr, "mech_bench: %s: %s\n", what,
		strerror(err < 0 ? -err : err));
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static unsigned long long get_le64(const unsigned char *p)
{
	unsigned long long v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* Check a reply; returns its slot (dies on anything unexpected). */
static unsigned int check_reply(struct bench *b, const unsigned char *p,
				long n)
{
	unsigned long long tag;
	unsigned int slot;

	if (n != (long)b->len) {
		fprintf(stderr, "mech_bench: reply of %ld bytes, expected %u\n", n, b->len);
		exit(1);
	}
	tag = get_le64(p);
	slot = (unsigned int)(tag & 0xff);
	if (tag > 0xffffffffull || slot >= NSLOTS ||
	    !(b->pending[slot] & P_REPLY) ||
	    (unsigned int)(tag >> 8) != (b->gen[slot] & 0xffffff)) {
		fprintf(stderr, "mech_bench: %s: reply with unexpected tag 0x%llx (slot %u: gen 0x%x, pending %u)\n",
			cur_mode, tag, slot, slot < NSLOTS ? b->gen[slot] : 0,
			slot < NSLOTS ? b->pending[slot] : 0);
		exit(1);
	}
	if (n > 8 && (p[8] != MECH_FILL || p[n - 1] != MECH_FILL))
		die("reply with wrong bytes", EPROTO);
	b->pending[slot] &= ~P_REPLY;
	return slot;
}

static struct io_uring_sqe *get_sqe(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe) {
		io_uring_submit(ring);
		sqe = io_uring_get_sqe(ring);
	}
	if (!sqe)
		die("no SQE", EBUSY);
	return sqe;
}

static void arm_multishot(struct bench *b)
{
	struct io_uring_sqe *sqe = get_sqe(&b->sring);

	io_uring_prep_recv_multishot(sqe, b->sfd, NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	sqe->user_data = UD_RECV;
	b->ms_armed = 1;
}

static void recycle(struct bench *b, unsigned int bid)
{
	io_uring_buf_ring_add(b->br, b->bufs + (size_t)bid * BUF_SIZE, BUF_SIZE,
			      (unsigned short)bid, io_uring_buf_ring_mask(NBUFS), 0);
	io_uring_buf_ring_advance(b->br, 1);
}

static void setup(struct bench *b, int family, const char *dev)
{
	struct io_uring_params p;
	struct io_uring_buf_reg reg;
	struct timeval tmo = { .tv_sec = WAIT_S };
	int rcvbuf = 4 << 20, err;
	unsigned int i;

	/*
	 * Two sockets: the multishot RECV stays armed on sock_uring's and
	 * would take the sync modes' replies.
	 */
	b->yfd = socket(family, SOCK_DGRAM, 0);
	b->sfd = socket(family, SOCK_DGRAM, 0);
	if (b->yfd < 0 || b->sfd < 0)
		die("socket (is uring_mech.ko loaded?)", errno);
	for (i = 0; i < 2; i++) {
		int fd = i ? b->sfd : b->yfd;

		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	}
	b->dfd = open(dev, O_RDWR | O_CLOEXEC);
	if (b->dfd < 0)
		die(dev, errno);

	/* The same ring parameters for both paths. */
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = 4 * RING_ENTRIES + 2 * NBUFS;
	err = io_uring_queue_init_params(RING_ENTRIES, &b->sring, &p);
	if (err)
		die("io_uring (socket)", err);
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = 4 * RING_ENTRIES + 2 * NBUFS;
	err = io_uring_queue_init_params(RING_ENTRIES, &b->cring, &p);
	if (err)
		die("io_uring (uring_cmd)", err);

	b->bufs = aligned_alloc(4096, (size_t)NBUFS * BUF_SIZE);
	b->cmdbuf = aligned_alloc(4096, (size_t)NSLOTS * BUF_SIZE);
	b->br = mmap(NULL, NBUFS * sizeof(struct io_uring_buf),
		     PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!b->bufs || !b->cmdbuf || b->br == MAP_FAILED)
		die("memory", ENOMEM);
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (unsigned long)b->br;
	reg.ring_entries = NBUFS;
	reg.bgid = BGID;
	err = io_uring_register_buf_ring(&b->sring, &reg, 0);
	if (err)
		die("io_uring_register_buf_ring", err);
	io_uring_buf_ring_init(b->br);
	for (i = 0; i < NBUFS; i++)
		io_uring_buf_ring_add(b->br, b->bufs + (size_t)i * BUF_SIZE, BUF_SIZE,
				      (unsigned short)i, io_uring_buf_ring_mask(NBUFS),
				      (int)i);
	io_uring_buf_ring_advance(b->br, NBUFS);

	for (i = 0; i < NSLOTS; i++) {
		b->iov[i].iov_base = &b->req[i];
		b->iov[i].iov_len = sizeof(b->req[i]);
		b->mh[i].msg_iov = &b->iov[i];
		b->mh[i].msg_iovlen = 1;
		b->free_slots[i] = NSLOTS - 1 - i;
	}
	b->nfree = NSLOTS;
}

/* Queue (io_uring) or send (sync) one request in slot. */
static void start_op(struct bench *b, enum kind k, unsigned int slot)
{
	struct mech_req req = { .len = b->len };
	struct io_uring_sqe *sqe;
	ssize_t n;

	b->gen[slot]++;
	req.tag = ((b->gen[slot] & 0xffffff) << 8) | slot;
	b->t_start[slot] = now_us();
	switch (k) {
	case K_SYNC:
		b->pending[slot] = P_REPLY;
		n = send(b->yfd, &req, sizeof(req), 0);
		if (n != sizeof(req))
			die("send", n < 0 ? errno : EPROTO);
		break;
	case K_SOCK_URING:
		b->pending[slot] = P_SEND | P_REPLY;
		b->req[slot] = req;
		sqe = get_sqe(&b->sring);
		io_uring_prep_sendmsg(sqe, b->sfd, &b->mh[slot], 0);
		sqe->user_data = UD_SEND | slot;
		break;
	case K_CMD_URING:
		b->pending[slot] = P_REPLY;
		req.addr = (unsigned long)(b->cmdbuf + (size_t)slot * BUF_SIZE);
		sqe = get_sqe(&b->cring);
		io_uring_prep_rw(IORING_OP_URING_CMD, sqe, b->dfd, NULL, 0, 0);
		sqe->cmd_op = MECH_CMD_ECHO;
		/* 16 command bytes at the end of a 64-byte SQE (sqe->cmd) */
		memcpy((unsigned char *)sqe + offsetof(struct io_uring_sqe, addr3),
		       &req, sizeof(req));
		sqe->user_data = slot;
		break;
	}
}

static void submit_wait(struct io_uring *ring)
{
	struct __kernel_timespec ts = { .tv_sec = WAIT_S };
	struct io_uring_cqe *cqe;
	int err;

	do {
		err = io_uring_submit_and_wait_timeout(ring, &cqe, 1, &ts, NULL);
	} while (err == -EINTR);
	if (err == -ETIME)
		die("no completion within 5 s", ETIME);
	if (err < 0)
		die("io_uring_submit_and_wait_timeout", err);
}

/* Wait for at least one finished op; their slots go to done[]. */
static unsigned int wait_some(struct bench *b, enum kind k, unsigned int *done)
{
	struct io_uring_cqe *cqe;
	unsigned int nd = 0, slot, head, seen, bid;
	ssize_t n;

	switch (k) {
	case K_SYNC:
		n = recv(b->yfd, b->rbuf, sizeof(b->rbuf), 0);
		if (n < 0)
			die("recv", errno);
		done[nd++] = check_reply(b, b->rbuf, n);
		return nd;
	case K_SOCK_URING:
		while (!nd) {
			if (!b->ms_armed)
				arm_multishot(b);
			submit_wait(&b->sring);
			seen = 0;
			io_uring_for_each_cqe(&b->sring, head, cqe) {
				seen++;
				if (cqe->user_data & UD_SEND) {
					slot = (unsigned int)(cqe->user_data & 0xff);
					if (cqe->res != sizeof(struct mech_req))
						die("SENDMSG", cqe->res < 0 ? cqe->res : EPROTO);
					b->pending[slot] &= ~P_SEND;
				} else {
					if (!(cqe->flags & IORING_CQE_F_MORE))
						b->ms_armed = 0;
					if (!(cqe->flags & IORING_CQE_F_BUFFER)) {
						if (cqe->res == -ENOBUFS)
							continue;
						die("multishot RECV", cqe->res < 0 ? cqe->res : EPROTO);
					}
					bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
					slot = check_reply(b, b->bufs + (size_t)bid * BUF_SIZE,
							   cqe->res);
					recycle(b, bid);
				}
				if (!b->pending[slot])
					done[nd++] = slot;
			}
			io_uring_cq_advance(&b->sring, seen);
		}
		return nd;
	case K_CMD_URING:
		submit_wait(&b->cring);
		seen = 0;
		io_uring_for_each_cqe(&b->cring, head, cqe) {
			seen++;
			slot = (unsigned int)cqe->user_data;
			if (slot >= NSLOTS || !(b->pending[slot] & P_REPLY))
				die("URING_CMD: unexpected CQE", EPROTO);
			if (cqe->res < 0)
				die("URING_CMD", cqe->res);
			if (check_reply(b, b->cmdbuf + (size_t)slot * BUF_SIZE,
					cqe->res) != slot)
				die("URING_CMD: reply in the wrong buffer", EPROTO);
			done[nd++] = slot;
		}
		io_uring_cq_advance(&b->cring, seen);
		return nd;
	}
	return 0;
}

/* nops ops with m->depth in flight; recorded unless warm-up. */
static void run_segment(struct bench *b, struct mode *m, unsigned long nops,
			int record)
{
	unsigned long issued = 0, completed = 0;
	unsigned int done[NSLOTS], inflight = 0, nd, i, slot;
	double t0 = now_us(), t;

	cur_mode = m->name;
	while (completed < nops) {
		while (inflight < m->depth && issued < nops) {
			slot = b->free_slots[--b->nfree];
			start_op(b, m->kind, slot);
			inflight++;
			issued++;
		}
		nd = wait_some(b, m->kind, done);
		t = now_us();
		for (i = 0; i < nd; i++) {
			if (record)
				m->v[m->n++] = t - b->t_start[done[i]];
			b->free_slots[b->nfree++] = done[i];
		}
		inflight -= nd;
		completed += nd;
	}
	if (record) {
		t = now_us() - t0;
		m->busy_us += t;
		m->seg_ops[m->nseg++] = (double)nops / (t / 1e6);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static struct summary summarize(struct mode *m)
{
	struct summary s = { 0 };
	unsigned long i;

	qsort(m->v, m->n, sizeof(double), cmp_double);
	for (i = 0; i < m->n; i++)
		s.mean += m->v[i];
	s.mean /= (double)m->n;
	s.p50 = m->v[(m->n - 1) / 2];
	s.p99 = m->v[(m->n * 99 + 99) / 100 - 1];
	s.min = m->v[0];
	s.max = m->v[m->n - 1];
	s.ops_s = (double)m->n / (m->busy_us / 1e6);
	qsort(m->seg_ops, m->nseg, sizeof(double), cmp_double);
	s.ops_seg = m->nseg % 2 ? m->seg_ops[m->nseg / 2] :
		    (m->seg_ops[m->nseg / 2 - 1] + m->seg_ops[m->nseg / 2]) / 2;
	return s;
}

static struct mode modes[] = {
	{ .name = "sync_d1", .kind = K_SYNC, .depth = 1 },
	{ .name = "sync_d64", .kind = K_SYNC, .depth = 64 },
	{ .name = "sock_uring_d1", .kind = K_SOCK_URING, .depth = 1 },
	{ .name = "sock_uring_d64", .kind = K_SOCK_URING, .depth = 64 },
	{ .name = "cmd_uring_d1", .kind = K_CMD_URING, .depth = 1 },
	{ .name = "cmd_uring_d64", .kind = K_CMD_URING, .depth = 64 },
};

#define NMODES	(sizeof(modes) / sizeof(modes[0]))

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "family", required_argument, NULL, 'f' },
		{ "dev", required_argument, NULL, 'd' },
		{ "n", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "lens", required_argument, NULL, 'l' },
		{ "json", required_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev = MECH_DEV_PATH, *json = NULL, *lens_arg = "8,512";
	long n = 20000, warmup = 100, rounds = 5;
	unsigned int lens[MAX_LENS], nlens = 0, li, j;
	struct summary sum[MAX_LENS][NMODES];
	int family = MECH_DEFAULT_FAMILY, ch;
	static struct bench b;
	unsigned long per;
	char *s, *end;
	long r;
	FILE *f;

	while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (ch) {
		case 'f': family = atoi(optarg); break;
		case 'd': dev = optarg; break;
		case 'n': n = strtol(optarg, NULL, 0); break;
		case 'w': warmup = strtol(optarg, NULL, 0); break;
		case 'r': rounds = strtol(optarg, NULL, 0); break;
		case 'l': lens_arg = optarg; break;
		case 'j': json = optarg; break;
		default: return 2;
		}
	}
	for (s = (char *)lens_arg; *s && nlens < MAX_LENS; s = *end ? end + 1 : end) {
		long v = strtol(s, &end, 0);

		if (end == s || v < MECH_MIN_REPLY || v > MECH_MAX_REPLY)
			die("--lens: sizes 8..4096, comma separated", EINVAL);
		lens[nlens++] = (unsigned int)v;
	}
	if (!nlens || rounds < 1 || rounds > MAX_ROUNDS || n < rounds || warmup < 0)
		die("usage: mech_bench [--family F] [--dev PATH] [--n N] [--warmup W] [--rounds R] [--lens L,...] [--json FILE]",
		    EINVAL);
	per = (unsigned long)(n / rounds);
	setup(&b, family, dev);
	for (j = 0; j < NMODES; j++) {
		modes[j].v = calloc((size_t)per * (size_t)rounds, sizeof(double));
		if (!modes[j].v)
			die("calloc", ENOMEM);
	}

	for (li = 0; li < nlens; li++) {
		b.len = lens[li];
		for (j = 0; j < NMODES; j++) {
			modes[j].n = 0;
			modes[j].nseg = 0;
			modes[j].busy_us = 0;
		}
		for (r = 0; r < rounds; r++) {
			for (j = 0; j < NMODES; j++) {
				struct mode *m = &modes[(j + (unsigned long)r) % NMODES];

				run_segment(&b, m, (unsigned long)warmup, 0);
				run_segment(&b, m, per, 1);
			}
		}
		for (j = 0; j < NMODES; j++)
			sum[li][j] = summarize(&modes[j]);

		printf("uring-mech: %u-byte replies, %lu ops per mode in %ld rounds (+%ld warm-up per segment)\n",
		       b.len, per * (unsigned long)rounds, rounds, warmup);
		printf("  ops/s: all ops / their time; seg: median of the %ld segments' ops/s\n",
		       rounds);
		printf("  %-14s %5s %8s %8s %8s %8s %8s %8s %9s\n", "mode", "depth",
		       "ops/s", "seg", "mean us", "p50 us", "p99 us", "min us",
		       "seg/sync1");
		for (j = 0; j < NMODES; j++)
			printf("  %-14s %5u %8.0f %8.0f %8.1f %8.1f %8.1f %8.1f %9.3f\n",
			       modes[j].name, modes[j].depth, sum[li][j].ops_s,
			       sum[li][j].ops_seg, sum[li][j].mean, sum[li][j].p50,
			       sum[li][j].p99, sum[li][j].min,
			       sum[li][j].ops_seg / sum[li][0].ops_seg);
		printf("  cmd_uring / sock_uring ops/s: depth 1 %.3f, depth 64 %.3f\n",
		       sum[li][4].ops_s / sum[li][2].ops_s,
		       sum[li][5].ops_s / sum[li][3].ops_s);
		printf("  cmd_uring / sock_uring seg:   depth 1 %.3f, depth 64 %.3f\n",
		       sum[li][4].ops_seg / sum[li][2].ops_seg,
		       sum[li][5].ops_seg / sum[li][3].ops_seg);
		printf("  cmd_uring / sock_uring p50:   depth 1 %.3f, depth 64 %.3f\n",
		       sum[li][4].p50 / sum[li][2].p50,
		       sum[li][5].p50 / sum[li][3].p50);
	}

	if (json) {
		struct utsname u;

		uname(&u);
		f = fopen(json, "w");
		if (!f)
			die(json, errno);
		fprintf(f, "{\n  \"benchmark\": \"uring-mech\",\n  \"kernel\": \"%s\",\n",
			u.release);
		fprintf(f, "  \"ops_per_mode\": %lu,\n  \"rounds\": %ld,\n  \"warmup_per_segment\": %ld,\n",
			per * (unsigned long)rounds, rounds, warmup);
		fprintf(f, "  \"latency_unit\": \"us\",\n  \"results\": {\n");
		for (li = 0; li < nlens; li++) {
			fprintf(f, "    \"%u\": {\n", lens[li]);
			for (j = 0; j < NMODES; j++) {
				struct summary *x = &sum[li][j];

				fprintf(f, "      \"%s\": {\"depth\": %u, \"ops_per_s\": %.0f, \"ops_per_s_segment_median\": %.0f, \"mean\": %.2f, \"p50\": %.2f, \"p99\": %.2f, \"min\": %.2f, \"max\": %.2f},\n",
					modes[j].name, modes[j].depth, x->ops_s, x->ops_seg,
					x->mean, x->p50, x->p99, x->min, x->max);
			}
			fprintf(f, "      \"ratios\": {\"cmd_over_sock_segment_ops_d1\": %.4f, \"cmd_over_sock_segment_ops_d64\": %.4f, \"cmd_over_sock_ops_d1\": %.4f, \"cmd_over_sock_ops_d64\": %.4f, \"cmd_over_sock_p50_d1\": %.4f, \"cmd_over_sock_p50_d64\": %.4f, \"sock_uring_d64_over_sync_d1_segment_ops\": %.4f, \"cmd_uring_d64_over_sync_d1_segment_ops\": %.4f}\n",
				sum[li][4].ops_seg / sum[li][2].ops_seg,
				sum[li][5].ops_seg / sum[li][3].ops_seg,
				sum[li][4].ops_s / sum[li][2].ops_s,
				sum[li][5].ops_s / sum[li][3].ops_s,
				sum[li][4].p50 / sum[li][2].p50,
				sum[li][5].p50 / sum[li][3].p50,
				sum[li][3].ops_seg / sum[li][0].ops_seg,
				sum[li][5].ops_seg / sum[li][0].ops_seg);
			fprintf(f, "    }%s\n", li + 1 < nlens ? "," : "");
		}
		fprintf(f, "  }\n}\n");
		if (fclose(f))
			die(json, errno);
		printf("uring-mech: results in %s\n", json);
	}
	io_uring_queue_exit(&b.sring);
	io_uring_queue_exit(&b.cring);
	close(b.dfd);
	close(b.sfd);
	close(b.yfd);
	return 0;
}
