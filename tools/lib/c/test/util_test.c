// SPDX-License-Identifier: MIT
/* Host-only unit tests of prism_util (TAP). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "prism_util.h"
#include "pu_tap.h"


static void test_clock(void)
{
	uint64_t a = pu_now_ns(), b;
	double u = pu_now_us();
	struct timespec d = { 0, 2000000 };

	nanosleep(&d, NULL);
	b = pu_now_ns();
	ok(b - a >= 2000000 && b - a < 2000000000ull, "monotonic ns advance by the sleep (%llu ns)",
	   (unsigned long long)(b - a));
	ok(fabs(u - (double)a / 1e3) < 1e6, "us and ns read the same clock");
}

static void test_le(void)
{
	unsigned char b[8];

	pu_put_le64(b, 0x0102030405060708ull);
	ok(b[0] == 8 && b[7] == 1 && pu_get_le64(b) == 0x0102030405060708ull,
	   "le64 round trip, least significant byte first");
	pu_put_le32(b, 0xa1b2c3d4u);
	pu_put_le16(b + 4, 0xbeef);
	ok(b[0] == 0xd4 && b[3] == 0xa1 && b[4] == 0xef &&
	   pu_get_le32(b) == 0xa1b2c3d4u && pu_get_le16(b + 4) == 0xbeef,
	   "le32/le16 round trip");
}

static void test_rng(void)
{
	uint64_t s = 1, t = 1, x;
	int same = 1, i;

	/* The first output of xorshift64* from state 1. */
	x = pu_rng_next(&s);
	ok(x == 0x47e4ce4b896cdd1dull, "xorshift64* from 1: %#llx", (unsigned long long)x);
	pu_rng_next(&t);
	for (i = 0; i < 1000; i++)
		same &= pu_rng_next(&s) == pu_rng_next(&t);
	ok(same, "the same seed gives the same sequence");
	for (i = 0, same = 1; i < 100000; i++) {
		double u = pu_rng_unit(&s);

		same &= u >= 0 && u < 1;
	}
	ok(same, "unit draws in [0, 1)");
	ok(pu_splitmix64(0) == 0xe220a8397b1dcdafull &&
	   pu_splitmix64(0x9e3779b97f4a7c15ull) == 0x6e789e6aa1b965f4ull,
	   "splitmix64's first outputs from seed 0");
}

static double zeta(uint32_t n, double theta)
{
	double sum = 0;
	uint32_t i;

	for (i = 1; i <= n; i++)
		sum += 1.0 / pow((double)i, theta);
	return sum;
}

static void test_zipf(void)
{
	const uint32_t n = 1000, draws = 1000000;
	uint32_t *count = calloc(n, sizeof(*count)), i, k, first[8];
	struct pu_zipf z, z2, u;
	uint64_t s = 42, s2 = 42;
	int same = 1, in_range = 1, close = 1;
	double z0 = zeta(n, 0.99);

	ok(pu_zipf_init(&z, 0, 0.5) == -EINVAL, "n 0 refused");
	ok(!pu_zipf_init(&z, n, 0.99) && !pu_zipf_init(&z2, n, 0.99) &&
	   !pu_zipf_init(&u, 100, 0), "init");
	for (i = 0; i < draws; i++) {
		k = pu_zipf_next(&z, &s);
		if (k >= n)
			in_range = 0;
		else
			count[k]++;
		if (i < 8)
			first[i] = k;
		same &= k == pu_zipf_next(&z2, &s2);
	}
	ok(in_range, "ranks stay below n");
	ok(same, "deterministic from the seed");
	/* P(rank k) = 1 / ((k + 1)^theta * zeta(n, theta)); 1e6 draws: sd < 0.0005 */
	for (k = 0; k < 10; k++) {
		double p = 1.0 / (pow(k + 1, 0.99) * z0), f = (double)count[k] / draws;

		if (fabs(f - p) > 0.002 + 0.02 * p) {
			close = 0;
			printf("# rank %u: %.5f, expected %.5f\n", k, f, p);
		}
	}
	ok(close, "theta 0.99: frequencies of ranks 0..9 within 2 %% + 0.002 (rank 0 %.4f ~ %.4f)",
	   (double)count[0] / draws, 1.0 / z0);
	ok(count[0] > count[1] && count[1] > count[9] && count[9] > count[99],
	   "skewed: %u > %u > %u > %u", count[0], count[1], count[9], count[99]);
	/*
	 * The ranks rs_client and tx_client drew from xorshift64* state 42
	 * before they shared this code (1000 keys, theta 0.99): a run with a
	 * given --seed repeats its keys.
	 */
	ok(first[0] == 7 && first[1] == 204 && first[2] == 217 && first[3] == 667 &&
	   first[4] == 179 && first[5] == 303 && first[6] == 2 && first[7] == 15,
	   "state 42: ranks 7 204 217 667 179 303 2 15 (%u %u %u %u %u %u %u %u)",
	   first[0], first[1], first[2], first[3], first[4], first[5], first[6], first[7]);
	ok(pu_zipf_pick(&z, 0.0) == 0 && pu_zipf_pick(&z, 0.999999999) == n - 1 &&
	   pu_zipf_pick(&z, 1.0 / z0 - 1e-9) == 0 && pu_zipf_pick(&z, 1.0 / z0 + 1e-9) == 1,
	   "pick inverts the CDF at its edges");
	ok(pu_zipf_pick(&u, 0.0) == 0 && pu_zipf_pick(&u, 0.999999) == 99 &&
	   pu_zipf_pick(&u, 0.5) == 50 && !u.cdf, "theta 0 is uniform (no table)");
	pu_zipf_free(&z);
	pu_zipf_free(&z2);
	pu_zipf_free(&u);
	ok(!pu_zipf_init(&z, 1024, 1.2), "theta above 1 (rs.sh's 1.2) works");
	memset(count, 0, n * sizeof(*count));
	for (i = 0; i < 100000; i++)
		count[pu_zipf_next(&z, &s) % n]++;
	ok(fabs(count[0] / 1e5 - 1.0 / zeta(1024, 1.2)) < 0.01, "theta 1.2: P(rank 0) %.4f ~ %.4f",
	   count[0] / 1e5, 1.0 / zeta(1024, 1.2));
	pu_zipf_free(&z);
	free(count);
}

static void test_samples(void)
{
	double v[100], w[4] = { 4, 1, 3, 2 };
	struct pu_lat_summary s;
	int i;

	for (i = 0; i < 100; i++)
		v[i] = 100 - i;		/* 100..1 */
	s = pu_lat_summarize(v, 100);
	ok(s.mean == 50.5 && s.median == 50.5 && s.p50 == 50 && s.p99 == 99 &&
	   s.min == 1 && s.max == 100, "summary of 1..100: mean %.2f median %.2f p50 %.0f p99 %.0f",
	   s.mean, s.median, s.p50, s.p99);
	ok(pu_pct_sorted(v, 100, 90) == 90 && pu_pct_sorted(v, 100, 100) == 100 &&
	   pu_pct_sorted(v, 1, 99) == 1 && pu_pct_sorted(v, 10, 99) == 10,
	   "nearest-rank percentiles");
	s = pu_lat_summarize(w, 4);
	ok(s.median == 2.5 && s.p50 == 2 && s.p99 == 4 && w[0] == 1 && w[3] == 4,
	   "even count: median interpolates, p50 is a sample, v sorted");
}

static void test_hist(void)
{
	static struct pu_hist h, h2, a, b, ab;
	unsigned int i, mono = 1, exact = 1;
	uint64_t v, q;
	FILE *f;

	for (i = 0; i + 1 < PU_HIST_BUCKETS; i++)
		if (pu_hist_bucket_low(i + 1) <= pu_hist_bucket_low(i))
			mono = 0;
	for (v = 1; v < (1ull << 40); v = v * 3 + 1)
		if (pu_hist_index(v) >= PU_HIST_BUCKETS ||
		    pu_hist_bucket_low(pu_hist_index(v)) > v ||
		    (pu_hist_index(v) + 1 < PU_HIST_BUCKETS &&
		     pu_hist_bucket_low(pu_hist_index(v) + 1) <= v))
			exact = 0;
	ok(mono && exact, "buckets are ordered and contain their values");
	ok(pu_hist_index(UINT64_MAX) == PU_HIST_BUCKETS - 1, "the largest value has the last bucket");
	ok(pu_hist_percentile(&h, 0.5) == 0 && pu_hist_mean(&h) == 0, "empty: 0");
	for (v = 0; v < 128; v++)
		pu_hist_record(&h2, v);
	ok(pu_hist_percentile(&h2, 0.5) == 63 && pu_hist_percentile(&h2, 0.99) == 126 &&
	   pu_hist_percentile(&h2, 1) == 127, "exact below 128: p50 63, p99 126, p100 127");
	memset(&h2, 0, sizeof(h2));
	for (v = 1; v <= 1000; v++)
		pu_hist_record(&h, v * 1000);	/* 1..1000 us */
	/*
	 * Rank 990 is 990000; [2^19, 2^20) has 64 buckets of 8192, so its
	 * bucket is [983040, 991231] and p99 its upper bound.
	 */
	q = pu_hist_percentile(&h, 0.99);
	ok(q == 991231, "p99 of 1..1000 us: the top of 990 us's bucket [983040, 991231] (%llu)",
	   (unsigned long long)q);
	q = pu_hist_percentile(&h, 0.5);
	ok(q == 503807, "p50: the top of 500 us's bucket [499712, 503807] (%llu)",
	   (unsigned long long)q);
	q = pu_hist_percentile(&h, 0.999);
	ok(q == 999423, "p999: the top of 999 us's bucket [991232, 999423] (%llu)",
	   (unsigned long long)q);
	ok(pu_hist_percentile(&h, 1.0) == 1000000, "p100 is the max");
	for (i = 1, exact = 1; i <= 999; i++) {
		q = pu_hist_percentile(&h, i / 1000.0);
		if (q < (uint64_t)i * 1000 || q > (uint64_t)i * 1000 * 65 / 64)
			exact = 0;
	}
	ok(exact, "every per-mille within 1/64 above its sample");
	ok(h.count == 1000 && pu_hist_mean(&h) == 500500, "count and mean are exact");
	f = tmpfile();
	ok(f && !pu_hist_write(&h, f) && !fseek(f, 0, SEEK_SET) && !pu_hist_read(&h2, f) &&
	   !memcmp(&h, &h2, sizeof(h)), "text round trip");
	if (f)
		fclose(f);
	f = tmpfile();
	ok(f && fputs("hist 1 2 3\n5000 1\n", f) >= 0 && !fseek(f, 0, SEEK_SET) &&
	   pu_hist_read(&h2, f) == -EINVAL, "bad bucket index refused");
	if (f)
		fclose(f);
	/* Merge of two histograms equals the histogram of the union. */
	for (i = 0, v = 7; i < 20000; i++) {
		v = v * 6364136223846793005ull + 1442695040888963407ull;
		pu_hist_record(i % 3 ? &a : &b, v >> 44);
		pu_hist_record(&ab, v >> 44);
	}
	pu_hist_merge(&a, &b);
	ok(!memcmp(&a, &ab, sizeof(a)), "merge of two equals the histogram of the union");
	ok(pu_hist_percentile(&a, 0.99) == pu_hist_percentile(&ab, 0.99), "so do their p99");
}

static void test_json(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct pu_json j;
	int same;

	pu_json_begin(&j, f);
	pu_json_int(&j, "clients", 2);
	pu_json_u64(&j, "ops", 18446744073709551615ull);
	pu_json_double(&j, "mean_us", 1, 12.345);
	j.prefix = "get_";
	pu_json_str(&j, "name", "a\"b\\c\n");
	ok(!pu_json_end(&j) && !fclose(f), "json written");
	same = buf && !strcmp(buf, "{\"clients\": 2, \"ops\": 18446744073709551615, "
			      "\"mean_us\": 12.3, \"get_name\": \"a\\\"b\\\\c\\u000a\"}\n");
	ok(same, "flat record: %.*s", buf ? (int)strcspn(buf, "\n") : 0, buf ? buf : "");
	free(buf);
	f = open_memstream(&buf, &len);
	pu_json_begin(&j, f);
	pu_json_end(&j);
	fclose(f);
	ok(buf && !strcmp(buf, "{}\n"), "empty record");
	free(buf);
}

/* write_result(path, ops, secs, iv_ms, tl..., counters): one result file. */
static int write_result(const char *path, uint64_t ops, double secs, uint64_t iv_ms,
			const uint64_t *tl, size_t n, const char *counters)
{
	static struct pu_hist h;
	FILE *f = fopen(path, "w");
	uint64_t i;
	int err;

	if (!f)
		return -errno;
	memset(&h, 0, sizeof(h));
	for (i = 0; i < ops; i++)
		pu_hist_record(&h, 1000 * (i % 10 + 1));	/* 1..10 us */
	err = pu_result_write(f, ops, 1, secs, &h, iv_ms, tl, n, counters);
	return fclose(f) || err ? -EIO : 0;
}

static void test_result(void)
{
	static struct pu_result r, r2;
	const uint64_t tla[] = { 10, 20, 30, 5 }, tlb[] = { 1, 2, 3 };
	char dir[] = "/tmp/pu_resXXXXXX", a[64], b[64], c[64], d[64];
	char *buf = NULL, cnt[512] = "";
	size_t len = 0, i;
	struct pu_json j;
	FILE *f;
	int have = !!mkdtemp(dir), e;

	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(c, sizeof(c), "%s/c", dir);
	snprintf(d, sizeof(d), "%s/d", dir);
	ok(have && !write_result(a, 100, 1.0, 500, tla, 4, "x=1 y=2") &&
	   !write_result(b, 300, 2.0, 500, tlb, 3, "y=5 z=7"), "two result files written");
	ok(!pu_result_merge(&r, a) && !pu_result_merge(&r, b), "merged");
	ok(r.files == 2 && r.ops == 400 && r.errors == 2 && r.tput == 250.0,
	   "sums: %u files, %llu ops, %llu errors, %.1f ops/s", r.files,
	   (unsigned long long)r.ops, (unsigned long long)r.errors, r.tput);
	ok(r.hist.count == 400 && pu_hist_percentile(&r.hist, 1.0) == 10000,
	   "histograms merged: %llu samples, max 10 us", (unsigned long long)r.hist.count);
	ok(r.n_tl == 4 && r.tl[0] == 11 && r.tl[1] == 22 && r.tl[2] == 33 && r.tl[3] == 5,
	   "timelines summed interval by interval, the longer one's tail kept");
	ok(r.ncounters == 3 && !strcmp(r.cname[1], "y") && r.cval[1] == 7 && r.cval[2] == 7,
	   "counters summed by name, in order of first appearance");
	f = open_memstream(&buf, &len);
	pu_json_begin(&j, f);
	pu_result_json(&r, &j);
	pu_json_end(&j);
	fclose(f);
	ok(buf && strstr(buf, "\"clients\": 2, \"ops\": 400, \"errors\": 2, \"throughput\": 250.0") &&
	   strstr(buf, "\"x\": 1, \"y\": 7, \"z\": 7") &&
	   strstr(buf, "\"interval_ms\": 500, \"timeline\": \"22 44 66\"}"),
	   "json: %.*s", buf ? (int)strcspn(buf, "\n") : 0, buf ? buf : "");
	free(buf);
	pu_result_free(&r);

	ok(!write_result(c, 10, 1.0, 250, tla, 4, NULL) && !pu_result_merge(&r2, a) &&
	   pu_result_merge(&r2, c) == -EINVAL, "a timeline of another interval: -EINVAL");
	pu_result_free(&r2);
	memset(&r2, 0, sizeof(r2));
	for (i = 0; i <= PU_RESULT_COUNTERS; i++) {
		size_t l = strlen(cnt);

		snprintf(cnt + l, sizeof(cnt) - l, "%sc%zu=1", i ? " " : "", i);
	}
	ok(!write_result(d, 10, 1.0, 0, NULL, 0, cnt) && pu_result_merge(&r2, d) == -E2BIG,
	   "more than %d counter names: -E2BIG", PU_RESULT_COUNTERS);
	pu_result_free(&r2);
	memset(&r2, 0, sizeof(r2));
	e = pu_result_merge(&r2, "/nonexistent/result");
	ok(e == -ENOENT, "a missing file: -ENOENT (%d)", e);
	f = fopen(d, "w");
	if (f) {
		fputs("run 1 0 1.0\nhist 1 5 5\n5 1\n", f);	/* no "end" */
		fclose(f);
	}
	ok(pu_result_merge(&r2, d) == -EINVAL && r2.files == 0, "a truncated histogram: -EINVAL, nothing merged");
	pu_result_free(&r2);
	unlink(a);
	unlink(b);
	unlink(c);
	unlink(d);
	rmdir(dir);
}

static void test_files(void)
{
	char dir[] = "/tmp/pu_testXXXXXX", path[64], tmp[80], line[16];
	int have = !!mkdtemp(dir);

	snprintf(path, sizeof(path), "%s/info", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	ok(have && !pu_write_atomic(path, "mac 1\nep 2\n") && access(tmp, F_OK),
	   "atomic write leaves no .tmp");
	ok(!pu_read_first_line(path, line, sizeof(line)) && !strcmp(line, "mac 1\n"),
	   "first line read back");
	ok(!pu_write_atomic(path, "") && pu_read_first_line(path, line, sizeof(line)) == -EINVAL,
	   "empty file: -EINVAL");
	ok(!pu_wait_file(path, 0), "wait for a file that exists: at once");
	unlink(path);
	{
		uint64_t t0 = pu_now_ns();
		int r = pu_wait_file(path, 30);

		ok(r == -ETIMEDOUT && pu_now_ns() - t0 >= 30000000,
		   "wait for a missing file: -ETIMEDOUT after its timeout (%d)", r);
	}
	ok(pu_read_first_line(path, line, sizeof(line)) == -ENOENT, "missing file: -ENOENT");
	ok(pu_write_atomic("/nonexistent/dir/x", "x") == -ENOENT, "unwritable: -errno");
	{
		char ready[80], start[80];
		int fd = open("/dev/null", O_WRONLY), e = dup(2), r1, r2, r3, r4;

		snprintf(ready, sizeof(ready), "%s/ready", dir);
		snprintf(start, sizeof(start), "%s/start", dir);
		dup2(fd, 2);	/* the failures' messages */
		r1 = pu_start_line("t", ready, start, 30);
		r2 = pu_read_first_line(ready, line, sizeof(line));
		pu_write_atomic(start, "go\n");
		r3 = pu_start_line("t", NULL, start, 30);
		r4 = pu_start_line("t", "/nonexistent/dir/r", start, 30);
		dup2(e, 2);
		close(fd);
		close(e);
		ok(r1 == -ETIMEDOUT && !r2 && !strcmp(line, "ready\n"),
		   "start line: ready written, no start file: -ETIMEDOUT (%d)", r1);
		ok(!r3 && r4 == -ENOENT && !pu_start_line("t", NULL, NULL, 0),
		   "start line: the start file there: 0; ready unwritable: -ENOENT; nothing: 0");
		unlink(ready);
		unlink(start);
	}
	if (have)
		rmdir(dir);
}

/* pu_parse_opts over the words of line (modified), stderr silenced. */
static int parse(char *line, const struct pu_opt *opts)
{
	char *argv[24], *save;
	int argc = 0, fd = open("/dev/null", O_WRONLY), err = dup(2), r;

	for (argv[argc] = strtok_r(line, " ", &save); argv[argc] && argc < 23;
	     argv[++argc] = strtok_r(NULL, " ", &save))
		;
	dup2(fd, 2);
	r = pu_parse_opts(argc, argv, opts, "prog [options] ARG");
	dup2(err, 2);
	close(fd);
	close(err);
	return r;
}

static void test_opts(void)
{
	const char *s = NULL;
	int flag = 0, choice = 0, i = 0;
	unsigned int set = 0;
	unsigned short u16 = 7;
	uint64_t u64 = 0;
	long neg = 0;
	double d = 0;
	const struct pu_opt opts[] = {
		PU_OPT("str", s, "S", "a string"),
		PU_OPT_FLAG("flag", flag, "a flag"),
		PU_OPT("u16", u16, "N", "16 bits"),
		PU_OPT("u64", u64, "N", "64 bits"),
		PU_OPT("neg", neg, "N", "signed"),
		PU_OPT("int", i, "N", "int"),
		PU_OPT("d", d, "X", "double"),
		PU_OPT_CHOICE("mode", choice, "a|bb|c", "one of three"),
		PU_OPT_SET("bit", set, "x|y|z", "bits"),
		PU_OPT_END,
	};
	char l1[] = "prog --str hi pos --flag --u16 0xffff --u64 18446744073709551615 "
		    "--neg -9223372036854775808 --d 1.5e3 --mode c --bit x --bit z";
	char l2[] = "prog --u16 65536", l3[] = "prog --u64 -1", l4[] = "prog --neg 1x";
	char l5[] = "prog --mode b", l6[] = "prog --d inf", l7[] = "prog --nope 1";
	char l8[] = "prog --int -2147483649", l9[] = "prog --int -2147483648 --fl --mo bb";
	char l10[] = "prog --u16=", l11[] = "prog --mode a|bb";

	ok(parse(l1, opts) == 18 && !strcmp(s, "hi") && flag && u16 == 0xffff &&
	   u64 == UINT64_MAX && neg == INT64_MIN && d == 1500 && choice == 2 && set == 5,
	   "every kind converted; the non-option moved to the end (index 18)");
	ok(parse(l2, opts) < 0 && u16 == 0xffff, "u16 65536: out of range, unchanged");
	ok(parse(l3, opts) < 0 && parse(l4, opts) < 0 && neg == INT64_MIN,
	   "a sign on an unsigned, trailing garbage: refused");
	ok(parse(l5, opts) < 0 && parse(l11, opts) < 0 && choice == 2, "not a choice: refused");
	ok(parse(l6, opts) < 0 && parse(l7, opts) < 0 && parse(l10, opts) < 0,
	   "infinity, an unknown option, an empty number: refused");
	ok(parse(l8, opts) < 0 && parse(l9, opts) == 6 && i == INT32_MIN && choice == 1,
	   "int range by its size; unambiguous prefixes accepted");
}

int main(void)
{
	printf("TAP version 13\n");
	test_clock();
	test_le();
	test_rng();
	test_zipf();
	test_samples();
	test_hist();
	test_json();
	test_result();
	test_files();
	test_opts();
	printf("1..%d\n", tap_run);
	return tap_failed != 0;
}
