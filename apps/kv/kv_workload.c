// SPDX-License-Identifier: MIT
/* PRISM-KV benchmark helpers: random numbers and keys. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "kv_format.h"
#include "kv_workload.h"

void kv_rng_seed(struct kv_rng *r, uint64_t seed)
{
	r->s = seed ^ 0x9e3779b97f4a7c15ull;
}

uint64_t kv_rng_next(struct kv_rng *r)
{
	uint64_t z = pu_splitmix64(r->s);

	r->s += 0x9e3779b97f4a7c15ull;
	return z;
}

double kv_rng_unit(struct kv_rng *r)
{
	return (double)(kv_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

int kv_keygen_init(struct kv_keygen *g, uint64_t n, int zipf, double theta)
{
	g->n = n;
	g->zipf = zipf;
	g->z.cdf = NULL;
	if (!n || (zipf && n > UINT32_MAX))
		return -EINVAL;
	return zipf ? pu_zipf_init(&g->z, (uint32_t)n, theta) : 0;
}

void kv_keygen_free(struct kv_keygen *g)
{
	pu_zipf_free(&g->z);
}

uint64_t kv_keygen_next(const struct kv_keygen *g, struct kv_rng *r)
{
	uint64_t rank;

	if (!g->zipf)
		return kv_rng_next(r) % g->n;
	rank = pu_zipf_pick(&g->z, kv_rng_unit(r));
	return kv_hash64(&rank, sizeof(rank), 0x7a697066) % g->n;
}

int kv_key_name(uint64_t i, char *buf, size_t cap)
{
	if (i >= KV_MAX_RECORDS)
		return -EINVAL;
	return snprintf(buf, cap, "%08" PRIx64, i);
}

void kv_value_fill(unsigned char *val, size_t len, uint64_t key, uint64_t seq)
{
	size_t i;

	for (i = 0; i < len; i++)
		val[i] = (unsigned char)('a' + (key + seq + i) % 26);
}

int kv_value_ok(const unsigned char *val, size_t len)
{
	size_t i;

	if (len && (val[0] < 'a' || val[0] > 'z'))
		return 0;
	for (i = 1; i < len; i++)
		if (val[i] != 'a' + (val[0] - 'a' + i) % 26)
			return 0;
	return 1;
}
