/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by PRISM's applications (apps/kv, apps/rs, apps/tx) and
 * benchmarks (tools/bench): clocks, little-endian bytes, a random number
 * generator, Zipf keys, latency statistics (sorted samples and a mergeable
 * log-linear histogram), a writer of flat JSON records and small files.
 *
 * Plain C11 and libc (-lm); independent of liburing-prism, so programs
 * that do not link it (the host unit tests) can use it too.  Each Makefile compiles prism_util.c in (see prism_util.mk).
 */
#ifndef PRISM_UTIL_H
#define PRISM_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- clocks ---- */

/* CLOCK_MONOTONIC: shared by every netns of one (guest) kernel. */
uint64_t pu_now_ns(void);
double pu_now_us(void);

/* ---- little-endian bytes at any alignment ---- */

static inline void pu_put_le16(void *p, uint16_t v)
{
	uint8_t *b = (uint8_t *)p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void pu_put_le32(void *p, uint32_t v)
{
	uint8_t *b = (uint8_t *)p;
	int i;

	for (i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static inline void pu_put_le64(void *p, uint64_t v)
{
	uint8_t *b = (uint8_t *)p;
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t pu_get_le16(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return (uint16_t)(b[0] | (b[1] << 8));
}

static inline uint32_t pu_get_le32(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;
	uint32_t v = 0;
	int i;

	for (i = 3; i >= 0; i--)
		v = (v << 8) | b[i];
	return v;
}

static inline uint64_t pu_get_le64(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | b[i];
	return v;
}

/* ---- random numbers ---- */

/* xorshift64*: state *s must not be 0; the same seed, the same sequence. */
static inline uint64_t pu_rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/*
 * splitmix64's output for state x (the state then advances by
 * 0x9e3779b97f4a7c15): a cheap, well-mixed function of x.
 */
static inline uint64_t pu_splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Uniform in [0, 1), 53 bits. */
static inline double pu_rng_unit(uint64_t *s)
{
	return (double)(pu_rng_next(s) >> 11) / 9007199254740992.0;
}

/* ---- Zipf ---- */

/*
 * Zipf(theta) over ranks [0, n), rank 0 the most popular: P(k) is
 * proportional to 1 / (k + 1)^theta.  Exact inversion of the CDF (a table
 * of n doubles, binary search per draw), so any theta >= 0 works (theta 0
 * is uniform and needs no table; rs.sh also measures theta 1.2).
 */
struct pu_zipf {
	double		*cdf;		/* NULL when uniform */
	uint32_t	n;
};
/* 0, -EINVAL (n == 0) or -ENOMEM. */
int pu_zipf_init(struct pu_zipf *z, uint32_t n, double theta);
/* The rank of u, uniform in [0, 1): the first whose CDF exceeds u. */
uint32_t pu_zipf_pick(const struct pu_zipf *z, double u);
void pu_zipf_free(struct pu_zipf *z);

/* A draw with pu_rng_unit(): deterministic from the seed. */
static inline uint32_t pu_zipf_next(const struct pu_zipf *z, uint64_t *rng)
{
	return pu_zipf_pick(z, pu_rng_unit(rng));
}

/* ---- latency statistics of samples ---- */

int pu_cmp_double(const void *a, const void *b);	/* for qsort */
int pu_cmp_u64(const void *a, const void *b);

/* Median of sorted v (n > 0): the mean of the two middle values when n is even. */
double pu_median_sorted(const double *v, size_t n);
/* Nearest-rank percentile of sorted v (n > 0, 0 < pct <= 100): v[ceil(n pct / 100) - 1]. */
double pu_pct_sorted(const double *v, size_t n, unsigned int pct);

/* Statistics of n > 0 samples; median interpolates, p50 and p99 are samples. */
struct pu_lat_summary {
	double mean, median, p50, p99, min, max;
};
/* Sorts v. */
struct pu_lat_summary pu_lat_summarize(double *v, size_t n);

/* ---- latency histogram ---- */

/*
 * Log-linear (HdrHistogram-style) histogram of non-negative integers
 * (nanoseconds, say): exact below 128, then 64 buckets per power of two,
 * so a bucket's width is under 1/64 (1.6 %) of its values.  Histograms
 * of the same layout merge by adding buckets.
 */
#define PU_HIST_BUCKETS	(128 + 64 * 57)
struct pu_hist {
	uint64_t	count;
	uint64_t	sum;
	uint64_t	max;
	uint64_t	bucket[PU_HIST_BUCKETS];
};
void pu_hist_record(struct pu_hist *h, uint64_t v);
unsigned int pu_hist_index(uint64_t v);
uint64_t pu_hist_bucket_low(unsigned int idx);	/* smallest value of the bucket */
/*
 * Value below which fraction q of the samples lie: the upper bound of the
 * bucket holding the sample of rank ceil(q * count), at most max; 0 when
 * empty.
 */
uint64_t pu_hist_percentile(const struct pu_hist *h, double q);
double pu_hist_mean(const struct pu_hist *h);	/* exact; 0 when empty */
void pu_hist_merge(struct pu_hist *into, const struct pu_hist *from);
/* Text form: "hist COUNT SUM MAX" then "IDX N" lines, "end". */
int pu_hist_write(const struct pu_hist *h, FILE *f);
int pu_hist_read(struct pu_hist *h, FILE *f);	/* 0 or -EINVAL */

/* ---- flat JSON records ---- */

/*
 * One object on one line: {"key": value, "key": value}\n.  Keys are
 * written as given, after prefix (may be NULL).
 */
struct pu_json {
	FILE		*f;
	const char	*prefix;
	unsigned int	nfields;
};
void pu_json_begin(struct pu_json *j, FILE *f);
void pu_json_u64(struct pu_json *j, const char *key, uint64_t v);
void pu_json_int(struct pu_json *j, const char *key, long long v);
/* v with prec digits after the point ("%.*f"). */
void pu_json_double(struct pu_json *j, const char *key, int prec, double v);
/* v quoted, with '"', '\\' and control characters escaped. */
void pu_json_str(struct pu_json *j, const char *key, const char *v);
/* Closes the object and the line; 0 or -EIO. */
int pu_json_end(struct pu_json *j);

/* ---- benchmark result files ---- */

/*
 * What one client process measured, in a text file that the results of
 * other processes and hosts merge with:
 *	run OPS ERRORS SECONDS
 *	the latency histogram (pu_hist_write)
 *	timeline MS N0 N1 ...		optional: operations completed in each
 *					MS ms since the start
 *	counters NAME=V NAME=V ...	optional: summed by name
 * Other lines are ignored.
 */
#define PU_RESULT_COUNTERS	16
struct pu_result {
	uint64_t	ops;
	uint64_t	errors;
	double		tput;		/* sum of each file's OPS / SECONDS */
	unsigned int	files;
	unsigned int	files_tl;	/* files with a timeline */
	struct pu_hist	hist;
	uint64_t	iv_ms;		/* of the timelines */
	uint64_t	*tl;		/* summed per interval */
	size_t		n_tl;
	unsigned int	ncounters;
	char		cname[PU_RESULT_COUNTERS][32];
	uint64_t	cval[PU_RESULT_COUNTERS];
};
/* counters: "NAME=V ..." or NULL; tl: n_tl counts, or NULL. 0 or -EIO. */
int pu_result_write(FILE *f, uint64_t ops, uint64_t errors, double secs,
		    const struct pu_hist *h, uint64_t iv_ms, const uint64_t *tl,
		    size_t n_tl, const char *counters);
/*
 * Add the result file at path to r (all zeros before the first): 0,
 * -errno (cannot read it), -EINVAL (malformed, or a timeline of another
 * interval than the others': said on stderr), -ENOMEM, or -E2BIG (more
 * than PU_RESULT_COUNTERS counter names).  After an error r is partly
 * merged: give up on it.
 */
int pu_result_merge(struct pu_result *r, const char *path);
/*
 * The merged result into j: clients (files), ops, errors, throughput,
 * mean_us, p50_us, p99_us, each counter by its name, then interval_ms and
 * timeline (ops/s in each interval, the last, partial one left out) when
 * every file had a timeline.
 */
void pu_result_json(const struct pu_result *r, struct pu_json *j);
void pu_result_free(struct pu_result *r);
/*
 * The result files merged and printed as one JSON line on stdout: the
 * whole of "result-merge FILE..." and "kv merge FILE...".  Returns the
 * exit status: 0, or 3 after saying on stderr (prog: file: why) what
 * could not be merged.
 */
int pu_result_merge_print(const char *prog, int nfiles, char **files);

/* ---- small files ---- */

/*
 * Write text to path via path.tmp.PID and a rename: a poller never sees a
 * partial file, two writers never share a temporary one.  0 or -errno.
 */
int pu_write_atomic(const char *path, const char *text);
/* The first line of path into buf: 0, -errno (open) or -EINVAL (empty). */
int pu_read_first_line(const char *path, char *buf, size_t cap);
/*
 * Wait until path exists, polling every 2 ms (a start line that many
 * processes wait on): 0, or -ETIMEDOUT after timeout_ms.
 */
int pu_wait_file(const char *path, int timeout_ms);
/*
 * The start line of clients on many hosts (kv bench, rs_client,
 * tx_client): "ready" written to ready once set up (unless NULL), then
 * a wait of timeout_ms at most for start to exist (unless NULL).  0, or
 * -errno (-ETIMEDOUT: no start file) after saying "prog: FILE: why" on
 * stderr.
 */
int pu_start_line(const char *prog, const char *ready, const char *start,
		  int timeout_ms);

/* ---- network namespaces ---- */

/*
 * fn(arg) run in network namespace ns (/run/netns/ns), then back in the
 * caller's: what it returned (a socket it opened stays in ns), or -errno
 * if ns cannot be entered.  Exits if the caller's namespace cannot be
 * entered again.
 */
int pu_in_netns(const char *ns, int (*fn)(const void *), const void *arg);

/* ---- command-line options ---- */

/*
 * One table of long options ("--name", no short letters) gives the
 * getopt_long table, the conversions and the usage text.  Build entries
 * with the macros, which check the variable's type; end with PU_OPT_END.
 */
enum pu_opt_kind {
	PU_OPT_FLAG,	/* int, set to 1; takes no argument */
	PU_OPT_STR,	/* const char *, the argument itself */
	PU_OPT_INT,	/* a signed integer of size bytes */
	PU_OPT_UINT,	/* an unsigned integer of size bytes (no sign) */
	PU_OPT_DOUBLE,	/* double, finite */
	PU_OPT_CHOICE,	/* int: index of the argument in arg "a|b|c" */
	PU_OPT_SET,	/* unsigned int: bit index ORed in (repeatable) */
};
struct pu_opt {
	const char		*name;	/* NULL ends the table */
	enum pu_opt_kind	kind;
	void			*dst;
	size_t			size;	/* of *dst */
	const char		*arg;	/* in the usage text; the choices */
	const char		*help;
};
/* A string or a number: the kind follows from the type of var. */
#define PU_OPT(name, var, arg, help)					\
	{ name, _Generic((var), const char *: PU_OPT_STR,		\
		double: PU_OPT_DOUBLE, int: PU_OPT_INT,			\
		long: PU_OPT_INT, long long: PU_OPT_INT,		\
		unsigned char: PU_OPT_UINT, unsigned short: PU_OPT_UINT,\
		unsigned int: PU_OPT_UINT, unsigned long: PU_OPT_UINT,	\
		unsigned long long: PU_OPT_UINT),			\
	  &(var), sizeof(var), arg, help }
#define PU_OPT_FLAG(name, var, help)					\
	{ name, _Generic((var), int: PU_OPT_FLAG), &(var), sizeof(var), NULL, help }
#define PU_OPT_CHOICE(name, var, choices, help)				\
	{ name, _Generic((var), int: PU_OPT_CHOICE), &(var), sizeof(var), choices, help }
#define PU_OPT_SET(name, var, choices, help)				\
	{ name, _Generic((var), unsigned int: PU_OPT_SET), &(var), sizeof(var), choices, help }
#define PU_OPT_END	{ NULL, PU_OPT_FLAG, NULL, 0, NULL, NULL }

/*
 * getopt_long over argv from optind 1 (argv[0] is not an option), so
 * non-options are moved to the end.  Returns the index of the first
 * non-option, or -1 after telling stderr which option is wrong (unknown,
 * a number out of the variable's range, not one of the choices) and the
 * usage; a program then exits with status 2.
 */
int pu_parse_opts(int argc, char **argv, const struct pu_opt *opts,
		  const char *synopsis);
/* "usage: SYNOPSIS" and a line per option, on stderr; returns 2. */
int pu_opts_usage(const struct pu_opt *opts, const char *synopsis);

#endif /* PRISM_UTIL_H */
