/* SPDX-License-Identifier: MIT */
/* PRISM-KV benchmark helpers: random numbers, Zipf keys, latency histogram. */
#ifndef KV_WORKLOAD_H
#define KV_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* splitmix64: small, fast, good enough for workload generation. */
struct kv_rng {
	uint64_t s;
};
void kv_rng_seed(struct kv_rng *r, uint64_t seed);
uint64_t kv_rng_next(struct kv_rng *r);
double kv_rng_unit(struct kv_rng *r);		/* [0, 1) */

/*
 * Zipf over ranks [0, n) with skew theta (0 < theta < 1), after Gray et
 * al., "Quickly generating billion-record synthetic databases" (SIGMOD'94),
 * as used by YCSB.  Rank 0 is the most popular.
 */
struct kv_zipf {
	uint64_t	n;
	double		theta, alpha, zetan, eta, half_pow_theta;
};
void kv_zipf_init(struct kv_zipf *z, uint64_t n, double theta);
uint64_t kv_zipf_next(const struct kv_zipf *z, struct kv_rng *r);
/* Generalised harmonic number: sum over i = 1..n of 1 / i^theta. */
double kv_zeta(uint64_t n, double theta);

/*
 * Key chooser: uniform, or Zipf with ranks scrambled by a hash so the hot
 * keys are spread over the key space (YCSB's scrambled Zipfian).
 */
struct kv_keygen {
	uint64_t	n;
	int		zipf;
	struct kv_zipf	z;
};
void kv_keygen_init(struct kv_keygen *g, uint64_t n, int zipf, double theta);
uint64_t kv_keygen_next(const struct kv_keygen *g, struct kv_rng *r);
/* YCSB-style key name of record i ("user" + 10 digits). */
int kv_key_name(uint64_t i, char *buf, size_t cap);

/*
 * Latency histogram in nanoseconds, log-linear: exact below 128 ns, then
 * 64 buckets per power of two (< 1.6 % error).
 */
#define KV_HIST_BUCKETS	(128 + 64 * 57)
struct kv_hist {
	uint64_t	count;
	uint64_t	sum_ns;
	uint64_t	max_ns;
	uint64_t	bucket[KV_HIST_BUCKETS];
};
void kv_hist_add(struct kv_hist *h, uint64_t ns);
unsigned int kv_hist_index(uint64_t ns);
uint64_t kv_hist_bucket_low(unsigned int idx);	/* smallest value of the bucket */
/* Value below which fraction q of the samples lie (bucket's upper bound). */
uint64_t kv_hist_quantile(const struct kv_hist *h, double q);
void kv_hist_merge(struct kv_hist *into, const struct kv_hist *from);
/* Text form: "hist COUNT SUM MAX" then "IDX N" lines, "end". */
int kv_hist_write(const struct kv_hist *h, FILE *f);
int kv_hist_read(struct kv_hist *h, FILE *f);

#endif /* KV_WORKLOAD_H */
