// SPDX-License-Identifier: MIT
/* PRISM-RS: info lines, test values. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rs.h"

/* Value of "key=" in a line of space-separated key=value pairs. */
static const char *kv_find(const char *line, const char *key)
{
	size_t n = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[n] == '=')
			return p + n + 1;
		p += n;
	}
	return NULL;
}

/*
 * An optional word "key=": copied into buf (cap bytes, left empty if the
 * word is absent).  -EINVAL if it is empty or too long.
 */
static int kv_str(const char *line, const char *key, char *buf, size_t cap)
{
	const char *s = kv_find(line, key);
	size_t n;

	if (!s)
		return 0;
	n = strcspn(s, " \n");
	if (!n || n >= cap)
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	return 0;
}

static int kv_u64(const char *line, const char *key, __u64 *v)
{
	const char *s = kv_find(line, key);
	char *end;

	if (!s)
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s || (*end && *end != ' ' && *end != '\n'))
		return -EINVAL;
	return 0;
}

int rs_info_parse(const char *line, struct rs_info *ri)
{
	const char *mac = kv_find(line, "mac");
	__u64 ep, blocks, bsize, fl;
	char macs[18];

	memset(ri, 0, sizeof(*ri));
	if (!mac || strlen(mac) < 17)
		return -EINVAL;
	memcpy(macs, mac, 17);
	macs[17] = 0;
	if (prism_parse_mac(macs, ri->mac))
		return -EINVAL;
	if (kv_u64(line, "ep", &ep) || kv_u64(line, "rkey", &ri->rkey) ||
	    kv_u64(line, "meta", &ri->meta) || kv_u64(line, "locks", &ri->locks) ||
	    kv_u64(line, "blocks", &blocks) || kv_u64(line, "bsize", &bsize) ||
	    kv_u64(line, "fl", &fl))
		return -EINVAL;
	if (ep > UINT32_MAX || !blocks || blocks > UINT32_MAX || !bsize ||
	    bsize > RS_MAX_BSIZE || (bsize & 7) || fl > UINT32_MAX)
		return -EINVAL;
	ri->ep = (__u32)ep;
	ri->blocks = (__u32)blocks;
	ri->bsize = (__u32)bsize;
	ri->fl = (__u32)fl;
	if (kv_str(line, "addr", ri->addr, sizeof(ri->addr)) ||
	    kv_str(line, "keys", ri->keys, sizeof(ri->keys)))
		return -EINVAL;
	return 0;
}

int rs_info_dst(const struct rs_info *ri, union prism_sockaddr *dst)
{
	if (ri->addr[0])
		return prism_parse_addr(ri->addr, dst);
	prism_addr_init(&dst->eth, ri->mac, ri->ep);
	return 0;
}

int rs_info_format(const struct rs_info *ri, char *buf, size_t len)
{
	char mac[18];
	int n;

	n = snprintf(buf, len,
		     "mac=%s ep=%u rkey=0x%" PRIx64 " meta=0x%" PRIx64
		     " locks=0x%" PRIx64 " blocks=%u bsize=%u fl=%u%s%s%s%s\n",
		     prism_format_mac(ri->mac, mac), ri->ep, (uint64_t)ri->rkey,
		     (uint64_t)ri->meta, (uint64_t)ri->locks, ri->blocks,
		     ri->bsize, ri->fl, ri->addr[0] ? " addr=" : "", ri->addr,
		     ri->keys[0] ? " keys=" : "", ri->keys);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	return n;
}

int rs_info_load(const char *path, struct rs_info *ri)
{
	char line[512];
	int err = pu_read_first_line(path, line, sizeof(line));

	return err ? err : rs_info_parse(line, ri);
}
