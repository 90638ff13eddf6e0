// SPDX-License-Identifier: GPL-2.0
/*
 * Keyed regions: region keys and their rotation (target), derived keys
 * attached to client sockets, and AREQ/ARESP frames (doc/SECURITY.md,
 * "Keyed regions").
 *
 * A client seals every transmission of a chain on a keyed region under the
 * key Kd the server derived for it (its address, endpoint id and rights)
 * and handed it out of band.  The target derives Kd again from the frame,
 * under the region key, on the CPU serving the frame: it keeps nothing per
 * client before the tag proved the frame.  Only then does the chain go the
 * way of any other (sessions, reply cache, admission, the engine), with
 * the region and the rights the key grants (struct prism_exec_ctx).  Its
 * answer is sealed once, into the reply cache, so repeats send the same
 * bytes under the same nonce.
 *
 * Refusals: a frame for a region that is not keyed or unknown is answered
 * like a plain chain without a valid rkey (NO_ENDPOINT); a bad tag, a
 * region without a key yet, or a time more than PRISM_AUTH_SKEW_S from the
 * target's clock get AUTH_FAILED (rate limited like every refusal,
 * counted in auth_failed).  Answers to keyed chains with status OK that
 * are not ARESPs sealed for the chain are dropped (resp_auth_failed).
 * Status answers (NACK, AUTH_FAILED ...) are not sealed: they carry no
 * data, and an attacker who can forge them can drop frames as well.
 */
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>
#include "client.h"
#include "compat.h"
#include "keyed.h"
#include "rcache.h"

/* The derived key of the frame being served, per CPU (softirq). */
static DEFINE_PER_CPU(struct prism_gcm_key, prism_serve_key);

/* ---------------------------------------------------------------------------
 * Region keys (target: process context, and softirq for REKEY ops).
 */

static void prism_region_keys_rcu(struct rcu_head *head)
{
	kfree_sensitive(container_of(head, struct prism_region_keys, rcu));
}

/**
 * prism_region_keys_free() - wipe and free the keys of a region
 * @keys: the keys, or NULL; no reader may still use them
 *
 * Context: Any context.
 */
void prism_region_keys_free(struct prism_region_keys *keys)
{
	kfree_sensitive(keys);
}

/* The rotation of prism_region_rekey() and prism_region_rekey_op(). */
static int prism_region_rekey_gfp(struct prism_mem *mem, u64 rkey,
				  const u8 *key, u32 overlap_ms, gfp_t gfp,
				  u32 *gen)
{
	struct prism_region_keys *nk, *ok;
	struct prism_region *r;
	int err;

	if (overlap_ms > PRISM_MAX_OVERLAP_MS)
		return -EINVAL;
	nk = kzalloc(sizeof(*nk), gfp);
	if (!nk)
		return -ENOMEM;
	err = aes_expandkey(&nk->cur, key, PRISM_KEY_LEN);
	if (err)
		goto out;

	spin_lock_bh(&mem->lock);
	r = prism_region_find(mem, rkey);
	err = !r ? -ENOENT : !r->keyed ? -EINVAL : 0;
	if (err) {
		spin_unlock_bh(&mem->lock);
		goto out;
	}
	ok = rcu_dereference_protected(r->keys, lockdep_is_held(&mem->lock));
	nk->gen = ok ? ok->gen + 1 : 1;
	if (ok && overlap_ms) {
		nk->old = ok->cur;
		nk->has_old = true;
		nk->old_until = jiffies + msecs_to_jiffies(overlap_ms);
	}
	rcu_assign_pointer(r->keys, nk);
	spin_unlock_bh(&mem->lock);
	*gen = nk->gen;
	if (ok)
		call_rcu(&ok->rcu, prism_region_keys_rcu);
	return 0;
out:
	kfree_sensitive(nk);
	return err;
}

/**
 * prism_region_rekey() - install a region key of a keyed region
 * @mem: memory of the socket
 * @rkey: the region
 * @key: PRISM_KEY_LEN bytes of the new region key
 * @overlap_ms: keys derived from the current region key stay valid this
 *              long (0: they are refused at once)
 * @gen: receives the generation of the new key
 *
 * Context: Process context; takes @mem->lock.
 * Return: 0; -EINVAL if @overlap_ms is above PRISM_MAX_OVERLAP_MS or the
 * region is not keyed; -ENOENT if @mem has no region @rkey; -ENOMEM.
 */
int prism_region_rekey(struct prism_mem *mem, u64 rkey, const u8 *key,
		       u32 overlap_ms, u32 *gen)
{
	return prism_region_rekey_gfp(mem, rkey, key, overlap_ms,
				      GFP_KERNEL_ACCOUNT, gen);
}
EXPORT_SYMBOL_IF_KUNIT(prism_region_rekey);

/**
 * prism_region_rekey_op() - prism_region_rekey() for a REKEY op
 * @mem: memory of the target socket
 * @memcg: its memory cgroup, charged for the new keys (may be NULL)
 * @rkey: the region
 * @key: PRISM_KEY_LEN bytes of the new region key
 * @overlap_ms: as for prism_region_rekey()
 * @gen: receives the generation of the new key
 *
 * Context: Softirq (the engine), BH disabled; takes @mem->lock.
 * Return: as prism_region_rekey().
 */
int prism_region_rekey_op(struct prism_mem *mem, struct mem_cgroup *memcg,
			  u64 rkey, const u8 *key, u32 overlap_ms, u32 *gen)
{
	struct mem_cgroup *old = set_active_memcg(memcg);
	int err;

	err = prism_region_rekey_gfp(mem, rkey, key, overlap_ms,
				     GFP_ATOMIC | __GFP_ACCOUNT, gen);
	set_active_memcg(old);
	return err;
}

/**
 * prism_region_key_gen() - the generation of a region's key
 * @r: the region
 *
 * Context: Under rcu_read_lock() (or the region's mem->lock).
 * Return: the generation of its current region key; 0 for a plain region
 * or a keyed one without a key yet.
 */
u32 prism_region_key_gen(struct prism_region *r)
{
	struct prism_region_keys *keys = rcu_dereference_check(r->keys, true);

	return keys ? keys->gen : 0;
}
EXPORT_SYMBOL_IF_KUNIT(prism_region_key_gen);

/**
 * prism_region_derive() - the derived key of one client of a keyed region
 * @mem: memory of the socket
 * @rkey: the region
 * @pa: the client's link address
 * @ep: the client's endpoint id
 * @rights: PRISM_ACCESS_* bits it gets, within the region's access, and
 *          PRISM_KEY_ADMIN for a key that may rotate the region key
 * @kd: receives the derived key
 * @gen: receives the generation of the region key it is derived from
 *
 * Context: Process context; takes rcu_read_lock().
 * Return: 0; -ENOENT if @mem has no region @rkey; -EINVAL if it is not
 * keyed or @rights are not within its access; -ENOKEY if it has no key
 * yet.
 */
int prism_region_derive(struct prism_mem *mem, u64 rkey,
			const struct prism_paddr *pa, u32 ep, u32 rights,
			u8 kd[PRISM_KEY_LEN], u32 *gen)
{
	struct prism_kd_id id = {
		.addr = pa, .ep = ep, .rights = rights, .rkey = rkey,
	};
	struct prism_region_keys *keys;
	struct prism_region *r;
	int err;

	rcu_read_lock();
	r = prism_region_find(mem, rkey);
	if (!r) {
		err = -ENOENT;
	} else if (!r->keyed || !rights ||
		   (rights & ~(r->access | PRISM_KEY_ADMIN))) {
		err = -EINVAL;
	} else {
		keys = rcu_dereference(r->keys);
		err = keys ? prism_kd_derive(&keys->cur, &id, kd) : -ENOKEY;
		if (!err)
			*gen = keys->gen;
	}
	rcu_read_unlock();
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(prism_region_derive);

/* ---------------------------------------------------------------------------
 * Frames.
 */

/* The nonce of a frame: its request id and transmission, big-endian. */
static void prism_seal_iv(u8 *iv, __be64 req_id, u32 xmit)
{
	memcpy(iv, &req_id, sizeof(req_id));
	put_unaligned_be32(xmit, iv + sizeof(req_id));
}

#define PRISM_SEAL_AAD	(sizeof(struct prism_whdr) + sizeof(struct prism_wauth))

/*
 * Check the tag of an AREQ under a region key: Kd derived for the frame's
 * sender into key.
 */
static int prism_areq_verify(const struct crypto_aes_ctx *kr,
			     const struct prism_whdr *hdr,
			     const struct prism_paddr *src, u32 text_len,
			     struct prism_gcm_key *key)
{
	const struct prism_wauth *wa = (const struct prism_wauth *)(hdr + 1);
	const u8 *text = (const u8 *)(wa + 1);
	struct prism_kd_id id = {
		.addr = src, .ep = ntohl(hdr->src_ep), .rights = wa->rights,
		.rkey = be64_to_cpu(wa->rkey),
	};
	u8 kd[PRISM_KEY_LEN], iv[PRISM_GCM_IV_LEN];
	int err;

	err = prism_kd_derive(kr, &id, kd);
	if (!err)
		err = prism_gcm_setkey(key, kd, sizeof(kd));
	memzero_explicit(kd, sizeof(kd));
	if (err)
		return err;
	prism_seal_iv(iv, hdr->req_id, ntohl(wa->xmit));
	return prism_gcm_verify(key, iv, (const u8 *)hdr, PRISM_SEAL_AAD,
				text, text_len, text + text_len);
}

/* A keyed chain refused for its key, tag or time. */
static void prism_auth_refuse(struct net *net, struct prism_sock *psk,
			      const struct prism_whdr *hdr,
			      const struct prism_paddr *src)
{
	prism_stat_add(net, psk, PRISM_STAT_AUTH_FAILED, 1);
	prism_refuse(net, hdr, src, PRISM_S_AUTH_FAILED);
}

/**
 * prism_areq_authentic() - whether an AREQ was sealed for its sender
 * @r: the keyed region it names
 * @hdr: the frame's header, followed by its prism_wauth, text and tag
 * @src: the sender's link address
 * @text_len: bytes of text
 * @key: receives the key the tag checked under (to decrypt the text)
 *
 * The tag must check under the key derived for the sender from the
 * region's key, or from the previous one while a rotation's overlap lasts.
 *
 * Context: Under rcu_read_lock().
 * Return: true if it does.
 */
bool prism_areq_authentic(struct prism_region *r, const struct prism_whdr *hdr,
			  const struct prism_paddr *src, u32 text_len,
			  struct prism_gcm_key *key)
{
	struct prism_region_keys *keys = rcu_dereference(r->keys);

	if (!keys)
		return false;
	if (!prism_areq_verify(&keys->cur, hdr, src, text_len, key))
		return true;
	return keys->has_old && time_before(jiffies, keys->old_until) &&
	       !prism_areq_verify(&keys->old, hdr, src, text_len, key);
}
EXPORT_SYMBOL_IF_KUNIT(prism_areq_authentic);

/**
 * prism_serve_keyed() - serve one AREQ frame
 * @net: network namespace of the receiving interface
 * @skb: the received frame, linear (the caller keeps and frees it)
 * @hdr: its PRISM header, checked by the receiver (version, body_len
 *       within the frame, nops, type PRISM_T_AREQ, status and delay 0)
 * @src: link address of its sender
 *
 * Checks, each before anything is kept: the frame's form, a bound
 * endpoint with a keyed region of that rkey (else NO_ENDPOINT, as a plain
 * chain without a valid rkey), the time, the tag under a key derived for
 * the sender (else AUTH_FAILED).  Then the chain is decrypted in place,
 * checked and served like a REQ's (prism_serve_checked()); its answer is
 * sealed in prism_serve_chain() (prism_resp_seal()).
 *
 * Context: Softirq (the receive path), under rcu_read_lock().
 */
void prism_serve_keyed(struct net *net, struct sk_buff *skb,
		       const struct prism_whdr *hdr,
		       const struct prism_paddr *src)
{
	struct prism_gcm_key *key = this_cpu_ptr(&prism_serve_key);
	u32 body_len = ntohs(hdr->body_len), text_len;
	struct prism_chain_in in = {};
	const struct prism_wauth *wa;
	u8 iv[PRISM_GCM_IV_LEN];
	struct prism_region *r;
	struct prism_sock *psk;
	s32 skew;

	in.mtu = prism_req_frame_mtu(net, hdr, src);
	if (!in.mtu)
		return;
	wa = (const struct prism_wauth *)(hdr + 1);
	if (body_len < PRISM_SEAL_OVERHEAD || !wa->xmit ||
	    memchr_inv(wa->reserved, 0, sizeof(wa->reserved))) {
		prism_stat_add(net, NULL, PRISM_STAT_RX_DROPPED, 1);
		return;
	}
	text_len = body_len - PRISM_SEAL_OVERHEAD;

	psk = prism_frame_psk(net, src, hdr);
	r = psk ? prism_region_find(&psk->mem, be64_to_cpu(wa->rkey)) : NULL;
	if (!r || !r->keyed) {
		prism_stat_add(net, psk, PRISM_STAT_UNAUTH_REFUSED, 1);
		prism_refuse(net, hdr, src, PRISM_S_NO_ENDPOINT);
		return;
	}
	skew = (s32)((u32)ktime_get_real_seconds() - ntohl(wa->time));
	if (skew > PRISM_AUTH_SKEW_S || skew < -PRISM_AUTH_SKEW_S ||
	    !prism_areq_authentic(r, hdr, src, text_len, key)) {
		prism_auth_refuse(net, psk, hdr, src);
		goto out;
	}
	/* Authentic: decrypt in place, in a copy of the data if shared. */
	if (skb_unclone(skb, GFP_ATOMIC)) {
		prism_stat_add(net, psk, PRISM_STAT_RX_DROPPED, 1);
		goto out;
	}
	hdr = (const struct prism_whdr *)skb->data;
	wa = (const struct prism_wauth *)(hdr + 1);
	prism_seal_iv(iv, hdr->req_id, ntohl(wa->xmit));
	prism_gcm_crypt(key, iv, (u8 *)(wa + 1), text_len);

	in.hdr = hdr;
	in.body = (const u8 *)(wa + 1);
	in.body_len = text_len;
	in.rx_stamp = skb->tstamp;
	in.wauth = wa;
	in.auth_key = key;
	prism_serve_checked(net, psk, &in, src);
	/* The plaintext (a REKEY's region key among it) dies with the frame. */
	memzero_explicit((u8 *)(wa + 1), text_len);
out:
	prism_gcm_key_wipe(key);
}

/**
 * prism_resp_seal() - seal the answer of a keyed chain in its cache entry
 * @in: the chain (prism_serve_keyed())
 * @frame: the answer: header (delay set), room for a &struct prism_wauth,
 *         then @body_len bytes of RESP body, and room for the tag
 * @body_len: bytes of the body
 *
 * Context: Softirq, on the CPU that checked the chain.
 * Return: bytes of the sealed ARESP frame.
 */
u32 prism_resp_seal(const struct prism_chain_in *in, u8 *frame, u32 body_len)
{
	struct prism_whdr *rhdr = (struct prism_whdr *)frame;
	struct prism_wauth *wa = (struct prism_wauth *)(rhdr + 1);
	u8 *text = (u8 *)(wa + 1), iv[PRISM_GCM_IV_LEN];

	memset(wa, 0, sizeof(*wa));
	wa->rkey = in->wauth->rkey;
	wa->rights = in->wauth->rights;
	rhdr->type = PRISM_T_ARESP;
	rhdr->body_len = htons(PRISM_SEAL_OVERHEAD + body_len);
	prism_seal_iv(iv, rhdr->req_id, 0);
	prism_gcm_seal(in->auth_key, iv, frame, PRISM_SEAL_AAD, text, body_len,
		       text + body_len);
	return sizeof(*rhdr) + PRISM_SEAL_OVERHEAD + body_len;
}

/* ---------------------------------------------------------------------------
 * Client keys (process context, under &prism_sock.key_mutex).
 */

/**
 * prism_ckeys_init() - a socket without derived keys
 * @psk: the socket
 *
 * Context: Any context, before @psk is used.
 */
void prism_ckeys_init(struct prism_sock *psk)
{
	mutex_init(&psk->key_mutex);
	INIT_LIST_HEAD(&psk->keys);
	psk->nkeys = 0;
}

/**
 * prism_ckey_put() - drop a reference to a derived key
 * @ck: the key; wiped and freed with its last reference
 *
 * Context: Any context.
 */
void prism_ckey_put(struct prism_ckey *ck)
{
	if (ck && refcount_dec_and_test(&ck->ref))
		kfree_sensitive(ck);
}

/**
 * prism_ckeys_destroy() - drop the derived keys of a socket
 * @psk: the socket, released (chains still in flight keep theirs)
 *
 * Context: Process context.
 */
void prism_ckeys_destroy(struct prism_sock *psk)
{
	struct prism_ckey *ck, *tmp;

	mutex_lock(&psk->key_mutex);
	list_for_each_entry_safe(ck, tmp, &psk->keys, node) {
		list_del(&ck->node);
		prism_ckey_put(ck);
	}
	psk->nkeys = 0;
	mutex_unlock(&psk->key_mutex);
}

static struct prism_ckey *prism_ckey_lookup(struct prism_sock *psk,
					    const struct prism_paddr *pa,
					    u32 ep, u64 rkey)
{
	struct prism_ckey *ck;

	lockdep_assert_held(&psk->key_mutex);
	list_for_each_entry(ck, &psk->keys, node)
		if (ck->rkey == rkey && ck->ep == ep &&
		    prism_paddr_equal(&ck->addr, pa))
			return ck;
	return NULL;
}

/**
 * prism_ckey_set() - attach, replace or detach a derived key
 * @psk: the client socket, bound
 * @pa: the target (prism_dst_addr() of @uk's address)
 * @ep: its endpoint id
 * @uk: what the caller asked (PRISM_KEY)
 *
 * Context: Process context, may sleep.
 * Return: 0; -EINVAL for bad flags, rights or rkey; -ENOENT to detach a
 * key that is not attached; -ENOBUFS past PRISM_MAX_KEYS; -ENOMEM.
 */
int prism_ckey_set(struct prism_sock *psk, const struct prism_paddr *pa,
		   u32 ep, const struct prism_key *uk)
{
	bool detach = uk->flags & PRISM_KEY_DETACH;
	struct prism_ckey *nk = NULL, *ok;
	int err = 0;

	if (uk->reserved || (uk->flags & ~PRISM_KEY_DETACH) || !uk->rkey)
		return -EINVAL;
	if (!detach) {
		if (!uk->rights ||
		    (uk->rights & ~(PRISM_ACCESS_ALL | PRISM_KEY_ADMIN)))
			return -EINVAL;
		nk = kzalloc(sizeof(*nk), GFP_KERNEL_ACCOUNT);
		if (!nk)
			return -ENOMEM;
		refcount_set(&nk->ref, 1);
		nk->addr = *pa;
		nk->ep = ep;
		nk->rkey = uk->rkey;
		nk->rights = uk->rights;
		err = prism_gcm_setkey(&nk->key, uk->kd, PRISM_KEY_LEN);
		if (err)
			goto out;
	}

	mutex_lock(&psk->key_mutex);
	ok = prism_ckey_lookup(psk, pa, ep, uk->rkey);
	if (detach) {
		if (ok) {
			list_del(&ok->node);
			psk->nkeys--;
		} else {
			err = -ENOENT;
		}
	} else if (ok) {
		list_replace(&ok->node, &nk->node);
		nk = NULL;
	} else if (psk->nkeys >= PRISM_MAX_KEYS) {
		err = -ENOBUFS;
	} else {
		list_add(&nk->node, &psk->keys);
		psk->nkeys++;
		nk = NULL;
	}
	mutex_unlock(&psk->key_mutex);
	if (!err)
		prism_ckey_put(ok);
out:
	prism_ckey_put(nk);
	return err;
}

/**
 * prism_req_key() - the derived key a new chain is sealed with, if any
 * @req: the chain; gets a reference in @req->ckey when one of its ops
 *       names a region a key is attached for at @dst
 * @dst: its target
 * @dst_ep: its target's endpoint id
 * @body: its encoded REQ body
 * @body_len: bytes of @body
 *
 * A REKEY op carries a region key: its chain must be sealed for the
 * region it rotates, or it is not sent.
 *
 * Context: Process context, may sleep.
 * Return: 0; -EINVAL if its ops name two regions with keys attached (a
 * chain is sealed for one region); -ENOKEY if it has a REKEY op and no key
 * is attached for that op's region at @dst.
 */
int prism_req_key(struct prism_req *req, const struct prism_paddr *dst,
		  u32 dst_ep, const u8 *body, u32 body_len)
{
	bool keys = !list_empty_careful(&req->psk->keys);
	bool rekey = false, mixed = false, two = false;
	struct prism_sock *psk = req->psk;
	struct prism_ckey *ck, *found = NULL;
	struct prism_decoded_op pop;
	u64 rekey_rkey = 0;
	unsigned int i;
	u32 pos = 0;
	int err = 0;

	/* One walk: the REKEYs, and the keys the chain's rkeys have. */
	if (keys)
		mutex_lock(&psk->key_mutex);
	for (i = 0; i < req->nops; i++) {
		if (prism_wire_parse_op(body, body_len, &pos, i, &pop)) {
			err = -EINVAL;
			goto out;
		}
		if (pop.op.opcode == PRISM_OP_REKEY) {
			mixed |= rekey && rekey_rkey != pop.op.rkey;
			rekey = true;
			rekey_rkey = pop.op.rkey;
		}
		if (!keys || two || !pop.op.rkey ||
		    (found && found->rkey == pop.op.rkey))
			continue;
		ck = prism_ckey_lookup(psk, dst, dst_ep, pop.op.rkey);
		if (ck && found)
			two = true;
		else if (ck)
			found = ck;
	}
	if (mixed) {
		err = -ENOKEY;
	} else if (two) {
		err = -EINVAL;
	} else if (rekey && (!found || found->rkey != rekey_rkey)) {
		err = -ENOKEY;
	} else if (found) {
		refcount_inc(&found->ref);
		req->ckey = found;
	}
out:
	if (keys)
		mutex_unlock(&psk->key_mutex);
	return err;
}

/**
 * prism_req_keyed_frame() - lay out the saved frame of a keyed chain
 * @req: the chain, @req->ckey set; @req->frame holds header and REQ body
 *       (@req->frame_len bytes, room for @mtu)
 * @mtu: of the link to the target
 *
 * Puts a &struct prism_wauth between header and body; each transmission
 * seals a copy (prism_req_seal()).
 *
 * Context: Any context.
 * Return: 0, or -EMSGSIZE if the chain or its answer, sealed, would not
 * fit one frame.
 */
int prism_req_keyed_frame(struct prism_req *req, u32 mtu)
{
	u32 text_len = req->frame_len - sizeof(struct prism_whdr);
	u8 *body = req->frame + sizeof(struct prism_whdr);
	struct prism_wauth *wa = (struct prism_wauth *)body;

	if (req->body ||
	    sizeof(struct prism_whdr) + PRISM_SEAL_OVERHEAD + text_len > mtu ||
	    sizeof(struct prism_whdr) + PRISM_SEAL_OVERHEAD + req->resp_cap > mtu)
		return -EMSGSIZE;
	memmove(body + sizeof(*wa), body, text_len);
	memset(wa, 0, sizeof(*wa));
	wa->rkey = cpu_to_be64(req->ckey->rkey);
	wa->rights = req->ckey->rights;
	req->frame_len += sizeof(*wa);
	return 0;
}

/**
 * prism_req_seal() - seal one transmission of a keyed chain
 * @req: the chain
 * @skb: its frame (prism_req_skb(): header final, tailroom for the tag)
 *
 * Each transmission gets its own nonce (@req->xmits) and the time.
 *
 * Context: The reqs lock held.
 */
void prism_req_seal(struct prism_req *req, struct sk_buff *skb)
{
	struct prism_whdr *hdr = (struct prism_whdr *)skb->data;
	struct prism_wauth *wa = (struct prism_wauth *)(hdr + 1);
	u32 text_len = req->frame_len - PRISM_SEAL_AAD;
	u8 iv[PRISM_GCM_IV_LEN];
	u8 *text = (u8 *)(wa + 1);

	wa->xmit = htonl(++req->xmits);
	wa->time = htonl((u32)ktime_get_real_seconds());
	prism_seal_iv(iv, hdr->req_id, req->xmits);
	prism_gcm_seal(&req->ckey->key, iv, skb->data, PRISM_SEAL_AAD, text,
		       text_len, skb_put(skb, PRISM_GCM_TAG_LEN));
}

/**
 * prism_resp_open() - check and decrypt the answer of a keyed chain
 * @req: the chain, @req->ckey set
 * @skb: the answer (status OK), linear; decrypted in place (unshared
 *       first)
 * @hdrp: its header; updated when @skb's data moved
 * @body: receives its RESP body
 * @body_len: receives the body's bytes
 *
 * Context: Softirq, the reqs lock held.
 * Return: 0; -EBADMSG if it is not an ARESP sealed for @req; -ENOMEM.
 */
int prism_resp_open(struct prism_req *req, struct sk_buff *skb,
		    const struct prism_whdr **hdrp, const u8 **body,
		    u32 *body_len)
{
	const struct prism_whdr *hdr = *hdrp;
	const struct prism_wauth *wa = (const struct prism_wauth *)(hdr + 1);
	u32 len = ntohs(hdr->body_len), text_len;
	u8 iv[PRISM_GCM_IV_LEN];
	const u8 *text;

	if (hdr->type != PRISM_T_ARESP || len < PRISM_SEAL_OVERHEAD ||
	    be64_to_cpu(wa->rkey) != req->ckey->rkey ||
	    wa->rights != req->ckey->rights || wa->xmit || wa->time ||
	    memchr_inv(wa->reserved, 0, sizeof(wa->reserved)))
		return -EBADMSG;
	text_len = len - PRISM_SEAL_OVERHEAD;
	text = (const u8 *)(wa + 1);
	prism_seal_iv(iv, hdr->req_id, 0);
	if (prism_gcm_verify(&req->ckey->key, iv, (const u8 *)hdr,
			     PRISM_SEAL_AAD, text, text_len, text + text_len))
		return -EBADMSG;
	if (skb_unclone(skb, GFP_ATOMIC))
		return -ENOMEM;
	hdr = (const struct prism_whdr *)skb->data;
	*hdrp = hdr;
	*body = (const u8 *)hdr + PRISM_SEAL_AAD;
	*body_len = text_len;
	prism_gcm_crypt(&req->ckey->key, iv, (u8 *)*body, text_len);
	return 0;
}
