// SPDX-License-Identifier: MIT
/*
 * bench_cpu's target: the PRISM server (the module serves its region),
 * the UDP request/response servers doing the same work in user space, and
 * the agent that snapshots the target CPU's counters for the client.
 * Usage and method: bench_cpu.c.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "bench_cpu.h"

/* ---- the region ---- */

static void fill_region(unsigned char *mem)
{
	memset(mem, 0, REGION_LEN);
	fill_pointed_values(mem, NVALS, VAL_OFF, 8);
}

int cpu_prism_server(int argc, char **argv)
{
	return serve_region(argc, argv, REGION_LEN,
			    PRISM_ACCESS_REMOTE_READ | PRISM_ACCESS_REMOTE_WRITE |
			    PRISM_ACCESS_REMOTE_ATOMIC, fill_region);
}

/* The address of the 8 bytes at offset off, or NULL outside the buffer. */
static unsigned char *buf_at(unsigned char *mem, uint64_t off)
{
	return off <= REGION_LEN - 8 ? mem + off : NULL;
}

/* The 8 bytes at the pointer stored at off, checked like the module does. */
static unsigned char *buf_ptr_at(unsigned char *mem, uint64_t off)
{
	unsigned char *p = buf_at(mem, off);
	uint64_t a;

	if (!p)
		return NULL;
	a = pu_get_le64(p);
	if (a < (uintptr_t)mem || a > (uintptr_t)mem + REGION_LEN - 8)
		return NULL;
	return (unsigned char *)(uintptr_t)a;
}

/* What the module does for one op, on the server's buffer. */
static int udp_op(unsigned char *mem, unsigned int op, const struct udp_req *q,
		  unsigned int i, struct udp_resp *r)
{
	unsigned char *p;
	uint64_t old;

	switch (op) {
	case OP_READ:
	case OP_IND:
		p = op == OP_READ ? buf_at(mem, q->a[i]) : buf_ptr_at(mem, q->a[i]);
		if (!p)
			return EINVAL;
		memcpy(&r->r[r->nres++], p, 8);
		return 0;
	case OP_CAS:
		p = buf_at(mem, q->a[i]);
		if (!p)
			return EINVAL;
		old = pu_get_le64(p);
		if (old == q->cmp)
			pu_put_le64(p, q->swap);
		pu_put_le64(&r->r[r->nres++], old);
		return 0;
	default:	/* WRITE */
		p = buf_at(mem, q->a[i]);
		if (!p)
			return EINVAL;
		pu_put_le64(p, q->val);
		return 0;
	}
}

/* Serve request q into r; chain4 stops at its first failing op. */
static void udp_serve(unsigned char *mem, const struct udp_req *q,
		      struct udp_resp *r)
{
	static const unsigned int chain[4] = { OP_READ, OP_CAS, OP_IND, NOPK };
	unsigned int i;

	r->tag = q->tag;
	r->nres = 0;
	r->status = 0;
	if (q->op != OP_CHAIN) {
		r->status = q->op < NOPK ? (uint32_t)udp_op(mem, q->op, q, 0, r) : EINVAL;
		return;
	}
	for (i = 0; i < 4 && !r->status; i++)
		r->status = (uint32_t)udp_op(mem, chain[i], q, i, r);
}

static int udp_bind(const char *ip, const char *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	sa.sin_port = htons((unsigned short)atoi(port));
	if (fd < 0 || inet_pton(AF_INET, ip, &sa.sin_addr) != 1 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("udp bind", errno);
	return fd;
}

/*
 * "udp-server IP PORT BATCH READY": one thread; BATCH 1 is recvfrom and
 * sendto per request, more is recvmmsg (MSG_WAITFORONE) and sendmmsg of
 * up to BATCH requests per call.
 */
int cpu_udp_server(int argc, char **argv)
{
	static struct udp_req req[MMSG_BATCH];
	static struct udp_resp resp[MMSG_BATCH];
	struct sockaddr_in from[MMSG_BATCH];
	struct mmsghdr rm[MMSG_BATCH], sm[MMSG_BATCH];
	struct iovec riov[MMSG_BATCH], siov[MMSG_BATCH];
	unsigned char *mem;
	unsigned int batch, i, ns;
	socklen_t fl;
	ssize_t n;
	int fd, got;

	if (argc < 5)
		die("usage: udp-server IP PORT BATCH READY", EINVAL);
	batch = (unsigned int)atoi(argv[3]);
	if (batch < 1 || batch > MMSG_BATCH)
		die("BATCH: 1..16", EINVAL);
	mem = aligned_alloc(64, REGION_LEN);
	if (!mem)
		die("aligned_alloc", ENOMEM);
	fill_region(mem);
	fd = udp_bind(argv[1], argv[2]);
	if (pu_write_atomic(argv[4], "ready\n"))
		die("ready file", errno);
	if (batch == 1) {
		for (;;) {
			fl = sizeof(from[0]);
			n = recvfrom(fd, &req[0], sizeof(req[0]), 0,
				     (struct sockaddr *)&from[0], &fl);
			if (n != sizeof(req[0]))
				continue;
			udp_serve(mem, &req[0], &resp[0]);
			sendto(fd, &resp[0], sizeof(resp[0]), 0,
			       (struct sockaddr *)&from[0], fl);
		}
	}
	memset(rm, 0, sizeof(rm));
	memset(sm, 0, sizeof(sm));
	for (i = 0; i < batch; i++) {
		riov[i] = (struct iovec){ &req[i], sizeof(req[i]) };
		siov[i] = (struct iovec){ &resp[i], sizeof(resp[i]) };
	}
	for (;;) {
		for (i = 0; i < batch; i++) {
			rm[i].msg_hdr.msg_iov = &riov[i];
			rm[i].msg_hdr.msg_iovlen = 1;
			rm[i].msg_hdr.msg_name = &from[i];
			rm[i].msg_hdr.msg_namelen = sizeof(from[i]);
		}
		got = recvmmsg(fd, rm, batch, MSG_WAITFORONE, NULL);
		if (got <= 0)
			continue;
		for (i = 0, ns = 0; i < (unsigned int)got; i++) {
			if (rm[i].msg_len != sizeof(req[i]))
				continue;
			udp_serve(mem, &req[i], &resp[ns]);
			sm[ns].msg_hdr.msg_iov = &siov[ns];
			sm[ns].msg_hdr.msg_iovlen = 1;
			sm[ns].msg_hdr.msg_name = &from[i];
			sm[ns].msg_hdr.msg_namelen = rm[i].msg_hdr.msg_namelen;
			ns++;
		}
		if (ns)
			sendmmsg(fd, sm, ns, 0);
	}
	return 0;
}

/* ---- the agent: snapshots of the target CPU's counters ---- */

/* The measured CPU's line ("cpu" or "cpuN"), intr, ctxt, softirq of /proc/stat. */
static int read_proc_stat(const char *name, struct snap *s)
{
	unsigned long long v[10];
	char line[4096], key[32];
	FILE *f = fopen("/proc/stat", "r");
	int found = 0, i, n;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%31s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			   key, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7], &v[8], &v[9]);
		if (n >= 9 && !strcmp(key, name)) {
			for (i = 0; i < 8; i++)
				s->c[C_USER + i] = v[i];
			found = 1;
		} else if (n >= 2 && !strcmp(key, "intr")) {
			s->c[C_INTR] = v[0];
		} else if (n >= 2 && !strcmp(key, "ctxt")) {
			s->c[C_CTXT] = v[0];
		} else if (n >= 6 && !strcmp(key, "softirq")) {
			/* total HI TIMER NET_TX NET_RX ... */
			s->c[C_NET_TX] = v[3];
			s->c[C_NET_RX] = v[4];
		}
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

/* chains_served, ops_served, duplicates of this netns (0 without PRISM). */
static void read_prism_counters(struct snap *s)
{
	char key[64];
	unsigned long long v;
	FILE *f = fopen("/proc/net/prism", "r");

	if (!f)
		return;
	while (fscanf(f, "%63s %llu", key, &v) == 2) {
		if (!strcmp(key, "chains_served"))
			s->c[C_SERVED] = v;
		else if (!strcmp(key, "ops_served"))
			s->c[C_OPS] = v;
		else if (!strcmp(key, "duplicates"))
			s->c[C_DUPS] = v;
	}
	fclose(f);
}

/*
 * "agent IP PORT CPU READY": answers "snap SEQ" with "SEQ" and the NCOUNT
 * counters of a snapshot; "quit" (or 15 min without a word) ends it.
 * Blocked in recvfrom between the two snapshots of a segment: it costs
 * the target nothing while measured.
 */
int cpu_agent(int argc, char **argv)
{
	struct timeval tv = { .tv_sec = 900 };
	struct sockaddr_in from;
	struct snap s;
	char req[64], resp[1024];
	socklen_t fl;
	ssize_t n;
	int fd, len, err, i;

	if (argc < 5)
		die("usage: agent IP PORT CPU READY", EINVAL);
	memset(&s, 0, sizeof(s));
	err = read_proc_stat(argv[3], &s);
	if (err)
		die(argv[3], err);
	fd = udp_bind(argv[1], argv[2]);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (pu_write_atomic(argv[4], "ready\n"))
		die("ready file", errno);
	for (;;) {
		fl = sizeof(from);
		n = recvfrom(fd, req, sizeof(req) - 1, 0, (struct sockaddr *)&from, &fl);
		if (n < 0 && errno == EAGAIN)
			die("no word from the client for 15 min", ETIME);
		if (n <= 0)
			continue;
		req[n] = 0;
		if (!strncmp(req, "quit", 4))
			break;
		if (strncmp(req, "snap ", 5))
			continue;
		memset(&s, 0, sizeof(s));
		s.c[C_MONO] = pu_now_ns();
		read_proc_stat(argv[3], &s);
		read_prism_counters(&s);
		len = snprintf(resp, sizeof(resp), "%s", req + 5);
		for (i = 0; i < NCOUNT; i++)
			len += snprintf(resp + len, sizeof(resp) - (size_t)len, " %llu",
					(unsigned long long)s.c[i]);
		sendto(fd, resp, (size_t)len, 0, (struct sockaddr *)&from, fl);
	}
	sendto(fd, "bye", 3, 0, (struct sockaddr *)&from, fl);
	return 0;
}
