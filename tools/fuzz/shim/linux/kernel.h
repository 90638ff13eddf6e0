/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzzer stand-in for <linux/kernel.h>: see ../prism_shim.h. */
#ifndef _PRISM_FUZZ_LINUX_KERNEL_H
#define _PRISM_FUZZ_LINUX_KERNEL_H
#include "../prism_shim.h"
#endif
