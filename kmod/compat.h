/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernel APIs of the supported kernels, Debian
 * 12's 6.1 (the default target) and 6.12 (linux-image-6.12-amd64).  Every
 * LINUX_VERSION_CODE test of the module lives here (behind
 * PRISM_KERNEL_AT_LEAST); the rest of the code calls the wrappers below
 * where the two APIs differ.
 */
#ifndef _PRISM_COMPAT_H
#define _PRISM_COMPAT_H

#include <linux/version.h>
#include <linux/netdevice.h>
#include <net/genetlink.h>

/* True when building against kernel release maj.min or later. */
#define PRISM_KERNEL_AT_LEAST(maj, min) \
	(KERNEL_VERSION(maj, min, 0) <= LINUX_VERSION_CODE)

/* 6.12 moved <asm/unaligned.h> to <linux/unaligned.h>. */
#if PRISM_KERNEL_AT_LEAST(6, 12)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* 6.9 moved netdev_max_backlog into net_hotdata. */
#if PRISM_KERNEL_AT_LEAST(6, 9)
#include <net/hotdata.h>
#define prism_netdev_max_backlog()	READ_ONCE(net_hotdata.max_backlog)
#else
#define prism_netdev_max_backlog()	READ_ONCE(netdev_max_backlog)
#endif

/*
 * The attributes of a dump request: 6.2 made genl_dumpit_info carry a
 * whole genl_info.
 */
static inline struct nlattr **prism_dumpit_attrs(struct netlink_callback *cb)
{
#if PRISM_KERNEL_AT_LEAST(6, 2)
	return genl_dumpit_info(cb)->info.attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

#endif /* _PRISM_COMPAT_H */
