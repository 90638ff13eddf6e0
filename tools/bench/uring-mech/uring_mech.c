// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring mechanism prototype for PRISM (benchmark only, not part of the
 * PRISM module).
 *
 * Two ways to hand a request to the kernel and get its reply back through
 * io_uring, doing the same (empty) "remote" work, so that a benchmark
 * measures nothing but the submission and completion mechanism:
 *
 *  - a socket family (number: module parameter "family"): sendmsg() takes
 *    a struct mech_req, the reply skb is queued to the socket's receive
 *    queue from softirq context (as PRISM does when a response frame
 *    arrives); recvmsg()/poll() are plain datagram ones, so io_uring
 *    SENDMSG and multishot RECV with provided buffers work on it;
 *
 *  - a misc device (/dev/prism_mech) with ->uring_cmd: the command is
 *    queued (-EIOCBQUEUED), the reply skb is built in the same softirq
 *    context, and the copy to the user buffer named in the command plus
 *    io_uring_cmd_done() happen in task context through
 *    io_uring_cmd_complete_in_task().
 *
 * Both paths allocate the same per-request record in process context and
 * the same reply skb in softirq context.  Softirq context comes from a
 * per-CPU tasklet that the submitter schedules with bottom halves
 * disabled, so that it runs at local_bh_enable() on the submitting CPU,
 * like the receive processing a veth transmit triggers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/io_uring.h>
#include <linux/llist.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <asm/unaligned.h>
#include <net/sock.h>

#include "uring_mech.h"

static int family = MECH_DEFAULT_FAMILY;
module_param(family, int, 0444);
MODULE_PARM_DESC(family, "address family number to register (default 25)");

enum mech_kind {
	MECH_SOCK,
	MECH_CMD,
};

/* One request, from submission to completion. */
struct mech_work {
	struct llist_node	node;
	enum mech_kind		kind;
	u32			len;
	u32			tag;
	u64			uaddr;		/* MECH_CMD: reply buffer */
	struct sk_buff		*skb;		/* MECH_CMD: reply, softirq -> task */
	union {
		struct sock		*sk;	/* MECH_SOCK: holds a reference */
		struct io_uring_cmd	*ioucmd;
	};
};

struct mech_cpu {
	struct llist_head	list;
	struct tasklet_struct	tasklet;
};

static DEFINE_PER_CPU(struct mech_cpu, mech_cpus);
static struct kmem_cache *mech_cache;
static atomic_long_t mech_drops;

static struct mech_work *mech_work_alloc(const struct mech_req *req,
					 bool nonblock)
{
	struct mech_work *w;

	w = kmem_cache_alloc(mech_cache, nonblock ? GFP_NOWAIT : GFP_KERNEL);
	if (!w)
		return NULL;
	w->len = req->len;
	w->tag = req->tag;
	w->uaddr = req->addr;
	w->skb = NULL;
	return w;
}

static bool mech_len_ok(u32 len)
{
	return len >= MECH_MIN_REPLY && len <= MECH_MAX_REPLY;
}

/* Softirq: the reply, as if it had just arrived from the network. */
static struct sk_buff *mech_reply(const struct mech_work *w)
{
	struct sk_buff *skb;
	u8 *p;

	skb = alloc_skb(w->len, GFP_ATOMIC);
	if (!skb)
		return NULL;
	p = skb_put(skb, w->len);
	put_unaligned_le64(w->tag, p);
	memset(p + 8, MECH_FILL, w->len - 8);
	return skb;
}

static void mech_complete_sock(struct mech_work *w, struct sk_buff *skb)
{
	struct sock *sk = w->sk;
	int err = -ENOMEM;

	if (skb && !sock_flag(sk, SOCK_DEAD))
		err = sock_queue_rcv_skb(sk, skb);
	if (err) {
		kfree_skb(skb);
		atomic_long_inc(&mech_drops);
	}
	sock_put(sk);
	kmem_cache_free(mech_cache, w);
}

/* Task context of the submitter: copy the reply out and post the CQE. */
static void mech_cmd_task(struct io_uring_cmd *ioucmd, unsigned int issue_flags)
{
	struct mech_work *w = *(struct mech_work **)ioucmd->pdu;
	ssize_t ret = w->len;

	if (!w->skb)
		ret = -ENOMEM;
	else if (current->flags & PF_KTHREAD)
		ret = -ECANCELED;	/* fallback worker: no user memory */
	else if (copy_to_user(u64_to_user_ptr(w->uaddr), w->skb->data, w->len))
		ret = -EFAULT;
	consume_skb(w->skb);
	kmem_cache_free(mech_cache, w);
	io_uring_cmd_done(ioucmd, ret, 0, issue_flags);
}

static void mech_complete_cmd(struct mech_work *w, struct sk_buff *skb)
{
	w->skb = skb;
	if (!skb)
		atomic_long_inc(&mech_drops);
	io_uring_cmd_complete_in_task(w->ioucmd, mech_cmd_task);
}

static void mech_tasklet(struct tasklet_struct *t)
{
	struct mech_cpu *mc = from_tasklet(mc, t, tasklet);
	struct llist_node *list = llist_del_all(&mc->list);
	struct mech_work *w, *tmp;

	list = llist_reverse_order(list);
	llist_for_each_entry_safe(w, tmp, list, node) {
		struct sk_buff *skb = mech_reply(w);

		if (w->kind == MECH_SOCK)
			mech_complete_sock(w, skb);
		else
			mech_complete_cmd(w, skb);
	}
}

/* Hand w to this CPU's tasklet; it runs at local_bh_enable(). */
static void mech_queue(struct mech_work *w)
{
	struct mech_cpu *mc;

	local_bh_disable();
	mc = this_cpu_ptr(&mech_cpus);
	llist_add(&w->node, &mc->list);
	tasklet_schedule(&mc->tasklet);
	local_bh_enable();
}

/* ------------------------------------------------------------------------
 * Socket path
 */

static struct proto mech_proto = {
	.name		= "PRISM_MECH",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct sock),
};

static void mech_sock_destruct(struct sock *sk)
{
	/* Replies queued after release() by a softirq still in flight. */
	skb_queue_purge(&sk->sk_receive_queue);
}

static int mech_release(struct socket *sock)
{
	struct sock *sk = sock->sk;

	if (!sk)
		return 0;
	sock_orphan(sk);
	sock->sk = NULL;
	skb_queue_purge(&sk->sk_receive_queue);
	sock_put(sk);
	return 0;
}

static int mech_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	bool nonblock = msg->msg_flags & MSG_DONTWAIT;
	struct mech_req req;
	struct mech_work *w;

	if (msg->msg_flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (len != sizeof(req))
		return -EINVAL;
	if (!copy_from_iter_full(&req, sizeof(req), &msg->msg_iter))
		return -EFAULT;
	if (!mech_len_ok(req.len))
		return -EINVAL;
	w = mech_work_alloc(&req, nonblock);
	if (!w)
		return nonblock ? -EAGAIN : -ENOMEM;
	w->kind = MECH_SOCK;
	sock_hold(sock->sk);
	w->sk = sock->sk;
	mech_queue(w);
	return len;
}

static int mech_recvmsg(struct socket *sock, struct msghdr *msg, size_t size,
			int flags)
{
	struct sock *sk = sock->sk;
	struct sk_buff *skb;
	size_t copied;
	int err;

	if (flags & (MSG_OOB | MSG_ERRQUEUE))
		return -EOPNOTSUPP;
	skb = skb_recv_datagram(sk, flags, &err);
	if (!skb)
		return err;
	copied = skb->len;
	if (copied > size) {
		copied = size;
		msg->msg_flags |= MSG_TRUNC;
	}
	err = skb_copy_datagram_msg(skb, 0, msg, copied);
	if (!err)
		err = (flags & MSG_TRUNC) ? skb->len : copied;
	skb_free_datagram(sk, skb);
	return err;
}

static const struct proto_ops mech_ops = {
	.family		= MECH_DEFAULT_FAMILY,
	.owner		= THIS_MODULE,
	.release	= mech_release,
	.bind		= sock_no_bind,
	.connect	= sock_no_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= sock_no_getname,
	.poll		= datagram_poll,
	.ioctl		= sock_no_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= sock_no_shutdown,
	.sendmsg	= mech_sendmsg,
	.recvmsg	= mech_recvmsg,
	.mmap		= sock_no_mmap,
};

static int mech_create(struct net *net, struct socket *sock, int protocol,
		       int kern)
{
	struct sock *sk;

	if (protocol)
		return -EPROTONOSUPPORT;
	if (sock->type != SOCK_DGRAM)
		return -ESOCKTNOSUPPORT;
	sk = sk_alloc(net, family, GFP_KERNEL, &mech_proto, kern);
	if (!sk)
		return -ENOMEM;
	sock->ops = &mech_ops;
	sock_init_data(sock, sk);
	sk->sk_destruct = mech_sock_destruct;
	return 0;
}

static struct net_proto_family mech_family_ops = {
	.create	= mech_create,
	.owner	= THIS_MODULE,
};

/* ------------------------------------------------------------------------
 * uring_cmd path
 */

static int mech_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags)
{
	bool nonblock = issue_flags & IO_URING_F_NONBLOCK;
	const struct mech_req *cmd = ioucmd->cmd;
	struct mech_req req;
	struct mech_work *w;

	BUILD_BUG_ON(sizeof(struct mech_req) != 16);
	BUILD_BUG_ON(sizeof(w) > sizeof(ioucmd->pdu));

	if (ioucmd->cmd_op != MECH_CMD_ECHO)
		return -ENOTTY;
	if (issue_flags & IO_URING_F_IOPOLL)
		return -EOPNOTSUPP;
	/* The command lives in the SQE: copy it before returning. */
	req.addr = READ_ONCE(cmd->addr);
	req.len = READ_ONCE(cmd->len);
	req.tag = READ_ONCE(cmd->tag);
	if (!mech_len_ok(req.len))
		return -EINVAL;
	w = mech_work_alloc(&req, nonblock);
	if (!w)
		return nonblock ? -EAGAIN : -ENOMEM;
	w->kind = MECH_CMD;
	w->ioucmd = ioucmd;
	*(struct mech_work **)ioucmd->pdu = w;
	mech_queue(w);
	return -EIOCBQUEUED;
}

static const struct file_operations mech_fops = {
	.owner		= THIS_MODULE,
	.llseek		= noop_llseek,
	.uring_cmd	= mech_uring_cmd,
};

static struct miscdevice mech_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= MECH_DEV_NAME,
	.fops	= &mech_fops,
	.mode	= 0600,
};

/* ------------------------------------------------------------------------
 * Module
 */

static void mech_cpus_kill(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct mech_cpu *mc = per_cpu_ptr(&mech_cpus, cpu);

		tasklet_kill(&mc->tasklet);
		WARN_ON_ONCE(!llist_empty(&mc->list));
	}
}

static int __init mech_init(void)
{
	int cpu, err;

	if (family <= 0 || family >= NPROTO) {
		pr_err("family=%d is out of range (1..%d)\n", family,
		       NPROTO - 1);
		return -EINVAL;
	}
	mech_cache = KMEM_CACHE(mech_work, 0);
	if (!mech_cache)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct mech_cpu *mc = per_cpu_ptr(&mech_cpus, cpu);

		init_llist_head(&mc->list);
		tasklet_setup(&mc->tasklet, mech_tasklet);
	}
	err = proto_register(&mech_proto, 0);
	if (err)
		goto out_cache;
	mech_family_ops.family = family;
	err = sock_register(&mech_family_ops);
	if (err) {
		if (err == -EEXIST)
			pr_err("address family %d is taken (is prism loaded?); load with family=<free number>\n",
			       family);
		goto out_proto;
	}
	err = misc_register(&mech_misc);
	if (err)
		goto out_sock;
	pr_info("loaded: family %d, /dev/%s\n", family, MECH_DEV_NAME);
	return 0;

out_sock:
	sock_unregister(family);
out_proto:
	proto_unregister(&mech_proto);
out_cache:
	kmem_cache_destroy(mech_cache);
	return err;
}

static void __exit mech_exit(void)
{
	/*
	 * Open sockets and files pin the module, and every pending request
	 * holds one of them, so nothing is in flight here.
	 */
	misc_deregister(&mech_misc);
	sock_unregister(family);
	proto_unregister(&mech_proto);
	mech_cpus_kill();
	kmem_cache_destroy(mech_cache);
	pr_info("unloaded (%ld replies dropped)\n", atomic_long_read(&mech_drops));
}

module_init(mech_init);
module_exit(mech_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("PRISM io_uring mechanism prototype: socket vs uring_cmd");
