// SPDX-License-Identifier: GPL-2.0
/*
 * prismctl region show [ep EP]: the registered memory regions.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
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
	return 0;
}

static int do_region(int argc, char **argv)
{
	return show_by_ep(argc, argv, PRISM_CMD_REGION_GET, false,
			  put_region);
}

const struct cmd region_cmds[] = {
	{ "show", do_region }, { "list", do_region }, { NULL, NULL },
};
