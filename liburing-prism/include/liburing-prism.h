/* SPDX-License-Identifier: MIT */
/*
 * liburing-prism: userspace helpers for the PRISM socket family.
 *
 * Four layers, all optional:
 *
 *  1. Chain builder (header only, static inline).  A chain is encoded into
 *     a caller-supplied, 8-byte aligned buffer exactly as the kernel wants
 *     it in sendmsg(): struct prism_chain, then each struct prism_op
 *     followed by its inline data padded with zeroes to a multiple of 8.
 *
 *	struct prism_chain_buf c;
 *	__u64 buf[64];
 *
 *	prism_chain_init(&c, buf, sizeof(buf), 42);
 *	op = prism_prep_alloc(&c, rkey, fl_id, val, val_len);
 *	prism_op_set_redirect_scratch(&c, op, 0);
 *	op = prism_prep_cas_ex(&c, rkey, slot, 8, PRISM_CAS_EQ, 0,
 *			       &old, 0, NULL, 0, NULL, NULL);
 *	prism_op_set_arg_scratch(&c, op);
 *	prism_op_set_conditional(&c, op);
 *	if (prism_chain_error(&c)) ...
 *
 *     Errors are sticky: the first failing call records -EINVAL or -ENOSPC
 *     in the chain, returns NULL/the error, and every later call fails the
 *     same way without touching the buffer.  A chain that failed is never
 *     submitted by this library.
 *
 *  2. Completion parsing (header only): bounds-checked accessors for
 *     struct prism_msg.
 *
 *  3. Sockets and blocking calls (liburing-prism.a): prism_open(),
 *     region/free list ioctls, prism_submit(), prism_wait(),
 *     prism_execute().
 *
 *  4. io_uring (liburing-prism.a, uses liburing): a struct prism_ring
 *     queues many chains as IORING_OP_SENDMSG, submits them with one
 *     io_uring_submit() and collects the completions with a multishot RECV
 *     over a ring of provided buffers (or plain RECVs when that is not
 *     available).
 *
 * Functions returning int return 0 or a count on success and a negative
 * errno value on failure; they do not rely on errno.
 *
 * Reference documentation: the man pages in man/ (liburing-prism(7) for
 * the concepts, one section 3 page per group of functions).
 *
 * Include this header only; it includes <liburing-prism/chain.h> (layer 1).
 */
#ifndef LIBURING_PRISM_H
#define LIBURING_PRISM_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
/* __kernel_sa_family_t (older copies of linux/prism.h lacked it) */
#include <linux/socket.h>
#include <linux/prism.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Layer 1, the chain builder: <liburing-prism/chain.h>. */
#define LIBURING_PRISM_INSIDE
#include <liburing-prism/chain.h>
#undef LIBURING_PRISM_INSIDE

/* ------------------------------------------------------------------------
 * Completion parsing.  msg->len must have been checked against the bytes
 * received (prism_msg_check()); the accessors only trust msg->len.
 */

/*
 * Validate n received bytes at buf as one message.  Returns 0, -EMSGSIZE
 * when msg->len says more than n bytes (truncated) or -EPROTO when the
 * message is malformed.
 */
static inline int prism_msg_check(const void *buf, size_t n)
{
	const struct prism_msg *m = (const struct prism_msg *)buf;
	size_t need;

	if (n < sizeof(*m))
		return -EPROTO;
	if (m->len < sizeof(*m))
		return -EPROTO;
	if (m->len > n)
		return -EMSGSIZE;
	if (m->kind == PRISM_MSG_COMPLETION) {
		need = sizeof(*m) + (size_t)m->nops * sizeof(m->res[0]);
		if (need > m->len || m->nops > PRISM_MAX_CHAIN)
			return -EPROTO;
	} else if (m->kind != PRISM_MSG_SEND) {
		return -EPROTO;
	}
	return 0;
}

/* Nonzero for a completion, 0 for a PRISM_MSG_SEND message. */
static inline int prism_msg_is_completion(const struct prism_msg *m)
{
	return m->kind == PRISM_MSG_COMPLETION;
}

/* Result of op i of a completion, NULL if there is none. */
static inline const struct prism_op_result *prism_msg_result(const struct prism_msg *m,
							     unsigned int i)
{
	if (m->kind != PRISM_MSG_COMPLETION || i >= m->nops ||
	    sizeof(*m) + (size_t)(i + 1) * sizeof(m->res[0]) > m->len)
		return NULL;
	return &m->res[i];
}

/* Status of op i, or -1 when the completion has no result i. */
static inline int prism_msg_op_status(const struct prism_msg *m, unsigned int i)
{
	const struct prism_op_result *r = prism_msg_result(m, i);

	return r ? r->status : -1;
}

/*
 * Output of op i (its length in *len), NULL when the op returned nothing
 * or the result points outside the message.
 */
static inline const void *prism_msg_data(const struct prism_msg *m,
					 unsigned int i, __u32 *len)
{
	const struct prism_op_result *r = prism_msg_result(m, i);
	size_t start;

	if (len)
		*len = 0;
	if (!r || !r->len)
		return NULL;
	start = sizeof(*m) + (size_t)m->nops * sizeof(m->res[0]);
	if (r->offset < start || r->offset > m->len ||
	    r->len > m->len - r->offset)
		return NULL;
	if (len)
		*len = r->len;
	return (const unsigned char *)m + r->offset;
}

/*
 * Output of op i of a completion whose chain had an output buffer
 * (prism_chain_set_outbuf()): its place in outbuf (outbuf_len bytes, as
 * given to the chain), NULL when the op returned nothing or the result
 * points outside outbuf.
 */
static inline const void *prism_msg_outbuf_data(const struct prism_msg *m,
						unsigned int i,
						const void *outbuf,
						size_t outbuf_len, __u32 *len)
{
	const struct prism_op_result *r = prism_msg_result(m, i);

	if (len)
		*len = 0;
	if (!r || !r->len || !outbuf || r->offset > outbuf_len ||
	    r->len > outbuf_len - r->offset)
		return NULL;
	if (len)
		*len = r->len;
	return (const unsigned char *)outbuf + r->offset;
}

/* 8-byte little-endian output of op i (ALLOC address, 8-byte CAS/READ). */
static inline int prism_msg_u64(const struct prism_msg *m, unsigned int i,
				__u64 *val)
{
	__u32 len;
	const void *p = prism_msg_data(m, i, &len);

	if (!p || len != 8)
		return -ENODATA;
	*val = prism_get_le64(p);
	return 0;
}

/* Data of a PRISM_MSG_SEND message. */
static inline const void *prism_msg_send_data(const struct prism_msg *m,
					      __u32 *len)
{
	if (m->kind != PRISM_MSG_SEND || m->len < sizeof(*m)) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = m->len - (__u32)sizeof(*m);
	return (const unsigned char *)m + sizeof(*m);
}

/* ------------------------------------------------------------------------
 * Sockets (libprism.a)
 */

/* Family number of the loaded module (sysfs), else PRISM_DEFAULT_FAMILY. */
int prism_family(void);

/* Name of a PRISM_S_* status ("OK", "TIMEOUT", ...). */
const char *prism_status_str(int status);

/* "aa:bb:cc:dd:ee:ff" <-> bytes; buf needs 18 bytes. */
int prism_parse_mac(const char *s, __u8 mac[6]);
char *prism_format_mac(const __u8 mac[6], char *buf);

/* Destination address (mac may point into *sa). */
static inline void prism_addr_init(struct sockaddr_prism *sa,
				   const __u8 mac[6], __u32 ep)
{
	__u8 m[6] = { 0 };

	if (mac)
		memcpy(m, mac, 6);
	memset(sa, 0, sizeof(*sa));
	sa->sprism_family = (__kernel_sa_family_t)prism_family();
	sa->sprism_ep = ep;
	memcpy(sa->sprism_mac, m, 6);
}

/*
 * Either kind of address (prism(7), "UDP"): the calls below take a
 * struct sockaddr_prism * and read sprism_kind to tell a struct
 * sockaddr_prism_udp; where they write an address (prism_local_addr(),
 * prism_wait_from()), the buffer must have room for the socket's kind, as
 * this union has.
 */
union prism_sockaddr {
	struct sockaddr_prism		eth;
	struct sockaddr_prism_udp	udp;
};

/* Bytes of an address, by its kind. */
static inline unsigned int prism_addr_len(const struct sockaddr_prism *sa)
{
	return sa->sprism_kind == PRISM_ADDR_UDP ?
	       (unsigned int)sizeof(struct sockaddr_prism_udp) :
	       (unsigned int)sizeof(struct sockaddr_prism);
}

/*
 * A UDP address from text: "A.B.C.D", "IPV6" or "IPV6%IFNAME" (the
 * interface of a link-local address), port 0 for the module's udp_port.
 * Returns 0 or -EINVAL (-ENODEV: no such interface).
 */
int prism_addr_from_ip(struct sockaddr_prism_udp *sa, const char *ip,
		       unsigned int port, __u32 ep);
/*
 * "HOST[:PORT]/EP" with HOST an IPv4 address or a bracketed IPv6 one
 * ("[fd00::1]:4795/7", "[fe80::1%veth0]/7"), or "MAC/EP" for raw
 * Ethernet ("02:00:00:00:01:0a/7"; sa->udp is then sa->eth).  Returns 0
 * or -EINVAL.
 */
int prism_parse_addr(const char *s, union prism_sockaddr *sa);
/*
 * The text of an address, in the format prism_parse_addr() reads; buf
 * needs PRISM_ADDR_STRLEN bytes.
 */
#define PRISM_ADDR_STRLEN	80
char *prism_format_addr(const struct sockaddr_prism *sa, char *buf);
/*
 * 1 if a and b name the same endpoint: kind, endpoint id and MAC address,
 * or IP family and address (the UDP port and the interface of an IPv6
 * address are not compared: a destination's port 0 is the module's).
 */
int prism_addr_equal(const struct sockaddr_prism *a,
		     const struct sockaddr_prism *b);

/*
 * Open a socket bound to interface ifname (or ifindex when ifname is NULL)
 * and endpoint ep (0: any).  Returns the fd or -errno.
 */
int prism_open(const char *ifname, int ifindex, __u32 ep);
/*
 * Open a socket bound to UDP (prism(7), "UDP"): on local address ip
 * ("A.B.C.D" or an IPv6 address; NULL or "" for any address of both
 * families) and endpoint ep (0: any).  Returns the fd or -errno.
 */
int prism_open_udp(const char *ip, __u32 ep);
/*
 * Open a socket from a command-line word: "udp" (prism_open_udp(NULL, ep)),
 * "udp:IP" (prism_open_udp(IP, ep)), else an interface name
 * (prism_open(spec, 0, ep)).  Returns the fd or -errno.
 */
int prism_open_spec(const char *spec, __u32 ep);
/*
 * getsockname(): Ethernet: ifindex, ep and interface MAC; UDP: address
 * (any: ipfamily 0), port and ep.  sa needs room for the socket's kind.
 */
int prism_local_addr(int fd, struct sockaddr_prism *sa);

/*
 * Register [addr, addr + len) with PRISM_ACCESS_* rights (pinned until
 * deregistered or the socket is closed); *rkey gets its key.
 */
int prism_reg_mr(int fd, void *addr, size_t len, __u32 access, __u64 *rkey);
/* prism_reg_mr() with PRISM_MR_* flags (PRISM_MR_KEYED: a keyed region). */
int prism_reg_mr_flags(int fd, void *addr, size_t len, __u32 access,
		       __u32 flags, __u64 *rkey);
/*
 * Keyed regions (prism_rekey(3)).  Server: install the region key of keyed
 * region rkey (overlap_ms: keys derived from the previous one stay valid
 * that long), and derive the key of a client (its address as its
 * getsockname() gives it) with PRISM_ACCESS_* rights.  Client: attach the
 * key it was handed for region rkey at target (or detach it).
 */
int prism_rekey(int fd, __u64 rkey, const __u8 key[PRISM_KEY_SIZE],
		__u32 overlap_ms, __u32 *gen);
int prism_derive_key(int fd, __u64 rkey, const struct sockaddr_prism *client,
		     __u32 rights, __u8 kd[PRISM_KEY_SIZE], __u32 *gen);
int prism_attach_key(int fd, const struct sockaddr_prism *target, __u64 rkey,
		     __u32 rights, const __u8 kd[PRISM_KEY_SIZE]);
int prism_detach_key(int fd, const struct sockaddr_prism *target, __u64 rkey);
/* Deregister region rkey (-EBUSY while a free list lies in it). */
int prism_dereg_mr(int fd, __u64 rkey);
/* Create a free list of capacity buf_size-byte buffers in region rkey. */
int prism_fl_create(int fd, __u64 rkey, __u32 buf_size, __u32 capacity,
		    __u32 *id);
/* Post count buffer addresses to free list id (all or none). */
int prism_fl_post(int fd, __u32 id, const __u64 *addrs, __u32 count);
/* Destroy free list id; buffers still in it are forgotten. */
int prism_fl_destroy(int fd, __u32 id);
/*
 * Integer options at SOL_PRISM (PRISM_TIMEOUT_MS, PRISM_RETRIES, ...).
 * A socket that receives SEND messages from peers holding none of its
 * rkeys (an RPC server, a reply mailbox) must set PRISM_OPEN_SEND to 1:
 * by default SEND-only chains without a valid rkey of the target socket
 * are refused as NO_ENDPOINT.
 */
int prism_set_opt(int fd, int opt, int val);
int prism_get_opt(int fd, int opt, int *val);
/* prism_set_opt(fd, PRISM_TIMEOUT_MS, timeout_ms). */
int prism_set_timeout(int fd, int timeout_ms);
/* The socket's counters (PRISM_STATS). */
int prism_get_stats(int fd, struct prism_stats *st);

/* ------------------------------------------------------------------------
 * Blocking calls
 */

/* sendmsg() one chain to dst.  Returns 0 or -errno. */
int prism_submit(int fd, const struct sockaddr_prism *dst,
		 const struct prism_chain_buf *c);

/*
 * recvmsg() one message into buf; src (may be NULL) gets the sender of a
 * SEND message.  flags: e.g. MSG_DONTWAIT.  Returns its length, or -errno
 * (-EMSGSIZE when it did not fit, -EPROTO when malformed, -EINTR when a
 * signal interrupted the wait: not retried, so a handler installed
 * without SA_RESTART can stop a daemon blocked here).
 */
ssize_t prism_wait_from(int fd, void *buf, size_t len,
			struct sockaddr_prism *src, int flags);
/* prism_wait_from(fd, buf, len, NULL, 0): blocks until a message arrives. */
ssize_t prism_wait(int fd, void *buf, size_t len);

/*
 * Submit a chain and wait for its completion (matched by user_data);
 * messages received meanwhile that do not match are dropped.  Returns the
 * completion's length (the message is in out) or -errno; -EINTR when a
 * signal interrupted the wait (the chain stays in flight).
 */
ssize_t prism_execute(int fd, const struct sockaddr_prism *dst,
		      const struct prism_chain_buf *c, void *out, size_t out_len);

/* ------------------------------------------------------------------------
 * Busy polling (prism_busy_poll(3)): for latency-critical clients that
 * would rather burn a CPU than sleep, like RDMA programs polling their CQ.
 */

/*
 * SO_BUSY_POLL: a blocking receive on fd (and poll()/epoll) busy-polls the
 * device queue (NAPI) the socket's last completion came from, for up to
 * usec microseconds, before it sleeps; 0 turns it off.  Only devices with
 * NAPI are polled (virtio-net; veth only with GRO or XDP on).  Raising it
 * above net.core.busy_read needs CAP_NET_ADMIN: -EPERM otherwise.
 */
int prism_busy_poll(int fd, unsigned int usec);

/*
 * prism_wait_from() that spins: non-blocking receives in a loop for up to
 * spin_us microseconds, then one blocking receive (flags as for
 * prism_wait_from(); with MSG_DONTWAIT it spins and then returns -EAGAIN).
 * spin_us 0: the same as prism_wait_from().
 */
ssize_t prism_wait_spin(int fd, void *buf, size_t len,
			struct sockaddr_prism *src, int flags,
			unsigned int spin_us);

/* prism_execute() whose wait spins as prism_wait_spin() does. */
ssize_t prism_execute_spin(int fd, const struct sockaddr_prism *dst,
			   const struct prism_chain_buf *c, void *out,
			   size_t out_len, unsigned int spin_us);

/* ------------------------------------------------------------------------
 * io_uring
 */
struct io_uring;
struct prism_ring_slot;

/* One event reaped from a prism_ring. */
struct prism_ring_cqe {
	/*
	 * 0: msg holds a message (a completion with user_data, or a SEND).
	 * <0: -errno; msg is NULL.  With user_data != 0 the SENDMSG of that
	 * chain failed (the chain will not complete); with user_data == 0
	 * the receive failed.
	 */
	int			res;
	__u32			len;		/* bytes at msg */
	__u64			user_data;
	const struct prism_msg	*msg;		/* valid until the next reap */
};

/* prism_ring_init() flags */
#define PRISM_RING_NO_MULTISHOT	(1U << 0)	/* plain RECVs, no buffer ring */

struct prism_ring {
	/* Private: use the functions below. */
	struct io_uring		*uring;
	int			fd;
	unsigned int		flags;
	int			multishot;	/* 1: multishot RECV + buffer ring */
	int			recv_armed;	/* RECVs outstanding */
	int			need_arm;
	void			*br;		/* struct io_uring_buf_ring */
	size_t			br_size;
	int			bgid;
	unsigned char		*bufs;
	unsigned int		nbufs;
	unsigned int		buf_size;
	unsigned short		*held;		/* buffers lent to the caller */
	unsigned int		nheld;
	struct prism_ring_slot	*slots;
	unsigned int		nslots;
	int			free_slot;
	unsigned int		sends_inflight;	/* SENDMSGs without CQE */
	unsigned int		chains_inflight;/* chains without completion */
	unsigned int		queued;		/* SQEs not yet submitted */
	unsigned int		rearms;		/* multishot RECV re-armed (buffers ran out) */
	unsigned int		spin_us;	/* prism_ring_busy_poll() */
	unsigned long long	spin_reaps;	/* waits ended while spinning */
	unsigned long long	sleep_reaps;	/* waits that entered io_uring_enter() */
};

/*
 * Set up an io_uring of entries SQEs for socket fd; at most entries chains
 * can be queued but not yet sent.  nbufs receive buffers of buf_size bytes
 * (0: defaults 2 * entries, 4096).  flags: PRISM_RING_*.
 */
int prism_ring_init(struct prism_ring *r, int fd, unsigned int entries,
		    unsigned int nbufs, unsigned int buf_size, unsigned int flags);
/* Tear down the ring and free its memory; fd stays open. */
void prism_ring_exit(struct prism_ring *r);
/* 1 when completions use multishot RECV with a buffer ring. */
int prism_ring_multishot(const struct prism_ring *r);

/*
 * Queue chain c (copied) for dst as an IORING_OP_SENDMSG; nothing is sent
 * before prism_ring_submit().  Returns 0, -EBUSY when entries chains are
 * already queued or being sent (reap first), or the chain's error.
 */
int prism_ring_queue(struct prism_ring *r, const struct sockaddr_prism *dst,
		     const struct prism_chain_buf *c);
/* io_uring_submit() of everything queued.  Returns SQEs submitted or -errno. */
int prism_ring_submit(struct prism_ring *r);
/* Chains queued or sent whose completion has not been reaped. */
unsigned int prism_ring_inflight(const struct prism_ring *r);

/*
 * Collect up to max events into out, waiting (submitting anything queued)
 * until at least min_events arrived or timeout_ms passed (-1: no limit).
 * Messages stay valid until the next reap call.  Returns the number of
 * events (possibly fewer than min_events on timeout or signal) or -errno.
 * A signal ends the wait: events that arrived are returned, -EINTR only
 * when there are none (io_uring reports it even with SA_RESTART).
 */
int prism_ring_reap(struct prism_ring *r, struct prism_ring_cqe *out,
		    unsigned int max, unsigned int min_events, int timeout_ms);

/*
 * Busy-polling reaps: a reap that has to wait first spins on the
 * completion queue (no system call) for up to spin_us microseconds, and
 * only then sleeps in io_uring_enter(); 0 (the default) turns it off.
 */
void prism_ring_busy_poll(struct prism_ring *r, unsigned int spin_us);

/* Waits of the reaps: ended while spinning, and gone to sleep. */
struct prism_ring_spin_stats {
	unsigned long long	spun;
	unsigned long long	slept;
};
void prism_ring_spin_stats(const struct prism_ring *r,
			   struct prism_ring_spin_stats *st);

/* Event callback of prism_ring_run(); must not reap on the same ring. */
typedef void (*prism_ring_cb)(void *arg, const struct prism_ring_cqe *cqe);
/* Same, handing each event to cb; returns the number of events or -errno. */
int prism_ring_run(struct prism_ring *r, prism_ring_cb cb, void *arg,
		   unsigned int min_events, int timeout_ms);

#ifdef __cplusplus
}
#endif

#endif /* LIBURING_PRISM_H */
