/* SPDX-License-Identifier: MIT */
/*
 * One rank's libfabric objects: fabric, domain, completion queue, address vector, RDM endpoint.
 *
 * Hints: RDM tagged messages, manual progress for data and control (the proxy worker drives
 * everything through B2), FI_CONTEXT2 (every op carries a context that outlives it), an address
 * vector table (fi_addr = insertion index = rank). Memory registration modes: only those that
 * matter for RMA are declared, so a provider that needs local registration of message buffers
 * (FI_MR_LOCAL: verbs, efa) is not selected; tcp, net, shm and udp do not need it.
 *
 * libfabric's exported functions are called through ofi_dl.c (enc__fi_*: the library is loaded
 * at run time); fi_allocinfo is enc__fi_dupinfo(NULL), as in libfabric's header.
 */
#include "net/ofi/ofi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/trace.h"

#define OFI_API_VERSION FI_VERSION(1, 17)
#define OFI_CQ_SIZE 1024

static struct fi_info *hints_build(const char *provider, bool loopback)
{
	struct fi_info *h = enc__fi_dupinfo(NULL);

	if (!h)
		return NULL;
	h->caps = FI_TAGGED | FI_SEND | FI_RECV;
	h->mode = FI_CONTEXT | FI_CONTEXT2;
	h->ep_attr->type = FI_EP_RDM;
	h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	h->domain_attr->threading = FI_THREAD_DOMAIN;
	h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	h->domain_attr->control_progress = FI_PROGRESS_MANUAL;
	h->domain_attr->av_type = FI_AV_TABLE;
	h->fabric_attr->prov_name = strdup(provider);
	if (!h->fabric_attr->prov_name) {
		enc__fi_freeinfo(h);
		return NULL;
	}
	/* tcp and net take an IP address: on one host, the loopback one; across hosts an IPv4
	 * address of the host's own (pick_routable) */
	if (strncmp(provider, "tcp", 3) == 0 || strncmp(provider, "net", 3) == 0)
		h->addr_format = FI_SOCKADDR_IN;
	return h;
}

/*
 * Across hosts: the first interface whose IPv4 address is not a loopback one, so that the
 * other hosts can reach it (a tentative IPv6 link-local address, listed first on a link that
 * just came up, cannot be). Keeps the list as it is when there is none.
 */
static int pick_routable(struct fi_info **list)
{
	for (struct fi_info *i = *list; i; i = i->next) {
		const struct sockaddr_in *sin = i->src_addr;
		struct fi_info *dup;

		if (i->addr_format != FI_SOCKADDR_IN || !sin || i->src_addrlen < sizeof(*sin) ||
		    (ntohl(sin->sin_addr.s_addr) >> 24) == 127)
			continue;
		if (i == *list)
			return 0;
		dup = enc__fi_dupinfo(i);
		if (!dup)
			return -FI_ENOMEM;
		enc__fi_freeinfo(*list);
		*list = dup;
		return 0;
	}
	return 0;
}

/* When this process first opened an endpoint (ns since boot): part of our shm region names. */
static uint64_t shm_stamp(void)
{
	static uint64_t stamp;
	struct timespec ts;

	if (!__atomic_load_n(&stamp, __ATOMIC_RELAXED)) {
		clock_gettime(CLOCK_BOOTTIME, &ts);
		__atomic_store_n(&stamp, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
				 __ATOMIC_RELAXED);
	}
	return __atomic_load_n(&stamp, __ATOMIC_RELAXED);
}

void enc__ofi_shm_unlink(const uint8_t *name)
{
	char path[FI_NAME_MAX + 2];
	const char *n = (const char *)name;

	/* only a region named by us, of a process that died without removing it */
	if (strncmp(n, OFI_SHM_PREFIX, strlen(OFI_SHM_PREFIX)) || !memchr(n, '\0', FI_NAME_MAX))
		return;
	snprintf(path, sizeof(path), "/%s", n + strlen("fi_shm://"));
	if (shm_unlink(path) == 0)
		enc_info("ofi: removed the shm region %s of a dead process", path);
}

static int fi_err(int rc)
{
	return rc < 0 ? rc : -EIO;
}

/* fi_getinfo for @a; -ENODATA (with its reason in @err) when no provider matches. */
static int ep_getinfo(struct ofi_ep *e, const struct ofi_ep_args *a, char *err, size_t errlen)
{
	struct fi_info *h = hints_build(a->provider, a->loopback);
	const char *node = NULL;
	uint64_t flags = 0;
	int rc;

	if (!h)
		return -FI_ENOMEM;
	if (h->addr_format == FI_SOCKADDR_IN && a->loopback) {
		node = "127.0.0.1";
		flags = FI_SOURCE;
	}
	rc = enc__fi_getinfo(OFI_API_VERSION, node, NULL, flags, h, &e->info);
	enc__fi_freeinfo(h);
	if (rc == 0 && !a->loopback)
		rc = pick_routable(&e->info);
	if (rc == -FI_ENODATA)
		snprintf(err, errlen, "libfabric has no provider '%s' for RDM tagged messages "
			 "with manual progress (fi_info -l lists the providers)", a->provider);
	return rc;
}

/* Fabric, domain, completion queue, address vector and the endpoint bound to both. */
static int ep_objects(struct ofi_ep *e, uint32_t nranks, const char **what)
{
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED, .wait_obj = FI_WAIT_NONE,
				  .size = OFI_CQ_SIZE };
	struct fi_av_attr ava = { .type = FI_AV_TABLE, .count = nranks };
	int rc;

	*what = "fi_fabric";
	if ((rc = enc__fi_fabric(e->info->fabric_attr, &e->fabric, NULL)))
		return rc;
	*what = "fi_domain";
	if ((rc = fi_domain(e->fabric, e->info, &e->domain, NULL)))
		return rc;
	*what = "fi_cq_open";
	if ((rc = fi_cq_open(e->domain, &cqa, &e->cq, NULL)))
		return rc;
	*what = "fi_av_open";
	if ((rc = fi_av_open(e->domain, &ava, &e->av, NULL)))
		return rc;
	*what = "fi_endpoint";
	if ((rc = fi_endpoint(e->domain, e->info, &e->ep, NULL)))
		return rc;
	*what = "fi_ep_bind(cq)";
	if ((rc = fi_ep_bind(e->ep, &e->cq->fid, FI_TRANSMIT | FI_RECV)))
		return rc;
	*what = "fi_ep_bind(av)";
	return fi_ep_bind(e->ep, &e->av->fid, 0);
}

/* Name the endpoint (shm: a name of our own), enable it, and read back its address. */
static int ep_enable(struct ofi_ep *e, const struct ofi_ep_args *a, const char **what)
{
	int rc;

	if (e->info->addr_format == FI_ADDR_STR && !strncmp(a->provider, "shm", 3)) {
		/*
		 * shm names its shared region after the pid by default, and a process that was
		 * killed leaves its region behind: a later process with the same pid then fails
		 * with EBUSY. A name of our own (pid + start time + rank) never collides, and
		 * tells enc__ofi_shm_unlink which regions are ours to remove.
		 */
		char name[FI_NAME_MAX];

		snprintf(name, sizeof(name), "%s%d-%llx-%u", OFI_SHM_PREFIX, (int)getpid(),
			 (unsigned long long)shm_stamp(), a->rank);
		*what = "fi_setname";
		if ((rc = fi_setname(&e->ep->fid, name, strlen(name) + 1)))
			return rc;
	}
	*what = "fi_enable";
	if ((rc = fi_enable(e->ep)))
		return rc;
	*what = "fi_getname";
	e->name_len = sizeof(e->name);
	return fi_getname(&e->ep->fid, e->name, &e->name_len);
}

int enc__ofi_ep_open(struct ofi_ep *e, const struct ofi_ep_args *a, char *err, size_t errlen)
{
	const char *what = "fi_getinfo";
	int rc;

	memset(e, 0, sizeof(*e));
	e->rank = a->rank;
	e->nranks = a->nranks;
	err[0] = '\0';
	rc = ep_getinfo(e, a, err, errlen);
	if (!rc) {
		e->max_msg = e->info->ep_attr->max_msg_size;
		rc = ep_objects(e, a->nranks, &what);
	}
	if (!rc)
		rc = ep_enable(e, a, &what);
	if (!rc) {
		what = "calloc";
		e->addrs = calloc(a->nranks, sizeof(*e->addrs));
		rc = e->addrs ? 0 : -FI_ENOMEM;
	}
	if (rc) {
		if (!err[0])
			snprintf(err, errlen, "%s on provider '%s': %s", what, a->provider,
				 enc__fi_strerror(-rc));
		enc__ofi_ep_close(e);
		return fi_err(rc);
	}
	enc_dbg("ofi: rank %u: endpoint on %s (%zu-byte name)", a->rank, enc__ofi_ep_prov(e),
		e->name_len);
	return 0;
}

int enc__ofi_provider_check(const char *provider, char *err, size_t errlen)
{
	const char *prov = provider && *provider ? provider : OFI_DEFAULT_PROVIDER;
	struct fi_info *h, *info = NULL;
	int rc;

	rc = enc__fi_load(err, errlen);
	if (rc)
		return rc;
	h = hints_build(prov, false);
	if (!h)
		return -ENOMEM;
	rc = enc__fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, h, &info);
	enc__fi_freeinfo(h);
	if (info)
		enc__fi_freeinfo(info);
	if (rc == -FI_ENODATA) {
		snprintf(err, errlen, "libfabric has no provider '%s' for RDM tagged messages with "
			 "manual progress (fi_info -l lists the providers)", prov);
		return -ENODATA;
	}
	if (rc)
		snprintf(err, errlen, "fi_getinfo on provider '%s': %s", prov, enc__fi_strerror(-rc));
	return rc;
}

const char *enc__ofi_ep_prov(const struct ofi_ep *e)
{
	return e->info && e->info->fabric_attr->prov_name ? e->info->fabric_attr->prov_name : "?";
}

int enc__ofi_ep_insert(struct ofi_ep *e, const uint8_t *const *names, char *err, size_t errlen)
{
	for (uint32_t q = 0; q < e->nranks; q++) {
		int n = fi_av_insert(e->av, names[q], 1, &e->addrs[q], 0, NULL);

		if (n != 1) {
			snprintf(err, errlen, "fi_av_insert of rank %u's address: %s", q,
				 enc__fi_strerror(n < 0 ? -n : FI_EINVAL));
			return n < 0 ? n : -EINVAL;
		}
		enc_tp(encnet, av_insert, e->rank, q, (uint64_t)e->addrs[q]);
	}
	return 0;
}

void enc__ofi_ep_close(struct ofi_ep *e)
{
	/* children before parents: endpoint, address vector, queue, domain, fabric */
	if (e->ep)
		fi_close(&e->ep->fid);
	if (e->av)
		fi_close(&e->av->fid);
	if (e->cq)
		fi_close(&e->cq->fid);
	if (e->domain)
		fi_close(&e->domain->fid);
	if (e->fabric)
		fi_close(&e->fabric->fid);
	if (e->info)
		enc__fi_freeinfo(e->info);
	free(e->addrs);
	memset(e, 0, sizeof(*e));
}
