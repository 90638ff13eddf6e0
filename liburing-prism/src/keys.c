// SPDX-License-Identifier: MIT
/*
 * liburing-prism: keyed regions.  A server registers a keyed region,
 * installs its region key and derives a key for each client; a client
 * attaches the key it was handed to its socket (prism_rekey(3),
 * prism_derive_key(3), prism_attach_key(3)).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "internal.h"

int prism_reg_mr_flags(int fd, void *addr, size_t len, __u32 access,
		       __u32 flags, __u64 *rkey)
{
	struct prism_reg_mr mr = {
		.addr = (__u64)(uintptr_t)addr,
		.len = len,
		.access = access,
		.flags = flags,
	};

	if (ioctl(fd, PRISM_IOC_REG_MR, &mr) < 0)
		return -errno;
	if (rkey)
		*rkey = mr.rkey;
	return 0;
}

int prism_rekey(int fd, __u64 rkey, const __u8 key[PRISM_KEY_SIZE],
		__u32 overlap_ms, __u32 *gen)
{
	struct prism_rekey rk = { .rkey = rkey, .overlap_ms = overlap_ms };
	int err = 0;

	memcpy(rk.key, key, sizeof(rk.key));
	if (ioctl(fd, PRISM_IOC_REKEY, &rk) < 0)
		err = -errno;
	else if (gen)
		*gen = rk.gen;
	prism__wipe(&rk, sizeof(rk));
	return err;
}

/* Copy an endpoint address of either kind into a fixed-size field. */
static int put_addr(__u8 *field, size_t room, __u32 *len,
		    const struct sockaddr_prism *sa)
{
	unsigned int n = prism_addr_len(sa);

	if (n > room)
		return -EINVAL;
	memcpy(field, sa, n);
	*len = n;
	return 0;
}

int prism_derive_key(int fd, __u64 rkey, const struct sockaddr_prism *client,
		     __u32 rights, __u8 kd[PRISM_KEY_SIZE], __u32 *gen)
{
	struct prism_derive_key dk = { .rkey = rkey, .rights = rights };
	int err;

	err = put_addr(dk.addr, sizeof(dk.addr), &dk.addr_len, client);
	if (err)
		return err;
	if (ioctl(fd, PRISM_IOC_DERIVE_KEY, &dk) < 0) {
		err = -errno;
	} else {
		memcpy(kd, dk.kd, sizeof(dk.kd));
		if (gen)
			*gen = dk.gen;
	}
	prism__wipe(&dk, sizeof(dk));
	return err;
}

static int set_key(int fd, const struct sockaddr_prism *target, __u64 rkey,
		   __u32 rights, const __u8 *kd, __u32 flags)
{
	struct prism_key k = { .rkey = rkey, .rights = rights, .flags = flags };
	int err;

	err = put_addr(k.addr, sizeof(k.addr), &k.addr_len, target);
	if (err)
		return err;
	if (kd)
		memcpy(k.kd, kd, sizeof(k.kd));
	err = setsockopt(fd, SOL_PRISM, PRISM_KEY, &k, sizeof(k)) < 0 ? -errno : 0;
	prism__wipe(&k, sizeof(k));
	return err;
}

int prism_attach_key(int fd, const struct sockaddr_prism *target, __u64 rkey,
		     __u32 rights, const __u8 kd[PRISM_KEY_SIZE])
{
	return set_key(fd, target, rkey, rights, kd, 0);
}

int prism_detach_key(int fd, const struct sockaddr_prism *target, __u64 rkey)
{
	return set_key(fd, target, rkey, 0, NULL, PRISM_KEY_DETACH);
}
