// SPDX-License-Identifier: GPL-2.0
/*
 * Host-only unit tests (TAP): timestamp encoding, the CAS operands of each
 * PRISM-TX chain against a model of PRISM's masked ordered CAS, values of
 * every size and their filler, and the serializability checker on
 * hand-made histories.
 */
#include <stdio.h>
#include <string.h>

#include "hist.h"
#include "pu_tap.h"
#include "tx.h"

/* Little-endian unsigned compare of len bytes, last byte most significant. */
static int le_cmp(const unsigned char *a, const unsigned char *b, unsigned int len)
{
	for (int i = (int)len - 1; i >= 0; i--)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

enum { EQ, GT };

/* Model of the module's CAS (uapi/linux/prism.h): 1 if it swapped. */
static int cas_model(unsigned char *target, const struct tx_cas_operands *o, int mode)
{
	unsigned char a[32], b[32];
	int c;

	for (unsigned int i = 0; i < o->len; i++) {
		a[i] = o->cmp[i] & o->cmask[i];
		b[i] = target[i] & o->cmask[i];
	}
	c = le_cmp(a, b, o->len);
	if (mode == EQ ? c != 0 : c <= 0)
		return 0;
	for (unsigned int i = 0; i < o->len; i++)
		target[i] = (unsigned char)((target[i] & ~o->smask[i]) |
					    (o->swap[i] & o->smask[i]));
	return 1;
}

/* A slot with no pending buffer, or with one (slot_p). */
static void slot_p(unsigned char *s, uint64_t pr, uint64_t pw, uint64_t c,
		   uint64_t ptr, uint64_t pptr)
{
	tx_put64(s + TX_PR, pr);
	tx_put64(s + TX_PW, pw);
	tx_put64(s + TX_C, c);
	tx_put64(s + TX_PTR, ptr);
	tx_put64(s + TX_PPTR, pptr);
}

static void slot(unsigned char *s, uint64_t pr, uint64_t pw, uint64_t c, uint64_t ptr)
{
	slot_p(s, pr, pw, c, ptr, 0);
}

static int slot_is_p(const unsigned char *s, uint64_t pr, uint64_t pw, uint64_t c,
		     uint64_t ptr, uint64_t pptr)
{
	return tx_get64(s + TX_PR) == pr && tx_get64(s + TX_PW) == pw &&
	       tx_get64(s + TX_C) == c && tx_get64(s + TX_PTR) == ptr &&
	       tx_get64(s + TX_PPTR) == pptr;
}

static int slot_is(const unsigned char *s, uint64_t pr, uint64_t pw, uint64_t c,
		   uint64_t ptr)
{
	return slot_is_p(s, pr, pw, c, ptr, 0);
}

static void test_ts(void)
{
	uint64_t a = tx_ts_make(123456789, 42), b;

	ok(tx_ts_us(a) == 123456789 && tx_ts_cid(a) == 42, "timestamp keeps clock and client id");
	ok(tx_ts_make(5, 1) > tx_ts_make(4, 65535), "the clock dominates the client id");
	b = tx_ts_next(100, 7, tx_ts_make(200, 7), 0);
	ok(b > tx_ts_make(200, 7) && tx_ts_cid(b) == 7, "next timestamp exceeds the previous one despite a clock going back");
	for (unsigned int home = 0; home < 3; home++) {
		b = tx_ts_next_home(1000, 5, tx_ts_make(1000, 5), 0, home, 3);
		ok(b > tx_ts_make(1000, 5) && tx_ts_us(b) <= 1003 &&
		   tx_home_shard(b, 3) == home && tx_ts_cid(b) == 5,
		   "a timestamp picked for home shard %u of 3 has it, within 3 us", home);
	}
	b = tx_ts_next(100, 3, 0, tx_ts_make(500, 9));
	ok(b > tx_ts_make(500, 9), "next timestamp exceeds every version read (floor)");
	ok(tx_ts_next(1000, 3, tx_ts_make(10, 3), tx_ts_make(20, 4)) == tx_ts_make(1000, 3),
	   "a clock ahead of everything is used as is");
}

static void test_cas(void)
{
	struct tx_cas_operands o;
	unsigned char s[TX_SLOT_SIZE], rec[TX_DEC_SIZE] = { 0 };
	uint64_t rc = 50, ts = 100;

	slot(s, 60, rc, rc, 0xabc);
	tx_prepare_operands(&o, TX_VALIDATE_READ, ts, rc);
	ok(cas_model(s, &o, GT) && slot_is(s, ts, rc, rc, 0xabc),
	   "read validation raises PR to TS when C == PW == RC");
	slot(s, 200, rc, rc, 0xabc);
	ok(!cas_model(s, &o, GT) && tx_read_ok_from_old(s, ts, rc) &&
	   slot_is(s, 200, rc, rc, 0xabc),
	   "read validation with PR > TS fails the CAS but validates from the old value");
	slot(s, 0, 70, 70, 0xabc);
	ok(!cas_model(s, &o, GT) && !tx_read_ok_from_old(s, ts, rc),
	   "read validation fails after a newer commit (C > RC)");
	slot(s, 0, 80, rc, 0xabc);
	ok(!cas_model(s, &o, GT) && !tx_read_ok_from_old(s, ts, rc),
	   "read validation fails while a write is pending (PW > C)");
	slot(s, 0, 70, 70, 0xabc);
	ok(!cas_model(s, &o, GT) && !tx_read_ok_from_old(s, 10, rc),
	   "read validation fails even when PR is high if the version changed");

	tx_prepare_operands(&o, TX_VALIDATE_WRITE, ts, rc);
	slot(s, 60, rc, rc, 0xabc);
	ok(cas_model(s, &o, GT) && slot_is(s, 60, ts, rc, 0xabc),
	   "write validation sets PW := TS when unchanged and PR < TS");
	slot(s, 150, rc, rc, 0xabc);
	ok(!cas_model(s, &o, GT) && slot_is(s, 150, rc, rc, 0xabc),
	   "write validation fails when a later reader validated (PR > TS)");
	slot(s, 0, 90, rc, 0xabc);
	ok(!cas_model(s, &o, GT), "write validation fails while another write is pending");
	slot(s, 0, 70, 70, 0xabc);
	ok(!cas_model(s, &o, GT), "write validation fails after a newer commit");

	tx_end_operands(&o, ts, rc, 0, 0);
	slot_p(s, 60, ts, rc, 0xabc, 0xdef);
	ok(cas_model(s + TX_PW, &o, EQ) && slot_is(s, 60, ts, ts, 0xabc),
	   "abort raises C to TS and clears the pending buffer when our write is pending");
	ok(!cas_model(s + TX_PW, &o, EQ) && slot_is(s, 60, ts, ts, 0xabc),
	   "a second abort (the client's and a recoverer's) finds nothing to end");
	slot_p(s, 60, 120, rc, 0xabc, 0x123);
	ok(!cas_model(s + TX_PW, &o, EQ) && slot_is_p(s, 60, 120, rc, 0xabc, 0x123),
	   "abort leaves a slot alone whose pending write is not ours");

	tx_end_operands(&o, ts, rc, 1, 0xdef);
	slot_p(s, 60, ts, rc, 0xabc, 0xdef);
	ok(cas_model(s + TX_PW, &o, EQ) && slot_is(s, 60, ts, ts, 0xdef),
	   "install sets (C, ptr, pptr) := (TS, pending buffer, 0)");
	ok(!cas_model(s + TX_PW, &o, EQ) && slot_is(s, 60, ts, ts, 0xdef),
	   "a repeated install (the client's and a recoverer's) is refused");
	tx_end_operands(&o, ts, rc, 0, 0);
	ok(!cas_model(s + TX_PW, &o, EQ) && slot_is(s, 60, ts, ts, 0xdef),
	   "an abort after the install is refused");

	tx_decide_operands(&o, ts, TX_DEC_COMMIT);
	ok(cas_model(rec, &o, GT) && tx_get64(rec) == ts &&
	   tx_get64(rec + 8) == TX_DEC_COMMIT, "DECIDE records (TS, COMMIT) over an older record");
	tx_decide_operands(&o, ts, TX_DEC_ABORT);
	ok(!cas_model(rec, &o, GT) && tx_get64(rec + 8) == TX_DEC_COMMIT,
	   "a recoverer's DECIDE (TS, ABORT) loses to the recorded COMMIT");
	tx_decide_operands(&o, ts + 1, TX_DEC_ABORT);
	ok(cas_model(rec, &o, GT) && tx_get64(rec) == ts + 1 &&
	   tx_get64(rec + 8) == TX_DEC_ABORT, "the client's next transaction replaces the record");
	tx_decide_operands(&o, ts, TX_DEC_ABORT);
	ok(!cas_model(rec, &o, GT) && tx_get64(rec) == ts + 1,
	   "an older timestamp never replaces a newer record");
}

static struct hist_op R(uint32_t k, uint64_t v, uint64_t val)
{
	return (struct hist_op){ k, v, val };
}

/* A hand-made history: transactions of {key, version, value} ops, finals. */
struct hist_case {
	const char *name;
	struct {
		uint64_t id;
		unsigned int nr, nw;
		struct hist_op rd[2], wr[2];
	} tx[3];
	unsigned int ntx, nfinal;
	struct hist_op final[2];
	int want;		/* hist_check() */
	size_t min_edges;	/* at least */
	size_t in_cycle, bad_reads, bad_final;	/* exactly */
};

static const struct hist_case hist_cases[] = {
	{ .name = "a serial history is serializable",
	  /* T1 reads x0 writes x1; T2 reads x1 writes x2; T3 reads x2, y0. */
	  .tx = { { .id = 10, .nr = 1, .rd = { { 0, 0, 5 } },
		    .nw = 1, .wr = { { 0, 10, 6 } } },
		  { .id = 20, .nr = 1, .rd = { { 0, 10, 6 } },
		    .nw = 1, .wr = { { 0, 20, 7 } } },
		  { .id = 30, .nr = 2, .rd = { { 0, 20, 7 }, { 1, 0, 5 } } } },
	  .ntx = 3, .nfinal = 2, .final = { { 0, 20, 7 }, { 1, 0, 5 } },
	  .want = 0, .min_edges = 3 },
	{ .name = "write skew is a cycle",
	  /* both read x0,y0; T1 writes x, T2 writes y */
	  .tx = { { .id = 10, .nr = 2, .rd = { { 0, 0, 5 }, { 1, 0, 5 } },
		    .nw = 1, .wr = { { 0, 10, 6 } } },
		  { .id = 11, .nr = 2, .rd = { { 0, 0, 5 }, { 1, 0, 5 } },
		    .nw = 1, .wr = { { 1, 11, 6 } } } },
	  .ntx = 2, .want = 1, .in_cycle = 2 },
	{ .name = "a lost update is a cycle",
	  /* both read x0 and write x */
	  .tx = { { .id = 10, .nr = 1, .rd = { { 0, 0, 5 } },
		    .nw = 1, .wr = { { 0, 10, 6 } } },
		  { .id = 11, .nr = 1, .rd = { { 0, 0, 5 } },
		    .nw = 1, .wr = { { 0, 11, 6 } } } },
	  .ntx = 2, .want = 1, .in_cycle = 2 },
	{ .name = "a torn read of two writes is a cycle",
	  /* T1 writes x1, y1; T3 reads x1 but y0 */
	  .tx = { { .id = 10, .nr = 1, .rd = { { 0, 0, 5 } },
		    .nw = 2, .wr = { { 0, 10, 1 }, { 1, 10, 9 } } },
		  { .id = 30, .nr = 2, .rd = { { 0, 10, 1 }, { 1, 0, 5 } } } },
	  .ntx = 2, .want = 1, .in_cycle = 2 },
	{ .name = "reading a value nobody wrote is reported",
	  .tx = { { .id = 10, .nw = 1, .wr = { { 0, 10, 6 } } },
		  { .id = 20, .nr = 1, .rd = { { 0, 10, 99 } } } },
	  .ntx = 2, .want = 1, .bad_reads = 1 },
	{ .name = "reading an unknown version is reported",
	  .tx = { { .id = 20, .nr = 1, .rd = { { 0, 77, 6 } } } },
	  .ntx = 1, .want = 1, .bad_reads = 1 },
	{ .name = "a committed write missing from the final state is reported",
	  .tx = { { .id = 10, .nw = 1, .wr = { { 0, 10, 6 } } } },
	  .ntx = 1, .nfinal = 1, .final = { { 0, 0, 5 } },
	  .want = 1, .bad_final = 1 },
};

static void test_checker(void)
{
	struct hist_result r;
	struct hist h;
	struct hist_op rd[2], wr[2];

	for (size_t i = 0; i < sizeof(hist_cases) / sizeof(hist_cases[0]); i++) {
		const struct hist_case *c = &hist_cases[i];
		int ret;

		hist_init(&h);
		for (unsigned int t = 0; t < c->ntx; t++)
			hist_add(&h, c->tx[t].id, c->tx[t].rd, c->tx[t].nr,
				 c->tx[t].wr, c->tx[t].nw);
		for (unsigned int f = 0; f < c->nfinal; f++)
			hist_add_final(&h, c->final[f].key, c->final[f].ver,
				       c->final[f].val);
		ret = hist_check(&h, 5, &r);
		ok(ret == c->want && r.edges >= c->min_edges &&
		   r.in_cycle == c->in_cycle && r.bad_reads == c->bad_reads &&
		   r.bad_final == c->bad_final, "%s", c->name);
		hist_free(&h);
	}

	hist_init(&h);
	{
		FILE *f = tmpfile();

		rd[0] = R(3, 0, 5); wr[0] = R(3, 42, 8);
		hist_write_tx(f, 'T', 42, rd, 1, wr, 1);
		fprintf(f, "F 3 42 8\n");
		rewind(f);
		ok(hist_load(&h, f) == 0 && h.ntx == 1 && h.nfinal == 1 &&
		   h.tx[0].ops[1].ver == 42 && hist_check(&h, 5, &r) == 0,
		   "history lines round-trip through a file");
		fclose(f);
	}
	hist_free(&h);

	/*
	 * 'P' transactions (their client died): committed when all their
	 * writes were read or are final, aborted when none, torn otherwise.
	 */
	{
		static const struct {
			const char *name;
			const char *lines;
			size_t committed, aborted, torn;
			int want;
		} pc[] = {
			{ "a dead client's transaction seen by a reader counts as committed",
			  "P 10 2 2 r 0 0 5 r 1 0 5 w 0 10 4 w 1 10 6\n"
			  "T 20 2 0 r 0 10 4 r 1 10 6\nF 0 10 4\nF 1 10 6\n",
			  1, 0, 0, 0 },
			{ "a dead client's transaction nobody saw counts as aborted",
			  "P 10 2 2 r 0 0 5 r 1 0 5 w 0 10 4 w 1 10 6\n"
			  "T 20 2 0 r 0 0 5 r 1 0 5\nF 0 0 5\nF 1 0 5\n",
			  0, 1, 0, 0 },
			{ "a dead client's transaction with one write of two in effect is torn",
			  "P 10 2 2 r 0 0 5 r 1 0 5 w 0 10 4 w 1 10 6\n"
			  "F 0 10 4\nF 1 0 5\n",
			  1, 0, 1, 1 },
		};

		for (size_t i = 0; i < sizeof(pc) / sizeof(pc[0]); i++) {
			FILE *f = tmpfile();
			int ret;

			fputs(pc[i].lines, f);
			rewind(f);
			hist_init(&h);
			ret = hist_load(&h, f);
			hist_resolve_pending(&h);
			ret = ret ? -1 : hist_check(&h, 5, &r);
			ok(ret == pc[i].want && r.pending_committed == pc[i].committed &&
			   r.pending_aborted == pc[i].aborted &&
			   r.pending_torn == pc[i].torn, "%s", pc[i].name);
			hist_free(&h);
			fclose(f);
		}
	}
}

/* Values 8..4096 bytes: filled values check, any changed byte or field does not. */
static void test_value(void)
{
	static const unsigned int sizes[] = { 8, 9, 15, 16, 512, 4095, 4096 };
	unsigned char v[TX_MAX_VALUE + 8];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned int n = sizes[i], caught = 0;

		memset(v, 0xee, sizeof(v));
		tx_value_fill(v, n, 7, 42, 1000);
		ok(tx_get64(v) == 1000 && v[n] == 0xee && tx_value_check(v, n, 7, 42) &&
		   (n == 8 || (!tx_value_check(v, n, 8, 42) &&
			       !tx_value_check(v, n, 7, 43))),
		   "%u-byte value: the number first, filler of (key, version), nothing past it", n);
		for (unsigned int b = 8; b < n; b++) {
			v[b] ^= 1;
			caught += !tx_value_check(v, n, 7, 42);
			v[b] ^= 1;
		}
		ok(caught == n - 8, "%u-byte value: every changed filler byte is seen (%u)", n, caught);
	}
	/* a value torn between two versions: its first half from the older */
	tx_value_fill(v, 512, 3, 10, 5);
	{
		unsigned char w[512];

		tx_value_fill(w, 512, 3, 11, 6);
		memcpy(w, v, 256);
		ok(!tx_value_check(w, 512, 3, 10) && !tx_value_check(w, 512, 3, 11),
		   "a value half of one version, half of the next, is torn");
	}
	ok(tx_buf_size(8) == 16 && tx_buf_size(9) == 24 && tx_buf_size(4096) == 4104 &&
	   tx_farm_slot_size(8) == 32 && tx_farm_read_len(8) == 24 &&
	   tx_farm_slot_size(512) == 528, "buffer and FaRM slot sizes");
}

int main(void)
{
	printf("TAP version 13\n");
	test_ts();
	test_cas();
	test_value();
	test_checker();
	printf("1..%d\n", tap_run);
	return tap_failed ? 1 : 0;
}
