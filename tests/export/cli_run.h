/*
 * Running the proxyscope binary from the export tests: a child with stdin, stdout and stderr
 * redirected to files, a scratch directory, and reading a file back.
 */
#ifndef PROXYSCOPE_TESTS_EXPORT_CLI_RUN_H
#define PROXYSCOPE_TESTS_EXPORT_CLI_RUN_H

#include <stdbool.h>
#include <stddef.h>

#define CLI_PATH_MAX 512

/*
 * Run @argv (argv[0] a path) with stdin from @in (NULL: /dev/null) and stdout, stderr into
 * @out, @err. Returns the exit status, 128 + N when signal N ended it, or -1.
 */
int cli_run(char *const argv[], const char *in, const char *out, const char *err);

/* A new directory under $TMPDIR (or /tmp) named @prefix-XXXXXX, in @dir. */
int scratch_create(const char *prefix, char dir[CLI_PATH_MAX]);
/* Remove @dir and everything below it. */
void scratch_remove(const char *dir);

bool file_exists(const char *path);
/* Lines in @path (0 when it cannot be read). */
size_t file_lines(const char *path);

#endif /* PROXYSCOPE_TESTS_EXPORT_CLI_RUN_H */
