/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fuzzer stand-in for <linux/version.h>: the shim models the 6.1 API, so
 * kmod/compat.h picks its 6.1 branches.
 */
#ifndef _PRISM_FUZZ_LINUX_VERSION_H
#define _PRISM_FUZZ_LINUX_VERSION_H
#define KERNEL_VERSION(a, b, c)	(((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
#define LINUX_VERSION_CODE	KERNEL_VERSION(6, 1, 0)
#endif
