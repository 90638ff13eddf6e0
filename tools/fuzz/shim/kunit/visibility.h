/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzzer stand-in for <kunit/visibility.h>: see ../prism_shim.h. */
#ifndef _PRISM_FUZZ_KUNIT_VISIBILITY_H
#define _PRISM_FUZZ_KUNIT_VISIBILITY_H
#include "../prism_shim.h"
#endif
