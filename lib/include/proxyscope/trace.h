/* SPDX-License-Identifier: MIT */
/*
 * Tracing control. The library's LTTng-UST tracepoints become recordable once its probe
 * library (libproxyscope-tp.so) is loaded; by default the library loads it by itself at
 * start-up when it can be found (ENC_TRACE=0 prevents that, ENC_TRACE_PROBE=/path chooses it:
 * then nothing else is tried).
 * It is looked for beside the loaded libproxyscope.so itself (or, for a program linking the
 * static library from BINDIR, in ../LIBDIR), wherever the package was installed or moved to,
 * then by the dynamic linker's search.
 *
 * An application that wants tracing only sometimes defines, in its own code,
 *
 *	const int enc_trace_autoload = 0;
 *
 * and calls enc_trace_load() when it wants it (before starting a session).
 */
#ifndef PROXYSCOPE_TRACE_H
#define PROXYSCOPE_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include <proxyscope/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Load the probe library now (idempotent). Returns 0 once loaded, -ENOTSUP in a build without
 * LTTng, -ECANCELED when ENC_TRACE=0, -ENOENT when it cannot be found.
 */
ENC_API int enc_trace_load(void);

/* Whether the probe library is loaded (tracing can record). */
ENC_API bool enc_trace_is_loaded(void);

/*
 * Why the last enc_trace_load() failed, as one line: each place it looked and the dynamic
 * linker's reason ("/opt/p/lib/libproxyscope-tp.so.0: cannot open shared object file: No such
 * file or directory; ..."), or "ENC_TRACE=0 is set". Copied into @buf (truncated to @len);
 * returns the full length. Empty after a successful load.
 */
ENC_API size_t enc_trace_load_error(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_TRACE_H */
