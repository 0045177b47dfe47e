/* SPDX-License-Identifier: MIT */
/*
 * bench_hosts' private header (see bench_hosts.c): it shares bench_report's children,
 * statistics and host notes (bench_report.h), and adds the many-host tree (hosts_tree.c).
 */
#ifndef BENCH_HOSTS_H
#define BENCH_HOSTS_H

#include <stdbool.h>

#include "bench_report.h"

/*
 * Make @tree/host<i>/... for i < @hosts from the trace(s) under @trace: each copy with its own
 * trace UUID and hostname "host<i>". False (explained on stderr) on a failure.
 */
bool bh_make_tree(const char *trace, const char *tree, unsigned hosts);
/* Copy the regular files of directory @src into @dst (made). */
bool bh_copy_dir(const char *src, const char *dst);

#endif /* BENCH_HOSTS_H */
