/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzzer stand-in for <linux/export.h>: see ../prism_shim.h. */
#ifndef _PRISM_FUZZ_LINUX_EXPORT_H
#define _PRISM_FUZZ_LINUX_EXPORT_H
#include "../prism_shim.h"
#endif
