// SPDX-License-Identifier: GPL-2.0
/*
 * timeit: run a command and print its wall-clock time (CLOCK_MONOTONIC) in
 * milliseconds, for the mount-time benchmark (busybox `time` has 10 ms
 * resolution).
 *
 * Usage: timeit LABEL CMD [ARG...]
 * Prints "timeit label=LABEL ms=12.345 rc=0" on stdout; exits with CMD's status.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double t0, t1;
	int status = 0, rc;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: timeit LABEL CMD [ARG...]\n");
		return 2;
	}
	t0 = now_ms();
	pid = fork();
	if (pid < 0) {
		perror("timeit: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror("timeit: exec");
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("timeit: waitpid");
		return 1;
	}
	t1 = now_ms();
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	printf("timeit label=%s ms=%.3f rc=%d\n", argv[1], t1 - t0, rc);
	fflush(stdout);
	return rc;
}
