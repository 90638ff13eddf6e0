// SPDX-License-Identifier: MIT
/*
 * kv-server: the server side of PRISM-KV and of its Pilaf baseline.
 *
 *   kv-server --if IFNAME --info FILE [--mode prism|pilaf] [--ep N]
 *             [--slots N] [--bufs N] [--quarantine N] [--recycle-interval-ms N]
 *             [--preload N [--value V]] [--keyed]
 *
 * Builds one region (EMPTY entry, slot table, buffers of each size class:
 * --bufs of each class up to 1 KiB, --bufs KiB of each larger one, at least
 * 16 buffers; layout in kv_format.h), registers it and writes the address line to
 * FILE (atomically, so a reader never sees half of it).
 *
 * --preload N stores records 0..N-1 of "kv bench" (8-byte keys, V-byte
 * values, default 512, the bytes "kv bench --load" would PUT) with plain
 * stores before the region is registered, in N more buffers of their
 * class: the paper's 8 M objects load in seconds, not hours of PUTs.  It
 * prints the memory per object: the slot table over N, the buffer, and
 * the 16 bytes the buffer takes in the kernel's free list ring.
 *
 * prism: posts every buffer to one free list per size class, then sleeps
 *        in recvmsg().  The module serves GET and PUT without waking it;
 *        it wakes only for batched reports of replaced buffers, which it
 *        checks and posts back (the module delays their reuse by a grace
 *        period, so a reader in flight never sees a buffer change).  After
 *        each wake-up it sleeps --recycle-interval-ms (default 500) so that
 *        reports pile up and one wake-up handles many.
 *        With --keyed the region is keyed (prism(7), "Keyed regions"):
 *        a random region key, clients' chains sealed with keys derived
 *        for them, which they ask for on the Unix socket FILE.keys (named
 *        in the info line, pu_keys.h); values must then fit one frame
 *        each way.
 * pilaf: registers the region read-only and executes PUT/DELETE requests
 *        that arrive as SEND messages with its own CPU, writing entries to
 *        fresh buffers and slots with plain stores (clients detect torn
 *        reads by checksums), then answers each with a SEND.
 *
 * SIGTERM/SIGINT: print counters on stderr and exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "liburing-prism.h"
#include "kv_format.h"
#include "kv_workload.h"
#include "pu_keys.h"

struct size_class {
	uint64_t	start;		/* address of buffer 0 */
	uint32_t	size;
	uint32_t	count;
	uint32_t	fl_id;		/* prism */
	uint32_t	used;		/* buffers 0..used-1 hold preloaded entries */
	/* pilaf: free stack and a FIFO quarantine of replaced buffers */
	uint64_t	*free;
	uint32_t	nfree;
	uint64_t	*quar;
	uint32_t	qhead, qlen;
};

struct server {
	enum kv_proto		proto;
	int			fd;
	uint8_t			*mem;
	size_t			len;
	__u64			rkey;
	uint8_t			*table;
	uint64_t		nslots;
	uint64_t		empty;
	struct size_class	cls[KV_NCLASSES];
	uint32_t		quarantine;
	uint32_t		recycle_interval_ms;
	int			keyed;
	struct pu_keysrv	keys;	/* fd -1: none */
	/* counters */
	uint64_t		recycled, rejected, rpcs, reply_failures;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int die(const char *what, int err)
{
	fprintf(stderr, "kv-server: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

/* Which class buffer addr is, or -1 if it is not exactly one of ours. */
static int buffer_class(const struct server *s, uint64_t addr)
{
	int i;

	for (i = 0; i < KV_NCLASSES; i++) {
		const struct size_class *c = &s->cls[i];

		if (addr >= c->start && addr < c->start + (uint64_t)c->size * c->count)
			return (addr - c->start) % c->size ? -1 : i;
	}
	return -1;
}

static int layout(struct server *s, uint32_t nbufs, int pcls, uint32_t pn)
{
	uint64_t off, base;
	int i, elen;

	off = KV_TABLE_OFFSET + s->nslots * KV_SLOT_SIZE;
	for (i = 0; i < KV_NCLASSES; i++) {
		off = (off + 63) & ~63ull;
		s->cls[i].size = kv_class_size[i];
		s->cls[i].count = kv_class_count(i, nbufs) + (i == pcls ? pn : 0);
		s->cls[i].start = off;	/* offset for now */
		off += (uint64_t)kv_class_size[i] * s->cls[i].count;
	}
	s->len = (off + 4095) & ~4095ull;
	s->mem = mmap(NULL, s->len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (s->mem == MAP_FAILED)
		return -errno;
	base = (uint64_t)(uintptr_t)s->mem;
	for (i = 0; i < KV_NCLASSES; i++)
		s->cls[i].start += base;
	s->empty = base;
	elen = kv_entry_encode(s->mem, KV_ENTRY_HDR, KV_E_EMPTY, NULL, 0, NULL,
			       0, 0);
	if (elen != KV_ENTRY_HDR)
		return -EINVAL;
	s->table = s->mem + KV_TABLE_OFFSET;
	for (off = 0; off < s->nslots; off++) {
		struct kv_slot slot = {
			.ptr = s->empty, .bound = KV_ENTRY_HDR, .version = 0,
			.check = kv_slot_check(s->empty, KV_ENTRY_HDR, 0),
		};

		kv_slot_encode(s->table + off * KV_SLOT_SIZE, &slot);
	}
	return 0;
}

/*
 * Records 0..n-1 of kv bench, each in buffer i of class cls (the class of
 * their entries) and in the first EMPTY slot of its probe sequence, at
 * version 1 (what a first PUT makes).  Before registration: no reader yet.
 */
static int preload(struct server *s, int cls, uint32_t n, uint32_t vsize)
{
	static unsigned char val[KV_MAX_VALUE];
	struct size_class *c = &s->cls[cls];
	struct kv_slot slot;
	uint64_t idx, probes;
	char key[16];
	uint32_t i;
	int elen;

	for (i = 0; i < n; i++) {
		uint64_t addr = c->start + (uint64_t)i * c->size;

		kv_key_name(i, key, sizeof(key));
		kv_value_fill(val, vsize, i, 0);
		elen = kv_entry_encode((void *)(uintptr_t)addr, c->size,
				       KV_E_LIVE, key, KV_KEY_LEN, val, vsize, 1);
		if (elen < 0)
			return elen;
		idx = kv_key_slot(key, KV_KEY_LEN, s->nslots);
		for (probes = 0;; probes++, idx = (idx + 1) & (s->nslots - 1)) {
			if (probes == s->nslots)
				return -ENOSPC;
			kv_slot_decode(s->table + idx * KV_SLOT_SIZE, &slot);
			if (slot.ptr == s->empty)
				break;
		}
		slot = (struct kv_slot){
			.ptr = addr, .bound = (uint64_t)elen, .version = 1,
			.check = kv_slot_check(addr, (uint64_t)elen, 1),
		};
		kv_slot_encode(s->table + idx * KV_SLOT_SIZE, &slot);
	}
	c->used = n;
	return 0;
}

/* ---- PRISM-KV ---- */

static int post_buffers(struct server *s, int cls, const __u64 *addrs,
			uint32_t n)
{
	const uint32_t chunk = 1024;
	uint32_t done;
	int err;

	for (done = 0; done < n; done += chunk) {
		err = prism_fl_post(s->fd, s->cls[cls].fl_id, addrs + done,
				    n - done < chunk ? n - done : chunk);
		if (err)
			return err;
	}
	return 0;
}

static int prism_setup(struct server *s)
{
	__u64 *addrs;
	uint32_t j;
	int i, err;

	err = prism_reg_mr_flags(s->fd, s->mem, s->len, PRISM_ACCESS_ALL,
				 s->keyed ? PRISM_MR_KEYED : 0, &s->rkey);
	if (err)
		return err;
	for (i = 0, j = 0; i < KV_NCLASSES; i++)
		if (s->cls[i].count - s->cls[i].used > j)
			j = s->cls[i].count - s->cls[i].used;
	addrs = calloc(j, sizeof(*addrs));	/* the most */
	if (!addrs)
		return -ENOMEM;
	for (i = 0; i < KV_NCLASSES && !err; i++) {
		struct size_class *c = &s->cls[i];
		uint32_t nfree = c->count - c->used;

		/*
		 * Room for every buffer of the class: a preloaded key rewritten
		 * in another class frees a buffer the spares did not count.
		 */
		err = prism_fl_create(s->fd, s->rkey, c->size, c->count, &c->fl_id);
		for (j = 0; j < nfree && !err; j++)
			addrs[j] = c->start + (uint64_t)(c->used + j) * c->size;
		if (!err)
			err = post_buffers(s, i, addrs, nfree);
	}
	free(addrs);
	return err;
}

/* A batch of replaced buffers from a client: post each back to its list. */
static void prism_recycle(struct server *s, const uint8_t *data, uint32_t len)
{
	__u64 byclass[KV_NCLASSES][KV_RECYCLE_MAX];
	uint32_t n[KV_NCLASSES] = { 0 }, count, i;
	int c;

	if (len < KV_RECYCLE_HDR || pu_get_le32(data) != KV_RECYCLE_MAGIC) {
		s->rejected++;
		return;
	}
	count = pu_get_le32(data + 4);
	if (count > KV_RECYCLE_MAX || len != KV_RECYCLE_HDR + 8 * count) {
		s->rejected++;
		return;
	}
	for (i = 0; i < count; i++) {
		uint64_t addr = pu_get_le64(data + KV_RECYCLE_HDR + 8 * i);

		c = buffer_class(s, addr);
		if (c < 0) {
			s->rejected++;
			continue;
		}
		byclass[c][n[c]++] = addr;
	}
	for (c = 0; c < KV_NCLASSES; c++) {
		if (!n[c])
			continue;
		if (prism_fl_post(s->fd, s->cls[c].fl_id, byclass[c], n[c]))
			s->rejected += n[c];
		else
			s->recycled += n[c];
	}
}

/* ---- Pilaf ---- */

static int pilaf_setup(struct server *s)
{
	uint32_t j;
	int i, err;

	/* clients only READ: everything else is done here, by the CPU */
	err = prism_reg_mr(s->fd, s->mem, s->len, PRISM_ACCESS_REMOTE_READ,
			   &s->rkey);
	if (err)
		return err;
	for (i = 0; i < KV_NCLASSES; i++) {
		struct size_class *c = &s->cls[i];

		c->free = calloc(c->count, sizeof(*c->free));
		c->quar = calloc(c->count, sizeof(*c->quar));
		if (!c->free || !c->quar)
			return -ENOMEM;
		/* hand out low addresses first; preloaded ones are in use */
		for (j = 0; j < c->count - c->used; j++)
			c->free[j] = c->start + (uint64_t)(c->count - 1 - j) * c->size;
		c->nfree = c->count - c->used;
	}
	return 0;
}

static uint64_t pilaf_alloc(struct server *s, int cls)
{
	struct size_class *c = &s->cls[cls];
	uint64_t addr;

	if (c->nfree)
		return c->free[--c->nfree];
	if (!c->qlen)
		return 0;
	/* out of cold buffers: reuse the oldest replaced one (checksums protect) */
	addr = c->quar[c->qhead];
	c->qhead = (c->qhead + 1) % c->count;
	c->qlen--;
	return addr;
}

static void pilaf_free(struct server *s, uint64_t addr)
{
	int cls = buffer_class(s, addr);
	struct size_class *c;

	if (cls < 0)
		return;
	c = &s->cls[cls];
	c->quar[(c->qhead + c->qlen) % c->count] = addr;
	c->qlen++;
	/*
	 * A buffer leaves quarantine once enough newer ones are behind it
	 * (half of a class with fewer buffers than --quarantine).
	 */
	while (c->qlen > (s->quarantine < c->count / 2 ? s->quarantine : c->count / 2)) {
		c->free[c->nfree++] = c->quar[c->qhead];
		c->qhead = (c->qhead + 1) % c->count;
		c->qlen--;
	}
}

/* Plain stores a remote READ may observe half-done: hence slot.check. */
static void store_slot(uint8_t *p, const struct kv_slot *s)
{
	_Atomic uint64_t *w = (_Atomic uint64_t *)(void *)p;

	atomic_thread_fence(memory_order_release);	/* entry before slot */
	atomic_store_explicit(&w[0], s->ptr, memory_order_relaxed);
	atomic_store_explicit(&w[1], s->bound, memory_order_relaxed);
	atomic_store_explicit(&w[2], s->version, memory_order_relaxed);
	atomic_store_explicit(&w[3], s->check, memory_order_relaxed);
}

static int pilaf_execute(struct server *s, const struct kv_rpc_req *r,
			 uint64_t *version)
{
	uint64_t idx = kv_key_slot(r->key, r->klen, s->nslots), n, addr;
	uint32_t elen;
	struct kv_entry e = { 0 };
	struct kv_slot slot = { 0 };
	int cls, len;

	if (kv_check_sizes(r->klen, r->vlen))
		return kv_check_sizes(r->klen, r->vlen);
	for (n = 0; n < s->nslots; n++, idx = (idx + 1) & (s->nslots - 1)) {
		kv_slot_decode(s->table + idx * KV_SLOT_SIZE, &slot);
		if (slot.ptr == s->empty)
			break;
		if (kv_entry_decode((void *)(uintptr_t)slot.ptr, slot.bound, &e))
			return -EIO;
		if (kv_entry_key_is(&e, r->key, r->klen))
			break;
	}
	if (n == s->nslots)
		return -ENOSPC;
	*version = slot.version;
	if (r->conditional && slot.version != r->expected)
		return -EAGAIN;
	if (r->op == KV_RPC_DELETE &&
	    (slot.ptr == s->empty || e.flags != KV_E_LIVE))
		return -ENOENT;
	elen = kv_entry_len(r->klen, r->op == KV_RPC_DELETE ? 0 : r->vlen);
	cls = kv_class_for(elen);
	addr = cls < 0 ? 0 : pilaf_alloc(s, cls);
	if (!addr)
		return -ENOSPC;
	len = kv_entry_encode((void *)(uintptr_t)addr, s->cls[cls].size,
			      r->op == KV_RPC_DELETE ? KV_E_DELETED : KV_E_LIVE,
			      r->key, r->klen, r->val,
			      r->op == KV_RPC_DELETE ? 0 : r->vlen,
			      slot.version + 1);
	if (len < 0)
		return len;
	if (slot.ptr != s->empty)
		pilaf_free(s, slot.ptr);
	slot.ptr = addr;
	slot.bound = (uint64_t)len;
	slot.version++;
	slot.check = kv_slot_check(slot.ptr, slot.bound, slot.version);
	store_slot(s->table + idx * KV_SLOT_SIZE, &slot);
	*version = slot.version;
	return 0;
}

static void pilaf_serve(struct server *s, const union prism_sockaddr *src,
			const uint8_t *data, uint32_t len)
{
	_Alignas(8) unsigned char chain[256];
	unsigned char out[KV_RPC_REPLY_LEN];
	struct prism_chain_buf cb;
	struct kv_rpc_reply rep = { 0 };
	struct kv_rpc_req req;

	if (kv_rpc_req_decode(data, len, &req)) {
		s->rejected++;
		return;
	}
	s->rpcs++;
	rep.req_id = req.req_id;
	if (req.op != KV_RPC_PUT && req.op != KV_RPC_DELETE)
		rep.err = -EINVAL;
	else
		rep.err = pilaf_execute(s, &req, &rep.version);
	kv_rpc_reply_encode(out, &rep);
	/* The sender's address (either kind) is where the reply goes. */
	prism_chain_init(&cb, chain, sizeof(chain), req.req_id);
	prism_prep_send(&cb, out, sizeof(out));
	if (prism_submit(s->fd, &src->eth, &cb))
		s->reply_failures++;
}

static int write_info(const struct server *s, const char *path)
{
	union prism_sockaddr me;
	struct kv_info in = { 0 };
	char line[1024];
	int err, i;

	err = prism_local_addr(s->fd, &me.eth);
	if (err)
		return err;
	in.proto = s->proto;
	memcpy(in.mac, me.eth.sprism_mac, 6);
	in.ep = me.eth.sprism_ep;
	if (me.eth.sprism_kind == PRISM_ADDR_UDP)
		prism_format_addr(&me.eth, in.addr);
	in.rkey = s->rkey;
	in.base = (uint64_t)(uintptr_t)s->mem;
	in.len = s->len;
	in.table = (uint64_t)(uintptr_t)s->table;
	in.nslots = s->nslots;
	in.empty = s->empty;
	in.pid = (int)getpid();
	if (s->keys.fd >= 0)
		strcpy(in.keys, s->keys.path);
	for (i = 0; i < KV_NCLASSES; i++) {
		in.fl_size[i] = s->cls[i].size;
		in.fl_id[i] = s->cls[i].fl_id;
	}
	if (kv_info_format(&in, line, sizeof(line)) < 0)
		return -ENOSPC;
	return pu_write_atomic(path, line);
}

/* The largest message: a Pilaf PUT of the largest entry. */
#define KV_SERVER_MSG	(4096 + KV_RPC_HDR + KV_MAX_ENTRY)

int main(int argc, char **argv)
{
	_Alignas(8) static unsigned char msg[KV_SERVER_MSG];
	const struct prism_msg *m = (const void *)msg;
	const char *ifname = NULL, *info = NULL;
	struct server s = { .proto = KV_PROTO_PRISM,
			    .quarantine = 256, .recycle_interval_ms = 500 };
	struct sigaction sa = { .sa_handler = on_signal };
	uint32_t nbufs = 4096, ep = 0, npre = 0, vsize = 512;
	int pilaf = 0, pcls = -1, err;
	const struct pu_opt opts[] = {
		PU_OPT("if", ifname, "IFNAME", "interface (required)"),
		PU_OPT("info", info, "FILE", "address file to write (required)"),
		PU_OPT_CHOICE("mode", pilaf, "prism|pilaf", "server kind (default prism)"),
		PU_OPT("ep", ep, "N", "endpoint id (default: any)"),
		PU_OPT("slots", s.nslots, "N", "hash slots, a power of two (default 65536, or 2 per preloaded record)"),
		PU_OPT("bufs", nbufs, "N", "buffers per class up to 1 KiB, N KiB per larger class (default 4096)"),
		PU_OPT("quarantine", s.quarantine, "N", "pilaf: freed buffers held back (default 256)"),
		PU_OPT("recycle-interval-ms", s.recycle_interval_ms, "N",
		       "prism: buffer recycling period (default 500)"),
		PU_OPT("preload", npre, "N", "store kv bench's records 0..N-1 first"),
		PU_OPT("value", vsize, "V", "value bytes of preloaded records (default 512)"),
		PU_OPT_FLAG("keyed", s.keyed,
			    "prism: a keyed region; clients get keys from FILE.keys"),
		PU_OPT_END,
	};
	const char *synopsis = "kv-server --if IFNAME --info FILE [options]";

	if (pu_parse_opts(argc, argv, opts, synopsis) < 0)
		return 2;
	if (pilaf)
		s.proto = KV_PROTO_PILAF;
	if (!s.nslots) {
		/* half full at most: short probe sequences */
		s.nslots = 65536;
		while (s.nslots < 2ull * npre)
			s.nslots *= 2;
	}
	if (!ifname || !info || (s.nslots & (s.nslots - 1)) || nbufs < 1 ||
	    vsize > KV_MAX_VALUE || npre >= s.nslots)
		return pu_opts_usage(opts, synopsis);
	if (npre)
		pcls = kv_class_for(kv_entry_len(KV_KEY_LEN, vsize));
	if (s.quarantine >= nbufs)
		s.quarantine = nbufs / 2;
	if (s.keyed && pilaf) {
		fprintf(stderr, "kv-server: --keyed needs --mode prism\n");
		return 2;
	}

	sigaction(SIGTERM, &sa, NULL);	/* no SA_RESTART: recvmsg returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	s.fd = prism_open_spec(ifname, ep);
	if (s.fd < 0)
		return die("prism_open", s.fd);
	/* Clients send RPCs and buffer recycling as SEND-only chains. */
	err = prism_set_opt(s.fd, PRISM_OPEN_SEND, 1);
	if (err)
		return die("PRISM_OPEN_SEND", err);
	err = layout(&s, nbufs, pcls, npre);
	if (err)
		return die("memory", err);
	if (npre) {
		uint64_t t0 = pu_now_ns();

		err = preload(&s, pcls, npre, vsize);
		if (err)
			return die("preload", err);
		/*
		 * Per object: its share of the slot table, its buffer, and its
		 * free list ring entry in the kernel (16 B per buffer).
		 */
		double index = (double)s.nslots * KV_SLOT_SIZE / npre;

		fprintf(stderr, "kv-server: preloaded records=%u value_B=%u seconds=%.1f index_B=%.1f data_B=%u freelist_B=16 per_object_B=%.1f region_MiB=%.1f\n",
			npre, vsize, (double)(pu_now_ns() - t0) / 1e9, index,
			s.cls[pcls].size, index + s.cls[pcls].size + 16,
			(double)s.len / (1 << 20));
	}
	err = s.proto == KV_PROTO_PRISM ? prism_setup(&s) : pilaf_setup(&s);
	if (err)
		return die("register", err);
	if (s.proto == KV_PROTO_PILAF)
		prism_set_opt(s.fd, PRISM_MAX_OUTSTANDING, PRISM_WINDOW);
	s.keys.fd = -1;
	if (s.keyed) {
		err = pu_keysrv_start(&s.keys, info, s.fd, s.rkey, PRISM_ACCESS_ALL);
		if (err)
			return die("region key and key socket", err);
	}
	err = write_info(&s, info);
	if (err)
		return die("info file", err);

	while (!stop) {
		struct pollfd pfd[2] = {
			{ .fd = s.fd, .events = POLLIN },
			{ .fd = s.keys.fd, .events = POLLIN },	/* -1: none */
		};
		union prism_sockaddr src;
		const void *data;
		__u32 len;
		ssize_t n;

		/*
		 * Sleep in poll() (a signal makes it fail with EINTR and the
		 * loop looks at stop), then read without blocking.
		 */
		if (poll(pfd, 2, -1) < 0)
			continue;
		if (pfd[1].revents) {
			err = pu_keysrv_serve(&s.keys);
			if (err < 0)
				return die("key socket", err);
		}
		if (!pfd[0].revents)
			continue;
		n = prism_wait_from(s.fd, msg, sizeof(msg), &src.eth, MSG_DONTWAIT);
		if (n == -EAGAIN) {
			/* drained: let the next reports accumulate before waking */
			if (s.proto == KV_PROTO_PRISM && s.recycle_interval_ms) {
				struct timespec ts = {
					.tv_sec = s.recycle_interval_ms / 1000,
					.tv_nsec = (long)(s.recycle_interval_ms % 1000) * 1000000L,
				};

				nanosleep(&ts, NULL);
			}
			continue;
		}
		if (n < 0) {
			s.rejected++;
			if (n != -EMSGSIZE && n != -EPROTO)
				return die("recvmsg", (int)n);
			continue;
		}
		if (prism_msg_is_completion(m)) {
			if (m->status != PRISM_S_OK)	/* one of our replies */
				s.reply_failures++;
			continue;
		}
		data = prism_msg_send_data(m, &len);
		if (!data)
			continue;
		if (s.proto == KV_PROTO_PRISM)
			prism_recycle(&s, data, len);
		else
			pilaf_serve(&s, &src, data, len);
	}
	fprintf(stderr, "kv-server: exiting: recycled=%" PRIu64 " rejected=%" PRIu64
		" rpcs=%" PRIu64 " reply_failures=%" PRIu64, s.recycled,
		s.rejected, s.rpcs, s.reply_failures);
	if (s.keyed)
		fprintf(stderr, " keys_served=%" PRIu64 " keys_refused=%" PRIu64,
			s.keys.served, s.keys.refused);
	fputc('\n', stderr);
	pu_keysrv_close(&s.keys);
	close(s.fd);
	return 0;
}
