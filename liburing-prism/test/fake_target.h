/* SPDX-License-Identifier: MIT */
/*
 * A fake PRISM target for host tests: a thread on one end of an AF_UNIX
 * SOCK_DGRAM socketpair that parses each chain and answers with a
 * completion the way the module would (outputs 8-byte aligned after the
 * results), for chains and completions up to the module's limits (the
 * socketpair's SO_SNDBUF may allow less).  Outputs are synthetic:
 *   READ	len bytes, byte k = fake_byte(addr + k)
 *   CAS	len bytes of 0x11
 *   ALLOC	8-byte little-endian 0x100000 + user_data
 * Inline WRITE data must be byte k = fake_byte(addr + k): the bytes that
 * are are counted in write_bytes, a chain with any other is bad.
 * A chain with FAKE_NOISE set in user_data is preceded by a SEND message
 * and by a completion for user_data ^ 1.  FAKE_QUIT stops the thread.
 */
#ifndef PRISM_FAKE_TARGET_H
#define PRISM_FAKE_TARGET_H

#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "liburing-prism.h"

#define FAKE_QUIT	0xffffffffffffffffULL
#define FAKE_NOISE	(1ULL << 62)

static inline unsigned char fake_byte(__u64 a)
{
	return (unsigned char)((a * 31 + (a >> 8)) ^ 0x5a);
}

/* The largest chain and completion the module accepts. */
#define FAKE_IN_MAX	(sizeof(struct prism_chain) + \
			 PRISM_MAX_CHAIN * (sizeof(struct prism_op) + 8) + \
			 PRISM_MAX_CHAIN_DATA)
#define FAKE_OUT_MAX	(sizeof(struct prism_msg) + \
			 PRISM_MAX_CHAIN * sizeof(struct prism_op_result) + \
			 PRISM_MAX_CHAIN_DATA)

struct fake_target {
	int fd;
	pthread_t thread;
	unsigned long chains;
	unsigned long write_bytes;	/* WRITE data received, as expected */
	int bad;		/* malformed chains seen */
};

/* 1 when the len bytes at d are those a WRITE at addr must carry. */
static inline int fake_write_ok(const unsigned char *d, __u64 addr, __u32 len)
{
	__u32 k;

	for (k = 0; k < len; k++)
		if (d[k] != fake_byte(addr + k))
			return 0;
	return 1;
}

static inline void fake_send_completion(int fd, __u64 ud)
{
	struct prism_msg m;

	memset(&m, 0, sizeof(m));
	m.kind = PRISM_MSG_COMPLETION;
	m.len = sizeof(m);
	m.user_data = ud;
	send(fd, &m, sizeof(m), 0);
}

static inline void *fake_target_main(void *arg)
{
	struct fake_target *t = arg;
	/* malloc: 8-byte aligned, and too large for a thread's stack. */
	unsigned char *in = malloc(FAKE_IN_MAX), *out = malloc(FAKE_OUT_MAX);

	if (!in || !out) {
		t->bad++;
		free(in);
		free(out);
		return NULL;
	}
	for (;;) {
		ssize_t n = recv(t->fd, in, FAKE_IN_MAX, 0);
		const struct prism_chain *h = (const void *)in;
		struct prism_msg *m = (void *)out;
		size_t off, outoff;
		unsigned int i, k;

		if (n <= 0)
			break;
		if ((size_t)n < sizeof(*h) || !h->nops || h->nops > PRISM_MAX_CHAIN) {
			t->bad++;
			continue;
		}
		if (h->user_data == FAKE_QUIT)
			break;
		if (h->user_data & FAKE_NOISE) {
			memset(m, 0, sizeof(*m));
			m->kind = PRISM_MSG_SEND;
			m->len = sizeof(*m) + 4;
			memcpy(out + sizeof(*m), "ping", 4);
			send(t->fd, out, m->len, 0);
			fake_send_completion(t->fd, h->user_data ^ 1);
		}
		memset(out, 0, sizeof(*m) + h->nops * sizeof(m->res[0]));
		m->kind = PRISM_MSG_COMPLETION;
		m->nops = h->nops;
		m->user_data = h->user_data;
		outoff = sizeof(*m) + h->nops * sizeof(m->res[0]);
		off = sizeof(*h);
		for (i = 0; i < h->nops; i++) {
			const struct prism_op *op = (const void *)(in + off);
			__u32 olen = 0;

			if (off + sizeof(*op) > (size_t)n ||
			    op->data_len > (size_t)n - off - sizeof(*op) ||
			    outoff + PRISM_ALIGN8((size_t)op->len) > FAKE_OUT_MAX) {
				t->bad++;
				break;
			}
			switch (op->opcode) {
			case PRISM_OP_WRITE:
				if (op->flags & PRISM_F_DATA_INDIRECT)
					break;
				if (op->data_len != op->len ||
				    !fake_write_ok(in + off + sizeof(*op),
						   op->addr, op->len))
					t->bad++;
				else
					t->write_bytes += op->len;
				break;
			case PRISM_OP_READ:
				olen = op->len;
				for (k = 0; k < olen; k++)
					out[outoff + k] = fake_byte(op->addr + k);
				break;
			case PRISM_OP_CAS:
				olen = op->len;
				memset(out + outoff, 0x11, olen);
				break;
			case PRISM_OP_ALLOC:
				olen = 8;
				prism_put_le64(out + outoff, 0x100000 + h->user_data);
				break;
			default:
				break;
			}
			if (op->flags & PRISM_F_REDIRECT)
				olen = 0;
			m->res[i].status = PRISM_S_OK;
			m->res[i].len = olen;
			m->res[i].offset = olen ? (__u32)outoff : 0;
			outoff += PRISM_ALIGN8(olen);
			off += sizeof(*op) + PRISM_ALIGN8(op->data_len);
		}
		m->len = (__u32)outoff;
		send(t->fd, out, outoff, 0);
		t->chains++;
	}
	free(in);
	free(out);
	return NULL;
}

/* Start a target; *client_fd gets the other end.  Returns 0 or -errno. */
static inline int fake_target_start(struct fake_target *t, int *client_fd)
{
	int sv[2];

	memset(t, 0, sizeof(*t));
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	t->fd = sv[1];
	*client_fd = sv[0];
	if (pthread_create(&t->thread, NULL, fake_target_main, t)) {
		close(sv[0]);
		close(sv[1]);
		return -EAGAIN;
	}
	return 0;
}

/*
 * Raise SO_SNDBUF of both ends of a started target as far as
 * net.core.wmem_max allows, and return the largest power of two up to
 * PRISM_MAX_OP_DATA that one READ or WRITE can then move through the
 * socketpair with room to spare (AF_UNIX refuses a datagram larger than
 * the sender's SO_SNDBUF); 0 if the buffers cannot be read back.
 */
static inline __u32 fake_large_len(struct fake_target *t, int client_fd)
{
	int fds[2] = { client_fd, t->fd }, v, i;
	size_t carry = (size_t)-1;
	__u32 len = PRISM_MAX_OP_DATA;
	socklen_t l;

	for (i = 0; i < 2; i++) {
		v = 4 * (int)FAKE_IN_MAX;
		setsockopt(fds[i], SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
		l = sizeof(v);
		if (getsockopt(fds[i], SOL_SOCKET, SO_SNDBUF, &v, &l) < 0 || v < 0)
			return 0;
		if ((size_t)v < carry)
			carry = (size_t)v;
	}
	while (len && 2 * ((size_t)len + 4096) > carry)
		len >>= 1;
	return len;
}

static inline void fake_target_stop(struct fake_target *t, int client_fd)
{
	_Alignas(8) unsigned char b[128];
	struct prism_chain_buf c;

	prism_chain_init(&c, b, sizeof(b), FAKE_QUIT);
	prism_prep_read(&c, 0, 0, 1);
	send(client_fd, b, (size_t)prism_chain_len(&c), 0);
	pthread_join(t->thread, NULL);
	close(t->fd);
}

#endif
