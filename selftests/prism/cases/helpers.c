// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: helpers shared by the end-to-end client cases (cases.h):
 * set up and check the server's memory with process_vm_writev/readv(),
 * the RW pattern, the layout of completions, raw sendmsg().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cases.h"

void setup(struct client *c, __u64 off, const void *data, size_t len)
{
	int err = poke(c->s.pid, rw(c, off), data, len);

	if (err)
		FAIL("process_vm_writev(server +0x%llx, %zu): %s",
		     (unsigned long long)off, len, errno_name(-err));
}

void setup_u64(struct client *c, __u64 off, __u64 v)
{
	unsigned char b[8];

	prism_put_le64(b, v);
	setup(c, off, b, 8);
}

void fill(struct client *c, __u64 off, int byte, size_t len)
{
	unsigned char *b = malloc(len);

	memset(b, byte, len);
	setup(c, off, b, len);
	free(b);
}

/* Server memory at off must equal want. */
void check_mem(struct client *c, __u64 off, const void *want,
	       size_t len, const char *what)
{
	unsigned char *b = malloc(len);
	int err = peek(c->s.pid, rw(c, off), b, len);

	if (err)
		FAIL("process_vm_readv(server +0x%llx): %s",
		     (unsigned long long)off, errno_name(-err));
	else
		EXPECT_MEM(b, want, len, what);
	free(b);
}

void check_fill(struct client *c, __u64 off, int byte, size_t len,
		const char *what)
{
	unsigned char *b = malloc(len);

	memset(b, byte, len);
	check_mem(c, off, b, len, what);
	free(b);
}

__u64 mem_u64(struct client *c, __u64 addr)
{
	unsigned char b[8] = { 0 };

	if (peek(c->s.pid, addr, b, 8))
		FAIL("process_vm_readv(0x%llx) failed", (unsigned long long)addr);
	return prism_get_le64(b);
}

void pattern(unsigned char *b, __u64 off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = pat(off + i);
}

/* The len pattern bytes from off in a buffer to free() (also for len 0). */
static unsigned char *pattern_dup(__u64 off, size_t len)
{
	unsigned char *b = malloc(len + 1);

	pattern(b, off, len);
	return b;
}

void check_pattern(struct client *c, __u64 off, __u64 pat_off, size_t len,
		   const char *what)
{
	unsigned char *b = pattern_dup(pat_off, len);

	check_mem(c, off, b, len, what);
	free(b);
}

void expect_pattern(const struct prism_msg *m, unsigned int i, __u64 pat_off,
		    __u32 len, const char *what)
{
	unsigned char *b = pattern_dup(pat_off, len);

	cl_expect_op(m, i, PRISM_S_OK, b, len, what);
	free(b);
}

/* Results are 8-byte aligned and inside the message. */
void check_layout(const struct prism_msg *m)
{
	unsigned int i;

	for (i = 0; m && i < m->nops; i++) {
		const struct prism_op_result *r = prism_msg_result(m, i);

		if (!r || !r->len)
			continue;
		if (r->offset % 8)
			FAIL("op %u output at unaligned offset %u", i, r->offset);
		if (!prism_msg_data(m, i, NULL))
			FAIL("op %u output [%u, +%u) outside the message (len %u)",
			     i, r->offset, r->len, m->len);
	}
}

/* a is the address of a buffer of the server's main free list. */
bool in_main_list(struct client *c, __u64 a)
{
	return a >= rw(c, FL_OFF) && a < rw(c, RW_LEN) &&
	       (a - rw(c, FL_OFF)) % FL_BUF_SIZE == 0;
}

/* sendmsg() of a raw chain image, dlen bytes of address: 0 or -errno. */
int raw_send(int fd, const struct sockaddr_prism *dst, socklen_t dlen,
	     const void *buf, size_t len, int flags)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_name = (void *)dst, .msg_namelen = dst ? dlen : 0,
			     .msg_iov = &iov, .msg_iovlen = 1 };

	return sendmsg(fd, &mh, flags) < 0 ? -errno : 0;
}
