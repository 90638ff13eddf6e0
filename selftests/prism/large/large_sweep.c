// SPDX-License-Identifier: GPL-2.0
/*
 * large_sweep: operations from 1 B to 1 MiB (issue 14, doc/LARGE-OPS.md).
 *
 *   large_sweep --if IF --target-ns NS --target-if TIF [--op OP]...
 *		[--max-size N] [--timeout-ms MS] [--outbuf]
 *	the sweep: a target socket bound to TIF in netns NS (its memory
 *	is this process's), a client socket bound to IF here.  For each op
 *	(read, write, indirect, bounded, alloc, send; default all) and each
 *	size 1, 2, 3, 4, 5, 7, 8, 9, 15, ... up to --max-size (1 MiB):
 *	every power of two and its neighbours, one chain at a time through
 *	a prism_ring.  Data is a pattern of its own per op and size,
 *	checked byte for byte (a segment stored at the wrong offset shows);
 *	each chain must get exactly one completion, status OK, with the
 *	op's output length.  TAP: one line per op (naming the first failing
 *	size), then one for stray completions.  With --outbuf every chain
 *	has an output buffer (PRISM_CMSG_OUTBUF): its completion must carry
 *	the results alone, the output must be in the buffer and the bytes
 *	after it untouched; three more lines: a buffer of the chain's exact
 *	size is accepted, a chain that fails (to an endpoint nobody bound)
 *	completes with its status and the result alone, and the refusals
 *	(a buffer one byte short: EINVAL,
 *	read-only: EFAULT, past RLIMIT_MEMLOCK without CAP_IPC_LOCK: ENOMEM;
 *	each counted in outbuf_refused, and no page left pinned).
 *   large_sweep --serve --if IF [--max-size N]
 *	a target only: one region holding a fixed pattern, its address line
 *	(mac= ep= rkey= addr= size=) on stdout, then pause()
 *   large_sweep --if IF [--loop [--op write]] [--max-size N] [--outbuf] mac=.. ep=.. rkey=.. addr=.. size=..
 *	a client of a --serve target: the READ sweep, checked against the
 *	pattern; or, with --loop, READs of --max-size bytes for ever (with
 *	--op write, every other chain a WRITE of the same pattern), two in
 *	flight, printing "progress=N" after each completion (the guest
 *	suite kills it mid-transfer)
 *
 * Until the module carries large operations, a chain or answer larger
 * than one frame is refused by sendmsg() with EMSGSIZE; those sizes fail
 * and say so.  Exit status: 0 when every test passed, 1 otherwise, 2 for
 * usage errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "../st.h"	/* open_in_netns(), errno_name(), now_ms() */
#include "../target.h"	/* target_mem(), target_addr_line() */
#include "pu_tap.h"
#include "large_sweep.h"

#define OP_CHOICES	"read|write|indirect|bounded|alloc|send"
static const char *const op_name[NR_OPS] = {
	"READ", "WRITE", "READ|INDIRECT", "READ|INDIRECT|BOUNDED",
	"ALLOC+READ", "SEND",
};

#define NBUFS		4u	/* free list buffers */
#define SERVE_SEED	0x5e55e0ULL
#define FREE_SEED	0xf7eeULL	/* free list buffers while free */
#define MAX_DIAG	4	/* failures printed per op */

/* ------------------------------------------------------------------------
 * Sizes and patterns
 */

/* Every power of two up to max, its neighbours, and max: sorted, unique. */
static unsigned int sweep_sizes(size_t max, size_t *out)
{
	unsigned int n = 0;
	size_t p, v;
	int d;

	for (p = 1; p <= max; p <<= 1)
		for (d = -1; d <= 1; d++) {
			v = p + (size_t)d;
			if (v >= 1 && v <= max && (!n || v > out[n - 1]))
				out[n++] = v;
		}
	if (!n || out[n - 1] < max)
		out[n++] = max;
	return n;
}

/*
 * The pattern of seed: 8-byte words, word w = splitmix64(splitmix64(seed)
 * + w), little-endian; every word of one pattern differs.
 */
static __u64 pat_word(__u64 h, size_t w)
{
	return pu_splitmix64(h + w);
}

static unsigned char pat_byte(__u64 seed, size_t i)
{
	return (unsigned char)(pat_word(pu_splitmix64(seed), i >> 3) >>
			       ((i & 7) * 8));
}

/*
 * Walk the pattern of seed from byte from on: store n bytes at fill, or
 * compare them with cmp.  Returns the index of the first byte of cmp that
 * differs, or n.
 */
static size_t pat_walk(unsigned char *fill, const unsigned char *cmp,
		       size_t n, __u64 seed, size_t from)
{
	__u64 h = pu_splitmix64(seed), w = pat_word(h, from >> 3);
	unsigned char v;
	size_t i, x;

	for (i = 0; i < n; i++) {
		x = from + i;
		if (i && !(x & 7))
			w = pat_word(h, x >> 3);
		v = (unsigned char)(w >> ((x & 7) * 8));
		if (fill)
			fill[i] = v;
		else if (cmp[i] != v)
			break;
	}
	return i;
}

static void pat_fill(unsigned char *b, size_t n, __u64 seed, size_t from)
{
	pat_walk(b, NULL, n, seed, from);
}

static __u64 seed_of(enum sweep_op op, size_t size)
{
	return ((__u64)op << 56) ^ ((__u64)size << 24) ^ 0x9a11ULL;
}

/* Start offset of size's accesses: varies the alignment and page splits. */
static size_t off_of(size_t size)
{
	return (size * 2654435761u) % SLACK;
}

static void layout_init(struct layout *l, size_t max)
{
	l->max = ALIGN8(max);
	l->r_off = 0;
	l->w_off = l->r_off + l->max + SLACK;
	l->cell_off = l->w_off + l->max + SLACK + GUARD;
	l->buf_size = l->max + GUARD;
	l->fl_off = l->cell_off + 64;
	l->len = (l->fl_off + NBUFS * l->buf_size + 4095) & ~(size_t)4095;
}

/* ------------------------------------------------------------------------
 * Sockets, target, ring
 */

/* Receive buffer for completions (or SEND messages) of up to max bytes. */
static void set_rcvbuf(int fd, size_t max, const char *who)
{
	int v = (int)(4 * max + (1u << 20));

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)))
		printf("# %s: SO_RCVBUF %d: %s\n", who, v, errno_name(errno));
}

/* The region on fd, filled; the free list when alloc.  0 or -errno. */
static int target_setup(struct sweep *s, int fd, int alloc)
{
	struct layout *l = &s->lay;
	__u64 addrs[NBUFS];
	unsigned int i;
	int err;

	s->mem = target_mem(l->len);
	if (!s->mem)
		return -ENOMEM;
	s->base = (__u64)(uintptr_t)s->mem;
	pat_fill(s->mem + l->r_off, l->max + SLACK, SERVE_SEED, 0);
	err = prism_reg_mr(fd, s->mem, l->len, PRISM_ACCESS_ALL, &s->rkey);
	if (err || !alloc)
		return err;
	err = prism_fl_create(fd, s->rkey, (__u32)l->buf_size, NBUFS, &s->fl);
	for (i = 0; i < NBUFS; i++) {
		addrs[i] = s->base + l->fl_off + i * l->buf_size;
		pat_fill(s->mem + l->fl_off + i * l->buf_size, l->buf_size,
			 FREE_SEED, 0);
	}
	if (!err)
		err = prism_fl_post(fd, s->fl, addrs, NBUFS);
	return err;
}

/* Parse the address line words of a --serve target. */
static int parse_target(struct sweep *s, char **w, int n, size_t *size)
{
	__u8 mac[6] = { 0 };
	__u32 ep = 0;
	int i, have = 0;

	for (i = 0; i < n; i++) {
		char *v = strchr(w[i], '=');

		if (!v)
			return -EINVAL;
		*v++ = '\0';
		if (!strcmp(w[i], "mac") && !prism_parse_mac(v, mac))
			have |= 1;
		else if (!strcmp(w[i], "ep"))
			ep = (__u32)strtoul(v, NULL, 0), have |= 2;
		else if (!strcmp(w[i], "rkey"))
			s->rkey = strtoull(v, NULL, 0), have |= 4;
		else if (!strcmp(w[i], "addr"))
			s->base = strtoull(v, NULL, 0), have |= 8;
		else if (!strcmp(w[i], "size"))
			*size = strtoul(v, NULL, 0), have |= 16;
	}
	if (have != 31)
		return -EINVAL;
	prism_addr_init(&s->dst, mac, ep);
	return 0;
}

/* A chain in s->cbuf, of the next user_data and the deadline. */
void chain_init(struct sweep *s, struct prism_chain_buf *c)
{
	prism_chain_init(c, s->cbuf, s->cbuf_len, ++s->next_ud);
	prism_chain_set_timeout(c, s->timeout_ms);
	if (s->outbuf)
		prism_chain_set_outbuf(c, s->ob, s->ob_len);
}

/* Buffers for the largest chain, completion and SEND message. */
static int client_setup(struct sweep *s, const char *ifname)
{
	size_t max = s->lay.max;
	struct prism_chain_buf c;
	ssize_t buf;
	int err;

	s->fd = prism_open(ifname, 0, 0);
	if (s->fd < 0)
		return s->fd;
	err = prism_local_addr(s->fd, &s->me);
	if (err)
		return err;
	set_rcvbuf(s->fd, max, "client");
	s->cbuf_len = sizeof(struct prism_chain) + 2 * sizeof(struct prism_op) +
		      max + 64;
	s->rbuf_len = sizeof(struct prism_msg) + max + 64;
	s->cbuf = aligned_alloc(8, ALIGN8(s->cbuf_len));
	s->want = malloc(max + SLACK);
	s->rbuf = aligned_alloc(8, ALIGN8(s->rbuf_len));
	/* Outputs of the largest chain, and bytes after them to watch. */
	s->ob_len = ALIGN8(max) + GUARD;
	s->ob = malloc(s->ob_len);
	if (!s->cbuf || !s->want || !s->rbuf || !s->ob)
		return -ENOMEM;
	/* Ring buffers for the largest completion: a READ of max bytes. */
	chain_init(s, &c);
	prism_prep_read(&c, 0, 0, (__u32)s->max_op);
	buf = prism_chain_completion_size(&c);
	if (buf < 0)
		return (int)buf;
	return prism_ring_init(&s->ring, s->fd, 4, 0,
			       (unsigned int)((buf + 4095) & ~4095), 0);
}

/* ------------------------------------------------------------------------
 * One chain
 */

/* Why the ring event of a chain, res < 0, failed. */
static void event_error(int res, int own, char *why, size_t wl)
{
	if (own)	/* the SENDMSG of the chain */
		snprintf(why, wl, "sendmsg: %s%s", errno_name(-res),
			 res == -EMSGSIZE ? " (chain or answer too large: a module without large operations refuses more than one frame, issue 14)" : "");
	else
		snprintf(why, wl, "receive: %s%s", errno_name(-res),
			 res == -EMSGSIZE ? " (completion larger than the ring's buffers)" : "");
}

/*
 * Submit c through the ring and reap until its completion: *m, valid
 * until the next reap.  Completions of other chains are counted as
 * strays.  0, or -1 with why filled.
 */
int run_chain(struct sweep *s, struct prism_chain_buf *c,
	      const struct prism_msg **m, char *why, size_t wl)
{
	__u64 ud = prism_chain_hdr(c)->user_data;
	struct prism_ring_cqe ev;
	long long end;
	int n, err;

	if (s->outbuf)
		memset(s->ob, OB_FILL, s->ob_len);
	err = prism_chain_error(c);
	if (!err)
		err = prism_ring_queue(&s->ring, &s->dst, c);
	if (!err) {
		err = prism_ring_submit(&s->ring);
		err = err < 0 ? err : 0;
	}
	if (err) {
		snprintf(why, wl, "queueing the chain: %s", errno_name(-err));
		return -1;
	}
	end = now_ms() + s->timeout_ms + 5000;
	for (;;) {
		n = prism_ring_reap(&s->ring, &ev, 1, 1,
				    (int)(end - now_ms() > 0 ? end - now_ms() : 0));
		if (n == -EINTR)
			continue;
		if (n < 0) {
			snprintf(why, wl, "reap: %s", errno_name(-n));
			return -1;
		}
		if (!n) {
			snprintf(why, wl, "no completion %u ms after the chain's deadline",
				 5000u);
			return -1;
		}
		if (ev.res < 0) {
			event_error(ev.res, ev.user_data == ud, why, wl);
			return -1;
		}
		if (prism_msg_is_completion(ev.msg) && ev.user_data == ud)
			break;
		s->stray++;
		printf("# stray message: kind %u user_data %llu (waiting for %llu)\n",
		       ev.msg->kind, (unsigned long long)ev.user_data,
		       (unsigned long long)ud);
	}
	*m = ev.msg;
	if ((*m)->status != PRISM_S_OK) {
		snprintf(why, wl, "chain status %s", prism_status_str((*m)->status));
		return -1;
	}
	if ((*m)->nops != prism_chain_nops(c)) {
		snprintf(why, wl, "%u results for %u ops", (*m)->nops,
			 prism_chain_nops(c));
		return -1;
	}
	return 0;
}

/*
 * Op i of m: status OK and an output of len bytes (8-byte aligned, inside
 * the message or the output buffer).  Its data in *p.  0, or -1 with why
 * filled.
 */
static int check_result(struct sweep *s, const struct prism_msg *m,
			unsigned int i, size_t len, const unsigned char **p,
			char *why, size_t wl)
{
	const struct prism_op_result *r = prism_msg_result(m, i);
	__u32 got;

	if (!r || r->status != PRISM_S_OK) {
		snprintf(why, wl, "op %u status %s", i,
			 r ? prism_status_str(r->status) : "missing");
		return -1;
	}
	if (r->len != len) {
		snprintf(why, wl, "op %u: length %u, expected %zu", i, r->len, len);
		return -1;
	}
	if (s->outbuf)
		return check_outbuf(s, m, i, len, p, why, wl);
	*p = prism_msg_data(m, i, &got);
	if (len && (!*p || r->offset % 8)) {
		snprintf(why, wl, "op %u: output [%u, +%u) unaligned or outside the completion (len %u)",
			 i, r->offset, r->len, m->len);
		return -1;
	}
	return 0;
}

/* got must be the n pattern bytes of seed from from. */
static int check_data(const unsigned char *got, size_t n, __u64 seed,
		      size_t from, const char *what, char *why, size_t wl)
{
	size_t d = pat_walk(NULL, got, n, seed, from);

	if (d == n)
		return 0;
	snprintf(why, wl, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what,
		 d, n, got[d], pat_byte(seed, from + d));
	return -1;
}

/* READ of n bytes at addr whose contents are the pattern (seed, from). */
static int read_check(struct sweep *s, __u64 addr, __u16 flags, size_t len,
		      size_t n, __u64 seed, size_t from, char *why, size_t wl)
{
	struct prism_chain_buf c;
	const struct prism_msg *m;
	const unsigned char *p;

	chain_init(s, &c);
	prism_prep_read_flags(&c, s->rkey, addr, (__u32)len, flags);
	if (run_chain(s, &c, &m, why, wl) || check_result(s, m, 0, n, &p, why, wl))
		return -1;
	return check_data(p, n, seed, from, "output", why, wl);
}

/* ------------------------------------------------------------------------
 * The ops: one size each; 0, or -1 with why filled
 */

int do_read(struct sweep *s, enum sweep_op op, size_t n, char *why,
	    size_t wl)
{
	size_t off = off_of(n), len = n;
	__u64 seed = SERVE_SEED, cell = s->base + s->lay.cell_off;
	unsigned char *cp = s->mem ? s->mem + s->lay.cell_off : NULL;
	size_t from = off;

	if (s->mem) {	/* local: a pattern of this op and size */
		seed = seed_of(op, n);
		from = 0;
		pat_fill(s->mem + s->lay.r_off + off, n, seed, 0);
	}
	switch (op) {
	case OP_READ:
		return read_check(s, s->base + s->lay.r_off + off, 0, n, n,
				  seed, from, why, wl);
	case OP_INDIRECT:
		prism_put_le64(cp, s->base + s->lay.r_off + off);
		return read_check(s, cell, PRISM_F_INDIRECT, n, n, seed, from,
				  why, wl);
	default:	/* OP_BOUNDED: asks for up to 2n, the bound is n */
		len = 2 * n < s->max_op ? 2 * n : s->max_op;
		prism_put_le64(cp + 16, s->base + s->lay.r_off + off);
		prism_put_le64(cp + 24, n);
		return read_check(s, cell + 16, PRISM_F_INDIRECT | PRISM_F_BOUNDED,
				  len, n, seed, from, why, wl);
	}
}

static int do_write(struct sweep *s, size_t n, char *why, size_t wl)
{
	unsigned char *dst = s->mem + s->lay.w_off + off_of(n);
	__u64 seed = seed_of(OP_WRITE, n), before = seed ^ 1;
	struct prism_chain_buf c;
	const struct prism_msg *m;
	const unsigned char *p;

	pat_fill(dst, n + GUARD, before, 0);
	pat_fill(s->want, n, seed, 0);
	chain_init(s, &c);
	prism_prep_write(&c, s->rkey, s->base + s->lay.w_off + off_of(n),
			 s->want, (__u32)n);
	if (run_chain(s, &c, &m, why, wl) || check_result(s, m, 0, 0, &p, why, wl) ||
	    check_data(dst, n, seed, 0, "target memory", why, wl))
		return -1;
	return check_data(dst + n, GUARD, before, n, "bytes after the WRITE",
			  why, wl);
}

/*
 * ALLOC n bytes into a buffer holding the FREE_SEED pattern, then READ the
 * buffer back; the buffer gets the pattern again and is posted again.
 */
static int do_alloc(struct sweep *s, size_t n, char *why, size_t wl)
{
	__u64 seed = seed_of(OP_ALLOC, n), addr, k;
	size_t after = s->lay.buf_size - n < GUARD ? s->lay.buf_size - n : GUARD;
	long long end = now_ms() + 5000;
	struct prism_chain_buf c;
	const struct prism_msg *m;
	const unsigned char *p;
	unsigned char *buf;
	int err, bad;

	pat_fill(s->want, n, seed, 0);
	for (;;) {
		chain_init(s, &c);
		prism_prep_alloc(&c, s->rkey, s->fl, s->want, (__u32)n);
		if (run_chain(s, &c, &m, why, wl))
			return -1;
		/* Buffers posted again become allocatable after a grace period. */
		if (prism_msg_op_status(m, 0) != PRISM_S_NO_BUFFER ||
		    now_ms() > end)
			break;
		s->no_buffer++;
	}
	if (check_result(s, m, 0, 8, &p, why, wl))
		return -1;
	addr = prism_get_le64(p);
	k = (addr - s->base - s->lay.fl_off) / s->lay.buf_size;
	if (addr < s->base + s->lay.fl_off || k >= NBUFS ||
	    (addr - s->base - s->lay.fl_off) % s->lay.buf_size ||
	    (s->buf_busy & (1u << k))) {
		snprintf(why, wl, "ALLOC returned 0x%llx: not a free buffer of the list",
			 (unsigned long long)addr);
		return -1;
	}
	s->buf_busy |= 1u << k;
	buf = s->mem + (addr - s->base);
	bad = read_check(s, addr, 0, n, n, seed, 0, why, wl) ||
	      check_data(buf, n, seed, 0, "target memory", why, wl) ||
	      check_data(buf + n, after, FREE_SEED, n, "bytes after the data",
			 why, wl);
	pat_fill(buf, n, FREE_SEED, 0);
	err = prism_fl_post(s->tfd, s->fl, &addr, 1);
	if (err) {
		snprintf(why, wl, "posting the buffer again: %s", errno_name(-err));
		return -1;
	}
	s->buf_busy &= ~(1u << k);
	return bad ? -1 : 0;
}

static int do_send(struct sweep *s, size_t n, char *why, size_t wl)
{
	const struct prism_msg *rm = (const void *)s->rbuf;
	__u64 seed = seed_of(OP_SEND, n);
	struct sockaddr_prism src;
	struct prism_chain_buf c;
	const struct prism_msg *m;
	const unsigned char *p;
	__u32 len;
	ssize_t got;

	pat_fill(s->want, n, seed, 0);
	chain_init(s, &c);
	prism_prep_send(&c, s->want, (__u32)n);
	if (run_chain(s, &c, &m, why, wl) || check_result(s, m, 0, 0, &p, why, wl))
		return -1;
	got = prism_wait_from(s->tfd, s->rbuf, s->rbuf_len, &src, 0);
	if (got < 0) {
		snprintf(why, wl, "target recvmsg: %s", errno_name((int)-got));
		return -1;
	}
	p = prism_msg_send_data(rm, &len);
	if (rm->kind != PRISM_MSG_SEND || len != n) {
		snprintf(why, wl, "target received kind %u with %u bytes",
			 rm->kind, len);
		return -1;
	}
	if (src.sprism_ep != s->me.sprism_ep ||
	    memcmp(src.sprism_mac, s->me.sprism_mac, 6)) {
		snprintf(why, wl, "SEND from endpoint %u, expected %u",
			 src.sprism_ep, s->me.sprism_ep);
		return -1;
	}
	return check_data(p, n, seed, 0, "received data", why, wl);
}

static int do_op(struct sweep *s, enum sweep_op op, size_t n, char *why,
		 size_t wl)
{
	switch (op) {
	case OP_WRITE:
		return do_write(s, n, why, wl);
	case OP_ALLOC:
		return do_alloc(s, n, why, wl);
	case OP_SEND:
		return do_send(s, n, why, wl);
	default:
		return do_read(s, op, n, why, wl);
	}
}

/* One TAP line for op over every size. */
static void sweep_op(struct sweep *s, enum sweep_op op, const size_t *sizes,
		     unsigned int nsizes)
{
	unsigned int i, failed = 0;
	size_t first = 0, bytes = 0;
	char why[256], first_why[256] = "";
	long long t0 = now_ms(), ms;

	for (i = 0; i < nsizes; i++) {
		if (!do_op(s, op, sizes[i], why, sizeof(why))) {
			bytes += sizes[i];
			continue;
		}
		if (!failed++) {
			first = sizes[i];
			snprintf(first_why, sizeof(first_why), "%s", why);
		}
		if (failed <= MAX_DIAG)
			printf("# %s %zu B: %s\n", op_name[op], sizes[i], why);
	}
	ms = now_ms() - t0;
	printf("# %s: %u sizes, %zu bytes verified in %lld ms (%.1f MiB/s)\n",
	       op_name[op], nsizes, bytes, ms,
	       ms ? (double)bytes / (1 << 20) * 1000 / (double)ms : 0.0);
	if (failed)
		ok(0, "%s: %u of %u sizes 1..%zu B failed, the first %zu B: %s",
		   op_name[op], failed, nsizes, sizes[nsizes - 1], first, first_why);
	else
		ok(1, "%s: %u sizes 1..%zu B, data exact, one completion each",
		   op_name[op], nsizes, sizes[nsizes - 1]);
	fflush(stdout);
}

/* No completion nor SEND message left over. */
static void check_strays(struct sweep *s)
{
	struct prism_ring_cqe ev;
	unsigned long left = 0;
	int n;

	while ((n = prism_ring_reap(&s->ring, &ev, 1, 0, 0)) > 0)
		left++;
	if (s->tfd >= 0)
		while (prism_wait_from(s->tfd, s->rbuf, s->rbuf_len, NULL,
				       MSG_DONTWAIT) >= 0)
			left++;
	ok(!s->stray && !left,
	   "no stray or repeated completion (%lu during the sweep, %lu left after)",
	   s->stray, left);
}

/*
 * Chains of --max-size bytes, two in flight, until killed or a failure:
 * READs of the target's pattern, and with write in ops, every other one a
 * WRITE of that same pattern over it (so READs still see it).  With
 * --outbuf the READs have an output buffer, one for both in flight.
 */
static int loop_ops(struct sweep *s, unsigned int ops)
{
	const size_t n = s->max_op;
	struct prism_chain_buf c;
	struct prism_ring_cqe ev;
	const unsigned char *p;
	const int writes = !!(ops & (1u << OP_WRITE)), ob = s->outbuf;
	unsigned long done = 0;
	char why[256] = "";
	int i, err, is_read;

	pat_fill(s->want, n, SERVE_SEED, 0);
	/* The READs in flight write the same bytes; those after stay. */
	memset(s->ob, OB_FILL, s->ob_len);
	for (;;) {
		while (prism_ring_inflight(&s->ring) < 2) {
			/* The READs' output buffer: the WRITEs have none. */
			is_read = !writes || (s->next_ud + 1) & 1;
			s->outbuf = ob && is_read;
			chain_init(s, &c);
			if (is_read)
				prism_prep_read(&c, s->rkey, s->base, (__u32)n);
			else
				prism_prep_write(&c, s->rkey, s->base, s->want,
						 (__u32)n);
			err = prism_ring_queue(&s->ring, &s->dst, &c);
			if (err) {
				printf("# queue: %s\n", errno_name(-err));
				return 1;
			}
		}
		i = prism_ring_reap(&s->ring, &ev, 1, 1, (int)s->timeout_ms + 5000);
		if (i == -EINTR)
			continue;
		if (i <= 0) {
			printf("# reap: %s\n", errno_name(i ? -i : ETIMEDOUT));
			return 1;
		}
		is_read = !writes || ev.user_data & 1;
		s->outbuf = ob && is_read;
		if (ev.res < 0)
			event_error(ev.res, ev.user_data != 0, why, sizeof(why));
		else if (ev.msg->status != PRISM_S_OK)
			snprintf(why, sizeof(why), "chain status %s",
				 prism_status_str(ev.msg->status));
		else if (!check_result(s, ev.msg, 0, is_read ? n : 0, &p, why,
				       sizeof(why)) && is_read)
			check_data(p, n, SERVE_SEED, 0, "output", why, sizeof(why));
		if (*why) {
			printf("# %s %zu B: %s\n", is_read ? "READ" : "WRITE", n, why);
			return 1;
		}
		printf("progress=%lu\n", ++done);
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	static struct sweep s = { .tfd = -1 };
	const char *ifname = NULL, *tns = NULL, *tif = NULL;
	unsigned int ops = 0, max = PRISM_MAX_OP_DATA, tmo = 30000, nsizes, i;
	int serve = 0, loop = 0, first, err;
	size_t sizes[96], size = 0;
	char msg[512];
	const struct pu_opt opts[] = {
		PU_OPT("if", ifname, "IF", "interface of this process' socket"),
		PU_OPT("target-ns", tns, "NS", "sweep: the target's netns"),
		PU_OPT("target-if", tif, "IF", "sweep: the target's interface"),
		PU_OPT_SET("op", ops, OP_CHOICES, "ops to sweep (repeat; default all, remote: read)"),
		PU_OPT("max-size", max, "BYTES", "largest op (1 MiB)"),
		PU_OPT("timeout-ms", tmo, "MS", "deadline of each chain (30000)"),
		PU_OPT_FLAG("serve", serve, "be a target for remote clients"),
		PU_OPT_FLAG("loop", loop, "remote: READ (and WRITE) --max-size bytes for ever"),
		PU_OPT_FLAG("outbuf", s.outbuf, "every chain with an output buffer (PRISM_CMSG_OUTBUF)"),
		PU_OPT_END,
	};
	const char *syn = "large_sweep --if IF (--target-ns NS --target-if IF | --serve | [--loop] mac=.. ep=.. rkey=.. addr=.. size=..) [options]";

	first = pu_parse_opts(argc, argv, opts, syn);
	if (first < 0)
		return 2;
	/* Exactly one of: --serve, a remote target (--loop or not), --target-ns. */
	if (!ifname || !max || max > PRISM_MAX_OP_DATA || tmo < 1 || tmo > 60000 ||
	    serve + !!tns + (first < argc) != 1 || (loop && first == argc) ||
	    !tns != !tif)
		return pu_opts_usage(opts, syn);
	layout_init(&s.lay, max);
	s.max_op = max;
	s.timeout_ms = tmo;
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (serve) {
		s.tfd = prism_open(ifname, 0, 0);
		err = s.tfd < 0 ? s.tfd : target_setup(&s, s.tfd, 0);
		if (!err)
			err = target_addr_line(s.tfd, s.rkey, s.mem, " size=%zu",
					       s.lay.max);
		if (err) {
			printf("# target: %s\n", errno_name(-err));
			return 1;
		}
		for (;;)
			pause();
	}

	if (first < argc) {	/* a remote --serve target */
		if (parse_target(&s, argv + first, argc - first, &size) ||
		    size < max) {
			printf("# the target's address line is incomplete or its size is under %u\n",
			       max);
			return 2;
		}
		if (ops & ~((1u << OP_READ) | ((unsigned int)loop << OP_WRITE))) {
			printf("# against a remote target only --op read (and write with --loop)\n");
			return 2;
		}
		ops |= 1u << OP_READ;
	} else {		/* a target of our own in netns tns */
		s.tfd = open_in_netns(tns, tif, 0);
		err = s.tfd < 0 ? s.tfd : target_setup(&s, s.tfd, 1);
		if (!err)
			err = prism_set_opt(s.tfd, PRISM_OPEN_SEND, 1);
		if (!err)
			err = prism_local_addr(s.tfd, &s.dst);
		if (err) {
			printf("# target in netns %s: %s\n", tns, errno_name(-err));
			return 1;
		}
		prism_addr_init(&s.dst, s.dst.sprism_mac, s.dst.sprism_ep);
		set_rcvbuf(s.tfd, s.lay.max, "target");
		{
			struct timeval tv = { .tv_sec = tmo / 1000 + 5 };

			setsockopt(s.tfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		}
		if (!ops)
			ops = (1u << NR_OPS) - 1;
	}
	err = client_setup(&s, ifname);
	if (err) {
		printf("# client on %s: %s\n", ifname, errno_name(-err));
		return 1;
	}
	if (loop)
		return loop_ops(&s, ops);

	nsizes = sweep_sizes(max, sizes);
	printf("TAP version 13\n1..%u\n",
	       __builtin_popcount(ops) + 1 + (s.outbuf ? 3 : 0));
	printf("# sizes 1..%u B (%u of them), chain deadline %u ms\n", max,
	       nsizes, tmo);
	for (i = 0; i < NR_OPS; i++)
		if (ops & (1u << i))
			sweep_op(&s, (enum sweep_op)i, sizes, nsizes);
	if (s.outbuf) {
		ok(outbuf_exact(&s, msg, sizeof(msg)), "%s", msg);
		ok(outbuf_failed(&s, msg, sizeof(msg)), "%s", msg);
		ok(outbuf_refusals(&s, msg, sizeof(msg)), "%s", msg);
	}
	check_strays(&s);
	if (s.no_buffer)
		printf("# ALLOC: NO_BUFFER %lu times before a buffer posted again was ready\n",
		       s.no_buffer);
	prism_ring_exit(&s.ring);
	return tap_failed ? 1 : 0;
}
