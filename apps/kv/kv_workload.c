// SPDX-License-Identifier: MIT
/* PRISM-KV benchmark helpers: random numbers, Zipf keys, latency histogram. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
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
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

double kv_rng_unit(struct kv_rng *r)
{
	return (double)(kv_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

double kv_zeta(uint64_t n, double theta)
{
	double sum = 0;
	uint64_t i;

	for (i = 1; i <= n; i++)
		sum += 1.0 / pow((double)i, theta);
	return sum;
}

void kv_zipf_init(struct kv_zipf *z, uint64_t n, double theta)
{
	double zeta2 = kv_zeta(2, theta);

	z->n = n;
	z->theta = theta;
	z->alpha = 1.0 / (1.0 - theta);
	z->zetan = kv_zeta(n, theta);
	z->eta = (1.0 - pow(2.0 / (double)n, 1.0 - theta)) / (1.0 - zeta2 / z->zetan);
	z->half_pow_theta = 1.0 + pow(0.5, theta);
}

uint64_t kv_zipf_next(const struct kv_zipf *z, struct kv_rng *r)
{
	double u = kv_rng_unit(r), uz = u * z->zetan;
	uint64_t v;

	if (uz < 1.0)
		return 0;
	if (uz < z->half_pow_theta)
		return 1;
	v = (uint64_t)((double)z->n * pow(z->eta * u - z->eta + 1.0, z->alpha));
	return v < z->n ? v : z->n - 1;
}

void kv_keygen_init(struct kv_keygen *g, uint64_t n, int zipf, double theta)
{
	g->n = n;
	g->zipf = zipf;
	if (zipf)
		kv_zipf_init(&g->z, n, theta);
}

uint64_t kv_keygen_next(const struct kv_keygen *g, struct kv_rng *r)
{
	uint64_t rank;

	if (!g->zipf)
		return kv_rng_next(r) % g->n;
	rank = kv_zipf_next(&g->z, r);
	return kv_hash64(&rank, sizeof(rank), 0x7a697066) % g->n;
}

int kv_key_name(uint64_t i, char *buf, size_t cap)
{
	return snprintf(buf, cap, "user%010" PRIu64, i);
}

unsigned int kv_hist_index(uint64_t ns)
{
	unsigned int e;

	if (ns < 128)
		return (unsigned int)ns;
	e = 63u - (unsigned int)__builtin_clzll(ns);	/* 7..63 */
	return 128u + (e - 7u) * 64u + (unsigned int)((ns >> (e - 6u)) & 63u);
}

uint64_t kv_hist_bucket_low(unsigned int idx)
{
	unsigned int e;

	if (idx < 128)
		return idx;
	e = (idx - 128u) / 64u + 7u;
	return (64ull + (idx - 128u) % 64u) << (e - 6u);
}

void kv_hist_add(struct kv_hist *h, uint64_t ns)
{
	h->count++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->bucket[kv_hist_index(ns)]++;
}

uint64_t kv_hist_quantile(const struct kv_hist *h, double q)
{
	uint64_t need, seen = 0;
	unsigned int i;

	if (!h->count)
		return 0;
	need = (uint64_t)ceil(q * (double)h->count);
	if (need < 1)
		need = 1;
	for (i = 0; i < KV_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= need) {
			uint64_t hi = i + 1 < KV_HIST_BUCKETS ?
				      kv_hist_bucket_low(i + 1) - 1 : h->max_ns;

			return hi < h->max_ns ? hi : h->max_ns;
		}
	}
	return h->max_ns;
}

void kv_hist_merge(struct kv_hist *into, const struct kv_hist *from)
{
	unsigned int i;

	into->count += from->count;
	into->sum_ns += from->sum_ns;
	if (from->max_ns > into->max_ns)
		into->max_ns = from->max_ns;
	for (i = 0; i < KV_HIST_BUCKETS; i++)
		into->bucket[i] += from->bucket[i];
}

int kv_hist_write(const struct kv_hist *h, FILE *f)
{
	unsigned int i;

	fprintf(f, "hist %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", h->count,
		h->sum_ns, h->max_ns);
	for (i = 0; i < KV_HIST_BUCKETS; i++)
		if (h->bucket[i])
			fprintf(f, "%u %" PRIu64 "\n", i, h->bucket[i]);
	fprintf(f, "end\n");
	return ferror(f) ? -EIO : 0;
}

int kv_hist_read(struct kv_hist *h, FILE *f)
{
	char line[128];
	unsigned int idx;
	uint64_t n;

	memset(h, 0, sizeof(*h));
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "hist %" SCNu64 " %" SCNu64 " %" SCNu64, &h->count,
		   &h->sum_ns, &h->max_ns) != 3)
		return -EINVAL;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "end", 3))
			return 0;
		if (sscanf(line, "%u %" SCNu64, &idx, &n) != 2 ||
		    idx >= KV_HIST_BUCKETS)
			return -EINVAL;
		h->bucket[idx] += n;
	}
	return -EINVAL;
}
