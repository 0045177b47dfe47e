/* SPDX-License-Identifier: MIT */
/*
 * Event types and payload field names: the two name tables behind psa_event.h. Both are built
 * from the X-lists (the tracepoint catalogue and PSA_FIELDS), so a renamed event or field
 * renames here. Lookups compare the length first: the tables are small (≈ 40 entries) and a
 * lookup happens once per event class on the CTF path, once per line and field on the text path.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <proxyscope/psa_event.h>

#include "read/event_internal.h"

struct name_entry {
	const char *name;
	unsigned char len;
};

static const struct name_entry ev_names[PSA_EV_NR] = {
	[PSA_EV_UNKNOWN] = { "?", 1 },
#define EV_ENTRY(provider, event, level)                                  \
	[PSA_EV_##provider##_##event] = { ENC_EV_NAME(provider, event),    \
					  sizeof(ENC_EV_NAME(provider, event)) - 1 },
	ENC_TP_ALL_EVENTS(EV_ENTRY)
#undef EV_ENTRY
};

static const struct name_entry field_names[PSA_F_NR] = {
#define FIELD_ENTRY(name) [PSA_F_##name] = { #name, sizeof(#name) - 1 },
	PSA_FIELDS(FIELD_ENTRY)
#undef FIELD_ENTRY
};

/* The catalogue and the field list must fit the types that hold them. */
_Static_assert(PSA_F_NR <= 64, "psa_event.present has one bit per field");
_Static_assert(PSA_EV_NR <= 255, "event types fit the text reader's tables");

const char *psa_ev_name(enum psa_ev_type type)
{
	if ((unsigned)type >= PSA_EV_NR)
		return "?";
	return ev_names[type].name;
}

enum psa_ev_type psa__ev_lookup_n(const char *name, size_t len)
{
	for (int t = PSA_EV_UNKNOWN + 1; t < PSA_EV_NR; t++) {
		if (ev_names[t].len == len && memcmp(ev_names[t].name, name, len) == 0)
			return (enum psa_ev_type)t;
	}
	return PSA_EV_UNKNOWN;
}

enum psa_ev_type psa_ev_lookup(const char *name)
{
	if (!name)
		return PSA_EV_UNKNOWN;
	return psa__ev_lookup_n(name, strlen(name));
}

int psa__field_lookup_n(const char *name, size_t len)
{
	for (int f = 0; f < PSA_F_NR; f++) {
		if (field_names[f].len == len && memcmp(field_names[f].name, name, len) == 0)
			return f;
	}
	return -1;
}

int psa_field_lookup(const char *name)
{
	if (!name)
		return -1;
	return psa__field_lookup_n(name, strlen(name));
}

const char *psa_field_name(enum psa_field f)
{
	if ((unsigned)f >= PSA_F_NR)
		return "?";
	return field_names[f].name;
}

enum psa_ctx_field psa__ctx_lookup_n(const char *name, size_t len)
{
	switch (len) {
	case 4:
		if (memcmp(name, "vpid", 4) == 0)
			return PSA_CTX_VPID;
		if (memcmp(name, "vtid", 4) == 0)
			return PSA_CTX_VTID;
		break;
	case 6:
		if (memcmp(name, "cpu_id", 6) == 0)
			return PSA_CTX_CPU_ID;
		break;
	case 8:
		if (memcmp(name, "procname", 8) == 0)
			return PSA_CTX_PROCNAME;
		break;
	default:
		break;
	}
	return PSA_CTX_NONE;
}

bool psa__is_text_field(const char *name, size_t len)
{
	return len == 4 && memcmp(name, "text", 4) == 0;
}

void psa__copy_str(char *dst, size_t dstlen, const char *src, size_t len)
{
	if (dstlen == 0)
		return;
	if (len >= dstlen)
		len = dstlen - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

void psa__errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

bool psa_ev_tells_task(uint32_t type)
{
	switch (type) {
	case PSA_EV_encproxy_task_enqueue: case PSA_EV_encproxy_task_drain:
	case PSA_EV_encproxy_task_state: case PSA_EV_encproxy_task_recycle:
	case PSA_EV_encproxy_task_progress:
	case PSA_EV_encproxy_seam_start: case PSA_EV_encproxy_seam_progress:
	case PSA_EV_encproxy_seam_stop: case PSA_EV_encproxy_trigger_read:
	case PSA_EV_encproxy_trigger_fire: case PSA_EV_encproxy_trigger_clear:
	case PSA_EV_encproxy_status_poll: case PSA_EV_encproxy_consume_begin:
	case PSA_EV_encproxy_consume_end: case PSA_EV_encproxy_watchdog_timeout:
	case PSA_EV_encproxy_task_failed: case PSA_EV_encproxy_barrier_send:
	case PSA_EV_encproxy_barrier_recv: case PSA_EV_encproxy_sema_inc:
	case PSA_EV_encdev_trigger_write: case PSA_EV_encdev_sema_wait_begin:
	case PSA_EV_encdev_sema_wait_end: case PSA_EV_encnet_post: case PSA_EV_encnet_complete:
		return true;
	default:
		return false;
	}
}
