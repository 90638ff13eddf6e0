// SPDX-License-Identifier: GPL-2.0
/* PRISM-TX and FaRM-style transaction clients; the protocols are in tx.h. */
#include "txlib.h"
#include "pu_keys.h"
#include "txlib_int.h"

#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

/* 2020-09-13: keeps microsecond timestamps below 2^48 for decades. */
#define TX_EPOCH_US	1600000000000000ULL

uint64_t tx_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000 -
	       TX_EPOCH_US;
}

struct bchain *tx_batch_add(struct bchain *b, unsigned int *n, int shard)
{
	struct bchain *x = &b[(*n)++];

	x->shard = shard;
	x->nitems = 0;
	x->msg = NULL;
	prism_chain_init(&x->cb, x->cbuf, x->ccap, 0);
	return x;
}

unsigned int tx_batch_items(const struct txc *c, const struct tx *t,
			    unsigned int from, unsigned int per,
			    struct bchain *b, tx_prep_fn *prep)
{
	struct bchain *cur[TX_MAX_SHARDS] = { 0 };
	unsigned int n = 0;

	for (unsigned int i = from; i < t->n; i++) {
		const struct tx_item *it = &t->it[i];
		int s = tx_shard_of(c, it->key);

		if (it->done)
			continue;
		if (!cur[s] || cur[s]->nitems == per)
			cur[s] = tx_batch_add(b, &n, s);
		prep(c, t, it, cur[s]);
		cur[s]->item[cur[s]->nitems++] = i;
	}
	return n;
}

/* Receive one message into buf, waiting up to timeout_ms (-1: forever). */
ssize_t tx_recv_one(struct txc *c, void *buf, size_t len, int timeout_ms)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	ssize_t n;

	for (;;) {
		n = prism_wait_from(c->fd, buf, len, NULL, MSG_DONTWAIT);
		if (n != -EAGAIN && n != -EINTR)
			return n;
		n = poll(&p, 1, timeout_ms);
		if (n == 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

/*
 * Submit every chain of the batch, then collect all completions.  The
 * module completes every accepted chain exactly once, so this ends.
 */
int tx_run_batch(struct txc *c, struct bchain *b, unsigned int n)
{
	uint64_t base = c->next_ud;
	unsigned int left = n;

	c->next_ud += n;
	for (unsigned int i = 0; i < n; i++) {
		int err;

		prism_chain_set_user_data(&b[i].cb, base + i);
		prism_chain_set_timeout(&b[i].cb, CHAIN_TIMEOUT_MS);
		b[i].msg = NULL;
		err = prism_submit(c->fd, &c->sh[b[i].shard].addr.eth, &b[i].cb);
		if (err) {
			fprintf(stderr, "tx: submit: %s\n", strerror(-err));
			return err;
		}
	}
	if (c->crash_tx && c->crash_fn)
		c->crash_fn(c, c->crash_tx);	/* tests: a client dying here */
	while (left) {
		const struct prism_msg *m = (const void *)c->rbuf;
		ssize_t r = tx_recv_one(c, c->rbuf, c->out_cap, -1);
		uint64_t i;

		if (r < 0) {
			fprintf(stderr, "tx: recv: %s\n", strerror((int)-r));
			return (int)r;
		}
		if (r == 0 || m->kind != PRISM_MSG_COMPLETION)
			continue;	/* a late FaRM reply: its request is done */
		i = m->user_data - base;
		if (m->user_data < base || i >= n || b[i].msg)
			continue;
		memcpy(b[i].out, c->rbuf, (size_t)r);
		b[i].msg = (const void *)b[i].out;
		if (b[i].msg->status == PRISM_S_TIMEOUT)
			c->st.timeouts++;
		left--;
	}
	return 0;
}

int tx_op_ok(const struct prism_msg *m, unsigned int op)
{
	return m->status == PRISM_S_OK && prism_msg_op_status(m, op) == PRISM_S_OK;
}

const unsigned char *tx_op_out(const struct prism_msg *m, unsigned int op,
			       uint32_t want)
{
	uint32_t len;
	const unsigned char *p = prism_msg_data(m, op, &len);

	return p && len == want ? p : NULL;
}

int tx_shard_of(const struct txc *c, uint32_t key)
{
	return (int)(key % c->nshards);
}

uint64_t tx_slot_addr(const struct txc *c, uint32_t key)
{
	const struct tx_shard *s = &c->sh[tx_shard_of(c, key)];

	if (c->proto == TX_PROTO_PRISM)
		return s->ptx + (uint64_t)(key / c->nshards) * TX_SLOT_SIZE;
	return s->farm + (uint64_t)(key / c->nshards) * tx_farm_slot_size(c->vsize);
}

/* ------------------------------------------------------------------ */

static int parse_info(struct tx_shard *s, const char *path, unsigned int *nkeys,
		      unsigned int *shard, unsigned int *vsize)
{
	char line[512], mac[32];
	unsigned int nsh, ep;
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(line, sizeof(line), f) &&
	     sscanf(line, "shard=%u nshards=%u nkeys=%u mac=%31s ep=%u rkey=%" SCNx64
		    " ptx=%" SCNx64 " farm=%" SCNx64 " fl=%u nslots=%u vsize=%u",
		    shard, &nsh, nkeys, mac, &ep, &s->rkey, &s->ptx, &s->farm,
		    &s->fl, &s->nslots, vsize) == 11 &&
	     *vsize >= TX_MIN_VALUE && *vsize <= TX_MAX_VALUE;
	fclose(f);
	if (!ok) {
		/* sscanf wants "0x" accepted by %x: it is. */
		return -EINVAL;
	}
	{
		const char *a = strstr(line, " addr="), *k = strstr(line, " keys=");
		const char *dc = strstr(line, " dec=");
		char text[PRISM_ADDR_STRLEN];
		__u8 m[6];

		s->keys[0] = 0;
		s->dec = 0;
		if (dc && sscanf(dc, " dec=%" SCNx64, &s->dec) != 1)
			return -EINVAL;
		if (k && sscanf(k, " keys=%107s", s->keys) != 1)
			return -EINVAL;

		/* A UDP shard names its address; else the MAC and ep. */
		if (a) {
			if (sscanf(a, " addr=%79s", text) != 1)
				return -EINVAL;
			return prism_parse_addr(text, &s->addr);
		}
		if (prism_parse_mac(mac, m))
			return -EINVAL;
		prism_addr_init(&s->addr.eth, m, ep);
	}
	return 0;
}

/*
 * n chains whose buffers follow the array in the same allocation (one
 * free()): cap bytes of chain, out bytes of completion each.
 */
static struct bchain *batch_alloc(unsigned int n, size_t cap, size_t out)
{
	size_t head = tx_pad8((unsigned int)(n * sizeof(struct bchain)));
	struct bchain *b = malloc(head + n * (cap + out));
	unsigned char *p = (unsigned char *)b + head;

	if (!b)
		return NULL;
	for (unsigned int i = 0; i < n; i++, p += cap + out) {
		b[i].cbuf = p;
		b[i].ccap = cap;
		b[i].out = p + cap;
	}
	return b;
}

static void free_batches(struct txc *c)
{
	free(c->batch);
	free(c->fbatch);
	free(c->rbuf);
	c->batch = c->fbatch = NULL;
	c->rbuf = NULL;
}

int txc_set_chain_bytes(struct txc *c, unsigned int bytes)
{
	/* one item, however large, always fits a chain */
	size_t data = bytes > tx_buf_size(c->vsize) + 256 ? bytes :
		      tx_buf_size(c->vsize) + 256;

	if (bytes < 256 || bytes > PRISM_MAX_CHAIN_DATA)
		return -EINVAL;
	free_batches(c);
	c->chain_bytes = bytes;
	c->chain_cap = tx_pad8((unsigned int)(sizeof(struct prism_chain) +
		PRISM_MAX_CHAIN * (sizeof(struct prism_op) + 64) + data));
	c->out_cap = tx_pad8((unsigned int)(sizeof(struct prism_msg) +
		PRISM_MAX_CHAIN * 16 + 1024 + data));
	c->batch = batch_alloc(MAX_BATCH, c->chain_cap, c->out_cap);
	c->fbatch = batch_alloc(TX_MAX_SHARDS, c->chain_cap, c->out_cap);
	c->rbuf = malloc(c->out_cap);
	if (!c->batch || !c->fbatch || !c->rbuf) {
		free_batches(c);
		return -ENOMEM;
	}
	return 0;
}

unsigned int tx_per_chain(const struct txc *c, unsigned int per_item,
			  unsigned int limit)
{
	unsigned int n = c->chain_bytes / per_item;

	return n < 1 ? 1 : n > limit ? limit : n;
}

int txc_open(struct txc *c, const char *ifname, const char *infos,
	     enum tx_proto proto, unsigned int cid)
{
	char *list = strdup(infos), *save = NULL, *p;
	int err = 0, keyed = 0;

	memset(c, 0, sizeof(*c));
	c->proto = proto;
	c->cid = cid;
	c->next_ud = 1;
	c->fd = -1;
	if (!list)
		return -ENOMEM;
	for (p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		struct tx_shard s;
		unsigned int nkeys, shard, vsize;

		err = parse_info(&s, p, &nkeys, &shard, &vsize);
		if (err)
			break;
		if (shard >= TX_MAX_SHARDS || (c->vsize && vsize != c->vsize)) {
			err = -EINVAL;
			break;
		}
		c->vsize = vsize;
		c->sh[shard] = s;
		c->nshards++;
		c->nkeys = nkeys;
	}
	free(list);
	if (err)
		return err;
	if (!c->nshards)
		return -EINVAL;
	/* PRISM-TX decides in the shards' decision records (tx.h). */
	for (unsigned int i = 0; i < c->nshards && proto == TX_PROTO_PRISM; i++)
		if (!c->sh[i].dec)
			return -EINVAL;
	c->lease_us = TX_LEASE_US;
	for (unsigned int i = 0; i < TX_MAX_SHARDS; i++)
		keyed |= c->sh[i].keys[0] != 0;
	err = txc_set_chain_bytes(c, keyed ? TX_KEYED_CHAIN_BYTES : TX_CHAIN_BYTES);
	if (err)
		return err;
	c->fd = prism_open_spec(ifname, 0);
	if (c->fd < 0) {
		free_batches(c);
		return c->fd;
	}
	/* Servers answer RPCs with SEND-only chains. */
	err = prism_set_opt(c->fd, PRISM_OPEN_SEND, 1);
	if (err) {
		fprintf(stderr, "tx: setting PRISM_OPEN_SEND: %s\n",
			strerror(-err));
		close(c->fd);
		c->fd = -1;
		free_batches(c);
		return err;
	}
	prism_set_timeout(c->fd, CHAIN_TIMEOUT_MS);
	prism_set_opt(c->fd, PRISM_RETRIES, CHAIN_RETRIES);
	/* Keyed shards: this socket's key for each, from its key socket. */
	for (unsigned int i = 0; i < TX_MAX_SHARDS && !err; i++)
		if (c->sh[i].keys[0])
			err = pu_key_fetch(c->sh[i].keys, c->fd, &c->sh[i].addr.eth,
					   c->sh[i].rkey);
	if (err) {
		fprintf(stderr, "tx: key of a keyed shard: %s\n", strerror(-err));
		close(c->fd);
		c->fd = -1;
		free_batches(c);
	}
	return err;
}

void txc_close(struct txc *c)
{
	txc_flush(c);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free_batches(c);
}

/* Give replaced version buffers back to their shard (one SEND per shard). */
void txc_flush(struct txc *c)
{
	struct bchain *b = c->fbatch;
	unsigned int n = 0;

	if (!b)
		return;
	for (unsigned int s = 0; s < c->nshards; s++) {
		unsigned char data[8 + 8 * TX_RECYCLE_MAX];
		uint32_t magic = TX_RECYCLE_MAGIC;
		struct bchain *x;

		if (!c->nrecycle[s])
			continue;
		memset(data, 0, 8);
		memcpy(data, &magic, 4);
		for (unsigned int i = 0; i < c->nrecycle[s]; i++)
			tx_put64(data + 8 + 8 * i, c->recycle[s][i]);
		x = tx_batch_add(b, &n, (int)s);
		x->nitems = c->nrecycle[s];
		prism_prep_send(&x->cb, data, 8 + 8 * c->nrecycle[s]);
	}
	if (n && tx_run_batch(c, b, n) == 0) {
		for (unsigned int i = 0; i < n; i++) {
			int s = b[i].shard;

			if (tx_op_ok(b[i].msg, 0)) {
				c->st.recycled += c->nrecycle[s];
				c->nrecycle[s] = 0;
			} else if (b[i].msg->status == PRISM_S_OK) {
				continue;	/* RECV_FULL: try again later */
			} else {
				/*
				 * Unknown outcome: sending again could post a
				 * buffer twice, so leak them instead.
				 */
				c->st.recycle_lost += c->nrecycle[s];
				c->nrecycle[s] = 0;
			}
		}
	}
}

void tx_recycle(struct txc *c, uint32_t key, uint64_t ptr)
{
	int s = tx_shard_of(c, key);

	if (!ptr)
		return;
	if (c->nrecycle[s] == TX_RECYCLE_MAX)
		txc_flush(c);
	if (c->nrecycle[s] < TX_RECYCLE_MAX)
		c->recycle[s][c->nrecycle[s]++] = ptr;
}

/* ------------------------------------------------------------------ */

void tx_begin(struct txc *c, struct tx *t)
{
	(void)c;
	t->n = 0;
	t->ts = 0;
}

static struct tx_item *find_item(struct tx *t, uint32_t key)
{
	for (unsigned int i = 0; i < t->n; i++)
		if (t->it[i].key == key)
			return &t->it[i];
	return NULL;
}

uint64_t tx_value(const struct tx *t, uint32_t key)
{
	for (unsigned int i = 0; i < t->n; i++)
		if (t->it[i].key == key)
			return t->it[i].newval;
	return 0;
}

int tx_write(struct tx *t, uint32_t key, uint64_t val)
{
	struct tx_item *it = find_item(t, key);

	if (!it)
		return -EINVAL;	/* writes must follow a read of the key */
	it->written = 1;
	it->newval = val;
	return 0;
}

/* Ops per key of an execution read: PRISM 2 (slot, buffer), FaRM 1. */
static unsigned int read_ops(const struct txc *c)
{
	return c->proto == TX_PROTO_PRISM ? 2 : 1;
}

static void prep_read(const struct txc *c, const struct tx *t,
		      const struct tx_item *it, struct bchain *x)
{
	uint64_t rkey = c->sh[x->shard].rkey, slot = tx_slot_addr(c, it->key);

	(void)t;

	if (c->proto == TX_PROTO_PRISM) {
		prism_prep_read(&x->cb, rkey, slot, TX_SLOT_SIZE);
		prism_prep_read_indirect(&x->cb, rkey, slot + TX_PTR,
					 tx_buf_size(c->vsize));
	} else {
		prism_prep_read(&x->cb, rkey, slot, tx_farm_read_len(c->vsize));
	}
}

/*
 * Decode an execution read.  Returns 1 when the item is valid, 0 when the
 * read must be repeated (torn), TX_ABORTED+1 when the key is locked or
 * has a pending write.
 */
static int parse_read(struct txc *c, const struct prism_msg *m,
		      unsigned int op, struct tx_item *it)
{
	const unsigned char *a, *b;

	if (m->status != PRISM_S_OK)
		return 0;
	if (c->proto == TX_PROTO_PRISM) {
		uint64_t pw, cts;

		a = tx_op_out(m, op, TX_SLOT_SIZE);
		b = tx_op_out(m, op + 1, tx_buf_size(c->vsize));
		if (!a || !b)
			return -EIO;
		pw = tx_get64(a + TX_PW);
		cts = tx_get64(a + TX_C);
		if (tx_get64(b) > cts)
			return 0;	/* a newer version landed between the ops */
		if (pw != cts) {
			it->pw = pw;
			return TX_ABORTED + 1;
		}
		/* a buffer recycled while a large read was still reading it */
		if (!tx_value_check(b + 8, c->vsize, it->key, tx_get64(b))) {
			c->st.torn++;
			return 0;
		}
		it->rc = cts;
		it->ptr = tx_get64(a + TX_PTR);
		it->ver = tx_get64(b);
		it->val = tx_get64(b + 8);
	} else {
		uint64_t head, tail;

		a = tx_op_out(m, op, tx_farm_read_len(c->vsize));
		if (!a)
			return -EIO;
		head = tx_get64(a);
		tail = tx_get64(a + 8 + tx_pad8(c->vsize));
		if ((head & 1) || head != tail)
			return TX_ABORTED + 1;
		/* a read over 32 bytes is not atomic: a commit tore it */
		if (!tx_value_check(a + 8, c->vsize, it->key, head >> 1)) {
			c->st.torn++;
			return 0;
		}
		it->rc = it->ver = head >> 1;
		it->val = tx_get64(a + 8);
	}
	it->newval = it->val;
	return 1;
}

/*
 * Read the items [from, t->n) whose valid flag is clear.  PRISM-TX: a key
 * whose write has been pending longer than the lease is recovered (tx.h,
 * RECOVERY) and read again.
 */
static int read_items(struct txc *c, struct tx *t, unsigned int from)
{
	struct bchain *b = c->batch;
	unsigned int per = tx_per_chain(c, c->proto == TX_PROTO_PRISM ?
				     TX_SLOT_SIZE + tx_buf_size(c->vsize) :
				     tx_farm_read_len(c->vsize),
				     PRISM_MAX_CHAIN / read_ops(c));
	int ret = 0, tries = 0;

	for (;;) {
		unsigned int n = tx_batch_items(c, t, from, per, b, prep_read);

		if (!n)
			break;
		if (++tries > 1000) {
			ret = -EIO;
			break;
		}
		ret = tx_run_batch(c, b, n);
		if (ret)
			break;
		for (unsigned int j = 0; j < n; j++)
			for (unsigned int k = 0; k < b[j].nitems; k++) {
				struct tx_item *it = &t->it[b[j].item[k]];
				int r = parse_read(c, b[j].msg, k * read_ops(c), it);

				if (r < 0) {
					ret = r;
				} else if (r == 1) {
					it->done = 1;
				} else if (r == TX_ABORTED + 1) {
					it->done = 1;
					it->blocked = 1;
				}
			}
		for (unsigned int i = from; i < t->n && !ret; i++) {
			struct tx_item *it = &t->it[i];
			int r = 0;

			if (!it->blocked)
				continue;
			if (c->proto == TX_PROTO_PRISM)
				r = tx_prism_recover_key(c, it->key, it->pw);
			if (r < 0) {
				ret = r;
			} else if (r) {
				it->done = 0;
				it->blocked = 0;
			}
		}
		for (unsigned int i = from; i < t->n && !ret; i++)
			if (t->it[i].blocked)
				ret = TX_ABORTED;
		if (ret)
			break;
	}
	return ret;
}

int tx_read(struct txc *c, struct tx *t, const uint32_t *keys, unsigned int n)
{
	unsigned int from = t->n;

	for (unsigned int i = 0; i < n; i++) {
		struct tx_item *it;

		if (keys[i] >= c->nkeys)
			return -EINVAL;
		if (find_item(t, keys[i]))
			continue;
		if (t->n == TX_MAX_KEYS_TX)
			return -E2BIG;
		it = &t->it[t->n++];
		memset(it, 0, sizeof(*it));
		it->key = keys[i];
	}
	return read_items(c, t, from);
}

int tx_commit(struct txc *c, struct tx *t)
{
	int r = c->proto == TX_PROTO_PRISM ? tx_prism_commit(c, t) : tx_farm_commit(c, t);

	if (r == TX_COMMITTED)
		c->st.commits++;
	else if (r == TX_ABORTED)
		c->st.aborts++;
	return r;
}

static void record(const struct txc *c, const struct tx *t, FILE *f, char kind)
{
	struct hist_op rd[TX_MAX_KEYS_TX], wr[TX_MAX_KEYS_TX];
	unsigned int nr = 0, nw = 0;

	for (unsigned int i = 0; i < t->n; i++) {
		const struct tx_item *it = &t->it[i];

		rd[nr++] = (struct hist_op){ it->key, it->ver, it->val };
		if (it->written)
			wr[nw++] = (struct hist_op){
				it->key,
				c->proto == TX_PROTO_PRISM ? t->ts : it->ver + 1,
				it->newval };
	}
	hist_write_tx(f, kind, t->ts, rd, nr, wr, nw);
}

void tx_record(const struct txc *c, const struct tx *t, FILE *f)
{
	record(c, t, f, 'T');
}

void tx_record_pending(const struct txc *c, const struct tx *t, FILE *f)
{
	record(c, t, f, 'P');
}

int tx_dump(struct txc *c, FILE *f, uint64_t *sum, uint32_t nkeys)
{
	struct tx t;
	int pending = 0;

	if (!nkeys || nkeys > c->nkeys)
		nkeys = c->nkeys;
	*sum = 0;
	for (uint32_t k = 0; k < nkeys; k += TX_MAX_KEYS_TX) {
		uint32_t keys[TX_MAX_KEYS_TX];
		unsigned int n = 0;
		int r;

		for (uint32_t j = k; j < nkeys && n < TX_MAX_KEYS_TX; j++)
			keys[n++] = j;
		tx_begin(c, &t);
		r = tx_read(c, &t, keys, n);
		if (r < 0)
			return r;
		for (unsigned int i = 0; i < t.n; i++) {
			if (!t.it[i].done || t.it[i].blocked) {
				pending++;
				continue;
			}
			fprintf(f, "F %u %" PRIu64 " %" PRIu64 "\n", t.it[i].key,
				t.it[i].ver, t.it[i].val);
			*sum += t.it[i].val;
		}
	}
	return pending;
}
