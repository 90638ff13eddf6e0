// SPDX-License-Identifier: MIT
/*
 * liburing-prism: sockets, ioctls and blocking submission.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "liburing-prism.h"
#include "internal.h"

#define PRISM_FAMILY_PARAM "/sys/module/prism/parameters/family"

int prism_family(void)
{
	static int cached;
	char buf[32];
	ssize_t n;
	long v;
	int fd;

	if (cached > 0)
		return cached;
	fd = open(PRISM_FAMILY_PARAM, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return PRISM_DEFAULT_FAMILY;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return PRISM_DEFAULT_FAMILY;
	buf[n] = '\0';
	v = strtol(buf, NULL, 10);
	if (v <= 0 || v >= 256)
		return PRISM_DEFAULT_FAMILY;
	/* Only cache once the module is loaded: it may be reloaded later. */
	cached = (int)v;
	return cached;
}

const char *prism_status_str(int status)
{
	static const char *const names[] = {
		[PRISM_S_OK] = "OK",
		[PRISM_S_CMP_FAILED] = "CMP_FAILED",
		[PRISM_S_SKIPPED] = "SKIPPED",
		[PRISM_S_NACK] = "NACK",
		[PRISM_S_TIMEOUT] = "TIMEOUT",
		[PRISM_S_ACCESS] = "ACCESS",
		[PRISM_S_AUTH] = "AUTH",
		[PRISM_S_NO_BUFFER] = "NO_BUFFER",
		[PRISM_S_INVALID] = "INVALID",
		[PRISM_S_NO_ENDPOINT] = "NO_ENDPOINT",
		[PRISM_S_RECV_FULL] = "RECV_FULL",
		[PRISM_S_TOO_BIG] = "TOO_BIG",
		[PRISM_S_NETDOWN] = "NETDOWN",
		[PRISM_S_ABORTED] = "ABORTED",
		[PRISM_S_AUTH_FAILED] = "AUTH_FAILED",
	};

	if (status < 0 || status > PRISM_S_MAX || !names[status])
		return "UNKNOWN";
	return names[status];
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int prism_parse_mac(const char *s, __u8 mac[6])
{
	int i, hi, lo;

	for (i = 0; i < 6; i++) {
		hi = hexval(s[0]);
		lo = hi < 0 ? -1 : hexval(s[1]);
		if (lo < 0)
			return -EINVAL;
		mac[i] = (__u8)(hi << 4 | lo);
		s += 2;
		if (i < 5) {
			if (*s != ':' && *s != '-')
				return -EINVAL;
			s++;
		}
	}
	return *s ? -EINVAL : 0;
}

char *prism_format_mac(const __u8 mac[6], char *buf)
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x",
		 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	return buf;
}

int prism_open(const char *ifname, int ifindex, __u32 ep)
{
	struct sockaddr_prism sa;
	int fd, err;

	if (ifname) {
		ifindex = (int)if_nametoindex(ifname);
		if (!ifindex)
			return -ENODEV;
	}
	fd = socket(prism_family(), SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	prism_addr_init(&sa, NULL, ep);
	sa.sprism_ifindex = ifindex;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int prism_local_addr(int fd, struct sockaddr_prism *sa)
{
	union prism_sockaddr a;
	socklen_t len = sizeof(a);

	memset(&a, 0, sizeof(a));
	if (getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		return -errno;
	if (len < sizeof(a.eth) || len > sizeof(a) ||
	    len != prism_addr_len(&a.eth))
		return -EPROTO;
	/* The caller has room for the socket's kind. */
	memcpy(sa, &a, len);
	return 0;
}

static int do_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

int prism_reg_mr(int fd, void *addr, size_t len, __u32 access, __u64 *rkey)
{
	struct prism_reg_mr mr = {
		.addr = (__u64)(uintptr_t)addr,
		.len = len,
		.access = access,
	};
	int err = do_ioctl(fd, PRISM_IOC_REG_MR, &mr);

	if (!err && rkey)
		*rkey = mr.rkey;
	return err;
}

int prism_dereg_mr(int fd, __u64 rkey)
{
	return do_ioctl(fd, PRISM_IOC_DEREG_MR, &rkey);
}

int prism_fl_create(int fd, __u64 rkey, __u32 buf_size, __u32 capacity,
		    __u32 *id)
{
	struct prism_fl_create fc = {
		.rkey = rkey,
		.buf_size = buf_size,
		.capacity = capacity,
	};
	int err = do_ioctl(fd, PRISM_IOC_FL_CREATE, &fc);

	if (!err && id)
		*id = fc.id;
	return err;
}

int prism_fl_post(int fd, __u32 id, const __u64 *addrs, __u32 count)
{
	struct prism_fl_post fp = {
		.id = id,
		.count = count,
		.addrs = (__u64)(uintptr_t)addrs,
	};

	return do_ioctl(fd, PRISM_IOC_FL_POST, &fp);
}

int prism_fl_destroy(int fd, __u32 id)
{
	return do_ioctl(fd, PRISM_IOC_FL_DESTROY, &id);
}

int prism_set_opt(int fd, int opt, int val)
{
	if (setsockopt(fd, SOL_PRISM, opt, &val, sizeof(val)) < 0)
		return -errno;
	return 0;
}

int prism_get_opt(int fd, int opt, int *val)
{
	socklen_t len = sizeof(*val);

	if (getsockopt(fd, SOL_PRISM, opt, val, &len) < 0)
		return -errno;
	return len == sizeof(*val) ? 0 : -EPROTO;
}

int prism_set_timeout(int fd, int timeout_ms)
{
	return prism_set_opt(fd, PRISM_TIMEOUT_MS, timeout_ms);
}

int prism_get_stats(int fd, struct prism_stats *st)
{
	socklen_t len = sizeof(*st);

	memset(st, 0, sizeof(*st));
	if (getsockopt(fd, SOL_PRISM, PRISM_STATS, st, &len) < 0)
		return -errno;
	return 0;
}

int prism_submit(int fd, const struct sockaddr_prism *dst,
		 const struct prism_chain_buf *c)
{
	ssize_t len = prism_chain_len(c);
	union prism__cmsg_buf cb;
	struct iovec iov;
	struct msghdr mh;
	ssize_t n;

	if (len < 0)
		return (int)len;
	iov.iov_base = c->buf;
	iov.iov_len = (size_t)len;
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = (void *)dst;
	mh.msg_namelen = dst ? prism_addr_len(dst) : 0;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	prism__outbuf_cmsg(&mh, &cb, c);
	do {
		n = sendmsg(fd, &mh, 0);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n != len)
		return -EPROTO;
	return 0;
}

static ssize_t recv_raw(int fd, void *buf, size_t len,
			struct sockaddr_prism *src, int flags, int *trunc)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh;
	ssize_t n;

	memset(&mh, 0, sizeof(mh));
	if (src) {
		memset(src, 0, sizeof(*src));
		mh.msg_name = src;
		/* The caller has room for the socket's kind (the kernel's). */
		mh.msg_namelen = sizeof(union prism_sockaddr);
	}
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	/*
	 * No retry on EINTR: a signal that interrupts the wait (a handler
	 * without SA_RESTART) must reach the caller, e.g. to stop a daemon.
	 */
	n = recvmsg(fd, &mh, flags);
	if (n < 0)
		return -errno;
	*trunc = !!(mh.msg_flags & MSG_TRUNC);
	return n;
}

/*
 * recv_raw() that first spins for up to spin_us microseconds with
 * non-blocking receives; then one receive as flags ask.
 */
static ssize_t recv_spin(int fd, void *buf, size_t len,
			 struct sockaddr_prism *src, int flags, int *trunc,
			 unsigned int spin_us)
{
	long long end;
	ssize_t n;

	if (!spin_us)
		return recv_raw(fd, buf, len, src, flags, trunc);
	end = prism__now_ns() + (long long)spin_us * 1000;
	do {
		n = recv_raw(fd, buf, len, src, flags | MSG_DONTWAIT, trunc);
		if (n != -EAGAIN)
			return n;
	} while (prism__now_ns() < end);
	if (flags & MSG_DONTWAIT)
		return -EAGAIN;
	return recv_raw(fd, buf, len, src, flags, trunc);
}

ssize_t prism_wait_spin(int fd, void *buf, size_t len,
			struct sockaddr_prism *src, int flags,
			unsigned int spin_us)
{
	int trunc, err;
	ssize_t n;

	n = recv_spin(fd, buf, len, src, flags, &trunc, spin_us);
	if (n < 0)
		return n;
	if (trunc)
		return -EMSGSIZE;
	err = prism_msg_check(buf, (size_t)n);
	if (err)
		return err;
	return n;
}

ssize_t prism_wait_from(int fd, void *buf, size_t len,
			struct sockaddr_prism *src, int flags)
{
	return prism_wait_spin(fd, buf, len, src, flags, 0);
}

ssize_t prism_wait(int fd, void *buf, size_t len)
{
	return prism_wait_from(fd, buf, len, NULL, 0);
}

ssize_t prism_execute_spin(int fd, const struct sockaddr_prism *dst,
			   const struct prism_chain_buf *c, void *out,
			   size_t out_len, unsigned int spin_us)
{
	const struct prism_msg *m = out;
	int trunc, err;
	__u64 ud;
	ssize_t n;

	if (out_len < sizeof(*m))
		return -EINVAL;
	err = prism_submit(fd, dst, c);
	if (err)
		return err;
	ud = prism_chain_hdr(c)->user_data;
	for (;;) {
		/*
		 * -EINTR leaves the chain in flight: its completion is
		 * received by a later wait (a later prism_execute() drops it).
		 */
		n = recv_spin(fd, out, out_len, NULL, 0, &trunc, spin_us);
		if (n < 0)
			return n;
		if ((size_t)n < sizeof(*m) || m->kind != PRISM_MSG_COMPLETION ||
		    m->user_data != ud)
			continue;	/* not ours: dropped */
		if (trunc)
			return -EMSGSIZE;
		err = prism_msg_check(out, (size_t)n);
		return err ? err : n;
	}
}

ssize_t prism_execute(int fd, const struct sockaddr_prism *dst,
		      const struct prism_chain_buf *c, void *out, size_t out_len)
{
	return prism_execute_spin(fd, dst, c, out, out_len, 0);
}

int prism_busy_poll(int fd, unsigned int usec)
{
	int v = usec > 0x7fffffffu ? 0x7fffffff : (int)usec;

	if (setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &v, sizeof(v)) < 0)
		return -errno;
	return 0;
}
