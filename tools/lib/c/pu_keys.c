// SPDX-License-Identifier: MIT
/* Keys of keyed regions for the stores (pu_keys.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* struct ucred, SO_PEERCRED, explicit_bzero() */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "pu_keys.h"

/* The exchange: one request, one answer, then the server closes. */
#define PU_KEY_REQ_MAGIC	"PKQ1"
#define PU_KEY_ANS_MAGIC	"PKA1"

struct pu_key_req {
	char		magic[4];
	uint32_t	addr_len;
	uint64_t	rkey;
	uint8_t		addr[32];	/* the client's endpoint address */
};

struct pu_key_ans {
	char		magic[4];
	int32_t		err;		/* 0 or -errno */
	uint32_t	rights;
	uint32_t	gen;
	uint8_t		kd[PRISM_KEY_SIZE];
};

int pu_region_key(int prism_fd, uint64_t rkey, uint32_t *gen)
{
	uint8_t key[PRISM_KEY_SIZE];
	int err;

	if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key))
		return -EIO;
	err = prism_rekey(prism_fd, rkey, key, 0, gen);
	explicit_bzero(key, sizeof(key));
	return err;
}

static int un_addr(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path))
		return -ENAMETOOLONG;
	strcpy(sun->sun_path, path);
	return 0;
}

int pu_keysrv_open(struct pu_keysrv *ks, const char *path, int prism_fd)
{
	struct sockaddr_un sun;
	int err;

	memset(ks, 0, sizeof(*ks));
	ks->fd = -1;
	ks->prism_fd = prism_fd;
	err = un_addr(&sun, path);
	if (err)
		return err;
	strcpy(ks->path, path);
	ks->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (ks->fd < 0)
		return -errno;
	unlink(path);
	if (bind(ks->fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    chmod(path, 0600) < 0 || listen(ks->fd, 64) < 0) {
		err = -errno;
		pu_keysrv_close(ks);
		return err;
	}
	return 0;
}

int pu_keysrv_add(struct pu_keysrv *ks, uint64_t rkey, uint32_t rights)
{
	unsigned int i;

	for (i = 0; i < ks->n; i++)
		if (ks->reg[i].rkey == rkey)
			return -EEXIST;
	if (ks->n == PU_KEYSRV_REGIONS)
		return -ENOSPC;
	ks->reg[ks->n].rkey = rkey;
	ks->reg[ks->n].rights = rights;
	ks->n++;
	return 0;
}

/* The answer to one request of a peer allowed to ask. */
static void answer(const struct pu_keysrv *ks, const struct pu_key_req *q,
		   struct pu_key_ans *a)
{
	const struct sockaddr_prism *client = (const void *)q->addr;
	unsigned int i;

	a->err = -EINVAL;
	if (memcmp(q->magic, PU_KEY_REQ_MAGIC, 4) ||
	    q->addr_len < sizeof(struct sockaddr_prism) ||
	    q->addr_len > sizeof(q->addr) ||
	    prism_addr_len(client) != q->addr_len)
		return;
	a->err = -ENOENT;
	for (i = 0; i < ks->n; i++) {
		if (ks->reg[i].rkey != q->rkey)
			continue;
		a->rights = ks->reg[i].rights;
		a->err = prism_derive_key(ks->prism_fd, q->rkey, client,
					  a->rights, a->kd, &a->gen);
		return;
	}
}

static void serve_one(struct pu_keysrv *ks, int c)
{
	struct timeval tv = { .tv_sec = 1 };
	struct pu_key_req q;
	struct pu_key_ans a;
	struct ucred cr;
	socklen_t len = sizeof(cr);

	memset(&a, 0, sizeof(a));
	memcpy(a.magic, PU_KEY_ANS_MAGIC, 4);
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
	    (cr.uid != geteuid() && cr.uid != 0))
		a.err = -EACCES;
	else if (recv(c, &q, sizeof(q), MSG_WAITALL) != (ssize_t)sizeof(q))
		a.err = -EPROTO;
	else
		answer(ks, &q, &a);
	if (send(c, &a, sizeof(a), MSG_NOSIGNAL) == (ssize_t)sizeof(a) && !a.err)
		ks->served++;
	else
		ks->refused++;
	explicit_bzero(&a, sizeof(a));
}

int pu_keysrv_serve(struct pu_keysrv *ks)
{
	int c, n = 0;
	uint64_t before;

	for (;;) {
		c = accept4(ks->fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ||
			       errno == EINTR || errno == ECONNABORTED ? n : -errno;
		before = ks->served;
		serve_one(ks, c);
		n += ks->served != before;
		close(c);
	}
}

int pu_keysrv_start(struct pu_keysrv *ks, const char *info, int prism_fd,
		    uint64_t rkey, uint32_t rights)
{
	char path[PU_KEYS_PATH_MAX];
	int err;

	ks->fd = -1;
	if (snprintf(path, sizeof(path), "%s" PU_KEYS_SUFFIX, info) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	err = pu_region_key(prism_fd, rkey, NULL);
	if (!err)
		err = pu_keysrv_open(ks, path, prism_fd);
	if (!err)
		err = pu_keysrv_add(ks, rkey, rights);
	if (err)
		pu_keysrv_close(ks);
	return err;
}

void pu_keysrv_close(struct pu_keysrv *ks)
{
	if (ks->fd >= 0) {
		close(ks->fd);
		unlink(ks->path);
	}
	ks->fd = -1;
}

int pu_key_fetch(const char *path, int prism_fd,
		 const struct sockaddr_prism *target, uint64_t rkey)
{
	struct timeval tv = { .tv_sec = 5 };
	union prism_sockaddr self;
	socklen_t slen = sizeof(self);
	struct sockaddr_un sun;
	struct pu_key_req q;
	struct pu_key_ans a;
	int s, err;

	err = un_addr(&sun, path);
	if (err)
		return err;
	memset(&self, 0, sizeof(self));
	if (getsockname(prism_fd, (struct sockaddr *)&self, &slen) < 0)
		return -errno;
	memset(&q, 0, sizeof(q));
	memcpy(q.magic, PU_KEY_REQ_MAGIC, 4);
	q.rkey = rkey;
	q.addr_len = prism_addr_len(&self.eth);
	if (q.addr_len > sizeof(q.addr))
		return -EINVAL;
	memcpy(q.addr, &self, q.addr_len);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(s, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    send(s, &q, sizeof(q), MSG_NOSIGNAL) != (ssize_t)sizeof(q)) {
		err = -errno;
		close(s);
		return err;
	}
	if (recv(s, &a, sizeof(a), MSG_WAITALL) != (ssize_t)sizeof(a))
		err = -EPROTO;
	else if (memcmp(a.magic, PU_KEY_ANS_MAGIC, 4))
		err = -EPROTO;
	else if (a.err)
		err = a.err;
	else
		err = prism_attach_key(prism_fd, target, rkey, a.rights, a.kd);
	close(s);
	explicit_bzero(&a, sizeof(a));
	return err;
}
