/* The watchdog's private state, shared by watchdog.c, watchdog_classify.c, watchdog_death.c
 * and watchdog_print.c. */
#ifndef PSA_WATCHDOG_INT_H
#define PSA_WATCHDOG_INT_H

#include <proxyscope/psa_watchdog.h>

/* A finished task with an error status, kept until the analysis knows whether a process
 * death explains it. */
struct psa__failed_task {
	struct psa_stall s;
	int64_t peer;     /* psa_task.failed_peer */
	unsigned proc;    /* psa_proc id */
	uint64_t ts;      /* it finished */
};

/* A process that died: its process_died stall, and what the chains match it by. */
struct psa__death {
	size_t stall;     /* index in stalls */
	const struct psa_proc *proc;
};

struct psa_watchdog {
	struct psa_watchdog_opts opts;
	struct psa_stall *stalls;
	size_t n, cap;
	uint64_t trace_end;
	size_t ignored; /* live tasks most likely finished (see psa_watchdog_ignored) */
	size_t unknown_start; /* live tasks first seen mid-life (see psa_watchdog_unknown_start) */
	struct psa__failed_task *failed; /* candidates, from the observer */
	size_t failed_n, failed_cap;
	struct psa__death *deaths;
	size_t deaths_n;
};

/* watchdog.c */
struct psa_stall *psa__stall_add(struct psa_watchdog *w);
bool psa__watchdog_lost_in(const struct psa_model *m, uint64_t from, uint64_t to);

/* watchdog_death.c: the dead processes' stalls, the failed tasks they explain, the chains. */
int psa__watchdog_deaths(struct psa_watchdog *w, const struct psa_model *m);
int psa__watchdog_add_failed(struct psa_watchdog *w, const struct psa_model *m);
void psa__watchdog_death_adopt(struct psa_watchdog *w, const struct psa_task *t,
			       struct psa_stall *s);
int psa__watchdog_death_of_rank(const struct psa_watchdog *w, uint32_t job, uint32_t rank);

void psa__watchdog_classify(struct psa_watchdog *w, const struct psa_model *m,
			    const struct psa_task *t, struct psa_stall *s);
int psa__watchdog_chain(struct psa_watchdog *w, const struct psa_model *m, size_t first_live);
void psa__stall_wait_on(struct psa_stall *s, uint32_t rank);

#endif /* PSA_WATCHDOG_INT_H */
