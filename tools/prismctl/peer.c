// SPDX-License-Identifier: GPL-2.0
/*
 * prismctl peer show [ep EP [peer MAC|IP peer_ep EP]]: the peers endpoints
 * talk to, with their RTT estimates and counters.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/prism_netlink.h>

#include "prismctl.h"

#define PEER_STAT_NAME(ID, name)	#name,
static const char *const peer_stat_names[] = {
	PRISM_PEER_STATS_LIST(PEER_STAT_NAME)
};
#undef PEER_STAT_NAME

_Static_assert(sizeof(peer_stat_names) / sizeof(peer_stat_names[0]) ==
	       NR_PEER_STATS,
	       "peer_stat_names must follow enum prism_peer_stats_attr");

static int put_peer(attrs_t tb)
{
	if (tb[PRISM_ATTR_EP])
		out_u64("ep", "ep", get_u32(tb, PRISM_ATTR_EP));
	if (tb[PRISM_ATTR_PEER_MAC])
		put_mac("peer_mac", "peer", tb[PRISM_ATTR_PEER_MAC]);
	if (tb[PRISM_ATTR_PEER_IP])
		put_ip("peer_ip", "peer", tb[PRISM_ATTR_PEER_IP]);
	if (tb[PRISM_ATTR_PEER_PORT])
		out_u64("peer_port", "port",
			mnl_attr_get_u16(tb[PRISM_ATTR_PEER_PORT]));
	out_u64("peer_ep", "peer_ep", get_u32(tb, PRISM_ATTR_PEER_EP));
	out_u64("ifindex", "ifindex", get_u32(tb, PRISM_ATTR_IFINDEX));
	out_u64("srtt_us", NULL, get_u32(tb, PRISM_ATTR_PEER_SRTT_US));
	out_tpair("srtt", "%" PRIu64 "us", get_u32(tb, PRISM_ATTR_PEER_SRTT_US));
	out_u64("rttvar_us", NULL, get_u32(tb, PRISM_ATTR_PEER_RTTVAR_US));
	out_tpair("rttvar", "%" PRIu64 "us",
		  get_u32(tb, PRISM_ATTR_PEER_RTTVAR_US));
	out_u64("rto_us", NULL, get_u32(tb, PRISM_ATTR_PEER_RTO_US));
	out_tpair("rto", "%" PRIu64 "us", get_u32(tb, PRISM_ATTR_PEER_RTO_US));
	out_u64("cwnd", "cwnd", get_u32(tb, PRISM_ATTR_PEER_CWND));
	out_u64("inflight", "inflight", get_u32(tb, PRISM_ATTR_PEER_INFLIGHT));
	out_u64("held", "held", get_u32(tb, PRISM_ATTR_PEER_HELD));
	out_u64("qdelay_us", NULL, get_u32(tb, PRISM_ATTR_PEER_QDELAY_US));
	out_tpair("qdelay", "%" PRIu64 "us",
		  get_u32(tb, PRISM_ATTR_PEER_QDELAY_US));
	if (tb[PRISM_ATTR_PEER_STATS] &&
	    put_counters("stats", tb[PRISM_ATTR_PEER_STATS], peer_stat_names,
			 NR_PEER_STATS))
		return -1;
	return 0;
}

/* "02:00:00:00:01:0a" -> 6 bytes; -1 unless exactly six hex pairs. */
static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	int i;

	if (strlen(s) != 17)
		return -1;
	for (i = 0; i < 17; i++)
		if (i % 3 == 2 ? s[i] != ':' : !isxdigit((unsigned char)s[i]))
			return -1;
	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6)
		return -1;
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

/*
 * peer show [ep EP [peer MAC|IP peer_ep EP]]: all peers (of one endpoint),
 * or one peer of one endpoint (by MAC address on Ethernet, IPv4 or IPv6
 * address on UDP).
 */
static int do_peer(int argc, char **argv)
{
	struct kv kv[] = { { "ep", false, 0, false },
			   { "peer_ep", false, 0, false },
			   { NULL, false, 0, false } };
	char *rest[8];
	const char *mac_arg = NULL;
	uint8_t mac[6], ip[16];
	int iplen = 0;
	struct nlmsghdr *nlh;
	int i, n = 0, err;
	bool one;

	/* "peer MAC" takes a string; the rest are numbers. */
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "peer")) {
			if (i + 1 >= argc)
				return usage_error("%s: 'peer' needs a MAC address", what);
			mac_arg = argv[++i];
			if (inet_pton(AF_INET, mac_arg, ip) == 1)
				iplen = 4;
			else if (inet_pton(AF_INET6, mac_arg, ip) == 1)
				iplen = 16;
			else if (parse_mac(mac_arg, mac))
				return usage_error("%s: bad MAC or IP address '%s'",
						   what, mac_arg);
		} else if (n < (int)(sizeof(rest) / sizeof(rest[0]))) {
			rest[n++] = argv[i];
		} else {
			return usage_error("%s: unknown argument '%s'", what, argv[i]);
		}
	}
	err = parse_kv(n, rest, kv);
	if (err)
		return err;
	one = mac_arg || kv[1].seen;
	if (one && !(mac_arg && kv[0].seen && kv[1].seen))
		return usage_error("%s: one peer needs 'ep', 'peer' and 'peer_ep'", what);
	if (nl_open())
		return 1;
	nlh = nl_req(PRISM_CMD_PEER_GET, one ? 0 : NLM_F_DUMP);
	if (kv[0].seen)
		mnl_attr_put_u32(nlh, PRISM_ATTR_EP, (uint32_t)kv[0].val);
	if (one) {
		if (iplen)
			mnl_attr_put(nlh, PRISM_ATTR_PEER_IP, (size_t)iplen, ip);
		else
			mnl_attr_put(nlh, PRISM_ATTR_PEER_MAC, sizeof(mac), mac);
		mnl_attr_put_u32(nlh, PRISM_ATTR_PEER_EP, (uint32_t)kv[1].val);
	}
	return show_reply(NULL, nlh, put_peer);
}

const struct cmd peer_cmds[] = {
	{ "show", do_peer }, { "list", do_peer }, { NULL, NULL },
};
