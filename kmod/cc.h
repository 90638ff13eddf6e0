/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Congestion control and retransmission timeout of a client's chains: the
 * arithmetic, with no locking and no clock of its own (cc.c), so that KUnit
 * can drive it.  client.c keeps one window per target (remote congestion)
 * and one per socket (local congestion) and calls these under its reqs
 * lock.
 */
#ifndef _PRISM_CC_H
#define _PRISM_CC_H

#include <linux/types.h>

/* A window counts chains in units of 1/PRISM_CC_ONE. */
#define PRISM_CC_ONE		256U
/* A new window: 16 chains; a window never closes below one chain. */
#define PRISM_CC_INIT		(16 * PRISM_CC_ONE)
#define PRISM_CC_MIN		PRISM_CC_ONE
/* PRISM_WINDOW chains. */
#define PRISM_CC_MAX		(512 * PRISM_CC_ONE)
/* Multiplicative decrease: beta 0.8, by at most half at once. */
#define PRISM_CC_BETA		205U
#define PRISM_CC_MAX_MDF	128U
/* A path's remote delay target grows by its base delay / this. */
#define PRISM_CC_PATH_DIV	8U
/* Samples after which the fabric's base delay is forgotten, if not seen. */
#define PRISM_CC_BASE_EPOCH	256U

/**
 * struct prism_cc - a congestion window
 * @cwnd: chains allowed in flight, in 1/PRISM_CC_ONE (PRISM_CC_MIN to
 *        PRISM_CC_MAX)
 * @inflight: chains sent and not completed
 * @last_cut_ns: when the window was last reduced (ktime_get_ns())
 * @delay_us: smoothed delay signal (1/8 weight), what prismctl shows
 * @base_us: smallest fabric delay of this epoch and the last one; U32_MAX:
 *           none yet (remote windows only)
 * @epoch_min_us: smallest fabric delay of this epoch
 * @epoch_samples: samples in this epoch
 */
struct prism_cc {
	u32	cwnd;
	u32	inflight;
	u64	last_cut_ns;
	u32	delay_us;
	u32	base_us;
	u32	epoch_min_us;
	u32	epoch_samples;
};

/**
 * struct prism_rtt - RTT estimate of a target (RFC 6298)
 * @srtt_us: smoothed RTT; 0: no sample yet
 * @rttvar_us: RTT variation
 * @rto_us: retransmission timeout
 */
struct prism_rtt {
	u32	srtt_us;
	u32	rttvar_us;
	u32	rto_us;
};

void prism_cc_init(struct prism_cc *cc);
bool prism_cc_open(const struct prism_cc *cc);
bool prism_cc_delay(struct prism_cc *cc, u32 delay_us, u32 target_us,
		    u32 rtt_us, u64 now_ns);
bool prism_cc_loss(struct prism_cc *cc, u32 rtt_us, u64 sent_ns, u64 now_ns);
u32 prism_cc_fabric_excess(struct prism_cc *cc, u32 fabric_us);
u32 prism_cc_path_target(u32 target_us, u32 base_us);
u32 prism_rtt_sample(struct prism_rtt *r, u32 rtt_us, u32 min_us,
		     u32 max_us);

/* Module parameters (cc.c). */
bool prism_cc_enabled(void);
u32 prism_cc_target_us(void);
u32 prism_cc_local_us(void);
u32 prism_rto_min_us(void);
bool prism_cc_stamp(void);
bool prism_rto_hrtimer(void);

#endif /* _PRISM_CC_H */
