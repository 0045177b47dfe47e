/*
 * The driver configuration: defaults, then ENC_* environment variables. Parsing is strict: a
 * value that is not entirely a number in range, or a boolean other than 0/1/true/false/yes/no/
 * on/off, is rejected with a message naming the variable.
 */
#include <errno.h>
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

int enc_config_from_lookup(struct enc_config *cfg, const char *(*lookup)(const char *name),
			   char *err, size_t errlen)
{
	const char *v;
	uint32_t u;
	int rc;

	if ((v = lookup("ENC_RANKS_PER_NETWORK_PROXY"))) {
		rc = parse_u32("ENC_RANKS_PER_NETWORK_PROXY", v, 1, 1u << 20, &cfg->ranks_per_network_proxy,
			       err, errlen);
		if (rc)
			return rc;
	}
	if ((v = lookup("ENC_ONE_THREAD_PER_CORE"))) {
		rc = parse_bool("ENC_ONE_THREAD_PER_CORE", v, &cfg->one_thread_per_core, err, errlen);
		if (rc)
			return rc;
	}
	if ((v = lookup("ENC_PROXY_TIMEOUT_MS"))) {
		rc = parse_u32("ENC_PROXY_TIMEOUT_MS", v, 1, UINT32_MAX, &cfg->proxy_timeout_ms, err, errlen);
		if (rc)
			return rc;
	}
	if ((v = lookup("ENC_PROXY_CONSUME_YIELD_US"))) {
		rc = parse_u32("ENC_PROXY_CONSUME_YIELD_US", v, 0, 1000000, &cfg->consume_yield_us, err,
			       errlen);
		if (rc)
			return rc;
	}
	if ((v = lookup("ENC_PROXY_CONSUME_POLL_US"))) {
		rc = parse_u32("ENC_PROXY_CONSUME_POLL_US", v, 0, 1000000, &cfg->consume_poll_us, err, errlen);
		if (rc)
			return rc;
	}
	if ((v = lookup("ENC_PROXY_WORKER_LINGER_US"))) {
		rc = parse_u32("ENC_PROXY_WORKER_LINGER_US", v, 0, 1000000, &cfg->worker_linger_us, err,
			       errlen);
		if (rc)
			return rc;
	}
	if ((v = lookup("ENC_PROXY_DEVICE_WAIT"))) {
		rc = parse_bool("ENC_PROXY_DEVICE_WAIT", v, &cfg->device_wait, err, errlen);
		if (rc)
			return rc;
	}
	if ((v = lookup("ENC_PROXY_EARLY_COMPLETION"))) {
		rc = parse_bool("ENC_PROXY_EARLY_COMPLETION", v, &cfg->early_completion, err, errlen);
		if (rc)
			return rc;
	}
	if ((v = lookup("ENC_PROXY_CPU"))) {
		if (!strcmp(v, "-1")) {
			cfg->worker_cpu = -1;
		} else {
			rc = parse_u32("ENC_PROXY_CPU", v, 0, 4095, &u, err, errlen);
			if (rc)
				return rc;
			cfg->worker_cpu = (int)u;
		}
	}
	if ((v = lookup("ENC_NET_BACKEND"))) {
		if (!*v || strlen(v) >= sizeof(cfg->net_backend))
			return bad(err, errlen, "ENC_NET_BACKEND", v, "expected a backend name");
		if (!enc_net_ops_find(v))
			return bad(err, errlen, "ENC_NET_BACKEND", v, "no such backend");
		snprintf(cfg->net_backend, sizeof(cfg->net_backend), "%s", v);
	}
	if ((v = lookup("ENC_NET_PROVIDER"))) {
		if (strlen(v) >= sizeof(cfg->net_provider))
			return bad(err, errlen, "ENC_NET_PROVIDER", v, "expected a provider name");
		snprintf(cfg->net_provider, sizeof(cfg->net_provider), "%s", v);
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
