/* SPDX-License-Identifier: MIT */
/*
 * `proxyscope hosts [--hosts H] [--on HOST] [--no-sessiond] [--json] [-- CMD ARGS...]`: build H
 * simulated hosts on this machine (hosts.h), run CMD on one of them, and tear everything down.
 *
 * CMD gets the hosts through its environment - the hostfile and launch agent for mpirun, the
 * names and addresses - so a job across hosts can be tried by hand exactly as `run --hosts`
 * starts one. Every exit path goes through hosts_destroy: CMD's end, a failure, Ctrl-C; and
 * the keeper cleans up if this process is killed outright.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_util.h"
#include "cli_help.h"
#include "cmd.h"
#include "command.h"
#include "hosts.h"
#include "signals.h"

enum { OPT_HOSTS = 1, OPT_ON, OPT_NO_SESSIOND, OPT_JSON, OPT_HELP };

static const struct cli_opt hosts_opts[] = {
	{ "hosts", 'H', true, OPT_HOSTS },
	{ "on", 0, true, OPT_ON },
	{ "no-sessiond", 0, false, OPT_NO_SESSIOND },
	{ "json", 0, false, OPT_JSON },
	{ "help", 'h', false, OPT_HELP },
	{ NULL, 0, false, 0 },
};

static const char hosts_usage[] = CLI_HELP_HOSTS; /* docs/commands/proxyscope-hosts.txt */

static void hosts_print(const struct hosts *h, bool json)
{
	struct jw j;

	if (!json) {
		for (unsigned i = 0; i <= h->n; i++) {
			const struct host *s = i < h->n ? &h->host[i] : &h->collector;

			printf("%-10s %-15s netns %llu\n", s->name, s->addr,
			       (unsigned long long)s->netns_ino);
		}
		fflush(stdout);
		return;
	}
	jw_init(&j, stdout);
	cli_json_begin_document(&j);
	jw_key(&j, "hosts");
	jw_begin_array(&j);
	for (unsigned i = 0; i <= h->n; i++) {
		const struct host *s = i < h->n ? &h->host[i] : &h->collector;

		jw_begin_object(&j);
		jw_key(&j, "name");
		jw_string(&j, s->name);
		jw_key(&j, "address");
		jw_string(&j, s->addr);
		jw_key(&j, "netns_inode");
		jw_u64(&j, s->netns_ino);
		jw_key(&j, "sessiond_pid");
		if (s->sessiond > 0)
			jw_u64(&j, (uint64_t)s->sessiond);
		else
			jw_null(&j);
		jw_end_object(&j);
	}
	jw_end_array(&j);
	jw_key(&j, "runtime_dir");
	jw_string(&j, h->dir);
	jw_key(&j, "switch_netns_inode");
	jw_u64(&j, h->sw.netns_ino);
	jw_end_object(&j);
	jw_finish(&j);
	fflush(stdout);
}

int cmd_hosts(int argc, char **argv)
{
	struct hosts_opts o = { .n = 2, .sessiond = true };
	const char *name, *value, *on = HOSTS_COLLECTOR;
	char err[HOSTS_ERR_MAX];
	struct ctl_sigcatch sigs;
	struct cli_opts p;
	struct hosts *h;
	struct host *where;
	bool json = false;
	uint64_t v;
	int id, rc;

	cli_opts_init(&p, hosts_opts, argc, argv);
	while ((id = cli_opts_next(&p, &name, &value, err, sizeof(err))) > 0) {
		switch (id) {
		case OPT_HOSTS:
			if (cli_parse_u64(value, 1, HOSTS_MAX, &v, err, sizeof(err)))
				return cli_usage_error("hosts", "%s: %s", name, err);
			o.n = (unsigned)v;
			break;
		case OPT_ON:
			on = value;
			break;
		case OPT_NO_SESSIOND:
			o.sessiond = false;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_HELP:
			fputs(hosts_usage, stdout);
			return CLI_EXIT_OK;
		}
	}
	if (id == CLI_OPT_ERROR)
		return cli_usage_error("hosts", "%s", err);
	if (id == CLI_OPT_POSITIONAL && !p.done)
		return cli_usage_error("hosts", "unexpected argument '%s' (CMD follows '--')", value);

	ctl_signals_catch(&sigs, true); /* a teardown on every path; not given back: we exit */
	rc = hosts_create(&o, &h, err, sizeof(err));
	if (rc == -EPERM) {
		cli_error("%s", err);
		return CLI_EXIT_USAGE;
	}
	if (rc) {
		cli_error("%s", err);
		return CLI_EXIT_FAILURE;
	}
	where = hosts_find(h, on);
	if (!where) {
		hosts_destroy(h);
		return cli_usage_error("hosts", "--on: no host '%s'", on);
	}
	hosts_print(h, json);
	if (hosts_env_export(h) < 0) {
		cli_error("cannot set the environment: %s", strerror(errno));
		rc = CLI_EXIT_FAILURE;
	} else if (id == CLI_OPT_POSITIONAL) {
		struct ctl_command cmd = { 0 };

		rc = host_spawn(where, &argv[p.i - 1], NULL, &cmd.pid);
		if (rc < 0) {
			cli_error("cannot start '%s': %s", value, strerror(-rc));
			rc = CLI_EXIT_FAILURE;
		} else { /* every signal caught is passed on; CMD decides how it ends */
			rc = ctl_command_wait(&cmd, true);
			rc = rc < 0 ? CLI_EXIT_FAILURE : rc;
		}
	} else {
		while (!ctl_signals_caught())
			pause();
		rc = CLI_EXIT_OK;
	}
	hosts_destroy(h);
	return rc;
}
