/* SPDX-License-Identifier: MIT */
/*
 * The meeting of one job's processes on this host, run once per process by the last of its ranks
 * to arrive (ofi_job.c), over the host's bananaphone bus, in two all-gathers of one record per
 * process:
 *   1. hello: pid, libfabric version, rank count, the provider asked for (ENC_NET_PROVIDER, or
 *      "" for the default) and the ranks this process holds. Every process checks the same
 *      records, so all reach the same verdict: mismatched versions, rank counts or providers,
 *      a rank held twice or by nobody on this host - each an error naming the processes.
 *   2. names: after opening an endpoint per local rank on the agreed provider, the provider's
 *      full name (all must resolve to the same stack: "tcp" is "tcp;ofi_rxm" on 1.17, and the
 *      two stacks do not talk to each other), a status and reason if the open failed here, and
 *      each local rank's fi_getname bytes.
 * Then every endpoint inserts all ranks' names in rank order. Alone on the host (no bus) the
 * process must hold every rank, and the names are simply collected.
 *
 * Under a PMIx launcher (job->xhost) the job spans hosts: the ranks that are not on this host are
 * opened elsewhere, and once this host has met, the hosts exchange their names (ofi_hosts.c).
 * The default provider is "shm" when every rank is on this host and "tcp" (tcp;ofi_rxm) across
 * hosts.
 */
#include "net/ofi/ofi_job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <proxyscope/bananaphone.h>

#include "common/log.h"

#define OFI_MAGIC_HELLO 0x6f666931u /* "ofi1" */
#define OFI_MAGIC_NAMES 0x6f66696eu /* "ofin" */
#define OFI_REASON_MAX 160

struct hello {
	uint32_t magic;
	uint32_t api; /* the process's libfabric version (fi_version) */
	int32_t pid;
	uint32_t nranks;
	uint32_t held;
	char provider[OFI_PROV_MAX];
	uint32_t ranks[]; /* held entries */
};

struct name_entry {
	uint32_t rank;
	uint32_t len;
	uint8_t name[FI_NAME_MAX];
};

struct names {
	uint32_t magic;
	int32_t status; /* 0, or the -errno of opening this process's endpoints */
	uint32_t count;
	uint32_t pad;
	char prov[OFI_PROV_MAX];
	char reason[OFI_REASON_MAX];
	struct name_entry e[]; /* count entries */
};

/* Check the hello records of every process; fills owner[]. */
static int hello_check(struct ofi_job *job, const uint8_t *all, uint32_t procs, size_t rsz)
{
	const struct hello *me = (const void *)(all + (size_t)bp_bus_local_rank(job->bus) * rsz);

	for (uint32_t p = 0; p < procs; p++) {
		const struct hello *h = (const void *)(all + (size_t)p * rsz);

		if (h->magic != OFI_MAGIC_HELLO) {
			enc_err("ofi: job %s: process %u sent no ofi hello (another backend?)",
				job->name, p);
			return -EPROTO;
		}
		if (FI_MAJOR(h->api) != FI_MAJOR(me->api) || FI_MINOR(h->api) != FI_MINOR(me->api)) {
			enc_err("ofi: job %s: process %d runs libfabric %u.%u, this one %u.%u",
				job->name, h->pid, FI_MAJOR(h->api), FI_MINOR(h->api),
				FI_MAJOR(me->api), FI_MINOR(me->api));
			return -EPROTO;
		}
		if (h->nranks != me->nranks) {
			enc_err("ofi: job %s: process %d has %u ranks, this one %u", job->name, h->pid,
				h->nranks, me->nranks);
			return -EPROTO;
		}
		if (strncmp(h->provider, me->provider, OFI_PROV_MAX)) {
			enc_err("ofi: job %s: provider mismatch: process %d asks for '%s', this "
				"process (%d) for '%s' (ENC_NET_PROVIDER must be the same everywhere)",
				job->name, h->pid, h->provider[0] ? h->provider : "(default)",
				me->pid, me->provider[0] ? me->provider : "(default)");
			return -EPROTO;
		}
		for (uint32_t i = 0; i < h->held; i++) {
			uint32_t q = h->ranks[i];

			if (q >= job->nranks)
				return -EPROTO;
			if (job->owner[q] >= 0) {
				enc_err("ofi: job %s: rank %u is opened by two processes (%d and %d)",
					job->name, q, job->owner_pid[q], h->pid);
				return -EADDRINUSE;
			}
			job->owner[q] = (int32_t)p;
			job->owner_pid[q] = h->pid;
		}
	}
	for (uint32_t q = 0; !job->xhost && q < job->nranks; q++)
		if (job->owner[q] < 0) {
			enc_err("ofi: job %s: no process on this host opens rank %u: every rank must "
				"meet on this host's bus (no cross-host bootstrap)", job->name, q);
			return -ENXIO;
		}
	return 0;
}

static int round_hello(struct ofi_job *job, uint8_t *all)
{
	size_t rsz = bp_bus_record_size(job->bus);
	struct hello *h;
	int rc;

	if (sizeof(*h) + job->expected * sizeof(uint32_t) > rsz) {
		enc_err("ofi: job %s: %u ranks in one process do not fit the bus record", job->name,
			job->expected);
		return -EMSGSIZE;
	}
	h = calloc(1, rsz);
	if (!h)
		return -ENOMEM;
	*h = (struct hello){ .magic = OFI_MAGIC_HELLO, .api = enc__fi_version(),
			     .pid = (int32_t)getpid(), .nranks = job->nranks,
			     .held = job->expected };
	snprintf(h->provider, sizeof(h->provider), "%s", job->provider);
	memcpy(h->ranks, job->local, job->expected * sizeof(uint32_t));
	rc = bp_allgather(job->bus, h, all);
	free(h);
	if (rc) {
		enc_err("ofi: job %s: exchanging hellos on the bus: %s", job->name, bp_strerror(rc));
		return rc;
	}
	return hello_check(job, all, bp_bus_local_nranks(job->bus), rsz);
}

/* Open an endpoint for every local rank; on failure *@reason says why. */
static int eps_open(struct ofi_job *job, char *reason, size_t len)
{
	const char *prov = job->provider[0] ? job->provider :
			   job->xhost ? OFI_DEFAULT_PROVIDER_HOSTS : OFI_DEFAULT_PROVIDER;

	for (uint32_t i = 0; i < job->expected; i++) {
		struct ofi_ep_args a = { .provider = prov, .loopback = !job->xhost,
					 .rank = job->local[i], .nranks = job->nranks };
		int rc = enc__ofi_ep_open(&job->eps[i], &a, reason, len);

		if (rc)
			return rc;
		if (strcmp(enc__ofi_ep_prov(&job->eps[i]), enc__ofi_ep_prov(&job->eps[0]))) {
			snprintf(reason, len, "provider '%s' resolved to '%s' and to '%s'", prov,
				 enc__ofi_ep_prov(&job->eps[0]), enc__ofi_ep_prov(&job->eps[i]));
			return -EPROTO;
		}
	}
	return 0;
}

/* Round 2 (or, alone, just the collection): fill @names[q] for every rank. */
static int round_names(struct ofi_job *job, int open_rc, const char *reason,
		       const uint8_t **names, uint8_t *all)
{
	uint32_t procs = job->bus ? bp_bus_local_nranks(job->bus) : 1;
	size_t rsz = job->bus ? bp_bus_record_size(job->bus) :
		     sizeof(struct names) + job->expected * sizeof(struct name_entry);
	struct names *mine;
	int rc = 0;

	if (sizeof(*mine) + job->expected * sizeof(struct name_entry) > rsz)
		return -EMSGSIZE;
	mine = job->bus ? calloc(1, rsz) : (struct names *)(void *)all;
	if (!mine)
		return -ENOMEM;
	mine->magic = OFI_MAGIC_NAMES;
	mine->status = open_rc;
	mine->count = open_rc ? 0 : job->expected;
	snprintf(mine->reason, sizeof(mine->reason), "%s", reason);
	if (!open_rc)
		snprintf(mine->prov, sizeof(mine->prov), "%s", enc__ofi_ep_prov(&job->eps[0]));
	for (uint32_t i = 0; i < mine->count; i++) {
		mine->e[i].rank = job->local[i];
		mine->e[i].len = (uint32_t)job->eps[i].name_len;
		memcpy(mine->e[i].name, job->eps[i].name, job->eps[i].name_len);
	}
	if (job->bus) {
		rc = bp_allgather(job->bus, mine, all);
		free(mine);
		if (rc) {
			enc_err("ofi: job %s: exchanging endpoint names on the bus: %s", job->name,
				bp_strerror(rc));
			return rc;
		}
	}
	if (open_rc) {
		enc_err("ofi: job %s: %s", job->name, reason);
		return open_rc;
	}
	for (uint32_t p = 0; p < procs; p++) {
		const struct names *n = (const void *)(all + (size_t)p * rsz);
		int pid = job->bus ? bp_bus_member_pid(job->bus, p) : (int)getpid();

		if (n->status) {
			enc_err("ofi: job %s: process %d could not open its endpoints: %s", job->name,
				pid, n->reason);
			return n->status;
		}
		if (strncmp(n->prov, enc__ofi_ep_prov(&job->eps[0]), OFI_PROV_MAX)) {
			enc_err("ofi: job %s: provider mismatch: process %d uses '%s', this one '%s'",
				job->name, pid, n->prov, enc__ofi_ep_prov(&job->eps[0]));
			return -EPROTO;
		}
		for (uint32_t i = 0; i < n->count; i++)
			if (n->e[i].rank < job->nranks)
				names[n->e[i].rank] = n->e[i].name;
	}
	for (uint32_t q = 0; !job->xhost && q < job->nranks; q++)
		if (!names[q])
			return -ENXIO;
	return 0;
}

/* Across hosts: every process takes part, whatever happened on this host. */
static int round_hosts(struct ofi_job *job, int status, const char *reason, int open_rc,
		       const uint8_t **names, uint8_t (*xnames)[FI_NAME_MAX])
{
	struct ofi_hosts_in in = {
		.job = job->name, .xhost = job->xhost, .bus = job->bus, .nranks = job->nranks,
		.status = status, .reason = reason[0] ? reason : "its meeting on the bus failed",
		.prov = open_rc ? "" : enc__ofi_ep_prov(&job->eps[0]), .names = names,
	};
	int rc = enc__ofi_hosts_meet(&in, xnames);

	for (uint32_t q = 0; !rc && q < job->nranks; q++)
		names[q] = xnames[q];
	return status ? status : rc;
}

/* The exchange, run by the last local rank to arrive. */
int enc__ofi_job_meet(struct ofi_job *job)
{
	char reason[OFI_REASON_MAX] = "";
	size_t rsz, procs = 1;
	uint8_t (*xnames)[FI_NAME_MAX] = NULL;
	const uint8_t **names;
	uint8_t *all;
	int rc, open_rc;

	if (!job->bus && !job->xhost && job->expected != job->nranks) {
		enc_err("ofi: job %s: this process opens %u of %u ranks but has no bus to meet the "
			"others (give every process its local_rank and local_nranks)", job->name,
			job->expected, job->nranks);
		return -ENXIO;
	}
	if (job->bus) {
		rsz = bp_bus_record_size(job->bus);
		procs = bp_bus_local_nranks(job->bus);
	} else {
		rsz = sizeof(struct names) + job->expected * sizeof(struct name_entry);
		for (uint32_t i = 0; i < job->expected; i++)
			job->owner[job->local[i]] = 0;
	}
	all = calloc(procs, rsz);
	names = calloc(job->nranks, sizeof(*names));
	if (job->xhost)
		xnames = calloc(job->nranks, sizeof(*xnames));
	if (!all || !names || (job->xhost && !xnames)) {
		rc = -ENOMEM;
		goto out;
	}
	open_rc = -ECANCELED; /* no endpoint opened yet */
	if (job->bus) {
		rc = round_hello(job, all);
		if (rc)
			goto out_hosts;
		memset(all, 0, procs * rsz);
	}
	open_rc = eps_open(job, reason, sizeof(reason));
	rc = round_names(job, open_rc, reason, names, all);
out_hosts:
	if (job->xhost)
		rc = round_hosts(job, rc, reason, open_rc, names, xnames);
	for (uint32_t i = 0; !rc && i < job->expected; i++)
		rc = enc__ofi_ep_insert(&job->eps[i], names, reason, sizeof(reason));
	for (uint32_t q = 0; !rc && q < job->nranks; q++)
		memcpy(job->names[q], names[q], FI_NAME_MAX);
	if (rc && reason[0] && !open_rc)
		enc_err("ofi: job %s: %s", job->name, reason);
	if (!rc)
		enc_info("ofi: job %s: %u ranks on '%s', %u here", job->name, job->nranks,
			 enc__ofi_ep_prov(&job->eps[0]), job->expected);
out:
	free(xnames);
	free(names);
	free(all);
	return rc;
}
