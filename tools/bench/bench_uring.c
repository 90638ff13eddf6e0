// SPDX-License-Identifier: MIT
/*
 * Batch benchmark: ops/s and per-op latency of PRISM chains between two
 * hosts through the blocking syscall path and through io_uring, with 1
 * and with 64 chains in flight:
 *
 *   sync_d1    prism_execute(), one chain at a time
 *   sync_d64   prism_submit() until 64 are outstanding, prism_wait_from()
 *              per reply, a new chain for every reply
 *   ring_d1    prism_ring (io_uring SENDMSG + multishot RECV), 1 in flight
 *   ring_d64   prism_ring, 64 in flight, refilled as completions arrive
 *
 * for two one-op chains: a 512-byte READ and an 8-byte CAS.  The sync
 * modes use one socket, the ring modes another (the ring's multishot RECV
 * would otherwise take the sync modes' replies).  Modes run interleaved in
 * rounds whose order rotates, each segment after a few unrecorded warm-up
 * chains, so drift in a loaded TCG guest affects them alike.  Latency:
 * from submitting (sync) or queuing (ring) a chain to seeing its
 * completion.  ops/s: recorded chains / wall time of their segments.
 * Every completion is checked: READ bytes, and the CAS old value (each
 * slot owns a counter that its CAS increments, so the old value is known).
 *
 *   bench_uring prism-server IF EP INFO
 *   bench_uring client --if IF --info INFO [--n N] [--warmup W]
 *                      [--rounds R] [--json FILE] [--plot FILE]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "bench_util.h"

#define VAL_SIZE	512u
#define NVALS		64u
#define CAS_OFF		(NVALS * VAL_SIZE)	/* one 8-byte counter per slot */
#define REGION_LEN	(64u * 1024)
#define NSLOTS		BENCH_NSLOTS	/* slot: low 8 bits of user_data */
#define MAX_DEPTH	64u
#define RING_ENTRIES	128u
#define OUT_SIZE	2048u
#define WAIT_MS		5000

enum kind { K_SYNC, K_RING };
enum opk { OP_READ, OP_CAS, NOPK };

static const char *const op_names[NOPK] = { "read512", "cas8" };

struct client {
	int			sfd;		/* sync modes */
	int			rfd;		/* ring modes */
	struct prism_ring	ring;
	union prism_sockaddr	dst;
	__u64			rkey, base;
	enum opk		op;
	struct slot_pool	slots;
	int			busy[NSLOTS];
	__u32			gen[NSLOTS];
	__u64			cas_val[NSLOTS];
	_Alignas(8) unsigned char out[OUT_SIZE];
};

/* Values at 0, one CAS counter per slot at CAS_OFF (all zero). */
static void fill_region(unsigned char *mem)
{
	unsigned int k, i;

	for (k = 0; k < NVALS; k++)
		for (i = 0; i < VAL_SIZE; i++)
			mem[k * VAL_SIZE + i] = val_byte(k, i);
}

static int prism_server(int argc, char **argv)
{
	return serve_region(argc, argv, REGION_LEN,
			    PRISM_ACCESS_REMOTE_READ | PRISM_ACCESS_REMOTE_ATOMIC,
			    fill_region);
}

/* Build the chain of slot's next op (user_data: generation << 8 | slot). */
static void build_chain(struct client *cl, unsigned int slot,
			struct prism_chain_buf *c, void *buf, size_t cap)
{
	__u64 ud;

	cl->gen[slot]++;
	ud = ((__u64)cl->gen[slot] << 8) | slot;
	prism_chain_init(c, buf, cap, ud);
	if (cl->op == OP_READ)
		prism_prep_read(c, cl->rkey, cl->base + (slot % NVALS) * VAL_SIZE,
				VAL_SIZE);
	else
		prism_prep_cas_u64(c, cl->rkey, cl->base + CAS_OFF + 8ull * slot,
				   PRISM_CAS_EQ, cl->cas_val[slot],
				   cl->cas_val[slot] + 1);
	if (prism_chain_error(c))
		die("chain", prism_chain_error(c));
}

/* Check a completion; returns its slot (dies on anything unexpected). */
static unsigned int check_completion(struct client *cl,
				     const struct prism_msg *m)
{
	unsigned int slot = (unsigned int)(m->user_data & 0xff), i;
	const unsigned char *p;
	__u64 old;
	__u32 len;

	if (!prism_msg_is_completion(m) || slot >= NSLOTS || !cl->busy[slot] ||
	    m->user_data >> 8 != cl->gen[slot])
		die("unexpected completion", EPROTO);
	if (m->status != PRISM_S_OK || prism_msg_op_status(m, 0) != PRISM_S_OK) {
		fprintf(stderr, "bench_uring: %s failed: %s\n", op_names[cl->op],
			prism_status_str(m->status));
		exit(1);
	}
	if (cl->op == OP_READ) {
		p = prism_msg_data(m, 0, &len);
		if (!p || len != VAL_SIZE)
			die("READ returned no value", EPROTO);
		for (i = 0; i < VAL_SIZE; i++)
			if (p[i] != val_byte(slot % NVALS, i))
				die("READ returned wrong bytes", EPROTO);
	} else {
		if (prism_msg_u64(m, 0, &old) || old != cl->cas_val[slot])
			die("CAS returned a wrong old value", EPROTO);
		cl->cas_val[slot]++;
	}
	cl->busy[slot] = 0;
	return slot;
}

/* pipeline_ops.start */
static void start_op(void *ctx, int k, unsigned int slot)
{
	struct client *cl = ctx;
	_Alignas(8) unsigned char cb[256];
	struct prism_chain_buf c;
	int err;

	build_chain(cl, slot, &c, cb, sizeof(cb));
	cl->busy[slot] = 1;
	cl->slots.t_start[slot] = pu_now_us();
	if (k == K_SYNC)
		err = prism_submit(cl->sfd, &cl->dst.eth, &c);
	else
		err = prism_ring_queue(&cl->ring, &cl->dst.eth, &c);
	if (err)
		die(k == K_SYNC ? "prism_submit" : "prism_ring_queue", err);
}

/* pipeline_ops.wait: at least one completion; their slots go to done[]. */
static unsigned int wait_some(void *ctx, int k, unsigned int *done)
{
	struct client *cl = ctx;
	struct prism_ring_cqe ev[MAX_DEPTH];
	unsigned int nd = 0;
	ssize_t n;
	int i, got;

	if (k == K_SYNC) {
		n = prism_wait_from(cl->sfd, cl->out, sizeof(cl->out), NULL, 0);
		if (n < 0)
			die("prism_wait_from", (int)n);
		done[nd++] = check_completion(cl, (const void *)cl->out);
		return nd;
	}
	while (!nd) {
		got = prism_ring_reap(&cl->ring, ev, MAX_DEPTH, 1, WAIT_MS);
		if (got < 0)
			die("prism_ring_reap", got);
		if (!got)
			die("no completion within 5 s", ETIME);
		for (i = 0; i < got; i++) {
			if (ev[i].res < 0)
				die("io_uring completion", ev[i].res);
			done[nd++] = check_completion(cl, ev[i].msg);
		}
	}
	return nd;
}

/* One blocking prism_execute(); returns nothing, records like the rest. */
static void run_execute(struct client *cl, struct bench_mode *m,
			unsigned long nops, int record)
{
	_Alignas(8) unsigned char cb[256];
	struct prism_chain_buf c;
	unsigned long i;
	unsigned int slot;
	double t0 = pu_now_us(), t;
	ssize_t n;

	for (i = 0; i < nops; i++) {
		slot = cl->slots.free[cl->slots.nfree - 1];
		build_chain(cl, slot, &c, cb, sizeof(cb));
		cl->busy[slot] = 1;
		t = pu_now_us();
		n = prism_execute(cl->sfd, &cl->dst.eth, &c, cl->out, sizeof(cl->out));
		if (n < 0)
			die("prism_execute", (int)n);
		check_completion(cl, (const void *)cl->out);
		if (record)
			m->v[m->n++] = pu_now_us() - t;
	}
	if (record)
		mode_segment_done(m, nops, t0);
}

static const struct pipeline_ops pipeline = { start_op, wait_some };

/* run_segment_fn: nops chains with m->depth in flight; recorded unless warm-up. */
static void run_segment(void *ctx, struct bench_mode *m, unsigned long nops,
			int record)
{
	struct client *cl = ctx;

	if (m->kind == K_SYNC && m->depth == 1)
		run_execute(cl, m, nops, record);
	else
		run_pipelined(&cl->slots, &pipeline, cl, m, nops, record);
}

static struct bench_mode modes[] = {
	{ .name = "sync_d1", .kind = K_SYNC, .depth = 1 },
	{ .name = "sync_d64", .kind = K_SYNC, .depth = 64 },
	{ .name = "ring_d1", .kind = K_RING, .depth = 1 },
	{ .name = "ring_d64", .kind = K_RING, .depth = 64 },
};

#define NMODES	(sizeof(modes) / sizeof(modes[0]))

/* Retransmissions, NACKs and drops of both client sockets. */
static struct prism_stats client_stats(const struct client *cl)
{
	struct prism_stats a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	prism_get_stats(cl->sfd, &a);
	prism_get_stats(cl->rfd, &b);
	a.retransmits += b.retransmits;
	a.nacks_received += b.nacks_received;
	a.rx_dropped += b.rx_dropped;
	a.chains_timed_out += b.chains_timed_out;
	return a;
}

static void write_json(const char *json, struct mode_summary sum[NOPK][NMODES],
		       unsigned long per_mode, long rounds, long warmup,
		       int multishot, const struct prism_stats *st)
{
	FILE *f = json_open(json, "uring");
	unsigned int o, j;

	fprintf(f, "  \"chains_per_mode\": %lu,\n  \"rounds\": %ld,\n  \"warmup_per_segment\": %ld,\n",
		per_mode, rounds, warmup);
	fprintf(f, "  \"ring_multishot_recv\": %s,\n", multishot ? "true" : "false");
	fprintf(f, "  \"client_retransmits\": %llu,\n  \"client_nacks\": %llu,\n  \"client_rx_dropped\": %llu,\n",
		(unsigned long long)st->retransmits,
		(unsigned long long)st->nacks_received,
		(unsigned long long)st->rx_dropped);
	fprintf(f, "  \"latency_unit\": \"us\",\n  \"results\": {\n");
	for (o = 0; o < NOPK; o++) {
		fprintf(f, "    \"%s\": {\n", op_names[o]);
		for (j = 0; j < NMODES; j++) {
			struct mode_summary *x = &sum[o][j];

			json_mode_fields(f, &modes[j], x);
			fprintf(f, ", \"ops_over_sync_d1\": %.4f, \"segment_ops_over_sync_d1\": %.4f, \"p50_over_sync_d1\": %.4f}%s\n",
				x->ops_s / sum[o][0].ops_s,
				x->ops_seg / sum[o][0].ops_seg,
				x->lat.p50 / sum[o][0].lat.p50, j + 1 < NMODES ? "," : "");
		}
		fprintf(f, "    }%s\n", o + 1 < NOPK ? "," : "");
	}
	fprintf(f, "  },\n  \"ratios\": {\n");
	for (o = 0; o < NOPK; o++)
		fprintf(f, "    \"%s\": {\"ring_d1_over_sync_d1_segment_ops\": %.4f, \"ring_d64_over_sync_d64_segment_ops\": %.4f, \"ring_d1_over_sync_d1_ops\": %.4f, \"ring_d64_over_sync_d64_ops\": %.4f, \"ring_d64_over_sync_d1_ops\": %.4f, \"sync_d64_over_sync_d1_ops\": %.4f, \"ring_d1_over_sync_d1_p50\": %.4f, \"ring_d64_over_sync_d64_p50\": %.4f}%s\n",
			op_names[o], sum[o][2].ops_seg / sum[o][0].ops_seg,
			sum[o][3].ops_seg / sum[o][1].ops_seg,
			sum[o][2].ops_s / sum[o][0].ops_s,
			sum[o][3].ops_s / sum[o][1].ops_s,
			sum[o][3].ops_s / sum[o][0].ops_s,
			sum[o][1].ops_s / sum[o][0].ops_s,
			sum[o][2].lat.p50 / sum[o][0].lat.p50,
			sum[o][3].lat.p50 / sum[o][1].lat.p50,
			o + 1 < NOPK ? "," : "");
	fprintf(f, "  }\n}\n");
	close_or_die(f, json);
}

/* gnuplot input: one row per mode, columns per op. */
static void write_plot(const char *path, struct mode_summary sum[NOPK][NMODES])
{
	unsigned int j;
	FILE *f = fopen(path, "w");

	if (!f)
		die(path, errno);
	fprintf(f, "# mode read512_kops cas8_kops read512_p50 cas8_p50 read512_p99 cas8_p99\n");
	for (j = 0; j < NMODES; j++)
		fprintf(f, "%s %.3f %.3f %.1f %.1f %.1f %.1f\n", modes[j].name,
			sum[OP_READ][j].ops_seg / 1000, sum[OP_CAS][j].ops_seg / 1000,
			sum[OP_READ][j].lat.p50, sum[OP_CAS][j].lat.p50,
			sum[OP_READ][j].lat.p99, sum[OP_CAS][j].lat.p99);
	close_or_die(f, path);
}

static int client(int argc, char **argv)
{
	const char *ifname = NULL, *info = NULL, *json = NULL, *plot = NULL;
	long n = 4000, warmup = 50, rounds = 5;
	struct mode_summary sum[NOPK][NMODES];
	struct timeval tv = { .tv_sec = 5 };
	static struct client cl;
	struct server_info si;
	struct prism_stats st;
	unsigned long per;
	unsigned int o, j;
	int err;
	const struct pu_opt opts[] = {
		BENCH_CLIENT_OPTS(ifname, info, n, warmup, json),
		PU_OPT("rounds", rounds, "R", "rounds, 1 to 100 and at most N (default 5)"),
		PU_OPT("plot", plot, "FILE", "results, a table for plotting"),
		PU_OPT_END,
	};
	const char *synopsis = "bench_uring client --if IF --info INFO [options]";

	if (pu_parse_opts(argc, argv, opts, synopsis) < 0)
		return 2;
	if (!ifname || !info || rounds < 1 || rounds > BENCH_MAX_ROUNDS ||
	    n < rounds || warmup < 0)
		return pu_opts_usage(opts, synopsis);
	per = (unsigned long)(n / rounds);
	si = read_server(info, &cl.dst);
	cl.rkey = si.rkey;
	cl.base = si.base;
	cl.sfd = prism_open_spec(ifname, 0);
	if (cl.sfd < 0)
		die("prism_open", cl.sfd);
	cl.rfd = prism_open_spec(ifname, 0);
	if (cl.rfd < 0)
		die("prism_open", cl.rfd);
	setsockopt(cl.sfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	err = prism_ring_init(&cl.ring, cl.rfd, RING_ENTRIES, 0, 0, 0);
	if (err)
		die("prism_ring_init", err);
	slot_pool_init(&cl.slots);
	modes_alloc(modes, NMODES, per, rounds);

	for (o = 0; o < NOPK; o++) {
		cl.op = (enum opk)o;
		run_rounds(modes, NMODES, rounds, warmup, per, run_segment, &cl,
			   sum[o]);

		printf("uring benchmark: %s, %lu chains per mode in %ld rounds (+%ld warm-up per segment), io_uring completions via %s\n",
		       op_names[o], per * (unsigned long)rounds, rounds, warmup,
		       prism_ring_multishot(&cl.ring) ? "multishot RECV" : "plain RECVs");
		printf("  ops/s: all chains / their time; seg: median of the %ld segments' ops/s\n",
		       rounds);
		printf("  %-9s %5s %8s %8s %9s %8s %9s %8s %9s %9s %9s\n", "mode", "depth",
		       "ops/s", "seg", "mean us", "p50 us", "p99 us", "min us",
		       "ops/sync1", "seg/sync1", "p50/sync1");
		for (j = 0; j < NMODES; j++)
			printf("  %-9s %5u %8.0f %8.0f %9.1f %8.1f %9.1f %8.1f %9.3f %9.3f %9.3f\n",
			       modes[j].name, modes[j].depth, sum[o][j].ops_s,
			       sum[o][j].ops_seg, sum[o][j].lat.mean, sum[o][j].lat.p50,
			       sum[o][j].lat.p99, sum[o][j].lat.min,
			       sum[o][j].ops_s / sum[o][0].ops_s,
			       sum[o][j].ops_seg / sum[o][0].ops_seg,
			       sum[o][j].lat.p50 / sum[o][0].lat.p50);
		printf("  io_uring / blocking at the same depth: ops/s d1 %.3f, d64 %.3f; seg d1 %.3f, d64 %.3f; p50 d1 %.3f, d64 %.3f\n",
		       sum[o][2].ops_s / sum[o][0].ops_s,
		       sum[o][3].ops_s / sum[o][1].ops_s,
		       sum[o][2].ops_seg / sum[o][0].ops_seg,
		       sum[o][3].ops_seg / sum[o][1].ops_seg,
		       sum[o][2].lat.p50 / sum[o][0].lat.p50,
		       sum[o][3].lat.p50 / sum[o][1].lat.p50);
	}
	st = client_stats(&cl);
	printf("client sockets: %llu retransmits, %llu NACKs, %llu frames dropped, %llu timeouts\n",
	       (unsigned long long)st.retransmits,
	       (unsigned long long)st.nacks_received,
	       (unsigned long long)st.rx_dropped,
	       (unsigned long long)st.chains_timed_out);
	if (json)
		write_json(json, sum, per * (unsigned long)rounds, rounds, warmup,
			   prism_ring_multishot(&cl.ring), &st);
	if (plot)
		write_plot(plot, sum);
	prism_ring_exit(&cl.ring);
	close(cl.rfd);
	close(cl.sfd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct subcommand cmds[] = {
		{ "prism-server", prism_server },
		{ "client", client },
	};

	return run_subcommand(argc, argv, cmds, sizeof(cmds) / sizeof(cmds[0]));
}
