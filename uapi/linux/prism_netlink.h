/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * PRISM generic netlink interface (used by prismctl).
 *
 * Family "prism" (PRISM_GENL_NAME), version PRISM_GENL_VERSION, no family
 * header.  The family is network-namespace aware: every command sees only
 * the endpoints of the network namespace of the requesting netlink socket.
 * All attributes live in one space (enum prism_attr); each command has its
 * own policy and rejects attributes it does not take (strict validation,
 * also for dump requests).
 *
 * Commands
 * --------
 * PRISM_CMD_ENDPOINT_GET
 *	dump: every bound endpoint of the netns, one message each.
 *	do:   the endpoint PRISM_ATTR_EP (required).
 *	Reply: EP, IFINDEX, IFNAME, MAC, NR_REGIONS, NR_FREELISTS,
 *	PINNED_PAGES, OUTSTANDING, MAX_OUTSTANDING, TIMEOUT_MS, STATS
 *	(nest of enum prism_stats_attr: the socket's counters), and
 *	OWNER_PID only if the requester has CAP_NET_ADMIN.
 *
 * PRISM_CMD_REGION_GET
 *	dump: every registered region, one message each; optional filter
 *	PRISM_ATTR_EP (unknown endpoint: ENOENT).
 *	Reply: EP, REGION_LEN, REGION_ACCESS, REGION_PAGES and, only if the
 *	requester has CAP_NET_ADMIN in the initial user namespace,
 *	REGION_START (addresses reveal the owner's address-space layout) and
 *	RKEY (an rkey grants remote access to the memory: it is a capability
 *	and is not shown to others).
 *
 * PRISM_CMD_FREELIST_GET
 *	dump: every free list, one message each; optional filter
 *	PRISM_ATTR_EP.
 *	do:   EP and FL_ID (both required).
 *	Reply: EP, FL_ID, FL_BUF_SIZE, FL_CAPACITY, FL_COUNT, and for
 *	CAP_NET_ADMIN as above REGION_START (region the buffers lie in) and
 *	RKEY.
 *
 * PRISM_CMD_FREELIST_CREATE (CAP_NET_ADMIN)
 *	Request: EP, RKEY, FL_BUF_SIZE, FL_CAPACITY (all required).
 *	Creates a free list in the memory of endpoint EP, as the socket's
 *	ioctl PRISM_IOC_FL_CREATE would.  Reply: the new list, as
 *	FREELIST_GET, with command PRISM_CMD_FREELIST_CREATE.
 *
 * PRISM_CMD_FREELIST_POST (CAP_NET_ADMIN)
 *	Request: EP, FL_ID and either FL_ADDRS (nest of PRISM_FL_ADDR u64
 *	buffer addresses; may be repeated, as one attribute holds at most
 *	64 KiB: the addresses of all of them are posted, in order) or
 *	FL_CARVE_START + FL_CARVE_COUNT (buffers start + i * buf_size for
 *	i < count).  At most PRISM_GENL_POST_MAX buffers.  Every buffer must
 *	lie inside the list's region and the list must have room for all of
 *	them; nothing is posted otherwise.
 *	Reply: EP, FL_ID, FL_POSTED (buffers posted), FL_COUNT (buffers in
 *	the list afterwards).
 *
 * PRISM_CMD_REGION_REKEY (CAP_NET_ADMIN)
 *	Request: EP, RKEY, REGION_KEY (16 bytes; required), and
 *	REGION_OVERLAP_MS (optional, 0 to 60000).  Installs a region key of
 *	keyed region RKEY of endpoint EP, as the socket's ioctl
 *	PRISM_IOC_REKEY would.  Reply: EP, RKEY, REGION_KEY_GEN.  No reply or
 *	dump ever carries a key.
 *
 * PRISM_CMD_STATS_GET
 *	do: the counters of the netns, those of /proc/net/prism.
 *	Reply: STATS (nest of enum prism_stats_attr), PINNED_PAGES (pages
 *	pinned by the regions of all endpoints of the netns).
 *
 * PRISM_CMD_PEER_GET
 *	Client-side state kept per local endpoint for every remote endpoint
 *	it has sent chains to (until the local socket is closed).
 *	dump: every such peer of every endpoint; optional filter
 *	PRISM_ATTR_EP (local endpoint; unknown: ENOENT).
 *	do:   EP, PEER_MAC and PEER_EP (all required); ENOENT when the
 *	endpoint does not exist or has sent nothing to that peer.
 *	Reply: EP, IFINDEX, PEER_MAC, PEER_EP, PEER_SRTT_US (0 before the
 *	first sample), PEER_RTTVAR_US, PEER_RTO_US, PEER_STATS (nest of enum
 *	prism_peer_stats_attr), PEER_CWND (whole chains), PEER_INFLIGHT,
 *	PEER_HELD, PEER_QDELAY_US (the remote delay congestion control
 *	reacts to: the target's queueing plus the fabric's above its base).
 *
 * Events
 * ------
 * Multicast group PRISM_GENL_MCGRP_EVENTS ("events"; resolve its id with
 * CTRL_CMD_GETFAMILY, CTRL_ATTR_MCAST_GROUPS, and join it with
 * NETLINK_ADD_MEMBERSHIP).  Any user may join: events therefore carry
 * nothing that the commands above show to CAP_NET_ADMIN only (no RKEY, no
 * REGION_START or other address, no OWNER_PID).  A listener gets the
 * events of the network namespace of its netlink socket only.  Each event
 * is one message, sequence number and port id 0, sent after the change
 * (from process context); the events of one endpoint come in the order of
 * its changes, and ENDPOINT events in the order of the binds and closes of
 * the netns (the DEL of an endpoint id before the NEW of its next use).  Only bound endpoints have events: memory registered before
 * bind(2) is not announced (ENDPOINT_GET's NR_REGIONS/NR_FREELISTS count
 * it).  The event commands are notifications only; requests with them
 * fail with EOPNOTSUPP.
 *
 * PRISM_CMD_ENDPOINT_NEW	a socket was bound
 * PRISM_CMD_ENDPOINT_DEL	a bound socket was closed.  Its regions and
 *				free lists go with it, without events of
 *				their own.
 *	Attributes: EP, IFINDEX, IFNAME (left out if the interface is gone).
 *
 * PRISM_CMD_REGION_NEW	a region was registered (PRISM_IOC_REG_MR)
 * PRISM_CMD_REGION_DEL	a region was deregistered (PRISM_IOC_DEREG_MR)
 *	Attributes: EP, REGION_LEN, REGION_ACCESS, REGION_PAGES.
 *
 * PRISM_CMD_FREELIST_NEW	a free list was created (PRISM_IOC_FL_CREATE or
 *				PRISM_CMD_FREELIST_CREATE)
 * PRISM_CMD_FREELIST_DEL	a free list was destroyed (PRISM_IOC_FL_DESTROY)
 *	Attributes: EP, FL_ID, FL_BUF_SIZE, FL_CAPACITY.
 *
 * Posting buffers and taking them (FL_COUNT) have no events.  A listener
 * that reads too slowly loses events (ENOBUFS on its socket) and should
 * dump the state again.
 *
 * Errors are negative errno values in the netlink ack, with an extended
 * ack message (NLMSGERR_ATTR_MSG) that says what was wrong.  State-changing
 * commands need CAP_NET_ADMIN in the initial user namespace (EPERM).
 *
 * 64-bit attributes are padded to 8 bytes with PRISM_ATTR_PAD (in nests,
 * with the nest's PAD attribute); readers ignore PAD.
 */
#ifndef _UAPI_LINUX_PRISM_NETLINK_H
#define _UAPI_LINUX_PRISM_NETLINK_H

#include "prism.h"	/* PRISM_STATS_LIST */

#define PRISM_GENL_NAME		"prism"
#define PRISM_GENL_VERSION	1

/* Multicast group of the events (see Events above). */
#define PRISM_GENL_MCGRP_EVENTS	"events"

/* Most buffers one FREELIST_POST takes (addresses or carve count). */
#define PRISM_GENL_POST_MAX	65536

enum prism_cmd {
	PRISM_CMD_UNSPEC,
	PRISM_CMD_ENDPOINT_GET,
	PRISM_CMD_REGION_GET,
	PRISM_CMD_FREELIST_GET,
	PRISM_CMD_FREELIST_CREATE,
	PRISM_CMD_FREELIST_POST,
	PRISM_CMD_STATS_GET,
	PRISM_CMD_PEER_GET,
	/* Events of the "events" group (notifications, not requests). */
	PRISM_CMD_ENDPOINT_NEW,
	PRISM_CMD_ENDPOINT_DEL,
	PRISM_CMD_REGION_NEW,
	PRISM_CMD_REGION_DEL,
	PRISM_CMD_FREELIST_NEW,
	PRISM_CMD_FREELIST_DEL,
	/* A request again (added after the events). */
	PRISM_CMD_REGION_REKEY,

	__PRISM_CMD_MAX,
	PRISM_CMD_MAX = __PRISM_CMD_MAX - 1
};

enum prism_attr {
	PRISM_ATTR_UNSPEC,
	PRISM_ATTR_PAD,			/* padding of 64-bit attributes */
	PRISM_ATTR_EP,			/* u32: endpoint id */
	PRISM_ATTR_IFINDEX,		/* u32: interface index */
	PRISM_ATTR_IFNAME,		/* string: interface name (out) */
	PRISM_ATTR_MAC,			/* binary[6]: interface MAC (out) */
	PRISM_ATTR_OWNER_PID,		/* u32: pid of the process that created
					 * the socket, in the requester's pid
					 * namespace; 0 if not visible there;
					 * CAP_NET_ADMIN only
					 */
	PRISM_ATTR_NR_REGIONS,		/* u32: registered regions */
	PRISM_ATTR_NR_FREELISTS,	/* u32: free lists */
	PRISM_ATTR_PINNED_PAGES,	/* u64: pages pinned for all regions */
	PRISM_ATTR_OUTSTANDING,		/* u32: client chains in flight */
	PRISM_ATTR_MAX_OUTSTANDING,	/* u32: limit of chains in flight */
	PRISM_ATTR_TIMEOUT_MS,		/* u32: default chain timeout */
	PRISM_ATTR_STATS,		/* nest: enum prism_stats_attr */
	PRISM_ATTR_RKEY,		/* u64: region key */
	PRISM_ATTR_REGION_START,	/* u64: first address of a region */
	PRISM_ATTR_REGION_LEN,		/* u64: bytes */
	PRISM_ATTR_REGION_ACCESS,	/* u32: PRISM_ACCESS_* */
	PRISM_ATTR_REGION_PAGES,	/* u64: pages pinned for the region */
	PRISM_ATTR_FL_ID,		/* u32: free list id */
	PRISM_ATTR_FL_BUF_SIZE,		/* u32: bytes per buffer */
	PRISM_ATTR_FL_CAPACITY,		/* u32: most buffers the list holds */
	PRISM_ATTR_FL_COUNT,		/* u32: buffers in the list now
					 * (including those still waiting
					 * for their grace period)
					 */
	PRISM_ATTR_FL_ADDRS,		/* nest: PRISM_FL_ADDR entries */
	PRISM_ATTR_FL_CARVE_START,	/* u64: first buffer of a carve */
	PRISM_ATTR_FL_CARVE_COUNT,	/* u32: buffers of a carve */
	PRISM_ATTR_FL_POSTED,		/* u32: buffers posted (out) */
	PRISM_ATTR_PEER_MAC,		/* binary[6]: remote MAC */
	PRISM_ATTR_PEER_EP,		/* u32: remote endpoint id */
	PRISM_ATTR_PEER_SRTT_US,	/* u32: smoothed RTT (microseconds) */
	PRISM_ATTR_PEER_RTTVAR_US,	/* u32: RTT variation (microseconds) */
	PRISM_ATTR_PEER_RTO_US,		/* u32: retransmission timeout (us) */
	PRISM_ATTR_PEER_STATS,		/* nest: enum prism_peer_stats_attr */
	PRISM_ATTR_PEER_CWND,		/* u32: congestion window (chains) */
	PRISM_ATTR_PEER_INFLIGHT,	/* u32: chains in flight */
	PRISM_ATTR_PEER_HELD,		/* u32: chains waiting for the window */
	PRISM_ATTR_PEER_QDELAY_US,	/* u32: smoothed remote queueing delay */
	PRISM_ATTR_LINK,		/* u8: PRISM_ADDR_ETH or PRISM_ADDR_UDP */
	PRISM_ATTR_IP,			/* binary[4|16]: bound IP address (UDP) */
	PRISM_ATTR_UDP_PORT,		/* u16: UDP port of the endpoints */
	PRISM_ATTR_PEER_IP,		/* binary[4|16]: remote IP address */
	PRISM_ATTR_PEER_PORT,		/* u16: remote UDP port */
	PRISM_ATTR_REGION_KEYED,	/* u8: 1: a keyed region (PRISM_MR_KEYED) */
	PRISM_ATTR_REGION_KEY_GEN,	/* u32: generation of its region key,
					 * 0 before the first; never the key
					 */
	PRISM_ATTR_REGION_KEY,		/* binary[16]: a region key (in
					 * REGION_REKEY requests only)
					 */
	PRISM_ATTR_REGION_OVERLAP_MS,	/* u32: REGION_REKEY: old keys stay
					 * valid this long
					 */

	__PRISM_ATTR_MAX,
	PRISM_ATTR_MAX = __PRISM_ATTR_MAX - 1
};

/* Entries of PRISM_ATTR_FL_ADDRS (the attribute may repeat). */
enum prism_fl_addr_attr {
	PRISM_FL_ADDR_UNSPEC,
	PRISM_FL_ADDR,			/* u64: address of one buffer */

	__PRISM_FL_ADDR_MAX,
	PRISM_FL_ADDR_MAX = __PRISM_FL_ADDR_MAX - 1
};

/*
 * Counters of PRISM_ATTR_STATS, all u64: PRISM_STATS_ATTR_ID for each
 * X(ID, name) of PRISM_STATS_LIST (<linux/prism.h>), in its order, which is
 * that of struct prism_stats and of /proc/net/prism.
 */
#define __PRISM_STATS_ATTR(ID, name)	PRISM_STATS_ATTR_##ID,
enum prism_stats_attr {
	PRISM_STATS_ATTR_UNSPEC,
	PRISM_STATS_ATTR_PAD,
	PRISM_STATS_LIST(__PRISM_STATS_ATTR)

	__PRISM_STATS_ATTR_MAX,
	PRISM_STATS_ATTR_MAX = __PRISM_STATS_ATTR_MAX - 1
};
#undef __PRISM_STATS_ATTR

/*
 * Counters of PRISM_ATTR_PEER_STATS, all u64: X(ID, name) for each, in the
 * order of the attributes PRISM_PEER_STATS_ATTR_ID; name is what prismctl
 * shows.
 */
#define PRISM_PEER_STATS_LIST(X)					\
	X(CHAINS_SENT,		chains_sent)		/* chains accepted by sendmsg */ \
	X(CHAINS_COMPLETED,	chains_completed)	/* answered by the peer */ \
	X(TIMEOUTS,		timeouts)		/* chains timed out */ \
	X(NACKS,		nacks)			/* NACKs received (overloaded) */ \
	X(RETRANSMITS,		retransmits)		/* frames sent again after no answer */ \
	X(CC_CUTS,		cc_cuts)		/* congestion window reductions */

#define __PRISM_PEER_STATS_ATTR(ID, name)	PRISM_PEER_STATS_ATTR_##ID,
enum prism_peer_stats_attr {
	PRISM_PEER_STATS_ATTR_UNSPEC,
	PRISM_PEER_STATS_ATTR_PAD,
	PRISM_PEER_STATS_LIST(__PRISM_PEER_STATS_ATTR)

	__PRISM_PEER_STATS_ATTR_MAX,
	PRISM_PEER_STATS_ATTR_MAX = __PRISM_PEER_STATS_ATTR_MAX - 1
};
#undef __PRISM_PEER_STATS_ATTR

#endif /* _UAPI_LINUX_PRISM_NETLINK_H */
