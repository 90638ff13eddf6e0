#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command inside a throw-away qemu (TCG) guest that boots the target
# kernel with the host's root file system shared read-only over virtio-9p.
#
# Usage: tools/vm/run.sh [--kernel stock|k612|debug] [--timeout SEC] [--mem MB]
#                        [--smp N] [--dmesg FILE]
#                        [--net NETDEV --mac MAC [--mtu MTU] [--net-queues Q]]
#                        -- CMD [ARGS...]
#
# CMD runs as root in the guest, in the caller's working directory, with
# PATH, HOME, LANG, LC_ALL, TERM, every PRISM_* variable and the variables
# named in $PRISM_VM_ENV (space separated) copied from the caller.  With a
# single argument CMD is a shell command line (run with sh -c); with more
# it is an argv.  Its stdin is /dev/null; stdout/stderr stream here.
#
# Guest view: / = host root (read-only), /tmp and /run = fresh tmpfs,
# $PRISM_OUT (default <repo>/build/vm-out) = the host directory, writable:
# put results there.  The repository and the working directory, when they
# lie under the host's /tmp, are bound into the guest's /tmp at the same
# paths (read-only), so a clone in /tmp works; PRISM_OUT may lie there too
# (still writable), just not be /tmp itself or under /run.  At the end the
# guest's full kernel log is saved to
# $PRISM_OUT/dmesg-<kernel>-<time>-<pid>.txt (or the host path given by
# --dmesg FILE / $PRISM_VM_DMESG); its path is printed on stderr.  After a
# timeout it holds what the guest logged until then, and 10 s before the
# kill tools/vm/hang-dump.py samples where the vCPUs are (kernel symbol,
# prism.ko symbol, user space, idle) and the code addresses on their
# stacks through qemu's monitor; that is printed with the TIMEOUT message,
# with the last lines of the kernel log.
#
# Exit status: CMD's exit status; 124 if the host-side timeout (default
# 600 s) fired; 125 if the guest died before reporting one (panic, boot
# failure); 2 for usage errors.
#
# Network (optional): --net NETDEV gives the guest a virtio-net NIC on
# the qemu back end NETDEV (the -netdev arguments without the id, e.g.
# socket,mcast=239.255.1.2:5000,localaddr=127.0.0.1), --mac MAC (needed
# with --net) its address, --mtu MTU its MTU (also the device's
# host_mtu), --net-queues Q a NIC of Q queue pairs (mq=on: the back end
# must have queues=Q, e.g. a multi-queue tap).  Before CMD, stage 2 loads
# virtio_net, names that NIC eth0,
# sets the MTU, brings it up and waits (30 s at most) for carrier.
# tools/vm/multi.sh joins several guests this way.
#
# --kernel: stock = Debian's 6.1 (default), k612 = Debian's 6.12
# (linux-image-6.12-amd64), debug = tools/kernel/build-debug.sh's.
#
# Environment: PRISM_KVER (release booted as stock, default: see
# tools/kernel/kver.sh; by k612 too when it is a 6.12 release),
# PRISM_CACHE (default ~/.cache/prism),
# PRISM_VM_LOGLEVEL (console loglevel, default 4 = errors only).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${PRISM_CACHE:-$HOME/.cache/prism}

kernel=stock
tmo=600
mem=2048
smp=2
dmesg_file=${PRISM_VM_DMESG:-}
net= net_mac= net_mtu= net_queues=1

usage() {
	sed -n '3,/^set -euo/{/^set -euo/!p;}' "$0" | sed 's/^# \{0,1\}//' >&2
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=${2:?}; shift 2 ;;
	--timeout) tmo=${2:?}; shift 2 ;;
	--mem) mem=${2:?}; shift 2 ;;
	--smp) smp=${2:?}; shift 2 ;;
	--dmesg) dmesg_file=${2:?}; shift 2 ;;
	--net) net=${2:?}; shift 2 ;;
	--mac) net_mac=${2:?}; net_mac=${net_mac,,}; shift 2 ;;
	--mtu) net_mtu=${2:?}; shift 2 ;;
	--net-queues) net_queues=${2:?}; shift 2 ;;
	--) shift; break ;;
	-h|--help) usage 0 ;;
	*) echo "run.sh: unknown option '$1'" >&2; usage ;;
	esac
done
[ $# -ge 1 ] || usage
case $kernel in stock|k612|debug) ;; *) echo "run.sh: --kernel stock|k612|debug" >&2; exit 2 ;; esac
if [ -n "$net" ] || [ -n "$net_mac" ] || [ -n "$net_mtu" ]; then
	[ -n "$net" ] && [[ $net_mac =~ ^([0-9a-f]{2}:){5}[0-9a-f]{2}$ ]] &&
		[[ ${net_mtu:-1500} =~ ^[0-9]+$ ]] ||
		{ echo "run.sh: --net NETDEV needs --mac xx:xx:xx:xx:xx:xx (and --mtu a number)" >&2; exit 2; }
fi
[[ $net_queues =~ ^[1-8]$ ]] || { echo "run.sh: --net-queues 1..8" >&2; exit 2; }

say() { echo "vm: $*" >&2; }

modroot=
if [ "$kernel" != debug ]; then
	# Never `uname -r`: the host runs another kernel (see kver.sh).
	series=
	[ "$kernel" = k612 ] && series=6.12
	kver=$("$repo/tools/kernel/kver.sh" $series) || exit 2
	vmlinuz=/boot/vmlinuz-$kver
	[ -r "$vmlinuz" ] || { say "cannot read $vmlinuz"; exit 2; }
else
	# Builds the debug kernel first if needed (long, once).
	kenv=$("$repo/tools/kernel/build-debug.sh" --env) || exit 2
	eval "$kenv"
	kver=$KREL
	vmlinuz=$BZIMAGE
	modroot=$KOUT/modroot/lib/modules/$KREL
fi

# ---------------------------------------------------------------------------
# Initramfs: static busybox + (stock only) the 9p/virtio modules.  Cached,
# keyed by the kernel release and this script's hash (the init lives here).
# ---------------------------------------------------------------------------
write_init() {
	cat > "$1" <<'INIT'
#!/bin/busybox sh
# Stage 1 (initramfs, PID 1): load drivers, mount the host root, chroot.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /mods/order 2>/dev/null); do
	insmod "/mods/$m" || echo "init: insmod $m failed"
done
fail() { echo "init: $*"; reboot -f; }
mkdir -p /newroot
# cache=loose: the guest keeps what it read of the host's files (programs,
# libraries, scripts) in its page cache instead of asking qemu again at
# every exec and stat.  The host does not change them while a guest runs;
# what guests write and share goes through the uncached mounts below.
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot /newroot ||
	fail "cannot mount the host root over 9p"
mount -t proc proc /newroot/proc
mount -t sysfs sys /newroot/sys
mount -t devtmpfs dev /newroot/dev
mount -t tmpfs -o mode=755 run /newroot/run
# The host's /tmp stays reachable at /run/hosttmp: stage 2 binds the
# paths the run needs from there into the guest's own /tmp.
mkdir -p /newroot/run/hosttmp
mount -o bind /newroot/tmp /newroot/run/hosttmp ||
	echo "init: cannot bind the host's /tmp"
mount -t tmpfs -o mode=1777 tmp /newroot/tmp
mkdir -p /newroot/run/prism
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 prismrun /newroot/run/prism ||
	fail "cannot mount the run directory"
chroot /newroot /bin/bash /run/prism/stage2.sh ||
	echo "init: stage 2 failed ($?)"
sync
reboot -f
INIT
}

initramfs_for() {
	local kv=$1 mods=$2 key out work m f n=0
	key=$(sha256sum "$0" | cut -c1-12)
	out=$cache/initramfs/$kv-$key.cpio.gz
	if [ -f "$out" ]; then
		echo "$out"
		return
	fi
	mkdir -p "$cache/initramfs"
	work=$(mktemp -d "$cache/initramfs/.work.XXXXXX")
	mkdir -p "$work"/{bin,dev,proc,sys,mods,newroot}
	cp /bin/busybox "$work/bin/busybox"
	write_init "$work/init"
	chmod 755 "$work/init"
	if [ "$mods" = yes ]; then
		# Load order from modprobe's own dependency resolution.
		for m in 9p 9pnet_virtio virtio_pci; do
			modprobe -S "$kv" --show-depends "$m" | awk '$1 == "insmod" {print $2}'
		done | awk '!seen[$0]++' | while read -r f; do
			n=$((n + 1))
			local base
			base=$(printf '%02d-%s' "$n" "$(basename "$f")")
			# busybox insmod needs plain .ko files.
			case $f in
			*.xz) xz -dc "$f" > "$work/mods/${base%.xz}"; base=${base%.xz} ;;
			*.zst) zstd -qdc "$f" > "$work/mods/${base%.zst}"; base=${base%.zst} ;;
			*) cp "$f" "$work/mods/$base" ;;
			esac
			echo "$base" >> "$work/mods/order"
		done
		[ -s "$work/mods/order" ] || { rm -rf "$work"; say "no 9p/virtio modules found for $kv"; exit 2; }
	fi
	(cd "$work" && find . | cpio --quiet -o -H newc | gzip -1) > "$work.cpio.gz"
	mv "$work.cpio.gz" "$out"
	rm -rf "$work"
	echo "$out"
}

if [ "$kernel" != debug ]; then
	initrd=$(initramfs_for "$kver" yes)
else
	initrd=$(initramfs_for "$kver" no)
fi

# ---------------------------------------------------------------------------
# Per-run directory (its own 9p share): stage 2 script in, exit status out.
# ---------------------------------------------------------------------------
export PRISM_OUT=${PRISM_OUT:-$repo/build/vm-out}
mkdir -p "$PRISM_OUT"
PRISM_OUT=$(cd "$PRISM_OUT" && pwd -P)
case $PRISM_OUT in
/tmp|/run|/run/*) say "PRISM_OUT=$PRISM_OUT is hidden by a tmpfs in the guest; use another directory"; exit 2 ;;
esac
[ -n "$dmesg_file" ] || dmesg_file=$PRISM_OUT/dmesg-$kernel-$(date +%Y%m%d-%H%M%S)-$$.txt
case $dmesg_file in /*) ;; *) dmesg_file=$PWD/$dmesg_file ;; esac

cwd=$(pwd -P)
case $cwd in
/tmp|/run|/run/*) say "warning: $cwd is a tmpfs in the guest; the command will start in /" ;;
esac

# Host paths under /tmp the guest must see (its /tmp is a fresh tmpfs):
# the repository and the working directory; outermost first, nested ones
# dropped.  PRISM_OUT gets its own writable share, mounted after these.
tmp_binds=()
while read -r p; do
	[ -n "$p" ] || continue
	for q in ${tmp_binds[@]+"${tmp_binds[@]}"}; do
		case $p/ in "$q"/*) continue 2 ;; esac
	done
	tmp_binds+=("$p")
done < <(for p in "$(cd "$repo" && pwd -P)" "$cwd"; do
		case $p in /tmp/*) echo "$p" ;; esac
	done | LC_ALL=C sort -u)

rundir=$(mktemp -d "${TMPDIR:-/tmp}/prism-vm.XXXXXX")
cleanup() { rm -rf "$rundir"; }
trap cleanup EXIT

{
	echo '# Stage 2 (in the host root, read-only): generated by tools/vm/run.sh'
	echo 'set -u'
	echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
	printf 'out=%q\ncwd=%q\nmodroot=%q\n' "$PRISM_OUT" "$cwd" "$modroot"
	printf 'net_mac=%q\nnet_mtu=%q\n' "$net_mac" "$net_mtu"
	echo 'tmp_binds=()'
	for p in ${tmp_binds[@]+"${tmp_binds[@]}"}; do
		printf 'tmp_binds+=(%q)\n' "$p"
	done
	echo 'dmesg_file=/run/prism/dmesg.txt'
	cat <<'STAGE2'
for p in ${tmp_binds[@]+"${tmp_binds[@]}"}; do
	mkdir -p "$p" && mount --bind "/run/hosttmp/${p#/tmp/}" "$p" ||
		echo "vm: cannot bind $p from the host's /tmp"
done
umount -l /run/hosttmp 2>/dev/null
# PRISM_OUT may lie in the guest's /tmp: make its mount point there.
mkdir -p "$out" 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 prismout "$out" ||
	echo "vm: cannot mount PRISM_OUT=$out"
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
mkdir -p /dev/pts /dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts 2>/dev/null || true
mount -t tmpfs -o mode=1777 shm /dev/shm
# What udev would make: /dev/fd for process substitution (bash, dkms),
# /dev/std* for tools that write to them.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
for f in stdin:0 stdout:1 stderr:2; do
	[ -e "/dev/${f%:*}" ] || ln -s "/proc/self/fd/${f#*:}" "/dev/${f%:*}"
done
# The debug kernel's modules.builtin etc. live in the build cache; make
# them appear at /lib/modules/<release> so modprobe of built-ins works.
if [ -n "$modroot" ] && [ ! -d "/lib/modules/$(uname -r)" ]; then
	mount -t tmpfs -o mode=755 modules /lib/modules
	ln -s "$modroot" "/lib/modules/$(uname -r)"
fi
hostname prism-vm
ip link set lo up 2>/dev/null || true
# The NIC of --net: found by its MAC, named eth0, up with carrier.
if [ -n "$net_mac" ]; then
	modprobe virtio_net || echo "vm: modprobe virtio_net failed"
	nic= end=$((SECONDS + 30))
	while [ -z "$nic" ] && [ $SECONDS -lt $end ]; do
		for d in /sys/class/net/*; do
			[ "$(cat "$d/address" 2>/dev/null)" = "$net_mac" ] && nic=${d##*/}
		done
		[ -n "$nic" ] || sleep 0.1
	done
	if [ -z "$nic" ]; then
		echo "vm: no NIC with MAC $net_mac"
	else
		[ "$nic" = eth0 ] || ip link set dev "$nic" name eth0
		[ -z "$net_mtu" ] || ip link set dev eth0 mtu "$net_mtu"
		ip link set dev eth0 up
		until [ "$(cat /sys/class/net/eth0/carrier 2>/dev/null)" = 1 ] || [ $SECONDS -ge $end ]; do
			sleep 0.1
		done
		[ "$(cat /sys/class/net/eth0/carrier 2>/dev/null)" = 1 ] ||
			echo "vm: eth0 ($net_mac) has no carrier"
	fi
fi
# The kernel's text symbols for tools/vm/hang-dump.py (nokaslr: the same
# at every boot of one kernel image; the host caches them).
[ -e /run/prism/want-kallsyms ] &&
	grep ' [tT] ' /proc/kallsyms > /run/prism/kallsyms 2>/dev/null
# Stream the kernel log to the output file while the command runs, so
# something survives a guest hang; rewritten in full afterwards.
dmesg -w > "$dmesg_file" 2>/dev/null &
dmesg_pid=$!
# Where modules are loaded, for the hang dump: /proc/modules each time it
# changes (checked every 2 s).
(
	last=
	while :; do
		m=$(</proc/modules)
		if [ "$m" != "$last" ]; then
			echo "$m" > /run/prism/modules.new &&
				mv /run/prism/modules.new /run/prism/modules
			last=$m
		fi
		sleep 2
	done
) > /dev/null 2>&1 &
mods_pid=$!
. /run/prism/env.sh
cd "$cwd" 2>/dev/null || { echo "vm: cannot cd to $cwd, using /"; cd /; }
run_cmd < /dev/null
rc=$?
kill "$dmesg_pid" "$mods_pid" 2>/dev/null
wait "$dmesg_pid" "$mods_pid" 2>/dev/null
dmesg > "$dmesg_file"
echo "$rc" > /run/prism/rc
sync
STAGE2
} > "$rundir/stage2.sh"

# The caller's environment and the command, quoted for bash.
{
	for v in PATH HOME LANG LC_ALL TERM ${PRISM_VM_ENV:-} $(compgen -v PRISM_); do
		[ -n "${!v+set}" ] || continue
		printf 'export %s=%q\n' "$v" "${!v}"
	done
	printf 'export PRISM_OUT=%q PRISM_IN_VM=1 PRISM_VM_KERNEL=%q\n' "$PRISM_OUT" "$kernel"
	if [ $# -eq 1 ]; then
		printf 'run_cmd() { sh -c %q; }\n' "$1"
	else
		printf 'run_cmd() { %s; }\n' "$(printf '%q ' "$@")"
	fi
} > "$rundir/env.sh"

loglevel=${PRISM_VM_LOGLEVEL:-4}
# no_timer_check: on a loaded host (several TCG guests on few cores) the
# boot-time timer IRQ check fails at random ("IO-APIC + timer doesn't
# work!", a panic); the timer itself works.  nokaslr: the kernel's
# addresses are the same at every boot, those of the saved kallsyms (the
# hang dump below).
append="console=ttyS0 edd=off loglevel=$loglevel panic=-1 printk.devkmsg=on log_buf_len=8M no_timer_check nokaslr"

netargs=()
if [ -n "$net" ]; then
	mq=
	[ "$net_queues" -gt 1 ] && mq=",mq=on,vectors=$((2 * net_queues + 2))"
	netargs=(-netdev "$net,id=n0"
		-device "virtio-net-pci,netdev=n0,mac=$net_mac${net_mtu:+,host_mtu=$net_mtu}$mq")
fi
# Symbols of this kernel image (Debian's /boot/System.map is a stub):
# saved by the guest into the run directory the first time.
kallsyms=$cache/kallsyms-$kver-$(stat -c %s-%Y "$vmlinuz")
[ -s "$kallsyms" ] || : > "$rundir/want-kallsyms"
say "booting $kernel kernel $kver (timeout ${tmo}s)"
# qemu and the console filter run in the background and we wait for
# them, so a TERM/INT/HUP sent to this script (which bash would defer
# while a foreground pipeline runs) stops the guest at once.  The filter
# drops the serial console's CRs and the final reboot message.
# stdin from /dev/null: qemu must never grab the caller's terminal.
mkfifo "$rundir/console"
sed -u -e 's/\r$//' \
	-e '/^\[ *[0-9.]*\] reboot: Restarting system$/d' \
	-e '/^\[ *[0-9.]*\] \.\.MP-BIOS bug: 8254 timer not connected to IO-APIC$/d' \
	< "$rundir/console" &
filter_pid=$!
timeout -k 10 "$tmo" qemu-system-x86_64 \
	-machine q35 -accel tcg -cpu max,la57=off -smp "$smp" -m "$mem" \
	-nographic -no-reboot -nic none -bios qboot.rom \
	-kernel "$vmlinuz" -initrd "$initrd" -append "$append" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$PRISM_OUT,mount_tag=prismout,security_model=none,multidevs=remap" \
	-virtfs "local,path=$rundir,mount_tag=prismrun,security_model=none" \
	-monitor "unix:$rundir/monitor.sock,server=on,wait=off" \
	${netargs[@]+"${netargs[@]}"} \
	< /dev/null > "$rundir/console" &
timeout_pid=$!
# A guest about to time out: where its vCPUs are (kernel symbol, user,
# idle), sampled through qemu's monitor 10 s before the kill.
dump_pid=
if [ "$tmo" -gt 30 ]; then
	(
		trap 'kill "$sleeper" 2>/dev/null; wait "$sleeper"; exit 0' TERM
		sleep $((tmo - 10)) &
		sleeper=$!
		wait "$sleeper"
		syms=$kallsyms
		[ -s "$syms" ] || syms=$rundir/kallsyms
		python3 "$here/hang-dump.py" "$rundir/monitor.sock" "$syms" \
			"$rundir/modules" "${PRISM_KO:-$repo/kmod/prism.ko}"
	) > "$rundir/hang.txt" 2>&1 < /dev/null &
	dump_pid=$!
fi
stop_dump() {
	[ -n "$dump_pid" ] || return 0
	kill "$dump_pid" 2>/dev/null || true
	wait "$dump_pid" 2>/dev/null || true
	dump_pid=
}
stop_guest() {
	trap - INT TERM HUP
	say "interrupted: stopping the guest"
	stop_dump
	kill -TERM "$timeout_pid" 2>/dev/null	# timeout passes it on to qemu
	wait "$timeout_pid" "$filter_pid" 2>/dev/null
	exit 130
}
trap stop_guest INT TERM HUP
qstatus=0
wait "$timeout_pid" || qstatus=$?
wait "$filter_pid" || true
# After a timeout the dump has run (it ends before the kill); otherwise
# it is still sleeping.
if [ "$qstatus" -eq 124 ] || [ "$qstatus" -eq 137 ]; then
	[ -z "$dump_pid" ] || wait "$dump_pid" 2>/dev/null || true
	dump_pid=
else
	stop_dump
fi
trap - INT TERM HUP
if [ -s "$rundir/kallsyms" ] && [ ! -s "$kallsyms" ]; then
	mkdir -p "$cache" && cp "$rundir/kallsyms" "$kallsyms.$$" &&
		mv "$kallsyms.$$" "$kallsyms" || true
fi
# The guest wrote its kernel log into the run directory; keep it.
mkdir -p "$(dirname "$dmesg_file")"
if [ -f "$rundir/dmesg.txt" ]; then
	cp "$rundir/dmesg.txt" "$dmesg_file"
else
	echo "(the guest saved no kernel log)" > "$dmesg_file"
fi

if [ "$qstatus" -eq 124 ] || [ "$qstatus" -eq 137 ]; then
	say "TIMEOUT: guest did not finish within ${tmo}s (partial kernel log: $dmesg_file)"
	# The log's end tells what the kernel said last (a splat or a stall
	# that came after the tests' last line).
	say "the kernel log's last lines:"
	tail -n 30 "$dmesg_file" | sed 's/^/vm:   /' >&2
	if [ -s "$rundir/hang.txt" ]; then
		say "where the vCPUs were 10 s before the kill (tools/vm/hang-dump.py):"
		sed 's/^/vm:   /' "$rundir/hang.txt" >&2
	fi
	exit 124
fi
if [ ! -s "$rundir/rc" ]; then
	say "guest died without reporting an exit status (qemu status $qstatus; kernel log: $dmesg_file)"
	exit 125
fi
rc=$(cat "$rundir/rc")
say "exit status $rc; kernel log saved to $dmesg_file"
exit "$rc"
