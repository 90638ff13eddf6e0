// SPDX-License-Identifier: GPL-2.0
/*
 * Legitimate client of the hostile tests.  Prints "key=value" results;
 * exits 0 only if every chain of the mode succeeded as expected.
 *
 * Usage: hz_client IFNAME MODE [ARGS...] ADDRLINE...
 *   cas K [GOFILE]   K CAS increments of the counter, one at a time (each
 *                    must complete OK); latency percentiles.  With GOFILE:
 *                    then wait for it and do K more; then read the counter
 *   read N OFF LEN   N READs of LEN known bytes at region offset OFF
 *   readctr N        N READs of the counter word: status counts
 *   probe            authentication cases (rkey 0, a wrong rkey next to a
 *                    valid one, SEND with rkey 0, an unbound endpoint)
 *   budget NOPS DST [LEN]  one chain of NOPS READ|REDIRECT ops, each copying
 *                    the LEN bytes (64 KiB) at HZ_SRC_OFF to region offset
 *                    DST
 *   check OFF        region offset OFF (64 KiB): zero, copied (the source
 *                    bytes) or mixed
 *   zero             bounded READs through {ptr = region end, bound 0}
 *   noep N           N READs (valid rkey) to an unbound endpoint (ep + 1000)
 * ADDRLINE: hz_server's output.  Env HZ_TIMEOUT_MS: chain deadline (5000).
 */
#define _GNU_SOURCE
#include <sys/socket.h>

#include "hz.h"

#define MSG_MAX		(80u << 10)

static int fd, timeout_ms = 5000;
static struct hz_target t;
static uint64_t next_ud = 1;
static _Alignas(8) unsigned char chainbuf[4096];
static _Alignas(8) unsigned char msgbuf[MSG_MAX];

static const char *st_name(int st)
{
	return st < 0 ? hz_err(st) : prism_status_str(st);
}

/*
 * Submit c and wait for its completion (bounded: a module that never
 * completes must not hang the test).  Returns the chain status, or -errno
 * when sendmsg failed; *m the completion, *lat_us the latency.
 */
static int run(struct prism_chain_buf *c, const struct prism_msg **m,
	       int64_t *lat_us)
{
	uint64_t ud = next_ud++;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int64_t t0 = now_us(), end = now_ms() + timeout_ms + 10000;
	ssize_t n;
	int err;

	prism_chain_set_user_data(c, ud);
	prism_chain_set_timeout(c, (uint32_t)timeout_ms);
	err = prism_submit(fd, &t.sa, c);
	if (err)
		return err;
	for (;;) {
		int64_t left = end - now_ms();

		if (left <= 0 || poll(&p, 1, (int)left) != 1) {
			printf("hang=1 user_data=%llu\n", (unsigned long long)ud);
			fflush(stdout);
			exit(3);
		}
		n = prism_wait_from(fd, msgbuf, sizeof(msgbuf), NULL,
				    MSG_DONTWAIT);
		if (n == -EAGAIN)
			continue;
		if (n < 0)
			return (int)n;
		*m = (const struct prism_msg *)msgbuf;
		if (prism_msg_is_completion(*m) && (*m)->user_data == ud)
			break;
		printf("stray=1 kind=%u user_data=%llu\n", (*m)->kind,
		       (unsigned long long)(*m)->user_data);
	}
	if (lat_us)
		*lat_us = now_us() - t0;
	return (*m)->status;
}

static int cas_phase(const char *name, unsigned long k, uint64_t *cur)
{
	int64_t *lat = calloc(k ? k : 1, sizeof(*lat));
	unsigned long i, done = 0, failed = 0;
	const struct prism_msg *m;
	struct prism_chain_buf c;
	__u64 old;
	int64_t t0 = now_ms();
	int st, op;

	for (i = 0; i < k; i++) {
		prism_chain_init(&c, chainbuf, sizeof(chainbuf), 0);
		prism_prep_cas_u64(&c, t.rkey, t.addr + HZ_COUNTER_OFF,
				   PRISM_CAS_EQ, *cur, *cur + 1);
		st = run(&c, &m, &lat[done]);
		op = st == PRISM_S_OK ? prism_msg_op_status(m, 0) : -1;
		if (st == PRISM_S_OK && op == PRISM_S_OK) {
			(*cur)++;
			done++;
			continue;
		}
		if (failed++ < 5)
			printf("%s_error=%lu chain=%s op=%d\n", name, i,
			       st_name(st), op);
		/* A failed comparison tells the value: go on from it. */
		if (st == PRISM_S_OK && op == PRISM_S_CMP_FAILED &&
		    !prism_msg_u64(m, 0, &old))
			*cur = old;
	}
	printf("%s done=%lu failed=%lu median_us=%lld p90_us=%lld max_us=%lld t0=%lld t1=%lld\n",
	       name, done, failed, (long long)hz_percentile(lat, done, 50),
	       (long long)hz_percentile(lat, done, 90),
	       (long long)hz_percentile(lat, done, 100), (long long)t0,
	       (long long)now_ms());
	fflush(stdout);
	free(lat);
	return failed ? 1 : 0;
}

/* READ len bytes at region offset off into out; chain status or -errno. */
static int read_at(uint64_t rkey, uint64_t addr, uint32_t len, void *out,
		   int *op_st)
{
	const struct prism_msg *m;
	struct prism_chain_buf c;
	const void *d;
	uint32_t dlen;
	int st;

	prism_chain_init(&c, chainbuf, sizeof(chainbuf), 0);
	prism_prep_read(&c, rkey, addr, len);
	st = run(&c, &m, NULL);
	*op_st = st == PRISM_S_OK ? prism_msg_op_status(m, 0) : -1;
	if (st == PRISM_S_OK && *op_st == PRISM_S_OK) {
		d = prism_msg_data(m, 0, &dlen);
		if (!d || dlen != len)
			return -EPROTO;
		memcpy(out, d, len);
	}
	return st;
}

static int do_cas(unsigned long k, const char *go)
{
	uint64_t cur = 0, val;
	uint8_t buf[8];
	int bad, st, op;

	bad = cas_phase("phase1", k, &cur);
	if (!go)
		return bad;
	printf("waiting=1\n");
	fflush(stdout);
	if (hz_wait_file(go, 600000)) {
		printf("go_timeout=1\n");
		return 1;
	}
	bad |= cas_phase("phase2", k, &cur);
	st = read_at(t.rkey, t.addr + HZ_COUNTER_OFF, 8, buf, &op);
	val = prism_get_le64(buf);
	if (st == PRISM_S_OK && op == PRISM_S_OK)
		printf("counter=%llu\n", (unsigned long long)val);
	else
		printf("counter_read=%s/%d\n", st_name(st), op);
	return bad;
}

static int do_read(unsigned long n, uint32_t off, uint32_t len)
{
	unsigned long i, ok = 0, bad_data = 0, noep = 0, other = 0;
	uint8_t buf[2048];
	uint32_t j;
	int st, op;

	if (len > sizeof(buf))
		return 2;
	for (i = 0; i < n; i++) {
		st = read_at(t.rkey, t.addr + off, len, buf, &op);
		if (st == PRISM_S_NO_ENDPOINT) {
			noep++;
		} else if (st != PRISM_S_OK || op != PRISM_S_OK) {
			if (other++ < 5)
				printf("read_error=%lu chain=%s op=%d\n", i,
				       st_name(st), op);
		} else {
			for (j = 0; j < len; j++)
				if (buf[j] != hz_byte(off + j))
					break;
			if (j < len) {
				if (bad_data++ < 5)
					printf("bad_data=%lu at=%u\n", i, j);
			} else {
				ok++;
			}
		}
	}
	printf("reads=%lu ok=%lu bad_data=%lu no_endpoint=%lu other=%lu\n",
	       n, ok, bad_data, noep, other);
	return ok == n ? 0 : 1;
}

static int do_readctr(unsigned long n)
{
	unsigned long i, ok = 0, nack = 0, other = 0;
	uint64_t first = 0, v;
	int same = 1, st, op;
	uint8_t buf[8];

	for (i = 0; i < n; i++) {
		st = read_at(t.rkey, t.addr + HZ_COUNTER_OFF, 8, buf, &op);
		if (st == PRISM_S_OK && op == PRISM_S_OK) {
			v = prism_get_le64(buf);
			if (!ok++)
				first = v;
			same &= v == first;
		} else if (st == PRISM_S_NACK) {
			nack++;
		} else if (other++ < 5) {
			printf("read_error=%lu chain=%s op=%d\n", i,
			       st_name(st), op);
		}
	}
	printf("reads=%lu ok=%lu nack=%lu other=%lu value=%llu same=%d\n", n,
	       ok, nack, other, (unsigned long long)first, same);
	return ok == n ? 0 : 1;
}

/* One chain; prints "name=chain/op0[/op1]" statuses. */
static void probe_one(const char *name, struct prism_chain_buf *c,
		      unsigned int nops)
{
	const struct prism_msg *m;
	unsigned int i;
	int st = run(c, &m, NULL);

	printf("%s=%s", name, st_name(st));
	for (i = 0; st == PRISM_S_OK && i < nops; i++)
		printf("/%s", st_name(prism_msg_op_status(m, i)));
	printf("\n");
	fflush(stdout);
}

static int do_probe(void)
{
	struct prism_chain_buf c;
	uint64_t data = 0x1122334455667788ull;
	struct sockaddr_prism real = t.sa;

	prism_chain_init(&c, chainbuf, sizeof(chainbuf), 0);
	prism_prep_read(&c, 0, t.addr + HZ_KNOWN_OFF, 8);
	probe_one("noauth", &c, 1);

	prism_chain_init(&c, chainbuf, sizeof(chainbuf), 0);
	prism_prep_read(&c, t.rkey, t.addr + HZ_KNOWN_OFF, 8);
	prism_prep_read(&c, t.rkey ^ 0x5a5a, t.addr + HZ_KNOWN_OFF, 8);
	probe_one("mixed", &c, 2);

	prism_chain_init(&c, chainbuf, sizeof(chainbuf), 0);
	prism_prep_send(&c, &data, sizeof(data));
	probe_one("send", &c, 1);

	prism_chain_init(&c, chainbuf, sizeof(chainbuf), 0);
	prism_prep_read(&c, t.rkey, t.addr + HZ_KNOWN_OFF, 8);
	t.sa.sprism_ep = t.ep + 1000;
	probe_one("noep", &c, 1);
	t.sa = real;
	return 0;
}

static int do_noep(unsigned long n)
{
	unsigned long i, noep = 0, other = 0;
	uint8_t buf[8];
	int st, op;

	t.sa.sprism_ep = t.ep + 1000;
	for (i = 0; i < n; i++) {
		st = read_at(t.rkey, t.addr + HZ_KNOWN_OFF, 8, buf, &op);
		if (st == PRISM_S_NO_ENDPOINT)
			noep++;
		else if (other++ < 5)
			printf("noep_error=%lu chain=%s\n", i, st_name(st));
	}
	printf("noep=%lu no_endpoint=%lu other=%lu\n", n, noep, other);
	return 0;
}

static int do_budget(unsigned int nops, uint32_t dst, uint32_t len)
{
	const struct prism_msg *m;
	struct prism_chain_buf c;
	struct prism_op *op;
	unsigned int i;
	int st;

	prism_chain_init(&c, chainbuf, sizeof(chainbuf), 0);
	for (i = 0; i < nops; i++) {
		op = prism_prep_read(&c, t.rkey, t.addr + HZ_SRC_OFF,
				     len);
		prism_op_set_redirect(&c, op, t.addr + dst);
	}
	if (prism_chain_error(&c)) {
		printf("build=%s\n", hz_err(prism_chain_error(&c)));
		return 2;
	}
	st = run(&c, &m, NULL);
	if (st < 0) {
		printf("submit=%s\n", hz_err(st));
		return 0;
	}
	printf("submit=OK status=%s op0=%s\n", st_name(st),
	       st == PRISM_S_OK ? st_name(prism_msg_op_status(m, 0)) : "-");
	return 0;
}

static int do_check(uint32_t off)
{
	static const uint32_t at[] = { 0, HZ_COPY_LEN / 2,
				       HZ_COPY_LEN - 1024 };
	int zero = 1, copied = 1, st, op;
	uint8_t buf[1024];
	unsigned int i, j;

	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		st = read_at(t.rkey, t.addr + off + at[i], sizeof(buf), buf,
			     &op);
		if (st != PRISM_S_OK || op != PRISM_S_OK) {
			printf("state=error chain=%s op=%d\n", st_name(st), op);
			return 1;
		}
		for (j = 0; j < sizeof(buf); j++) {
			zero &= !buf[j];
			copied &= buf[j] == hz_byte(HZ_SRC_OFF + at[i] + j);
		}
	}
	printf("state=%s\n", zero ? "zero" : copied ? "copied" : "mixed");
	return 0;
}

static void zero_one(const char *name, uint64_t rkey, uint64_t slot)
{
	const struct prism_msg *m;
	struct prism_chain_buf c;
	const struct prism_op_result *r;
	int st;

	prism_chain_init(&c, chainbuf, sizeof(chainbuf), 0);
	prism_prep_read_bounded(&c, rkey, slot, 8);
	st = run(&c, &m, NULL);
	r = st == PRISM_S_OK ? prism_msg_result(m, 0) : NULL;
	printf("%s=%s/%s/%u\n", name, st_name(st),
	       r ? st_name(r->status) : "-", r ? r->len : 0);
}

static int do_zero(void)
{
	zero_one("bounded_end", t.rkey, t.addr + HZ_SLOT_OFF);
	zero_one("bounded_end2", t.rkey2, t.addr2);
	return 0;
}

int main(int argc, char **argv)
{
	char *pos[4] = { NULL };
	const char *mode, *e;
	int npos = 0;

	if (hz_mode_args(argc, argv, pos, &npos, &t))
		return 2;
	mode = argv[2];
	e = getenv("HZ_TIMEOUT_MS");
	if (e)
		timeout_ms = atoi(e);
	fd = prism_open(argv[1], 0, 0);
	if (fd < 0) {
		printf("open=%s\n", hz_err(fd));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(mode, "cas") && npos >= 1)
		return do_cas(strtoul(pos[0], NULL, 0), npos > 1 ? pos[1] : NULL);
	if (!strcmp(mode, "read") && npos >= 3)
		return do_read(strtoul(pos[0], NULL, 0),
			       (uint32_t)strtoul(pos[1], NULL, 0),
			       (uint32_t)strtoul(pos[2], NULL, 0));
	if (!strcmp(mode, "readctr") && npos >= 1)
		return do_readctr(strtoul(pos[0], NULL, 0));
	if (!strcmp(mode, "probe"))
		return do_probe();
	if (!strcmp(mode, "budget") && npos >= 2)
		return do_budget((unsigned int)strtoul(pos[0], NULL, 0),
				 (uint32_t)strtoul(pos[1], NULL, 0),
				 npos > 2 ? (uint32_t)strtoul(pos[2], NULL, 0) :
					    HZ_COPY_LEN);
	if (!strcmp(mode, "check") && npos >= 1)
		return do_check((uint32_t)strtoul(pos[0], NULL, 0));
	if (!strcmp(mode, "zero"))
		return do_zero();
	if (!strcmp(mode, "noep") && npos >= 1)
		return do_noep(strtoul(pos[0], NULL, 0));
	fprintf(stderr, "unknown mode or missing arguments: %s\n", mode);
	return 2;
}
