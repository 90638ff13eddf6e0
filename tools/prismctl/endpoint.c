// SPDX-License-Identifier: GPL-2.0
/*
 * prismctl endpoint show [ep EP]: the bound endpoints.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdint.h>
#include <libmnl/libmnl.h>
#include <linux/prism.h>
#include <linux/prism_netlink.h>

#include "prismctl.h"

/*
 * The socket's reassemblies in progress, from the gauges of its counters:
 * an indented "reassembly chains N bytes N" line (JSON: an object).
 */
static int put_reassembly(const struct nlattr *nest)
{
	uint64_t c[NR_STATS];

	if (parse_counters(nest, c, NR_STATS))
		return -1;
	out_obj_begin_label("reassembly", "reassembly");
	out_u64("chains", "chains",
		c[PRISM_STATS_ATTR_REASM_ACTIVE - PRISM_STATS_ATTR_CHAINS_SENT]);
	out_u64("bytes", "bytes",
		c[PRISM_STATS_ATTR_REASM_BYTES - PRISM_STATS_ATTR_CHAINS_SENT]);
	out_obj_end();
	return 0;
}

static int put_endpoint(attrs_t tb)
{
	out_u64("ep", "ep", get_u32(tb, PRISM_ATTR_EP));
	out_u64("ifindex", tb[PRISM_ATTR_IFNAME] ? NULL : "ifindex",
		get_u32(tb, PRISM_ATTR_IFINDEX));
	if (tb[PRISM_ATTR_IFNAME])
		out_str("dev", "dev", mnl_attr_get_str(tb[PRISM_ATTR_IFNAME]));
	if (tb[PRISM_ATTR_MAC])
		put_mac("mac", "mac", tb[PRISM_ATTR_MAC]);
	if (tb[PRISM_ATTR_LINK] &&
	    mnl_attr_get_u8(tb[PRISM_ATTR_LINK]) == PRISM_ADDR_UDP) {
		/* UDP: the bound address ("*": any) and the port. */
		out_str("link", "link", "udp");
		if (tb[PRISM_ATTR_IP])
			put_ip("ip", "ip", tb[PRISM_ATTR_IP]);
		else
			out_str("ip", "ip", "*");
		if (tb[PRISM_ATTR_UDP_PORT])
			out_u64("port", "port",
				mnl_attr_get_u16(tb[PRISM_ATTR_UDP_PORT]));
	}
	/* Owner pid, region addresses, rkeys: only for CAP_NET_ADMIN. */
	if (tb[PRISM_ATTR_OWNER_PID])
		out_u64("pid", "pid", get_u32(tb, PRISM_ATTR_OWNER_PID));
	else
		out_hidden("pid", "pid");
	out_u64("regions", "regions", get_u32(tb, PRISM_ATTR_NR_REGIONS));
	out_u64("freelists", "freelists", get_u32(tb, PRISM_ATTR_NR_FREELISTS));
	out_u64("pinned_pages", "pinned", get_u64(tb, PRISM_ATTR_PINNED_PAGES));
	out_u64("outstanding", NULL, get_u32(tb, PRISM_ATTR_OUTSTANDING));
	out_u64("max_outstanding", NULL,
		get_u32(tb, PRISM_ATTR_MAX_OUTSTANDING));
	out_tpair("outstanding", "%" PRIu64 "/%" PRIu64,
		  get_u32(tb, PRISM_ATTR_OUTSTANDING),
		  get_u32(tb, PRISM_ATTR_MAX_OUTSTANDING));
	out_u64("timeout_ms", NULL, get_u32(tb, PRISM_ATTR_TIMEOUT_MS));
	out_tpair("timeout", "%" PRIu64 "ms", get_u32(tb, PRISM_ATTR_TIMEOUT_MS));
	if (tb[PRISM_ATTR_STATS] && put_reassembly(tb[PRISM_ATTR_STATS]))
		return -1;
	if (opt.stats && tb[PRISM_ATTR_STATS] &&
	    put_counters("stats", tb[PRISM_ATTR_STATS], stat_names, NR_STATS))
		return -1;
	return 0;
}

static int do_endpoint(int argc, char **argv)
{
	return show_by_ep(argc, argv, PRISM_CMD_ENDPOINT_GET, true,
			  put_endpoint);
}

const struct cmd endpoint_cmds[] = {
	{ "show", do_endpoint }, { "list", do_endpoint }, { NULL, NULL },
};
