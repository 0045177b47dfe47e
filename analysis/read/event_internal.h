/* SPDX-License-Identifier: MIT */
/*
 * analysis/ internals shared by the readers: name lookups on unterminated strings, the
 * context fields that have their own members in struct psa_event, error formatting, and the
 * text parser with the clock form it saw (read/text/text.c needs it to unwrap midnight).
 */
#ifndef PROXYSCOPE_ANALYSIS_EVENT_INTERNAL_H
#define PROXYSCOPE_ANALYSIS_EVENT_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <proxyscope/psa_event.h>

/* Context fields stored in struct psa_event's own members rather than in f[]. */
enum psa_ctx_field {
	PSA_CTX_NONE = 0,
	PSA_CTX_VPID,
	PSA_CTX_VTID,
	PSA_CTX_PROCNAME,
	PSA_CTX_CPU_ID,
	PSA_CTX_NR
};

enum psa_ev_type psa__ev_lookup_n(const char *name, size_t len);
int psa__field_lookup_n(const char *name, size_t len);
enum psa_ctx_field psa__ctx_lookup_n(const char *name, size_t len);
/* Whether payload field @name is the string field kept in struct psa_event's text. */
bool psa__is_text_field(const char *name, size_t len);

/* Copy @len bytes of @src into @dst (@dstlen bytes), truncating, always terminated. */
void psa__copy_str(char *dst, size_t dstlen, const char *src, size_t len);

/* snprintf into @err when it is not NULL. */
__attribute__((format(printf, 3, 4))) void psa__errf(char *err, size_t errlen, const char *fmt,
						     ...);

/* How the text line printed its timestamps. */
enum psa_text_clock {
	PSA_TEXT_CLOCK_NONE = 0, /* no timestamp, or `??:??:??.?????????` */
	PSA_TEXT_CLOCK_TOD,      /* HH:MM:SS.nnnnnnnnn: ns since midnight */
	PSA_TEXT_CLOCK_EPOCH,    /* --clock-seconds or --clock-date: ns since the Unix epoch */
	PSA_TEXT_CLOCK_NR
};

/* psa_text_parse_line, also telling the clock form of the line's timestamps. */
int psa__text_parse_line(const char *line, size_t len, struct psa_event *ev, struct psa_discard *d,
			 enum psa_text_clock *clock, char *err, size_t errlen);

#endif /* PROXYSCOPE_ANALYSIS_EVENT_INTERNAL_H */
