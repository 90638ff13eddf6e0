/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PRISM selftests: the end-to-end client cases, one file per feature, run
 * against a server sleeping in pause() (`prism_test server`, cmd_server()
 * in ../prism_test.c).  Each case sets up the server memory it needs with
 * process_vm_writev(), runs chains, and checks both the completions and
 * the server memory (process_vm_readv()).
 *
 *   helpers.c    the helpers below
 *   read.c       READ                   write.c     WRITE
 *   cas.c        CAS                    alloc.c     ALLOC, PRISM-KV, PRISM-RS
 *   chain.c      redirect, scratch, CONDITIONAL
 *   access.c     AUTH / ACCESS violations
 *   send.c       SEND, unbound endpoints
 *   peers.c      timeouts, per-target id window, peer table
 *   cc.c         congestion windows: a silent target, cc on and off
 *   ring.c       io_uring batches      busypoll.c  spinning waits
 *   socket.c     socket API errors      malformed.c malformed chains
 *   regions.c    region / free list ioctls, DEREG_MR at the target
 *   stats.c      server CPU while idle, PRISM_STATS, /proc/net/prism
 *   udp.c        UDP mode: bind, sendmsg and getsockname addresses
 *   keyed.c      keyed regions: sealed chains, keys, rotation, the wire
 *   registry.c   st_cases[]: every case, in the order client-all runs them
 *
 * A case returns st_failed (0 = pass); checks come from ../st.h.
 */
#ifndef PRISM_CASES_H
#define PRISM_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "../st.h"

/* ------------------------------------------------------------------------
 * Helpers (helpers.c).  Offsets (off) are into the server's RW region,
 * addresses (addr, a) are absolute.
 */
/* Write len bytes of data / one little-endian u64 / len bytes of byte. */
void setup(struct client *c, __u64 off, const void *data, size_t len);
void setup_u64(struct client *c, __u64 off, __u64 v);
void fill(struct client *c, __u64 off, int byte, size_t len);
/* Server memory at off must equal want / len bytes of byte. */
void check_mem(struct client *c, __u64 off, const void *want,
	       size_t len, const char *what);
void check_fill(struct client *c, __u64 off, int byte, size_t len,
		const char *what);
/* The little-endian u64 at addr in the server. */
__u64 mem_u64(struct client *c, __u64 addr);
/* b[i] = pat(off + i): the RW pattern area as the server holds it. */
void pattern(unsigned char *b, __u64 off, size_t len);
/* Server memory at off must hold the len pattern bytes from pat_off. */
void check_pattern(struct client *c, __u64 off, __u64 pat_off, size_t len,
		   const char *what);
/* Op i must be OK with output the len pattern bytes from pat_off. */
void expect_pattern(const struct prism_msg *m, unsigned int i, __u64 pat_off,
		    __u32 len, const char *what);
/* Results are 8-byte aligned and inside the message. */
void check_layout(const struct prism_msg *m);
bool in_main_list(struct client *c, __u64 a);
int raw_send(int fd, const struct sockaddr_prism *dst, socklen_t dlen,
	     const void *buf, size_t len, int flags);

/* ------------------------------------------------------------------------
 * The cases (listed with their names in registry.c)
 */
/* read.c */
int case_read_direct(struct client *c);
int case_read_indirect(struct client *c);
int case_read_bounded(struct client *c);
/* write.c */
int case_write_inline(struct client *c);
int case_write_indirect(struct client *c);
int case_write_data_indirect(struct client *c);
/* cas.c */
int case_cas_modes(struct client *c);
int case_cas_masks(struct client *c);
int case_cas_wide(struct client *c);
int case_cas_indirect(struct client *c);
/* alloc.c */
int case_alloc(struct client *c);
int case_alloc_empty(struct client *c);
int case_kv_put(struct client *c);
int case_rs_write(struct client *c);
/* chain.c */
int case_redirect(struct client *c);
int case_scratch(struct client *c);
int case_conditional(struct client *c);
/* access.c */
int case_access_auth(struct client *c);
int case_access_bounds(struct client *c);
int case_access_pointer(struct client *c);
/* send.c */
int case_send(struct client *c);
int case_no_endpoint(struct client *c);
/* peers.c */
int case_timeout(struct client *c);
int case_window_per_peer(struct client *c);
int case_peer_limit(struct client *c);
/* cc.c */
int case_cc_silent(struct client *c);
/* ring.c */
int case_ring_1(struct client *c);
int case_ring_16(struct client *c);
int case_ring_256(struct client *c);
int case_ring_256_plain(struct client *c);
/* busypoll.c */
int case_busy_poll_execute(struct client *c);
int case_busy_poll_ring(struct client *c);
/* socket.c */
int case_errno_socket(struct client *c);
/* malformed.c */
int case_errno_chain(struct client *c);
/* regions.c */
int case_errno_ioctl(struct client *c);
int case_dereg_auth(struct client *c);
/* stats.c */
int case_cpu_idle(struct client *c);
int case_stats(struct client *c);
/* udp.c */
int case_udp_errno(struct client *c);

/* keyed.c */
int case_keyed_errno(struct client *c);
int case_keyed(struct client *c);
int case_keyed_wire(struct client *c);
int case_keyed_rekey(struct client *c);
int case_keyed_rekey_op(struct client *c);
int case_keyed_rotation(struct client *c);

#endif
