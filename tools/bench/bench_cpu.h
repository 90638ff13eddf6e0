/* SPDX-License-Identifier: MIT */
/*
 * bench_cpu, the target's CPU per op (issue 19, item 6): what its client
 * (bench_cpu.c) and its target's programs (bench_cpu_target.c: the PRISM
 * server, the UDP servers, the agent) share: the layout of the region,
 * the UDP request and response, and the agent's snapshot.
 */
#ifndef BENCH_CPU_H
#define BENCH_CPU_H

#include <stdint.h>

#include "bench_util.h"

/* Region (PRISM) and buffer (UDP): the same layout. */
#define NVALS		64u
#define VAL_OFF		4096u		/* values; pointer table at 0 */
#define CAS_OFF		8192u		/* one counter per slot */
#define WR_OFF		12288u		/* one written word per slot */
#define REGION_LEN	16384u
#define NSLOTS		BENCH_NSLOTS
#define OUT_SIZE	1024u
#define MMSG_BATCH	16u
#define WAIT_S		5

enum opk { OP_READ, OP_CAS, OP_IND, OP_CHAIN, NOPK };
enum stack { S_PRISM, S_UDP, S_MMSG, NSTACK };

/* UDP: request and response, little-endian */

/*
 * a[0..3]: offsets in the buffer (read8, cas8, indirect8: a[0]; chain4:
 * value, counter, pointer, written word); cmp/swap of the CAS; val of
 * the WRITE.
 */
struct udp_req {
	uint64_t tag;
	uint32_t op, pad;
	uint64_t a[4];
	uint64_t cmp, swap, val;
};

/*
 * status 0 or EINVAL (an address out of the buffer); r[]: the outputs,
 * 8 bytes each as in a PRISM completion (the CAS old value little-endian).
 */
struct udp_resp {
	uint64_t tag;
	uint32_t status, nres;
	uint64_t r[3];
};

_Static_assert(sizeof(struct udp_req) == 72, "udp_req layout");
_Static_assert(sizeof(struct udp_resp) == 40, "udp_resp layout");

/*
 * A snapshot: CLOCK_MONOTONIC (ns); the measured CPU's /proc/stat line
 * (USER_HZ ticks); the target netns' PRISM counters; interrupts, context
 * switches and NET_TX/NET_RX softirqs of the whole target (/proc/stat).
 */
enum {
	C_MONO, C_USER, C_NICE, C_SYS, C_IDLE, C_IOWAIT, C_IRQ, C_SOFTIRQ, C_STEAL,
	C_SERVED, C_OPS, C_DUPS, C_INTR, C_CTXT, C_NET_TX, C_NET_RX, NCOUNT
};

struct snap {
	uint64_t c[NCOUNT];
};

/* The target's programs (bench_cpu_target.c); usage in bench_cpu.c. */
int cpu_prism_server(int argc, char **argv);
int cpu_udp_server(int argc, char **argv);
int cpu_agent(int argc, char **argv);

#endif /* BENCH_CPU_H */
