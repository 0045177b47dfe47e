/* SPDX-License-Identifier: MIT */
/*
 * Fault specs of the ring-exchange workload: "<kind>:<key>=<value>[,<key>=<value>]...".
 *
 * One const descriptor per kind says which device or loop-net fault it becomes and which keys it
 * requires or allows; the parser only splits the text, reads each key once, and lets the
 * descriptor decide. Every rejection writes one line that quotes the offending text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/workload.h>

enum key {
	KEY_RANK = 0,
	KEY_HOST,
	KEY_PROC,
	KEY_EXEC,
	KEY_STREAM,
	KEY_MS,
	KEY_US,
	KEY_FROM,
	KEY_TO,
	KEY_PEER,
	KEY_KBIT,
	KEY_NR
};

#define KEY_BIT(k) (1u << (k))

struct key_desc {
	const char *name;
	uint64_t max; /* largest accepted value */
};

static const struct key_desc key_descs[KEY_NR] = {
	/* ranks, hosts and processes are checked against the run's counts by enc_wl_run */
	[KEY_RANK] = { "rank", UINT32_MAX - 1 },
	[KEY_HOST] = { "host", UINT32_MAX - 1 },
	[KEY_EXEC] = { "exec", UINT64_MAX - 1 }, /* UINT64_MAX means "any exec" to the backends */
	[KEY_STREAM] = { "stream", ENC_MAX_STREAMS - 1 },
	[KEY_MS] = { "ms", UINT32_MAX },
	[KEY_US] = { "us", UINT32_MAX },
	[KEY_FROM] = { "from", UINT64_MAX - 1 },
	[KEY_TO] = { "to", UINT64_MAX - 1 },
	[KEY_PROC] = { "proc", UINT32_MAX - 1 },
	[KEY_PEER] = { "peer", UINT32_MAX - 1 },
	[KEY_KBIT] = { "kbit", UINT32_MAX },
};

struct kind_desc {
	const char *name;
	uint32_t target;  /* enum enc_wl_fault_target */
	uint32_t kind;    /* enum enc_dev_fault_kind or enum enc_net_loop_fault_kind */
	unsigned required; /* KEY_BIT mask */
	unsigned optional;
};

/* A device fault names one rank (rank=R) or every rank of one process (proc=P): who_check. */
static const struct kind_desc kind_descs[] = {
	{ "device-stall", ENC_WL_FAULT_DEV, ENC_DEV_FAULT_NEVER_TRIGGER, KEY_BIT(KEY_EXEC),
	  KEY_BIT(KEY_RANK) | KEY_BIT(KEY_PROC) | KEY_BIT(KEY_STREAM) },
	/* one exec (exec=E) or a stretch of them (from=E1,to=E2): range_check */
	{ "device-delay", ENC_WL_FAULT_DEV, ENC_DEV_FAULT_LATE, KEY_BIT(KEY_MS),
	  KEY_BIT(KEY_RANK) | KEY_BIT(KEY_PROC) | KEY_BIT(KEY_EXEC) | KEY_BIT(KEY_FROM) |
	  KEY_BIT(KEY_TO) },
	{ "net-drop", ENC_WL_FAULT_NET, ENC_NET_LOOP_FAULT_DROP,
	  KEY_BIT(KEY_RANK) | KEY_BIT(KEY_EXEC), 0 },
	/* from the start, or from exec E on (from=E), or over a stretch (from=E1,to=E2) */
	{ "slow-progress", ENC_WL_FAULT_NET, ENC_NET_LOOP_FAULT_SLOW,
	  KEY_BIT(KEY_RANK) | KEY_BIT(KEY_US), KEY_BIT(KEY_FROM) | KEY_BIT(KEY_TO) },
	{ "kill", ENC_WL_FAULT_KILL, 0, KEY_BIT(KEY_RANK) | KEY_BIT(KEY_EXEC), 0 },
	{ "partition", ENC_WL_FAULT_PARTITION, 0, KEY_BIT(KEY_HOST) | KEY_BIT(KEY_EXEC), 0 },
	{ "slow-link", ENC_WL_FAULT_LINK, 0, KEY_BIT(KEY_HOST) | KEY_BIT(KEY_EXEC) | KEY_BIT(KEY_KBIT),
	  KEY_BIT(KEY_PEER) },
	/* a link fault of rate 0: the connections reset, the link left up (kind 1: kind_of) */
	{ "net-break", ENC_WL_FAULT_LINK, 1, KEY_BIT(KEY_HOST) | KEY_BIT(KEY_EXEC), KEY_BIT(KEY_PEER) },
};

#define KIND_DESCS_N (sizeof(kind_descs) / sizeof(kind_descs[0]))

static const char *const target_names[ENC_WL_FAULT_TARGET_NR] = {
	[ENC_WL_FAULT_DEV] = "device",
	[ENC_WL_FAULT_NET] = "net",
	[ENC_WL_FAULT_KILL] = "process",
	[ENC_WL_FAULT_PARTITION] = "host link",
	[ENC_WL_FAULT_LINK] = "link rate",
};

const char *enc_wl_fault_target_str(enum enc_wl_fault_target target)
{
	if ((unsigned)target >= ENC_WL_FAULT_TARGET_NR)
		return "?";
	return target_names[target];
}

static int reject(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int reject(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static const struct kind_desc *kind_find(const char *name, size_t len)
{
	for (size_t i = 0; i < KIND_DESCS_N; i++)
		if (strlen(kind_descs[i].name) == len && !memcmp(kind_descs[i].name, name, len))
			return &kind_descs[i];
	return NULL;
}

static int key_find(const char *name, size_t len)
{
	for (int k = 0; k < KEY_NR; k++)
		if (strlen(key_descs[k].name) == len && !memcmp(key_descs[k].name, name, len))
			return k;
	return -1;
}

/* A decimal number of @len chars, digits only, no sign; false if malformed or above UINT64_MAX. */
static bool number_parse(const char *s, size_t len, uint64_t *out)
{
	char buf[32];
	char *end;

	if (len == 0 || len >= sizeof(buf) || strspn(s, "0123456789") < len)
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtoull(buf, &end, 10);
	return errno == 0 && *end == '\0';
}

/* Read the comma-separated key=value list @p (up to the NUL) into @vals; @seen gets the keys. */
static int pairs_parse(const struct kind_desc *kd, const char *p, uint64_t vals[KEY_NR],
		       unsigned *seen, char *err, size_t errlen)
{
	while (*p) {
		size_t len = strcspn(p, ",");
		const char *eq = memchr(p, '=', len);
		uint64_t v;
		int k;

		if (!eq)
			return reject(err, errlen, "%s: expected key=value, got '%.*s'", kd->name,
				      (int)len, p);
		k = key_find(p, (size_t)(eq - p));
		if (k < 0 || !((kd->required | kd->optional) & KEY_BIT(k)))
			return reject(err, errlen, "%s: unknown key '%.*s'", kd->name,
				      (int)(eq - p), p);
		if (*seen & KEY_BIT(k))
			return reject(err, errlen, "%s: key '%s' given twice", kd->name,
				      key_descs[k].name);
		if (!number_parse(eq + 1, len - (size_t)(eq + 1 - p), &v))
			return reject(err, errlen, "%s: %s='%.*s' is not a non-negative integer",
				      kd->name, key_descs[k].name, (int)(len - (size_t)(eq + 1 - p)),
				      eq + 1);
		if (v > key_descs[k].max)
			return reject(err, errlen, "%s: %s=%" PRIu64 " out of range (max %" PRIu64 ")",
				      kd->name, key_descs[k].name, v, key_descs[k].max);
		*seen |= KEY_BIT(k);
		vals[k] = v;
		p += len;
		if (*p == ',' && *++p == '\0')
			return reject(err, errlen, "%s: trailing ','", kd->name);
	}
	return 0;
}

/*
 * A kind that takes its execs either as exec=E or as from=E1,to=E2 (E1 < E2): exactly one. A
 * kind without exec= (slow-progress) holds from the start, or from=E1 on, or from=E1 to=E2.
 */
static int range_check(const struct kind_desc *kd, const uint64_t vals[KEY_NR], unsigned seen,
		       char *err, size_t errlen)
{
	bool exec = seen & KEY_BIT(KEY_EXEC), from = seen & KEY_BIT(KEY_FROM),
	     to = seen & KEY_BIT(KEY_TO);
	bool takes_exec = (kd->required | kd->optional) & KEY_BIT(KEY_EXEC);

	if (!(kd->optional & KEY_BIT(KEY_FROM)))
		return 0;
	if (exec && (from || to))
		return reject(err, errlen, "%s: give exec=E or from=E1,to=E2, not both", kd->name);
	if (to && !from)
		return reject(err, errlen, "%s: missing key 'from'", kd->name);
	if (takes_exec && !exec && !(from && to))
		return reject(err, errlen, "%s: missing key '%s'", kd->name, from ? "to" : "exec");
	if (from && !to)
		return 0;
	if (from && vals[KEY_FROM] >= vals[KEY_TO])
		return reject(err, errlen, "%s: from=%" PRIu64 " must be below to=%" PRIu64,
			      kd->name, vals[KEY_FROM], vals[KEY_TO]);
	return 0;
}

/* A device fault's devices: rank=R or proc=P, exactly one. */
static int who_check(const struct kind_desc *kd, unsigned seen, char *err, size_t errlen)
{
	bool rank = seen & KEY_BIT(KEY_RANK), proc = seen & KEY_BIT(KEY_PROC);

	if (kd->target != ENC_WL_FAULT_DEV)
		return 0;
	if (rank && proc)
		return reject(err, errlen, "%s: give rank=R or proc=P, not both", kd->name);
	if (!rank && !proc)
		return reject(err, errlen, "%s: missing key 'rank'", kd->name);
	return 0;
}

int enc_wl_fault_parse(const char *spec, struct enc_wl_fault *out, char *err, size_t errlen)
{
	uint64_t vals[KEY_NR] = { 0 };
	const struct kind_desc *kd;
	unsigned seen = 0, missing;
	size_t kind_len;
	int rc;

	if (!spec || !out)
		return reject(err, errlen, "no fault spec");
	kind_len = strcspn(spec, ":");
	kd = kind_find(spec, kind_len);
	if (!kd)
		return reject(err, errlen,
			      "unknown fault kind '%.*s' (device-stall, device-delay, net-drop, "
			      "slow-progress, kill, partition, slow-link, net-break)", (int)kind_len,
			      spec);
	rc = pairs_parse(kd, spec[kind_len] ? spec + kind_len + 1 : "", vals, &seen, err, errlen);
	if (rc)
		return rc;
	rc = who_check(kd, seen, err, errlen);
	if (rc)
		return rc;
	missing = kd->required & ~seen;
	if (missing)
		return reject(err, errlen, "%s: missing key '%s'", kd->name,
			      key_descs[__builtin_ctz(missing)].name);
	rc = range_check(kd, vals, seen, err, errlen);
	if (rc)
		return rc;
	/* a rate of 0 is a net-break, which the spec then says */
	if (kd->target == ENC_WL_FAULT_LINK && (seen & KEY_BIT(KEY_KBIT)) && !vals[KEY_KBIT])
		return reject(err, errlen, "%s: kbit=0 stops the link: see net-break or partition",
			      kd->name);

	memset(out, 0, sizeof(*out));
	out->target = kd->target;
	if (kd->target == ENC_WL_FAULT_DEV) {
		out->dev.rank = (uint32_t)vals[KEY_RANK];
		out->dev.whole_proc = seen & KEY_BIT(KEY_PROC);
		out->dev.proc = (uint32_t)vals[KEY_PROC];
		out->dev.f.kind = kd->kind;
		out->dev.f.exec_id = (seen & KEY_BIT(KEY_FROM)) ? vals[KEY_FROM] : vals[KEY_EXEC];
		out->dev.f.exec_to = (seen & KEY_BIT(KEY_TO)) ? vals[KEY_TO] : 0;
		out->dev.f.stream = (seen & KEY_BIT(KEY_STREAM)) ? (uint32_t)vals[KEY_STREAM]
								 : ENC_DEV_ALL_STREAMS;
		out->dev.f.arg = (uint32_t)vals[KEY_MS];
	} else if (kd->target == ENC_WL_FAULT_KILL) {
		out->kill.rank = (uint32_t)vals[KEY_RANK];
		out->kill.exec_id = vals[KEY_EXEC];
	} else if (kd->target == ENC_WL_FAULT_PARTITION) {
		out->partition.host = (uint32_t)vals[KEY_HOST];
		out->partition.exec_id = vals[KEY_EXEC];
	} else if (kd->target == ENC_WL_FAULT_LINK) {
		out->link.host = (uint32_t)vals[KEY_HOST];
		out->link.peer = (seen & KEY_BIT(KEY_PEER)) ? (uint32_t)vals[KEY_PEER]
							    : ENC_WL_ALL_HOSTS;
		out->link.exec_id = vals[KEY_EXEC];
		out->link.kbit = (uint32_t)vals[KEY_KBIT];
	} else {
		out->net.kind = kd->kind;
		out->net.rank = (uint32_t)vals[KEY_RANK];
		out->net.exec_id = (seen & KEY_BIT(KEY_EXEC))	? vals[KEY_EXEC]
				   : (seen & KEY_BIT(KEY_FROM)) ? vals[KEY_FROM]
								: ENC_NET_LOOP_ANY_EXEC;
		/* from=E alone: to the end of the run */
		if (seen & KEY_BIT(KEY_FROM))
			out->net.exec_to = (seen & KEY_BIT(KEY_TO)) ? vals[KEY_TO]
								    : ENC_NET_LOOP_ANY_EXEC;
		out->net.arg = (uint32_t)vals[KEY_US];
	}
	return 0;
}

int enc_wl_args_add_fault(struct enc_wl_args *args, const char *spec, char *err, size_t errlen)
{
	struct enc_wl_fault f;
	int rc;

	if (args->faults_n >= ENC_WL_MAX_FAULTS) {
		reject(err, errlen, "too many faults (at most %d)", ENC_WL_MAX_FAULTS);
		return -ENOSPC;
	}
	rc = enc_wl_fault_parse(spec, &f, err, errlen);
	if (rc)
		return rc;
	args->faults[args->faults_n++] = f;
	return 0;
}

static const struct kind_desc *kind_of(const struct enc_wl_fault *f)
{
	uint32_t kind = f->target == ENC_WL_FAULT_DEV	? f->dev.f.kind
			: f->target == ENC_WL_FAULT_NET ? f->net.kind
			: f->target == ENC_WL_FAULT_LINK ? !f->link.kbit
							 : 0;

	for (size_t i = 0; i < KIND_DESCS_N; i++)
		if (kind_descs[i].target == f->target && kind_descs[i].kind == kind)
			return &kind_descs[i];
	return NULL;
}

/* The value of key @k in @f; false when @f leaves it at its default (stream: all, exec: any). */
static bool key_value(const struct enc_wl_fault *f, int k, uint64_t *v)
{
	bool dev = f->target == ENC_WL_FAULT_DEV;

	if (f->target == ENC_WL_FAULT_KILL) {
		*v = k == KEY_RANK ? f->kill.rank : f->kill.exec_id;
		return k == KEY_RANK || k == KEY_EXEC;
	}
	if (f->target == ENC_WL_FAULT_PARTITION) {
		*v = k == KEY_HOST ? f->partition.host : f->partition.exec_id;
		return k == KEY_HOST || k == KEY_EXEC;
	}
	if (f->target == ENC_WL_FAULT_LINK) {
		*v = k == KEY_HOST ? f->link.host : k == KEY_PEER ? f->link.peer :
		     k == KEY_KBIT ? f->link.kbit : f->link.exec_id;
		return k == KEY_HOST || k == KEY_EXEC || k == KEY_KBIT ||
		       (k == KEY_PEER && *v != ENC_WL_ALL_HOSTS);
	}
	switch (k) {
	case KEY_RANK:
		*v = dev ? f->dev.rank : f->net.rank;
		return !dev || !f->dev.whole_proc;
	case KEY_PROC:
		*v = f->dev.proc;
		return dev && f->dev.whole_proc;
	case KEY_EXEC:
		*v = dev ? f->dev.f.exec_id : f->net.exec_id;
		return *v != UINT64_MAX && !(dev && f->dev.f.exec_to > f->dev.f.exec_id) &&
		       !(!dev && f->net.exec_to > f->net.exec_id);
	case KEY_FROM:
		*v = dev ? f->dev.f.exec_id : f->net.exec_id;
		return dev ? f->dev.f.exec_to > f->dev.f.exec_id
			   : f->net.exec_to > f->net.exec_id && *v != UINT64_MAX;
	case KEY_TO: /* a net fault's open end (to the end of the run) is no key */
		*v = dev ? f->dev.f.exec_to : f->net.exec_to;
		return dev ? f->dev.f.exec_to > f->dev.f.exec_id
			   : f->net.exec_to > f->net.exec_id && *v != UINT64_MAX;
	case KEY_STREAM:
		*v = f->dev.f.stream;
		return dev && *v != ENC_DEV_ALL_STREAMS;
	default: /* KEY_MS, KEY_US: the kind's one argument */
		*v = dev ? f->dev.f.arg : f->net.arg;
		return true;
	}
}

int enc_wl_fault_format(const struct enc_wl_fault *f, char *buf, size_t len)
{
	const struct kind_desc *kd = kind_of(f);
	size_t n;
	char sep = ':';
	uint64_t v;

	if (!kd)
		return snprintf(buf, len, "unknown-%s-fault",
				enc_wl_fault_target_str((enum enc_wl_fault_target)f->target));
	n = (size_t)snprintf(buf, len, "%s", kd->name);
	for (int k = 0; k < KEY_NR; k++) {
		if (!((kd->required | kd->optional) & KEY_BIT(k)) || !key_value(f, k, &v))
			continue;
		n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0,
				      "%c%s=%" PRIu64, sep, key_descs[k].name, v);
		sep = ',';
	}
	return (int)n;
}
