# SPDX-License-Identifier: MIT
#
# Included by the Makefiles of the applications and benchmarks that use
# prism_util:
#   PU_DIR     this directory (add -I$(PU_DIR))
#   PU_SRC     the source to compile in with the program's own flags
#   PU_HDRS    what the objects depend on
#   pu_tap.h   (not in PU_HDRS) ok() for TAP unit tests
#   LC_SRC, LC_HDRS  the linearizability checker, its history files and
#              values that name their write
#              (lincheck.h), for the programs that record or check them
PU_DIR	:= $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
PU_SRC	:= $(PU_DIR)/prism_util.c
PU_HDRS	:= $(PU_DIR)/prism_util.h
LC_SRC	:= $(PU_DIR)/lincheck.c
LC_HDRS	:= $(PU_DIR)/lincheck.h
# PU_KEYS_SRC, PU_KEYS_HDRS  keys of keyed regions (pu_keys.h: the region
#              key, the key server on a Unix socket and the client's fetch),
#              for the programs that link liburing-prism
PU_KEYS_SRC	:= $(PU_DIR)/pu_keys.c
PU_KEYS_HDRS	:= $(PU_DIR)/pu_keys.h
