// SPDX-License-Identifier: GPL-2.0
/*
 * prismctl helpers shared by the objects: arguments, the kernel's errors,
 * reply parsing and the common output of replies.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/prism.h>
#include <linux/prism_netlink.h>

#include "prismctl.h"

/* Names of the request attributes, for error messages. */
static const char *const attr_names[PRISM_ATTR_MAX + 1] = {
	[PRISM_ATTR_EP]			= "ep",
	[PRISM_ATTR_IFINDEX]		= "ifindex",
	[PRISM_ATTR_RKEY]		= "rkey",
	[PRISM_ATTR_FL_ID]		= "id",
	[PRISM_ATTR_FL_BUF_SIZE]	= "size",
	[PRISM_ATTR_FL_CAPACITY]	= "count",
	[PRISM_ATTR_FL_ADDRS]		= "addrs",
	[PRISM_ATTR_FL_CARVE_START]	= "carve start",
	[PRISM_ATTR_FL_CARVE_COUNT]	= "carve count",
	[PRISM_ATTR_PEER_MAC]		= "peer mac",
	[PRISM_ATTR_PEER_EP]		= "peer ep",
	[PRISM_ATTR_PEER_IP]		= "peer ip",
};

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "prismctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'prismctl help' or 'man prismctl'.\n");
	return EXIT_USAGE;
}

/* ------------------------------------------------------------------------
 * Arguments
 */
bool parse_u64(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	/* strtoull() would accept a sign and leading blanks. */
	if (!s[0] || s[0] == '-' || s[0] == '+' || s[0] == ' ' ||
	    (s[0] >= '\t' && s[0] <= '\r'))
		return false;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}


struct kv *kv_find(struct kv *kv, const char *name)
{
	for (; kv->name; kv++)
		if (!strcmp(kv->name, name))
			return kv;
	return NULL;
}

int kv_value(struct kv *k, const char *s)
{
	if (k->seen)
		return usage_error("%s: '%s' given twice", what, k->name);
	if (!s)
		return usage_error("%s: '%s' needs a value", what, k->name);
	if (!parse_u64(s, &k->val) || (!k->wide && k->val > UINT32_MAX))
		return usage_error("%s: invalid %s '%s' (expected an unsigned %s-bit number)",
				   what, k->name, s, k->wide ? "64" : "32");
	k->seen = true;
	return 0;
}

/* NAME VALUE pairs, all of them from kv; 0 or an exit status. */
int parse_kv(int argc, char **argv, struct kv *kv)
{
	struct kv *k;
	int i, err;

	for (i = 0; i < argc; i += 2) {
		k = kv_find(kv, argv[i]);
		if (!k)
			return usage_error("%s: unknown argument '%s'", what,
					   argv[i]);
		err = kv_value(k, i + 1 < argc ? argv[i + 1] : NULL);
		if (err)
			return err;
	}
	return 0;
}

int require(struct kv *kv)
{
	for (; kv->name; kv++)
		if (!kv->seen)
			return usage_error("%s: missing '%s'", what, kv->name);
	return 0;
}

/* ------------------------------------------------------------------------
 * Errors from the kernel
 */
/* Describe the request attribute at byte offset off of req. */
static void describe_attr(const struct nlmsghdr *req, int off, char *buf,
			  size_t len)
{
	const struct nlattr *a, *n;
	int type, i;

	buf[0] = '\0';
	if (off < 0 || (size_t)off >= req->nlmsg_len)
		return;
	mnl_attr_for_each(a, req, sizeof(struct genlmsghdr)) {
		const char *p = (const char *)a, *q = (const char *)req + off;

		if (q < p || q >= p + a->nla_len)
			continue;
		type = mnl_attr_get_type(a);
		if (type == PRISM_ATTR_FL_ADDRS && q != p) {
			i = 0;
			mnl_attr_for_each_nested(n, a) {
				if ((const char *)n == q) {
					snprintf(buf, len, " (addrs[%d] = 0x%" PRIx64 ")",
						 i, mnl_attr_get_u64(n));
					return;
				}
				i++;
			}
		}
		if (type <= PRISM_ATTR_MAX && attr_names[type])
			snprintf(buf, len, " (%s)", attr_names[type]);
		return;
	}
}

/* Print why request req failed with errno err; returns exit status 1. */
int report(const struct nlmsghdr *req, int err, const struct nl_err *e)
{
	char where[96];

	if (err < 0)	/* already reported */
		return 1;
	if (err == EPERM || err == EACCES) {
		fprintf(stderr, "prismctl: %s: permission denied (needs CAP_NET_ADMIN)\n",
			what);
		return 1;
	}
	describe_attr(req, e->bad_attr, where, sizeof(where));
	if (e->msg[0])
		fprintf(stderr, "prismctl: %s: %s%s: %s\n", what, e->msg, where,
			strerror(err));
	else if (e->miss_type > 0 && e->miss_type <= PRISM_ATTR_MAX &&
		 attr_names[e->miss_type])
		fprintf(stderr, "prismctl: %s: missing '%s': %s\n", what,
			attr_names[e->miss_type], strerror(err));
	else
		fprintf(stderr, "prismctl: %s%s: %s\n", what, where,
			strerror(err));
	return 1;
}

/* ------------------------------------------------------------------------
 * Reply parsing
 */
static const enum mnl_attr_data_type attr_types[PRISM_ATTR_MAX + 1] = {
	[PRISM_ATTR_EP]			= MNL_TYPE_U32,
	[PRISM_ATTR_IFINDEX]		= MNL_TYPE_U32,
	[PRISM_ATTR_IFNAME]		= MNL_TYPE_NUL_STRING,
	[PRISM_ATTR_MAC]		= MNL_TYPE_BINARY,
	[PRISM_ATTR_OWNER_PID]		= MNL_TYPE_U32,
	[PRISM_ATTR_NR_REGIONS]		= MNL_TYPE_U32,
	[PRISM_ATTR_NR_FREELISTS]	= MNL_TYPE_U32,
	[PRISM_ATTR_PINNED_PAGES]	= MNL_TYPE_U64,
	[PRISM_ATTR_OUTSTANDING]	= MNL_TYPE_U32,
	[PRISM_ATTR_MAX_OUTSTANDING]	= MNL_TYPE_U32,
	[PRISM_ATTR_TIMEOUT_MS]		= MNL_TYPE_U32,
	[PRISM_ATTR_STATS]		= MNL_TYPE_NESTED,
	[PRISM_ATTR_RKEY]		= MNL_TYPE_U64,
	[PRISM_ATTR_REGION_START]	= MNL_TYPE_U64,
	[PRISM_ATTR_REGION_LEN]		= MNL_TYPE_U64,
	[PRISM_ATTR_REGION_ACCESS]	= MNL_TYPE_U32,
	[PRISM_ATTR_REGION_PAGES]	= MNL_TYPE_U64,
	[PRISM_ATTR_REGION_KEYED]	= MNL_TYPE_U8,
	[PRISM_ATTR_REGION_KEY_GEN]	= MNL_TYPE_U32,
	[PRISM_ATTR_FL_ID]		= MNL_TYPE_U32,
	[PRISM_ATTR_FL_BUF_SIZE]	= MNL_TYPE_U32,
	[PRISM_ATTR_FL_CAPACITY]	= MNL_TYPE_U32,
	[PRISM_ATTR_FL_COUNT]		= MNL_TYPE_U32,
	[PRISM_ATTR_FL_POSTED]		= MNL_TYPE_U32,
	[PRISM_ATTR_PEER_MAC]		= MNL_TYPE_BINARY,
	[PRISM_ATTR_PEER_EP]		= MNL_TYPE_U32,
	[PRISM_ATTR_PEER_SRTT_US]	= MNL_TYPE_U32,
	[PRISM_ATTR_PEER_RTTVAR_US]	= MNL_TYPE_U32,
	[PRISM_ATTR_PEER_RTO_US]	= MNL_TYPE_U32,
	[PRISM_ATTR_PEER_STATS]		= MNL_TYPE_NESTED,
	[PRISM_ATTR_PEER_CWND]		= MNL_TYPE_U32,
	[PRISM_ATTR_PEER_INFLIGHT]	= MNL_TYPE_U32,
	[PRISM_ATTR_PEER_HELD]		= MNL_TYPE_U32,
	[PRISM_ATTR_PEER_QDELAY_US]	= MNL_TYPE_U32,
	[PRISM_ATTR_LINK]		= MNL_TYPE_U8,
	[PRISM_ATTR_IP]			= MNL_TYPE_BINARY,
	[PRISM_ATTR_UDP_PORT]		= MNL_TYPE_U16,
	[PRISM_ATTR_PEER_IP]		= MNL_TYPE_BINARY,
	[PRISM_ATTR_PEER_PORT]		= MNL_TYPE_U16,
};


static int attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	/* Attributes of newer modules are skipped. */
	if (type > PRISM_ATTR_MAX)
		return MNL_CB_OK;
	if (attr_types[type] != MNL_TYPE_UNSPEC &&
	    mnl_attr_validate(a, attr_types[type]) < 0)
		return MNL_CB_ERROR;
	if ((type == PRISM_ATTR_MAC || type == PRISM_ATTR_PEER_MAC) &&
	    mnl_attr_get_payload_len(a) != 6)
		return MNL_CB_ERROR;
	tb[type] = a;
	return MNL_CB_OK;
}

int parse_reply(const struct nlmsghdr *nlh, attrs_t tb)
{
	memset(tb, 0, sizeof(attrs_t));
	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), attr_cb, tb) !=
	    MNL_CB_OK) {
		fprintf(stderr, "prismctl: %s: malformed reply from the kernel\n",
			what);
		return -1;
	}
	return 0;
}

/* Counters of a stats nest (u64 attributes 2..) into c[0..n). */
int parse_counters(const struct nlattr *nest, uint64_t *c, int n)
{
	const struct nlattr *a;
	int type;

	memset(c, 0, sizeof(*c) * (size_t)n);
	mnl_attr_for_each_nested(a, nest) {
		type = mnl_attr_get_type(a);
		/* Type 1 is the padding attribute in both nests. */
		if (type < 2 || type - 2 >= n)
			continue;
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0) {
			fprintf(stderr, "prismctl: %s: malformed counters from the kernel\n",
				what);
			return -1;
		}
		c[type - 2] = mnl_attr_get_u64(a);
	}
	return 0;
}

uint64_t get_u32(attrs_t tb, int type)
{
	return tb[type] ? mnl_attr_get_u32(tb[type]) : 0;
}

uint64_t get_u64(attrs_t tb, int type)
{
	return tb[type] ? mnl_attr_get_u64(tb[type]) : 0;
}

void put_mac(const char *key, const char *label,
		    const struct nlattr *a)
{
	const uint8_t *m = mnl_attr_get_payload(a);
	char buf[18];

	snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x",
		 m[0], m[1], m[2], m[3], m[4], m[5]);
	out_str(key, label, buf);
}

void put_ip(const char *key, const char *label, const struct nlattr *a)
{
	char buf[INET6_ADDRSTRLEN] = "?";
	uint16_t len = mnl_attr_get_payload_len(a);

	if (len == 4 || len == 16)
		inet_ntop(len == 4 ? AF_INET : AF_INET6,
			  mnl_attr_get_payload(a), buf, sizeof(buf));
	out_str(key, label, buf);
}

int put_counters(const char *key, const struct nlattr *nest,
			const char *const *names, int n)
{
	uint64_t c[NR_STATS > NR_PEER_STATS ? NR_STATS : NR_PEER_STATS];
	int i;

	if (n > (int)(sizeof(c) / sizeof(c[0])) || parse_counters(nest, c, n))
		return -1;
	out_obj_begin(key);
	for (i = 0; i < n; i++)
		out_u64(names[i], names[i], c[i]);
	out_obj_end();
	return 0;
}

/* nl_cb_t of talk_objs(): data points to the put_obj_t. */
static int obj_cb(const struct nlmsghdr *nlh, void *data)
{
	put_obj_t put = *(put_obj_t *)data;
	attrs_t tb;

	if (parse_reply(nlh, tb))
		return -1;
	out_obj_begin(NULL);
	if (put(tb))
		return -1;
	out_obj_end();
	return 0;
}

int talk_objs(struct nlmsghdr *nlh, put_obj_t put)
{
	struct nl_err e;
	int err;

	err = nl_talk(nlh, obj_cb, &put, &e);
	if (err)
		return report(nlh, err, &e);
	return 0;
}

int show_reply(const char *key, struct nlmsghdr *nlh, put_obj_t put)
{
	int err;

	out_arr_begin(key);
	err = talk_objs(nlh, put);
	if (err)
		return err;
	out_arr_end();
	return 0;
}

/*
 * "show [ep EP]" of objects that belong to endpoints: all of them, or
 * those of EP (one object when ep_is_object: the endpoint itself).
 */
int show_by_ep(int argc, char **argv, uint8_t cmd, bool ep_is_object,
	       put_obj_t put)
{
	struct kv kv[] = { { "ep", false, 0, false }, { NULL, false, 0, false } };
	struct nlmsghdr *nlh;
	int err;

	err = parse_kv(argc, argv, kv);
	if (err)
		return err;
	if (nl_open())
		return 1;
	nlh = nl_req(cmd, kv[0].seen && ep_is_object ? 0 : NLM_F_DUMP);
	if (kv[0].seen)
		mnl_attr_put_u32(nlh, PRISM_ATTR_EP, (uint32_t)kv[0].val);
	return show_reply(NULL, nlh, put);
}
