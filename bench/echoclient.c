/*
 * echoclient: the baseline of the batch benchmark (scripts/bench-batch.sh,
 * BenchmarkBatchVsC). A minimal MCP client that does, strictly one after
 * the other, what `mcpctl call --batch` does against a stdio server:
 * start the server, initialize, notifications/initialized, N tools/call
 * of echo, each waiting for its answer, then close the server's stdin and
 * wait for it to exit. It checks only that each answer carries its id.
 * With ECHOCLIENT_TIME set it also prints the time the calls took, in
 * nanoseconds, to stderr (TestBenchAgreesWithC compares mcpctl bench's
 * latency with it). ECHOCLIENT_TOOL and ECHOCLIENT_ARGS (a JSON object)
 * call another tool with fixed arguments instead.
 *
 *   cc -O2 -o echoclient bench/echoclient.c
 *   ./echoclient N SERVER [ARGS...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *msg) {
	perror(msg);
	exit(1);
}

/* roundtrip writes one request and reads lines until the one answering id. */
static void roundtrip(FILE *to, FILE *from, const char *req, long id, char **line, size_t *cap) {
	char want[32];
	snprintf(want, sizeof want, "\"id\":%ld", id);
	if (fputs(req, to) == EOF || fflush(to) == EOF)
		die("writing to the server");
	for (;;) {
		if (getline(line, cap, from) < 0) {
			fprintf(stderr, "echoclient: the server closed stdout before answering id %ld\n", id);
			exit(1);
		}
		if (strstr(*line, want) != NULL)
			return;
	}
}

int main(int argc, char **argv) {
	if (argc < 3) {
		fprintf(stderr, "usage: echoclient N SERVER [ARGS...]\n");
		return 2;
	}
	long n = atol(argv[1]);
	int in[2], out[2];
	if (pipe(in) < 0 || pipe(out) < 0)
		die("pipe");
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execvp(argv[2], argv + 2);
		perror("exec");
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	FILE *to = fdopen(in[1], "w");
	FILE *from = fdopen(out[0], "r");
	if (!to || !from)
		die("fdopen");

	char *line = NULL;
	size_t cap = 0;
	roundtrip(to, from,
		"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
		"\"capabilities\":{},\"clientInfo\":{\"name\":\"echoclient\",\"version\":\"1\"}}}\n",
		0, &line, &cap);
	if (fputs("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n", to) == EOF)
		die("writing to the server");
	const char *tool = getenv("ECHOCLIENT_TOOL");
	const char *args = getenv("ECHOCLIENT_ARGS");
	char req[4096];
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long id = 1; id <= n; id++) {
		int len;
		if (tool != NULL && args != NULL)
			len = snprintf(req, sizeof req,
				"{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
				"\"arguments\":%s}}\n", id, tool, args);
		else
			len = snprintf(req, sizeof req,
				"{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
				"\"arguments\":{\"message\":\"hello %ld\"}}}\n", id, id);
		if (len < 0 || (size_t)len >= sizeof req) {
			fprintf(stderr, "echoclient: the request does not fit in %zu bytes\n", sizeof req);
			return 2;
		}
		roundtrip(to, from, req, id, &line, &cap);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (getenv("ECHOCLIENT_TIME") != NULL)
		fprintf(stderr, "calls_ns %lld\n",
			(long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
	fclose(to);
	int status;
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	free(line);
	fclose(from);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
