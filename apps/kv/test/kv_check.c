// SPDX-License-Identifier: MIT
/*
 * kv-check: client side of the in-guest PRISM-KV tests (test/run.sh).
 * Every subcommand asserts what it can check locally, prints one summary
 * line and exits 0 (pass) or 1 (fail); run.sh checks the global
 * properties (sums over clients, final state).
 *
 *   kv-check IF INFO counters ID KEYS INCS   read-modify-write increments
 *   kv-check IF INFO model ID KEYS OPS [VMAX] random ops on own keys vs a model;
 *                                             values < 600 B, a few of VMAX
 *                                             (default KV_MAX_VALUE)
 *   kv-check IF INFO stamp-writer ID KEY SECONDS
 *   kv-check IF INFO stamp-reader KEY SECONDS [allow-torn]
 *   kv-check IF INFO restart KEY READY_FILE
 *   kv-check IF INFO hist ID KEYS OPS VSIZE OUT  random GET/PUT/DELETE on KEYS
 *                                             keys shared by all clients,
 *                                             history written to OUT.ID
 *   kv-check lincheck FILE...                 merge histories, check that
 *                                             they are linearizable (exit 0;
 *                                             1: not; 2: gave up, bad file)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kv_client.h"
#include "../kv_workload.h"
#include "lincheck.h"

#define STAMP_VALUE	512
#define MAX_WRITERS	64

static const char *ifname, *info_path;

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stdout, "FAIL: ");
	vfprintf(stdout, fmt, ap);
	fprintf(stdout, "\n");
	va_end(ap);
	return 1;
}

static double now_s(void)
{
	return pu_now_us() / 1e6;
}

static struct kv_client *open_or_die(int timeout_ms)
{
	struct kv_client *c;
	int err = kv_client_open(&c, ifname, info_path, timeout_ms);

	if (err) {
		printf("FAIL: open %s via %s: %s\n", info_path, ifname, strerror(-err));
		exit(1);
	}
	return c;
}

static void print_stats(struct kv_client *c)
{
	const struct kv_client_stats *s = kv_client_stats(c);

	printf(" probes=%" PRIu64 " torn=%" PRIu64 " cas_failures=%" PRIu64
	       " no_buffer=%" PRIu64 " recycled=%" PRIu64 "\n", s->probes,
	       s->torn_reads, s->cas_failures, s->no_buffer, s->recycled);
}

/* Each of KEYS counters incremented INCS times by read-modify-write. */
static int counters(int id, int keys, int incs)
{
	struct kv_client *c = open_or_die(0);
	uint64_t retries = 0;
	int k, n;

	for (n = 0; n < incs; n++) {
		for (k = 0; k < keys; k++) {
			char key[32], val[32];
			size_t vlen;
			int err;

			snprintf(key, sizeof(key), "ctr-%d", (k + id) % keys);
			for (;;) {
				uint64_t version, cur = 0;

				err = kv_get(c, key, strlen(key), val,
					     sizeof(val) - 1, &vlen, &version);
				if (!err) {
					val[vlen] = 0;
					cur = strtoull(val, NULL, 10);
				} else if (err != -ENOENT) {
					return fail("get %s: %s", key, strerror(-err));
				}
				snprintf(val, sizeof(val), "%" PRIu64, cur + 1);
				err = kv_put_if_version(c, key, strlen(key), val,
							strlen(val), version);
				if (!err)
					break;
				if (err != -EAGAIN)
					return fail("put %s: %s", key, strerror(-err));
				retries++;
			}
		}
	}
	printf("counters id=%d incs=%d retries=%" PRIu64, id, incs * keys, retries);
	print_stats(c);
	kv_client_close(c);
	return 0;
}

struct model_key {
	int		present;
	size_t		len;
	unsigned char	val[KV_MAX_ENTRY];
};

/*
 * Random PUT/DELETE/GET on this client's own keys, checked against a model:
 * 2% of the PUTs store a value of vmax bytes, 1% one of KV_MAX_VALUE + 1
 * (refused), the others under 600 bytes.
 */
static int model(int id, int keys, int ops, size_t vmax)
{
	struct kv_client *c = open_or_die(0);
	struct model_key *m = calloc((size_t)keys, sizeof(*m));
	unsigned char got[KV_MAX_ENTRY];
	struct kv_rng rng;
	int n, k;

	if (!m)
		return fail("oom");
	if (vmax > KV_MAX_VALUE)
		vmax = KV_MAX_VALUE;
	kv_rng_seed(&rng, (uint64_t)id * 7919 + 1);
	for (n = 0; n < ops + keys; n++) {
		char key[32];
		size_t vlen, klen;
		uint64_t r = kv_rng_next(&rng) % 100;
		int err, verify = n >= ops;

		/* the last `keys` steps read every key back */
		k = verify ? n - ops : (int)(kv_rng_next(&rng) % (uint64_t)keys);
		klen = (size_t)snprintf(key, sizeof(key), "m%d-%d", id, k);
		if (!verify && r < 45) {
			static unsigned char val[KV_MAX_VALUE + 1];
			size_t len = kv_rng_next(&rng) % 600, i;

			if (r < 3)	/* vmax, or one past the limit */
				len = r == 2 ? KV_MAX_VALUE + 1 : vmax;
			for (i = 0; i < len; i++)
				val[i] = (unsigned char)kv_rng_next(&rng);
			err = kv_put(c, key, klen, val, len);
			if (len > KV_MAX_VALUE) {
				if (err != -E2BIG)
					return fail("put %s of %zu bytes: %d, want -E2BIG",
						    key, len, err);
				continue;
			}
			if (err)
				return fail("put %s: %s", key, strerror(-err));
			m[k].present = 1;
			m[k].len = len;
			memcpy(m[k].val, val, len);
		} else if (!verify && r < 65) {
			err = kv_delete(c, key, klen);
			if (err != (m[k].present ? 0 : -ENOENT))
				return fail("delete %s: %d, model says %s", key, err,
					    m[k].present ? "present" : "absent");
			m[k].present = 0;
		} else {
			err = kv_get(c, key, klen, got, sizeof(got), &vlen, NULL);
			if (!m[k].present) {
				if (err != -ENOENT)
					return fail("get %s: %d, want -ENOENT", key, err);
				continue;
			}
			if (err)
				return fail("get %s: %s", key, strerror(-err));
			if (vlen != m[k].len || memcmp(got, m[k].val, vlen))
				return fail("get %s: value differs from the model "
					    "(%zu vs %zu bytes)", key, vlen, m[k].len);
		}
	}
	printf("model id=%d ops=%d", id, ops);
	print_stats(c);
	free(m);
	kv_client_close(c);
	return 0;
}

/* Value word i of writer id's seq-th write: any mix-up shows. */
static uint64_t stamp_word(uint64_t id, uint64_t seq, size_t i)
{
	if (i == 0)
		return id;
	if (i == 1)
		return seq;
	return (id * 0x9e3779b97f4a7c15ull) ^ (seq * 0xbf58476d1ce4e5b9ull) ^ i;
}

static int stamp_writer(int id, const char *key, double seconds)
{
	struct kv_client *c = open_or_die(0);
	uint64_t val[STAMP_VALUE / 8], seq;
	double end = now_s() + seconds;
	size_t i;
	int err;

	kv_client_set_recycle_batch(c, 4);	/* keep buffers cycling fast */
	for (seq = 1; now_s() < end; seq++) {
		for (i = 0; i < STAMP_VALUE / 8; i++)
			val[i] = stamp_word((uint64_t)id, seq, i);
		err = kv_put(c, key, strlen(key), val, sizeof(val));
		if (err)
			return fail("writer %d put: %s", id, strerror(-err));
	}
	printf("stamp-writer id=%d writes=%" PRIu64, id, seq - 1);
	print_stats(c);
	kv_client_close(c);
	return 0;
}

static int stamp_reader(const char *key, double seconds, int allow_torn)
{
	struct kv_client *c = open_or_die(0);
	uint64_t last_seq[MAX_WRITERS] = { 0 }, last_version = 0, reads = 0;
	uint64_t val[STAMP_VALUE / 8];
	double end = now_s() + seconds;
	size_t vlen, i;
	int err;

	while (now_s() < end) {
		uint64_t version, id, seq;

		err = kv_get(c, key, strlen(key), val, sizeof(val), &vlen, &version);
		if (err == -ENOENT)
			continue;
		if (err)
			return fail("reader get: %s", strerror(-err));
		reads++;
		if (vlen != sizeof(val))
			return fail("read %zu bytes, want %zu", vlen, sizeof(val));
		id = val[0];
		seq = val[1];
		if (id >= MAX_WRITERS)
			return fail("bad writer id %" PRIu64, id);
		for (i = 0; i < STAMP_VALUE / 8; i++)
			if (val[i] != stamp_word(id, seq, i))
				return fail("value of writer %" PRIu64 " seq %" PRIu64
					    " changed at word %zu: a buffer was reused "
					    "while readable", id, seq, i);
		if (seq < last_seq[id])
			return fail("writer %" PRIu64 " went back from seq %" PRIu64
				    " to %" PRIu64, id, last_seq[id], seq);
		if (version < last_version)
			return fail("version went back from %" PRIu64 " to %" PRIu64,
				    last_version, version);
		last_seq[id] = seq;
		last_version = version;
	}
	printf("stamp-reader reads=%" PRIu64 " last_version=%" PRIu64, reads,
	       last_version);
	print_stats(c);
	if (!allow_torn && kv_client_stats(c)->torn_reads)
		return fail("%" PRIu64 " torn reads: entries must be immutable "
			    "while readable", kv_client_stats(c)->torn_reads);
	kv_client_close(c);
	return 0;
}

/*
 * Works against the first server, then sees errors once it is gone, then
 * works again against its replacement (after re-reading the address file).
 */
static int restart(const char *key, const char *ready)
{
	const char *tmo = getenv("KV_CHECK_TIMEOUT_MS");
	struct kv_client *c = open_or_die(tmo ? atoi(tmo) : 1000);
	int old_pid = kv_client_info(c)->pid, err, new_err = 0;
	char val[64];
	size_t vlen;
	double deadline;
	FILE *f;

	err = kv_put(c, key, strlen(key), "before", 6);
	if (!err)
		err = kv_get(c, key, strlen(key), val, sizeof(val), &vlen, NULL);
	if (err || vlen != 6 || memcmp(val, "before", 6))
		return fail("first server: %s", strerror(-err));
	f = fopen(ready, "w");
	if (!f || fputs("ready\n", f) < 0 || fclose(f))
		return fail("%s: %s", ready, strerror(errno));

	deadline = now_s() + 30;
	while (!(err = kv_get(c, key, strlen(key), val, sizeof(val), &vlen, NULL)))
		if (now_s() > deadline)
			return fail("server never went away");
	printf("# old server gone: %s\n", strerror(-err));
	if (err != -ECONNREFUSED && err != -ESTALE && err != -ETIMEDOUT)
		return fail("unexpected error %d", err);

	deadline = now_s() + 60;
	for (;;) {
		if (now_s() > deadline)
			return fail("no new server within 60 s (last: %s)",
				    strerror(-new_err));
		new_err = kv_client_reload(c);
		if (!new_err && kv_client_info(c)->pid == old_pid)
			new_err = -EAGAIN;
		if (!new_err)
			break;
		usleep(20000);	/* polling the address file, bounded above */
	}
	err = kv_get(c, key, strlen(key), val, sizeof(val), &vlen, NULL);
	if (err != -ENOENT)
		return fail("new server: get %s: %d, want -ENOENT (fresh store)",
			    key, err);
	err = kv_put(c, key, strlen(key), "after", 5);
	if (!err)
		err = kv_get(c, key, strlen(key), val, sizeof(val), &vlen, NULL);
	if (err || vlen != 5 || memcmp(val, "after", 5))
		return fail("new server: %s", strerror(-err));
	printf("restart ok\n");
	kv_client_close(c);
	return 0;
}

/*
 * The id of a value read back (lc_value_fill()'s), LC_VALUE_CORRUPT if no
 * PUT wrote these bytes: a PUT's id is never 0.
 */
static uint64_t hist_value_id(const unsigned char *val, size_t len,
			      size_t vsize)
{
	uint64_t v = len == vsize ? lc_value_id(val, vsize) : LC_VALUE_CORRUPT;

	return v ? v : LC_VALUE_CORRUPT;
}

/*
 * Random operations on keys lin-0..KEYS-1, shared by every client, each
 * recorded for the linearizability checker: a PUT writes a value with a
 * unique id, a DELETE writes 0 (absent, the initial value), a GET reads
 * the id of what it found (0 if absent).  A PUT or DELETE that failed
 * (-ETIMEDOUT: no answer) may or may not have happened: its outcome is
 * unknown.  A DELETE that found nothing changed nothing: a read of 0.
 * A GET that failed constrains nothing and is left out.
 */
static int hist(int id, int keys, int ops, size_t vsize, const char *prefix)
{
	static unsigned char val[KV_MAX_VALUE], got[KV_MAX_VALUE];
	unsigned long puts = 0, gets = 0, dels = 0, unknown = 0, absent = 0;
	struct kv_client *c;
	struct kv_rng rng;
	uint64_t seq = 0;
	char out[4096];
	FILE *f;
	int n;

	if (id <= 0 || id >= 1 << 23 || keys <= 0 || vsize < 8 ||
	    vsize > KV_MAX_VALUE)
		return fail("hist: bad ID, KEYS or VSIZE (8..%u)", KV_MAX_VALUE);
	snprintf(out, sizeof(out), "%s.%d", prefix, id);
	f = fopen(out, "w");
	if (!f)
		return fail("%s: %s", out, strerror(errno));
	c = open_or_die(0);
	kv_rng_seed(&rng, (uint64_t)id * 104729 + 7);
	for (n = 0; n < ops; n++) {
		uint64_t r = kv_rng_next(&rng) % 100;
		struct lc_op op = { .client = (uint32_t)id };
		char key[32];
		size_t klen, vlen;
		int err;

		op.key = (uint32_t)(kv_rng_next(&rng) % (uint64_t)keys);
		klen = (size_t)snprintf(key, sizeof(key), "lin-%u", op.key);
		if (r < 45) {
			op.kind = LC_WRITE;
			op.value = (uint64_t)id << 40 | ++seq;
			lc_value_fill(val, vsize, op.value);
			op.call = (int64_t)pu_now_ns();
			err = kv_put(c, key, klen, val, vsize);
			puts++;
		} else if (r < 55) {
			op.kind = LC_WRITE;
			op.value = 0;
			op.call = (int64_t)pu_now_ns();
			err = kv_delete(c, key, klen);
			if (err == -ENOENT) {
				op.kind = LC_READ;
				err = 0;
				absent++;
			}
			dels++;
		} else {
			op.kind = LC_READ;
			op.call = (int64_t)pu_now_ns();
			err = kv_get(c, key, klen, got, sizeof(got), &vlen, NULL);
			if (!err)
				op.value = hist_value_id(got, vlen, vsize);
			else if (err == -ENOENT)
				err = 0;	/* absent: value 0 */
			gets++;
		}
		op.ret = (int64_t)pu_now_ns();
		if (err == -ETIMEDOUT && op.kind == LC_WRITE) {
			op.ret = LC_INF;
			unknown++;
		} else if (err == -ETIMEDOUT) {
			continue;
		} else if (err) {
			return fail("%s %s: %s", op.kind == LC_WRITE ? "write" : "get",
				    key, strerror(-err));
		}
		lc_hist_write(f, &op);
	}
	if (fclose(f))
		return fail("%s: %s", out, strerror(errno));
	printf("hist id=%d ops=%d puts=%lu deletes=%lu (of absent keys %lu) gets=%lu "
	       "unknown_outcome=%lu", id, ops, puts, dels, absent, gets, unknown);
	print_stats(c);
	kv_client_close(c);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc >= 3 && !strcmp(argv[1], "lincheck")) {
		int v = lc_check_files(argv + 2, argc - 2, LC_VALUE_CORRUPT, "lin-",
				       stdout);

		return v == LC_OK ? 0 : v == LC_VIOLATION ? 1 : 2;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: see the comment at the top of kv_check.c\n");
		return 2;
	}
	ifname = argv[1];
	info_path = argv[2];
	cmd = argv[3];
	if (!strcmp(cmd, "counters") && argc == 7)
		return counters(atoi(argv[4]), atoi(argv[5]), atoi(argv[6]));
	if (!strcmp(cmd, "model") && (argc == 7 || argc == 8))
		return model(atoi(argv[4]), atoi(argv[5]), atoi(argv[6]),
			     argc == 8 ? strtoul(argv[7], NULL, 0) : KV_MAX_VALUE);
	if (!strcmp(cmd, "stamp-writer") && argc == 7)
		return stamp_writer(atoi(argv[4]), argv[5], atof(argv[6]));
	if (!strcmp(cmd, "stamp-reader") && (argc == 6 || argc == 7))
		return stamp_reader(argv[4], atof(argv[5]), argc == 7);
	if (!strcmp(cmd, "restart") && argc == 6)
		return restart(argv[4], argv[5]);
	if (!strcmp(cmd, "hist") && argc == 9)
		return hist(atoi(argv[4]), atoi(argv[5]), atoi(argv[6]),
			    strtoul(argv[7], NULL, 0), argv[8]);
	fprintf(stderr, "kv-check: bad command\n");
	return 2;
}
