/* SPDX-License-Identifier: MIT */
/*
 * PRISM-KV benchmark helpers: random numbers and keys.  Zipf ranks, the
 * latency histogram and clocks are prism_util's (tools/lib/c).
 */
#ifndef KV_WORKLOAD_H
#define KV_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "prism_util.h"

/* splitmix64: small, fast, good enough for workload generation. */
struct kv_rng {
	uint64_t s;
};
void kv_rng_seed(struct kv_rng *r, uint64_t seed);
uint64_t kv_rng_next(struct kv_rng *r);
double kv_rng_unit(struct kv_rng *r);		/* [0, 1) */

/*
 * Key chooser: uniform, or Zipf with ranks scrambled by a hash so the hot
 * keys are spread over the key space (YCSB's scrambled Zipfian).
 */
struct kv_keygen {
	uint64_t	n;
	int		zipf;
	struct pu_zipf	z;
};
/* 0, -EINVAL (n is 0, or above 2^32 for Zipf) or -ENOMEM. */
int kv_keygen_init(struct kv_keygen *g, uint64_t n, int zipf, double theta);
uint64_t kv_keygen_next(const struct kv_keygen *g, struct kv_rng *r);
void kv_keygen_free(struct kv_keygen *g);
/*
 * Key of record i: 8 bytes, as the paper's (i in 8 hex digits, so also a
 * memcached key).  Returns its length, or -EINVAL if i >= 2^32.
 */
#define KV_KEY_LEN	8
#define KV_MAX_RECORDS	(1ull << 32)
int kv_key_name(uint64_t i, char *buf, size_t cap);
/*
 * The benchmark's value of record key written by its seq-th PUT (0: the
 * load), so a wrong one is recognisable; kv-server --preload writes the
 * same bytes as kv bench --load.
 */
void kv_value_fill(unsigned char *val, size_t len, uint64_t key, uint64_t seq);
/* 1 if val is one kv_value_fill() wrote (of some key and seq), else 0. */
int kv_value_ok(const unsigned char *val, size_t len);

#endif /* KV_WORKLOAD_H */
