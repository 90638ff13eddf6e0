// SPDX-License-Identifier: GPL-2.0
/*
 * Shard server for PRISM-TX and the FaRM-style baseline.
 *
 * Usage: tx_server [--value-size N] [--keyed] IFNAME SHARD NSHARDS NKEYS INIT_VALUE INFO_FILE
 *
 * Registers one region: PRISM-TX slots, FaRM slots, and a pool of version
 * buffers of tx_buf_size(N) bytes (one per key holds the initial version,
 * the rest, 32768 or 16 MiB of them if fewer, are posted to an ALLOCATE
 * free list, which has room for every buffer of the pool), and the
 * decision records of PRISM-TX's recovery (TX_MAX_CID of TX_DEC_SIZE
 * bytes; tx.h).  It prints the memory per key of each protocol on stderr.  Values are N bytes (8..4096, default 8;
 * see tx.h).  Writes one line to INFO_FILE (via a
 * rename, so readers never see half of it) and then only receives SEND
 * messages: recycled PRISM-TX buffers (posted back to the free list) and
 * FaRM lock/commit/unlock RPCs.  PRISM-TX transactions never wake it
 * except for recycling.
 *
 * --keyed: the region is keyed (prism(7), "Keyed regions"): a random
 * region key; clients' chains are sealed with keys derived for them, which
 * they ask for on the Unix socket INFO_FILE.keys named in the info line
 * (tools/lib/c/pu_keys.h).  Chains must then fit one frame each way.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "liburing-prism.h"
#include "prism_util.h"
#include "pu_keys.h"
#include "tx.h"

#define POOL_EXTRA	32768u
#define POOL_BYTES	(16u << 20)	/* or fewer buffers, of this much */
/* The module's largest free list: every buffer of the pool fits in it. */
#define POOL_MAX	(1u << 24)

struct server {
	int fd;
	unsigned char *mem;
	size_t len;
	unsigned char *ptx, *farm, *pool, *dec;
	uint32_t nslots, nbufs, fl;
	unsigned int shard, nshards;
	unsigned int vsize, bsize, fsize;	/* value, buffer, FaRM slot */
	uint64_t *owner;	/* FaRM: lock owner txid per slot, 0 = free */
	uint64_t recycled, rpcs;
};

static void farm_store(unsigned char *p, uint64_t v)
{
	/* Whole-word release stores: the kernel copies slots concurrently. */
	__atomic_store_n((uint64_t *)(void *)p, v, __ATOMIC_RELEASE);
}

static uint64_t farm_load(const unsigned char *p)
{
	return __atomic_load_n((const uint64_t *)(const void *)p, __ATOMIC_ACQUIRE);
}

/*
 * The value of a FaRM slot (key of slot sl here) at version ver, word by
 * word (readers copy it concurrently; the filler shows a torn copy).
 */
static void farm_store_value(const struct server *s, unsigned char *slot,
			     uint32_t sl, uint64_t ver, uint64_t val)
{
	unsigned char v[TX_MAX_VALUE + 8] = { 0 };

	tx_value_fill(v, s->vsize, sl * s->nshards + s->shard, ver, val);
	for (unsigned int off = 0; off < s->vsize; off += 8)
		farm_store(slot + 8 + off, tx_get64(v + off));
}

static int farm_apply(struct server *s, const struct farm_req *q)
{
	int ok = 1;

	for (unsigned int i = 0; i < q->n; i++) {
		const struct farm_entry *e = &q->e[i];
		unsigned char *slot;
		uint64_t head;

		if (e->slot >= s->nslots)
			return 0;
		slot = s->farm + (size_t)e->slot * s->fsize;
		head = farm_load(slot);
		switch (q->type) {
		case FARM_LOCK:
			if (s->owner[e->slot] == q->txid)
				break;	/* a repeated request */
			if (s->owner[e->slot] || (head >> 1) != e->arg) {
				ok = 0;
				break;
			}
			s->owner[e->slot] = q->txid;
			farm_store(slot, head | 1);
			break;
		case FARM_COMMIT:
			if (s->owner[e->slot] != q->txid)
				break;	/* already committed by a repeat */
			farm_store_value(s, slot, e->slot, (head >> 1) + 1, e->arg);
			farm_store(slot + 8 + tx_pad8(s->vsize), ((head >> 1) + 1) << 1);
			farm_store(slot, ((head >> 1) + 1) << 1);
			s->owner[e->slot] = 0;
			break;
		case FARM_UNLOCK:
			if (s->owner[e->slot] != q->txid)
				break;
			farm_store(slot, head & ~1ULL);
			s->owner[e->slot] = 0;
			break;
		default:
			return 0;
		}
		if (!ok)
			break;
	}
	if (!ok) {
		/* A refused LOCK keeps nothing: release what this tx holds here. */
		for (unsigned int i = 0; i < q->n; i++) {
			uint32_t sl = q->e[i].slot;

			if (sl < s->nslots && s->owner[sl] == q->txid) {
				unsigned char *slot = s->farm + (size_t)sl * s->fsize;

				farm_store(slot, farm_load(slot) & ~1ULL);
				s->owner[sl] = 0;
			}
		}
	}
	return ok;
}

static void handle_send(struct server *s, const unsigned char *d, uint32_t len,
			const struct sockaddr_prism *src)
{
	uint32_t magic;

	if (len < 4)
		return;
	memcpy(&magic, d, 4);
	if (magic == TX_RECYCLE_MAGIC) {
		__u64 addrs[TX_RECYCLE_MAX];
		uint32_t n = 0;
		uintptr_t lo = (uintptr_t)s->pool;
		uintptr_t hi = lo + (size_t)s->nbufs * s->bsize;

		for (uint32_t off = 8; off + 8 <= len && n < TX_RECYCLE_MAX; off += 8) {
			uint64_t a = tx_get64(d + off);

			/* Only our own pool's buffers, never anything else. */
			if (a >= lo && a < hi && (a - lo) % s->bsize == 0)
				addrs[n++] = a;
		}
		if (n && prism_fl_post(s->fd, s->fl, addrs, n) == 0)
			s->recycled += n;
		return;
	}
	if (magic == FARM_MAGIC && len >= offsetof(struct farm_req, e)) {
		struct farm_req q;
		struct farm_rep rep = { .magic = FARM_MAGIC };
		_Alignas(8) unsigned char cbuf[256];
		struct prism_chain_buf c;

		memset(&q, 0, sizeof(q));
		memcpy(&q, d, len < sizeof(q) ? len : sizeof(q));
		if (q.n > FARM_MAX_ENTRIES ||
		    len < offsetof(struct farm_req, e) + q.n * sizeof(q.e[0]))
			return;
		rep.type = q.type;
		rep.seq = q.seq;
		rep.ok = (uint8_t)farm_apply(s, &q);
		s->rpcs++;
		prism_chain_init(&c, cbuf, sizeof(cbuf), q.seq);
		prism_prep_send(&c, &rep, sizeof(rep));
		prism_submit(s->fd, src, &c);	/* completion drained below */
	}
}

int main(int argc, char **argv)
{
	struct server s = { .vsize = TX_DEF_VALUE };
	unsigned int shard, nshards, nkeys, extra;
	uint64_t init;
	__u64 rkey, *addrs;
	union prism_sockaddr me;
	char mac[18], line[512], addr[PRISM_ADDR_STRLEN] = "";
	struct pu_keysrv ks = { .fd = -1 };
	size_t off;
	int err, first, keyed = 0;
	const struct pu_opt opts[] = {
		PU_OPT("value-size", s.vsize, "N", "value bytes, 8..4096 (default 8)"),
		PU_OPT_FLAG("keyed", keyed, "a keyed region; clients get keys from INFO_FILE.keys"),
		PU_OPT_END,
	};
	const char *synopsis = "tx_server [--value-size N] [--keyed] IFNAME SHARD NSHARDS NKEYS INIT_VALUE INFO_FILE";

	first = pu_parse_opts(argc, argv, opts, synopsis);
	if (first < 0)
		return 2;
	if (argc - first != 6 || s.vsize < TX_MIN_VALUE || s.vsize > TX_MAX_VALUE)
		return pu_opts_usage(opts, synopsis);
	argv += first - 1;
	shard = (unsigned int)strtoul(argv[2], NULL, 0);
	nshards = (unsigned int)strtoul(argv[3], NULL, 0);
	nkeys = (unsigned int)strtoul(argv[4], NULL, 0);
	init = strtoull(argv[5], NULL, 0);
	if (!nshards || nshards > TX_MAX_SHARDS || shard >= nshards || !nkeys) {
		fprintf(stderr, "bad shard parameters\n");
		return 2;
	}
	s.shard = shard;
	s.nshards = nshards;
	s.bsize = tx_buf_size(s.vsize);
	s.fsize = tx_farm_slot_size(s.vsize);
	s.nslots = (nkeys + nshards - 1) / nshards;
	extra = POOL_BYTES / s.bsize < POOL_EXTRA ? POOL_BYTES / s.bsize : POOL_EXTRA;
	s.nbufs = s.nslots + extra;
	if (s.nslots > POOL_MAX - extra) {
		fprintf(stderr, "too many keys per shard (at most %u)\n",
			POOL_MAX - extra);
		return 2;
	}
	s.fd = prism_open_spec(argv[1], 0);
	if (s.fd < 0) {
		fprintf(stderr, "prism_open: %s\n", strerror(-s.fd));
		return 1;
	}
	/* Clients send requests and recycled buffers as SEND-only chains. */
	err = prism_set_opt(s.fd, PRISM_OPEN_SEND, 1);
	if (err) {
		fprintf(stderr, "PRISM_OPEN_SEND: %s\n", strerror(-err));
		return 1;
	}
	s.len = (size_t)s.nslots * (TX_SLOT_SIZE + s.fsize) + (size_t)s.nbufs * s.bsize +
		(size_t)TX_MAX_CID * TX_DEC_SIZE;
	s.len = (s.len + 4095) & ~(size_t)4095;
	s.mem = mmap(NULL, s.len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	s.owner = calloc(s.nslots, sizeof(*s.owner));
	addrs = calloc(s.nbufs, sizeof(*addrs));
	if (s.mem == MAP_FAILED || !s.owner || !addrs) {
		perror("memory");
		return 1;
	}
	memset(s.mem, 0, s.len);
	s.ptx = s.mem;
	s.farm = s.ptx + (size_t)s.nslots * TX_SLOT_SIZE;
	s.pool = s.farm + (size_t)s.nslots * s.fsize;
	s.dec = s.pool + (size_t)s.nbufs * s.bsize;	/* 8-aligned: bsize is */
	/* Initial versions: timestamp 0, buffer i of the pool for slot i. */
	for (uint32_t i = 0; i < s.nslots; i++) {
		unsigned char *buf = s.pool + (size_t)i * s.bsize;
		uint32_t key = i * nshards + shard;

		tx_value_fill(buf + 8, s.vsize, key, 0, init);
		tx_put64(s.ptx + (size_t)i * TX_SLOT_SIZE + TX_PTR,
			 (uint64_t)(uintptr_t)buf);
		tx_value_fill(s.farm + (size_t)i * s.fsize + 8, s.vsize, key, 0, init);
	}
	err = prism_reg_mr_flags(s.fd, s.mem, s.len, PRISM_ACCESS_ALL,
				 keyed ? PRISM_MR_KEYED : 0, &rkey);
	if (!err && keyed)
		err = pu_keysrv_start(&ks, argv[6], s.fd, rkey, PRISM_ACCESS_ALL);
	if (!err)
		err = prism_fl_create(s.fd, rkey, s.bsize, s.nbufs, &s.fl);
	for (off = 0; off < s.nbufs - s.nslots; off++)
		addrs[off] = (uint64_t)(uintptr_t)(s.pool +
			(size_t)(s.nslots + off) * s.bsize);
	if (!err)
		err = prism_fl_post(s.fd, s.fl, addrs, s.nbufs - s.nslots);
	if (!err)
		err = prism_local_addr(s.fd, &me.eth);
	if (err) {
		fprintf(stderr, "setup: %s\n", strerror(-err));
		return 1;
	}
	free(addrs);
	/* UDP: clients use addr=; mac= stays for the format's sake. */
	if (me.eth.sprism_kind == PRISM_ADDR_UDP) {
		prism_format_addr(&me.eth, addr);
		memset(me.eth.sprism_mac, 0, sizeof(me.eth.sprism_mac));
	}
	snprintf(line, sizeof(line), "shard=%u nshards=%u nkeys=%u mac=%s ep=%u rkey=0x%" PRIx64
		" ptx=0x%" PRIx64 " farm=0x%" PRIx64 " fl=%u nslots=%u vsize=%u dec=0x%" PRIx64
		"%s%s%s%s\n",
		shard, nshards, nkeys, prism_format_mac(me.eth.sprism_mac, mac),
		me.eth.sprism_ep, (uint64_t)rkey, (uint64_t)(uintptr_t)s.ptx,
		(uint64_t)(uintptr_t)s.farm, s.fl, s.nslots, s.vsize,
		(uint64_t)(uintptr_t)s.dec,
		addr[0] ? " addr=" : "", addr, ks.fd >= 0 ? " keys=" : "",
		ks.fd >= 0 ? ks.path : "");
	/*
	 * Bytes per key: PRISM-TX's slot, its version buffer and the buffer's
	 * entry in the kernel's free list ring (16 B), and the spare buffers'
	 * share; FaRM's inline slot.
	 */
	fprintf(stderr, "tx_server: keys=%u value_B=%u prism_per_key_B=%.1f farm_per_key_B=%u region_MiB=%.1f\n",
		s.nslots, s.vsize,
		TX_SLOT_SIZE + s.bsize + 16 + (double)extra * (s.bsize + 16) / s.nslots,
		s.fsize, (double)s.len / (1 << 20));
	err = pu_write_atomic(argv[6], line);
	if (err) {
		fprintf(stderr, "%s: %s\n", argv[6], strerror(-err));
		return 1;
	}
	for (;;) {
		_Alignas(8) unsigned char buf[4096];
		union prism_sockaddr src;
		const struct prism_msg *m = (const void *)buf;
		struct pollfd pfd[2] = {
			{ .fd = s.fd, .events = POLLIN },
			{ .fd = ks.fd, .events = POLLIN },	/* -1: none */
		};
		uint32_t dlen;
		const void *d;
		ssize_t n;

		if (poll(pfd, 2, -1) < 0)
			continue;
		if (pfd[1].revents && pu_keysrv_serve(&ks) < 0) {
			perror("key socket");
			return 1;
		}
		if (!pfd[0].revents)
			continue;
		n = prism_wait_from(s.fd, buf, sizeof(buf), &src.eth, MSG_DONTWAIT);
		if (n < 0) {
			if (n == -EINTR || n == -EAGAIN || n == -EMSGSIZE ||
			    n == -EPROTO)
				continue;
			fprintf(stderr, "recv: %s\n", strerror((int)-n));
			return 1;
		}
		if (m->kind != PRISM_MSG_SEND)
			continue;	/* completions of our FaRM replies */
		d = prism_msg_send_data(m, &dlen);
		if (d)
			handle_send(&s, d, dlen, &src.eth);
	}
}
