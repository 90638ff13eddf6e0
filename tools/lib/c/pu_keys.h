/* SPDX-License-Identifier: MIT */
/*
 * Keys of keyed regions for the stores (apps/kv, apps/rs, apps/tx): the
 * out-of-band exchange of 1RMA's model, for clients on the server's host.
 *
 * A server makes its region keyed (prism_reg_mr_flags(PRISM_MR_KEYED)),
 * installs a random region key (pu_region_key()) and answers key requests
 * on a Unix socket next to its info file (pu_keysrv_*()).  A client sends
 * its own endpoint address (getsockname() of its PRISM socket) and the
 * rkey; the server derives the client's key with PRISM_IOC_DERIVE_KEY and
 * sends it back; the client attaches it to its socket for that target
 * (pu_key_fetch()), after which the module seals every chain of that
 * socket naming the region.
 *
 * Who may ask: the socket file is mode 0600 and the server answers only
 * peers (SO_PEERCRED) of its own effective uid or root.  A Unix socket
 * does not cross hosts: clients elsewhere need another channel (not
 * built).  Keys are wiped from memory after use.
 *
 * Links liburing-prism (unlike prism_util.c): programs that use it compile
 * PU_KEYS_SRC (prism_util.mk).
 */
#ifndef PU_KEYS_H
#define PU_KEYS_H

#include <stdint.h>

#include "liburing-prism.h"

#define PU_KEYSRV_REGIONS	8

/*
 * A key socket's path: servers put it in their info lines ("keys=PATH"),
 * next to the info file (INFO.keys); at most PU_KEYS_PATH_MAX - 1 bytes.
 */
#define PU_KEYS_SUFFIX		".keys"
#define PU_KEYS_PATH_MAX	108

struct pu_keysrv {
	int		fd;		/* listening, non-blocking; -1: closed */
	int		prism_fd;	/* the socket that registered the regions */
	unsigned int	n;
	struct {
		uint64_t	rkey;
		uint32_t	rights;	/* PRISM_ACCESS_* granted to clients */
	} reg[PU_KEYSRV_REGIONS];
	char		path[PU_KEYS_PATH_MAX];
	uint64_t	served, refused;
};

/* A new random region key for keyed region rkey; its generation in *gen. */
int pu_region_key(int prism_fd, uint64_t rkey, uint32_t *gen);

/*
 * Listen on the Unix socket at path (replacing a stale one), mode 0600.
 * 0 or -errno (-ENAMETOOLONG for a path of 108 bytes or more).
 */
int pu_keysrv_open(struct pu_keysrv *ks, const char *path, int prism_fd);
/* Serve keys of region rkey with these rights.  0, -ENOSPC or -EEXIST. */
int pu_keysrv_add(struct pu_keysrv *ks, uint64_t rkey, uint32_t rights);
/*
 * Answer every pending request (call it when ks->fd is readable); a peer
 * gets at most a second.  Returns the requests answered with a key, or
 * -errno if accepting failed.
 */
int pu_keysrv_serve(struct pu_keysrv *ks);
/*
 * All a server does for one keyed region rkey: a random region key, then
 * serve it with these rights on INFO.keys (ks->path).  0 or -errno.
 */
int pu_keysrv_start(struct pu_keysrv *ks, const char *info, int prism_fd,
		    uint64_t rkey, uint32_t rights);
/* Stop listening and remove the socket file. */
void pu_keysrv_close(struct pu_keysrv *ks);

/*
 * Client: ask the key server at path for this socket's key of region rkey
 * at target, and attach it.  0, or -errno: the server's refusal (-EACCES:
 * not our uid; -ENOENT: not a region it serves; what deriving said), or
 * what connecting, the exchange or attaching said.
 */
int pu_key_fetch(const char *path, int prism_fd,
		 const struct sockaddr_prism *target, uint64_t rkey);

#endif
