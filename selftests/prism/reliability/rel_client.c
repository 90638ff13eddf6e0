// SPDX-License-Identifier: GPL-2.0
/*
 * Client for the reliability tests.  Modes:
 *   cas N        N increments of the counter by read-CAS loops
 *   alloc N W    N ALLOC chains, W in flight, each stamping (id, seq)
 *                into its buffer; checks every chain completes once
 *   verify C N   read every buffer back; each (client 1..C, seq 0..N-1)
 *                must be in exactly one buffer, and the counter
 *   counter      print the counter
 * Prints "key=value" results; exit 0 only if every check passed.
 *
 * Usage: rel_client IFNAME ID TIMEOUT_MS mac=.. ep=.. rkey=.. addr=..
 *                   fl=.. nbufs=.. MODE ARGS...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "liburing-prism.h"

#define BUF_OFF		4096u
#define BUF_SIZE	64u
#define STAMP_MAGIC	0x4d505453u	/* "STPM" */
#define MSG_MAX		4096

struct target {
	struct sockaddr_prism addr;
	__u64 rkey, base;
	__u32 fl, nbufs;
};

struct stamp {
	__u32 magic;
	__u32 client;
	__u64 seq;
};

static int fd, timeout_ms;
static _Alignas(8) unsigned char chainbuf[2048];
static _Alignas(8) unsigned char msgbuf[MSG_MAX];

static int parse_kv(const char *s, const char *key, const char **val)
{
	size_t n = strlen(key);

	if (strncmp(s, key, n) || s[n] != '=')
		return 0;
	*val = s + n + 1;
	return 1;
}

/* Wait for one completion; returns its status or -errno. */
static int wait_one(const struct prism_msg **out)
{
	ssize_t n = prism_wait(fd, msgbuf, sizeof(msgbuf));
	const struct prism_msg *m = (const struct prism_msg *)msgbuf;

	if (n < 0)
		return (int)n;
	if (!prism_msg_is_completion(m))
		return -EPROTO;
	*out = m;
	return m->status;
}

static int submit(const struct target *t, struct prism_chain_buf *c)
{
	prism_chain_set_timeout(c, (__u32)timeout_ms);
	return prism_submit(fd, &t->addr, c);
}

/* One CAS on the counter; *cur in: expected, out: value seen. */
static int cas_once(const struct target *t, __u64 *cur, int *swapped)
{
	struct prism_chain_buf c;
	const struct prism_msg *m;
	int st;

	prism_chain_init(&c, chainbuf, sizeof(chainbuf), 1);
	prism_prep_cas_u64(&c, t->rkey, t->base, PRISM_CAS_EQ, *cur, *cur + 1);
	st = submit(t, &c);
	if (st)
		return st;
	st = wait_one(&m);
	if (st < 0)
		return st;
	if (st != PRISM_S_OK) {
		fprintf(stderr, "cas: chain status %s\n", prism_status_str(st));
		return -EIO;
	}
	st = prism_msg_op_status(m, 0);
	if (st != PRISM_S_OK && st != PRISM_S_CMP_FAILED)
		return -EIO;
	if (prism_msg_u64(m, 0, cur))
		return -EPROTO;
	*swapped = st == PRISM_S_OK;
	return 0;
}

static int do_cas(const struct target *t, unsigned long n)
{
	unsigned long done = 0, conflicts = 0;
	__u64 cur = 0;
	int swapped, err;

	while (done < n) {
		err = cas_once(t, &cur, &swapped);
		if (err) {
			printf("cas_error=%d done=%lu\n", err, done);
			return 1;
		}
		if (swapped) {
			cur++;
			done++;
		} else {
			conflicts++;
		}
	}
	printf("cas_done=%lu conflicts=%lu\n", done, conflicts);
	return 0;
}

static int do_alloc(const struct target *t, __u32 id, unsigned long n,
		    unsigned long window)
{
	unsigned long sent = 0, completed = 0, failed = 0;
	unsigned char *seen = calloc(n, 1);
	struct prism_chain_buf c;
	const struct prism_msg *m;
	struct stamp s;
	__u64 addr;
	int st;

	if (!seen)
		return 1;
	while (completed < n) {
		while (sent < n && sent - completed < window) {
			s.magic = STAMP_MAGIC;
			s.client = id;
			s.seq = sent;
			prism_chain_init(&c, chainbuf, sizeof(chainbuf), sent + 1);
			prism_prep_alloc(&c, t->rkey, t->fl, &s, sizeof(s));
			st = submit(t, &c);
			if (st) {
				printf("submit_error=%d\n", st);
				return 1;
			}
			sent++;
		}
		st = wait_one(&m);
		if (st < 0) {
			printf("wait_error=%d\n", st);
			return 1;
		}
		if (!m->user_data || m->user_data > n || seen[m->user_data - 1]) {
			printf("bad_completion user_data=%llu\n",
			       (unsigned long long)m->user_data);
			return 1;
		}
		seen[m->user_data - 1] = 1;
		completed++;
		/*
		 * With REL_HOLD set (a FIFO), stop here until the test has
		 * done something (killed the target) and writes a byte.
		 */
		if (completed == 100 && getenv("REL_HOLD")) {
			FILE *hold;

			printf("progress=100\n");
			fflush(stdout);
			hold = fopen(getenv("REL_HOLD"), "r");
			if (!hold || fgetc(hold) == EOF)
				return 1;
			fclose(hold);
		}
		if (st != PRISM_S_OK || prism_msg_op_status(m, 0) != PRISM_S_OK ||
		    prism_msg_u64(m, 0, &addr) ||
		    addr < t->base + BUF_OFF ||
		    addr >= t->base + BUF_OFF + (__u64)t->nbufs * BUF_SIZE) {
			fprintf(stderr, "alloc %llu: %s/%s\n",
				(unsigned long long)m->user_data,
				prism_status_str(st),
				prism_status_str(prism_msg_op_status(m, 0)));
			failed++;
		}
	}
	printf("alloc_completed=%lu alloc_failed=%lu\n", completed, failed);
	free(seen);
	return failed != 0;
}

/* Read n bytes at addr into out, in chains of READs that fit a frame. */
static int read_range(const struct target *t, __u64 addr, unsigned char *out,
		      size_t n)
{
	struct prism_chain_buf c;
	const struct prism_msg *m;
	const void *p;
	__u32 len;
	size_t off = 0, chunk;
	int st;

	while (off < n) {
		chunk = n - off < 1024 ? n - off : 1024;
		prism_chain_init(&c, chainbuf, sizeof(chainbuf), 7);
		prism_prep_read(&c, t->rkey, addr + off, (__u32)chunk);
		st = submit(t, &c);
		if (st)
			return st;
		st = wait_one(&m);
		if (st != PRISM_S_OK || prism_msg_op_status(m, 0) != PRISM_S_OK)
			return -EIO;
		p = prism_msg_data(m, 0, &len);
		if (!p || len != chunk)
			return -EPROTO;
		memcpy(out + off, p, chunk);
		off += chunk;
	}
	return 0;
}

static int do_verify(const struct target *t, unsigned int clients,
		     unsigned long n)
{
	size_t bytes = (size_t)t->nbufs * BUF_SIZE;
	unsigned char *mem = malloc(bytes), *count;
	unsigned long stamped = 0, dup = 0, missing = 0, bogus = 0, i;
	struct stamp s;
	__u64 counter;
	int err;

	count = calloc((size_t)clients * n, 1);
	if (!mem || !count)
		return 1;
	err = read_range(t, t->base + BUF_OFF, mem, bytes);
	if (!err)
		err = read_range(t, t->base, (unsigned char *)&counter, 8);
	if (err) {
		printf("verify_read_error=%d\n", err);
		return 1;
	}
	for (i = 0; i < t->nbufs; i++) {
		memcpy(&s, mem + i * BUF_SIZE, sizeof(s));
		if (!s.magic)
			continue;
		if (s.magic != STAMP_MAGIC || !s.client || s.client > clients ||
		    s.seq >= n) {
			bogus++;
			continue;
		}
		stamped++;
		if (count[(s.client - 1) * n + s.seq]++)
			dup++;
	}
	for (i = 0; i < (unsigned long)clients * n; i++)
		missing += !count[i];
	printf("stamped=%lu duplicates=%lu missing=%lu bogus=%lu counter=%llu\n",
	       stamped, dup, missing, bogus, (unsigned long long)counter);
	return dup || missing || bogus;
}

int main(int argc, char **argv)
{
	struct target t = { 0 };
	const char *v, *mode = NULL;
	__u8 mac[6] = { 0 };
	__u32 ep = 0, id;
	int i, argi = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: %s IFNAME ID TIMEOUT_MS mac=.. ep=.. rkey=.. addr=.. fl=.. nbufs=.. MODE ARGS\n",
			argv[0]);
		return 2;
	}
	id = (__u32)strtoul(argv[2], NULL, 0);
	timeout_ms = atoi(argv[3]);
	for (i = 4; i < argc; i++) {
		if (parse_kv(argv[i], "mac", &v))
			prism_parse_mac(v, mac);
		else if (parse_kv(argv[i], "ep", &v))
			ep = (__u32)strtoul(v, NULL, 0);
		else if (parse_kv(argv[i], "rkey", &v))
			t.rkey = strtoull(v, NULL, 0);
		else if (parse_kv(argv[i], "addr", &v))
			t.base = strtoull(v, NULL, 0);
		else if (parse_kv(argv[i], "fl", &v))
			t.fl = (__u32)strtoul(v, NULL, 0);
		else if (parse_kv(argv[i], "nbufs", &v))
			t.nbufs = (__u32)strtoul(v, NULL, 0);
		else {
			mode = argv[i];
			argi = i + 1;
			break;
		}
	}
	if (!mode)
		return 2;
	prism_addr_init(&t.addr, mac, ep);
	fd = prism_open(argv[1], 0, 0);
	if (fd < 0) {
		fprintf(stderr, "prism_open: %s\n", strerror(-fd));
		return 1;
	}
	if (!strcmp(mode, "cas") && argi < argc)
		return do_cas(&t, strtoul(argv[argi], NULL, 0));
	if (!strcmp(mode, "alloc") && argi + 1 < argc)
		return do_alloc(&t, id, strtoul(argv[argi], NULL, 0),
				strtoul(argv[argi + 1], NULL, 0));
	if (!strcmp(mode, "verify") && argi + 1 < argc)
		return do_verify(&t, (unsigned int)strtoul(argv[argi], NULL, 0),
				 strtoul(argv[argi + 1], NULL, 0));
	fprintf(stderr, "bad mode\n");
	return 2;
}
