// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control of chains, after 1RMA's (Singhvi et al., SIGCOMM'20,
 * section 5 and its Algorithm 1): delay based, per destination, reacting
 * separately to remote and to local congestion, and the retransmission
 * timeout of RFC 6298.
 *
 * Each answered chain that was sent once gives delays:
 * - remote: what the target reports it waited before answering (from the
 *   request's arrival in its receive queue to its answer, in the answer's
 *   header) plus the fabric's delay above its base (RTT less the local and
 *   target delays, less the smallest such value of the last two epochs of
 *   PRISM_CC_BASE_EPOCH samples).  It drives the target's window.
 * - local: how long the answer waited in the client's own receive queue.
 *   Too many chains of this socket, to whatever targets, come back at once:
 *   it drives the socket's window.
 * The local and target delays need frames stamped on arrival (module
 * parameter cc_stamp, or anybody else turning receive timestamps on); the
 * clock read per frame is cheap on hardware (TSC) but not in a guest whose
 * clocksource is an emulated HPET.  Without stamps both read 0: the remote
 * delay is then the RTT above its recent minimum (queueing at the target
 * included), and the socket's window is never cut.
 * A delay at or under its target grows the window by one chain per answer
 * until the window was first cut (slow start), then by one chain per
 * window's worth of answers (additive increase); above it, the window is
 * cut in proportion to how far above (beta 0.8, at most by half), at most
 * once per RTT.  A retransmission timeout cuts by half, once per RTT and
 * once per flight (not for a chain sent before the last cut).  A chain is
 * sent while both windows have room; otherwise it waits in the
 * kernel (sendmsg() still accepts it) until a completion makes room.
 *
 * Nothing here locks or reads a clock: callers pass the time.
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/time64.h>
#include <kunit/visibility.h>
#include "cc.h"

/*
 * Off by default for now: in our single-kernel TCG tests its delay signal
 * is mostly the clients' own scheduling delay, and with it on PRISM-RS
 * with one slow replica lost chains (doc/DEPTH-BENCH.md).
 */
static bool cc;
module_param(cc, bool, 0644);
MODULE_PARM_DESC(cc, "congestion control of chains (default off)");

static unsigned int cc_target_us = 500;
module_param(cc_target_us, uint, 0644);
MODULE_PARM_DESC(cc_target_us,
		 "remote delay (target and fabric queueing) above which a target's window is cut (us, default 500)");

static unsigned int cc_local_us = 500;
module_param(cc_local_us, uint, 0644);
MODULE_PARM_DESC(cc_local_us,
		 "local receive delay above which a socket's window is cut (us, default 500)");

static bool cc_stamp;
module_param(cc_stamp, bool, 0444);
MODULE_PARM_DESC(cc_stamp,
		 "stamp every received frame of the host, so that the time frames wait in receive queues counts as local and target delay (one clock read per frame; default off)");

static bool rto_hrtimer;
module_param(rto_hrtimer, bool, 0644);
MODULE_PARM_DESC(rto_hrtimer,
		 "chain timers are hrtimers, so that a timeout under a jiffy is kept (costs a clock event programming per chain; default off: jiffies)");

static unsigned int rto_min_us = 1000;
module_param(rto_min_us, uint, 0644);
MODULE_PARM_DESC(rto_min_us,
		 "smallest retransmission timeout (us, 100 to 1000000, default 1000)");

bool prism_cc_enabled(void)
{
	return READ_ONCE(cc);
}

u32 prism_cc_target_us(void)
{
	return READ_ONCE(cc_target_us);
}

u32 prism_cc_local_us(void)
{
	return READ_ONCE(cc_local_us);
}

bool prism_rto_hrtimer(void)
{
	return READ_ONCE(rto_hrtimer);
}

bool prism_cc_stamp(void)
{
	return cc_stamp;
}

u32 prism_rto_min_us(void)
{
	return clamp(READ_ONCE(rto_min_us), 100U, 1000000U);
}

/**
 * prism_cc_init() - a new window
 * @cc: the window
 *
 * PRISM_CC_INIT chains, none in flight, no delay seen.
 *
 * Context: Any context.
 */
void prism_cc_init(struct prism_cc *cc)
{
	*cc = (struct prism_cc){
		.cwnd = PRISM_CC_INIT,
		.base_us = U32_MAX,
		.epoch_min_us = U32_MAX,
	};
}
EXPORT_SYMBOL_IF_KUNIT(prism_cc_init);

/**
 * prism_cc_open() - whether a window has room for one more chain
 * @cc: the window
 *
 * Context: Any context; the caller serializes @cc.
 * Return: true if fewer chains than whole chains of the window are in
 * flight (always at least one).
 */
bool prism_cc_open(const struct prism_cc *cc)
{
	return cc->inflight < max(cc->cwnd / PRISM_CC_ONE, 1U);
}
EXPORT_SYMBOL_IF_KUNIT(prism_cc_open);

/**
 * prism_cc_delay() - react to one delay sample
 * @cc: the window
 * @delay_us: the delay of an answer (remote or local, see the top of cc.c)
 * @target_us: the delay above which the window is cut
 * @rtt_us: the RTT of the chain: cuts are at least this far apart
 * @now_ns: the time, ktime_get_ns()
 *
 * Context: Any context; the caller serializes @cc.
 * Return: true if the window was cut.
 */
bool prism_cc_delay(struct prism_cc *cc, u32 delay_us, u32 target_us,
		    u32 rtt_us, u64 now_ns)
{
	u32 factor, inc;

	cc->delay_us = cc->delay_us ?
		       (u32)(((u64)cc->delay_us * 7 + delay_us) / 8) :
		       delay_us;
	if (delay_us <= target_us) {
		/*
		 * Until the first cut, one chain more per answer (the window
		 * doubles every RTT: a long path fills quickly); then one
		 * chain more per window of answers (rounded up: past 256
		 * chains, 1/PRISM_CC_ONE of a chain per answer).
		 */
		inc = PRISM_CC_ONE;
		if (cc->last_cut_ns)
			inc = DIV_ROUND_UP(PRISM_CC_ONE * PRISM_CC_ONE, cc->cwnd);
		cc->cwnd = min(cc->cwnd + inc, PRISM_CC_MAX);
		return false;
	}
	if (cc->last_cut_ns &&
	    now_ns - cc->last_cut_ns < (u64)rtt_us * NSEC_PER_USEC)
		return false;
	factor = PRISM_CC_ONE -
		 (u32)((u64)PRISM_CC_BETA * (delay_us - target_us) / delay_us);
	factor = max(factor, PRISM_CC_ONE - PRISM_CC_MAX_MDF);
	cc->cwnd = max(cc->cwnd * factor / PRISM_CC_ONE, PRISM_CC_MIN);
	cc->last_cut_ns = now_ns ?: 1;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(prism_cc_delay);

/**
 * prism_cc_loss() - react to a retransmission timeout or a NACK
 * @cc: the window of the target that did not answer
 * @rtt_us: its smoothed RTT: cuts are at least this far apart
 * @sent_ns: when the chain was first sent (ktime_get_ns())
 * @now_ns: the time, ktime_get_ns()
 *
 * One cut per flight: a chain sent before the last cut was in flight when
 * the window was cut, so its loss is part of what that cut answered.
 * Without this rule a stall (a burst of timeouts, every chain in flight at
 * once) halves the window once per chain, spaced by an RTT that can be
 * far shorter than the RTO: it collapses to one chain.
 *
 * Context: Any context; the caller serializes @cc.
 * Return: true if the window was cut (by half).
 */
bool prism_cc_loss(struct prism_cc *cc, u32 rtt_us, u64 sent_ns, u64 now_ns)
{
	if (cc->last_cut_ns &&
	    (sent_ns <= cc->last_cut_ns ||
	     now_ns - cc->last_cut_ns < (u64)rtt_us * NSEC_PER_USEC))
		return false;
	cc->cwnd = max(cc->cwnd * (PRISM_CC_ONE - PRISM_CC_MAX_MDF) /
		       PRISM_CC_ONE, PRISM_CC_MIN);
	cc->last_cut_ns = now_ns ?: 1;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(prism_cc_loss);

/**
 * prism_cc_path_target() - the remote delay target of one path
 * @target_us: the target of a path with no length (module parameter
 *             cc_target_us)
 * @base_us: the path's base fabric delay (struct prism_cc, U32_MAX: none)
 *
 * Longer paths jitter more: a fixed target would hold a path of 20 ms to
 * one chain as soon as its RTT wanders 500 us above its minimum, and it
 * would then carry one chain per 20 ms.  As Swift scales its target with
 * the path, this adds an eighth of the base delay (6 us on a 50 us LAN
 * path, 2.5 ms on a 20 ms one).
 *
 * Context: Any context.
 * Return: the target, in microseconds.
 */
u32 prism_cc_path_target(u32 target_us, u32 base_us)
{
	if (base_us == U32_MAX)
		return target_us;
	return target_us + base_us / PRISM_CC_PATH_DIV;
}
EXPORT_SYMBOL_IF_KUNIT(prism_cc_path_target);

/**
 * prism_cc_fabric_excess() - the fabric's delay above its base
 * @cc: the target's window
 * @fabric_us: the fabric delay of an answer (RTT less the local and the
 *             target's delays)
 *
 * The base is the smallest fabric delay of the current and the previous
 * epoch of PRISM_CC_BASE_EPOCH samples, so that a path that became slower
 * for good stops looking congested after two epochs.
 *
 * Context: Any context; the caller serializes @cc.
 * Return: @fabric_us less the base (this sample included), in microseconds.
 */
u32 prism_cc_fabric_excess(struct prism_cc *cc, u32 fabric_us)
{
	cc->epoch_min_us = min(cc->epoch_min_us, fabric_us);
	cc->base_us = min(cc->base_us, fabric_us);
	if (++cc->epoch_samples >= PRISM_CC_BASE_EPOCH) {
		/* Forget the epoch before last. */
		cc->base_us = cc->epoch_min_us;
		cc->epoch_min_us = U32_MAX;
		cc->epoch_samples = 0;
	}
	return fabric_us - min(cc->base_us, fabric_us);
}
EXPORT_SYMBOL_IF_KUNIT(prism_cc_fabric_excess);

/**
 * prism_rtt_sample() - update an RTT estimate (RFC 6298, section 2)
 * @r: the estimate
 * @rtt_us: a sample, from a chain sent once (Karn)
 * @min_us: floor of the timeout
 * @max_us: ceiling of the timeout
 *
 * SRTT and RTTVAR with gains 1/8 and 1/4; RTO = SRTT + 4 RTTVAR, with no
 * clock granularity term (the timers are hrtimers).
 *
 * Context: Any context; the caller serializes @r.
 * Return: the new timeout, also in @r->rto_us.
 */
u32 prism_rtt_sample(struct prism_rtt *r, u32 rtt_us, u32 min_us, u32 max_us)
{
	u32 delta;

	if (!r->srtt_us) {
		r->srtt_us = max(rtt_us, 1U);
		r->rttvar_us = rtt_us / 2;
	} else {
		delta = r->srtt_us > rtt_us ? r->srtt_us - rtt_us :
					      rtt_us - r->srtt_us;
		r->rttvar_us = (u32)(((u64)r->rttvar_us * 3 + delta) / 4);
		r->srtt_us = max((u32)(((u64)r->srtt_us * 7 + rtt_us) / 8),
				 1U);
	}
	r->rto_us = clamp_t(u64, (u64)r->srtt_us + 4ULL * r->rttvar_us,
			    min_us, max_us);
	return r->rto_us;
}
EXPORT_SYMBOL_IF_KUNIT(prism_rtt_sample);
