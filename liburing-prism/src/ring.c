// SPDX-License-Identifier: MIT
/*
 * liburing-prism: io_uring submission and completion of chains.
 *
 * Every queued chain is copied into a slot that also holds its msghdr,
 * iovec and destination address; the slot stays allocated until the
 * SENDMSG CQE arrives, so the kernel can read all of it whenever the
 * request is actually issued.
 *
 * Completions arrive through one multishot RECV that picks buffers from a
 * registered buffer ring (group PRISM_RING_BGID).  Buffers whose message
 * was handed to the caller are given back to the kernel at the start of
 * the next reap call.  Without buffer rings or multishot RECV (or with
 * PRISM_RING_NO_MULTISHOT) one plain RECV is kept posted per buffer
 * instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>

#include "liburing-prism.h"
#include "internal.h"

#define PRISM_RING_BGID		0x5052
#define TAG_SHIFT		56
#define TAG_SEND		1ULL
#define TAG_RECV_MS		2ULL
#define TAG_RECV		3ULL
#define TAG_MASK		((1ULL << TAG_SHIFT) - 1)

struct prism_ring_slot {
	struct msghdr		mh;
	struct iovec		iov;
	union prism__cmsg_buf	cmsg;
	union prism_sockaddr	dst;
	__u64			user_data;
	void			*data;
	size_t			cap;
	int			next_free;
	int			used;
};

static unsigned int roundup_pow2(unsigned int v)
{
	unsigned int p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static void *buf_addr(struct prism_ring *r, unsigned int bid)
{
	return r->bufs + (size_t)bid * r->buf_size;
}

/* An SQE, submitting what is queued if the SQ is full. */
static struct io_uring_sqe *get_sqe(struct prism_ring *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r->uring);

	if (!sqe) {
		io_uring_submit(r->uring);
		r->queued = 0;
		sqe = io_uring_get_sqe(r->uring);
	}
	return sqe;
}

static int arm_multishot(struct prism_ring *r)
{
	struct io_uring_sqe *sqe = get_sqe(r);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_recv_multishot(sqe, r->fd, NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = PRISM_RING_BGID;
	sqe->user_data = TAG_RECV_MS << TAG_SHIFT;
	r->recv_armed = 1;
	r->need_arm = 0;
	r->queued++;
	return 0;
}

static int arm_plain(struct prism_ring *r, unsigned int bid)
{
	struct io_uring_sqe *sqe = get_sqe(r);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_recv(sqe, r->fd, buf_addr(r, bid), r->buf_size, 0);
	sqe->user_data = (TAG_RECV << TAG_SHIFT) | bid;
	r->recv_armed++;
	r->queued++;
	return 0;
}

static void drop_buf_ring(struct prism_ring *r)
{
	if (!r->br)
		return;
	io_uring_unregister_buf_ring(r->uring, PRISM_RING_BGID);
	munmap(r->br, r->br_size);
	r->br = NULL;
}

static int setup_buf_ring(struct prism_ring *r)
{
	struct io_uring_buf_reg reg;
	struct io_uring_buf_ring *br;
	unsigned int i;
	int err;

	r->br_size = (size_t)r->nbufs * sizeof(struct io_uring_buf);
	br = mmap(NULL, r->br_size, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (br == MAP_FAILED)
		return -errno;
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (__u64)(uintptr_t)br;
	reg.ring_entries = r->nbufs;
	reg.bgid = PRISM_RING_BGID;
	err = io_uring_register_buf_ring(r->uring, &reg, 0);
	if (err) {
		munmap(br, r->br_size);
		return err;
	}
	r->br = br;
	io_uring_buf_ring_init(br);
	for (i = 0; i < r->nbufs; i++)
		io_uring_buf_ring_add(br, buf_addr(r, i), r->buf_size,
				      (unsigned short)i,
				      io_uring_buf_ring_mask(r->nbufs), (int)i);
	io_uring_buf_ring_advance(br, (int)r->nbufs);
	return 0;
}

static int start_plain(struct prism_ring *r)
{
	unsigned int i;
	int err;

	r->multishot = 0;
	for (i = 0; i < r->nbufs; i++) {
		err = arm_plain(r, i);
		if (err)
			return err;
	}
	return 0;
}

int prism_ring_init(struct prism_ring *r, int fd, unsigned int entries,
		    unsigned int nbufs, unsigned int buf_size, unsigned int flags)
{
	struct io_uring_params p;
	unsigned int i;
	int err;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->flags = flags;
	if (!entries || entries > 32768 || fd < 0)
		return -EINVAL;
	if (!nbufs)
		nbufs = 2 * entries;
	if (nbufs < 16)
		nbufs = 16;
	nbufs = roundup_pow2(nbufs);
	if (nbufs > 32768)
		return -EINVAL;
	if (!buf_size)
		buf_size = 4096;
	if (buf_size < sizeof(struct prism_msg))
		return -EINVAL;
	r->nbufs = nbufs;
	r->buf_size = buf_size;
	r->nslots = entries;

	r->uring = calloc(1, sizeof(*r->uring));
	r->slots = calloc(entries, sizeof(*r->slots));
	r->held = calloc(nbufs, sizeof(*r->held));
	r->bufs = aligned_alloc(4096, ((size_t)nbufs * buf_size + 4095) & ~(size_t)4095);
	if (!r->uring || !r->slots || !r->held || !r->bufs) {
		err = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < entries; i++)
		r->slots[i].next_free = (int)i + 1 < (int)entries ? (int)i + 1 : -1;
	r->free_slot = 0;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = roundup_pow2(2 * (entries + nbufs) + 16);
	err = io_uring_queue_init_params(entries, r->uring, &p);
	if (err) {
		free(r->uring);
		r->uring = NULL;
		goto fail;
	}

	if (!(flags & PRISM_RING_NO_MULTISHOT) && !setup_buf_ring(r)) {
		r->multishot = 1;
		err = arm_multishot(r);
	} else {
		err = start_plain(r);
	}
	if (!err) {
		err = io_uring_submit(r->uring);
		r->queued = 0;
		err = err < 0 ? err : 0;
	}
	if (err)
		goto fail;
	return 0;
fail:
	prism_ring_exit(r);
	return err;
}

void prism_ring_exit(struct prism_ring *r)
{
	unsigned int i;

	if (r->uring) {
		drop_buf_ring(r);
		io_uring_queue_exit(r->uring);
		free(r->uring);
	}
	if (r->slots)
		for (i = 0; i < r->nslots; i++)
			free(r->slots[i].data);
	free(r->slots);
	free(r->held);
	free(r->bufs);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

int prism_ring_multishot(const struct prism_ring *r)
{
	return r->multishot;
}

unsigned int prism_ring_inflight(const struct prism_ring *r)
{
	return r->chains_inflight;
}

int prism_ring_queue(struct prism_ring *r, const struct sockaddr_prism *dst,
		     const struct prism_chain_buf *c)
{
	ssize_t len = prism_chain_len(c);
	struct prism_ring_slot *s;
	struct io_uring_sqe *sqe;
	int idx;

	if (len < 0)
		return (int)len;
	idx = r->free_slot;
	if (idx < 0)
		return -EBUSY;
	s = &r->slots[idx];
	if (s->cap < (size_t)len) {
		void *d = malloc((size_t)len);

		if (!d)
			return -ENOMEM;
		free(s->data);
		s->data = d;
		s->cap = (size_t)len;
	}
	sqe = get_sqe(r);
	if (!sqe)
		return -EBUSY;
	r->free_slot = s->next_free;
	s->used = 1;
	memcpy(s->data, c->buf, (size_t)len);
	s->user_data = prism_chain_hdr(c)->user_data;
	memset(&s->mh, 0, sizeof(s->mh));
	if (dst) {
		s->mh.msg_namelen = prism_addr_len(dst);
		memcpy(&s->dst, dst, s->mh.msg_namelen);
		s->mh.msg_name = &s->dst;
	}
	s->iov.iov_base = s->data;
	s->iov.iov_len = (size_t)len;
	s->mh.msg_iov = &s->iov;
	s->mh.msg_iovlen = 1;
	prism__outbuf_cmsg(&s->mh, &s->cmsg, c);
	io_uring_prep_sendmsg(sqe, r->fd, &s->mh, 0);
	sqe->user_data = (TAG_SEND << TAG_SHIFT) | (unsigned int)idx;
	r->queued++;
	r->sends_inflight++;
	r->chains_inflight++;
	return 0;
}

int prism_ring_submit(struct prism_ring *r)
{
	int ret = io_uring_submit(r->uring);

	if (ret >= 0)
		r->queued = 0;
	return ret;
}

/* Give buffers lent to the caller back to the kernel. */
static int recycle(struct prism_ring *r)
{
	unsigned int i;
	int err;

	if (!r->nheld)
		return 0;
	if (r->multishot) {
		for (i = 0; i < r->nheld; i++)
			io_uring_buf_ring_add(r->br, buf_addr(r, r->held[i]),
					      r->buf_size, r->held[i],
					      io_uring_buf_ring_mask(r->nbufs),
					      (int)i);
		io_uring_buf_ring_advance(r->br, (int)r->nheld);
		r->nheld = 0;
		return 0;
	}
	while (r->nheld) {
		err = arm_plain(r, r->held[r->nheld - 1]);
		if (err)
			return err;
		r->nheld--;
	}
	return 0;
}

/* Turn a received message (or receive error) into an event. */
static void fill_msg_event(struct prism_ring *r, struct prism_ring_cqe *ev,
			   unsigned int bid, int res)
{
	const struct prism_msg *m = buf_addr(r, bid);
	int err;

	r->held[r->nheld++] = (unsigned short)bid;
	memset(ev, 0, sizeof(*ev));
	if (res >= (int)sizeof(*m) && m->kind == PRISM_MSG_COMPLETION) {
		ev->user_data = m->user_data;
		if (r->chains_inflight)
			r->chains_inflight--;
	}
	err = prism_msg_check(m, (size_t)res);
	if (!err && (unsigned int)res == r->buf_size && m->len > (__u32)res)
		err = -EMSGSIZE;
	if (err) {
		ev->res = err;
		return;
	}
	ev->msg = m;
	ev->len = (__u32)res;
}

/* Handle one CQE; returns 1 when it produced an event in *ev. */
static int handle_cqe(struct prism_ring *r, struct io_uring_cqe *cqe,
		      struct prism_ring_cqe *ev)
{
	__u64 tag = cqe->user_data >> TAG_SHIFT;
	unsigned int idx = (unsigned int)(cqe->user_data & TAG_MASK);
	struct prism_ring_slot *s;

	switch (tag) {
	case TAG_SEND:
		if (idx >= r->nslots || !r->slots[idx].used)
			return 0;
		s = &r->slots[idx];
		s->used = 0;
		s->next_free = r->free_slot;
		r->free_slot = (int)idx;
		r->sends_inflight--;
		if (cqe->res >= 0)
			return 0;
		memset(ev, 0, sizeof(*ev));
		ev->res = cqe->res;
		ev->user_data = s->user_data;
		if (r->chains_inflight)
			r->chains_inflight--;
		return 1;
	case TAG_RECV_MS:
		if (!(cqe->flags & IORING_CQE_F_MORE)) {
			r->recv_armed = 0;
			r->need_arm = 1;
		}
		if (cqe->flags & IORING_CQE_F_BUFFER) {
			fill_msg_event(r, ev, cqe->flags >> IORING_CQE_BUFFER_SHIFT,
				       cqe->res);
			return 1;
		}
		if (cqe->res == -ENOBUFS || cqe->res == -ECANCELED ||
		    cqe->res >= 0)
			return 0;
		if (cqe->res == -EINVAL && !r->recv_armed) {
			/* No multishot RECV here: fall back to plain RECVs. */
			drop_buf_ring(r);
			r->need_arm = 0;
			start_plain(r);
			return 0;
		}
		memset(ev, 0, sizeof(*ev));
		ev->res = cqe->res;
		return 1;
	case TAG_RECV:
		if (idx >= r->nbufs)
			return 0;
		r->recv_armed--;
		if (cqe->res >= 0) {
			fill_msg_event(r, ev, idx, cqe->res);
			return 1;
		}
		r->held[r->nheld++] = (unsigned short)idx;
		if (cqe->res == -ECANCELED)
			return 0;
		memset(ev, 0, sizeof(*ev));
		ev->res = cqe->res;
		return 1;
	default:
		return 0;
	}
}

static long long now_ms(void)
{
	return prism__now_ns() / 1000000;
}

/*
 * Busy-polling wait: submit what is queued, then watch the completion
 * queue from user space until a CQE shows up (1) or spin_us passed, or
 * the reap's deadline (ms, 0: none) (0).  A completion reaches the CQ
 * through task work that the kernel runs when this task next leaves it;
 * the wake-up of the socket kicks a task running in user space (TWA_SIGNAL,
 * the default without IORING_SETUP_COOP_TASKRUN), so no system call is
 * needed here.
 */
static int spin_cq(struct prism_ring *r, long long deadline_ms)
{
	long long end = prism__now_ns() + (long long)r->spin_us * 1000;
	unsigned int i;

	if (deadline_ms && deadline_ms * 1000000 < end)
		end = deadline_ms * 1000000;
	if (r->queued) {
		io_uring_submit(r->uring);
		r->queued = 0;
	}
	for (i = 0;; i++) {
		if (io_uring_cq_ready(r->uring))
			return 1;
		/* The clock may be a system call (a VM's hpet): not every turn. */
		if (!(i & 15) && prism__now_ns() >= end)
			return 0;
	}
}

void prism_ring_busy_poll(struct prism_ring *r, unsigned int spin_us)
{
	r->spin_us = spin_us;
}

void prism_ring_spin_stats(const struct prism_ring *r,
			   struct prism_ring_spin_stats *st)
{
	st->spun = r->spin_reaps;
	st->slept = r->sleep_reaps;
}

typedef int (*emit_fn)(void *ctx, const struct prism_ring_cqe *ev);

static int reap_common(struct prism_ring *r, emit_fn emit, void *ctx,
		       unsigned int max, unsigned int min_events, int timeout_ms)
{
	long long deadline = timeout_ms >= 0 ? now_ms() + timeout_ms : 0;
	struct __kernel_timespec ts;
	struct io_uring_cqe *cqe;
	struct prism_ring_cqe ev;
	unsigned int count = 0;
	int intr = 0;
	long long left;
	int err;

	err = recycle(r);
	if (err)
		return err;
	if (r->multishot && r->need_arm && !r->recv_armed) {
		err = arm_multishot(r);
		if (err)
			return err;
		r->rearms++;
	}
	if (min_events > max)
		min_events = max;
	for (;;) {
		while (count < max && io_uring_peek_cqe(r->uring, &cqe) == 0) {
			int got = handle_cqe(r, cqe, &ev);

			io_uring_cqe_seen(r->uring, cqe);
			if (got) {
				emit(ctx, &ev);
				count++;
			}
		}
		/* Interrupted: what arrived meanwhile was collected above. */
		if (count >= max || count >= min_events || intr)
			break;
		if (r->multishot && r->need_arm && !r->recv_armed) {
			/*
			 * The buffers ran out.  Those lent in this call come
			 * back only with the next call.
			 */
			if (count)
				break;
			err = arm_multishot(r);
			if (err)
				return err;
			r->rearms++;
		}
		if (!r->multishot && !r->recv_armed && count)
			break;
		if (r->spin_us && (timeout_ms < 0 || deadline > now_ms())) {
			if (spin_cq(r, timeout_ms >= 0 ? deadline : 0)) {
				r->spin_reaps++;
				continue;
			}
			r->sleep_reaps++;
		}
		if (timeout_ms >= 0) {
			left = deadline - now_ms();
			if (left <= 0)
				break;
			ts.tv_sec = left / 1000;
			ts.tv_nsec = (left % 1000) * 1000000;
			err = io_uring_submit_and_wait_timeout(r->uring, &cqe, 1,
							       &ts, NULL);
		} else {
			err = io_uring_submit_and_wait_timeout(r->uring, &cqe, 1,
							       NULL, NULL);
		}
		r->queued = 0;
		if (err == -EINTR) {
			intr = 1;	/* by a signal: look at the CQ once more */
			continue;
		}
		if (err < 0 && err != -ETIME && err != -EAGAIN && err != -EBUSY)
			return count ? (int)count : err;
	}
	if (r->queued) {
		io_uring_submit(r->uring);
		r->queued = 0;
	}
	/* Events that had arrived go first; -EINTR only instead of blocking. */
	if (intr && !count)
		return -EINTR;
	return (int)count;
}

struct array_ctx {
	struct prism_ring_cqe *out;
	unsigned int n;
};

static int emit_array(void *ctx, const struct prism_ring_cqe *ev)
{
	struct array_ctx *a = ctx;

	a->out[a->n++] = *ev;
	return 0;
}

int prism_ring_reap(struct prism_ring *r, struct prism_ring_cqe *out,
		    unsigned int max, unsigned int min_events, int timeout_ms)
{
	struct array_ctx a = { .out = out, .n = 0 };

	if (!max)
		return 0;
	return reap_common(r, emit_array, &a, max, min_events, timeout_ms);
}

struct cb_ctx {
	prism_ring_cb cb;
	void *arg;
};

static int emit_cb(void *ctx, const struct prism_ring_cqe *ev)
{
	struct cb_ctx *c = ctx;

	c->cb(c->arg, ev);
	return 0;
}

int prism_ring_run(struct prism_ring *r, prism_ring_cb cb, void *arg,
		   unsigned int min_events, int timeout_ms)
{
	struct cb_ctx c = { .cb = cb, .arg = arg };

	/* Events are bounded by the buffers that can be lent at once. */
	return reap_common(r, emit_cb, &c, r->nbufs + r->nslots, min_events,
			   timeout_ms);
}
