// SPDX-License-Identifier: GPL-2.0
/*
 * large_sweep --outbuf: the checks of output buffers (PRISM_CMSG_OUTBUF)
 * beyond the sweep itself: a completion that carries the results alone
 * and leaves the bytes after an output untouched, a buffer of exactly the
 * outputs' size, a failed chain, and the refusals.  Each test returns
 * whether it passed and describes itself in msg; large_sweep.c prints the
 * TAP line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../st.h"	/* errno_name(), now_ms() */
#include "large_sweep.h"

/*
 * With an output buffer: m carries its results alone; op i's output of
 * len bytes is in the buffer (*p), and the bytes after it, padding aside,
 * are as before the chain.  0, or -1 with why filled.
 */
int check_outbuf(struct sweep *s, const struct prism_msg *m, unsigned int i,
		 size_t len, const unsigned char **p, char *why, size_t wl)
{
	size_t head = sizeof(*m) + m->nops * sizeof(m->res[0]), k;
	__u32 got;

	if (m->len != head) {
		snprintf(why, wl, "completion of %u B with an output buffer (expected %zu: the results alone)",
			 m->len, head);
		return -1;
	}
	*p = prism_msg_outbuf_data(m, i, s->ob, s->ob_len, &got);
	if (len && !*p) {
		snprintf(why, wl, "op %u: output [%u, +%u) outside the output buffer",
			 i, m->res[i].offset, m->res[i].len);
		return -1;
	}
	if (i || m->nops != 1)
		return 0;
	for (k = ALIGN8(len); k < s->ob_len && k < ALIGN8(len) + GUARD; k++)
		if (s->ob[k] != OB_FILL) {
			snprintf(why, wl, "output buffer byte %zu after a %zu B output written (0x%02x)",
				 k, len, s->ob[k]);
			return -1;
		}
	return 0;
}

/* A READ of --max-size bytes with an output buffer of exactly its size. */
int outbuf_exact(struct sweep *s, char *msg, size_t ml)
{
	size_t keep = s->ob_len;
	char why[256] = "";
	int bad;

	s->ob_len = ALIGN8(s->max_op);
	bad = do_read(s, OP_READ, s->max_op, why, sizeof(why));
	s->ob_len = keep;
	snprintf(msg, ml, "output buffer of exactly the outputs' size (%zu B) accepted, data exact%s%s",
		 ALIGN8(s->max_op), bad ? ": " : "", why);
	return !bad;
}

/*
 * A READ of --max-size bytes with an output buffer to an endpoint nobody
 * bound: the chain fails (NO_ENDPOINT, or TIMEOUT if that answer was
 * rate-limited), and its completion is the results alone.
 */
int outbuf_failed(struct sweep *s, char *msg, size_t ml)
{
	struct sockaddr_prism keep = s->dst;
	const struct prism_msg *m = NULL;
	struct prism_chain_buf c;
	char why[256] = "";
	size_t head;
	int bad;

	s->dst.sprism_ep += 1000;
	chain_init(s, &c);
	prism_chain_set_timeout(&c, 2000);
	prism_prep_read(&c, s->rkey, s->base + s->lay.r_off, (__u32)s->max_op);
	bad = !run_chain(s, &c, &m, why, sizeof(why));
	s->dst = keep;
	head = sizeof(*m) + sizeof(m->res[0]);
	snprintf(msg, ml, "a failed chain with an output buffer: status %s, completion of %u B (%zu: the result alone)%s%s",
		 m ? prism_status_str(m->status) : "none", m ? m->len : 0, head,
		 m ? "" : ": ", m ? "" : why);
	return !bad && m && (m->status == PRISM_S_NO_ENDPOINT ||
			     m->status == PRISM_S_TIMEOUT) &&
	       m->len == head && m->res[0].status == m->status;
}

/* Drop CAP_IPC_LOCK from this process: 0 or -errno. */
static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	const unsigned int bit = 1u << (CAP_IPC_LOCK % 32);

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[CAP_IPC_LOCK / 32].effective &= ~bit;
	d[CAP_IPC_LOCK / 32].permitted &= ~bit;
	d[CAP_IPC_LOCK / 32].inheritable &= ~bit;
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

/*
 * A READ of --max-size bytes submitted (sendmsg) with the output buffer
 * [buf, +len): 0 if accepted, else -errno.
 */
static int submit_read_ob(struct sweep *s, void *buf, size_t len)
{
	struct prism_chain_buf c;

	prism_chain_init(&c, s->cbuf, s->cbuf_len, ++s->next_ud);
	prism_prep_read(&c, s->rkey, s->base + s->lay.r_off,
			(__u32)s->max_op);
	prism_chain_set_outbuf(&c, buf, len);
	return prism_submit(s->fd, &s->dst, &c);
}

/* The same in a child without CAP_IPC_LOCK and with RLIMIT_MEMLOCK 0. */
static int submit_read_ob_unlocked(struct sweep *s)
{
	struct rlimit rl = { 0, 0 };
	int status, err;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		err = drop_ipc_lock();
		if (!err && setrlimit(RLIMIT_MEMLOCK, &rl))
			err = -errno;
		if (err) {
			printf("# child: dropping CAP_IPC_LOCK or RLIMIT_MEMLOCK: %s\n",
			       errno_name(-err));
			_exit(255);
		}
		err = submit_read_ob(s, s->ob, s->ob_len);
		_exit(err == -ENOMEM ? 0 : err ? -err : 254);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -ECHILD;
	status = WEXITSTATUS(status);
	return status == 0 ? -ENOMEM : status == 254 ? 0 : -status;
}

/*
 * Refused output buffers: one byte short, read-only, past RLIMIT_MEMLOCK;
 * each counted, and afterwards no page of the socket's stays pinned.
 */
int outbuf_refusals(struct sweep *s, char *msg, size_t ml)
{
	size_t need = ALIGN8(s->max_op);
	struct prism_stats st0, st1;
	int e_short, e_ro, e_lock, err;
	long long end;
	void *ro;

	err = prism_get_stats(s->fd, &st0);
	e_short = submit_read_ob(s, s->ob, need - 1);
	ro = mmap(NULL, need, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	e_ro = ro == MAP_FAILED ? -errno : submit_read_ob(s, ro, need);
	if (ro != MAP_FAILED)
		munmap(ro, need);
	e_lock = submit_read_ob_unlocked(s);
	/* The gauge falls when a chain is freed, after its completion. */
	end = now_ms() + 5000;
	do {
		err = err ? err : prism_get_stats(s->fd, &st1);
	} while (!err && st1.outbuf_pages && now_ms() < end &&
		 !usleep(10000));
	snprintf(msg, ml, "output buffer refused: one byte short %s, read-only %s, past RLIMIT_MEMLOCK without CAP_IPC_LOCK %s (expected EINVAL, EFAULT, ENOMEM); outbuf_refused +%llu (3); outbuf_pages %llu (0)%s%s",
		 errno_name(-e_short), errno_name(-e_ro), errno_name(-e_lock),
		 err ? 0ULL : (unsigned long long)(st1.outbuf_refused - st0.outbuf_refused),
		 err ? 0ULL : (unsigned long long)st1.outbuf_pages,
		 err ? "; stats: " : "", err ? errno_name(-err) : "");
	return !err && e_short == -EINVAL && e_ro == -EFAULT &&
	       e_lock == -ENOMEM &&
	       st1.outbuf_refused - st0.outbuf_refused == 3 && !st1.outbuf_pages;
}
