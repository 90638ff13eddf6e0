// SPDX-License-Identifier: MIT
/*
 * Keyed regions (issue 17): latency and ops/s of sealed chains beside the
 * same chains on a plain region, measured interleaved in one run.
 *
 * One process holds both ends: the server socket, opened in the target's
 * namespace, registers a plain region and a keyed one with the same bytes,
 * installs the region key and derives the client's key, which the client
 * socket attaches (the target's work is the kernel's, in softirq, as with
 * a server process sleeping in pause()).  Ops: READ of 8, 512 and 4096
 * bytes (4096 only when the link's MTU carries it sealed) and an 8-byte
 * CAS, each plain and sealed, one at a time (prism_execute()) and 64 in
 * flight (prism_submit() / prism_wait_from()).  Every completion is
 * checked: the bytes read, the old value of the CAS.  With --simd-param
 * (the module's crypt_simd parameter file), sealed chains run twice, with
 * the CPU's AES and carry-less multiply ("keyed", the parameter set to 1
 * before each of their segments) and with the C code ("keyedc", set to 0),
 * interleaved like the rest.
 *
 *   bench_keyed --srv-ns NS --srv SPEC --cli SPEC [--n N] [--warmup W]
 *               [--rounds R] [--json FILE] [--simd-param FILE]
 *
 * SPEC: an interface, or udp:IP (prism_open_spec()).  Run it in the
 * client's namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "bench_util.h"

#define REGION_LEN	(64u * 1024)
#define CAS_OFF		(32u * 1024)	/* one 8-byte counter per slot */
#define NSLOTS		BENCH_NSLOTS
#define OUT_SIZE	8192u

/* A segment's kind: the op, and plain, keyed or keyed with crypt_simd=0. */
enum variant { V_PLAIN, V_KEYED, V_KEYEDC, NVARIANT };
#define KIND(op, v)	((int)((op) * NVARIANT + (v)))
#define KIND_OP(kind)	((enum opk)((kind) / NVARIANT))
#define KIND_V(kind)	((enum variant)((kind) % NVARIANT))
#define KIND_SIDE(kind)	(KIND_V(kind) != V_PLAIN)

static const char *const variant_names[NVARIANT] = { "plain", "keyed", "keyedc" };

enum opk { OP_R8, OP_R512, OP_R4096, OP_CAS, NOPK };

static const char *const op_names[NOPK] = { "read8", "read512", "read4096", "cas8" };
static const __u32 op_len[NOPK] = { 8, 512, 4096, 8 };

struct side {
	__u64		rkey;
	unsigned char	*mem;
	__u64		cas_val[NSLOTS];
};

struct client {
	int			fd;
	union prism_sockaddr	dst;
	struct side		side[2];	/* 0: plain, 1: keyed */
	struct slot_pool	slots;
	int			busy[NSLOTS];
	__u32			gen[NSLOTS];
	int			kind;		/* of the segment: KIND() */
	const char		*simd_param;
	_Alignas(8) unsigned char out[OUT_SIZE];
};

static int open_srv(const void *arg)
{
	return prism_open_spec(arg, 0);
}

static unsigned char *region(void)
{
	unsigned char *mem = mmap(NULL, REGION_LEN, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned int i;

	if (mem == MAP_FAILED)
		die("mmap", errno);
	for (i = 0; i < CAS_OFF; i++)
		mem[i] = val_byte(i / 4096, i % 4096);
	return mem;
}

/* Both regions, the key, and the client's socket with the key attached. */
static int setup(struct client *cl, const char *ns, const char *srv,
		 const char *cli)
{
	__u8 key[PRISM_KEY_SIZE], kd[PRISM_KEY_SIZE];
	union prism_sockaddr me;
	unsigned int i;
	int s, err;

	s = pu_in_netns(ns, open_srv, srv);
	if (s < 0)
		die("server socket", s);
	cl->fd = prism_open_spec(cli, 0);
	if (cl->fd < 0)
		die("client socket", cl->fd);
	prism_local_addr(s, &cl->dst.eth);
	if (cl->dst.eth.sprism_kind == PRISM_ADDR_ETH)
		prism_addr_init(&cl->dst.eth, cl->dst.eth.sprism_mac,
				cl->dst.eth.sprism_ep);
	prism_local_addr(cl->fd, &me.eth);
	for (i = 0; i < 2; i++) {
		cl->side[i].mem = region();
		err = prism_reg_mr_flags(s, cl->side[i].mem, REGION_LEN,
					 PRISM_ACCESS_REMOTE_READ |
					 PRISM_ACCESS_REMOTE_ATOMIC,
					 i ? PRISM_MR_KEYED : 0, &cl->side[i].rkey);
		if (err)
			die("REG_MR", err);
	}
	for (i = 0; i < sizeof(key); i++)
		key[i] = (__u8)(i * 13 + 7);
	err = prism_rekey(s, cl->side[1].rkey, key, 0, NULL);
	if (!err)
		err = prism_derive_key(s, cl->side[1].rkey, &me.eth,
				       PRISM_ACCESS_REMOTE_READ |
				       PRISM_ACCESS_REMOTE_ATOMIC, kd, NULL);
	if (!err)
		err = prism_attach_key(cl->fd, &cl->dst.eth, cl->side[1].rkey,
				       PRISM_ACCESS_REMOTE_READ |
				       PRISM_ACCESS_REMOTE_ATOMIC, kd);
	if (err)
		die("keys", err);
	return s;
}

static void build_chain(struct client *cl, unsigned int slot,
			struct prism_chain_buf *c, void *buf, size_t cap)
{
	const struct side *sd = &cl->side[KIND_SIDE(cl->kind)];
	enum opk op = KIND_OP(cl->kind);
	__u64 base = (uintptr_t)sd->mem;

	cl->gen[slot]++;
	prism_chain_init(c, buf, cap, ((__u64)cl->gen[slot] << 8) | slot);
	if (op == OP_CAS)
		prism_prep_cas_u64(c, sd->rkey, base + CAS_OFF + 8ull * slot,
				   PRISM_CAS_EQ, sd->cas_val[slot],
				   sd->cas_val[slot] + 1);
	else
		prism_prep_read(c, sd->rkey, base + (slot % 8) * 4096,
				op_len[op]);
	if (prism_chain_error(c))
		die("chain", prism_chain_error(c));
}

static unsigned int check_completion(struct client *cl,
				     const struct prism_msg *m)
{
	unsigned int slot = (unsigned int)(m->user_data & 0xff);
	struct side *sd = &cl->side[KIND_SIDE(cl->kind)];
	enum opk op = KIND_OP(cl->kind);
	const void *p;
	__u64 old;
	__u32 len;

	if (!prism_msg_is_completion(m) || !cl->busy[slot] ||
	    m->user_data >> 8 != cl->gen[slot])
		die("unexpected completion", EPROTO);
	if (m->status != PRISM_S_OK || prism_msg_op_status(m, 0) != PRISM_S_OK) {
		fprintf(stderr, "bench_keyed: %s (%s) failed: %s / %s\n",
			op_names[op], variant_names[KIND_V(cl->kind)],
			prism_status_str(m->status),
			prism_status_str(prism_msg_op_status(m, 0)));
		exit(1);
	}
	if (op == OP_CAS) {
		if (prism_msg_u64(m, 0, &old) || old != sd->cas_val[slot])
			die("CAS returned a wrong old value", EPROTO);
		sd->cas_val[slot]++;
	} else {
		p = prism_msg_data(m, 0, &len);
		if (check_value(p, len, slot % 8, op_len[op]))
			die("READ returned wrong bytes", EPROTO);
	}
	cl->busy[slot] = 0;
	return slot;
}

static void start_op(void *ctx, int kind, unsigned int slot)
{
	struct client *cl = ctx;
	_Alignas(8) unsigned char cb[256];
	struct prism_chain_buf c;
	int err;

	(void)kind;
	build_chain(cl, slot, &c, cb, sizeof(cb));
	cl->busy[slot] = 1;
	cl->slots.t_start[slot] = pu_now_us();
	err = prism_submit(cl->fd, &cl->dst.eth, &c);
	if (err)
		die("prism_submit", err);
}

static unsigned int wait_one(void *ctx, int kind, unsigned int *done)
{
	struct client *cl = ctx;
	ssize_t n;

	(void)kind;
	n = prism_wait_from(cl->fd, cl->out, sizeof(cl->out), NULL, 0);
	if (n < 0)
		die("prism_wait_from", (int)n);
	done[0] = check_completion(cl, (const void *)cl->out);
	return 1;
}

static const struct pipeline_ops pipeline = { start_op, wait_one };

/* Sealed chains of this segment with AES-NI (1) or in C (0). */
static void set_simd(const struct client *cl)
{
	FILE *f;

	if (!cl->simd_param || !KIND_SIDE(cl->kind))
		return;
	f = fopen(cl->simd_param, "w");
	if (!f || fputs(KIND_V(cl->kind) == V_KEYEDC ? "0\n" : "1\n", f) < 0 ||
	    fclose(f)) {
		fprintf(stderr, "bench_keyed: cannot write %s\n", cl->simd_param);
		exit(1);
	}
}

static void run_segment(void *ctx, struct bench_mode *m, unsigned long nops,
			int record)
{
	_Alignas(8) unsigned char cb[256];
	struct client *cl = ctx;
	struct prism_chain_buf c;
	unsigned int slot;
	unsigned long i;
	double t0, t;
	ssize_t n;

	cl->kind = m->kind;
	set_simd(cl);
	if (m->depth > 1) {
		run_pipelined(&cl->slots, &pipeline, cl, m, nops, record);
		return;
	}
	t0 = pu_now_us();
	for (i = 0; i < nops; i++) {
		slot = cl->slots.free[cl->slots.nfree - 1];
		build_chain(cl, slot, &c, cb, sizeof(cb));
		cl->busy[slot] = 1;
		t = pu_now_us();
		n = prism_execute(cl->fd, &cl->dst.eth, &c, cl->out,
				  sizeof(cl->out));
		if (n < 0)
			die("prism_execute", (int)n);
		check_completion(cl, (const void *)cl->out);
		if (record)
			m->v[m->n++] = pu_now_us() - t;
	}
	if (record)
		mode_segment_done(m, nops, t0);
}

#define MAX_MODES	(NOPK * NVARIANT * 2)

static char names[MAX_MODES][32];

/* The plain mode of the same op and depth: 2 entries per variant before. */
static unsigned int plain_of(const struct bench_mode *modes, unsigned int j)
{
	return j - 2 * KIND_V(modes[j].kind);
}

static int client(int argc, char **argv)
{
	const char *ns = NULL, *srv = NULL, *cli = NULL, *json = NULL;
	const char *simd = NULL;
	const char *synopsis = "bench_keyed --srv-ns NS --srv SPEC --cli SPEC [options]";
	struct timeval tv = { .tv_sec = 5 };
	long n = 4000, warmup = 30, rounds = 5;
	unsigned long per;
	struct bench_mode modes[MAX_MODES];
	struct mode_summary sum[MAX_MODES];
	_Alignas(8) unsigned char cb[256];
	static struct client cl;
	struct prism_chain_buf c;
	struct prism_stats st;
	unsigned int nmodes = 0, nvar, o, k, d, j;
	int s, have4k;
	FILE *f;
	const struct pu_opt opts[] = {
		PU_OPT("srv-ns", ns, "NS", "the target's network namespace (required)"),
		PU_OPT("srv", srv, "SPEC", "the target's interface or udp:IP (required)"),
		PU_OPT("cli", cli, "SPEC", "the client's interface or udp:IP (required)"),
		PU_OPT("n", n, "N", "measured chains per mode, over all rounds (default 4000)"),
		PU_OPT("warmup", warmup, "W", "warm-up chains per segment (default 30)"),
		PU_OPT("rounds", rounds, "R", "rounds, 1 to 100 (default 5)"),
		PU_OPT("json", json, "FILE", "results, JSON"),
		PU_OPT("simd-param", simd, "FILE",
		       "the module's crypt_simd parameter: sealed chains also in C"),
		PU_OPT_END,
	};

	if (pu_parse_opts(argc, argv, opts, synopsis) < 0)
		return 2;
	if (!ns || !srv || !cli || rounds < 1 || rounds > BENCH_MAX_ROUNDS ||
	    n < rounds || warmup < 0)
		return pu_opts_usage(opts, synopsis);
	per = (unsigned long)(n / rounds);
	cl.simd_param = simd;
	nvar = simd ? NVARIANT : V_KEYEDC;
	s = setup(&cl, ns, srv, cli);
	setsockopt(cl.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	slot_pool_init(&cl.slots);

	/* READ 4096 sealed fits only a jumbo MTU. */
	prism_chain_init(&c, cb, sizeof(cb), 0);
	prism_prep_read(&c, cl.side[1].rkey, (uintptr_t)cl.side[1].mem, 4096);
	have4k = prism_execute(cl.fd, &cl.dst.eth, &c, cl.out, sizeof(cl.out)) >= 0;
	for (o = 0; o < NOPK; o++) {
		if (o == OP_R4096 && !have4k)
			continue;
		for (k = 0; k < nvar; k++) {
			for (d = 0; d < 2; d++) {
				snprintf(names[nmodes], sizeof(names[0]), "%s_%s_d%u",
					 op_names[o], variant_names[k], d ? 64 : 1);
				modes[nmodes] = (struct bench_mode){
					.name = names[nmodes], .kind = KIND(o, k),
					.depth = d ? 64 : 1,
				};
				nmodes++;
			}
		}
	}
	modes_alloc(modes, nmodes, per, rounds);
	run_rounds(modes, nmodes, rounds, warmup, per, run_segment, &cl, sum);
	if (simd) {	/* back to the module's default */
		cl.kind = KIND(0, V_KEYED);
		set_simd(&cl);
	}

	memset(&st, 0, sizeof(st));
	prism_get_stats(cl.fd, &st);
	printf("# mode                 ops/s   p50_us   p99_us  keyed/plain: p50  ops\n");
	for (j = 0; j < nmodes; j++) {
		unsigned int pj = plain_of(modes, j);

		printf("%-20s %8.0f %8.1f %8.1f  %5.2f %5.2f\n", modes[j].name,
		       sum[j].ops_seg, sum[j].lat.p50, sum[j].lat.p99,
		       sum[j].lat.p50 / sum[pj].lat.p50,
		       sum[j].ops_seg / sum[pj].ops_seg);
	}
	printf("# client: retransmits %llu, resp_auth_failed %llu, timeouts %llu\n",
	       (unsigned long long)st.retransmits,
	       (unsigned long long)st.resp_auth_failed,
	       (unsigned long long)st.chains_timed_out);
	if (json) {
		f = json_open(json, "keyed");
		fprintf(f, "  \"chains_per_mode\": %lu,\n  \"rounds\": %ld,\n  \"warmup_per_segment\": %ld,\n",
			per * (unsigned long)rounds, rounds, warmup);
		fprintf(f, "  \"client_retransmits\": %llu,\n  \"latency_unit\": \"us\",\n  \"results\": {\n",
			(unsigned long long)st.retransmits);
		for (j = 0; j < nmodes; j++) {
			unsigned int pj = plain_of(modes, j);

			json_mode_fields(f, &modes[j], &sum[j]);
			fprintf(f, ", \"p50_over_plain\": %.4f, \"ops_over_plain\": %.4f}%s\n",
				sum[j].lat.p50 / sum[pj].lat.p50,
				sum[j].ops_seg / sum[pj].ops_seg,
				j + 1 < nmodes ? "," : "");
		}
		fprintf(f, "  }\n}\n");
		close_or_die(f, json);
	}
	close(cl.fd);
	close(s);
	return 0;
}

int main(int argc, char **argv)
{
	return client(argc, argv);
}
