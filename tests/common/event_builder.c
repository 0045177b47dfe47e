/* SPDX-License-Identifier: MIT */
/* Synthetic trace events for the analysis unit tests (see event_builder.h). A bad field name
 * is the test's mistake, so it fails the test rather than returning an error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "event_builder.h"

void evb_vfeed(struct psa_model *m, enum psa_ev_type type, uint64_t ts_ns,
	       const struct evb_thread *th, const char *text, va_list ap)
{
	struct psa_event e = { .type = type, .ts_ns = ts_ns, .vpid = th->vpid, .vtid = th->vtid,
				.cpu = th->cpu };
	const char *name;

	snprintf(e.host, sizeof(e.host), "%s", th->host ? th->host : "host");
	if (th->procname)
		snprintf(e.procname, sizeof(e.procname), "%s", th->procname);
	else
		snprintf(e.procname, sizeof(e.procname), "proxy-%u", th->vtid);
	if (text)
		snprintf(e.text, sizeof(e.text), "%s", text);
	while ((name = va_arg(ap, const char *))) {
		int fld = psa_field_lookup(name);

		if (fld < 0)
			fail_msg("no event field '%s'", name);
		e.f[fld] = va_arg(ap, int64_t);
		e.present |= UINT64_C(1) << fld;
	}
	psa_model_feed(m, &e);
}
