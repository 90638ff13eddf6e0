/* SPDX-License-Identifier: MIT */
/* liburing-prism: what its source files share (not installed). */
#ifndef LIBURING_PRISM_INTERNAL_H
#define LIBURING_PRISM_INTERNAL_H

#include <stddef.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#include "liburing-prism.h"

/* Room for the control message of a chain's output buffer. */
union prism__cmsg_buf {
	char		buf[CMSG_SPACE(sizeof(struct prism_outbuf))];
	struct cmsghdr	align;
};

/*
 * mh's control message: the output buffer of c (PRISM_CMSG_OUTBUF) in cb,
 * or none when c has no output buffer.
 */
static inline void prism__outbuf_cmsg(struct msghdr *mh,
				      union prism__cmsg_buf *cb,
				      const struct prism_chain_buf *c)
{
	struct prism_outbuf ob;
	struct cmsghdr *cm;

	mh->msg_control = NULL;
	mh->msg_controllen = 0;
	if (!c->outbuf)
		return;
	memset(cb, 0, sizeof(*cb));
	mh->msg_control = cb->buf;
	mh->msg_controllen = sizeof(cb->buf);
	cm = CMSG_FIRSTHDR(mh);
	cm->cmsg_level = SOL_PRISM;
	cm->cmsg_type = PRISM_CMSG_OUTBUF;
	cm->cmsg_len = CMSG_LEN(sizeof(ob));
	ob.addr = (__u64)(uintptr_t)c->outbuf;
	ob.len = c->outbuf_len;
	memcpy(CMSG_DATA(cm), &ob, sizeof(ob));
}

/* Zero secrets; the stores are not optimised away. */
static inline void prism__wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;

	while (n--)
		*v++ = 0;
}

/* CLOCK_MONOTONIC in nanoseconds. */
static inline long long prism__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif
