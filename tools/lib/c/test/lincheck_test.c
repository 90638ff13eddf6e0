// SPDX-License-Identifier: MIT
/*
 * Unit tests of the linearizability checker on hand-made histories, some
 * linearizable and some not, plus generated ones with a known answer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lincheck.h"
#include "pu_tap.h"

#define W(k, v, c, r)	{ .key = (k), .kind = LC_WRITE, .value = (v), .call = (c), .ret = (r) }
#define R(k, v, c, r)	{ .key = (k), .kind = LC_READ, .value = (v), .call = (c), .ret = (r) }
#define N(a)		(sizeof(a) / sizeof((a)[0]))

static enum lc_verdict check(struct lc_op *ops, size_t n)
{
	struct lc_report rep;

	return lc_check(ops, n, 0, 0, &rep);
}

static void hand_made(void)
{
	struct lc_op seq_ok[] = { W(0, 1, 0, 10), R(0, 1, 20, 30) };
	struct lc_op stale[] = { W(0, 1, 0, 10), R(0, 0, 20, 30) };
	struct lc_op init_read[] = { R(0, 0, 0, 5) };
	struct lc_op overlap_old[] = { W(0, 1, 0, 10), R(0, 0, 5, 15) };
	struct lc_op overlap_new[] = { W(0, 1, 0, 10), R(0, 1, 5, 15) };
	/* New-old inversion: a read saw 1, a later read saw 0 again. */
	struct lc_op inversion[] = { W(0, 1, 0, 100), R(0, 1, 10, 20), R(0, 0, 30, 40) };
	struct lc_op no_inversion[] = { W(0, 1, 0, 100), R(0, 0, 10, 20), R(0, 1, 30, 40) };
	struct lc_op phantom[] = { W(0, 1, 0, 10), R(0, 7, 20, 30) };
	/* Two concurrent writers: reads after both must agree on the last. */
	struct lc_op two_w_bad[] = { W(0, 1, 0, 10), W(0, 2, 0, 10),
				     R(0, 2, 11, 12), R(0, 1, 13, 14) };
	struct lc_op two_w_ok[] = { W(0, 1, 0, 10), W(0, 2, 0, 10),
				    R(0, 1, 11, 12), R(0, 1, 13, 14) };
	/* Unknown outcome (ret = inf): may take effect late, or never. */
	struct lc_op unk_never[] = { W(0, 1, 0, LC_INF), R(0, 0, 5, 6), R(0, 0, 7, 8) };
	struct lc_op unk_late[] = { W(0, 1, 0, LC_INF), R(0, 0, 5, 6), R(0, 1, 7, 8) };
	struct lc_op unk_undo[] = { W(0, 1, 0, LC_INF), R(0, 1, 5, 6), R(0, 0, 7, 8) };
	/* Equal timestamps count as overlapping. */
	struct lc_op touch[] = { W(0, 1, 0, 10), R(0, 0, 10, 12) };
	/* A write that completed before another write started is older. */
	struct lc_op order_bad[] = { W(0, 1, 0, 10), W(0, 2, 20, 30), R(0, 1, 40, 50) };
	struct lc_op keys[] = { W(0, 1, 0, 10), R(0, 1, 20, 30),
				W(5, 3, 0, 10), R(5, 0, 20, 30) };
	struct lc_report rep;

	ok(check(NULL, 0) == LC_OK, "empty history is linearizable");
	ok(check(seq_ok, N(seq_ok)) == LC_OK, "write then read of it");
	ok(check(stale, N(stale)) == LC_VIOLATION, "stale read after a completed write is caught");
	ok(check(init_read, N(init_read)) == LC_OK, "read of the initial value");
	ok(check(overlap_old, N(overlap_old)) == LC_OK, "read overlapping a write may see the old value");
	ok(check(overlap_new, N(overlap_new)) == LC_OK, "read overlapping a write may see the new value");
	ok(check(inversion, N(inversion)) == LC_VIOLATION, "new-old inversion is caught");
	ok(check(no_inversion, N(no_inversion)) == LC_OK, "old-then-new during a write is fine");
	ok(check(phantom, N(phantom)) == LC_VIOLATION, "a value nobody wrote is caught");
	ok(check(two_w_bad, N(two_w_bad)) == LC_VIOLATION, "readers disagreeing on the last of two writes is caught");
	ok(check(two_w_ok, N(two_w_ok)) == LC_OK, "either concurrent write may be last");
	ok(check(unk_never, N(unk_never)) == LC_OK, "unknown-outcome write that never took effect");
	ok(check(unk_late, N(unk_late)) == LC_OK, "unknown-outcome write that took effect late");
	ok(check(unk_undo, N(unk_undo)) == LC_VIOLATION, "unknown-outcome write seen, then unseen, is caught");
	ok(check(touch, N(touch)) == LC_OK, "operations touching at one instant overlap");
	ok(check(order_bad, N(order_bad)) == LC_VIOLATION, "real-time order of writes is enforced");
	ok(lc_check(keys, N(keys), 0, 0, &rep) == LC_VIOLATION &&
	       rep.bad_key == 5 && rep.keys == 2 && rep.bad_ops == 2,
	       "keys are checked separately; the bad one is reported (key %u)", rep.bad_key);
}

static uint64_t rs;

static unsigned int rnd(unsigned int n)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (unsigned int)(rs % n);
}

/*
 * A linearizable history by construction: ops take effect at distinct
 * points p = 100 * i in sequence, each op's interval covers its point
 * with random slack (so many overlap), reads return the value current at
 * their point.  clients in parallel: intervals of one client never
 * overlap, as in a real closed loop.
 */
static size_t gen(struct lc_op *ops, size_t n, unsigned int slack,
		  unsigned int unknown_pct)
{
	uint64_t cur = 0, next_val = 1;
	size_t i;

	for (i = 0; i < n; i++) {
		int64_t p = 100 * (int64_t)(i + 1);

		ops[i].key = 0;
		ops[i].call = p - 1 - rnd(slack);
		ops[i].ret = p + 1 + rnd(slack);
		if (rnd(2)) {
			ops[i].kind = LC_WRITE;
			ops[i].value = cur = next_val++;
			if (rnd(100) < unknown_pct)
				ops[i].ret = LC_INF;
		} else {
			ops[i].kind = LC_READ;
			ops[i].value = cur;
		}
	}
	return n;
}

static void generated(void)
{
	/* Linearizable as generated: writes of unknown outcome in percent. */
	static const struct {
		int unknown_pct;
		const char *what;
	} lin[] = {
		{ 0, "20 generated linearizable histories (200 ops, heavy overlap) pass" },
		{ 10, "same with 10% of the writes of unknown outcome" },
	};
	static struct lc_op ops[3000];
	struct lc_report rep;
	clock_t t;
	size_t n;
	int i, all_ok;

	rs = 0x1234567;
	for (size_t c = 0; c < sizeof(lin) / sizeof(lin[0]); c++) {
		all_ok = 1;
		for (i = 0; i < 20; i++) {
			n = gen(ops, 200, 400, lin[c].unknown_pct);
			if (lc_check(ops, n, 0, 0, &rep) != LC_OK)
				all_ok = 0;
		}
		ok(all_ok, "%s", lin[c].what);
	}

	all_ok = 1;
	for (i = 0; i < 20; i++) {
		n = gen(ops, 200, 400, 0);
		/* Append a write, then a read after it of an older value. */
		ops[n] = (struct lc_op)W(0, 999999, 1000000, 1000010);
		ops[n + 1] = (struct lc_op)R(0, ops[0].kind == LC_WRITE ? ops[0].value : 0,
					     1000020, 1000030);
		if (lc_check(ops, n + 2, 0, 0, &rep) != LC_VIOLATION)
			all_ok = 0;
	}
	ok(all_ok, "20 generated histories with a stale read appended are caught");

	all_ok = 1;
	for (i = 0; i < 20; i++) {
		size_t a, b;

		n = gen(ops, 200, 50, 0);
		/*
		 * Swap the values of two reads of different values whose
		 * intervals are far apart: old-new becomes new-old.
		 */
		for (a = 0; a < n && (ops[a].kind != LC_READ || !ops[a].value); a++)
			;
		for (b = n; b-- > a + 20;)
			if (ops[b].kind == LC_READ && ops[b].value > ops[a].value + 1)
				break;
		if (a < n && b > a + 20) {
			uint64_t v = ops[a].value;

			ops[a].value = ops[b].value;
			ops[b].value = v;
			if (lc_check(ops, n, 0, 0, &rep) != LC_VIOLATION)
				all_ok = 0;
		}
	}
	ok(all_ok, "generated histories with two reads swapped are caught");

	rs = 99;
	n = gen(ops, 3000, 400, 1);
	t = clock();
	ok(lc_check(ops, n, 0, 0, &rep) == LC_OK,
	       "3000 ops on one key, ~8 overlapping, 1%% unknown: linearizable (%zu states, %.2f s)",
	       rep.states, (double)(clock() - t) / CLOCKS_PER_SEC);

	n = gen(ops, 200, 2000, 0);
	ok(lc_check(ops, n, 0, 5, &rep) == LC_GAVE_UP,
	       "a tiny state budget makes the search give up, not pass");
}

/* A new file in /tmp holding text, its name in path; 0 or -errno. */
static int tmp_file(const char *text, char path[static 26])
{
	int fd;
	FILE *f;

	strcpy(path, "/tmp/lincheck_test.XXXXXX");
	fd = mkstemp(path);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -errno : 0;
}

/* Load a history file holding text; its operations in *ops, their count in *n. */
static int load_text(const char *text, struct lc_op **ops, size_t *n)
{
	char path[26];
	size_t cap = 0;
	int err = tmp_file(text, path);

	*ops = NULL;
	*n = 0;
	if (err)
		return err;
	err = lc_hist_load(path, ops, n, &cap);
	unlink(path);
	return err;
}

/* lc_check_files() on one file holding text: its verdict, its output in out. */
static int check_text(const char *text, char *out, size_t cap)
{
	char path[26], *files[] = { path };
	FILE *o;
	int v;

	if (tmp_file(text, path))
		return -2;
	o = fmemopen(out, cap, "w");
	v = o ? lc_check_files(files, 1, 99, "k", o) : -2;
	if (o)
		fclose(o);
	unlink(path);
	return v;
}

static void check_files(void)
{
	char out[512], *missing[] = { "/nonexistent/lincheck" };
	int v;

	v = check_text("W 1 5 0 10 1\nR 1 5 20 30 2\nW 1 6 40 inf 1\nR 1 99 50 60 2\n",
		       out, sizeof(out));
	ok(v == LC_VIOLATION && !strcmp(out,
	   "ops=4 reads=2 writes=2 unknown_writes=1 corrupt_reads=1 keys=1 states=3 verdict=NOT-linearizable\n"
	   "key=k1 ops_on_key=4 longest_linearizable_prefix=3\n"),
	   "lc_check_files: a read of the corrupt mark is counted and refused; the bad key named (verdict %d)",
	   v);
	v = check_text("W 1 5 0 10 1\nR 1 5 20 30 2\n", out, sizeof(out));
	ok(v == LC_OK && !strncmp(out, "ops=2 reads=1 writes=1 unknown_writes=0 corrupt_reads=0 keys=1 ", 62) &&
	   strstr(out, " verdict=linearizable\n") && !strstr(out, "key="),
	   "lc_check_files: a linearizable history, one line (verdict %d)", v);
	ok(lc_check_files(missing, 1, 99, "", stdout) == -1, "lc_check_files: a missing file gives -1");
}

static void hist_files(void)
{
	struct lc_op in[] = { W(3, 77, 10, 20), R(3, 77, 25, 30),
			      W(4, UINT64_MAX, 5, LC_INF) };
	char path[] = "/tmp/lincheck_test.XXXXXX";
	struct lc_op *ops = NULL;
	size_t n = 0, cap = 0, i;
	int fd = mkstemp(path), same, err;
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	in[1].client = 9;
	for (i = 0; f && i < N(in); i++)
		lc_hist_write(f, &in[i]);
	if (f)
		fclose(f);
	/* Loaded twice: a second file appends to the first's operations. */
	err = lc_hist_load(path, &ops, &n, &cap);
	if (!err)
		err = lc_hist_load(path, &ops, &n, &cap);
	unlink(path);
	same = !err && n == 2 * N(in);
	for (i = 0; same && i < n; i++) {
		const struct lc_op *a = &ops[i], *b = &in[i % N(in)];

		same = a->key == b->key && a->kind == b->kind &&
		       a->value == b->value && a->call == b->call &&
		       a->ret == b->ret && a->client == b->client;
	}
	ok(same, "a history written and loaded twice gives its operations twice (err %d, %zu ops)",
	   err, n);
	free(ops);

	err = load_text("W 1 2 3 4 5\nX 1 2 3 4 5\n", &ops, &n);
	ok(err == -EINVAL && n == 1, "a line of unknown kind is refused (err %d), the lines before it kept (%zu)",
	   err, n);
	free(ops);
	err = load_text("R 1 2 30 20 5\n", &ops, &n);
	ok(err == -EINVAL && n == 0, "an operation returning before its call is refused (err %d)", err);
	free(ops);
	err = load_text("R 1 2 30 40x 5\n", &ops, &n);
	ok(err == -EINVAL && n == 0, "a return time that is not a number is refused (err %d)", err);
	free(ops);
	err = load_text("", &ops, &n);
	ok(err == 0 && n == 0, "an empty history file loads (no operation)");
	free(ops);
	check_files();
	ok(!strcmp(lc_verdict_name(LC_OK), "linearizable") &&
	   !strcmp(lc_verdict_name(LC_VIOLATION), "NOT-linearizable") &&
	   !strcmp(lc_verdict_name(LC_GAVE_UP), "gave-up"), "verdict names");
}

static void values(void)
{
	static unsigned char v[65536];
	uint64_t id = (7ULL << 40) | 12345;

	lc_value_fill(v, 512, id);
	ok(lc_value_id(v, 512) == id, "value id round trip");
	v[300] ^= 1;
	ok(lc_value_id(v, 512) == LC_VALUE_CORRUPT, "a torn value is detected");
	lc_value_fill(v, 512, 0);
	ok(lc_value_id(v, 512) == 0, "all zeroes is the initial value");
	lc_value_fill(v, 16, 42);
	ok(lc_value_id(v, 16) == 42, "small blocks work too");
	lc_value_fill(v, 65536, id);
	ok(lc_value_id(v, 65536) == id, "64 KiB block round trip");
	v[65536 - 1] ^= 0x80;
	ok(lc_value_id(v, 65536) == LC_VALUE_CORRUPT,
	       "a 64 KiB block torn in its last byte is detected");
	lc_value_fill(v, 13, id);
	ok(lc_value_id(v, 13) == id, "a size that is not a multiple of 8 round trips");
	v[12] ^= 1;
	ok(lc_value_id(v, 13) == LC_VALUE_CORRUPT, "its tail is checked too");
}

int main(void)
{
	printf("TAP version 13\n");
	hand_made();
	generated();
	hist_files();
	values();
	printf("1..%d\n", tap_run);
	return tap_failed != 0;
}
