/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PRISM selftests: the server end of the keyed-region cases (keyed.c,
 * keyed_rotate.c) and what they share.
 */
#ifndef PRISM_CASES_KEYED_H
#define PRISM_CASES_KEYED_H

#include <stdbool.h>
#include <sys/types.h>
#include "cases.h"
#include "prism_util.h"

#define K_LEN	8192u

/* The server end of a case: a keyed region, a read-only keyed region, a
 * plain region, all of K_LEN bytes. */
struct kserver {
	int			s;
	union prism_sockaddr	sa;	/* its address, as a destination */
	unsigned char		*kmem, *romem, *pmem;
	__u64			kr, ro, pr;
	__u8			key[PRISM_KEY_SIZE];
};

/* What a packet capture at the target held (capture_drain()). */
struct capture {
	unsigned int	frames, prism, hits;
	unsigned char	areq[2048];	/* the last AREQ seen */
	ssize_t		areq_len;
};

/* A region key that depends on seed. */
void fill_key(__u8 *k, unsigned int seed);
/*
 * Open the server in the peer's namespace; its keyed regions get a key
 * unless !with_key.
 */
int kserver_open(struct client *c, struct kserver *k, bool with_key);
void kserver_close(struct kserver *k);
/* Derive the client's key for region rkey with rights, and attach it. */
int give_key(struct client *c, struct kserver *k, __u64 rkey, __u32 rights);
/*
 * Execute ch at the case's server; NULL (with a failure) if it could not
 * complete.
 */
const struct prism_msg *kexec(struct client *c, struct kserver *k,
			      struct prism_chain_buf *ch);
void expect_status(const struct prism_msg *m, int status, const char *what);
struct prism_stats kstats(int fd);
/* Read what the capture cap holds; count frames containing pat. */
void capture_drain(int cap, const void *pat, size_t plen, struct capture *r);

#endif /* PRISM_CASES_KEYED_H */
