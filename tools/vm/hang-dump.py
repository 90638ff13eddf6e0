#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where a hung guest's vCPUs are: tools/vm/run.sh calls this just before
its timeout kills qemu.

Usage: hang-dump.py MONITOR_SOCKET [SYMBOLS [MODULES [PRISM_KO]]]

Asks qemu's human monitor (a unix socket) for every vCPU's registers
8 times, 0.25 s apart, and prints one line per vCPU and
sample: the instruction pointer, the privilege level, whether it is
halted (idle), and for kernel addresses the symbol from SYMBOLS (a file
in /proc/kallsyms or System.map format; the guest boots with nokaslr, so
the kernel's addresses are the same at every boot).  Addresses in
prism.ko are named from MODULES (the guest's /proc/modules) and nm of
PRISM_KO, as prism:SYMBOL+OFFSET (approximate: offsets from the start of
the module's text); other modules show as "module".  A vCPU stuck in one
function shows the same symbol in every sample.

Then, with the guest stopped for a moment, for every vCPU in the kernel
the kernel text addresses found in the 2 KiB above its stack pointer,
innermost first.  Like the kernel's own backtrace entries marked "?",
some are stale return addresses, but the callers of a function that
spins are there (which lock, taken from where).

Last, a vCPU that keeps trapping on an int3 that memory no longer holds
is named: qemu 7.2's TCG can go on running a translation of an int3 that
a kernel text patch (static key, static call) wrote and removed, and the
kernel, finding no int3 there, backs up and runs it again, forever.  That
is an emulator bug, not the guest's.
"""
import bisect
from collections import Counter
import re
import socket
import subprocess
import sys
import time

PROMPT = b"(qemu) "


def read_prompt(s):
    """What the monitor writes until its next prompt."""
    buf = b""
    while not buf.endswith(PROMPT):
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    return buf


def monitor(path, *cmds):
    """Run monitor commands in one session (a "cpu N" holds for the
    next ones), return the last one's output (escape codes removed)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    read_prompt(s)          # the banner
    for cmd in cmds:
        s.sendall(cmd.encode() + b"\n")
        buf = read_prompt(s)
    s.close()
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", buf.decode(errors="replace"))


def load_map(path):
    addrs, names = [], []
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and parts[1] in "tTwW":
                    addrs.append(int(parts[0], 16))
                    names.append(parts[2])
    except OSError:
        pass
    return addrs, names


def load_module(modules, ko):
    """prism's base, size and text symbols (offsets, names), or None."""
    base = size = None
    try:
        with open(modules) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 6 and parts[0] == "prism":
                    size, base = int(parts[1]), int(parts[5], 16)
        out = subprocess.run(["nm", "--defined-only", ko], text=True,
                             capture_output=True).stdout
    except (OSError, ValueError):
        return None
    if base is None:
        return None
    syms = sorted((int(p[0], 16), p[2]) for p in
                  (line.split() for line in out.splitlines())
                  if len(p) == 3 and p[1] in "tT")
    return base, size, [a for a, _ in syms], [n for _, n in syms]


def where(rip, cpl, addrs, names, mod):
    if cpl == 3 or rip < 0x800000000000:
        return "user"
    if mod and mod[0] <= rip < mod[0] + mod[1]:
        i = bisect.bisect_right(mod[2], rip - mod[0]) - 1
        if i >= 0:
            return "prism:%s+0x%x" % (mod[3][i], rip - mod[0] - mod[2][i])
        return "prism"
    i = bisect.bisect_right(addrs, rip) - 1
    if rip >= 0xffffffffc0000000 and (i < 0 or rip - addrs[i] > 0x10000):
        return "module"
    if i < 0:
        return "kernel"
    return "%s+0x%x" % (names[i], rip - addrs[i])


def is_text(addr, addrs, mod):
    """addr is in the kernel's text or in prism's."""
    if mod and mod[0] <= addr < mod[0] + mod[1]:
        return True
    i = bisect.bisect_right(addrs, addr) - 1
    return i >= 0 and addr - addrs[i] < 0x10000 and \
        addr < 0xffffffffc0000000


def stack_scan(sock, cpu, rsp, addrs, names, mod):
    """The text addresses on a vCPU's stack, symbolized."""
    out = monitor(sock, "cpu %s" % cpu, "x/256gx 0x%x" % rsp)
    found = []
    for line in out.splitlines():
        for word in re.findall(r"0x([0-9a-f]{16})", line.split(":", 1)[-1]):
            v = int(word, 16)
            if is_text(v, addrs, mod):
                found.append(where(v, 0, addrs, names, mod))
    return found


def registers(sock):
    """(cpu, rip, cpl, halted, rsp) of every vCPU, from the monitor."""
    regs = []
    cpu, rsp = "?", None
    for line in monitor(sock, "info registers -a").splitlines():
        m = re.match(r"\s*CPU#(\d+)", line)
        if m:
            cpu, rsp = m.group(1), None
        m = re.search(r"RSP=([0-9a-f]+)", line)
        if m:
            rsp = int(m.group(1), 16)
        m = re.search(r"RIP=([0-9a-f]+) .*CPL=(\d).*HLT=(\d)", line)
        if m:
            regs.append((cpu, int(m.group(1), 16), int(m.group(2)),
                         m.group(3) == "1", rsp))
    return regs


def int3_loops(sock, kcpu, seen, addrs, names, mod):
    """The vCPUs that keep trapping on an int3 memory no longer holds;
    memory is read through kcpu, a vCPU in the kernel (its page tables
    map the kernel's text)."""
    for cpu, rips in sorted(seen.items()):
        if not any("int3" in where(r, 0, addrs, names, mod) for r in rips):
            continue
        for rip, count in rips.items():
            name = where(rip, 0, addrs, names, mod)
            if count < 3 or "int3" in name:
                continue
            out = monitor(sock, "cpu %s" % kcpu, "x/1bx 0x%x" % rip)
            m = re.search(r":\s*0x([0-9a-f]{2})", out)
            if m and m.group(1) != "cc":
                print("cpu %s: int3 loop at %s: memory holds 0x%s there,"
                      " not int3 (a stale qemu TCG translation of a"
                      " kernel text patch)" % (cpu, name, m.group(1)))


def stopped(sock, seen, addrs, names, mod):
    """With the guest stopped (a running vCPU may leave the kernel, and its
    page tables, between a register dump and a read): each busy vCPU's
    stack, then the int3 loops among the samples."""
    monitor(sock, "stop")
    try:
        kcpu = None
        for cpu, _, cpl, halted, rsp in registers(sock):
            if cpl != 0:
                continue
            kcpu = kcpu or cpu
            if halted or rsp is None:
                continue
            found = stack_scan(sock, cpu, rsp, addrs, names, mod)
            print("stack cpu %s (text addresses above rsp %016x):" %
                  (cpu, rsp))
            for f in found[:40]:
                print("  ? %s" % f)
        if kcpu is not None:
            int3_loops(sock, kcpu, seen, addrs, names, mod)
    finally:
        monitor(sock, "cont")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sock = sys.argv[1]
    addrs, names = load_map(sys.argv[2]) if len(sys.argv) > 2 else ([], [])
    mod = load_module(sys.argv[3], sys.argv[4]) if len(sys.argv) > 4 \
        else None
    seen = {}               # cpu -> Counter of its kernel rips
    try:
        for n in range(8):
            for cpu, rip, cpl, halted, _ in registers(sock):
                print("sample %d cpu %s rip %016x cpl %d%s %s" %
                      (n, cpu, rip, cpl, " halted" if halted else "",
                       where(rip, cpl, addrs, names, mod)))
                if cpl == 0:
                    seen.setdefault(cpu, Counter())[rip] += 1
            time.sleep(0.25)
        stopped(sock, seen, addrs, names, mod)
    except OSError as e:
        print("hang-dump: monitor: %s" % e)


if __name__ == "__main__":
    main()
