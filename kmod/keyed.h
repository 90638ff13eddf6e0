/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keyed regions (kmod/keyed.c): region keys and their rotation, the derived
 * keys clients attach to their sockets, and the sealing and opening of AREQ
 * and ARESP frames.  doc/SECURITY.md, "Keyed regions", has the design.
 */
#ifndef _PRISM_KEYED_H
#define _PRISM_KEYED_H

#include <linux/refcount.h>
#include "crypt.h"
#include "prism.h"

/* What sealing adds to a frame's body: the prism_wauth and the tag. */
#define PRISM_SEAL_OVERHEAD	(sizeof(struct prism_wauth) + PRISM_GCM_TAG_LEN)
/*
 * A target refuses AREQs whose time is further than this from its own
 * clock.  Sessions live PRISM_SESSION_IDLE_MS after their last chain, more
 * than twice this: a replayed AREQ always meets the session that ran it
 * (and is answered from its reply cache, not run), or is refused as stale.
 */
#define PRISM_AUTH_SKEW_S	30
/* Derived keys one client socket holds. */
#define PRISM_MAX_KEYS		256

/**
 * struct prism_region_keys - the keys of a keyed region
 * @cur: the region key, expanded
 * @old: the previous one, while @old_until has not passed
 * @old_until: jiffies: @old is accepted until then
 * @has_old: @old is set (a rotation with an overlap)
 * @gen: generation of @cur, from 1
 * @rcu: frees (and wipes) the keys after a grace period
 */
struct prism_region_keys {
	struct crypto_aes_ctx	cur;
	struct crypto_aes_ctx	old;
	unsigned long		old_until;
	bool			has_old;
	u32			gen;
	struct rcu_head		rcu;
};

/**
 * struct prism_ckey - a derived key attached to a client socket
 * @node: in &prism_sock.keys
 * @ref: the socket's and each chain's that uses it
 * @addr: the target
 * @ep: its endpoint id
 * @rkey: the keyed region
 * @rights: what the key was derived for
 * @key: the derived key, expanded
 */
struct prism_ckey {
	struct list_head	node;
	refcount_t		ref;
	struct prism_paddr	addr;
	u32			ep;
	u64			rkey;
	u8			rights;
	struct prism_gcm_key	key;
};

struct prism_sock;
struct prism_req;
struct prism_chain_in;

/* Target side: region keys. */
void prism_region_keys_free(struct prism_region_keys *keys);
u32 prism_region_key_gen(struct prism_region *r);
int prism_region_rekey(struct prism_mem *mem, u64 rkey, const u8 *key,
		       u32 overlap_ms, u32 *gen);
int prism_region_derive(struct prism_mem *mem, u64 rkey,
			const struct prism_paddr *pa, u32 ep, u32 rights,
			u8 kd[PRISM_KEY_LEN], u32 *gen);

/* Target side: frames. */
bool prism_areq_authentic(struct prism_region *r, const struct prism_whdr *hdr,
			  const struct prism_paddr *src, u32 text_len,
			  struct prism_gcm_key *key);
void prism_serve_keyed(struct net *net, struct sk_buff *skb,
		       const struct prism_whdr *hdr,
		       const struct prism_paddr *src);
u32 prism_resp_seal(const struct prism_chain_in *in, u8 *frame,
		    u32 body_len);

/* Client side: keys. */
void prism_ckeys_init(struct prism_sock *psk);
void prism_ckeys_destroy(struct prism_sock *psk);
int prism_ckey_set(struct prism_sock *psk, const struct prism_paddr *pa,
		   u32 ep, const struct prism_key *uk);
void prism_ckey_put(struct prism_ckey *ck);

/* Client side: frames. */
int prism_req_key(struct prism_req *req, const struct prism_paddr *dst,
		  u32 dst_ep, const u8 *body, u32 body_len);
int prism_req_keyed_frame(struct prism_req *req, u32 mtu);
void prism_req_seal(struct prism_req *req, struct sk_buff *skb);
int prism_resp_open(struct prism_req *req, struct sk_buff *skb,
		    const struct prism_whdr **hdrp, const u8 **body,
		    u32 *body_len);

#endif /* _PRISM_KEYED_H */
