/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fuzzer stand-in for <net/genetlink.h>: only what kmod/compat.h names
 * (the engine and the wire parser use no netlink).
 */
#ifndef _PRISM_FUZZ_NET_GENETLINK_H
#define _PRISM_FUZZ_NET_GENETLINK_H
#include "../prism_shim.h"

struct nlattr;
struct netlink_callback;

struct genl_dumpit_info {
	struct nlattr **attrs;
};

static inline const struct genl_dumpit_info *
genl_dumpit_info(struct netlink_callback *cb)
{
	(void)cb;
	return NULL;
}
#endif
