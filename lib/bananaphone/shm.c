/* SPDX-License-Identifier: MIT */
/*
 * The bus's shared memory: one memfd the leader creates, sizes and seals, and every peer maps.
 *
 * Main design choice: a memfd passed over a unix socket rather than a named segment. Nothing
 * has a name in a filesystem, so nothing outlives the last member (no /dev/shm leak after
 * kill -9), and only processes the leader admitted ever hold the fd. The seals (no shrink, no
 * grow, no more seals) make a truncate by any member impossible, so no member can SIGBUS the
 * others; a peer refuses a memfd that lacks them. The header is checked field by field on
 * attach: the wire handshake already compared the same values, this catches a wrong fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bananaphone/bp_internal.h"

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001u
#define MFD_ALLOW_SEALING 0x0002u
#endif
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_GET_SEALS 1034
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#endif

#define BP_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

static size_t round_up(size_t x, size_t to)
{
	return (x + to - 1) / to * to;
}

size_t bp__shm_size(uint32_t local_nranks, uint32_t record_size, uint32_t *slot_stride)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t stride = round_up(sizeof(struct bp_shm_slot) + record_size, BP_LINE);
	size_t members = round_up(sizeof(struct bp_shm), BP_LINE);
	size_t slots = members + (size_t)local_nranks * sizeof(struct bp_shm_member);

	*slot_stride = (uint32_t)stride;
	return round_up(slots + (size_t)local_nranks * BP_RING_SLOTS * stride, page);
}

static void layout(struct bp_bus *bus, void *base)
{
	bus->shm = base;
	bus->members = (struct bp_shm_member *)((char *)base + bus->shm->hdr.members_off);
	bus->slots = (unsigned char *)base + bus->shm->hdr.slots_off;
}

int bp__shm_create(struct bp_bus *bus, int *memfd)
{
	char name[16 + BP_JOB_MAX];
	struct bp_shm_hdr *hdr;
	void *base;
	int fd, rc;

	bus->map_size = bp__shm_size(bus->local_nranks, bus->record_size, &bus->slot_stride);
	snprintf(name, sizeof(name), "bananaphone:%s", bus->job);
	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)bus->map_size) < 0) {
		rc = -errno;
		goto out_close_memfd;
	}
	if (fcntl(fd, F_ADD_SEALS, BP_SEALS) < 0) {
		rc = -errno;
		goto out_close_memfd;
	}
	base = mmap(NULL, bus->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		rc = -errno;
		goto out_close_memfd;
	}
	/* A fresh memfd reads as zeros: every seq, counter and state starts at 0. */
	hdr = base;
	hdr->magic = BP_MAGIC;
	hdr->version = bp__version();
	hdr->local_nranks = bus->local_nranks;
	hdr->record_size = bus->record_size;
	hdr->slot_stride = bus->slot_stride;
	hdr->map_size = bus->map_size;
	hdr->cookie = bus->cookie;
	hdr->members_off = (uint32_t)round_up(sizeof(struct bp_shm), BP_LINE);
	hdr->slots_off = hdr->members_off + bus->local_nranks * (uint32_t)sizeof(struct bp_shm_member);
	hdr->leader_pid = getpid();
	memcpy(hdr->job, bus->job, sizeof(hdr->job));
	layout(bus, base);
	bus->members[0].pid = getpid();
	bus->members[0].starttime = bp__proc_starttime(getpid());
	/* No peer can see the memory yet (the fd has not been sent): relaxed is enough. */
	__atomic_store_n(&bus->members[0].state, BP_MEMBER_JOINED, __ATOMIC_RELAXED);
	*memfd = fd;
	return 0;

out_close_memfd:
	close(fd);
	return rc;
}

static int check_header(const struct bp_bus *bus, const struct bp_shm_hdr *hdr)
{
	if (hdr->magic != BP_MAGIC || hdr->version != bp__version())
		return -EPROTO;
	if (hdr->local_nranks != bus->local_nranks || hdr->record_size != bus->record_size)
		return -EMSGSIZE;
	if (hdr->map_size != bus->map_size || hdr->slot_stride != bus->slot_stride ||
	    hdr->cookie != bus->cookie || strncmp(hdr->job, bus->job, sizeof(hdr->job)))
		return -EPROTO;
	return 0;
}

int bp__shm_attach(struct bp_bus *bus, int memfd)
{
	struct stat st;
	void *base;
	int seals, rc;

	bus->map_size = bp__shm_size(bus->local_nranks, bus->record_size, &bus->slot_stride);
	if (fstat(memfd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size != bus->map_size)
		return -EPROTO;
	seals = fcntl(memfd, F_GET_SEALS);
	if (seals < 0 || (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW))
		return -EPROTO; /* someone could truncate it under us: refuse */
	base = mmap(NULL, bus->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (base == MAP_FAILED)
		return -errno;
	rc = check_header(bus, base);
	if (rc)
		goto out_unmap;
	layout(bus, base);
	return 0;

out_unmap:
	munmap(base, bus->map_size);
	return rc;
}

void bp__shm_unmap(struct bp_bus *bus)
{
	if (bus->shm)
		munmap(bus->shm, bus->map_size);
	bus->shm = NULL;
	bus->members = NULL;
	bus->slots = NULL;
}
