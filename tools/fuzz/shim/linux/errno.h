/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fuzzer stand-in for <linux/errno.h>.  glibc's <errno.h> includes this
 * header too, so it only pulls in the errno values.
 */
#ifndef _PRISM_FUZZ_LINUX_ERRNO_H
#define _PRISM_FUZZ_LINUX_ERRNO_H
#include <asm/errno.h>
#endif
