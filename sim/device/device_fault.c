/* SPDX-License-Identifier: MIT */
/*
 * Fault injection for the simulated device: the armed faults and how they bend one exec.
 *
 * Design: faults are kept in arming order, never disarmed, and folded into a per-exec plan when
 * the exec is submitted (enc__dev_plan_resolve_locked), so a fault affects exactly the execs
 * submitted after it and the device thread never looks at the fault list.
 */
#include "device/device_internal.h"

#include <errno.h>
#include <stdlib.h>

#include "enc/lock.h"

static const char *const fault_kind_names[ENC_DEV_FAULT_KIND_NR] = {
	[ENC_DEV_FAULT_NEVER_TRIGGER] = "never_trigger",
	[ENC_DEV_FAULT_LATE] = "late",
	[ENC_DEV_FAULT_SLOW] = "slow",
};

const char *enc_dev_fault_kind_str(enum enc_dev_fault_kind kind)
{
	return (unsigned)kind < ENC_DEV_FAULT_KIND_NR ? fault_kind_names[kind] : "?";
}

static bool fault_is_valid(const struct enc_dev_fault *f)
{
	if (f->kind >= ENC_DEV_FAULT_KIND_NR)
		return false;
	/* Only NEVER_TRIGGER names a stream; LATE and SLOW ignore the field. */
	if (f->kind == ENC_DEV_FAULT_NEVER_TRIGGER && f->stream >= ENC_MAX_STREAMS &&
	    f->stream != ENC_DEV_ALL_STREAMS)
		return false;
	return true;
}

int enc__dev_fault_arm_locked(struct enc_dev *dev, const struct enc_dev_fault *f)
{
	enc_assert_held(&dev->mtx);
	if (!fault_is_valid(f))
		return -EINVAL;
	if (dev->faults_n == dev->faults_cap) {
		size_t cap = dev->faults_cap ? dev->faults_cap * 2 : 8;
		struct enc_dev_fault *faults = realloc(dev->faults, cap * sizeof(*faults));

		if (!faults)
			return -ENOMEM;
		dev->faults = faults;
		dev->faults_cap = cap;
	}
	dev->faults[dev->faults_n++] = *f;
	return 0;
}

void enc__dev_plan_resolve_locked(const struct enc_dev *dev, const struct enc_dev_exec *ex,
				  struct dev_plan *plan)
{
	size_t i;

	enc_assert_held(&dev->mtx);
	*plan = (struct dev_plan){ 0 };
	for (i = 0; i < dev->faults_n; i++) {
		const struct enc_dev_fault *f = &dev->faults[i];

		if (f->exec_id != ENC_DEV_ANY_EXEC &&
		    (ex->exec_id < f->exec_id ||
		     ex->exec_id > (f->exec_to > f->exec_id ? f->exec_to : f->exec_id)))
			continue;
		switch (f->kind) {
		case ENC_DEV_FAULT_NEVER_TRIGGER:
			if (f->stream == ENC_DEV_ALL_STREAMS)
				plan->never_mask = (1u << ENC_MAX_STREAMS) - 1;
			else
				plan->never_mask |= 1u << f->stream;
			break;
		case ENC_DEV_FAULT_LATE:
			plan->late_ms += f->arg;
			break;
		case ENC_DEV_FAULT_SLOW:
			plan->slow_us += f->arg;
			break;
		default:
			break; /* fault_is_valid let no other kind in */
		}
	}
}

void enc__dev_faults_free(struct enc_dev *dev)
{
	free(dev->faults);
	dev->faults = NULL;
	dev->faults_n = 0;
	dev->faults_cap = 0;
}
