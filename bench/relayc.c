/*
 * relayc: the machine's floor for a stdio relay (scripts/bench-proxy.sh).
 * bench/relayfloor is the least a Go relay can do; this is the least any
 * relay can do: one thread, one poll(2) over the host's stdin and the
 * server's stdout, each read written on whole to the other side. What it
 * adds to the direct round trip is the price of one more process in the
 * path on this machine (two more pipe hops and wake-ups a call), before
 * any language runtime's share.
 *
 *   cc -O2 -o relayc bench/relayc.c
 *   ./relayc SERVER [ARGS...]
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* put writes all of b to fd, retrying short and interrupted writes. */
static int put(int fd, const char *b, ssize_t n) {
	while (n > 0) {
		ssize_t w = write(fd, b, (size_t)n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		b += w;
		n -= w;
	}
	return 0;
}

int main(int argc, char **argv) {
	int toServer[2], fromServer[2];
	if (argc < 2) {
		fprintf(stderr, "usage: relayc SERVER [ARGS...]\n");
		return 2;
	}
	if (pipe(toServer) < 0 || pipe(fromServer) < 0) {
		perror("relayc: pipe");
		return 1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("relayc: fork");
		return 1;
	}
	if (pid == 0) {
		dup2(toServer[0], 0);
		dup2(fromServer[1], 1);
		close(toServer[0]);
		close(toServer[1]);
		close(fromServer[0]);
		close(fromServer[1]);
		execvp(argv[1], argv + 1);
		perror("relayc: exec");
		_exit(127);
	}
	close(toServer[0]);
	close(fromServer[1]);

	static char buf[1 << 16];
	struct pollfd fds[2] = {{.fd = 0, .events = POLLIN}, {.fd = fromServer[0], .events = POLLIN}};
	for (;;) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("relayc: poll");
			return 1;
		}
		if (fds[0].revents) {
			ssize_t n = read(0, buf, sizeof buf);
			if (n > 0) {
				if (put(toServer[1], buf, n) < 0)
					return 1;
			} else if (n == 0 || errno != EINTR) {
				/* The host is done: the server sees its stdin close. */
				close(toServer[1]);
				fds[0].fd = -1;
			}
		}
		if (fds[1].revents) {
			ssize_t n = read(fromServer[0], buf, sizeof buf);
			if (n > 0) {
				if (put(1, buf, n) < 0)
					return 1;
			} else if (n == 0 || errno != EINTR) {
				break;
			}
		}
	}
	int status;
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
