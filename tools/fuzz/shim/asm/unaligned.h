/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzzer stand-in for <asm/unaligned.h>: see ../prism_shim.h. */
#ifndef _PRISM_FUZZ_ASM_UNALIGNED_H
#define _PRISM_FUZZ_ASM_UNALIGNED_H
#include "../prism_shim.h"
#endif
