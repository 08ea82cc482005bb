/* td_log: the one levelled logger. Every message goes to stderr with the
 * "tdprobe:" prefix; TDPROBE_LOG=quiet|info|debug sets the level.
 * Threading: safe from any thread and from signal handlers (one write()). */
#ifndef TD_LOG_H
#define TD_LOG_H

enum td_log_level { TD_LOG_QUIET = 0, TD_LOG_ERROR = 1, TD_LOG_INFO = 2, TD_LOG_DEBUG = 3 };

/* Picks where messages go, once at startup: the fd named by TDPROBE_LOG_FD
 * (the launcher passes a copy of its stderr), else fd 2. Its identity is
 * remembered: a message is dropped rather than written into a file the
 * program put at that fd number later (a closed-and-reused stderr). */
void td_log_init(const char *log_fd_env);
void td_log_set_level(enum td_log_level level);
enum td_log_level td_log_get_level(void);
int td_log_parse_level(const char *s, enum td_log_level *out);

/* Formats into a stack buffer and writes it with one write(2). */
void td_log(enum td_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define td_err(...) td_log(TD_LOG_ERROR, __VA_ARGS__)
#define td_info(...) td_log(TD_LOG_INFO, __VA_ARGS__)
#define td_dbg(...) td_log(TD_LOG_DEBUG, __VA_ARGS__)

#endif
