// SPDX-License-Identifier: MIT
/*
 * PRISM-RS replica daemon.  Registers one region (metadata array, lock
 * slots, buffers), puts the buffers that hold no block on a free list,
 * writes its info line, then only recycles buffers: clients SEND the
 * addresses of buffers their CAS replaced (or that lost the race) and we
 * post them back to the free list.  All reads and writes are served by
 * the kernel without waking us.
 *
 *   rs_replica IFNAME EP INFOFILE [--blocks N] [--bsize B] [--bufs M]
 *		[--store both|abd|lock] [--rejoin F1,F2,..] [--keyed]
 *
 * --store: the state of both protocols (default), or only PRISM-RS's
 * (meta and buffers: 16 + 8 + bsize bytes per block) or only ABD-LOCK's
 * (lock slots: 16 + bsize bytes per block, and spare buffers only for
 * the free list the info line names), so that the paper's 8 M
 * blocks fit the memory of one host per protocol.  The info line then
 * names no lock slots (locks=0) or no meta (meta=0): the other
 * protocol's operations fail, they touch nothing.
 * The replica prints its bytes per block.
 *
 * --keyed: the region is keyed (prism(7), "Keyed regions"): a random
 * region key; clients' chains are sealed with keys derived for them, which
 * they ask for on the Unix socket INFOFILE.keys, named in the info line
 * (tools/lib/c/pu_keys.h).  Blocks and chains must then fit one frame.
 *
 * A replica that was killed and restarts has lost its blocks: were it to
 * answer at once, a write that only it and f others had acknowledged
 * would now be held by f replicas, and a read quorum could miss it.  With
 * --rejoin (the other replicas' info files) it first reads every block
 * from f + 1 of them (an ABD GET, tag included) and installs it, and only
 * then publishes its info line: a write that completes meanwhile is held
 * by f + 1 of the others, so any quorum that includes this replica still
 * meets it.  Only the ABD state (meta and buffers) is transferred, not
 * the ABD-LOCK baseline's lock slots.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rs.h"
#include "pu_keys.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "rs_replica: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

/*
 * State transfer (--rejoin): every block read from the peers named by the
 * comma-separated info files and installed in its initial buffer, before
 * anyone can reach us.  Returns the blocks that held data, or -errno.
 */
static long transfer(const char *peers, const char *ifname, unsigned char *mem,
		     unsigned char *bufs, __u32 bufsz, __u32 blocks, __u32 bsize)
{
	struct rs_config cfg = { .ifname = ifname, .client_id = 65535,
				 .mode = RS_MODE_ABD };
	char *list = strdup(peers), *tok, *save;
	struct rs_client *c;
	long written = 0;
	int err = 0;
	__u32 b;

	if (!list)
		return -ENOMEM;
	for (tok = strtok_r(list, ",", &save); tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		if (cfg.n + 1 >= RS_MAX_REPLICAS)
			err = -E2BIG;
		else
			err = rs_info_load(tok, &cfg.rep[cfg.n++]);
		if (!err && (cfg.rep[cfg.n - 1].blocks != blocks ||
			     cfg.rep[cfg.n - 1].bsize != bsize)) {
			fprintf(stderr, "rs_replica: %s: %u blocks of %u B, not %u of %u\n",
				tok, cfg.rep[cfg.n - 1].blocks,
				cfg.rep[cfg.n - 1].bsize, blocks, bsize);
			err = -EINVAL;
		}
	}
	free(list);
	if (!err && !cfg.n)
		err = -EINVAL;
	if (err)
		return err;
	/* A majority of all n + 1 replicas, none of them us. */
	cfg.quorum = (cfg.n + 1) / 2 + 1;
	err = rs_client_open(&c, &cfg);
	if (err)
		return err;
	for (b = 0; b < blocks && !err; b++) {
		unsigned char *buf = bufs + (__u64)b * bufsz;
		__u64 tag = 0;

		err = rs_get_tagged(c, b, buf + 8, &tag);
		prism_put_le64(buf, tag);
		prism_put_le64(mem + (__u64)b * 16 + 8, tag);
		written += tag != 0;
	}
	rs_client_close(c);
	return err ? err : written;
}

int main(int argc, char **argv)
{
	__u32 blocks = 1024, bsize = RS_DEFAULT_BSIZE, nbufs = 0, i, bufsz, spares;
	__u32 held;	/* blocks whose value is in a buffer: PRISM-RS state */
	const char *rejoin = NULL;
	int keyed = 0, store = 0;	/* both, abd, lock */
	struct pu_keysrv ks = { .fd = -1 };
	const struct pu_opt opts[] = {
		PU_OPT("blocks", blocks, "N", "blocks (default 1024)"),
		PU_OPT("bsize", bsize, "B", "value bytes per block, a multiple of 8 up to 65536 (default 512)"),
		PU_OPT("bufs", nbufs, "M", "buffers, more than --blocks (default blocks + 8192, fewer for blocks over 4 KiB: 64 MiB of spares, at least 1024)"),
		PU_OPT_CHOICE("store", store, "both|abd|lock", "whose state this replica holds (default both)"),
		PU_OPT("rejoin", rejoin, "F1,F2,..", "restarting: first read every block from these replicas (their info files)"),
		PU_OPT_FLAG("keyed", keyed, "a keyed region; clients get keys from INFOFILE.keys"),
		PU_OPT_END,
	};
	const char *synopsis = "rs_replica IFNAME EP INFOFILE [options]";
	_Static_assert(RS_MAX_BSIZE == 65536 && RS_DEFAULT_BSIZE == 512,
		       "the --bsize help names them");
	_Alignas(8) unsigned char msg[2048];
	unsigned long long posted = 0, rejected = 0;
	union prism_sockaddr me, src;
	__u64 meta_len, lock_len, buf_off, region_len, *addrs;
	struct sigaction sa;
	sigset_t block, waitmask;
	struct rs_info ri;
	unsigned char *mem;
	char line[512];
	int fd, err, argi;

	argi = pu_parse_opts(argc, argv, opts, synopsis);
	if (argi < 0)
		return 2;
	if (argc - argi != 3 || !blocks || !bsize || bsize > RS_MAX_BSIZE ||
	    (bsize & 7))
		return pu_opts_usage(opts, synopsis);
	if (store == 2 && rejoin)
		die("--rejoin transfers PRISM-RS state: not with --store lock", EINVAL);
	bufsz = 8 + bsize;
	held = store == 2 ? 0 : blocks;
	if (!nbufs) {
		/* 8192 spares, or 64 MiB of them for large blocks (>= 1024) */
		spares = (64u << 20) / bufsz;
		nbufs = held + (spares > 8192 ? 8192 : spares < 1024 ? 1024 : spares);
	}
	if (nbufs <= held)
		die("--bufs must exceed --blocks", EINVAL);

	/*
	 * SIGTERM/SIGINT stay blocked except inside ppoll(), so a signal
	 * cannot slip in between the stop check and the wait
	 * (prism_wait_from() below does not block: MSG_DONTWAIT).
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGINT);
	fd = prism_open_spec(argv[argi], (__u32)strtoul(argv[argi + 1], NULL, 0));
	if (fd < 0)
		die("prism_open", fd);
	/* Clients send buffer recycling as SEND-only chains. */
	err = prism_set_opt(fd, PRISM_OPEN_SEND, 1);
	if (err)
		die("PRISM_OPEN_SEND", err);

	/* Layout: meta | lock slots | buffers, each part page aligned. */
	meta_len = store == 2 ? 0 : ((__u64)blocks * 16 + 4095) & ~4095ULL;
	lock_len = store == 1 ? 0 :
		   ((__u64)blocks * rs_lock_stride(bsize) + 4095) & ~4095ULL;
	buf_off = meta_len + lock_len;
	region_len = buf_off + (((__u64)nbufs * bufsz + 4095) & ~4095ULL);
	mem = mmap(NULL, region_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (mem == MAP_FAILED)
		die("mmap", errno);
	memset(mem, 0, region_len);

	memset(&ri, 0, sizeof(ri));
	err = prism_reg_mr_flags(fd, mem, region_len, PRISM_ACCESS_ALL,
				 keyed ? PRISM_MR_KEYED : 0, &ri.rkey);
	if (err)
		die("register region", err);
	if (keyed) {
		err = pu_keysrv_start(&ks, argv[argi + 2], fd, ri.rkey,
				      PRISM_ACCESS_ALL);
		if (err)
			die("region key and key socket", err);
		strcpy(ri.keys, ks.path);
	}
	err = prism_fl_create(fd, ri.rkey, bufsz, nbufs, &ri.fl);
	if (err)
		die("create free list", err);

	/* Block b starts with buffer b: tag 0, value all zero. */
	for (i = 0; i < held; i++)
		prism_put_le64(mem + (__u64)i * 16,
			       (__u64)(uintptr_t)(mem + buf_off + (__u64)i * bufsz));
	addrs = calloc(nbufs - held, sizeof(*addrs));
	if (!addrs)
		die("calloc", ENOMEM);
	for (i = held; i < nbufs; i++)
		addrs[i - held] = (__u64)(uintptr_t)(mem + buf_off + (__u64)i * bufsz);
	for (i = 0; i < nbufs - held && !err; i += 65536)	/* the most per call */
		err = prism_fl_post(fd, ri.fl, addrs + i,
				    nbufs - held - i < 65536 ? nbufs - held - i : 65536);
	free(addrs);
	if (err)
		die("post free list", err);

	if (rejoin) {
		__u64 t0 = pu_now_ns();
		long got = transfer(rejoin, argv[argi], mem, mem + buf_off, bufsz,
				    blocks, bsize);

		if (got < 0)
			die("rejoin: state transfer", (int)got);
		fprintf(stderr, "rs_replica: rejoined: %u blocks read from the others, %ld of them written, in %llu ms\n",
			blocks, got, (unsigned long long)((pu_now_ns() - t0) / 1000000));
	}

	err = prism_local_addr(fd, &me.eth);
	if (err)
		die("getsockname", err);
	if (me.eth.sprism_kind == PRISM_ADDR_UDP)
		prism_format_addr(&me.eth, ri.addr);
	else
		memcpy(ri.mac, me.eth.sprism_mac, 6);
	ri.ep = me.eth.sprism_ep;
	ri.meta = meta_len ? (__u64)(uintptr_t)mem : 0;
	ri.locks = lock_len ? (__u64)(uintptr_t)(mem + meta_len) : 0;
	ri.blocks = blocks;
	ri.bsize = bsize;
	if (rs_info_format(&ri, line, sizeof(line)) < 0)
		die("info line", ENOSPC);
	/*
	 * Per block: meta, its buffer and the buffer's free list entry (16 B).
	 * Printed before the info line, which tells a driver to read it.
	 */
	fprintf(stderr, "rs_replica: blocks=%u bsize=%u store=%s per_block_B=%.1f region_MiB=%.1f\n",
		blocks, bsize, store == 0 ? "both" : store == 1 ? "abd" : "lock",
		(double)(meta_len + lock_len + (__u64)nbufs * (bufsz + 16)) / blocks,
		(double)region_len / (1 << 20));
	err = pu_write_atomic(argv[argi + 2], line);
	if (err)
		die("write info file", err);
	fprintf(stderr, "rs_replica: %s", line);

	/* Only buffer recycling wakes us up. */
	while (!stop) {
		const struct prism_msg *m = (const void *)msg;
		const unsigned char *d;
		__u64 ok[256];
		__u32 len, n = 0, k;
		ssize_t got;

		struct pollfd pfd[2] = {
			{ .fd = fd, .events = POLLIN },
			{ .fd = ks.fd, .events = POLLIN },	/* -1: none */
		};

		if (ppoll(pfd, 2, NULL, &waitmask) < 0)
			continue;	/* EINTR: look at stop */
		if (pfd[1].revents) {
			err = pu_keysrv_serve(&ks);
			if (err < 0)
				die("key socket", err);
		}
		if (!pfd[0].revents)
			continue;
		got = prism_wait_from(fd, msg, sizeof(msg), &src.eth, MSG_DONTWAIT);
		if (got == -EAGAIN || got == -EINTR)
			continue;
		if (got < 0)
			die("recvmsg", (int)got);
		if (m->kind != PRISM_MSG_SEND)
			continue;
		d = prism_msg_send_data(m, &len);
		for (k = 0; k + 8 <= len && n < 256; k += 8) {
			__u64 a = prism_get_le64(d + k);
			__u64 base = (__u64)(uintptr_t)(mem + buf_off);

			/* Only whole buffers of our pool can be recycled. */
			if (a < base || a >= base + (__u64)nbufs * bufsz ||
			    (a - base) % bufsz) {
				rejected++;
				continue;
			}
			ok[n++] = a;
		}
		if (n) {
			err = prism_fl_post(fd, ri.fl, ok, n);
			if (err)
				fprintf(stderr, "rs_replica: post: %s\n", strerror(-err));
			else
				posted += n;
		}
	}
	fprintf(stderr, "rs_replica: recycled=%llu rejected=%llu", posted, rejected);
	if (keyed)
		fprintf(stderr, " keys_served=%llu keys_refused=%llu",
			(unsigned long long)ks.served,
			(unsigned long long)ks.refused);
	fputc('\n', stderr);
	pu_keysrv_close(&ks);
	close(fd);
	return 0;
}
