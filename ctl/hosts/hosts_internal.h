/*
 * What hosts.c uses of hosts_sweep.c: the keeper and the runtime directory's removal. The calls
 * go one way (hosts.c -> hosts_sweep.c): the keeper removes the directory without calling back.
 */
#ifndef PROXYSCOPE_CTL_HOSTS_INTERNAL_H
#define PROXYSCOPE_CTL_HOSTS_INTERNAL_H

#include "hosts.h"

/* Fork the keeper; h->dir must be set. Returns 0 or -errno. */
int hosts__keeper_start(struct hosts *h);
/* Tell the keeper about one more namespace to sweep. */
void hosts__keeper_note(struct hosts *h, uint64_t ino);
/* Remove the runtime directory @dir and the files in it (it holds no subdirectory). */
void hosts__dir_remove(const char *dir);

#endif /* PROXYSCOPE_CTL_HOSTS_INTERNAL_H */
