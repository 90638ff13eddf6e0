// SPDX-License-Identifier: MIT
/*
 * Target CPU per op (issue 19, item 6): the CPU time a target spends per
 * request served by PRISM (in the receive softirq, no process woken) and
 * by a UDP request/response server doing the same work in user space, for
 * four kinds of request on 8-byte values:
 *
 *   read8      READ 8 bytes at an address
 *   cas8       compare-and-swap 8 bytes (each slot increments its counter)
 *   indirect8  READ 8 bytes at the pointer stored at an address
 *   chain4     the three above and a WRITE of 8 bytes, in one request
 *
 * Three stacks: "prism" (a chain to the module), "udp" (a server doing
 * recvfrom/sendto, one request per call) and "udp_mmsg" (the same server
 * with recvmmsg/sendmmsg, up to 16 per call).  The UDP servers check every
 * address against their buffer as the module checks its region, and
 * follow pointers the same way.
 *
 * The client keeps --depth requests in flight (closed loop); modes run
 * interleaved in rounds (bench_util.h's run_rounds).  Around every
 * recorded segment it asks the target's agent for a snapshot of the
 * target CPU's counters: CLOCK_MONOTONIC, the CPU's idle and iowait time
 * (/proc/stat) and PRISM's netns counters.  Busy time = elapsed - idle -
 * iowait.  This is the only measure that sees softirq work done while the
 * CPU sits in the idle loop: the idle time is measured exactly (NO_HZ),
 * but with tick-based accounting (Debian's kernels) the tick is stopped
 * in idle, so softirq served from idle is never sampled into the
 * user/system/softirq fields, which are reported too, as "ticks".
 * Before and after the rounds the target is measured without load
 * (--idle-ms): "net" CPU per op subtracts that background busy fraction.
 *
 *   bench_cpu prism-server IF EP INFO
 *   bench_cpu udp-server IP PORT BATCH READY
 *   bench_cpu agent IP PORT CPU READY      (CPU: a /proc/stat line: cpu, cpu1)
 *   bench_cpu client --if IF --info INFO --udp IP:PORT --udp-mmsg IP:PORT
 *                    --agent IP:PORT [--depth D] [--n N] [--warmup W]
 *                    [--rounds R] [--idle-ms MS] [--json FILE] [--csv FILE]
 *                    [--plot FILE] [--commit C] [--setup TEXT]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "bench_cpu.h"

static const char *const op_names[NOPK] = { "read8", "cas8", "indirect8", "chain4" };
static const char *const stack_names[NSTACK] = { "prism", "udp", "udp_mmsg" };

/* ---- the client ---- */

/* What a mode's recorded segments cost the target, summed. */
struct cpu_acc {
	double	 wall_us, busy_us;
	uint64_t ops;
	uint64_t d[NCOUNT];	/* counter deltas */
};

struct client {
	int			pfd;		/* PRISM socket */
	int			ufd[NSTACK];	/* UDP sockets (S_UDP, S_MMSG) */
	int			afd;		/* agent */
	unsigned int		seq;
	union prism_sockaddr	dst;
	__u64			rkey, base;
	long			clk_tck;
	struct slot_pool	slots;
	int			busy[NSLOTS];
	__u32			gen[NSLOTS];
	__u64			cas_val[NSTACK][NSLOTS];
	__u64			wval[NSLOTS];
	struct cpu_acc		acc[NSTACK * NOPK];
	struct cpu_acc		idle;		/* no load: the target's background */
	_Alignas(8) unsigned char out[OUT_SIZE];
};

static struct bench_mode modes[NSTACK * NOPK];
#define NMODES	(NSTACK * NOPK)

static enum stack mode_stack(int kind) { return (enum stack)(kind / NOPK); }
static enum opk mode_op(int kind) { return (enum opk)(kind % NOPK); }

/* Value k of a slot's current op, a second one for chain4's indirect READ. */
static unsigned int val_k(const struct client *cl, unsigned int slot, unsigned int j)
{
	return (slot * 7 + cl->gen[slot] + j * 13) % NVALS;
}

static int udp_connect(const char *ipport)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = WAIT_S };
	char ip[64];
	const char *colon = strrchr(ipport, ':');
	int fd;

	if (!colon || colon - ipport >= (long)sizeof(ip))
		die(ipport, EINVAL);
	snprintf(ip, sizeof(ip), "%.*s", (int)(colon - ipport), ipport);
	sa.sin_port = htons((unsigned short)atoi(colon + 1));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || inet_pton(AF_INET, ip, &sa.sin_addr) != 1 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die(ipport, errno ? errno : EINVAL);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* A snapshot of the target; asked again (5 times at most) if lost. */
static void agent_snap(struct client *cl, struct snap *s)
{
	char req[32], resp[1024], *p, *end;
	unsigned int seq = ++cl->seq;
	ssize_t n;
	int tries, i;

	snprintf(req, sizeof(req), "snap %u", seq);
	for (tries = 0; tries < 5; tries++) {
		if (send(cl->afd, req, strlen(req), 0) < 0)
			die("agent send", errno);
		while ((n = recv(cl->afd, resp, sizeof(resp) - 1, 0)) > 0) {
			resp[n] = 0;
			if (strtoul(resp, &p, 10) != seq)
				continue;	/* a late answer to an earlier try */
			for (i = 0; i < NCOUNT; i++, p = end) {
				s->c[i] = strtoull(p, &end, 10);
				if (end == p)
					die("malformed answer of the agent", EPROTO);
			}
			return;
		}
	}
	die("the agent does not answer", ETIME);
}

/* Add what the target spent between a and b to acc. */
static void acc_add(struct cpu_acc *acc, const struct snap *a, const struct snap *b,
		    long clk_tck, unsigned long nops)
{
	double wall, idle;
	int i;

	for (i = 0; i < NCOUNT; i++)
		acc->d[i] += b->c[i] - a->c[i];
	wall = (double)(b->c[C_MONO] - a->c[C_MONO]) / 1e3;
	idle = (double)(b->c[C_IDLE] - a->c[C_IDLE] + b->c[C_IOWAIT] -
			a->c[C_IOWAIT]) * 1e6 / (double)clk_tck;
	acc->wall_us += wall;
	acc->busy_us += wall > idle ? wall - idle : 0;
	acc->ops += nops;
}

static void prism_build(struct client *cl, enum opk op, unsigned int slot,
			struct prism_chain_buf *c, void *buf, size_t cap)
{
	__u64 ud = ((__u64)cl->gen[slot] << 8) | slot, b = cl->base;
	__u64 cv = cl->cas_val[S_PRISM][slot];
	unsigned char w[8];

	prism_chain_init(c, buf, cap, ud);
	if (op == OP_READ || op == OP_CHAIN)
		prism_prep_read(c, cl->rkey, b + VAL_OFF + 8 * val_k(cl, slot, 0), 8);
	if (op == OP_CAS || op == OP_CHAIN)
		prism_prep_cas_u64(c, cl->rkey, b + CAS_OFF + 8ull * slot,
				   PRISM_CAS_EQ, cv, cv + 1);
	if (op == OP_IND || op == OP_CHAIN)
		prism_prep_read_indirect(c, cl->rkey, b + 8 * val_k(cl, slot, 1), 8);
	if (op == OP_CHAIN) {
		pu_put_le64(w, cl->wval[slot]);
		prism_prep_write(c, cl->rkey, b + WR_OFF + 8ull * slot, w, 8);
	}
	if (prism_chain_error(c))
		die("chain", prism_chain_error(c));
}

static void udp_build(struct client *cl, enum stack st, enum opk op,
		      unsigned int slot, struct udp_req *q)
{
	memset(q, 0, sizeof(*q));
	q->tag = ((uint64_t)cl->gen[slot] << 8) | slot;
	q->op = op;
	q->cmp = cl->cas_val[st][slot];
	q->swap = q->cmp + 1;
	q->val = cl->wval[slot];
	switch (op) {
	case OP_READ:
		q->a[0] = VAL_OFF + 8 * val_k(cl, slot, 0);
		break;
	case OP_CAS:
		q->a[0] = CAS_OFF + 8 * slot;
		break;
	case OP_IND:
		q->a[0] = 8 * val_k(cl, slot, 1);
		break;
	default:
		q->a[0] = VAL_OFF + 8 * val_k(cl, slot, 0);
		q->a[1] = CAS_OFF + 8 * slot;
		q->a[2] = 8 * val_k(cl, slot, 1);
		q->a[3] = WR_OFF + 8 * slot;
	}
}

/* 0 if the 8 bytes at p are value k. */
static int val_ok(const void *p, unsigned int k)
{
	return check_value(p, 8, k, 8);
}

/*
 * Check the outputs of slot's op (res: the values in the order read8/
 * indirect8 or READ, CAS old, indirect READ); dies on anything wrong.
 */
static void check_outputs(struct client *cl, enum stack st, enum opk op,
			  unsigned int slot, const uint64_t *res, unsigned int nres)
{
	unsigned char b[8];
	unsigned int i = 0, want = op == OP_CHAIN ? 3 : 1;

	if (nres != want)
		die("wrong number of outputs", EPROTO);
	if (op == OP_READ || op == OP_CHAIN) {
		pu_put_le64(b, res[i++]);
		if (val_ok(b, val_k(cl, slot, 0)))
			die("READ returned wrong bytes", EPROTO);
	}
	if (op == OP_CAS || op == OP_CHAIN) {
		if (res[i++] != cl->cas_val[st][slot])
			die("CAS returned a wrong old value", EPROTO);
		cl->cas_val[st][slot]++;
	}
	if (op == OP_IND || op == OP_CHAIN) {
		pu_put_le64(b, res[i]);
		if (val_ok(b, val_k(cl, slot, 1)))
			die("indirect READ returned wrong bytes", EPROTO);
	}
	cl->wval[slot]++;
}

/* Slot of a tag, checked against the ops in flight. */
static unsigned int tag_slot(const struct client *cl, uint64_t tag)
{
	unsigned int slot = (unsigned int)(tag & 0xff);

	if (slot >= NSLOTS || !cl->busy[slot] || tag >> 8 != cl->gen[slot])
		die("unexpected completion", EPROTO);
	return slot;
}

/* A PRISM completion: its slot, its outputs checked. */
static unsigned int prism_check(struct client *cl, enum opk op,
				const struct prism_msg *m)
{
	uint64_t res[3];
	unsigned int slot, i, n = 0, nops = op == OP_CHAIN ? 4 : 1;
	const unsigned char *p;
	__u32 len;

	if (!prism_msg_is_completion(m))
		die("unexpected message", EPROTO);
	slot = tag_slot(cl, m->user_data);
	if (m->status != PRISM_S_OK) {
		fprintf(stderr, "bench_cpu: %s failed: %s\n", op_names[op],
			prism_status_str(m->status));
		exit(1);
	}
	for (i = 0; i < nops; i++) {
		if (prism_msg_op_status(m, i) != PRISM_S_OK)
			die("an op failed", EIO);
		if (i == 3)
			break;	/* the WRITE outputs nothing */
		p = prism_msg_data(m, i, &len);
		if (!p || len != 8)
			die("an op returned no value", EPROTO);
		res[n++] = pu_get_le64(p);
	}
	check_outputs(cl, S_PRISM, op, slot, res, n);
	cl->busy[slot] = 0;
	return slot;
}

/* pipeline_ops.start */
static void start_op(void *ctx, int kind, unsigned int slot)
{
	struct client *cl = ctx;
	enum stack st = mode_stack(kind);
	enum opk op = mode_op(kind);
	_Alignas(8) unsigned char cb[512];
	struct prism_chain_buf c;
	struct udp_req q;
	int err;

	cl->gen[slot]++;
	cl->busy[slot] = 1;
	cl->slots.t_start[slot] = pu_now_us();
	if (st == S_PRISM) {
		prism_build(cl, op, slot, &c, cb, sizeof(cb));
		err = prism_submit(cl->pfd, &cl->dst.eth, &c);
		if (err)
			die("prism_submit", err);
		return;
	}
	udp_build(cl, st, op, slot, &q);
	if (send(cl->ufd[st], &q, sizeof(q), 0) != sizeof(q))
		die("udp send", errno);
}

/* pipeline_ops.wait: one completion. */
static unsigned int wait_one(void *ctx, int kind, unsigned int *done)
{
	struct client *cl = ctx;
	enum stack st = mode_stack(kind);
	enum opk op = mode_op(kind);
	struct udp_resp r;
	unsigned int slot, i;
	uint64_t res[3];
	ssize_t n;

	if (st == S_PRISM) {
		n = prism_wait_from(cl->pfd, cl->out, sizeof(cl->out), NULL, 0);
		if (n < 0)
			die("prism_wait_from", (int)n);
		done[0] = prism_check(cl, op, (const void *)cl->out);
		return 1;
	}
	n = recv(cl->ufd[st], &r, sizeof(r), 0);
	if (n < 0)
		die(errno == EAGAIN ? "no UDP answer within 5 s (lost?)" : "udp recv",
		    errno);
	if (n != sizeof(r) || r.nres > 3)
		die("malformed UDP answer", EPROTO);
	slot = tag_slot(cl, r.tag);
	if (r.status)
		die("the UDP server refused an op", (int)r.status);
	for (i = 0; i < r.nres; i++)
		res[i] = pu_get_le64(&r.r[i]);
	check_outputs(cl, st, op, slot, res, r.nres);
	cl->busy[slot] = 0;
	done[0] = slot;
	return 1;
}

static const struct pipeline_ops pipeline = { start_op, wait_one };

/* run_segment_fn: a recorded segment is bracketed by two snapshots. */
static void run_segment(void *ctx, struct bench_mode *m, unsigned long nops,
			int record)
{
	struct client *cl = ctx;
	struct snap a, b;

	if (record)
		agent_snap(cl, &a);
	run_pipelined(&cl->slots, &pipeline, cl, m, nops, record);
	if (record) {
		agent_snap(cl, &b);
		acc_add(&cl->acc[m->kind], &a, &b, cl->clk_tck, nops);
	}
}

static double cpu_us_per_op(const struct cpu_acc *a)
{
	return a->ops ? a->busy_us / (double)a->ops : 0;
}

/* Counter delta i per op of a. */
static double per_op(const struct cpu_acc *a, int i)
{
	return a->ops ? (double)a->d[i] / (double)a->ops : 0;
}

/* Busy fraction of a's target CPU. */
static double busy_frac(const struct cpu_acc *a)
{
	return a->wall_us > 0 ? a->busy_us / a->wall_us : 0;
}

/* CPU per op less what the target spends without load in the same time. */
static double net_us_per_op(const struct client *cl, const struct cpu_acc *a)
{
	return a->ops ? (a->busy_us - busy_frac(&cl->idle) * a->wall_us) /
			(double)a->ops : 0;
}

/* The target without load for ms: its background busy time (timers...). */
static void measure_idle(struct client *cl, unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	struct snap a, b;

	agent_snap(cl, &a);
	nanosleep(&ts, NULL);
	agent_snap(cl, &b);
	acc_add(&cl->idle, &a, &b, cl->clk_tck, 0);
}

/* Tick-sampled share of a field, of all ticks of the mode. */
static double tick_share(const struct cpu_acc *a, int field)
{
	uint64_t all = 0;
	int i;

	for (i = C_USER; i <= C_STEAL; i++)
		all += a->d[i];
	return all ? (double)a->d[field] / (double)all : 0;
}

/* The best UDP stack for op (lowest CPU per request). */
static const struct cpu_acc *best_udp(const struct client *cl, enum opk op,
				      enum stack *which)
{
	const struct cpu_acc *u = &cl->acc[S_UDP * NOPK + op];
	const struct cpu_acc *mm = &cl->acc[S_MMSG * NOPK + op];

	*which = cpu_us_per_op(mm) < cpu_us_per_op(u) ? S_MMSG : S_UDP;
	return *which == S_MMSG ? mm : u;
}

static void write_json(const char *path, const struct client *cl,
		       const struct mode_summary *sum, unsigned int depth,
		       unsigned long per, long rounds, long warmup,
		       const char *commit, const char *setup)
{
	FILE *f = json_open(path, "cpu");
	const struct cpu_acc *a, *u;
	enum stack which;
	unsigned int j, o;

	fprintf(f, "  \"commit\": \"%s\",\n  \"setup\": \"%s\",\n", commit, setup);
	fprintf(f, "  \"depth\": %u,\n  \"ops_per_mode\": %lu,\n  \"rounds\": %ld,\n  \"warmup_per_segment\": %ld,\n",
		depth, per * (unsigned long)rounds, rounds, warmup);
	fprintf(f, "  \"cpu_us\": \"target busy time (elapsed - idle - iowait of its CPU) / ops completed; net: less the background busy fraction measured without load\",\n");
	fprintf(f, "  \"target_background_busy_frac\": %.4f,\n  \"background_wall_us\": %.0f,\n",
		busy_frac(&cl->idle), cl->idle.wall_us);
	fprintf(f, "  \"results\": {\n");
	for (j = 0; j < NMODES; j++) {
		a = &cl->acc[j];
		json_mode_fields(f, &modes[j], &sum[j]);
		fprintf(f, ", \"stack\": \"%s\", \"op\": \"%s\", \"ops\": %llu, \"target_wall_us\": %.0f, \"target_busy_us\": %.0f, \"target_busy_frac\": %.4f, \"cpu_us_per_op\": %.3f, \"net_cpu_us_per_op\": %.3f, \"interrupts_per_op\": %.3f, \"context_switches_per_op\": %.3f, \"net_rx_softirqs_per_op\": %.3f, \"net_tx_softirqs_per_op\": %.3f, \"ticks_user\": %llu, \"ticks_system\": %llu, \"ticks_softirq\": %llu, \"ticks_irq\": %llu, \"ticks_idle\": %llu, \"prism_chains_served\": %llu, \"prism_ops_served\": %llu, \"prism_duplicates\": %llu}%s\n",
			stack_names[mode_stack(modes[j].kind)], op_names[mode_op(modes[j].kind)],
			(unsigned long long)a->ops, a->wall_us, a->busy_us,
			busy_frac(a), cpu_us_per_op(a), net_us_per_op(cl, a),
			per_op(a, C_INTR), per_op(a, C_CTXT), per_op(a, C_NET_RX),
			per_op(a, C_NET_TX),
			(unsigned long long)(a->d[C_USER] + a->d[C_NICE]),
			(unsigned long long)a->d[C_SYS],
			(unsigned long long)a->d[C_SOFTIRQ],
			(unsigned long long)a->d[C_IRQ],
			(unsigned long long)a->d[C_IDLE],
			(unsigned long long)a->d[C_SERVED], (unsigned long long)a->d[C_OPS],
			(unsigned long long)a->d[C_DUPS], j + 1 < NMODES ? "," : "");
	}
	fprintf(f, "  },\n  \"prism_over_udp\": {\n");
	for (o = 0; o < NOPK; o++) {
		a = &cl->acc[S_PRISM * NOPK + o];
		u = best_udp(cl, (enum opk)o, &which);
		fprintf(f, "    \"%s\": {\"cpu_over_udp\": %.4f, \"cpu_over_udp_mmsg\": %.4f, \"cpu_over_best_udp\": %.4f, \"net_cpu_over_best_udp\": %.4f, \"best_udp\": \"%s\", \"goal_0.5x_met\": %s}%s\n",
			op_names[o],
			cpu_us_per_op(a) / cpu_us_per_op(&cl->acc[S_UDP * NOPK + o]),
			cpu_us_per_op(a) / cpu_us_per_op(&cl->acc[S_MMSG * NOPK + o]),
			cpu_us_per_op(a) / cpu_us_per_op(u),
			net_us_per_op(cl, a) / net_us_per_op(cl, u), stack_names[which],
			cpu_us_per_op(a) <= 0.5 * cpu_us_per_op(u) ? "true" : "false",
			o + 1 < NOPK ? "," : "");
	}
	fprintf(f, "  }\n}\n");
	close_or_die(f, path);
}

/* One row per mode (csv) / per op with the three stacks (plot). */
static void write_tables(const char *csv, const char *plot, const struct client *cl,
			 const struct mode_summary *sum)
{
	const struct cpu_acc *a;
	unsigned int j, o, s;
	FILE *f;

	if (csv) {
		f = fopen(csv, "w");
		if (!f)
			die(csv, errno);
		fprintf(f, "stack,op,depth,ops,ops_per_s,p50_us,p99_us,target_busy_frac,cpu_us_per_op,net_cpu_us_per_op,softirq_tick_share,system_tick_share,user_tick_share,prism_chains_served,prism_duplicates,interrupts_per_op,context_switches_per_op,net_rx_softirqs_per_op\n");
		for (j = 0; j < NMODES; j++) {
			a = &cl->acc[j];
			fprintf(f, "%s,%s,%u,%llu,%.0f,%.1f,%.1f,%.4f,%.3f,%.3f,%.4f,%.4f,%.4f,%llu,%llu,%.3f,%.3f,%.3f\n",
				stack_names[mode_stack(modes[j].kind)],
				op_names[mode_op(modes[j].kind)], modes[j].depth,
				(unsigned long long)a->ops, sum[j].ops_s, sum[j].lat.p50,
				sum[j].lat.p99,
				busy_frac(a), cpu_us_per_op(a), net_us_per_op(cl, a),
				tick_share(a, C_SOFTIRQ), tick_share(a, C_SYS),
				tick_share(a, C_USER) + tick_share(a, C_NICE),
				(unsigned long long)a->d[C_SERVED],
				(unsigned long long)a->d[C_DUPS], per_op(a, C_INTR),
				per_op(a, C_CTXT), per_op(a, C_NET_RX));
		}
		close_or_die(f, csv);
	}
	if (!plot)
		return;
	f = fopen(plot, "w");
	if (!f)
		die(plot, errno);
	fprintf(f, "# op prism_cpu_us udp_cpu_us udp_mmsg_cpu_us prism_kops udp_kops udp_mmsg_kops\n");
	for (o = 0; o < NOPK; o++) {
		fprintf(f, "%s", op_names[o]);
		for (s = 0; s < NSTACK; s++)
			fprintf(f, " %.3f", cpu_us_per_op(&cl->acc[s * NOPK + o]));
		for (s = 0; s < NSTACK; s++)
			fprintf(f, " %.3f", sum[s * NOPK + o].ops_s / 1000);
		fprintf(f, "\n");
	}
	close_or_die(f, plot);
}

static void print_table(const struct client *cl, const struct mode_summary *sum)
{
	const struct cpu_acc *a, *p, *u;
	enum stack which;
	unsigned int j, o;

	printf("  target background without load: busy %.4f of %.1f s\n",
	       busy_frac(&cl->idle), cl->idle.wall_us / 1e6);
	printf("  %-9s %-9s %6s %7s %7s %8s %6s %9s %6s %5s %5s %5s %5s %5s %5s %5s\n",
	       "stack", "op", "ops", "ops/s", "p50 us", "p99 us", "busy", "cpu us/op",
	       "net", "irq/op", "cs/op", "rx/op", "sirq%", "sys%", "user%", "dups");
	for (j = 0; j < NMODES; j++) {
		a = &cl->acc[j];
		printf("  %-9s %-9s %6llu %7.0f %7.1f %8.1f %6.3f %9.1f %6.1f %6.2f %5.2f %5.2f %5.1f %5.1f %5.1f %5llu\n",
		       stack_names[mode_stack(modes[j].kind)],
		       op_names[mode_op(modes[j].kind)], (unsigned long long)a->ops,
		       sum[j].ops_s, sum[j].lat.p50, sum[j].lat.p99,
		       busy_frac(a), cpu_us_per_op(a), net_us_per_op(cl, a),
		       per_op(a, C_INTR), per_op(a, C_CTXT), per_op(a, C_NET_RX),
		       100 * tick_share(a, C_SOFTIRQ), 100 * tick_share(a, C_SYS),
		       100 * (tick_share(a, C_USER) + tick_share(a, C_NICE)),
		       (unsigned long long)a->d[C_DUPS]);
	}
	for (o = 0; o < NOPK; o++) {
		p = &cl->acc[S_PRISM * NOPK + o];
		u = best_udp(cl, (enum opk)o, &which);
		printf("  %-9s PRISM %.1f us/op, UDP %.1f, UDP mmsg %.1f: PRISM/best UDP (%s) %.3f, net %.3f (goal <= 0.5: %s)\n",
		       op_names[o], cpu_us_per_op(p),
		       cpu_us_per_op(&cl->acc[S_UDP * NOPK + o]),
		       cpu_us_per_op(&cl->acc[S_MMSG * NOPK + o]), stack_names[which],
		       cpu_us_per_op(p) / cpu_us_per_op(u),
		       net_us_per_op(cl, p) / net_us_per_op(cl, u),
		       cpu_us_per_op(p) <= 0.5 * cpu_us_per_op(u) ? "met" : "missed");
	}
}

static int client(int argc, char **argv)
{
	const char *ifname = NULL, *info = NULL, *json = NULL, *csv = NULL,
		   *plot = NULL, *udp = NULL, *mmsg = NULL, *agent_at = NULL,
		   *commit = "unknown", *setup = "";
	long n = 3000, warmup = 100, rounds = 3;
	unsigned int depth = 8, idle_ms = 2000, j;
	struct mode_summary sum[NMODES];
	struct timeval tv = { .tv_sec = WAIT_S };
	static char names[NMODES][32];
	static struct client cl;
	struct server_info si;
	unsigned long per;
	const struct pu_opt opts[] = {
		BENCH_CLIENT_OPTS(ifname, info, n, warmup, json),
		PU_OPT("udp", udp, "IP:PORT", "the UDP server, recvfrom/sendto (required)"),
		PU_OPT("udp-mmsg", mmsg, "IP:PORT", "the UDP server, recvmmsg/sendmmsg (required)"),
		PU_OPT("agent", agent_at, "IP:PORT", "the target's agent (required)"),
		PU_OPT("depth", depth, "D", "requests in flight, 1..64 (default 8)"),
		PU_OPT("rounds", rounds, "R", "rounds, 1 to 100 and at most N (default 3)"),
		PU_OPT("idle-ms", idle_ms, "MS", "target without load, measured before and after (default 2000 each)"),
		PU_OPT("csv", csv, "FILE", "results, one row per stack and op"),
		PU_OPT("plot", plot, "FILE", "results, a table for gnuplot"),
		PU_OPT("commit", commit, "C", "recorded in the JSON"),
		PU_OPT("setup", setup, "TEXT", "how client and target are joined, recorded in the JSON"),
		PU_OPT_END,
	};
	const char *synopsis = "bench_cpu client --if IF --info INFO --udp IP:PORT --udp-mmsg IP:PORT --agent IP:PORT [options]";

	if (pu_parse_opts(argc, argv, opts, synopsis) < 0)
		return 2;
	if (!ifname || !info || !udp || !mmsg || !agent_at || depth < 1 ||
	    depth > 64 || rounds < 1 || rounds > BENCH_MAX_ROUNDS || n < rounds ||
	    warmup < 0)
		return pu_opts_usage(opts, synopsis);
	per = (unsigned long)(n / rounds);
	si = read_server(info, &cl.dst);
	cl.rkey = si.rkey;
	cl.base = si.base;
	cl.clk_tck = sysconf(_SC_CLK_TCK);
	cl.pfd = prism_open_spec(ifname, 0);
	if (cl.pfd < 0)
		die("prism_open", cl.pfd);
	setsockopt(cl.pfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	cl.ufd[S_UDP] = udp_connect(udp);
	cl.ufd[S_MMSG] = udp_connect(mmsg);
	cl.afd = udp_connect(agent_at);
	tv.tv_sec = 1;
	setsockopt(cl.afd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	slot_pool_init(&cl.slots);
	for (j = 0; j < NMODES; j++) {
		snprintf(names[j], sizeof(names[j]), "%s_%s",
			 stack_names[mode_stack((int)j)], op_names[mode_op((int)j)]);
		modes[j].name = names[j];
		modes[j].kind = (int)j;
		modes[j].depth = depth;
	}
	modes_alloc(modes, NMODES, per, rounds);
	measure_idle(&cl, idle_ms);
	run_rounds(modes, NMODES, rounds, warmup, per, run_segment, &cl, sum);
	measure_idle(&cl, idle_ms);

	printf("cpu benchmark: depth %u, %lu ops per mode in %ld rounds (+%ld warm-up per segment)\n",
	       depth, per * (unsigned long)rounds, rounds, warmup);
	printf("  busy: target CPU busy fraction; cpu us/op: busy time / ops; net: less the background; irq/cs/rx per op: interrupts, context switches, NET_RX softirqs of the whole target; sirq%%/sys%%/user%%: tick-sampled shares (softirq served from idle is not sampled)\n");
	print_table(&cl, sum);
	if (json)
		write_json(json, &cl, sum, depth, per, rounds, warmup, commit, setup);
	write_tables(csv, plot, &cl, sum);
	send(cl.afd, "quit", 4, 0);
	close(cl.afd);
	close(cl.pfd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct subcommand cmds[] = {
		{ "prism-server", cpu_prism_server },
		{ "udp-server", cpu_udp_server },
		{ "agent", cpu_agent },
		{ "client", client },
	};

	return run_subcommand(argc, argv, cmds, sizeof(cmds) / sizeof(cmds[0]));
}
