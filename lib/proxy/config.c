/* SPDX-License-Identifier: MIT */
/*
 * The driver configuration: defaults, then ENC_* environment variables. Parsing is strict: a
 * value that is not entirely a number in range, or a boolean other than 0/1/true/false/yes/no/
 * on/off, is rejected with a message naming the variable.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <proxyscope/config.h>
#include <proxyscope/net.h>

void enc_config_default(struct enc_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ranks_per_network_proxy = 1;
	cfg->one_thread_per_core = false;
	cfg->proxy_timeout_ms = 30000;
	cfg->consume_poll_us = 10;
	cfg->consume_yield_us = 100;
	cfg->device_wait = true;
	cfg->early_completion = false;
	cfg->worker_cpu = -1;
	cfg->worker_linger_us = 100;
	cfg->progress_ms = 100;
	snprintf(cfg->net_backend, sizeof(cfg->net_backend), "loop");
}

static int bad(char *err, size_t errlen, const char *name, const char *value, const char *why)
{
	if (err && errlen)
		snprintf(err, errlen, "%s='%s': %s", name, value, why);
	return -EINVAL;
}

static int parse_u32(const char *name, const char *v, uint32_t lo, uint32_t hi, uint32_t *out,
		     char *err, size_t errlen)
{
	char msg[64];
	char *end;
	unsigned long long x;

	if (!*v || *v == '-' || *v == '+')
		return bad(err, errlen, name, v, "expected a non-negative integer");
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || *end)
		return bad(err, errlen, name, v, "expected a non-negative integer");
	if (x < lo || x > hi) {
		snprintf(msg, sizeof(msg), "out of range [%u, %u]", lo, hi);
		return bad(err, errlen, name, v, msg);
	}
	*out = (uint32_t)x;
	return 0;
}

static int parse_bool(const char *name, const char *v, bool *out, char *err, size_t errlen)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(v, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(v, no[i])) {
			*out = false;
			return 0;
		}
	}
	return bad(err, errlen, name, v, "expected 0/1, true/false, yes/no or on/off");
}

/* How a variable's value is read into its field. */
enum var_kind {
	VAR_U32,      /* a uint32_t in [lo, hi] */
	VAR_BOOL,     /* a bool */
	VAR_CPU,      /* an int: a CPU in [lo, hi], or -1 for none */
	VAR_BACKEND,  /* a char array: the name of a registered network backend */
	VAR_PROVIDER, /* a char array: any name that fits */
};

struct config_var {
	const char *name;
	enum var_kind kind;
	size_t off;  /* the field in struct enc_config */
	size_t size; /* its size (the char arrays) */
	uint32_t lo, hi;
};

#define FIELD(f) offsetof(struct enc_config, f), sizeof(((struct enc_config *)0)->f)

/* Every variable, in the order they are read (the first bad one is the one reported). */
static const struct config_var vars[] = {
	{ "ENC_RANKS_PER_NETWORK_PROXY", VAR_U32, FIELD(ranks_per_network_proxy), 1, 1u << 20 },
	{ "ENC_ONE_THREAD_PER_CORE", VAR_BOOL, FIELD(one_thread_per_core), 0, 0 },
	{ "ENC_PROXY_TIMEOUT_MS", VAR_U32, FIELD(proxy_timeout_ms), 1, UINT32_MAX },
	{ "ENC_PROXY_CONSUME_YIELD_US", VAR_U32, FIELD(consume_yield_us), 0, 1000000 },
	{ "ENC_PROXY_CONSUME_POLL_US", VAR_U32, FIELD(consume_poll_us), 0, 1000000 },
	{ "ENC_PROXY_WORKER_LINGER_US", VAR_U32, FIELD(worker_linger_us), 0, 1000000 },
	{ "ENC_PROXY_DEVICE_WAIT", VAR_BOOL, FIELD(device_wait), 0, 0 },
	{ "ENC_PROXY_EARLY_COMPLETION", VAR_BOOL, FIELD(early_completion), 0, 0 },
	{ "ENC_PROXY_CPU", VAR_CPU, FIELD(worker_cpu), 0, 4095 },
	{ "ENC_NET_BACKEND", VAR_BACKEND, FIELD(net_backend), 0, 0 },
	{ "ENC_NET_PROVIDER", VAR_PROVIDER, FIELD(net_provider), 0, 0 },
	{ "ENC_PROXY_PROGRESS_MS", VAR_U32, FIELD(progress_ms), 0, 3600000 },
};

static int parse_name(const struct config_var *d, const char *v, char *field, char *err,
		      size_t errlen)
{
	if (strlen(v) >= d->size || (d->kind == VAR_BACKEND && !*v))
		return bad(err, errlen, d->name, v, d->kind == VAR_BACKEND ?
			   "expected a backend name" : "expected a provider name");
	if (d->kind == VAR_BACKEND && !enc_net_ops_find(v))
		return bad(err, errlen, d->name, v, "no such backend");
	memcpy(field, v, strlen(v) + 1);
	return 0;
}

static int parse_var(const struct config_var *d, const char *v, struct enc_config *cfg,
		     char *err, size_t errlen)
{
	char *field = (char *)cfg + d->off;
	uint32_t u;
	int rc;

	switch (d->kind) {
	case VAR_U32:
		return parse_u32(d->name, v, d->lo, d->hi, (uint32_t *)field, err, errlen);
	case VAR_BOOL:
		return parse_bool(d->name, v, (bool *)field, err, errlen);
	case VAR_CPU:
		if (!strcmp(v, "-1")) {
			*(int *)field = -1;
			return 0;
		}
		rc = parse_u32(d->name, v, d->lo, d->hi, &u, err, errlen);
		if (!rc)
			*(int *)field = (int)u;
		return rc;
	case VAR_BACKEND:
	case VAR_PROVIDER:
		return parse_name(d, v, field, err, errlen);
	}
	return -EINVAL;
}

int enc_config_from_lookup(struct enc_config *cfg, const char *(*lookup)(const char *name),
			   char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = lookup(vars[i].name);
		int rc = v ? parse_var(&vars[i], v, cfg, err, errlen) : 0;

		if (rc)
			return rc;
	}
	return 0;
}

static const char *lookup_env(const char *name)
{
	return getenv(name);
}

int enc_config_from_env(struct enc_config *cfg, char *err, size_t errlen)
{
	return enc_config_from_lookup(cfg, lookup_env, err, errlen);
}
