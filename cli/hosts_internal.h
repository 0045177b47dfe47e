/*
 * What hosts.c and hosts_sweep.c share: the keeper (hosts_sweep.c) and the runtime directory's
 * removal (hosts.c).
 */
#ifndef PROXYSCOPE_CLI_HOSTS_INTERNAL_H
#define PROXYSCOPE_CLI_HOSTS_INTERNAL_H

#include "hosts.h"

/* Fork the keeper; h->dir must be set. Returns 0 or -errno. */
int hosts__keeper_start(struct hosts *h);
/* Tell the keeper about one more namespace to sweep. */
void hosts__keeper_note(struct hosts *h, uint64_t ino);
/* Remove the runtime directory @dir and the files in it (it holds no subdirectory). */
void hosts__dir_remove(const char *dir);

#endif /* PROXYSCOPE_CLI_HOSTS_INTERNAL_H */
