/* The log of code run in the test's own process (the engine logs to stderr): caught in a file to be
 * searched afterwards, or kept to what a passing test should not print. */
#ifndef MPAMD_TESTS_UTIL_LOG_CAPTURE_H
#define MPAMD_TESTS_UTIL_LOG_CAPTURE_H

struct log_capture {
	char path[64];
	int saved_stderr; /* -1 when not capturing */
};

/* stderr goes to a new file of its own until log_capture_end; aborts the test on failure. */
void log_capture_begin(struct log_capture *c);
/* stderr back where it was; the file stays until log_capture_free. A no-op when not capturing. */
void log_capture_end(struct log_capture *c);
/* Writes the caught log on to stderr as it is now (after log_capture_end): a capture inside another
 * then leaves the outer one whole, and the test's output shows the log. */
void log_capture_pass_on(const struct log_capture *c);
/* The lines of the caught log that contain every one of the NULL-terminated `parts`. */
unsigned log_capture_count(const struct log_capture *c, const char *const *parts);
/* Ends the capture if it runs and removes the file. */
void log_capture_free(struct log_capture *c);

/* Group setups (cmocka_run_group_tests' third argument): the log on stderr at errors only, or at
 * warnings and errors. */
int log_errors_only(void **state);
int log_warnings_too(void **state);

#endif
