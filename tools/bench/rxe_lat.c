// SPDX-License-Identifier: MIT
/*
 * PRISM vs SoftRoCE (rdma_rxe) latency, the two sides of tools/bench/rxe.sh.
 *
 * Both stacks get the same server memory layout and the same client loop:
 *
 *   0      pointer table: slot k holds the address of value k
 *   4096   NVALS values of VAL_SIZE bytes (byte pattern checked by reads)
 *   49152  WRITE area
 *   61440  CAS word (8 bytes)
 *
 * and the client measures, one operation at a time, warm-up excluded:
 *
 *   read8 read512 write8 write512 cas8   one operation, wait for its completion
 *   dep2read512  READ the 8-byte pointer, then READ the 512 bytes it names
 *                (two dependent round trips)
 *   indread512   (PRISM only) one READ|INDIRECT: the target follows the pointer
 *
 * PRISM: liburing-prism's blocking prism_execute() (sendmsg + recvmsg).
 * rxe:   libibverbs RC QP, one signaled work request, ibv_poll_cq() busy
 *        polling (as perftest does).  The QP is connected out of band
 *        through small files (both processes run in the same guest).
 *
 *   rxe_lat prism-server IF EP INFO
 *   rxe_lat prism-client IF INFO N WARMUP [STACK]
 *           (IF may be udp:IP, as for the server; STACK names the RESULT
 *            lines, default "prism")
 *   rxe_lat verbs-server DEV GIDX INFO PEER READY
 *   rxe_lat verbs-client DEV GIDX INFO PEER READY N WARMUP
 *   rxe_lat pair-client IF PINFO DEV GIDX VINFO VPEER VREADY N WARMUP
 *           (both clients in one process, interleaved op by op: what
 *            rxe.sh uses)
 *   rxe_lat busy-client IF PINFO N WARMUP MHZ SPIN_US BUSY_POLL_US SUFFIX
 *           PRISM READ 8 four ways, interleaved op by op: blocking
 *           prism_execute(), prism_execute_spin(SPIN_US), prism_ring
 *           sleeping and prism_ring spinning (prism_ring_busy_poll), timed
 *           with the TSC like perftest (MHZ: tsc-mhz's rate); both sockets
 *           get SO_BUSY_POLL = BUSY_POLL_US first (0: left alone).  Stacks
 *           are named prism-{block,spin,ring,ringspin}SUFFIX; each also
 *           prints "CSW stack sleeps_per_op" (voluntary context switches)
 *           and a "NAPI<SUFFIX> id N" line (SO_INCOMING_NAPI_ID, 0: no NAPI)
 *   rxe_lat veth-napi IF on|off
 *           GRO (with it NAPI) on IF and TSO off, or back (ethtool ioctls;
 *           a veth end takes its peer's frames through NAPI only when it
 *           has GRO on and the peer TSO off)
 *   rxe_lat tsc-mhz       (x86: TSC ticks per microsecond of CLOCK_MONOTONIC
 *                          on the CPU it runs on; run it pinned)
 *
 * Clients print one line per operation:
 *   RESULT stack op bytes n median_us p99_us mean_us min_us max_us p90_us
 * (pXX = the smallest sample with at least XX% of the samples <= it)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "bench_util.h"

#define VAL_SIZE	512u
#define NVALS		64u
#define REGION_LEN	(64u * 1024)
#define VAL_OFF		4096u
#define WRITE_OFF	49152u
#define CAS_OFF		61440u

static void wait_file(const char *path)
{
	int i;

	for (i = 0; i < 6000; i++) {
		if (access(path, R_OK) == 0)
			return;
		usleep(10000);
	}
	die(path, ETIMEDOUT);
}

/* The server's region: the layout at the top, WRITE area and CAS word 0. */
static void fill_region(unsigned char *mem)
{
	memset(mem, 0, REGION_LEN);
	fill_pointed_values(mem, NVALS, VAL_OFF, VAL_SIZE);
}

static unsigned char *make_region(void)
{
	unsigned char *mem;

	mem = mmap(NULL, REGION_LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die("mmap", errno);
	fill_region(mem);
	return mem;
}

static void report(const char *stack, const char *op, unsigned int bytes,
		   double *v, long n)
{
	struct pu_lat_summary s = pu_lat_summarize(v, (size_t)n);

	printf("RESULT %s %s %u %ld %.2f %.2f %.2f %.2f %.2f %.2f\n", stack, op,
	       bytes, n, s.median, s.p99, s.mean, s.min, s.max,
	       pu_pct_sorted(v, (size_t)n, 90));
	fflush(stdout);
}

/* ---------------------------------------------------------------- PRISM */

static int prism_server(int argc, char **argv)
{
	return serve_region(argc, argv, REGION_LEN, PRISM_ACCESS_ALL,
			    fill_region);
}

struct pctx {
	int fd;
	union prism_sockaddr dst;
	__u64 rkey, base, seq, cas_cur;
};

static const struct prism_msg *pexec(struct pctx *p, struct prism_chain_buf *c,
				     unsigned char *out, size_t out_len,
				     const char *what)
{
	return execute_or_die(p->fd, &p->dst.eth, c, out, out_len, what);
}

/* One timed PRISM operation; op: 0 read8 1 read512 2 write8 3 write512
 * 4 cas8 5 dep2read512 6 indread512 */
static double prism_op(void *ctx, int op, long it)
{
	_Alignas(8) unsigned char cb[1024], out[2048], data[VAL_SIZE];
	struct pctx *p = ctx;
	const struct prism_msg *m;
	struct prism_chain_buf c;
	unsigned int k = (unsigned int)(it % NVALS);
	__u64 slot = p->base + 8ull * k, ptr, old;
	double t0, t;

	memset(data, (int)(it & 0xff), sizeof(data));
	t0 = pu_now_us();
	prism_chain_init(&c, cb, sizeof(cb), ++p->seq);
	switch (op) {
	case 0:
		prism_prep_read(&c, p->rkey, slot, 8);
		m = pexec(p, &c, out, sizeof(out), "READ 8");
		t = pu_now_us() - t0;
		if (prism_msg_u64(m, 0, &ptr) ||
		    ptr != p->base + VAL_OFF + k * VAL_SIZE)
			die("READ 8 returned wrong bytes", EIO);
		return t;
	case 1:
		prism_prep_read(&c, p->rkey, p->base + VAL_OFF + k * VAL_SIZE, VAL_SIZE);
		m = pexec(p, &c, out, sizeof(out), "READ 512");
		t = pu_now_us() - t0;
		check_msg_value(m, k, VAL_SIZE, "READ 512 returned wrong bytes");
		return t;
	case 2:
	case 3:
		prism_prep_write(&c, p->rkey, p->base + WRITE_OFF, data,
				 op == 2 ? 8 : VAL_SIZE);
		pexec(p, &c, out, sizeof(out), "WRITE");
		return pu_now_us() - t0;
	case 4:
		prism_prep_cas_u64(&c, p->rkey, p->base + CAS_OFF, PRISM_CAS_EQ,
				   p->cas_cur, p->cas_cur + 1);
		m = pexec(p, &c, out, sizeof(out), "CAS");
		t = pu_now_us() - t0;
		if (prism_msg_u64(m, 0, &old) || old != p->cas_cur)
			die("CAS returned a wrong old value", EIO);
		p->cas_cur++;
		return t;
	case 5:
		prism_prep_read(&c, p->rkey, slot, 8);
		m = pexec(p, &c, out, sizeof(out), "pointer READ");
		if (prism_msg_u64(m, 0, &ptr))
			die("pointer READ", EIO);
		prism_chain_init(&c, cb, sizeof(cb), ++p->seq);
		prism_prep_read(&c, p->rkey, ptr, VAL_SIZE);
		m = pexec(p, &c, out, sizeof(out), "value READ");
		t = pu_now_us() - t0;
		check_msg_value(m, k, VAL_SIZE, "value READ returned wrong bytes");
		return t;
	default:
		prism_prep_read_indirect(&c, p->rkey, slot, VAL_SIZE);
		m = pexec(p, &c, out, sizeof(out), "indirect READ");
		t = pu_now_us() - t0;
		check_msg_value(m, k, VAL_SIZE, "indirect READ returned wrong bytes");
		return t;
	}
}

static const char *const op_name[] = { "read", "read", "write", "write", "cas",
				       "dep2read", "indread" };
static const unsigned int op_bytes[] = { 8, VAL_SIZE, 8, VAL_SIZE, 8, VAL_SIZE,
					 VAL_SIZE };

/* Open a PRISM socket on IF and aim it at the server described by INFO. */
static void prism_connect(struct pctx *p, const char *ifname, const char *info)
{
	struct timeval tv = { .tv_sec = 5 };
	struct server_info si = read_server(info, &p->dst);

	p->rkey = si.rkey;
	p->base = si.base;
	p->fd = prism_open_spec(ifname, 0);
	if (p->fd < 0)
		die("prism_open", p->fd);
	setsockopt(p->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* Room for the n timed samples of a series. */
static double *samples(long n)
{
	double *v = calloc((size_t)n, sizeof(double));

	if (!v)
		die("calloc", ENOMEM);
	return v;
}

/* One timed operation op (iteration it) of one stack. */
typedef double op_fn(void *ctx, int op, long it);

/*
 * Ops 0..nops-1 of one stack one after the other: each w warm-up times,
 * then n timed times, and its RESULT line.
 */
static void run_ops(const char *stack, op_fn *fn, void *ctx, int nops, long n,
		    long w)
{
	double *v = samples(n);
	long it;
	int op;

	for (op = 0; op < nops; op++) {
		for (it = 0; it < w + n; it++) {
			double t = fn(ctx, op, it);

			if (it >= w)
				v[it - w] = t;
		}
		report(stack, op_name[op], op_bytes[op], v, n);
	}
}

static int prism_client(int argc, char **argv)
{
	struct pctx p = { 0 };

	if (argc < 5)
		die("usage: prism-client IF INFO N WARMUP [STACK]", EINVAL);
	prism_connect(&p, argv[1], argv[2]);
	run_ops(argc > 5 ? argv[5] : "prism", prism_op, &p, 7,
		strtol(argv[3], NULL, 0), strtol(argv[4], NULL, 0));
	return 0;
}

/* ---------------------------------------------------------------- verbs */

struct vctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	unsigned char *mem;
	union ibv_gid gid;
	int gidx;
	__u64 raddr, cas_cur;
	__u32 rkey;
};

static void verbs_setup(struct vctx *v, const char *dev, int gidx)
{
	struct ibv_qp_init_attr qa = { 0 };
	struct ibv_qp_attr a = { 0 };
	struct ibv_device **l;
	int i, num;

	l = ibv_get_device_list(&num);
	if (!l)
		die("ibv_get_device_list", errno);
	for (i = 0; i < num; i++)
		if (!strcmp(ibv_get_device_name(l[i]), dev))
			break;
	if (i == num)
		die(dev, ENODEV);
	v->ctx = ibv_open_device(l[i]);
	if (!v->ctx)
		die("ibv_open_device", errno);
	ibv_free_device_list(l);
	v->gidx = gidx;
	if (ibv_query_gid(v->ctx, 1, gidx, &v->gid))
		die("ibv_query_gid", errno);
	v->pd = ibv_alloc_pd(v->ctx);
	v->cq = ibv_create_cq(v->ctx, 16, NULL, NULL, 0);
	if (!v->pd || !v->cq)
		die("pd/cq", errno);
	v->mem = make_region();
	v->mr = ibv_reg_mr(v->pd, v->mem, REGION_LEN,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	if (!v->mr)
		die("ibv_reg_mr", errno);
	qa.send_cq = v->cq;
	qa.recv_cq = v->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 16;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	v->qp = ibv_create_qp(v->pd, &qa);
	if (!v->qp)
		die("ibv_create_qp", errno);
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(v->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify INIT", errno);
}

static void verbs_write_info(struct vctx *v, const char *path)
{
	char text[512];
	int i, o;

	o = snprintf(text, sizeof(text), "qpn %u\npsn %u\nrkey %u\naddr 0x%llx\ngid ",
		     v->qp->qp_num, 4242u, v->mr->rkey,
		     (unsigned long long)(uintptr_t)v->mem);
	for (i = 0; i < 16; i++)
		o += snprintf(text + o, sizeof(text) - (size_t)o, "%02x", v->gid.raw[i]);
	snprintf(text + o, sizeof(text) - (size_t)o, "\n");
	if (pu_write_atomic(path, text))
		die(path, errno);
}

/* Read the peer's info and take the QP to RTR and RTS. */
static void verbs_connect(struct vctx *v, const char *peer)
{
	struct ibv_qp_attr a = { 0 };
	char key[64], val[128];
	unsigned int qpn = 0, psn = 0, x;
	int i;
	FILE *f;

	wait_file(peer);
	f = fopen(peer, "r");
	if (!f)
		die(peer, errno);
	while (fscanf(f, "%63s %127s", key, val) == 2) {
		if (!strcmp(key, "qpn"))
			qpn = (unsigned int)strtoul(val, NULL, 0);
		else if (!strcmp(key, "psn"))
			psn = (unsigned int)strtoul(val, NULL, 0);
		else if (!strcmp(key, "rkey"))
			v->rkey = (__u32)strtoul(val, NULL, 0);
		else if (!strcmp(key, "addr"))
			v->raddr = strtoull(val, NULL, 0);
		else if (!strcmp(key, "gid"))
			for (i = 0; i < 16; i++) {
				sscanf(val + 2 * i, "%2x", &x);
				a.ah_attr.grh.dgid.raw[i] = (uint8_t)x;
			}
	}
	fclose(f);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qpn;
	a.rq_psn = psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.sgid_index = (uint8_t)v->gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(v->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify RTR", errno);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 4242;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(v->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify RTS", errno);
}

/* Post one signaled work request and busy-poll for its completion. */
static void verbs_do(struct vctx *v, enum ibv_wr_opcode opc, unsigned int loff,
		     __u32 len, __u64 raddr, __u64 cmp, __u64 swap)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(v->mem + loff), .length = len, .lkey = v->mr->lkey,
	};
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_wc wc;
	int r;

	wr.opcode = opc;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (opc == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = v->rkey;
		wr.wr.atomic.compare_add = cmp;
		wr.wr.atomic.swap = swap;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = v->rkey;
	}
	if (ibv_post_send(v->qp, &wr, &bad))
		die("ibv_post_send", errno);
	while ((r = ibv_poll_cq(v->cq, 1, &wc)) == 0)
		;
	if (r < 0 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "rxe_lat: completion: %s\n",
			r < 0 ? "poll error" : ibv_wc_status_str(wc.status));
		exit(1);
	}
}

/* Local buffer layout on the client: reads land at 0 (8 B) / VAL_OFF. */
static double verbs_op(void *ctx, int op, long it)
{
	struct vctx *v = ctx;
	unsigned int k = (unsigned int)(it % NVALS);
	__u64 slot = v->raddr + 8ull * k, ptr;
	double t0, t;

	memset(v->mem + WRITE_OFF, (int)(it & 0xff), VAL_SIZE);
	t0 = pu_now_us();
	switch (op) {
	case 0:
		verbs_do(v, IBV_WR_RDMA_READ, 0, 8, slot, 0, 0);
		t = pu_now_us() - t0;
		if (prism_get_le64(v->mem) != v->raddr + VAL_OFF + k * VAL_SIZE)
			die("READ 8 returned wrong bytes", EIO);
		return t;
	case 1:
		verbs_do(v, IBV_WR_RDMA_READ, VAL_OFF, VAL_SIZE,
			 v->raddr + VAL_OFF + k * VAL_SIZE, 0, 0);
		t = pu_now_us() - t0;
		if (check_value(v->mem + VAL_OFF, VAL_SIZE, k, VAL_SIZE))
			die("READ 512 returned wrong bytes", EIO);
		return t;
	case 2:
	case 3:
		verbs_do(v, IBV_WR_RDMA_WRITE, WRITE_OFF, op == 2 ? 8 : VAL_SIZE,
			 v->raddr + WRITE_OFF, 0, 0);
		return pu_now_us() - t0;
	case 4:
		verbs_do(v, IBV_WR_ATOMIC_CMP_AND_SWP, CAS_OFF, 8,
			 v->raddr + CAS_OFF, v->cas_cur, v->cas_cur + 1);
		t = pu_now_us() - t0;
		/* the atomic returns the old value (host byte order) */
		if (*(__u64 *)(v->mem + CAS_OFF) != v->cas_cur)
			die("CAS returned a wrong old value", EIO);
		v->cas_cur++;
		return t;
	default:
		verbs_do(v, IBV_WR_RDMA_READ, 0, 8, slot, 0, 0);
		ptr = prism_get_le64(v->mem);
		verbs_do(v, IBV_WR_RDMA_READ, VAL_OFF, VAL_SIZE, ptr, 0, 0);
		t = pu_now_us() - t0;
		if (check_value(v->mem + VAL_OFF, VAL_SIZE, k, VAL_SIZE))
			die("dependent READ returned wrong bytes", EIO);
		return t;
	}
}

/*
 * "DEV GIDX INFO PEER" of the verbs commands (arg[0..3]): the QP on DEV
 * with GID index GIDX, its info written to INFO, connected to the one
 * described in PEER.
 */
static void verbs_start(struct vctx *v, char **arg)
{
	verbs_setup(v, arg[0], atoi(arg[1]));
	verbs_write_info(v, arg[2]);
	verbs_connect(v, arg[3]);
}

static int verbs_server(int argc, char **argv)
{
	struct vctx v = { 0 };

	if (argc < 6)
		die("usage: verbs-server DEV GIDX INFO PEER READY", EINVAL);
	verbs_start(&v, argv + 1);
	if (pu_write_atomic(argv[5], "ready\n"))
		die(argv[5], errno);
	for (;;)
		pause();
	return 0;
}

static int verbs_client(int argc, char **argv)
{
	struct vctx v = { 0 };

	if (argc < 8)
		die("usage: verbs-client DEV GIDX INFO PEER READY N WARMUP", EINVAL);
	verbs_start(&v, argv + 1);
	wait_file(argv[5]);
	run_ops("verbs", verbs_op, &v, 6, strtol(argv[6], NULL, 0),
		strtol(argv[7], NULL, 0));
	return 0;
}

/* ---------------------------------------------------------------- TSC */

/*
 * perftest times with the TSC and converts with a "cpu MHz" it derives
 * itself; in the TCG guest that derivation fails (see rxe.sh), so rxe.sh
 * asks perftest for raw cycles (-C) and converts them with this number,
 * measured against CLOCK_MONOTONIC on the same (pinned) CPU: the median of
 * 9 windows of 50 ms.
 */
#if defined(__x86_64__) || defined(__i386__)
static __u64 tsc(void)
{
	unsigned int lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((__u64)hi << 32) | lo;
}
#endif

static int tsc_mhz(int argc, char **argv)
{
	(void)argc;
	(void)argv;
#if defined(__x86_64__) || defined(__i386__)
	double r[9], t0, t1;
	__u64 c0, c1;
	int i;

	for (i = 0; i < 9; i++) {
		t0 = pu_now_us();
		c0 = tsc();
		do
			t1 = pu_now_us();
		while (t1 - t0 < 50000);
		c1 = tsc();
		r[i] = (double)(c1 - c0) / (t1 - t0);
	}
	qsort(r, 9, sizeof(double), pu_cmp_double);
	printf("%.3f %.3f %.3f\n", r[4], r[0], r[8]);
	return 0;
#else
	fprintf(stderr, "rxe_lat: tsc-mhz: x86 only\n");
	return 1;
#endif
}

/*
 * Both stacks from one process, interleaved operation by operation (the
 * order rotates every iteration), so that whatever the host does to the
 * guest while an op type is measured hits PRISM and rxe alike.  The
 * dependent-read row runs three series side by side: rxe's two dependent
 * READs, PRISM's two dependent READs and PRISM's one READ|INDIRECT, so
 * that the indirect READ pays the same interleaving cost as the others.
 */
static int pair_client(int argc, char **argv)
{
	struct vctx v = { 0 };
	struct pctx p = { 0 };
	double *t[3], d;
	long n, w, it;
	int op, j, k, which;

	if (argc < 10)
		die("usage: pair-client IF PINFO DEV GIDX VINFO VPEER VREADY N WARMUP",
		    EINVAL);
	n = strtol(argv[8], NULL, 0);
	w = strtol(argv[9], NULL, 0);
	prism_connect(&p, argv[1], argv[2]);
	verbs_start(&v, argv + 3);
	wait_file(argv[7]);
	for (j = 0; j < 3; j++)
		t[j] = samples(n);
	for (op = 0; op < 6; op++) {
		k = op == 5 ? 3 : 2;
		for (it = 0; it < w + n; it++) {
			for (j = 0; j < k; j++) {
				/* 0: verbs op, 1: PRISM op, 2: PRISM indirect READ */
				which = (int)((it + j) % k);
				if (which == 0)
					d = verbs_op(&v, op, it);
				else
					d = prism_op(&p, which == 1 ? op : 6, it);
				if (it >= w)
					t[which][it - w] = d;
			}
		}
		report("verbs", op_name[op], op_bytes[op], t[0], n);
		report("prism", op_name[op], op_bytes[op], t[1], n);
		if (op == 5)
			report("prism", op_name[6], op_bytes[6], t[2], n);
	}
	return 0;
}

/* ---------------------------------------------------------------- busy */

#if defined(__x86_64__) || defined(__i386__)
#define BUSY_SERIES	4

static const char *const busy_name[BUSY_SERIES] = {
	"block", "spin", "ring", "ringspin",
};

struct bctx {
	struct pctx p;			/* prism_execute() socket */
	int rfd;			/* the ring's socket */
	struct prism_ring r;
	unsigned int spin_us;
	__u64 seq;
};

static long nvcsw(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		die("getrusage", errno);
	return ru.ru_nvcsw;
}

/* One READ 8 of slot k by series s; checks the pointer it returns. */
static void busy_op(struct bctx *b, int s, unsigned int k)
{
	_Alignas(8) unsigned char cb[256], out[512];
	struct prism_ring_cqe ev[2];
	const struct prism_msg *m = (const void *)out;
	struct prism_chain_buf c;
	ssize_t got;
	__u64 ptr;
	int n;

	prism_chain_init(&c, cb, sizeof(cb), ++b->seq);
	prism_prep_read(&c, b->p.rkey, b->p.base + 8ull * k, 8);
	if (s < 2) {
		got = prism_execute_spin(b->p.fd, &b->p.dst.eth, &c, out, sizeof(out),
					 s ? b->spin_us : 0);
		if (got < 0)
			die("READ 8", (int)got);
	} else {
		prism_ring_busy_poll(&b->r, s == 3 ? b->spin_us : 0);
		if (prism_ring_queue(&b->r, &b->p.dst.eth, &c))
			die("prism_ring_queue", EIO);
		n = prism_ring_reap(&b->r, ev, 2, 1, 5000);
		if (n != 1 || ev[0].res || !ev[0].msg || ev[0].user_data != b->seq)
			die("ring READ 8", n < 0 ? n : EIO);
		m = ev[0].msg;
	}
	if (m->status != PRISM_S_OK || prism_msg_u64(m, 0, &ptr) ||
	    ptr != b->p.base + VAL_OFF + k * VAL_SIZE)
		die("READ 8 returned wrong bytes", EIO);
}

static int busy_client(int argc, char **argv)
{
	struct bctx b = { 0 };
	double *t[BUSY_SERIES], mhz;
	long n, w, it, csw[BUSY_SERIES] = { 0 }, c0;
	unsigned int bp;
	char name[64];
	int s, j, err, napi = -1;
	socklen_t l = sizeof(napi);
	__u64 t0;

	if (argc < 9)
		die("usage: busy-client IF PINFO N WARMUP MHZ SPIN_US BUSY_POLL_US SUFFIX",
		    EINVAL);
	n = strtol(argv[3], NULL, 0);
	w = strtol(argv[4], NULL, 0);
	mhz = strtod(argv[5], NULL);
	b.spin_us = (unsigned int)strtoul(argv[6], NULL, 0);
	bp = (unsigned int)strtoul(argv[7], NULL, 0);
	if (mhz <= 0 || n <= 0)
		die("busy-client: MHZ and N must be positive", EINVAL);
	prism_connect(&b.p, argv[1], argv[2]);
	b.rfd = prism_open(argv[1], 0, 0);
	if (b.rfd < 0)
		die("prism_open", b.rfd);
	if (bp) {
		err = prism_busy_poll(b.p.fd, bp);
		if (!err)
			err = prism_busy_poll(b.rfd, bp);
		if (err)
			die("SO_BUSY_POLL", err);
	}
	err = prism_ring_init(&b.r, b.rfd, 8, 0, 0, 0);
	if (err)
		die("prism_ring_init", err);
	for (s = 0; s < BUSY_SERIES; s++)
		t[s] = samples(n);
	for (it = 0; it < w + n; it++) {
		for (j = 0; j < BUSY_SERIES; j++) {
			s = (int)((it + j) % BUSY_SERIES);
			c0 = nvcsw();
			t0 = tsc();
			busy_op(&b, s, (unsigned int)(it % NVALS));
			if (it >= w) {
				t[s][it - w] = (double)(tsc() - t0) / mhz;
				csw[s] += nvcsw() - c0;
			}
		}
	}
	for (s = 0; s < BUSY_SERIES; s++) {
		snprintf(name, sizeof(name), "prism-%s%s", busy_name[s], argv[8]);
		report(name, "read", 8, t[s], n);
		printf("CSW %s %.3f\n", name, (double)csw[s] / (double)n);
	}
	if (getsockopt(b.p.fd, SOL_SOCKET, SO_INCOMING_NAPI_ID, &napi, &l))
		napi = -errno;
	printf("NAPI%s id %d (SO_BUSY_POLL %u us, spin %u us)\n", argv[8], napi,
	       bp, b.spin_us);
	prism_ring_exit(&b.r);
	return 0;
}

/* Legacy ethtool command cmd with value v on interface ifname. */
static void ethtool_set(int fd, const char *ifname, __u32 cmd, __u32 v)
{
	struct ethtool_value ev = { .cmd = cmd, .data = v };
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&ev;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		die(ifname, errno);
}

static int veth_napi(int argc, char **argv)
{
	int fd, on;

	if (argc < 3)
		die("usage: veth-napi IF on|off", EINVAL);
	on = !strcmp(argv[2], "on");
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket", errno);
	ethtool_set(fd, argv[1], ETHTOOL_STSO, !on);
	ethtool_set(fd, argv[1], ETHTOOL_SGRO, on);
	close(fd);
	return 0;
}
#else
static int busy_client(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rxe_lat: busy-client: x86 only (TSC)\n");
	return 1;
}

static int veth_napi(int argc, char **argv)
{
	return busy_client(argc, argv);
}
#endif

int main(int argc, char **argv)
{
	static const struct subcommand cmds[] = {
		{ "prism-server", prism_server },
		{ "prism-client", prism_client },
		{ "verbs-server", verbs_server },
		{ "verbs-client", verbs_client },
		{ "pair-client", pair_client },
		{ "busy-client", busy_client },
		{ "veth-napi", veth_napi },
		{ "tsc-mhz", tsc_mhz },
	};

	return run_subcommand(argc, argv, cmds, sizeof(cmds) / sizeof(cmds[0]));
}
