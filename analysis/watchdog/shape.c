/* SPDX-License-Identifier: MIT */
/*
 * The shape of a finding (psa_watchdog.h: class, place, evidence, role), from what the
 * watchdog already decided about the stall - its cause, its task's kind and state, whether the
 * driver's watchdog fired, a failure or a fault was recorded, where its chain leads, and
 * whether it began after the job began to end (watchdog/teardown.c).
 *
 * Design choice: a pure function of the stall, so the live watch, the reports and the JSON say
 * the same thing without the watchdog carrying four more fields through its chain-following.
 */
#include <stdio.h>

#include "watchdog/watchdog_int.h"

static const char *const class_names[PSA_CLASS_NR] = { "hang", "slow" };
static const char *const place_names[PSA_PLACE_NR] = {
	"transport", "peer", "message", "device", "process", "worker", "barrier", "unknown",
};
static const char *const evidence_names[PSA_EVIDENCE_NR] = { "observed", "inferred" };
static const char *const role_names[PSA_ROLE_NR] = {
	"initiating", "cascade", "unattributed", "teardown",
};

const char *psa_class_str(enum psa_class c)
{
	return (unsigned)c < PSA_CLASS_NR ? class_names[c] : "?";
}

const char *psa_place_str(enum psa_place p)
{
	return (unsigned)p < PSA_PLACE_NR ? place_names[p] : "?";
}

bool psa_place_in_seam(enum psa_place p)
{
	return p == PSA_PLACE_TRANSPORT || p == PSA_PLACE_PEER || p == PSA_PLACE_MESSAGE;
}

const char *psa_evidence_str(enum psa_evidence e)
{
	return (unsigned)e < PSA_EVIDENCE_NR ? evidence_names[e] : "?";
}

const char *psa_role_str(enum psa_role r)
{
	return (unsigned)r < PSA_ROLE_NR ? role_names[r] : "?";
}

static enum psa_place place_of(const struct psa_stall *s)
{
	if (s->failed)
		return PSA_PLACE_PROCESS; /* it failed on a rank of a process that died */
	switch (s->cause) {
	case PSA_CAUSE_DEVICE_NO_TRIGGER:
	case PSA_CAUSE_GATE_WAIT: /* the barrier waits on its exec's trigger word */
		return PSA_PLACE_DEVICE;
	case PSA_CAUSE_TASK_ERROR:
		return s->kind == PSA_KIND_BARRIER ? PSA_PLACE_BARRIER : PSA_PLACE_TRANSPORT;
	case PSA_CAUSE_MESSAGE_LOST:
		return PSA_PLACE_MESSAGE;
	case PSA_CAUSE_WORKER_STALLED:
		return PSA_PLACE_WORKER;
	case PSA_CAUSE_SLOW_PROGRESS:
	case PSA_CAUSE_SLOW_TRANSFER: /* the transfer through the seam moves, slowly */
	case PSA_CAUSE_HOST_UNREACHABLE: /* the link to the host went down */
		return PSA_PLACE_TRANSPORT;
	case PSA_CAUSE_PROCESS_DIED:
		return PSA_PLACE_PROCESS;
	case PSA_CAUSE_WAITING_ON_PEER:
		return PSA_PLACE_PEER;
	case PSA_CAUSE_BARRIER_WAIT:
		return PSA_PLACE_BARRIER;
	case PSA_CAUSE_SLOW_STATE:
		if (s->state == PSA_STATE_WAITING_DEVICE_TRIGGER)
			return PSA_PLACE_DEVICE;
		return s->kind == PSA_KIND_BARRIER ? PSA_PLACE_BARRIER : PSA_PLACE_PEER;
	default:
		return PSA_PLACE_UNKNOWN;
	}
}

/* An event shows it, or only the absence of one does. */
static enum psa_evidence evidence_of(const struct psa_stall *s)
{
	if (s->observed || s->watchdog_fired || s->failed || s->host_wide)
		return PSA_EVIDENCE_OBSERVED;
	switch (s->cause) {
	case PSA_CAUSE_TASK_ERROR:
	case PSA_CAUSE_SLOW_STATE:
	case PSA_CAUSE_SLOW_PROGRESS:
	case PSA_CAUSE_SLOW_TRANSFER: /* its progress records */
		return PSA_EVIDENCE_OBSERVED;
	case PSA_CAUSE_DEVICE_NO_TRIGGER:
		/* a trigger read that saw the sentinel (DEBUG) shows the word unwritten */
		for (uint32_t k = 0; k < PSA_STREAMS_MAX; k++)
			if (s->trigger_last[k] == 0xFFFFFFFFu)
				return PSA_EVIDENCE_OBSERVED;
		return PSA_EVIDENCE_INFERRED;
	default:
		return PSA_EVIDENCE_INFERRED;
	}
}

void psa_stall_shape(const struct psa_stall *s, struct psa_shape *out)
{
	out->cls = s->cause == PSA_CAUSE_SLOW_STATE || s->cause == PSA_CAUSE_SLOW_PROGRESS ||
			   s->cause == PSA_CAUSE_SLOW_TRANSFER
			   ? PSA_CLASS_SLOW
			   : PSA_CLASS_HANG;
	out->place = place_of(s);
	out->evidence = evidence_of(s);
	/* after the job began to end, even a root says how it ended, not why it stopped */
	out->role = s->teardown      ? PSA_ROLE_TEARDOWN
		    : s->root_cause ? PSA_ROLE_INITIATING
		    : s->root >= 0 ? PSA_ROLE_CASCADE
				   : PSA_ROLE_UNATTRIBUTED;
}

void psa_shape_str(const struct psa_shape *sh, char *buf, size_t len)
{
	snprintf(buf, len, "%s, %s the seam (%s), %s, %s", psa_class_str(sh->cls),
		 psa_place_in_seam(sh->place) ? "inside" : "outside", psa_place_str(sh->place),
		 psa_evidence_str(sh->evidence), psa_role_str(sh->role));
}
