// SPDX-License-Identifier: MIT
/*
 * PRISM benchmark of indirection: latency of fetching a 512-byte value through a
 * pointer stored at the server, three ways, between two hosts:
 *
 *   indirect   one PRISM chain: READ|INDIRECT (the pointer is followed
 *              by the target's kernel)
 *   two_reads  two dependent PRISM chains: READ the pointer, then READ
 *              the value it names
 *   udp        a UDP request/response to a user-space server process that
 *              looks the value up and sends it back
 *
 * The three are measured interleaved (one of each per iteration, in an
 * order that rotates) so that drift and interference affect them alike;
 * warm-up iterations are excluded.  Every
 * response is checked against the expected bytes.
 *
 *   bench_indirect prism-server IF EP INFO
 *   bench_indirect udp-server IP PORT READY
 *   bench_indirect client --if IF --info INFO --udp IP:PORT [--n N]
 *                      [--warmup W] [--json FILE]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "bench_util.h"

#define VAL_SIZE	512u
#define NVALS		64u
#define REGION_LEN	(64u * 1024)
#define VAL_OFF		4096u		/* values; pointer table at 0 */

/* Pointer table at 0 (slot k -> value k), values at VAL_OFF. */
static void fill_region(unsigned char *mem)
{
	fill_pointed_values(mem, NVALS, VAL_OFF, VAL_SIZE);
}

static int prism_server(int argc, char **argv)
{
	return serve_region(argc, argv, REGION_LEN, PRISM_ACCESS_REMOTE_READ,
			    fill_region);
}

/* UDP server: request = 8-byte key, response = the 512-byte value. */
static int udp_server(int argc, char **argv)
{
	static unsigned char vals[NVALS][VAL_SIZE];
	struct sockaddr_in sa = { .sin_family = AF_INET }, from;
	unsigned char req[64];
	unsigned int k, i;
	socklen_t fl;
	ssize_t n;
	int fd;

	if (argc < 4)
		die("usage: udp-server IP PORT READY", EINVAL);
	for (k = 0; k < NVALS; k++)
		for (i = 0; i < VAL_SIZE; i++)
			vals[k][i] = val_byte(k, i);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	sa.sin_port = htons((unsigned short)atoi(argv[2]));
	if (fd < 0 || inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("udp bind", errno);
	if (pu_write_atomic(argv[3], "ready\n"))
		die("ready file", errno);
	for (;;) {
		fl = sizeof(from);
		n = recvfrom(fd, req, sizeof(req), 0, (struct sockaddr *)&from, &fl);
		if (n != 8)
			continue;
		k = (unsigned int)(prism_get_le64(req) % NVALS);
		sendto(fd, vals[k], VAL_SIZE, 0, (struct sockaddr *)&from, fl);
	}
	return 0;
}

struct series {
	const char *name;
	double *v;
	unsigned long n;
};

#define OUT_LEN		2048

/*
 * Chain id of one READ of len bytes at addr (READ|INDIRECT if indirect),
 * executed; its completion in out (OUT_LEN bytes, 8-byte aligned).
 */
static const struct prism_msg *read_chain(int fd, const struct sockaddr_prism *dst,
					  __u64 id, __u64 rkey, __u64 addr,
					  __u32 len, bool indirect,
					  unsigned char *out, const char *what)
{
	_Alignas(8) unsigned char cb[256];
	struct prism_chain_buf c;

	prism_chain_init(&c, cb, sizeof(cb), id);
	if (indirect)
		prism_prep_read_indirect(&c, rkey, addr, len);
	else
		prism_prep_read(&c, rkey, addr, len);
	return execute_or_die(fd, dst, &c, out, OUT_LEN, what);
}

/* One chain: READ|INDIRECT, the target's kernel follows the pointer. */
static double run_indirect(int fd, const struct sockaddr_prism *dst, __u64 rkey,
			   __u64 slot, unsigned int k, long it)
{
	_Alignas(8) unsigned char out[OUT_LEN];
	const struct prism_msg *m;
	double t0, d;

	t0 = pu_now_us();
	m = read_chain(fd, dst, (__u64)it * 4 + 1, rkey, slot, VAL_SIZE, true,
		       out, "indirect READ");
	d = pu_now_us() - t0;
	check_msg_value(m, k, VAL_SIZE, "indirect READ returned wrong bytes");
	return d;
}

/* Two dependent chains: READ the pointer, then READ what it names. */
static double run_two_reads(int fd, const struct sockaddr_prism *dst, __u64 rkey,
			    __u64 slot, unsigned int k, long it)
{
	_Alignas(8) unsigned char out[OUT_LEN];
	const struct prism_msg *m;
	double t0, d;
	__u64 ptr;

	t0 = pu_now_us();
	m = read_chain(fd, dst, (__u64)it * 4 + 2, rkey, slot, 8, false, out,
		       "pointer READ");
	if (prism_msg_u64(m, 0, &ptr))
		die("pointer READ", EIO);
	m = read_chain(fd, dst, (__u64)it * 4 + 3, rkey, ptr, VAL_SIZE, false,
		       out, "value READ");
	d = pu_now_us() - t0;
	check_msg_value(m, k, VAL_SIZE, "value READ returned wrong bytes");
	return d;
}

/* UDP request (8-byte key) and response (the value). */
static double run_udp(int ufd, unsigned int k)
{
	unsigned char req[8], resp[VAL_SIZE + 64];
	double t0, d;
	ssize_t got;

	t0 = pu_now_us();
	prism_put_le64(req, k);
	if (send(ufd, req, sizeof(req), 0) != sizeof(req))
		die("udp send", errno);
	got = recv(ufd, resp, sizeof(resp), 0);
	d = pu_now_us() - t0;
	if (got < 0)
		die("udp recv", errno);
	if (check_value(resp, (__u32)got, k, VAL_SIZE))
		die("UDP returned wrong bytes", EIO);
	return d;
}

static int client(int argc, char **argv)
{
	const char *ifname = NULL, *info = NULL, *udp = NULL, *json = NULL;
	long n = 2000, warmup = 200, it;
	union prism_sockaddr dst;
	struct sockaddr_in usa = { .sin_family = AF_INET };
	struct series s[3] = { { "prism_indirect_read", NULL, 0 },
			       { "prism_two_reads", NULL, 0 },
			       { "udp_rpc", NULL, 0 } };
	struct pu_lat_summary r[3];
	struct timeval tv = { .tv_sec = 5 };
	struct server_info si;
	char *colon;
	int fd, ufd, j;
	FILE *f;
	const struct pu_opt opts[] = {
		BENCH_CLIENT_OPTS(ifname, info, n, warmup, json),
		PU_OPT("udp", udp, "IP:PORT", "the UDP server (required)"),
		PU_OPT_END,
	};
	const char *synopsis = "bench_indirect client --if IF --info INFO --udp IP:PORT [options]";

	if (pu_parse_opts(argc, argv, opts, synopsis) < 0)
		return 2;
	if (!ifname || !info || !udp || n < 1 || warmup < 0)
		return pu_opts_usage(opts, synopsis);
	si = read_server(info, &dst);
	fd = prism_open_spec(ifname, 0);
	if (fd < 0)
		die("prism_open", fd);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	colon = strchr(udp, ':');
	if (!colon)
		die("--udp IP:PORT", EINVAL);
	*colon = '\0';
	usa.sin_port = htons((unsigned short)atoi(colon + 1));
	ufd = socket(AF_INET, SOCK_DGRAM, 0);
	if (ufd < 0 || inet_pton(AF_INET, udp, &usa.sin_addr) != 1 ||
	    connect(ufd, (struct sockaddr *)&usa, sizeof(usa)))
		die("udp connect", errno);
	setsockopt(ufd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	for (j = 0; j < 3; j++) {
		s[j].v = calloc((size_t)n, sizeof(double));
		if (!s[j].v)
			die("calloc", ENOMEM);
	}
	for (it = 0; it < warmup + n; it++) {
		unsigned int k = (unsigned int)(it % NVALS);
		__u64 slot = si.base + 8ull * k;
		double d[3];

		/*
		 * Rotate the order of the three methods every iteration so
		 * that no method always follows the same one (e.g. the UDP
		 * server still running after its reply).
		 */
		for (j = 0; j < 3; j++) {
			switch ((it + j) % 3) {
			case 0:
				d[0] = run_indirect(fd, &dst.eth, si.rkey, slot, k, it);
				break;
			case 1:
				d[1] = run_two_reads(fd, &dst.eth, si.rkey, slot, k, it);
				break;
			default:
				d[2] = run_udp(ufd, k);
				break;
			}
		}

		if (it >= warmup)
			for (j = 0; j < 3; j++)
				s[j].v[s[j].n++] = d[j];
	}
	for (j = 0; j < 3; j++)
		r[j] = pu_lat_summarize(s[j].v, s[j].n);

	printf("indirect-read benchmark: %u-byte value behind a pointer, %ld iterations (+%ld warm-up)\n",
	       VAL_SIZE, n, warmup);
	printf("  %-22s %10s %10s %10s %10s\n", "method", "median us", "p99 us",
	       "mean us", "min us");
	for (j = 0; j < 3; j++)
		printf("  %-22s %10.1f %10.1f %10.1f %10.1f\n", s[j].name, r[j].median,
		       r[j].p99, r[j].mean, r[j].min);
	printf("  ratio indirect / two reads (median): %.3f\n", r[0].median / r[1].median);
	printf("  ratio indirect / UDP (median):       %.3f\n", r[0].median / r[2].median);
	printf("  ratio indirect / two reads (min):    %.3f\n", r[0].min / r[1].min);
	printf("  ratio indirect / UDP (min):          %.3f\n", r[0].min / r[2].min);

	if (json) {
		f = json_open(json, "first");
		fprintf(f, "  \"value_size\": %u,\n  \"iterations\": %ld,\n  \"warmup\": %ld,\n",
			VAL_SIZE, n, warmup);
		fprintf(f, "  \"unit\": \"us\",\n  \"results\": {\n");
		for (j = 0; j < 3; j++)
			fprintf(f, "    \"%s\": {\"median\": %.2f, \"p99\": %.2f, \"mean\": %.2f, \"min\": %.2f, \"max\": %.2f}%s\n",
				s[j].name, r[j].median, r[j].p99, r[j].mean, r[j].min,
				r[j].max, j < 2 ? "," : "");
		fprintf(f, "  },\n  \"ratios\": {\n");
		fprintf(f, "    \"indirect_over_two_reads_median\": %.4f,\n", r[0].median / r[1].median);
		fprintf(f, "    \"indirect_over_udp_median\": %.4f,\n", r[0].median / r[2].median);
		fprintf(f, "    \"indirect_over_two_reads_min\": %.4f,\n", r[0].min / r[1].min);
		fprintf(f, "    \"indirect_over_udp_min\": %.4f,\n", r[0].min / r[2].min);
		fprintf(f, "    \"indirect_over_two_reads_p99\": %.4f,\n", r[0].p99 / r[1].p99);
		fprintf(f, "    \"indirect_over_udp_p99\": %.4f\n  }\n}\n", r[0].p99 / r[2].p99);
		close_or_die(f, json);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct subcommand cmds[] = {
		{ "prism-server", prism_server },
		{ "udp-server", udp_server },
		{ "client", client },
	};

	return run_subcommand(argc, argv, cmds, sizeof(cmds) / sizeof(cmds[0]));
}
