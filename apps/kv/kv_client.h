/* SPDX-License-Identifier: MIT */
/*
 * PRISM-KV client library: GET/PUT/DELETE against a kv-server, either
 * PRISM-KV (every op one-sided) or the Pilaf-style baseline (GET one-sided
 * in two dependent READs, PUT/DELETE as a SEND RPC run by the server CPU).
 *
 * A struct kv_client is used by one thread at a time; open one per thread.
 * Functions return 0 or a negative errno:
 *   -ENOENT     key absent (GET, DELETE)
 *   -E2BIG      key or value too large (see KV_MAX_KEY, KV_MAX_VALUE)
 *   -EINVAL     empty key
 *   -EAGAIN     kv_put_if_version(): the key changed since that version
 *   -ENOSPC     no free buffer of the entry's size class (PRISM), table full
 *   -ESTALE     the server restarted (its rkey is gone): kv_client_reload()
 *   -ECONNREFUSED no server at the address
 *   -ETIMEDOUT  no answer in time: the outcome of a PUT/DELETE is unknown
 *   -EIO        the server's memory is inconsistent beyond retrying
 */
#ifndef KV_CLIENT_H
#define KV_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "kv_format.h"

struct kv_client;

struct kv_client_stats {
	uint64_t	probes;		/* one-sided probe round trips */
	uint64_t	torn_reads;	/* reads whose checksum/version failed, retried */
	uint64_t	cas_failures;	/* PUT CAS lost to a concurrent writer, retried */
	uint64_t	no_buffer;	/* ALLOC found the free list empty, retried */
	uint64_t	recycled;	/* buffers reported to the server */
	uint64_t	rpcs;		/* Pilaf RPCs */
};

/*
 * Open a client on interface ifname for the server described in the
 * address file info_path.  timeout_ms: per-chain deadline (0: 1000).
 */
int kv_client_open(struct kv_client **out, const char *ifname,
		   const char *info_path, int timeout_ms);
/* Flush pending recycling reports and close. */
void kv_client_close(struct kv_client *c);
/* Re-read the address file (after a server restart); drops pending reports. */
int kv_client_reload(struct kv_client *c);
const struct kv_info *kv_client_info(const struct kv_client *c);
const struct kv_client_stats *kv_client_stats(const struct kv_client *c);
/* Report replaced buffers once this many are pending (1..KV_RECYCLE_MAX). */
void kv_client_set_recycle_batch(struct kv_client *c, unsigned int n);
/* Send pending recycling reports now. */
int kv_client_flush(struct kv_client *c);

/*
 * GET: copies the value (at most cap bytes) to val and its length to
 * *vlen.  *version (may be NULL) gets the key's version, also when absent
 * (0 = never stored), for kv_put_if_version().  -EMSGSIZE when cap is too
 * small (*vlen says how much is needed).
 */
int kv_get(struct kv_client *c, const void *key, size_t klen, void *val,
	   size_t cap, size_t *vlen, uint64_t *version);
int kv_put(struct kv_client *c, const void *key, size_t klen, const void *val,
	   size_t vlen);
/* PUT only if the key's version is still expected (from kv_get()). */
int kv_put_if_version(struct kv_client *c, const void *key, size_t klen,
		      const void *val, size_t vlen, uint64_t expected);
int kv_delete(struct kv_client *c, const void *key, size_t klen);

#endif /* KV_CLIENT_H */
