/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Interface of the io_uring mechanism prototype (uring_mech.ko), shared by
 * the module and its userspace driver (mech_bench).
 *
 * A request asks for a reply of len bytes (MECH_MIN_REPLY..MECH_MAX_REPLY)
 * that starts with the request's tag as a little-endian __u64, followed by
 * MECH_FILL bytes.  The reply is built in softirq context, like a PRISM
 * completion that arrives from the network.
 *
 * Socket path: socket(family, SOCK_DGRAM, 0); send the 16-byte struct
 * mech_req (addr ignored) with send/sendmsg; receive the reply with
 * recv/recvmsg (or io_uring RECV, multishot with provided buffers).
 *
 * uring_cmd path: open MECH_DEV_PATH; IORING_OP_URING_CMD with cmd_op
 * MECH_CMD_ECHO and the 16-byte struct mech_req in sqe->cmd (a normal
 * 64-byte SQE has exactly 16 command bytes); the reply is copied to addr
 * and the CQE's res is len (or -errno).
 */
#ifndef URING_MECH_H
#define URING_MECH_H

#include <linux/types.h>

#define MECH_DEFAULT_FAMILY	25
#define MECH_DEV_NAME		"prism_mech"
#define MECH_DEV_PATH		"/dev/" MECH_DEV_NAME
#define MECH_CMD_ECHO		0x4d01
#define MECH_MIN_REPLY		8
#define MECH_MAX_REPLY		4096
#define MECH_FILL		0xa5

struct mech_req {
	__u64	addr;	/* uring_cmd: user buffer for the reply */
	__u32	len;	/* reply bytes */
	__u32	tag;	/* echoed in the reply's first 8 bytes */
};

#endif /* URING_MECH_H */
