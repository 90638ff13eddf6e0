/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Receive steering of target-side frames over the CPUs (steer.c): a hash of
 * the client session picks one CPU of a map; frames for another CPU wait
 * on its PRISM queue and are run there by a NAPI poll.
 */
#ifndef _PRISM_STEER_H
#define _PRISM_STEER_H

#include <linux/types.h>
#include <linux/cpumask.h>

struct sk_buff;
struct net_device;
struct prism_whdr;
struct prism_paddr;

int prism_steer_init(void);
void prism_steer_exit(void);
bool prism_steer_frame(struct sk_buff *skb, const struct prism_whdr *hdr,
		       const struct prism_paddr *src);
void prism_steer_flush_dev(struct net_device *dev);
u32 prism_steer_backlog(void);

/* Pure parts, exported to the KUnit suite. */
u32 prism_steer_hash(const struct prism_paddr *src, u32 src_ep, u32 session,
		     u32 seed);
unsigned int prism_steer_map_fill(u16 *cpus, const unsigned long *allowed,
				  const unsigned long *online, unsigned int nbits,
				  int exclude);
unsigned int prism_steer_pick(u32 hash, const u16 *cpus, unsigned int n);

#endif /* _PRISM_STEER_H */
