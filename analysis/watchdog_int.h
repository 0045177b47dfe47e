/* The watchdog's private state, shared by watchdog.c, watchdog_classify.c, watchdog_print.c. */
#ifndef PSA_WATCHDOG_INT_H
#define PSA_WATCHDOG_INT_H

#include <proxyscope/psa_watchdog.h>

struct psa_watchdog {
	struct psa_watchdog_opts opts;
	struct psa_stall *stalls;
	size_t n, cap;
	uint64_t trace_end;
	size_t ignored; /* live tasks most likely finished (see psa_watchdog_ignored) */
};

void psa__watchdog_classify(struct psa_watchdog *w, const struct psa_model *m,
			    const struct psa_task *t, struct psa_stall *s);
int psa__watchdog_chain(struct psa_watchdog *w, const struct psa_model *m, size_t first_live);
void psa__stall_wait_on(struct psa_stall *s, uint32_t rank);

#endif /* PSA_WATCHDOG_INT_H */
