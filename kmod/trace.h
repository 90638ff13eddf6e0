/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the prism module (system "prism"): what a target does
 * with a request, and how a client's chain completes.
 *
 * Request ids are the ids on the wire (random base + per socket counter),
 * the same number in the events of the client and of its target.  No event
 * records an address of memory: regions are named by what the chain said.
 *
 *   perf trace -e 'prism:*'
 *   echo 1 > /sys/kernel/tracing/events/prism/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM prism

#ifndef _PRISM_TRACE_TYPES_H
#define _PRISM_TRACE_TYPES_H

#include "prism.h"
#include "link.h"

/* Why a target NACKed a chain (prism_chain_nack.reason). */
enum prism_nack_reason {
	PRISM_NACK_UNKNOWN,	/* received by a client: the wire says not why */
	PRISM_NACK_SESSIONS,	/* no session: limit of sessions or memory */
	PRISM_NACK_RATE,	/* not admitted: PRISM_SERVE_RATE or backlog */
	PRISM_NACK_RCACHE,	/* reply cache full */
	PRISM_NACK_CPU,		/* over this CPU's chain work per jiffy */
	PRISM_NACK_NOMEM,	/* cache entry or reply frame not allocated */
};

/* prism_chain_nack.dir */
enum prism_nack_dir {
	PRISM_NACK_SENT,	/* by a target */
	PRISM_NACK_RECEIVED,	/* by a client */
};

/* Opcode of the first op of a request (checked by RX); 0: no op. */
static inline u8 prism_trace_opcode(const struct prism_whdr *hdr)
{
	if (ntohs(hdr->body_len) < sizeof(struct prism_wop))
		return 0;
	return ((const struct prism_wop *)(hdr + 1))->opcode;
}

/*
 * What an event records of a link address: the MAC address (zero for UDP),
 * the IP address (IPv4 as ::ffff:a.b.c.d; zero for Ethernet) and the UDP
 * port (0 for Ethernet).
 */
static inline void prism_trace_addr(const struct prism_paddr *pa, u8 *mac,
				    u8 *ip, u16 *port)
{
	struct in6_addr a = {};

	memset(mac, 0, ETH_ALEN);
	*port = 0;
	if (pa->kind == PRISM_LINK_ETH) {
		memcpy(mac, pa->mac, ETH_ALEN);
	} else if (pa->kind == PRISM_LINK_UDP6) {
		a = pa->ip6;
		*port = ntohs(pa->port);
	} else {
		a.s6_addr32[2] = htonl(0xffff);
		a.s6_addr32[3] = pa->ip4;
		*port = ntohs(pa->port);
	}
	memcpy(ip, &a, sizeof(a));
}

#endif /* _PRISM_TRACE_TYPES_H */

#if !defined(_PRISM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _PRISM_TRACE_H

#include <linux/tracepoint.h>
#include <linux/ktime.h>

TRACE_DEFINE_ENUM(PRISM_NACK_UNKNOWN);
TRACE_DEFINE_ENUM(PRISM_NACK_SESSIONS);
TRACE_DEFINE_ENUM(PRISM_NACK_RATE);
TRACE_DEFINE_ENUM(PRISM_NACK_RCACHE);
TRACE_DEFINE_ENUM(PRISM_NACK_CPU);
TRACE_DEFINE_ENUM(PRISM_NACK_NOMEM);
TRACE_DEFINE_ENUM(PRISM_NACK_SENT);
TRACE_DEFINE_ENUM(PRISM_NACK_RECEIVED);

#define prism_show_nack_reason(r)				\
	__print_symbolic(r,					\
		{ PRISM_NACK_UNKNOWN,	"unknown" },		\
		{ PRISM_NACK_SESSIONS,	"sessions" },		\
		{ PRISM_NACK_RATE,	"rate" },		\
		{ PRISM_NACK_RCACHE,	"rcache" },		\
		{ PRISM_NACK_CPU,	"cpu" },		\
		{ PRISM_NACK_NOMEM,	"nomem" })

#define prism_show_nack_dir(d)					\
	__print_symbolic(d,					\
		{ PRISM_NACK_SENT,	"sent" },		\
		{ PRISM_NACK_RECEIVED,	"received" })

/* Target: a request frame arrived (before any check of it). */
TRACE_EVENT(prism_chain_rx,
	    TP_PROTO(const struct prism_whdr *hdr,
		     const struct prism_paddr *src_addr),
	    TP_ARGS(hdr, src_addr),
	    TP_STRUCT__entry(__array(u8, src, ETH_ALEN)
			     __array(u8, ip, 16)
			     __field(u16, port)
			     __field(u32, src_ep)
			     __field(u32, dst_ep)
			     __field(u64, req_id)
			     __field(u8, nops)
			     __field(u8, opcode)
	    ),
	    TP_fast_assign(prism_trace_addr(src_addr, __entry->src,
					    __entry->ip, &__entry->port);
			   __entry->src_ep = ntohl(hdr->src_ep);
			   __entry->dst_ep = ntohl(hdr->dst_ep);
			   __entry->req_id = be64_to_cpu(hdr->req_id);
			   __entry->nops = hdr->nops;
			   __entry->opcode = prism_trace_opcode(hdr);
	    ),
	    TP_printk("src=%pM src_ep=%u dst_ep=%u req_id=%llu nops=%u opcode=%u ip=%pI6c port=%u",
		      __entry->src, __entry->src_ep, __entry->dst_ep,
		      __entry->req_id, __entry->nops, __entry->opcode,
		      __entry->ip, __entry->port)
);

/* Target: a chain ran (once; repeats are answered from the reply cache). */
TRACE_EVENT(prism_chain_exec,
	    TP_PROTO(const struct prism_whdr *hdr, u8 status, u32 ops_failed,
		     u32 resp_bytes, u64 exec_ns),
	    TP_ARGS(hdr, status, ops_failed, resp_bytes, exec_ns),
	    TP_STRUCT__entry(__field(u32, dst_ep)
			     __field(u64, req_id)
			     __field(u8, nops)
			     __field(u8, status)
			     __field(u32, ops_failed)
			     __field(u32, resp_bytes)
			     __field(u64, exec_ns)
	    ),
	    TP_fast_assign(__entry->dst_ep = ntohl(hdr->dst_ep);
			   __entry->req_id = be64_to_cpu(hdr->req_id);
			   __entry->nops = hdr->nops;
			   __entry->status = status;
			   __entry->ops_failed = ops_failed;
			   __entry->resp_bytes = resp_bytes;
			   __entry->exec_ns = exec_ns;
	    ),
	    TP_printk("dst_ep=%u req_id=%llu nops=%u status=%u ops_failed=%u resp_bytes=%u exec_ns=%llu",
		      __entry->dst_ep, __entry->req_id, __entry->nops,
		      __entry->status, __entry->ops_failed, __entry->resp_bytes,
		      __entry->exec_ns)
);

/*
 * Client: a completion was queued to the socket.  latency_us: since the
 * first transmission; tries: transmissions (NACKed resends not counted).
 */
TRACE_EVENT(prism_chain_complete,
	    TP_PROTO(u32 ep, const struct prism_paddr *dst_addr, u32 dst_ep,
		     u64 req_id, u8 status, ktime_t first_sent, u32 tries,
		     u32 nacks),
	    TP_ARGS(ep, dst_addr, dst_ep, req_id, status, first_sent, tries,
		    nacks),
	    TP_STRUCT__entry(__field(u32, ep)
			     __array(u8, dst, ETH_ALEN)
			     __array(u8, ip, 16)
			     __field(u16, port)
			     __field(u32, dst_ep)
			     __field(u64, req_id)
			     __field(u8, status)
			     __field(u64, latency_us)
			     __field(u32, tries)
			     __field(u32, nacks)
	    ),
	    TP_fast_assign(__entry->ep = ep;
			   prism_trace_addr(dst_addr, __entry->dst,
					    __entry->ip, &__entry->port);
			   __entry->dst_ep = dst_ep;
			   __entry->req_id = req_id;
			   __entry->status = status;
			   __entry->latency_us = ktime_us_delta(ktime_get(), first_sent);
			   __entry->tries = tries;
			   __entry->nacks = nacks;
	    ),
	    TP_printk("ep=%u dst=%pM dst_ep=%u req_id=%llu status=%u latency_us=%llu tries=%u nacks=%u ip=%pI6c port=%u",
		      __entry->ep, __entry->dst, __entry->dst_ep, __entry->req_id,
		      __entry->status, __entry->latency_us, __entry->tries,
		      __entry->nacks, __entry->ip, __entry->port)
);

/*
 * Client: a chain is sent again, after a timeout (try = transmission
 * number, from 2) or after a NACK (after_nack = 1, try unchanged).
 * rto_us: the peer's retransmission timeout at that moment.
 */
TRACE_EVENT(prism_chain_retransmit,
	    TP_PROTO(u32 ep, u32 dst_ep, u64 req_id, u32 try, u32 rto_us,
		     bool after_nack),
	    TP_ARGS(ep, dst_ep, req_id, try, rto_us, after_nack),
	    TP_STRUCT__entry(__field(u32, ep)
			     __field(u32, dst_ep)
			     __field(u64, req_id)
			     __field(u32, try)
			     __field(u32, rto_us)
			     __field(u8, after_nack)
	    ),
	    TP_fast_assign(__entry->ep = ep;
			   __entry->dst_ep = dst_ep;
			   __entry->req_id = req_id;
			   __entry->try = try;
			   __entry->rto_us = rto_us;
			   __entry->after_nack = after_nack;
	    ),
	    TP_printk("ep=%u dst_ep=%u req_id=%llu try=%u rto_us=%u after_nack=%u",
		      __entry->ep, __entry->dst_ep, __entry->req_id, __entry->try,
		      __entry->rto_us, __entry->after_nack)
);

/*
 * A NACK sent by a target (dir=sent, ep = the target's, peer = the client)
 * or received by a client (dir=received, ep = the client's, peer = the
 * target; the reason is not on the wire).
 */
TRACE_EVENT(prism_chain_nack,
	    TP_PROTO(u8 dir, u32 ep, const struct prism_paddr *peer_addr,
		     u32 peer_ep, u64 req_id, u8 reason),
	    TP_ARGS(dir, ep, peer_addr, peer_ep, req_id, reason),
	    TP_STRUCT__entry(__field(u8, dir)
			     __field(u32, ep)
			     __array(u8, peer, ETH_ALEN)
			     __array(u8, ip, 16)
			     __field(u16, port)
			     __field(u32, peer_ep)
			     __field(u64, req_id)
			     __field(u8, reason)
	    ),
	    TP_fast_assign(__entry->dir = dir;
			   __entry->ep = ep;
			   prism_trace_addr(peer_addr, __entry->peer,
					    __entry->ip, &__entry->port);
			   __entry->peer_ep = peer_ep;
			   __entry->req_id = req_id;
			   __entry->reason = reason;
	    ),
	    TP_printk("dir=%s ep=%u peer=%pM peer_ep=%u req_id=%llu reason=%s ip=%pI6c port=%u",
		      prism_show_nack_dir(__entry->dir), __entry->ep,
		      __entry->peer, __entry->peer_ep, __entry->req_id,
		      prism_show_nack_reason(__entry->reason), __entry->ip,
		      __entry->port)
);

#endif /* _PRISM_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
