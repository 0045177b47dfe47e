/* SPDX-License-Identifier: MIT */
/*
 * The ofi job's meeting across hosts (proxyscope/launcher.h): after the processes of this host
 * have met on the bus (ofi_meet.c), the host's leader packs the names of the host's ranks into
 * one table, the bootstrap across hosts (PMIx) hands it to the other hosts' leaders, and each
 * leader merges every host's table and broadcasts the result to its host over the bus. Every
 * process takes part whatever happened before on its host - a failed open is carried in the
 * table as a status - because the exchange is a collective of the whole job: a process that
 * stayed away would leave every other host waiting.
 *
 * The checks are the host-local ones across hosts: every host resolved the same provider (a
 * stack that differs cannot talk), no rank is opened on two hosts, every rank is opened on one.
 */
#include "net/ofi/ofi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <proxyscope/bananaphone.h>
#include <proxyscope/launcher.h>

#include "common/log.h"

#define HOSTS_MAGIC 0x6f666968u /* "ofih" */
#define HOSTS_REASON_MAX 160

struct host_entry {
	uint32_t rank;
	uint8_t name[FI_NAME_MAX];
};

/* One host's table (count = its ranks), or the merged one (count = every rank). */
struct host_table {
	uint32_t magic;
	int32_t status;                  /* 0, or the -errno that stopped this host */
	uint32_t count;
	uint32_t nranks;
	int32_t leader_pid;
	char prov[OFI_PROV_MAX];         /* the provider this host resolved */
	char reason[HOSTS_REASON_MAX];
	struct host_entry e[];
};

static size_t table_size(uint32_t count)
{
	return sizeof(struct host_table) + (size_t)count * sizeof(struct host_entry);
}

/* The leader: this host's table from the host-local result. */
static struct host_table *table_pack(const struct ofi_hosts_in *in)
{
	struct host_table *t = calloc(1, table_size(in->nranks));

	if (!t)
		return NULL;
	t->magic = HOSTS_MAGIC;
	t->status = in->status;
	t->nranks = in->nranks;
	t->leader_pid = (int32_t)getpid();
	snprintf(t->prov, sizeof(t->prov), "%s", in->prov ? in->prov : "");
	snprintf(t->reason, sizeof(t->reason), "%s", in->reason ? in->reason : "");
	for (uint32_t q = 0; !in->status && q < in->nranks; q++)
		if (in->names[q]) {
			t->e[t->count].rank = q;
			memcpy(t->e[t->count].name, in->names[q], FI_NAME_MAX);
			t->count++;
		}
	return t;
}

/* Merge one host's table into @m (count = nranks, e[q].rank = UINT32_MAX while unclaimed). */
static int table_merge(struct host_table *m, const struct host_table *t, size_t len)
{
	if (len < sizeof(*t) || t->magic != HOSTS_MAGIC || len < table_size(t->count)) {
		snprintf(m->reason, sizeof(m->reason), "a host sent a malformed table");
		return -EPROTO;
	}
	if (t->status) {
		snprintf(m->reason, sizeof(m->reason), "the host of process %d failed: %.100s",
			 t->leader_pid, t->reason);
		return t->status;
	}
	if (t->nranks != m->nranks) {
		snprintf(m->reason, sizeof(m->reason), "the host of process %d has %u ranks, this "
			 "one %u", t->leader_pid, t->nranks, m->nranks);
		return -EPROTO;
	}
	if (strncmp(t->prov, m->prov, OFI_PROV_MAX)) {
		snprintf(m->reason, sizeof(m->reason), "provider mismatch: the host of process %d "
			 "uses '%.40s', this one '%.40s'", t->leader_pid, t->prov, m->prov);
		return -EPROTO;
	}
	for (uint32_t i = 0; i < t->count; i++) {
		uint32_t q = t->e[i].rank;

		if (q >= m->nranks)
			return -EPROTO;
		if (m->e[q].rank != UINT32_MAX) {
			snprintf(m->reason, sizeof(m->reason), "rank %u is opened on two hosts", q);
			return -EADDRINUSE;
		}
		m->e[q] = t->e[i];
	}
	return 0;
}

/* The leader: exchange, then merge every host's table into @m. */
static int leader_exchange(const struct ofi_hosts_in *in, struct host_table *m)
{
	struct host_table *mine = table_pack(in);
	const uint8_t *p, *end;
	size_t got_len = 0;
	void *got = NULL;
	int rc;

	if (!mine)
		return -ENOMEM;
	rc = in->xhost->ops->allgather(in->xhost->ctx, mine, table_size(mine->count), &got,
				       &got_len);
	free(mine);
	if (rc) {
		snprintf(m->reason, sizeof(m->reason), "the exchange across hosts failed (%d)", rc);
		return rc;
	}
	for (uint32_t q = 0; q < m->nranks; q++)
		m->e[q].rank = UINT32_MAX;
	for (p = got, end = p + got_len; !rc && p + sizeof(uint32_t) <= end;) {
		uint32_t len;

		memcpy(&len, p, sizeof(len));
		p += sizeof(len);
		if ((size_t)(end - p) < len) {
			rc = -EPROTO;
			break;
		}
		rc = table_merge(m, (const void *)p, len);
		p += len;
	}
	free(got);
	for (uint32_t q = 0; !rc && q < m->nranks; q++)
		if (m->e[q].rank == UINT32_MAX) {
			snprintf(m->reason, sizeof(m->reason), "no host opens rank %u", q);
			rc = -ENXIO;
		}
	return rc;
}

int enc__ofi_hosts_meet(const struct ofi_hosts_in *in, uint8_t (*out)[FI_NAME_MAX])
{
	bool leader = !in->bus || bp_bus_local_rank(in->bus) == 0;
	size_t msz = table_size(in->nranks);
	struct host_table *m;
	int rc = 0;

	if (in->bus && msz > bp_bus_record_size(in->bus)) {
		enc_err("ofi: job %s: %u ranks do not fit the bus record", in->job, in->nranks);
		return -EMSGSIZE; /* the same on every host: nobody enters the exchange */
	}
	m = calloc(1, in->bus ? bp_bus_record_size(in->bus) : msz);
	if (!m)
		return -ENOMEM;
	if (leader) {
		m->magic = HOSTS_MAGIC;
		m->nranks = in->nranks;
		m->count = in->nranks;
		snprintf(m->prov, sizeof(m->prov), "%s", in->prov ? in->prov : "");
		m->status = leader_exchange(in, m);
	} else {
		rc = in->xhost->ops->allgather(in->xhost->ctx, NULL, 0, &(void *){ NULL },
					       &(size_t){ 0 });
	}
	if (in->bus) {
		int brc = bp_broadcast(in->bus, m);

		if (brc) {
			enc_err("ofi: job %s: broadcasting the hosts' names on the bus: %s",
				in->job, bp_strerror(brc));
			free(m);
			return brc;
		}
	}
	if (!rc && m->status) {
		rc = m->status;
		enc_err("ofi: job %s: meeting the other hosts: %s", in->job, m->reason);
	}
	for (uint32_t q = 0; !rc && q < in->nranks; q++)
		memcpy(out[q], m->e[q].name, FI_NAME_MAX);
	free(m);
	return rc;
}
