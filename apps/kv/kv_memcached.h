/* SPDX-License-Identifier: MIT */
/* Minimal memcached text-protocol client (get/set over TCP), for the bench. */
#ifndef KV_MEMCACHED_H
#define KV_MEMCACHED_H

#include <stddef.h>

struct mc_conn {
	int	fd;
	size_t	rpos, rlen;		/* unread bytes in rbuf */
	char	rbuf[8192];
};

/* Connect to host:port (numeric IPv4), TCP_NODELAY.  0 or -errno. */
int mc_connect(struct mc_conn *c, const char *hostport);
void mc_close(struct mc_conn *c);
/* 0 (value copied, *vlen set), -ENOENT, -EMSGSIZE (cap too small), -EPROTO, -errno. */
int mc_get(struct mc_conn *c, const char *key, void *val, size_t cap, size_t *vlen);
/* 0 when STORED, -EPROTO for any other answer, -errno. */
int mc_set(struct mc_conn *c, const char *key, const void *val, size_t vlen);
/*
 * mc_set in two halves, to pipeline many: send the request (0 or -errno),
 * later read its answer (as mc_set's), in the order they were sent.
 */
int mc_set_send(struct mc_conn *c, const char *key, const void *val, size_t vlen);
int mc_set_reply(struct mc_conn *c);

#endif /* KV_MEMCACHED_H */
