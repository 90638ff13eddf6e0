// SPDX-License-Identifier: GPL-2.0
/*
 * prismctl region show [ep EP]: the registered memory regions.
 * prismctl region rekey ep EP rkey RKEY key HEX [overlap MS]: a new region
 * key for a keyed region.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/prism.h>
#include <linux/prism_netlink.h>

#include "prismctl.h"

/* The rkey, or "hidden" (the kernel shows it only to CAP_NET_ADMIN). */
void put_rkey(attrs_t tb)
{
	if (tb[PRISM_ATTR_RKEY])
		out_hex("rkey", "rkey", get_u64(tb, PRISM_ATTR_RKEY));
	else
		out_hidden("rkey", "rkey");
}

void put_access(uint32_t acc)
{
	const char *names[4];
	char other[16];
	int n = 0;

	if (acc & PRISM_ACCESS_REMOTE_READ)
		names[n++] = "read";
	if (acc & PRISM_ACCESS_REMOTE_WRITE)
		names[n++] = "write";
	if (acc & PRISM_ACCESS_REMOTE_ATOMIC)
		names[n++] = "atomic";
	if (acc & ~(uint32_t)PRISM_ACCESS_ALL) {
		snprintf(other, sizeof(other), "0x%x",
			 acc & ~(uint32_t)PRISM_ACCESS_ALL);
		names[n++] = other;
	}
	out_strs("access", "access", names, n);
}

static int put_region(attrs_t tb)
{
	out_u64("ep", "ep", get_u32(tb, PRISM_ATTR_EP));
	if (tb[PRISM_ATTR_REGION_START])
		out_hex("start", "start", get_u64(tb, PRISM_ATTR_REGION_START));
	else
		out_hidden("start", "start");
	out_u64("len", "len", get_u64(tb, PRISM_ATTR_REGION_LEN));
	put_access((uint32_t)get_u32(tb, PRISM_ATTR_REGION_ACCESS));
	out_u64("pages", "pages", get_u64(tb, PRISM_ATTR_REGION_PAGES));
	put_rkey(tb);
	/* Keyed regions: the generation of the key, never the key. */
	if (tb[PRISM_ATTR_REGION_KEYED] &&
	    mnl_attr_get_u8(tb[PRISM_ATTR_REGION_KEYED])) {
		out_str("mode", "mode", "keyed");
		out_u64("key_gen", "key_gen", get_u32(tb, PRISM_ATTR_REGION_KEY_GEN));
	} else {
		out_str("mode", "mode", "plain");
	}
	return 0;
}

static int do_region(int argc, char **argv)
{
	return show_by_ep(argc, argv, PRISM_CMD_REGION_GET, false,
			  put_region);
}

static int put_rekeyed(attrs_t tb)
{
	out_u64("ep", "ep", get_u32(tb, PRISM_ATTR_EP));
	put_rkey(tb);
	out_u64("key_gen", "key_gen", get_u32(tb, PRISM_ATTR_REGION_KEY_GEN));
	return 0;
}

/* 32 hex digits into key; 0 or an exit status. */
static int parse_key(const char *s, uint8_t key[PRISM_KEY_SIZE])
{
	unsigned int i, hi, lo;

	if (!s || strlen(s) != 2 * PRISM_KEY_SIZE)
		return usage_error("%s: 'key' needs 32 hex digits", what);
	for (i = 0; i < PRISM_KEY_SIZE; i++) {
		if (sscanf(s + 2 * i, "%1x%1x", &hi, &lo) != 2)
			return usage_error("%s: 'key' needs 32 hex digits", what);
		key[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static int do_rekey(int argc, char **argv)
{
	struct kv kv[] = {
		{ "ep", false, 0, false }, { "rkey", true, 0, false },
		{ "overlap", false, 0, false }, { NULL, false, 0, false },
	};
	char *rest[16];
	uint8_t key[PRISM_KEY_SIZE];
	struct nlmsghdr *nlh;
	int i, n = 0, err, have_key = 0;

	/* The key is not a number: take it out before the other pairs. */
	for (i = 0; i < argc; i += 2) {
		if (!strcmp(argv[i], "key")) {
			if (have_key++)
				return usage_error("%s: 'key' given twice", what);
			err = parse_key(i + 1 < argc ? argv[i + 1] : NULL, key);
			if (err)
				return err;
			continue;
		}
		if (n + 2 > (int)(sizeof(rest) / sizeof(rest[0])))
			return usage_error("%s: too many arguments", what);
		rest[n++] = argv[i];
		if (i + 1 < argc)
			rest[n++] = argv[i + 1];
	}
	err = parse_kv(n, rest, kv);
	if (err)
		return err;
	if (!kv[0].seen || !kv[1].seen || !have_key)
		return usage_error("%s: needs 'ep', 'rkey' and 'key'", what);
	if (nl_open())
		return 1;
	nlh = nl_req(PRISM_CMD_REGION_REKEY, 0);
	mnl_attr_put_u32(nlh, PRISM_ATTR_EP, (uint32_t)kv[0].val);
	mnl_attr_put_u64(nlh, PRISM_ATTR_RKEY, kv[1].val);
	mnl_attr_put(nlh, PRISM_ATTR_REGION_KEY, sizeof(key), key);
	if (kv[2].seen)
		mnl_attr_put_u32(nlh, PRISM_ATTR_REGION_OVERLAP_MS,
				 (uint32_t)kv[2].val);
	memset(key, 0, sizeof(key));
	return talk_objs(nlh, put_rekeyed);
}

const struct cmd region_cmds[] = {
	{ "show", do_region }, { "list", do_region }, { "rekey", do_rekey },
	{ NULL, NULL },
};
