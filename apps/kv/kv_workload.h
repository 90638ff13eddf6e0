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
/* YCSB-style key name of record i ("user" + 10 digits). */
int kv_key_name(uint64_t i, char *buf, size_t cap);

#endif /* KV_WORKLOAD_H */
