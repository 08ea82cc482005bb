/* preload/td_signal: the on_signal list parser (the handler machinery is
 * tested on real processes by tests/integration/harden_signals.sh). */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>

int td_signal_parse(const char *list, uint64_t *mask, char *bad, size_t badlen);
const char *td_signal_name(int sig);

Test(signal, names_with_or_without_sig_any_case)
{
	uint64_t m;
	char bad[32] = "";
	cr_assert_eq(td_signal_parse("TERM, SIGint ,quit", &m, bad, sizeof(bad)), 0);
	cr_expect_eq(m, (1ull << SIGTERM) | (1ull << SIGINT) | (1ull << SIGQUIT));
	cr_assert_eq(td_signal_parse("HUP,USR1,USR2,ALRM", &m, bad, sizeof(bad)), 0);
	cr_expect_eq(m, (1ull << SIGHUP) | (1ull << SIGUSR1) | (1ull << SIGUSR2) | (1ull << SIGALRM));
	cr_assert_eq(td_signal_parse("", &m, bad, sizeof(bad)), 0);
	cr_expect_eq(m, 0);
}

Test(signal, fatal_and_unknown_signals_are_refused)
{
	uint64_t m;
	char bad[32];
	const char *refused[] = { "SEGV", "ABRT", "KILL", "STOP", "9", "TERMX", "SIG" };
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		char list[64];
		snprintf(list, sizeof(list), "TERM, %s", refused[i]);
		cr_expect_eq(td_signal_parse(list, &m, bad, sizeof(bad)), -EINVAL, "%s accepted", refused[i]);
		cr_expect_str_eq(bad, refused[i]);
	}
}

Test(signal, names_back)
{
	cr_expect_str_eq(td_signal_name(SIGTERM), "TERM");
	cr_expect_str_eq(td_signal_name(SIGQUIT), "QUIT");
	cr_expect_null(td_signal_name(SIGSEGV));
}
