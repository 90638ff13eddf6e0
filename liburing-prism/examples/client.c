// SPDX-License-Identifier: MIT
/*
 * Minimal PRISM client against prism-example-server.
 *
 * Usage: prism-example-client IFNAME mac=.. ep=.. rkey=.. addr=.. fl=..
 *                             [hold=FILE]
 * (the server's output line as arguments).  Does:
 *   1. READ through the pointer slot (indirect): the current value
 *   2. 10 x CAS increments of the counter
 *   3. WRITE a string, READ it back
 *   4. PUT a new value: ALLOC a buffer holding it (address redirected to
 *      scratch), then, if that worked, CAS the pointer slot to it
 *   5. READ through the pointer slot again
 * With hold=FILE it then writes "done" to FILE and keeps its socket open
 * until a signal, so that its client state (prismctl peer show) can be
 * looked at.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "liburing-prism.h"

static struct sockaddr_prism dst;
static __u64 rkey, base;
static __u32 fl;
static _Alignas(8) unsigned char cbuf[2048], out[2048];
static const struct prism_msg *m = (const void *)out;
static int fd;
static __u64 next_ud = 1;

static int run(struct prism_chain_buf *c, const char *what)
{
	ssize_t n = prism_execute(fd, &dst, c, out, sizeof(out));

	if (n < 0) {
		fprintf(stderr, "%s: %s\n", what, strerror((int)-n));
		return -1;
	}
	if (m->status != PRISM_S_OK) {
		fprintf(stderr, "%s: chain status %s\n", what,
			prism_status_str(m->status));
		return -1;
	}
	return 0;
}

/* Print op i's output as a string, or its status. */
static void show(const char *what, unsigned int i)
{
	__u32 len;
	const char *p = prism_msg_data(m, i, &len);

	if (p)
		printf("%s: \"%.*s\"\n", what, (int)strnlen(p, len), p);
	else
		printf("%s: %s\n", what, prism_status_str(prism_msg_op_status(m, i)));
}

static int arg(const char *a, const char *key, const char **val)
{
	size_t n = strlen(key);

	if (strncmp(a, key, n) || a[n] != '=')
		return 0;
	*val = a + n + 1;
	return 1;
}

int main(int argc, char **argv)
{
	struct prism_chain_buf c;
	struct prism_op *op;
	const char *v, *hold = NULL;
	__u8 mac[6] = { 0 };
	__u32 ep = 0;
	__u64 cnt, old, slot_old;
	char val[64];
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s IFNAME mac=.. ep=.. rkey=.. addr=.. fl=.. [hold=FILE]\n",
			argv[0]);
		return 2;
	}
	for (i = 2; i < argc; i++) {
		if (arg(argv[i], "mac", &v) && prism_parse_mac(v, mac))
			return 2;
		if (arg(argv[i], "ep", &v))
			ep = (__u32)strtoul(v, NULL, 0);
		if (arg(argv[i], "rkey", &v))
			rkey = strtoull(v, NULL, 0);
		if (arg(argv[i], "addr", &v))
			base = strtoull(v, NULL, 0);
		if (arg(argv[i], "fl", &v))
			fl = (__u32)strtoul(v, NULL, 0);
		if (arg(argv[i], "hold", &v))
			hold = v;
	}
	fd = prism_open(argv[1], 0, 0);
	if (fd < 0) {
		fprintf(stderr, "prism_open(%s): %s\n", argv[1], strerror(-fd));
		return 1;
	}
	prism_addr_init(&dst, mac, ep);

	/* 1. indirect READ */
	prism_chain_init(&c, cbuf, sizeof(cbuf), next_ud++);
	prism_prep_read_indirect(&c, rkey, base + 0x40, 64);
	if (run(&c, "READ indirect"))
		return 1;
	show("value via pointer", 0);

	/* 2. CAS increments: on failure the old value tells us the current one */
	prism_chain_init(&c, cbuf, sizeof(cbuf), next_ud++);
	prism_prep_read(&c, rkey, base, 8);
	if (run(&c, "READ counter") || prism_msg_u64(m, 0, &cnt))
		return 1;
	for (i = 0; i < 10;) {
		prism_chain_init(&c, cbuf, sizeof(cbuf), next_ud++);
		prism_prep_cas_u64(&c, rkey, base, PRISM_CAS_EQ, cnt, cnt + 1);
		if (run(&c, "CAS") || prism_msg_u64(m, 0, &old))
			return 1;
		if (prism_msg_op_status(m, 0) == PRISM_S_OK) {
			cnt++;
			i++;
		} else {
			cnt = old;
		}
	}
	printf("counter after 10 CAS increments: %llu\n", (unsigned long long)cnt);

	/* 3. WRITE then READ */
	snprintf(val, sizeof(val), "written by pid %d", (int)getpid());
	prism_chain_init(&c, cbuf, sizeof(cbuf), next_ud++);
	prism_prep_write(&c, rkey, base + 0x800, val, (__u32)strlen(val) + 1);
	prism_prep_read(&c, rkey, base + 0x800, (__u32)strlen(val) + 1);
	if (run(&c, "WRITE+READ"))
		return 1;
	printf("WRITE: %s\n", prism_status_str(prism_msg_op_status(m, 0)));
	show("read back", 1);

	/* 4. PUT: ALLOC -> scratch, conditional CAS of the slot */
	prism_chain_init(&c, cbuf, sizeof(cbuf), next_ud++);
	prism_prep_read(&c, rkey, base + 0x40, 8);
	if (run(&c, "READ slot") || prism_msg_u64(m, 0, &slot_old))
		return 1;
	snprintf(val, sizeof(val), "new value from pid %d", (int)getpid());
	prism_chain_init(&c, cbuf, sizeof(cbuf), next_ud++);
	op = prism_prep_alloc(&c, rkey, fl, val, (__u32)strlen(val) + 1);
	prism_op_set_redirect_scratch(&c, op, 0);
	{
		unsigned char cmp[8];

		prism_put_le64(cmp, slot_old);
		op = prism_prep_cas_ex(&c, rkey, base + 0x40, 8, PRISM_CAS_EQ, 0,
				       cmp, 0, NULL, 0, NULL, NULL);
	}
	prism_op_set_arg_scratch(&c, op);
	prism_op_set_conditional(&c, op);
	if (prism_chain_error(&c)) {
		fprintf(stderr, "building PUT: %s\n", strerror(-prism_chain_error(&c)));
		return 1;
	}
	if (run(&c, "PUT"))
		return 1;
	printf("PUT: ALLOC %s, CAS %s\n", prism_status_str(prism_msg_op_status(m, 0)),
	       prism_status_str(prism_msg_op_status(m, 1)));

	/* 5. GET */
	prism_chain_init(&c, cbuf, sizeof(cbuf), next_ud++);
	prism_prep_read_indirect(&c, rkey, base + 0x40, 64);
	if (run(&c, "GET"))
		return 1;
	show("value via pointer", 0);
	if (hold) {
		FILE *f = fopen(hold, "w");

		if (!f || fputs("done\n", f) == EOF || fclose(f)) {
			perror(hold);
			return 1;
		}
		pause();
	}
	close(fd);
	return 0;
}
