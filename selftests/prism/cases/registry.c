// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: the table of end-to-end client cases that prism_test
 * runs (`client CASE`, `client-all`) and lists (`list`).  client-all runs
 * them in this order against one server, so each finds what the earlier
 * ones left (free list buffers they took stay taken): keep the order.
 */
#include "cases.h"

const struct st_case st_cases[] = {
	{ "read_direct", case_read_direct, "READ: several lengths, 1472 bytes, region end" },
	{ "read_indirect", case_read_indirect, "READ through pointers" },
	{ "read_bounded", case_read_bounded, "READ through {ptr, bound}" },
	{ "write_inline", case_write_inline, "WRITE inline data, guards intact" },
	{ "write_indirect", case_write_indirect, "WRITE through a pointer" },
	{ "write_data_indirect", case_write_data_indirect, "WRITE from region memory" },
	{ "cas_modes", case_cas_modes, "CAS EQ..LE, aligned and unaligned" },
	{ "cas_masks", case_cas_masks, "CAS with compare/swap masks, byte order" },
	{ "cas_wide", case_cas_wide, "16-, 32- and 3-byte CAS" },
	{ "cas_indirect", case_cas_indirect, "CAS via pointer, operands in memory" },
	{ "alloc", case_alloc, "ALLOC returns, fills, redirects" },
	{ "alloc_empty", case_alloc_empty, "ALLOC from empty/unknown lists" },
	{ "kv_put", case_kv_put, "PRISM-KV PUT chain (ALLOC + conditional CAS)" },
	{ "rs_write", case_rs_write, "PRISM-RS write chain (tag, ALLOC, CAS_GT)" },
	{ "redirect", case_redirect, "redirect to region and scratch" },
	{ "scratch", case_scratch, "scratch address space" },
	{ "conditional", case_conditional, "CONDITIONAL ops after failures" },
	{ "access_auth", case_access_auth, "wrong rkey -> AUTH" },
	{ "access_bounds", case_access_bounds, "out of bounds, read-only, no-atomic -> ACCESS" },
	{ "access_pointer", case_access_pointer, "pointers outside the region -> ACCESS" },
	{ "send", case_send, "SEND delivery, source address, RECV_FULL" },
	{ "no_endpoint", case_no_endpoint, "chain to an unbound endpoint" },
	{ "timeout", case_timeout, "chains to missing MACs time out" },
	{ "window_per_peer", case_window_per_peer, "a silent target blocks only its own id window" },
	{ "peer_limit", case_peer_limit, "4096 targets per socket, then ENOBUFS" },
	{ "cc_silent", case_cc_silent, "a silent target's window holds its chains, not others'" },
	{ "cpu_idle", case_cpu_idle, "server sleeping in pause() uses no CPU" },
	{ "ring_1", case_ring_1, "io_uring: 1 chain" },
	{ "ring_16", case_ring_16, "io_uring: 16 chains in flight, every primitive" },
	{ "ring_256", case_ring_256, "io_uring: 256 chains in flight, every primitive" },
	{ "ring_256_plain", case_ring_256_plain, "io_uring: 256 chains, plain RECVs" },
	{ "busy_poll_execute", case_busy_poll_execute, "busy polling: prism_execute_spin, SO_BUSY_POLL, no sleep" },
	{ "busy_poll_ring", case_busy_poll_ring, "busy polling: a spinning prism_ring, no sleep" },
	{ "errno_socket", case_errno_socket, "socket/bind/sendmsg/sockopt errors" },
	{ "errno_chain", case_errno_chain, "malformed chains -> EINVAL/EMSGSIZE" },
	{ "errno_ioctl", case_errno_ioctl, "region and free list ioctl errors" },
	{ "dereg_auth", case_dereg_auth, "ops after DEREG_MR -> AUTH" },
	{ "stats", case_stats, "PRISM_STATS and /proc/net/prism" },
	{ "udp_errno", case_udp_errno, "UDP addresses: bind/sendmsg/getsockname errors" },
	{ "keyed_errno", case_keyed_errno, "keyed regions: ioctl and PRISM_KEY errors, 256 keys" },
	{ "keyed", case_keyed, "keyed regions: sealed chains, rights, unsealed chains" },
	{ "keyed_wire", case_keyed_wire, "keyed regions: no plaintext captured, replay, tamper" },
	{ "keyed_rekey", case_keyed_rekey, "keyed regions: wrong keys, rotation, overlap" },
	{ "keyed_rekey_op", case_keyed_rekey_op, "keyed regions: the remote REKEY op, admin keys" },
	{ "keyed_rotation", case_keyed_rotation, "keyed regions: rotations every 100 ms under load" },
	{ NULL, NULL, NULL },
};
