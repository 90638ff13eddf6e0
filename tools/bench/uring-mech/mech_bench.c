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
#include <unistd.h>

#include "../bench_util.h"
#include "uring_mech.h"

#define MAX_DEPTH	64
#define NSLOTS		BENCH_NSLOTS	/* slot index: low 8 bits of a tag */
#define RING_ENTRIES	128
#define NBUFS		256
#define BUF_SIZE	MECH_MAX_REPLY
#define BGID		7
#define MAX_LENS	8
#define WAIT_S		5

#define UD_SEND		(1ULL << 32)
#define UD_RECV		(2ULL << 32)

#define P_SEND		1u
#define P_REPLY		2u

enum kind { K_SYNC, K_SOCK_URING, K_CMD_URING };

struct bench {
	int			yfd;		/* socket of the sync modes */
	int			sfd;		/* socket of sock_uring */
	int			dfd;
	unsigned int		len;
	struct io_uring		sring, cring;
	struct io_uring_buf_ring *br;
	unsigned char		*bufs;
	int			ms_armed;
	struct slot_pool	slots;
	unsigned int		pending[NSLOTS];
	unsigned int		gen[NSLOTS];
	struct mech_req		req[NSLOTS];
	struct iovec		iov[NSLOTS];
	struct msghdr		mh[NSLOTS];
	unsigned char		*cmdbuf;	/* NSLOTS * BUF_SIZE */
	unsigned char		rbuf[BUF_SIZE];
};

static const char *cur_mode = "setup";

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
	tag = pu_get_le64(p);
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
	}
	slot_pool_init(&b->slots);
}

/* pipeline_ops.start: queue (io_uring) or send (sync) one request in slot. */
static void start_op(void *ctx, int k, unsigned int slot)
{
	struct bench *b = ctx;
	struct mech_req req = { .len = b->len };
	struct io_uring_sqe *sqe;
	ssize_t n;

	b->gen[slot]++;
	req.tag = ((b->gen[slot] & 0xffffff) << 8) | slot;
	b->slots.t_start[slot] = pu_now_us();
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

/* pipeline_ops.wait: at least one finished op; their slots go to done[]. */
static unsigned int wait_some(void *ctx, int k, unsigned int *done)
{
	struct bench *b = ctx;
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

static const struct pipeline_ops pipeline = { start_op, wait_some };

/* run_segment_fn: nops ops with m->depth in flight; recorded unless warm-up. */
static void run_segment(void *ctx, struct bench_mode *m, unsigned long nops,
			int record)
{
	struct bench *b = ctx;

	cur_mode = m->name;
	run_pipelined(&b->slots, &pipeline, b, m, nops, record);
}

static struct bench_mode modes[] = {
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
	struct mode_summary sum[MAX_LENS][NMODES];
	int family = MECH_DEFAULT_FAMILY, ch;
	static struct bench b;
	unsigned long per;
	char *s, *end;
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
	if (!nlens || rounds < 1 || rounds > BENCH_MAX_ROUNDS || n < rounds ||
	    warmup < 0)
		die("usage: mech_bench [--family F] [--dev PATH] [--n N] [--warmup W] [--rounds R] [--lens L,...] [--json FILE]",
		    EINVAL);
	per = (unsigned long)(n / rounds);
	setup(&b, family, dev);
	modes_alloc(modes, NMODES, per, rounds);

	for (li = 0; li < nlens; li++) {
		b.len = lens[li];
		run_rounds(modes, NMODES, rounds, warmup, per, run_segment, &b,
			   sum[li]);

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
			       sum[li][j].ops_seg, sum[li][j].lat.mean, sum[li][j].lat.p50,
			       sum[li][j].lat.p99, sum[li][j].lat.min,
			       sum[li][j].ops_seg / sum[li][0].ops_seg);
		printf("  cmd_uring / sock_uring ops/s: depth 1 %.3f, depth 64 %.3f\n",
		       sum[li][4].ops_s / sum[li][2].ops_s,
		       sum[li][5].ops_s / sum[li][3].ops_s);
		printf("  cmd_uring / sock_uring seg:   depth 1 %.3f, depth 64 %.3f\n",
		       sum[li][4].ops_seg / sum[li][2].ops_seg,
		       sum[li][5].ops_seg / sum[li][3].ops_seg);
		printf("  cmd_uring / sock_uring p50:   depth 1 %.3f, depth 64 %.3f\n",
		       sum[li][4].lat.p50 / sum[li][2].lat.p50,
		       sum[li][5].lat.p50 / sum[li][3].lat.p50);
	}

	if (json) {
		f = json_open(json, "uring-mech");
		fprintf(f, "  \"ops_per_mode\": %lu,\n  \"rounds\": %ld,\n  \"warmup_per_segment\": %ld,\n",
			per * (unsigned long)rounds, rounds, warmup);
		fprintf(f, "  \"latency_unit\": \"us\",\n  \"results\": {\n");
		for (li = 0; li < nlens; li++) {
			fprintf(f, "    \"%u\": {\n", lens[li]);
			for (j = 0; j < NMODES; j++) {
				json_mode_fields(f, &modes[j], &sum[li][j]);
				fprintf(f, "},\n");
			}
			fprintf(f, "      \"ratios\": {\"cmd_over_sock_segment_ops_d1\": %.4f, \"cmd_over_sock_segment_ops_d64\": %.4f, \"cmd_over_sock_ops_d1\": %.4f, \"cmd_over_sock_ops_d64\": %.4f, \"cmd_over_sock_p50_d1\": %.4f, \"cmd_over_sock_p50_d64\": %.4f, \"sock_uring_d64_over_sync_d1_segment_ops\": %.4f, \"cmd_uring_d64_over_sync_d1_segment_ops\": %.4f}\n",
				sum[li][4].ops_seg / sum[li][2].ops_seg,
				sum[li][5].ops_seg / sum[li][3].ops_seg,
				sum[li][4].ops_s / sum[li][2].ops_s,
				sum[li][5].ops_s / sum[li][3].ops_s,
				sum[li][4].lat.p50 / sum[li][2].lat.p50,
				sum[li][5].lat.p50 / sum[li][3].lat.p50,
				sum[li][3].ops_seg / sum[li][0].ops_seg,
				sum[li][5].ops_seg / sum[li][0].ops_seg);
			fprintf(f, "    }%s\n", li + 1 < nlens ? "," : "");
		}
		fprintf(f, "  }\n}\n");
		close_or_die(f, json);
		printf("uring-mech: results in %s\n", json);
	}
	io_uring_queue_exit(&b.sring);
	io_uring_queue_exit(&b.cring);
	close(b.dfd);
	close(b.sfd);
	close(b.yfd);
	return 0;
}
