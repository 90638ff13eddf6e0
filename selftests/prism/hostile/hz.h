/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the hostile/ tools: the target's memory layout (hz_server),
 * its address line, known bytes, bounded waits.
 */
#ifndef PRISM_HZ_H
#define PRISM_HZ_H

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "liburing-prism.h"
#include "../frames.h"

/*
 * Region 1 of hz_server: page-aligned, registered with exactly this size.
 *   HZ_COUNTER_OFF  the CAS counter word (8 bytes, starts at 0)
 *   HZ_SLOT_OFF     { ptr = region end, bound = 0 } (16 bytes)
 *   HZ_KNOWN_OFF    HZ_KNOWN_LEN known bytes (hz_byte() of the offset)
 *   HZ_SRC_OFF      64 KiB of known bytes: source of the copy chains
 *   HZ_DST*_OFF     64 KiB each, zero: destinations of the copy chains
 * Region 2: two pages, registered from 256 bytes into the first one to the
 * end of the second; at its start { ptr = its start + its len, bound 0 }.
 */
#define HZ_COUNTER_OFF	0u
#define HZ_SLOT_OFF	16u
#define HZ_KNOWN_OFF	4096u
#define HZ_KNOWN_LEN	4096u
#define HZ_COPY_LEN	(64u << 10)
#define HZ_SRC_OFF	(64u << 10)
#define HZ_DST1_OFF	(128u << 10)
#define HZ_DST2_OFF	(192u << 10)
#define HZ_DST3_OFF	(256u << 10)
#define HZ_REGION_LEN	(320u << 10)
#define HZ_R2_SKIP	256u
#define HZ_R2_PAGES	2u

/* Known byte at region offset off: never 0. */
static inline uint8_t hz_byte(uint64_t off)
{
	return (uint8_t)((((uint32_t)off * 2654435761u) >> 24) | 1);
}

/* What hz_server prints: "mac=.. ep=.. rkey=.. addr=.. len=.. ...". */
struct hz_target {
	struct sockaddr_prism sa;
	uint8_t mac[6];
	uint32_t ep;
	uint64_t rkey, addr, len;
	uint64_t rkey2, addr2, len2;
};

static inline int hz_kv(const char *s, const char *key, const char **val)
{
	size_t n = strlen(key);

	if (strncmp(s, key, n) || s[n] != '=')
		return 0;
	*val = s + n + 1;
	return 1;
}

/* Parse the key=value words among argv; 0 or -EINVAL (no mac/ep). */
static inline int hz_parse_target(int argc, char **argv, struct hz_target *t)
{
	int i, have_mac = 0;
	const char *v;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < argc; i++) {
		if (hz_kv(argv[i], "mac", &v))
			have_mac = !prism_parse_mac(v, t->mac);
		else if (hz_kv(argv[i], "ep", &v))
			t->ep = (uint32_t)strtoul(v, NULL, 0);
		else if (hz_kv(argv[i], "rkey", &v))
			t->rkey = strtoull(v, NULL, 0);
		else if (hz_kv(argv[i], "addr", &v))
			t->addr = strtoull(v, NULL, 0);
		else if (hz_kv(argv[i], "len", &v))
			t->len = strtoull(v, NULL, 0);
		else if (hz_kv(argv[i], "rkey2", &v))
			t->rkey2 = strtoull(v, NULL, 0);
		else if (hz_kv(argv[i], "addr2", &v))
			t->addr2 = strtoull(v, NULL, 0);
		else if (hz_kv(argv[i], "len2", &v))
			t->len2 = strtoull(v, NULL, 0);
	}
	if (!have_mac || !t->ep)
		return -EINVAL;
	prism_addr_init(&t->sa, t->mac, t->ep);
	return 0;
}

/*
 * Arguments of hz_client and hz_raw: IFNAME MODE [ARGS...] ADDRLINE...
 * The words without '=' after MODE go to pos (at most 4, *npos of them),
 * the key=value words name the target.  0, or 2 after a message.
 */
static inline int hz_mode_args(int argc, char **argv, char *pos[4], int *npos,
			       struct hz_target *t)
{
	int i;

	if (argc < 4) {
		fprintf(stderr, "usage: %s IFNAME MODE [ARGS...] ADDRLINE...\n",
			argv[0]);
		return 2;
	}
	for (i = 3; i < argc; i++)
		if (!strchr(argv[i], '=') && *npos < 4)
			pos[(*npos)++] = argv[i];
	if (hz_parse_target(argc - 3, argv + 3, t)) {
		fprintf(stderr, "no target address (mac=.. ep=..)\n");
		return 2;
	}
	return 0;
}

/* Wait until path exists, at most ms milliseconds; 0 or -ETIMEDOUT. */
static inline int hz_wait_file(const char *path, int64_t ms)
{
	int64_t end = now_ms() + ms;
	struct stat st;

	while (stat(path, &st)) {
		if (now_ms() >= end)
			return -ETIMEDOUT;
		poll(NULL, 0, 10);
	}
	return 0;
}

/* "OK", "EACCES", ... for a -errno or 0. */
static inline const char *hz_err(int err)
{
	const char *s;

	if (!err)
		return "OK";
	s = strerrorname_np(err < 0 ? -err : err);
	return s ? s : "E?";
}

static inline int hz_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Percentile p (0..100) of n samples (sorted in place). */
static inline int64_t hz_percentile(int64_t *v, size_t n, unsigned int p)
{
	if (!n)
		return -1;
	qsort(v, n, sizeof(*v), hz_cmp_i64);
	return v[(n - 1) * p / 100];
}

#endif /* PRISM_HZ_H */
