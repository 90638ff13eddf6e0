// SPDX-License-Identifier: GPL-2.0
/*
 * prism_test: the C side of the PRISM selftests (run_all.sh drives it).
 *
 *   prism_test server IF EP INFO [--big MB]
 *	bind IF/EP, register the test regions and free lists, write INFO
 *	(atomically), then sleep in pause() forever.  Wherever a command
 *	takes an interface IF, "udp:IP" binds to UDP on local address IP
 *	instead, "udp" to UDP on any address (prism(7), "UDP")
 *   Clients take --dst ADDR ("IP[:PORT]/EP", "[IPV6%IF]/EP"; see
 *	prism_parse_addr(3)) to reach the server at another address than
 *	its info file says (one bound to any address, a link-local one)
 *   prism_test client CASE --if IF --info INFO [--peer-ns NS --peer-if IF]
 *	run one end-to-end case against the server; exit 0 = pass (the
 *	cases: cases/, listed in cases/registry.c)
 *   prism_test client-all --outdir DIR --if IF --info INFO [--peer-ns ..]
 *		[CASE...]
 *	run the cases (default: all), each in a forked child with a 120 s
 *	alarm; writes DIR/CASE.log (diagnostics) and DIR/CASE.rc
 *	("<exit status> <ms>"; status 124 = timed out, 125 = crashed)
 *   prism_test list
 *   prism_test hold IF READY
 *	open a bound socket, create READY, sleep
 *   prism_test delete-module NAME
 *	delete_module(NAME, O_NONBLOCK); prints "ok" or the errno name
 *   prism_test cas-init --info INFO --off OFF
 *   prism_test cas-incr --if IF --info INFO --off OFF --n N --ready F --go F
 *	create F(ready), wait for F(go), then N CAS increments of the
 *	8-byte counter at OFF of the server's region
 *   prism_test cas-check --if IF --info INFO --off OFF --expect V
 *   prism_test cas-read --if IF --info INFO --off OFF
 *	print the 8-byte counter at OFF, read with PRISM only (no
 *	process_vm_readv: works against a server on another kernel)
 *   prism_test ping --if IF --info INFO [--n TIMEOUT_MS]
 *	READ chains (200 ms timeout each) until the server answers: a
 *	bounded readiness check of the path (bridges, links)
 *   prism_test pmtu --if IF --info INFO --n LEN
 *	READs of LEN bytes until one completes whole, then 5 more that
 *	must (a path whose MTU just shrank)
 *   prism_test flood --if IF --info INFO --ready F
 *	keep chains in flight until the interface disappears; then check
 *	that every chain completed exactly once
 * Diagnostics are printed as "# ..." lines (TAP comments).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include "st.h"

struct opts {
	const char *ifname, *info, *peer_ns, *peer_if, *ready, *go, *outdir;
	const char *dst;
	__u64 off, expect;
	long n, big_mb;
};

/* The options of every command; a wrong one ends the program (status 2). */
static void parse_opts(int argc, char **argv, struct opts *o)
{
	const struct pu_opt lo[] = {
		PU_OPT("if", o->ifname, "IF", "interface"),
		PU_OPT("info", o->info, "FILE", "the server's info file"),
		PU_OPT("peer-ns", o->peer_ns, "NS", "the server's netns (cases that open a socket there)"),
		PU_OPT("peer-if", o->peer_if, "IF", "the server's interface in it"),
		PU_OPT("ready", o->ready, "FILE", "created when ready"),
		PU_OPT("go", o->go, "FILE", "start once it exists"),
		PU_OPT("off", o->off, "N", "offset of the counter in the RW region"),
		PU_OPT("expect", o->expect, "N", "expected counter value"),
		PU_OPT("n", o->n, "N", "how many"),
		PU_OPT("big", o->big_mb, "MB", "server: a big region of MB MiB"),
		PU_OPT("outdir", o->outdir, "DIR", "client-all: one file per case"),
		PU_OPT("dst", o->dst, "ADDR", "the server's address (default: its info file's)"),
		PU_OPT_END,
	};

	memset(o, 0, sizeof(*o));
	if (pu_parse_opts(argc, argv, lo, "prism_test COMMAND ... [options]") < 0)
		exit(2);
}

static void __attribute__((noreturn)) die(const char *what, int err)
{
	printf("# %s: %s\n", what, errno_name(err < 0 ? -err : err));
	fflush(stdout);
	exit(1);
}

/* ------------------------------------------------------------------------
 * server
 */
static void *map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap", errno);
	return p;
}

static int cmd_server(int argc, char **argv)
{
	union prism_sockaddr me;
	struct srv_info s;
	struct opts o;
	unsigned char *rwm, *ro, *na;
	__u64 *addrs, small;
	unsigned int i;
	int fd, err;

	if (argc < 4)
		die("usage: server IF EP INFO [--big MB]", EINVAL);
	parse_opts(argc - 3, argv + 3, &o);
	memset(&s, 0, sizeof(s));
	fd = prism_open_spec(argv[1], (__u32)strtoul(argv[2], NULL, 0));
	if (fd < 0)
		die("prism_open", fd);

	rwm = map(RW_LEN);
	ro = map(RO_LEN);
	na = map(NA_LEN);
	for (i = 0; i < PAT_END; i++)
		rwm[i] = pat(i);
	for (i = 0; i < RO_LEN; i++)
		ro[i] = ro_pat(i);
	s.rw_addr = (__u64)(uintptr_t)rwm;
	s.ro_addr = (__u64)(uintptr_t)ro;
	s.na_addr = (__u64)(uintptr_t)na;
	err = prism_reg_mr(fd, rwm, RW_LEN, PRISM_ACCESS_ALL, &s.rw_rkey);
	if (err)
		die("REG_MR rw", err);
	err = prism_reg_mr(fd, ro, RO_LEN, PRISM_ACCESS_REMOTE_READ, &s.ro_rkey);
	if (err)
		die("REG_MR ro", err);
	err = prism_reg_mr(fd, na, NA_LEN, PRISM_ACCESS_REMOTE_READ |
			   PRISM_ACCESS_REMOTE_WRITE, &s.na_rkey);
	if (err)
		die("REG_MR na", err);

	err = prism_fl_create(fd, s.rw_rkey, FL_BUF_SIZE, FL_COUNT, &s.fl_main);
	if (err)
		die("FL_CREATE main", err);
	addrs = calloc(FL_COUNT, sizeof(*addrs));
	for (i = 0; i < FL_COUNT; i++)
		addrs[i] = s.rw_addr + FL_OFF + (__u64)i * FL_BUF_SIZE;
	err = prism_fl_post(fd, s.fl_main, addrs, FL_COUNT);
	if (err)
		die("FL_POST main", err);
	free(addrs);
	err = prism_fl_create(fd, s.rw_rkey, SMALL_BUF_SIZE, 4, &s.fl_small);
	if (err)
		die("FL_CREATE small", err);
	small = s.rw_addr + SMALL_BUF;
	err = prism_fl_post(fd, s.fl_small, &small, 1);
	if (err)
		die("FL_POST small", err);

	if (o.big_mb > 0) {
		s.big_len = (__u64)o.big_mb << 20;
		na = map(s.big_len);
		memset(na, 0x5b, s.big_len);
		s.big_addr = (__u64)(uintptr_t)na;
		err = prism_reg_mr(fd, na, s.big_len, PRISM_ACCESS_REMOTE_READ,
				   &s.big_rkey);
		if (err)
			die("REG_MR big", err);
	}

	/*
	 * Posted buffers become allocatable after an RCU grace period;
	 * membarrier(GLOBAL) waits for one (on SMP).  Best effort: clients
	 * retry NO_BUFFER on their first ALLOC anyway.
	 */
	syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);

	err = prism_local_addr(fd, &me.eth);
	if (err)
		die("getsockname", err);
	s.pid = getpid();
	memcpy(s.mac, me.eth.sprism_mac, 6);
	s.ep = me.eth.sprism_ep;
	s.ifindex = me.eth.sprism_ifindex;
	if (me.eth.sprism_kind == PRISM_ADDR_UDP)
		prism_format_addr(&me.eth, s.addr);
	err = srv_info_save(argv[3], &s);
	if (err)
		die("writing the info file", err);
	/* Everything from here on is served by the kernel. */
	for (;;)
		pause();
	return 0;
}

/* ------------------------------------------------------------------------
 * client
 */
static int client_open(struct client *c, const struct opts *o)
{
	struct timeval tv = { .tv_sec = 20 };
	int err;

	if (!o->ifname || !o->info) {
		printf("# --if and --info are required\n");
		return -EINVAL;
	}
	err = srv_info_load(o->info, &c->s);
	if (err) {
		printf("# cannot load %s: %s\n", o->info, errno_name(-err));
		return err;
	}
	c->ifname = o->ifname;
	c->peer_ns = o->peer_ns;
	c->peer_if = o->peer_if;
	c->fd = prism_open_spec(o->ifname, 0);
	if (c->fd < 0) {
		printf("# prism_open(%s): %s\n", o->ifname, errno_name(-c->fd));
		return c->fd;
	}
	/* Guard against hangs: a blocking receive gives up after 20 s. */
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (o->dst)
		snprintf(c->s.addr, sizeof(c->s.addr), "%s", o->dst);
	err = st_dest(&c->s, &c->dst);
	if (err) {
		printf("# bad address %s: %s\n", c->s.addr, errno_name(-err));
		return err;
	}
	return prism_local_addr(c->fd, &c->me.eth);
}

static int cmd_client(int argc, char **argv)
{
	static struct client c;
	const struct st_case *k;
	struct opts o;

	if (argc < 2)
		die("usage: client CASE --if IF --info INFO", EINVAL);
	parse_opts(argc - 1, argv + 1, &o);
	for (k = st_cases; k->name; k++)
		if (!strcmp(k->name, argv[1]))
			break;
	if (!k->name) {
		printf("# unknown case %s\n", argv[1]);
		return 2;
	}
	if (client_open(&c, &o))
		return 1;
	st_failed = 0;
	return k->fn(&c) ? 1 : 0;
}

/* One case in a child process: its stdout goes to DIR/NAME.log. */
static int run_case_child(const struct st_case *k, const struct opts *o)
{
	static struct client c;
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s.log", o->outdir, k->name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		_exit(126);
	fflush(stdout);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
	alarm(120);
	if (client_open(&c, o))
		_exit(1);
	st_failed = 0;
	fd = k->fn(&c) ? 1 : 0;
	if (c.s.pid && kill(c.s.pid, 0)) {
		printf("# the server (pid %d) is gone\n", (int)c.s.pid);
		fd = 1;
	}
	fflush(stdout);
	_exit(fd);
}

static int cmd_client_all(int argc, char **argv)
{
	const struct st_case *k;
	struct opts o;
	char path[512], text[64];
	int i, status, rc, any = 0;
	long long t0;
	pid_t pid;

	parse_opts(argc, argv, &o);
	if (!o.outdir)
		die("client-all needs --outdir", EINVAL);
	for (k = st_cases; k->name; k++) {
		if (optind < argc) {
			for (i = optind; i < argc; i++)
				if (!strcmp(argv[i], k->name))
					break;
			if (i == argc)
				continue;
		}
		t0 = now_ms();
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			die("fork", errno);
		if (!pid)
			run_case_child(k, &o);
		if (waitpid(pid, &status, 0) < 0)
			die("waitpid", errno);
		if (WIFEXITED(status))
			rc = WEXITSTATUS(status);
		else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
			rc = 124;
		else
			rc = 125;
		snprintf(path, sizeof(path), "%s/%s.rc", o.outdir, k->name);
		snprintf(text, sizeof(text), "%d %lld\n", rc, now_ms() - t0);
		pu_write_atomic(path, text);
		any |= rc;
	}
	return any ? 1 : 0;
}

static int cmd_list(void)
{
	const struct st_case *k;

	for (k = st_cases; k->name; k++)
		printf("%-20s %s\n", k->name, k->help);
	return 0;
}

/* An endpoint that holds a socket open; with "keyed", a keyed region too. */
static int cmd_hold(int argc, char **argv)
{
	static const __u8 key[PRISM_KEY_SIZE] = { 1, 2, 3 };
	__u64 rkey;
	int fd, err;

	if (argc < 3)
		die("usage: hold IF READY [keyed]", EINVAL);
	fd = prism_open(argv[1], 0, 0);
	if (fd < 0)
		die("prism_open", fd);
	if (argc > 3 && !strcmp(argv[3], "keyed")) {
		err = prism_reg_mr_flags(fd, map(4096), 4096, PRISM_ACCESS_REMOTE_READ,
					 PRISM_MR_KEYED, &rkey);
		if (!err)
			err = prism_rekey(fd, rkey, key, 0, NULL);
		if (err)
			die("keyed region", err);
	}
	if (pu_write_atomic(argv[2], "ready\n"))
		die("ready file", errno);
	for (;;)
		pause();
	return 0;
}

static int cmd_delete_module(int argc, char **argv)
{
	if (argc < 2)
		die("usage: delete-module NAME", EINVAL);
	if (syscall(__NR_delete_module, argv[1], O_NONBLOCK)) {
		printf("%s\n", errno_name(errno));
		return 1;
	}
	printf("ok\n");
	return 0;
}

/* ------------------------------------------------------------------------
 * Concurrent CAS increments
 */
static int cmd_cas_init(int argc, char **argv)
{
	struct srv_info s;
	struct opts o;
	unsigned char z[8] = { 0 };
	int err;

	parse_opts(argc, argv, &o);
	if (!o.info || srv_info_load(o.info, &s))
		die("--info", EINVAL);
	err = poke(s.pid, s.rw_addr + o.off, z, 8);
	if (err)
		die("process_vm_writev", err);
	return 0;
}

static int cmd_cas_incr(int argc, char **argv)
{
	static struct client c;
	struct prism_chain_buf ch;
	const struct prism_msg *m;
	long done = 0, retries = 0;
	long long t0;
	struct opts o;
	__u64 cur, old;

	parse_opts(argc, argv, &o);
	if (!o.ready || !o.go || o.n <= 0 || client_open(&c, &o))
		die("usage: cas-incr --if --info --off --n --ready --go", EINVAL);
	if (cl_read_u64(&c, rw(&c, o.off), &cur))
		return 1;
	if (pu_write_atomic(o.ready, "ready\n"))
		die("ready file", errno);
	if (pu_wait_file(o.go, 60000))
		die("waiting for the go file", ETIMEDOUT);
	t0 = now_ms();
	while (done < o.n) {
		cl_chain(&c, &ch);
		prism_prep_cas_u64(&ch, c.s.rw_rkey, rw(&c, o.off), PRISM_CAS_EQ,
				   cur, cur + 1);
		m = cl_exec(&c, &ch, true);
		if (!m || prism_msg_u64(m, 0, &old))
			return 1;
		switch (prism_msg_op_status(m, 0)) {
		case PRISM_S_OK:
			cur++;
			done++;
			break;
		case PRISM_S_CMP_FAILED:
			/* Someone else got there: the old value is current. */
			cur = old;
			retries++;
			break;
		default:
			printf("# CAS status %s\n",
			       prism_status_str(prism_msg_op_status(m, 0)));
			return 1;
		}
	}
	printf("# %ld increments, %ld retries (lost races), %lld ms\n", done,
	       retries, now_ms() - t0);
	return 0;
}

static int cmd_cas_check(int argc, char **argv)
{
	static struct client c;
	unsigned char b[8];
	struct opts o;
	__u64 v = 0;

	parse_opts(argc, argv, &o);
	if (client_open(&c, &o))
		return 1;
	st_failed = 0;
	if (cl_read_u64(&c, rw(&c, o.off), &v))
		return 1;
	EXPECT_EQ(v, o.expect, "counter read with PRISM");
	if (peek(c.s.pid, rw(&c, o.off), b, 8))
		FAIL("process_vm_readv failed");
	else
		EXPECT_EQ(prism_get_le64(b), o.expect, "counter in server memory");
	printf("# counter = %llu\n", (unsigned long long)v);
	return st_failed;
}

static int cmd_cas_read(int argc, char **argv)
{
	static struct client c;
	struct opts o;
	__u64 v = 0;

	parse_opts(argc, argv, &o);
	if (client_open(&c, &o) || cl_read_u64(&c, rw(&c, o.off), &v))
		return 1;
	printf("%llu\n", (unsigned long long)v);
	return 0;
}

static int cmd_ping(int argc, char **argv)
{
	static struct client c;
	struct prism_chain_buf ch;
	struct opts o;
	long long t0 = now_ms(), end;
	int tries = 0;
	ssize_t n;

	parse_opts(argc, argv, &o);
	if (client_open(&c, &o))
		return 1;
	end = t0 + (o.n > 0 ? o.n : 10000);
	do {
		tries++;
		cl_chain(&c, &ch);
		prism_chain_set_timeout(&ch, 200);
		prism_prep_read(&ch, c.s.rw_rkey, rw(&c, 0), 8);
		n = prism_execute(c.fd, &c.dst.eth, &ch, c.out, sizeof(c.out));
		if (n > 0 && cl_msg(&c)->status == PRISM_S_OK) {
			printf("# server answered after %d tries, %lld ms\n", tries,
			       now_ms() - t0);
			return 0;
		}
	} while (now_ms() < end);
	printf("# no answer in %lld ms (%d tries; last: %s)\n", now_ms() - t0, tries,
	       n < 0 ? errno_name((int)-n) : prism_status_str(cl_msg(&c)->status));
	return 1;
}

/*
 * READs of n bytes of the RW region's pattern (n <= PAT_END): up to 20
 * tries (2 s deadline each) until one completes whole, then 5 that must
 * all complete whole.  Over a path whose MTU shrinks, the first answers
 * may be lost for good (sized for the old MTU); those after the ICMP
 * that taught the target the new one are not.
 */
static int cmd_pmtu(int argc, char **argv)
{
	static struct client c;
	struct prism_chain_buf ch;
	struct opts o;
	unsigned char *out;
	size_t cap;
	int i, tries = 0, good = 0, n;
	const struct prism_msg *m;
	const unsigned char *p;
	__u32 len;

	parse_opts(argc, argv, &o);
	if (o.n <= 0 || o.n > (long)PAT_END || client_open(&c, &o))
		die("usage: pmtu --if IF --info INFO --n LEN", EINVAL);
	cap = sizeof(struct prism_msg) + sizeof(struct prism_op_result) +
	      (size_t)o.n;
	out = malloc(cap);
	if (!out)
		die("malloc", ENOMEM);
	m = (const struct prism_msg *)out;
	while (good < 6 && tries < 26) {
		cl_chain(&c, &ch);
		prism_chain_set_timeout(&ch, 2000);
		prism_prep_read(&ch, c.s.rw_rkey, rw(&c, 0), (__u32)o.n);
		tries++;
		n = (int)prism_execute(c.fd, &c.dst.eth, &ch, out, cap);
		p = n > 0 && m->status == PRISM_S_OK ?
		    prism_msg_data(m, 0, &len) : NULL;
		for (i = 0; p && len == (__u32)o.n && i < o.n; i++)
			if (p[i] != pat((uint64_t)i))
				break;
		if (p && len == (__u32)o.n && i == o.n) {
			good++;
		} else if (good) {
			printf("# READ %d of %ld bytes after a good one: %s\n", tries,
			       o.n, n < 0 ? errno_name(-n) : prism_status_str(m->status));
			return 1;
		} else {
			printf("# READ %d: %s\n", tries,
			       n < 0 ? errno_name(-n) : prism_status_str(m->status));
		}
	}
	printf("# %d READs, %d whole\n", tries, good);
	free(out);
	return good == 6 ? 0 : 1;
}

/* ------------------------------------------------------------------------
 * Traffic while the interface disappears
 */
/*
 * Chains 1..BH go to a MAC nobody has, with the longest deadline a chain
 * may have (60 s): they are in flight for sure when the link is deleted,
 * and only the interface going away can complete them in time (with
 * NETDOWN).  The others go to the server, a window of 24 at a time, until
 * submission fails.  The script deletes the link once 50 of those have
 * completed: a loaded debug kernel under TCG has served fewer than 30
 * chains a second here.
 */
#define BH 8

static int cmd_flood(int argc, char **argv)
{
	static struct client c;
	const unsigned int window = 24 + BH;
	const long long deadline = now_ms() + 100000;
	unsigned char *seen = calloc(1u << 20, 1);
	unsigned long submitted = 0, completed = 0, st_count[PRISM_S_MAX + 1] = { 0 };
	unsigned int outstanding = 0, bh_netdown = 0;
	struct sockaddr_prism bh = { 0 };
	struct prism_chain_buf ch;
	struct prism_stats stats;
	const struct prism_msg *m;
	int send_err = 0, ready = 0, full = 0, i;
	long long stop_at = 0, last_at = 0, window_stalls = 0;
	struct opts o;
	ssize_t n;

	parse_opts(argc, argv, &o);
	if (!o.ready || client_open(&c, &o))
		die("usage: flood --if --info --ready", EINVAL);
	st_failed = 0;
	m = cl_msg(&c);
	prism_set_timeout(c.fd, 1000);
	{
		/*
		 * Receives time out after 15 s (the silent chains' deadline is
		 * 60 s) so a lost completion cannot hang us.
		 */
		struct timeval tv = { .tv_sec = 15 };

		setsockopt(c.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	bh = c.dst.eth;
	prism_parse_mac("02:00:00:00:99:96", bh.sprism_mac);
	for (i = 0; i < BH; i++) {
		prism_chain_init(&ch, c.cbuf, sizeof(c.cbuf), ++submitted);
		prism_chain_set_timeout(&ch, 60000);
		prism_prep_read(&ch, c.s.rw_rkey, rw(&c, 0), 8);
		if (prism_submit(c.fd, &bh, &ch))
			die("submitting to the black hole", errno);
		outstanding++;
	}
	while (now_ms() < deadline) {
		while (!send_err && !full && outstanding < window &&
		       submitted < (1u << 20) - 1) {
			int err;

			prism_chain_init(&ch, c.cbuf, sizeof(c.cbuf), submitted + 1);
			prism_prep_read(&ch, c.s.rw_rkey, rw(&c, (submitted % 512) * 64), 64);
			err = prism_submit(c.fd, &c.dst.eth, &ch);
			if (err == -ENOBUFS) {
				/*
				 * Ids may not be PRISM_WINDOW apart: the silent
				 * chains hold the window until the link goes.
				 */
				full = 1;
				window_stalls++;
				break;
			}
			if (err) {
				send_err = -err;
				stop_at = now_ms();
				break;
			}
			submitted++;
			outstanding++;
		}
		if (send_err && !outstanding)
			break;
		n = prism_wait(c.fd, c.out, sizeof(c.out));
		if (n == -EAGAIN) {
			FAIL("no completion for 15 s with %u chains outstanding", outstanding);
			break;
		}
		if (n < 0) {
			FAIL("recvmsg: %s", errno_name((int)-n));
			break;
		}
		if (m->kind != PRISM_MSG_COMPLETION || !m->user_data ||
		    m->user_data > submitted) {
			FAIL("unexpected message kind %u user_data %llu", m->kind,
			     (unsigned long long)m->user_data);
			continue;
		}
		if (seen[m->user_data]++) {
			FAIL("chain %llu completed twice", (unsigned long long)m->user_data);
			continue;
		}
		outstanding--;
		completed++;
		full = 0;
		last_at = now_ms();
		st_count[m->status]++;
		if (m->user_data <= BH) {
			if (m->status == PRISM_S_NETDOWN)
				bh_netdown++;
			else
				FAIL("chain %llu to the missing MAC completed with %s, not NETDOWN",
				     (unsigned long long)m->user_data,
				     prism_status_str(m->status));
		} else if (m->status != PRISM_S_OK && m->status != PRISM_S_NETDOWN &&
			   m->status != PRISM_S_TIMEOUT && m->status != PRISM_S_ABORTED) {
			FAIL("chain %llu status %s", (unsigned long long)m->user_data,
			     prism_status_str(m->status));
		}
		if (!ready && completed >= 50) {
			/* Traffic is flowing: the script may delete the link. */
			pu_write_atomic(o.ready, "ready\n");
			ready = 1;
		}
	}
	printf("# submitted %lu, completed %lu (OK %lu, NETDOWN %lu, TIMEOUT %lu, ABORTED %lu); %lld ENOBUFS window stalls; submission stopped with %s; last completion %lld ms after that\n",
	       submitted, completed, st_count[PRISM_S_OK], st_count[PRISM_S_NETDOWN],
	       st_count[PRISM_S_TIMEOUT], st_count[PRISM_S_ABORTED], window_stalls,
	       send_err ? errno_name(send_err) : "nothing",
	       stop_at && last_at ? last_at - stop_at : -1);
	EXPECT(ready, "traffic was flowing before the link went away");
	EXPECT(send_err == ENETDOWN || send_err == ENODEV || send_err == ENXIO,
	       "submission fails once the interface is gone (got %s)",
	       send_err ? errno_name(send_err) : "no error");
	EXPECT_EQ(bh_netdown, BH, "chains in flight to a silent MAC completed with NETDOWN");
	EXPECT_EQ(completed, submitted, "every submitted chain completed once");
	EXPECT_EQ(outstanding, 0, "chains outstanding at the end");
	prism_get_stats(c.fd, &stats);
	EXPECT_EQ(stats.chains_completed, stats.chains_sent, "socket stats: completed == sent");
	/* Nothing further arrives. */
	i = (int)prism_wait_from(c.fd, c.out, sizeof(c.out), NULL, MSG_DONTWAIT);
	EXPECT_ERR(i < 0 ? i : 0, EAGAIN, "no completion after draining");
	{
		int err;

		prism_chain_init(&ch, c.cbuf, sizeof(c.cbuf), 1);
		prism_prep_read(&ch, c.s.rw_rkey, rw(&c, 0), 8);
		err = prism_submit(c.fd, &c.dst.eth, &ch);
		EXPECT(err == -ENETDOWN || err == -ENODEV || err == -ENXIO,
		       "submitting on a socket whose interface is gone: %s",
		       err ? errno_name(-err) : "success");
	}
	close(c.fd);
	free(seen);
	return st_failed;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: %s server|client|list|hold|delete-module|cas-init|cas-incr|cas-check|flood ...\n",
			argv[0]);
		return 2;
	}
	argc--;
	argv++;
	if (!strcmp(argv[0], "server"))
		return cmd_server(argc, argv);
	if (!strcmp(argv[0], "client"))
		return cmd_client(argc, argv);
	if (!strcmp(argv[0], "client-all"))
		return cmd_client_all(argc, argv);
	if (!strcmp(argv[0], "list"))
		return cmd_list();
	if (!strcmp(argv[0], "hold"))
		return cmd_hold(argc, argv);
	if (!strcmp(argv[0], "delete-module"))
		return cmd_delete_module(argc, argv);
	if (!strcmp(argv[0], "cas-init"))
		return cmd_cas_init(argc, argv);
	if (!strcmp(argv[0], "cas-incr"))
		return cmd_cas_incr(argc, argv);
	if (!strcmp(argv[0], "cas-check"))
		return cmd_cas_check(argc, argv);
	if (!strcmp(argv[0], "cas-read"))
		return cmd_cas_read(argc, argv);
	if (!strcmp(argv[0], "pmtu"))
		return cmd_pmtu(argc, argv);
	if (!strcmp(argv[0], "ping"))
		return cmd_ping(argc, argv);
	if (!strcmp(argv[0], "flood"))
		return cmd_flood(argc, argv);
	fprintf(stderr, "unknown command %s\n", argv[0]);
	return 2;
}
