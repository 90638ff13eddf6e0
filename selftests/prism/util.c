// SPDX-License-Identifier: GPL-2.0
/*
 * PRISM selftests: utilities shared by the subcommands.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "st.h"

int st_failed;

void st_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void st_fail_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	st_failed = 1;
	printf("# FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

const char *errno_name(int e)
{
	static char buf[32];

	switch (e) {
#define E(x) case x: return #x
	E(EPERM); E(ENOENT); E(EINTR); E(EIO); E(ENXIO); E(E2BIG);
	E(EBADF); E(EAGAIN); E(ENOMEM); E(EACCES); E(EFAULT); E(EBUSY);
	E(EEXIST); E(ENODEV); E(EINVAL); E(ENOSPC); E(ENOTTY); E(ERANGE);
	E(ENODATA); E(EPROTO); E(EMSGSIZE); E(EPROTOTYPE); E(ENOPROTOOPT);
	E(EPROTONOSUPPORT); E(ESOCKTNOSUPPORT); E(EOPNOTSUPP);
	E(EAFNOSUPPORT); E(EADDRINUSE); E(EADDRNOTAVAIL); E(ENETDOWN);
	E(ENOBUFS); E(ENOTCONN); E(EDESTADDRREQ); E(ETIMEDOUT); E(EISCONN);
	E(ENETUNREACH); E(ESRCH); E(ECANCELED);
#undef E
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

void st_mem_diff(const char *file, int line, const char *what,
		 const void *got, const void *want, size_t n)
{
	const unsigned char *g = got, *w = want;
	size_t i;

	for (i = 0; i < n && g[i] == w[i]; i++)
		;
	st_fail_at(file, line, "%s: %zu bytes differ from offset %zu (got 0x%02x, want 0x%02x)",
		   what, n, i, g[i], w[i]);
}

long long now_ms(void)
{
	return (long long)(pu_now_ns() / 1000000);
}

int srv_info_save(const char *path, const struct srv_info *s)
{
	char text[2048], mac[18];

	snprintf(text, sizeof(text),
		 "pid %d\nmac %s\nep %u\nifindex %d\naddr %s\n"
		 "rw_addr 0x%llx\nrw_rkey 0x%llx\n"
		 "ro_addr 0x%llx\nro_rkey 0x%llx\n"
		 "na_addr 0x%llx\nna_rkey 0x%llx\n"
		 "fl_main %u\nfl_small %u\n"
		 "big_addr 0x%llx\nbig_len %llu\nbig_rkey 0x%llx\n",
		 (int)s->pid, prism_format_mac(s->mac, mac), s->ep, s->ifindex,
		 s->addr[0] ? s->addr : "-",
		 (unsigned long long)s->rw_addr, (unsigned long long)s->rw_rkey,
		 (unsigned long long)s->ro_addr, (unsigned long long)s->ro_rkey,
		 (unsigned long long)s->na_addr, (unsigned long long)s->na_rkey,
		 s->fl_main, s->fl_small,
		 (unsigned long long)s->big_addr, (unsigned long long)s->big_len,
		 (unsigned long long)s->big_rkey);
	return pu_write_atomic(path, text);
}

int srv_info_load(const char *path, struct srv_info *s)
{
	char key[64], val[PRISM_ADDR_STRLEN];
	FILE *f = fopen(path, "r");

	memset(s, 0, sizeof(*s));
	if (!f)
		return -errno;
	while (fscanf(f, "%63s %79s", key, val) == 2) {
		unsigned long long v = strtoull(val, NULL, 0);

		if (!strcmp(key, "pid"))
			s->pid = (pid_t)v;
		else if (!strcmp(key, "mac"))
			prism_parse_mac(val, s->mac);
		else if (!strcmp(key, "ep"))
			s->ep = (__u32)v;
		else if (!strcmp(key, "addr"))
			snprintf(s->addr, sizeof(s->addr), "%s", val);
		else if (!strcmp(key, "ifindex"))
			s->ifindex = (int)v;
		else if (!strcmp(key, "rw_addr"))
			s->rw_addr = v;
		else if (!strcmp(key, "rw_rkey"))
			s->rw_rkey = v;
		else if (!strcmp(key, "ro_addr"))
			s->ro_addr = v;
		else if (!strcmp(key, "ro_rkey"))
			s->ro_rkey = v;
		else if (!strcmp(key, "na_addr"))
			s->na_addr = v;
		else if (!strcmp(key, "na_rkey"))
			s->na_rkey = v;
		else if (!strcmp(key, "fl_main"))
			s->fl_main = (__u32)v;
		else if (!strcmp(key, "fl_small"))
			s->fl_small = (__u32)v;
		else if (!strcmp(key, "big_addr"))
			s->big_addr = v;
		else if (!strcmp(key, "big_len"))
			s->big_len = v;
		else if (!strcmp(key, "big_rkey"))
			s->big_rkey = v;
	}
	fclose(f);
	return s->pid && s->ep ? 0 : -EINVAL;
}

int peek(pid_t pid, __u64 addr, void *buf, size_t len)
{
	struct iovec l = { .iov_base = buf, .iov_len = len };
	struct iovec r = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int poke(pid_t pid, __u64 addr, const void *buf, size_t len)
{
	struct iovec l = { .iov_base = (void *)buf, .iov_len = len };
	struct iovec r = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n = process_vm_writev(pid, &l, 1, &r, 1, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

long long proc_cpu_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* Fields after "(comm)": state is field 3, utime 14, stime 15. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -1;
	return (long long)(ut + st);
}

long long proc_ctxt_switches(pid_t pid)
{
	char path[64], line[256];
	long long v, total = 0;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "voluntary_ctxt_switches: %lld", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %lld", &v) == 1) {
			total += v;
			found++;
		}
	}
	fclose(f);
	return found == 2 ? total : -1;
}

int st_dest(const struct srv_info *s, union prism_sockaddr *dst)
{
	if (s->addr[0] && strcmp(s->addr, "-"))
		return prism_parse_addr(s->addr, dst);
	prism_addr_init(&dst->eth, s->mac, s->ep);
	return 0;
}

struct open_args {
	const char	*ifname;
	__u32		ep;
};

static int open_spec(const void *arg)
{
	const struct open_args *a = arg;

	return prism_open_spec(a->ifname, a->ep);
}

static int open_capture(const void *arg)
{
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
			htons(ETH_P_ALL));

	(void)arg;
	return fd < 0 ? -errno : fd;
}

int open_in_netns(const char *ns, const char *ifname, __u32 ep)
{
	struct open_args a = { .ifname = ifname, .ep = ep };

	return pu_in_netns(ns, open_spec, &a);
}

int capture_in_netns(const char *ns)
{
	return pu_in_netns(ns, open_capture, NULL);
}

/* ------------------------------------------------------------------------
 * Client helpers
 */
void cl_chain(struct client *c, struct prism_chain_buf *ch)
{
	prism_chain_init(ch, c->cbuf, sizeof(c->cbuf), ++c->next_ud);
}

const struct prism_msg *cl_exec(struct client *c, struct prism_chain_buf *ch,
				bool want_ok)
{
	return cl_exec_at(c, &c->dst.eth, ch, want_ok);
}

const struct prism_msg *cl_exec_at(struct client *c,
				   const struct sockaddr_prism *dst,
				   struct prism_chain_buf *ch, bool want_ok)
{
	const struct prism_msg *m = cl_msg(c);
	ssize_t n;

	if (prism_chain_error(ch)) {
		FAIL("building the chain: %s", errno_name(-prism_chain_error(ch)));
		return NULL;
	}
	n = prism_execute(c->fd, dst, ch, c->out, sizeof(c->out));
	if (n < 0) {
		FAIL("prism_execute: %s", errno_name((int)-n));
		return NULL;
	}
	if (m->nops != prism_chain_nops(ch)) {
		FAIL("completion has %u results for %u ops", m->nops,
		     prism_chain_nops(ch));
		return NULL;
	}
	if (want_ok && m->status != PRISM_S_OK) {
		FAIL("chain status %s, expected OK", prism_status_str(m->status));
		return NULL;
	}
	return m;
}

const struct prism_msg *cl_exec_alloc(struct client *c,
				      struct prism_chain_buf *ch,
				      unsigned int alloc_idx)
{
	long long end = now_ms() + 3000;
	const struct prism_msg *m;
	int tries = 0;

	for (;;) {
		m = cl_exec(c, ch, true);
		if (!m || prism_msg_op_status(m, alloc_idx) != PRISM_S_NO_BUFFER ||
		    now_ms() > end)
			break;
		tries++;
		usleep(2000);
	}
	if (tries)
		st_diag("ALLOC returned NO_BUFFER %d times before the posted buffers became ready",
			tries);
	return m;
}

void cl_expect_op(const struct prism_msg *m, unsigned int i, int status,
		  const void *want, __u32 len, const char *what)
{
	const void *p;
	__u32 got_len;

	if (!m)
		return;
	if (prism_msg_op_status(m, i) != status) {
		FAIL("%s: op %u status %s, expected %s", what, i,
		     prism_status_str(prism_msg_op_status(m, i)),
		     prism_status_str(status));
		return;
	}
	if (!want)
		return;
	p = prism_msg_data(m, i, &got_len);
	if (got_len != len) {
		FAIL("%s: op %u returned %u bytes, expected %u", what, i,
		     got_len, len);
		return;
	}
	if (len)
		EXPECT_MEM(p, want, len, what);
}

int cl_read_u64(struct client *c, __u64 addr, __u64 *v)
{
	struct prism_chain_buf ch;
	const struct prism_msg *m;

	cl_chain(c, &ch);
	prism_prep_read(&ch, c->s.rw_rkey, addr, 8);
	m = cl_exec(c, &ch, true);
	if (!m || prism_msg_u64(m, 0, v))
		return -1;
	return 0;
}
