/* SPDX-License-Identifier: MIT */
/*
 * The global-comm lifecycle (seed §1): enc_setup_global_comm checks the arguments, settles the
 * configuration, names the job, meets the job's other processes on this host (bootstrap.c),
 * opens the rank's network endpoint and shares or creates its group's queue (registry.c);
 * enc_free_global_comm undoes it in the reverse order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "proxy/comm.h"
#include "proxy/queue.h"

static bool args_are_valid(const struct enc_comm_args *args)
{
	return args->job && *args->job && args->nranks > 0 && args->rank < args->nranks &&
	       strlen(args->job) < ENC_JOB_MAX &&
	       (args->local_nranks <= 1 || args->local_rank < args->local_nranks);
}

/* The caller's configuration, or the defaults overridden by the environment. */
static int comm_config(struct enc_comm *comm, const struct enc_config *cfg)
{
	char err[160];
	int rc;

	if (cfg) {
		comm->cfg = *cfg;
	} else {
		enc_config_default(&comm->cfg);
		rc = enc_config_from_env(&comm->cfg, err, sizeof(err));
		if (rc) {
			enc_err("invalid configuration: %s", err);
			return rc;
		}
	}
	if (comm->cfg.ranks_per_network_proxy == 0 || comm->cfg.proxy_timeout_ms == 0)
		return -EINVAL;
	return 0;
}

/* Rank, group and job: the job's FNV-1a hash goes into every task event. */
static void comm_identity(struct enc_comm *comm, const struct enc_comm_args *args)
{
	comm->rank = args->rank;
	comm->nranks = args->nranks;
	comm->gid = args->rank / comm->cfg.ranks_per_network_proxy;
	snprintf(comm->job, sizeof(comm->job), "%s", args->job);
	comm->job_id = 2166136261u;
	for (const char *c = comm->job; *c; c++)
		comm->job_id = (comm->job_id ^ (unsigned char)*c) * 16777619u;
}

/* The configured network backend's endpoint for this rank (after the bootstrap: the backend
 * exchanges its addresses over the bus). */
static int comm_open_net(struct enc_comm *comm, const struct enc_comm_args *args)
{
	struct enc_net_open_args open_args;
	int rc;

	comm->net_ops = enc_net_ops_find(comm->cfg.net_backend);
	if (!comm->net_ops) {
		enc_err("no network backend named '%s'", comm->cfg.net_backend);
		return -ENODEV;
	}
	open_args = (struct enc_net_open_args){ .job = comm->job, .rank = comm->rank,
						.nranks = comm->nranks,
						.options = comm->cfg.net_provider[0] ?
							   comm->cfg.net_provider : NULL,
						.bus = comm->bp, .proc_ranks = args->proc_ranks,
						.xhost = comm->xhost };
	rc = comm->net_ops->open(&open_args, &comm->net);
	if (rc)
		enc_err("[rank %u] %s backend open failed: %d", comm->rank, comm->net_ops->name, rc);
	return rc;
}

/* enc_setup_global_comm_internal: open the rank's network endpoint, share or create the queue. */
int enc_setup_global_comm(const struct enc_comm_args *args, struct enc_comm **out)
{
	struct enc_comm *comm;
	int rc;

	if (!args || !out || !args_are_valid(args))
		return -EINVAL;
	comm = calloc(1, sizeof(*comm));
	if (!comm)
		return -ENOMEM;
	rc = comm_config(comm, args->cfg);
	if (rc)
		goto out_free;
	comm_identity(comm, args);
	/* enc_setup_global_comm_bananaphones: meet the job's other processes on this host first. */
	rc = enc__bootstrap_get(comm, args->local_rank, args->local_nranks);
	if (rc)
		goto out_free;
	rc = comm_open_net(comm, args);
	if (rc)
		goto out_bootstrap;
	rc = enc__registry_get(comm->gid, &comm->cfg, &comm->queue);
	if (rc)
		goto out_close_net;
	*out = comm;
	return 0;

out_close_net:
	comm->net_ops->close(comm->net);
out_bootstrap:
	enc__bootstrap_put(comm);
out_free:
	free(comm);
	return rc;
}

/* enc_free_global_comm: detach the comm's tasks, close its endpoint, release the queue. */
void enc_free_global_comm(struct enc_comm *comm)
{
	if (!comm)
		return;
	enc__queue_detach_comm(comm->queue, comm);
	comm->net_ops->close(comm->net);
	enc__registry_put(comm->gid);
	enc__bootstrap_put(comm); /* the last comm of the job hangs up (bp_hangup, bp_cleanup) */
	free(comm);
}

uint32_t enc_comm_rank(const struct enc_comm *comm)
{
	return comm->rank;
}

uint32_t enc_comm_nranks(const struct enc_comm *comm)
{
	return comm->nranks;
}

uint32_t enc_comm_gid(const struct enc_comm *comm)
{
	return comm->gid;
}
