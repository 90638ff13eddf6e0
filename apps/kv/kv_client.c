// SPDX-License-Identifier: MIT
/*
 * PRISM-KV client library.
 *
 * PRISM-KV (paper §6): GET is one bounded indirect READ of the key's slot
 * per probe, returning the whole entry, checked at the client (key,
 * checksum).  PUT probes the same way, then submits ONE chain:
 *   WRITE  scratch[8..32] = {bound, version + 1, 0}
 *   ALLOC  entry into a buffer of its size class, address -> scratch[0..8]
 *   CAS    slot := scratch[0..32] if slot.version == version (masked CAS),
 *          conditional on the ALLOC; returns the old slot
 *   READ   scratch[0..8]: the allocated address, so a loser can recycle it
 * The winner reports the buffer it replaced; the loser reports its own
 * unpublished buffer and retries.  Reports are batched into one SEND.
 *
 * Pilaf baseline: GET = READ slot, then READ the entry it names (two round
 * trips), with checksums catching the server's concurrent plain stores;
 * PUT/DELETE = a SEND RPC executed by the server, answered by a SEND.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "liburing-prism.h"
#include "kv_client.h"
#include "pu_keys.h"

/* Give up on an entry that keeps failing its checksum (a bug, not a race). */
#define KV_MAX_TORN_RETRIES	1000
/* ALLOC retries while the server recycles (grace periods): about 5 s. */
#define KV_MAX_NO_BUFFER	500
/*
 * The largest chain: a PUT (4 ops, the entry inline, 56 B of CAS operands)
 * or a Pilaf RPC SEND; the largest completion: a GET of the largest entry
 * (a liburing-prism ring of these clients would need receive buffers of
 * KV_MSG_CAP too).
 */
#define KV_CHAIN_CAP	(1024 + KV_RPC_HDR + KV_MAX_ENTRY)
#define KV_MSG_CAP	(1024 + KV_MAX_ENTRY)

struct kv_client {
	int			fd;
	char			ifname[IF_NAMESIZE];
	char			info_path[PATH_MAX];
	int			timeout_ms;
	struct kv_info		info;
	union prism_sockaddr	dst;
	uint64_t		next_ud;
	unsigned int		recycle_batch;
	unsigned int		npending;
	uint64_t		pending[KV_RECYCLE_MAX];
	struct kv_client_stats	st;
	__u32			get_len;	/* first read of a GET, grows */
	_Alignas(8) unsigned char chain[KV_CHAIN_CAP];
	_Alignas(8) unsigned char msg[KV_MSG_CAP];
	_Alignas(8) unsigned char entry[KV_MAX_ENTRY];
	_Alignas(8) unsigned char rpc[KV_RPC_HDR + KV_MAX_ENTRY];
};

/* What a probe found at the key's slot. */
enum probe_state { PROBE_EMPTY, PROBE_LIVE, PROBE_DELETED };

struct probe {
	uint64_t		slot;		/* index */
	enum probe_state	state;
	uint64_t		version;
	const uint8_t		*val;		/* into c->msg, until the next chain */
	uint32_t		vlen;
};

static int status_errno(int status)
{
	switch (status) {
	case PRISM_S_OK:		return 0;
	case PRISM_S_CMP_FAILED:	return -EAGAIN;
	case PRISM_S_NACK:		return -EBUSY;
	case PRISM_S_RECV_FULL:		return -EBUSY;
	case PRISM_S_TIMEOUT:		return -ETIMEDOUT;
	case PRISM_S_AUTH:		return -ESTALE;
	case PRISM_S_ACCESS:		return -EFAULT;
	case PRISM_S_NO_BUFFER:		return -ENOSPC;
	case PRISM_S_INVALID:		return -EINVAL;
	case PRISM_S_NO_ENDPOINT:	return -ECONNREFUSED;
	case PRISM_S_TOO_BIG:		return -EMSGSIZE;
	case PRISM_S_NETDOWN:		return -ENETDOWN;
	case PRISM_S_ABORTED:		return -ECONNABORTED;
	default:			return -EIO;
	}
}

static const struct prism_msg *cmsg(const struct kv_client *c)
{
	return (const struct prism_msg *)(const void *)c->msg;
}

static void chain_start(struct kv_client *c, struct prism_chain_buf *cb)
{
	prism_chain_init(cb, c->chain, sizeof(c->chain), c->next_ud++);
}

/* Run a chain; 0 when it completed with chain status OK (ops may have failed). */
static int run_chain(struct kv_client *c, struct prism_chain_buf *cb)
{
	ssize_t n;

	if (prism_chain_error(cb))
		return prism_chain_error(cb);
	n = prism_execute(c->fd, &c->dst.eth, cb, c->msg, sizeof(c->msg));
	if (n < 0)
		return (int)n;
	return status_errno(cmsg(c)->status);
}

static void backoff(unsigned int attempt)
{
	struct timespec ts = { 0, 1000000L * (attempt < 10 ? attempt + 1 : 10) };

	nanosleep(&ts, NULL);
}

static int load_info(struct kv_client *c)
{
	int err = kv_info_load(c->info_path, &c->info);

	if (err)
		return err;
	if (c->info.addr[0]) {
		err = prism_parse_addr(c->info.addr, &c->dst);
		if (err)
			return err;
	} else {
		prism_addr_init(&c->dst.eth, c->info.mac, c->info.ep);
	}
	c->npending = 0;	/* addresses of a previous server mean nothing now */
	return 0;
}

/*
 * A keyed server's region: attach this socket's key for it, asked of the
 * server on the key socket its info line names (pu_keys.h).  Nothing to do
 * for a plain region.
 */
static int fetch_key(struct kv_client *c)
{
	if (!c->info.keys[0])
		return 0;
	return pu_key_fetch(c->info.keys, c->fd, &c->dst.eth, c->info.rkey);
}

int kv_client_open(struct kv_client **out, const char *ifname,
		   const char *info_path, int timeout_ms)
{
	struct kv_client *c;
	int err;

	if (strlen(ifname) >= sizeof(c->ifname) ||
	    strlen(info_path) >= sizeof(c->info_path))
		return -ENAMETOOLONG;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	strcpy(c->ifname, ifname);
	strcpy(c->info_path, info_path);
	c->timeout_ms = timeout_ms > 0 ? timeout_ms : 1000;
	c->recycle_batch = KV_RECYCLE_MAX;
	c->next_ud = 1;
	c->get_len = KV_GET_FIRST;
	err = load_info(c);
	if (err)
		goto fail;
	c->fd = prism_open_spec(ifname, 0);
	if (c->fd < 0) {
		err = c->fd;
		goto fail;
	}
	/* The server answers RPCs with SEND-only chains. */
	err = prism_set_opt(c->fd, PRISM_OPEN_SEND, 1);
	if (err) {
		fprintf(stderr, "kv: setting PRISM_OPEN_SEND: %s\n",
			strerror(-err));
		close(c->fd);
		goto fail;
	}
	err = prism_set_timeout(c->fd, c->timeout_ms);
	if (!err)
		err = fetch_key(c);
	if (err) {
		close(c->fd);
		goto fail;
	}
	*out = c;
	return 0;
fail:
	free(c);
	return err;
}

void kv_client_close(struct kv_client *c)
{
	if (!c)
		return;
	kv_client_flush(c);
	close(c->fd);
	free(c);
}

int kv_client_reload(struct kv_client *c)
{
	int err = load_info(c);

	return err ? err : fetch_key(c);
}

const struct kv_info *kv_client_info(const struct kv_client *c)
{
	return &c->info;
}

const struct kv_client_stats *kv_client_stats(const struct kv_client *c)
{
	return &c->st;
}

void kv_client_set_recycle_batch(struct kv_client *c, unsigned int n)
{
	if (n < 1)
		n = 1;
	if (n > KV_RECYCLE_MAX)
		n = KV_RECYCLE_MAX;
	c->recycle_batch = n;
}

int kv_client_flush(struct kv_client *c)
{
	unsigned char buf[KV_RECYCLE_HDR + 8 * KV_RECYCLE_MAX];
	struct prism_chain_buf cb;
	unsigned int i;
	int err;

	if (!c->npending || c->info.proto != KV_PROTO_PRISM)
		return 0;
	pu_put_le32(buf, KV_RECYCLE_MAGIC);
	pu_put_le32(buf + 4, c->npending);
	for (i = 0; i < c->npending; i++)
		pu_put_le64(buf + KV_RECYCLE_HDR + 8 * i, c->pending[i]);
	chain_start(c, &cb);
	prism_prep_send(&cb, buf, KV_RECYCLE_HDR + 8 * c->npending);
	err = run_chain(c, &cb);
	if (!err)
		err = status_errno(prism_msg_op_status(cmsg(c), 0));
	if (!err) {
		c->st.recycled += c->npending;
		c->npending = 0;
	}
	return err;
}

/* Queue a buffer that no slot names any more for the server to reuse. */
static void recycle(struct kv_client *c, uint64_t addr)
{
	if (!addr || addr == c->info.empty)
		return;
	if (c->npending < KV_RECYCLE_MAX)
		c->pending[c->npending++] = addr;
	/* else: lost to the free list (the server could not take reports) */
	if (c->npending >= c->recycle_batch)
		kv_client_flush(c);	/* on failure the batch waits for the next one */
}

/* ---- PRISM-KV ---- */

static uint64_t slot_addr(const struct kv_client *c, uint64_t idx)
{
	return c->info.table + idx * KV_SLOT_SIZE;
}

/* prism_prep_read or prism_prep_read_bounded. */
typedef struct prism_op *probe_prep_fn(struct prism_chain_buf *cb, __u64 rkey,
				       __u64 addr, __u32 len);

/*
 * One read of a probe: a chain of the READ prep makes, run and counted;
 * *data and *dlen are the bytes read (*data NULL when there are none).
 */
static int probe_read(struct kv_client *c, probe_prep_fn *prep, uint64_t addr,
		      __u32 len, const void **data, __u32 *dlen)
{
	struct prism_chain_buf cb;
	int err;

	chain_start(c, &cb);
	prep(&cb, c->info.rkey, addr, len);
	err = run_chain(c, &cb);
	if (err)
		return err;
	c->st.probes++;
	err = status_errno(prism_msg_op_status(cmsg(c), 0));
	if (err)
		return err;
	*data = prism_msg_data(cmsg(c), 0, dlen);
	return 0;
}

/* What reading one slot of a probe found (SLOT_LONGER: read it again). */
enum slot_read { SLOT_TORN, SLOT_EMPTY, SLOT_ENTRY, SLOT_LONGER };

/*
 * Read slot idx: SLOT_ENTRY with its entry in *e, SLOT_EMPTY with the
 * slot's version in e->version, SLOT_TORN to read it again, or -errno.
 */
typedef int slot_read_fn(struct kv_client *c, uint64_t idx, struct kv_entry *e);

/* Linear probing from the key's home slot, each slot read by read_slot. */
static int probe_slots(struct kv_client *c, const void *key, size_t klen,
		       struct probe *p, slot_read_fn *read_slot)
{
	uint64_t mask = c->info.nslots - 1;
	uint64_t idx = kv_key_slot(key, klen, c->info.nslots), n = 0;
	unsigned int torn = 0;
	struct kv_entry e;
	int r;

	while (n < c->info.nslots) {
		r = read_slot(c, idx, &e);
		if (r < 0)
			return r;
		if (r == SLOT_LONGER)
			continue;
		if (r == SLOT_TORN) {
			c->st.torn_reads++;
			if (++torn > KV_MAX_TORN_RETRIES)
				return -EIO;
			continue;
		}
		p->slot = idx;
		p->version = e.version;
		if (r == SLOT_EMPTY) {
			p->state = PROBE_EMPTY;
			p->val = NULL;
			p->vlen = 0;
			return 0;
		}
		if (kv_entry_key_is(&e, key, klen)) {
			p->state = e.flags == KV_E_LIVE ? PROBE_LIVE : PROBE_DELETED;
			p->val = e.val;
			p->vlen = e.vlen;
			return 0;
		}
		idx = (idx + 1) & mask;
		n++;
	}
	return -ENOSPC;
}

/*
 * PRISM-KV: one bounded indirect READ of c->get_len bytes gives the slot's
 * entry.  A longer entry comes back cut at c->get_len; its header tells
 * its length, which becomes c->get_len (so the next GET of entries that
 * large takes one round trip again) and the slot is read again.
 */
static int prism_read_slot(struct kv_client *c, uint64_t idx, struct kv_entry *e)
{
	const void *data;
	__u32 len;
	int err, full;

	err = probe_read(c, prism_prep_read_bounded, slot_addr(c, idx),
			 c->get_len, &data, &len);
	if (err)
		return err;
	if (!data)
		return SLOT_TORN;
	full = kv_entry_peek_len(data, len);
	if (len == c->get_len && full > (int)len) {
		c->get_len = (__u32)full;
		return SLOT_LONGER;
	}
	if (kv_entry_decode(data, len, e))
		return SLOT_TORN;
	/* slots never go back to EMPTY: its version is 0 */
	if (e->flags == KV_E_EMPTY) {
		e->version = 0;
		return SLOT_EMPTY;
	}
	return SLOT_ENTRY;
}

/* Install an entry (live or tombstone) for key; see the file comment. */
static int prism_update(struct kv_client *c, const void *key, size_t klen,
			const void *val, size_t vlen, unsigned int flags,
			int conditional, uint64_t expected)
{
	unsigned char cmp[KV_SLOT_SIZE] = { 0 }, cmask[KV_SLOT_SIZE] = { 0 };
	unsigned char tail[24];
	unsigned int attempt = 0, no_buf = 0;
	struct prism_chain_buf cb;
	struct prism_op *op;
	struct kv_slot old;
	struct probe p;
	__u64 newbuf;
	__u32 len;
	int cls, elen, err, s;
	const void *data;

	err = kv_check_sizes(klen, vlen);
	if (err)
		return err;
	cls = kv_class_for(kv_entry_len(klen, vlen));
	if (cls < 0)
		return -E2BIG;
	memset(cmask + 16, 0xff, 8);	/* compare only the version word */
	for (;; attempt++) {
		err = probe_slots(c, key, klen, &p, prism_read_slot);
		if (err)
			return err;
		if (flags == KV_E_DELETED && p.state != PROBE_LIVE &&
		    !conditional)
			return -ENOENT;
		if (conditional && p.version != expected)
			return -EAGAIN;
		elen = kv_entry_encode(c->entry, sizeof(c->entry), flags, key,
				       klen, val, vlen, p.version + 1);
		if (elen < 0)
			return elen;
		pu_put_le64(cmp + 16, p.version);
		pu_put_le64(tail, (uint64_t)elen);
		pu_put_le64(tail + 8, p.version + 1);
		pu_put_le64(tail + 16, 0);

		chain_start(c, &cb);
		op = prism_prep_write(&cb, c->info.rkey, 8, tail, sizeof(tail));
		prism_op_set_addr_scratch(&cb, op);
		op = prism_prep_alloc(&cb, c->info.rkey, c->info.fl_id[cls],
				      c->entry, (__u32)elen);
		prism_op_set_redirect_scratch(&cb, op, 0);
		prism_op_set_conditional(&cb, op);
		op = prism_prep_cas_ex(&cb, c->info.rkey, slot_addr(c, p.slot),
				       KV_SLOT_SIZE, PRISM_CAS_EQ, 0, cmp, 0,
				       NULL, 0, cmask, NULL);
		prism_op_set_arg_scratch(&cb, op);
		prism_op_set_conditional(&cb, op);
		op = prism_prep_read(&cb, c->info.rkey, 0, 8);
		prism_op_set_addr_scratch(&cb, op);
		err = run_chain(c, &cb);
		if (err)
			return err;

		s = prism_msg_op_status(cmsg(c), 1);
		if (s == PRISM_S_NO_BUFFER) {
			/* our own unreported buffers may be what is missing */
			c->st.no_buffer++;
			kv_client_flush(c);
			if (++no_buf > KV_MAX_NO_BUFFER)
				return -ENOSPC;
			backoff(no_buf);
			continue;
		}
		err = status_errno(s);
		if (err)
			return err;
		s = prism_msg_op_status(cmsg(c), 2);
		if (s == PRISM_S_OK) {
			data = prism_msg_data(cmsg(c), 2, &len);
			if (!data || len != KV_SLOT_SIZE)
				return -EIO;
			kv_slot_decode(data, &old);
			recycle(c, old.ptr);
			return 0;
		}
		if (s != PRISM_S_CMP_FAILED)
			return status_errno(s);
		/* lost the race: our buffer was never published */
		if (!prism_msg_u64(cmsg(c), 3, &newbuf))
			recycle(c, newbuf);
		c->st.cas_failures++;
		if (conditional)
			return -EAGAIN;
	}
}

/* ---- Pilaf ---- */

/* Pilaf: READ the slot (checksummed), then the extent it points at. */
static int pilaf_read_slot(struct kv_client *c, uint64_t idx, struct kv_entry *e)
{
	struct kv_slot s;
	const void *data;
	__u32 len;
	int err;

	err = probe_read(c, prism_prep_read, slot_addr(c, idx), KV_SLOT_SIZE,
			 &data, &len);
	if (err)
		return err;
	if (!data || len != KV_SLOT_SIZE)
		return -EIO;
	kv_slot_decode(data, &s);
	if (s.check != kv_slot_check(s.ptr, s.bound, s.version) ||
	    s.bound < KV_ENTRY_HDR || s.bound > KV_MAX_ENTRY)
		return SLOT_TORN;
	if (s.ptr == c->info.empty) {
		e->version = s.version;
		return SLOT_EMPTY;
	}
	err = probe_read(c, prism_prep_read, s.ptr, (__u32)s.bound, &data, &len);
	if (err)
		return err;
	/* the extent may have been replaced and reused since the slot read */
	if (!data || kv_entry_decode(data, len, e) || e->version != s.version)
		return SLOT_TORN;
	return SLOT_ENTRY;
}

/* Milliseconds until deadline (pu_now_ns() time), <= 0 when past it. */
static long ms_left(uint64_t deadline)
{
	return (long)(((int64_t)deadline - (int64_t)pu_now_ns()) / 1000000);
}

/* One RPC: SEND the request, wait for our chain's completion and the reply. */
static int pilaf_rpc_once(struct kv_client *c, struct kv_rpc_req *req)
{
	const struct prism_msg *m = cmsg(c);
	struct prism_chain_buf cb;
	struct kv_rpc_reply rep;
	uint64_t deadline;
	int got_completion = 0, err, len;
	uint64_t ud;

	req->req_id = c->next_ud;
	len = kv_rpc_req_encode(c->rpc, sizeof(c->rpc), req);
	if (len < 0)
		return len;
	chain_start(c, &cb);
	ud = prism_chain_hdr(&cb)->user_data;
	prism_prep_send(&cb, c->rpc, (__u32)len);
	err = prism_chain_error(&cb);
	if (!err)
		err = prism_submit(c->fd, &c->dst.eth, &cb);
	if (err)
		return err;
	c->st.rpcs++;
	deadline = pu_now_ns() + (uint64_t)((c->timeout_ms * 2) / 1000 + 1) * 1000000000ull;
	for (;;) {
		struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
		long left = ms_left(deadline);
		const void *data;
		__u32 dlen;
		ssize_t n;

		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		n = prism_wait_from(c->fd, c->msg, sizeof(c->msg), NULL,
				    MSG_DONTWAIT);
		if (n == -EAGAIN || n == -EINTR)
			continue;
		if (n < 0)
			return (int)n;
		if (prism_msg_is_completion(m)) {
			if (m->user_data != ud)
				continue;	/* an earlier RPC's, given up on */
			err = status_errno(m->status);
			if (!err)
				err = status_errno(prism_msg_op_status(m, 0));
			if (err)
				return err;
			got_completion = 1;
			continue;
		}
		data = prism_msg_send_data(m, &dlen);
		if (!data || kv_rpc_reply_decode(data, dlen, &rep) ||
		    rep.req_id != req->req_id)
			continue;
		/* the reply implies the request arrived; still reap its completion */
		if (!got_completion) {
			err = rep.err;
			for (;;) {
				if (ms_left(deadline) <= 0)
					break;
				n = prism_wait_from(c->fd, c->msg, sizeof(c->msg),
						    NULL, 0);
				if (n < 0 || (prism_msg_is_completion(m) &&
					      m->user_data == ud))
					break;
			}
			return err;
		}
		return rep.err;
	}
}

static int pilaf_rpc(struct kv_client *c, struct kv_rpc_req *req)
{
	unsigned int attempt;
	int err = -EBUSY;

	for (attempt = 0; attempt < 100 && err == -EBUSY; attempt++) {
		if (attempt)
			backoff(attempt);
		err = pilaf_rpc_once(c, req);
	}
	return err;
}

/* ---- public ---- */

static int probe(struct kv_client *c, const void *key, size_t klen,
		 struct probe *p)
{
	if (!klen)
		return -EINVAL;
	if (klen > KV_MAX_KEY)
		return -E2BIG;
	return probe_slots(c, key, klen, p, c->info.proto == KV_PROTO_PILAF ?
			   pilaf_read_slot : prism_read_slot);
}

int kv_get(struct kv_client *c, const void *key, size_t klen, void *val,
	   size_t cap, size_t *vlen, uint64_t *version)
{
	struct probe p;
	int err = probe(c, key, klen, &p);

	if (err)
		return err;
	if (version)
		*version = p.version;
	if (p.state != PROBE_LIVE)
		return -ENOENT;
	if (vlen)
		*vlen = p.vlen;
	if (p.vlen > cap)
		return -EMSGSIZE;
	if (p.vlen)
		memcpy(val, p.val, p.vlen);
	return 0;
}

static int update(struct kv_client *c, const void *key, size_t klen,
		  const void *val, size_t vlen, unsigned int flags,
		  int conditional, uint64_t expected)
{
	struct kv_rpc_req req;
	int err = kv_check_sizes(klen, vlen);

	if (err)
		return err;
	if (c->info.proto == KV_PROTO_PRISM)
		return prism_update(c, key, klen, val, vlen, flags, conditional,
				    expected);
	memset(&req, 0, sizeof(req));
	req.op = flags == KV_E_DELETED ? KV_RPC_DELETE : KV_RPC_PUT;
	req.conditional = (uint32_t)conditional;
	req.expected = expected;
	req.key = key;
	req.klen = (uint32_t)klen;
	req.val = val;
	req.vlen = (uint32_t)vlen;
	return pilaf_rpc(c, &req);
}

int kv_put(struct kv_client *c, const void *key, size_t klen, const void *val,
	   size_t vlen)
{
	return update(c, key, klen, val, vlen, KV_E_LIVE, 0, 0);
}

int kv_put_if_version(struct kv_client *c, const void *key, size_t klen,
		      const void *val, size_t vlen, uint64_t expected)
{
	return update(c, key, klen, val, vlen, KV_E_LIVE, 1, expected);
}

int kv_delete(struct kv_client *c, const void *key, size_t klen)
{
	return update(c, key, klen, NULL, 0, KV_E_DELETED, 0, 0);
}
