/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzzer stand-in for <net/sock.h>: see ../prism_shim.h. */
#ifndef _PRISM_FUZZ_NET_SOCK_H
#define _PRISM_FUZZ_NET_SOCK_H
#include "../prism_shim.h"
#endif
