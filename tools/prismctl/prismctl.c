// SPDX-License-Identifier: GPL-2.0
/*
 * prismctl: inspect and configure PRISM endpoints over the "prism" generic
 * netlink family, in the style of iproute2's rdma tool.
 *
 *   prismctl [-j] [-p] [-s] OBJECT [COMMAND [ARGS...]]
 *
 * See prismctl.8.  This file: the global options and the dispatch to the
 * objects, one file each (endpoint.c, region.c, freelist.c, stats.c,
 * peer.c, monitor.c).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/prism_netlink.h>

#include "prismctl.h"

#define PRISMCTL_VERSION	"1.0"

struct opts opt;

/* "endpoint show", for messages. */
char what[64];

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: prismctl [OPTIONS] OBJECT [COMMAND [ARGS...]]\n"
		"       prismctl [OPTIONS] endpoint show [ep EP]\n"
		"       prismctl [OPTIONS] region show [ep EP]\n"
		"       prismctl [OPTIONS] region rekey ep EP rkey RKEY key HEX32 [overlap MS]\n"
		"       prismctl [OPTIONS] freelist show [ep EP [id ID]]\n"
		"       prismctl [OPTIONS] freelist create ep EP rkey RKEY size SIZE count COUNT\n"
		"       prismctl [OPTIONS] freelist post ep EP id ID carve START COUNT\n"
		"       prismctl [OPTIONS] freelist post ep EP id ID addrs ADDR [ADDR...]\n"
		"       prismctl [OPTIONS] stats [show]\n"
		"       prismctl [OPTIONS] peer show [ep EP [peer MAC|IP peer_ep EP]]\n"
		"       prismctl [OPTIONS] monitor [all|endpoint|region|freelist]\n"
		"OPTIONS: -j/--json  JSON output\n"
		"         -p/--pretty  indented JSON\n"
		"         -s/--stats  counters (endpoint show; stats: per endpoint too)\n"
		"         -h/--help, -V/--version\n"
		"Numbers are decimal or 0x-prefixed hexadecimal.\n");
}

/* ------------------------------------------------------------------------
 * Dispatch
 */
struct object {
	const char		*name;
	const struct cmd	*cmds;	/* first one is the default */
};

static const struct object objects[] = {
	{ "endpoint", endpoint_cmds },
	{ "region", region_cmds },
	{ "freelist", freelist_cmds },
	{ "stats", stats_cmds },
	{ "peer", peer_cmds },
	{ "monitor", monitor_cmds },
	{ NULL, NULL },
};

/* Exact name or unambiguous prefix ("fl" is not one: use "free"). */
static const void *lookup(const char *word, const void *table, size_t stride)
{
	const char *p = table, *found = NULL;
	size_t len = strlen(word);
	const char *name;

	if (!len)
		return NULL;
	for (; (name = *(const char *const *)p); p += stride) {
		if (!strcmp(name, word))
			return p;
		if (!strncmp(name, word, len)) {
			if (found)
				return NULL;
			found = p;
		}
	}
	return found;
}

static int run(int argc, char **argv)
{
	const struct object *obj;
	const struct cmd *cmd;

	if (!argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[0], "help")) {
		usage(stdout);
		return 0;
	}
	obj = lookup(argv[0], objects, sizeof(*objects));
	if (!obj)
		return usage_error("unknown object '%s' (endpoint, region, freelist, stats, peer, monitor)",
				   argv[0]);
	argc--;
	argv++;
	if (argc && !strcmp(argv[0], "help")) {
		usage(stdout);
		return 0;
	}
	cmd = obj->cmds;
	if (argc) {
		cmd = lookup(argv[0], obj->cmds, sizeof(*obj->cmds));
		if (!cmd)
			return usage_error("%s: unknown command '%s'", obj->name,
					   argv[0]);
		argc--;
		argv++;
	}
	snprintf(what, sizeof(what), "%s %s", obj->name, cmd->name);
	return cmd->fn(argc, argv);
}

int main(int argc, char **argv)
{
	char **args;
	int nargs = 0, i, ret;
	bool opts_done = false;

	args = calloc((size_t)argc + 1, sizeof(*args));
	if (!args) {
		fprintf(stderr, "prismctl: out of memory\n");
		return 1;
	}
	/* Options may come anywhere, as in "prismctl stats -s". */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (opts_done || a[0] != '-' || !a[1]) {
			args[nargs++] = argv[i];
		} else if (!strcmp(a, "--")) {
			opts_done = true;
		} else if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			opt.json = true;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--pretty")) {
			opt.pretty = true;
		} else if (!strcmp(a, "-s") || !strcmp(a, "--stats")) {
			opt.stats = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			free(args);
			return 0;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("prismctl %s (netlink family %s version %d)\n",
			       PRISMCTL_VERSION, PRISM_GENL_NAME,
			       PRISM_GENL_VERSION);
			free(args);
			return 0;
		} else if (a[1] != '-' && strspn(a + 1, "jps") == strlen(a + 1)) {
			/* Bundled short options: -js, -jp. */
			opt.json |= !!strchr(a, 'j');
			opt.pretty |= !!strchr(a, 'p');
			opt.stats |= !!strchr(a, 's');
		} else {
			free(args);
			return usage_error("unknown option '%s'", a);
		}
	}
	out_init(opt.json, opt.pretty);
	ret = run(nargs, args);
	nl_close();
	free(args);
	if (ret == 0 && out_flush())
		ret = 1;
	return ret;
}
