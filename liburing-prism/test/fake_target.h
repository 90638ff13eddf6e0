/* SPDX-License-Identifier: MIT */
/*
 * A fake PRISM target for host tests: a thread on one end of an AF_UNIX
 * SOCK_DGRAM socketpair that parses each chain and answers with a
 * completion the way the module would (outputs 8-byte aligned after the
 * results).  Outputs are synthetic:
 *   READ	len bytes, byte k = fake_byte(addr + k)
 *   CAS	len bytes of 0x11
 *   ALLOC	8-byte little-endian 0x100000 + user_data
 * A chain with FAKE_NOISE set in user_data is preceded by a SEND message
 * and by a completion for user_data ^ 1.  FAKE_QUIT stops the thread.
 */
#ifndef PRISM_FAKE_TARGET_H
#define PRISM_FAKE_TARGET_H

#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "liburing-prism.h"

#define FAKE_QUIT	0xffffffffffffffffULL
#define FAKE_NOISE	(1ULL << 62)

static inline unsigned char fake_byte(__u64 a)
{
	return (unsigned char)((a * 31 + (a >> 8)) ^ 0x5a);
}

struct fake_target {
	int fd;
	pthread_t thread;
	unsigned long chains;
	int bad;		/* malformed chains seen */
};

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
	static _Thread_local _Alignas(8) unsigned char in[65536], out[65536];

	for (;;) {
		ssize_t n = recv(t->fd, in, sizeof(in), 0);
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

			if (off + sizeof(*op) > (size_t)n) {
				t->bad++;
				break;
			}
			switch (op->opcode) {
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
