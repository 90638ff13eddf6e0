// SPDX-License-Identifier: MIT
/* Helpers shared by PRISM's applications and benchmarks (prism_util.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* clock_gettime() under -std=c11 */
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "prism_util.h"

/* ---- clocks ---- */

uint64_t pu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double pu_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* ---- Zipf ---- */

int pu_zipf_init(struct pu_zipf *z, uint32_t n, double theta)
{
	double sum = 0;
	uint32_t i;

	z->n = n;
	z->cdf = NULL;
	if (!n)
		return -EINVAL;
	if (theta <= 0)
		return 0;
	z->cdf = malloc(sizeof(double) * n);
	if (!z->cdf)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		sum += 1.0 / pow((double)(i + 1), theta);
		z->cdf[i] = sum;
	}
	for (i = 0; i < n; i++)
		z->cdf[i] /= sum;
	return 0;
}

uint32_t pu_zipf_pick(const struct pu_zipf *z, double u)
{
	uint32_t lo = 0, hi;

	if (!z->cdf) {
		uint32_t k = (uint32_t)(u * z->n);

		return k < z->n ? k : z->n - 1;
	}
	hi = z->n - 1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (z->cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

void pu_zipf_free(struct pu_zipf *z)
{
	free(z->cdf);
	z->cdf = NULL;
}

/* ---- latency statistics of samples ---- */

int pu_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int pu_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

double pu_median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double pu_pct_sorted(const double *v, size_t n, unsigned int pct)
{
	return v[(n * pct + 99) / 100 - 1];
}

struct pu_lat_summary pu_lat_summarize(double *v, size_t n)
{
	struct pu_lat_summary s = { 0 };
	size_t i;

	qsort(v, n, sizeof(double), pu_cmp_double);
	for (i = 0; i < n; i++)
		s.mean += v[i];
	s.mean /= (double)n;
	s.median = pu_median_sorted(v, n);
	s.p50 = v[(n - 1) / 2];
	s.p99 = pu_pct_sorted(v, n, 99);
	s.min = v[0];
	s.max = v[n - 1];
	return s;
}

/* ---- latency histogram ---- */

unsigned int pu_hist_index(uint64_t v)
{
	unsigned int e;

	if (v < 128)
		return (unsigned int)v;
	e = 63u - (unsigned int)__builtin_clzll(v);	/* 7..63 */
	return 128u + (e - 7u) * 64u + (unsigned int)((v >> (e - 6u)) & 63u);
}

uint64_t pu_hist_bucket_low(unsigned int idx)
{
	unsigned int e;

	if (idx < 128)
		return idx;
	e = (idx - 128u) / 64u + 7u;
	return (64ull + (idx - 128u) % 64u) << (e - 6u);
}

void pu_hist_record(struct pu_hist *h, uint64_t v)
{
	h->count++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
	h->bucket[pu_hist_index(v)]++;
}

uint64_t pu_hist_percentile(const struct pu_hist *h, double q)
{
	uint64_t need, seen = 0;
	unsigned int i;

	if (!h->count)
		return 0;
	need = (uint64_t)ceil(q * (double)h->count);
	if (need < 1)
		need = 1;
	for (i = 0; i < PU_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= need) {
			uint64_t hi = i + 1 < PU_HIST_BUCKETS ?
				      pu_hist_bucket_low(i + 1) - 1 : h->max;

			return hi < h->max ? hi : h->max;
		}
	}
	return h->max;
}

double pu_hist_mean(const struct pu_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

void pu_hist_merge(struct pu_hist *into, const struct pu_hist *from)
{
	unsigned int i;

	into->count += from->count;
	into->sum += from->sum;
	if (from->max > into->max)
		into->max = from->max;
	for (i = 0; i < PU_HIST_BUCKETS; i++)
		into->bucket[i] += from->bucket[i];
}

int pu_hist_write(const struct pu_hist *h, FILE *f)
{
	unsigned int i;

	fprintf(f, "hist %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", h->count,
		h->sum, h->max);
	for (i = 0; i < PU_HIST_BUCKETS; i++)
		if (h->bucket[i])
			fprintf(f, "%u %" PRIu64 "\n", i, h->bucket[i]);
	fprintf(f, "end\n");
	return ferror(f) ? -EIO : 0;
}

int pu_hist_read(struct pu_hist *h, FILE *f)
{
	char line[128];
	unsigned int idx;
	uint64_t n;

	memset(h, 0, sizeof(*h));
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "hist %" SCNu64 " %" SCNu64 " %" SCNu64, &h->count,
		   &h->sum, &h->max) != 3)
		return -EINVAL;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "end", 3))
			return 0;
		if (sscanf(line, "%u %" SCNu64, &idx, &n) != 2 ||
		    idx >= PU_HIST_BUCKETS)
			return -EINVAL;
		h->bucket[idx] += n;
	}
	return -EINVAL;
}

/* ---- benchmark result files ---- */

int pu_result_write(FILE *f, uint64_t ops, uint64_t errors, double secs,
		    const struct pu_hist *h, uint64_t iv_ms, const uint64_t *tl,
		    size_t n_tl, const char *counters)
{
	size_t i;

	fprintf(f, "run %" PRIu64 " %" PRIu64 " %.6f\n", ops, errors, secs);
	pu_hist_write(h, f);
	if (tl && iv_ms) {
		fprintf(f, "timeline %" PRIu64, iv_ms);
		for (i = 0; i < n_tl; i++)
			fprintf(f, " %" PRIu64, tl[i]);
		fputc('\n', f);
	}
	if (counters && *counters)
		fprintf(f, "counters %s\n", counters);
	return ferror(f) ? -EIO : 0;
}

/* "MS N0 N1 ..." of a timeline line into r. */
static int result_timeline(struct pu_result *r, const char *p, const char *path)
{
	uint64_t ms, c;
	size_t k;
	int used;

	if (sscanf(p, "%" SCNu64 "%n", &ms, &used) != 1 || !ms) {
		fprintf(stderr, "%s: malformed timeline\n", path);
		return -EINVAL;
	}
	if (r->iv_ms && ms != r->iv_ms) {
		fprintf(stderr, "%s: timeline of %" PRIu64 " ms, others of %" PRIu64 " ms\n",
			path, ms, r->iv_ms);
		return -EINVAL;
	}
	r->iv_ms = ms;
	r->files_tl++;
	for (k = 0, p += used; sscanf(p, "%" SCNu64 "%n", &c, &used) == 1; k++, p += used) {
		if (k >= r->n_tl) {
			uint64_t *nt = realloc(r->tl, (k + 1) * sizeof(*nt));

			if (!nt)
				return -ENOMEM;
			r->tl = nt;
			r->tl[r->n_tl++] = 0;
		}
		r->tl[k] += c;
	}
	return 0;
}

/* "NAME=V ..." of a counters line into r. */
static int result_counters(struct pu_result *r, const char *p)
{
	char name[32];
	uint64_t v;
	unsigned int i;
	int used;

	while (sscanf(p, " %31[a-z0-9_]=%" SCNu64 "%n", name, &v, &used) == 2) {
		p += used;
		for (i = 0; i < r->ncounters && strcmp(r->cname[i], name); i++)
			;
		if (i == r->ncounters) {
			if (i == PU_RESULT_COUNTERS)
				return -E2BIG;
			strcpy(r->cname[i], name);
			r->cval[i] = 0;
			r->ncounters++;
		}
		r->cval[i] += v;
	}
	return 0;
}

int pu_result_merge(struct pu_result *r, const char *path)
{
	struct pu_hist *one = malloc(sizeof(*one));
	uint64_t ops, errors;
	char *line = NULL;
	size_t cap = 0;
	double secs;
	int err = 0;
	FILE *f;

	if (!one)
		return -ENOMEM;
	f = fopen(path, "r");
	if (!f) {
		err = -errno;
		free(one);
		return err;
	}
	if (getline(&line, &cap, f) < 0 ||
	    sscanf(line, "run %" SCNu64 " %" SCNu64 " %lf", &ops, &errors, &secs) != 3 ||
	    pu_hist_read(one, f)) {
		fprintf(stderr, "%s: malformed (no run line or histogram)\n", path);
		err = -EINVAL;
	}
	while (!err && getline(&line, &cap, f) >= 0) {
		if (!strncmp(line, "timeline ", 9))
			err = result_timeline(r, line + 9, path);
		else if (!strncmp(line, "counters ", 9))
			err = result_counters(r, line + 9);
	}
	free(line);
	fclose(f);
	if (!err) {
		r->ops += ops;
		r->errors += errors;
		if (secs > 0)
			r->tput += (double)ops / secs;
		r->files++;
		pu_hist_merge(&r->hist, one);
	}
	free(one);
	return err;
}

void pu_result_json(const struct pu_result *r, struct pu_json *j)
{
	unsigned int i;
	size_t k;

	pu_json_int(j, "clients", r->files);
	pu_json_u64(j, "ops", r->ops);
	pu_json_u64(j, "errors", r->errors);
	pu_json_double(j, "throughput", 1, r->tput);
	pu_json_double(j, "mean_us", 1, pu_hist_mean(&r->hist) / 1e3);
	pu_json_double(j, "p50_us", 1, (double)pu_hist_percentile(&r->hist, 0.50) / 1e3);
	pu_json_double(j, "p99_us", 1, (double)pu_hist_percentile(&r->hist, 0.99) / 1e3);
	for (i = 0; i < r->ncounters; i++)
		pu_json_u64(j, r->cname[i], r->cval[i]);
	if (r->files && r->files_tl == r->files && r->n_tl) {
		char *s = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&s, &len);

		if (!m)
			return;
		for (k = 0; k + 1 < r->n_tl; k++)
			fprintf(m, "%s%.0f", k ? " " : "",
				(double)r->tl[k] * 1000.0 / (double)r->iv_ms);
		if (fclose(m) == 0) {
			pu_json_u64(j, "interval_ms", r->iv_ms);
			pu_json_str(j, "timeline", s);
		}
		free(s);
	}
}

void pu_result_free(struct pu_result *r)
{
	free(r->tl);
	r->tl = NULL;
	r->n_tl = 0;
}

int pu_result_merge_print(const char *prog, int nfiles, char **files)
{
	struct pu_result *all = calloc(1, sizeof(*all));
	struct pu_json j;
	int i, err = all ? 0 : -ENOMEM;

	for (i = 0; i < nfiles && !err; i++) {
		err = pu_result_merge(all, files[i]);
		if (err && err != -EINVAL)
			fprintf(stderr, "%s: %s: %s\n", prog, files[i], strerror(-err));
	}
	if (!err) {
		pu_json_begin(&j, stdout);
		pu_result_json(all, &j);
		err = pu_json_end(&j);
	}
	if (all)
		pu_result_free(all);
	free(all);
	return err ? 3 : 0;
}

/* ---- flat JSON records ---- */

void pu_json_begin(struct pu_json *j, FILE *f)
{
	j->f = f;
	j->prefix = NULL;
	j->nfields = 0;
	fputc('{', f);
}

static void json_key(struct pu_json *j, const char *key)
{
	fprintf(j->f, "%s\"%s%s\": ", j->nfields++ ? ", " : "",
		j->prefix ? j->prefix : "", key);
}

void pu_json_u64(struct pu_json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void pu_json_int(struct pu_json *j, const char *key, long long v)
{
	json_key(j, key);
	fprintf(j->f, "%lld", v);
}

void pu_json_double(struct pu_json *j, const char *key, int prec, double v)
{
	json_key(j, key);
	fprintf(j->f, "%.*f", prec, v);
}

void pu_json_str(struct pu_json *j, const char *key, const char *v)
{
	json_key(j, key);
	fputc('"', j->f);
	for (; *v; v++) {
		unsigned char c = (unsigned char)*v;

		if (c == '"' || c == '\\')
			fprintf(j->f, "\\%c", c);
		else if (c < 0x20)
			fprintf(j->f, "\\u%04x", c);
		else
			fputc(c, j->f);
	}
	fputc('"', j->f);
}

int pu_json_end(struct pu_json *j)
{
	fputs("}\n", j->f);
	return ferror(j->f) ? -EIO : 0;
}

/* ---- small files ---- */

int pu_write_atomic(const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fputs(text, f);
	if (fclose(f) || rename(tmp, path))
		return -errno;
	return 0;
}

int pu_read_first_line(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	int err;

	if (!f)
		return -errno;
	err = fgets(buf, (int)cap, f) ? 0 : -EINVAL;
	fclose(f);
	return err;
}

int pu_wait_file(const char *path, int timeout_ms)
{
	uint64_t end = pu_now_ns() + (uint64_t)timeout_ms * 1000000;
	struct timespec ts = { 0, 2 * 1000 * 1000 };

	while (access(path, F_OK)) {
		if (pu_now_ns() > end)
			return -ETIMEDOUT;
		nanosleep(&ts, NULL);
	}
	return 0;
}

int pu_start_line(const char *prog, const char *ready, const char *start,
		  int timeout_ms)
{
	int err = ready ? pu_write_atomic(ready, "ready\n") : 0;

	if (err) {
		fprintf(stderr, "%s: %s: %s\n", prog, ready, strerror(-err));
		return err;
	}
	err = start ? pu_wait_file(start, timeout_ms) : 0;
	if (err)
		fprintf(stderr, "%s: %s: not there after %d ms\n", prog, start, timeout_ms);
	return err;
}

/* ---- command-line options ---- */

#define PU_OPTS_MAX	32

/* The index of word in "a|b|c", or -1. */
static int pu_choice(const char *choices, const char *word)
{
	size_t len = strlen(word);
	const char *p = strchr(word, '|') ? NULL : choices;
	int i;

	for (i = 0; p; i++) {
		if (!strncmp(p, word, len) && (p[len] == '|' || !p[len]))
			return i;
		p = strchr(p, '|');
		if (p)
			p++;
	}
	return -1;
}

/* An integer of o->size bytes into o->dst: 0, or -1 if s is not one. */
static int pu_opt_int(const struct pu_opt *o, const char *s)
{
	int sign = o->kind == PU_OPT_INT;
	unsigned long long v, max = ~0ull >> (64 - 8 * o->size + sign);
	long long min = sign ? -(long long)max - 1 : 0;
	union { uint8_t b; uint16_t h; uint32_t w; uint64_t d; } u;
	char *end;
	int bad;

	errno = 0;
	if (sign) {
		long long x = strtoll(s, &end, 0);

		v = (unsigned long long)x;
		bad = x < min || (x > 0 && v > max);
	} else {
		v = strtoull(s, &end, 0);
		bad = strchr(s, '-') || v > max;
	}
	if (end == s || *end || errno || bad) {
		fprintf(stderr, "--%s: '%s' is not a whole number from %lld to %llu\n",
			o->name, s, min, max);
		return -1;
	}
	/* The low o->size bytes of v, in the variable's own representation. */
	switch (o->size) {
	case 1: u.b = (uint8_t)v; break;
	case 2: u.h = (uint16_t)v; break;
	case 4: u.w = (uint32_t)v; break;
	default: u.d = v; break;
	}
	memcpy(o->dst, &u, o->size);
	return 0;
}

/* Convert s into o->dst: 0, or -1 after saying why it does not fit. */
static int pu_opt_set(const struct pu_opt *o, const char *s)
{
	double d;
	char *end;
	int i;

	switch (o->kind) {
	case PU_OPT_FLAG:
		*(int *)o->dst = 1;
		return 0;
	case PU_OPT_STR:
		*(const char **)o->dst = s;
		return 0;
	case PU_OPT_DOUBLE:
		errno = 0;
		d = strtod(s, &end);
		if (end == s || *end || errno || !isfinite(d)) {
			fprintf(stderr, "--%s: '%s' is not a number\n", o->name, s);
			return -1;
		}
		*(double *)o->dst = d;
		return 0;
	case PU_OPT_CHOICE:
	case PU_OPT_SET:
		i = pu_choice(o->arg, s);
		if (i < 0) {
			fprintf(stderr, "--%s: '%s' is not one of %s\n", o->name, s, o->arg);
			return -1;
		}
		if (o->kind == PU_OPT_CHOICE)
			*(int *)o->dst = i;
		else
			*(unsigned int *)o->dst |= 1u << i;
		return 0;
	default:
		return pu_opt_int(o, s);
	}
}

int pu_opts_usage(const struct pu_opt *opts, const char *synopsis)
{
	char left[64];

	fprintf(stderr, "usage: %s\n", synopsis);
	for (; opts->name; opts++) {
		snprintf(left, sizeof(left), "--%s%s%s", opts->name,
			 opts->arg ? " " : "", opts->arg ? opts->arg : "");
		fprintf(stderr, "  %-28s %s\n", left, opts->help);
	}
	return 2;
}

int pu_parse_opts(int argc, char **argv, const struct pu_opt *opts,
		  const char *synopsis)
{
	struct option lo[PU_OPTS_MAX + 1] = { { 0 } };
	int n, ch, idx;

	for (n = 0; opts[n].name; n++) {
		if (n == PU_OPTS_MAX) {
			fprintf(stderr, "pu_parse_opts: over %d options\n", PU_OPTS_MAX);
			return -1;
		}
		lo[n].name = opts[n].name;
		lo[n].has_arg = opts[n].kind == PU_OPT_FLAG ? no_argument : required_argument;
	}
	optind = 1;
	while ((ch = getopt_long(argc, argv, "", lo, &idx)) != -1) {
		if (ch || pu_opt_set(&opts[idx], optarg)) {
			pu_opts_usage(opts, synopsis);	/* after what is wrong */
			return -1;
		}
	}
	return optind;
}

int pu_in_netns(const char *ns, int (*fn)(const void *), const void *arg)
{
	char path[256];
	int self, target, ret, err;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	target = open(path, O_RDONLY | O_CLOEXEC);
	if (self < 0 || target < 0) {
		err = -errno;
		goto out;
	}
	if (setns(target, CLONE_NEWNET)) {
		err = -errno;
		goto out;
	}
	ret = fn(arg);
	if (setns(self, CLONE_NEWNET)) {
		/* Cannot continue in the wrong namespace. */
		perror("setns back");
		exit(2);
	}
	err = ret;
out:
	if (self >= 0)
		close(self);
	if (target >= 0)
		close(target);
	return err;
}
