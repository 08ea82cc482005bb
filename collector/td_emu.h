/* td_emu: an emulated Intel perf-metrics PMU for one thread, so the rdpmc
 * code path (td_pmu_read_topdown, td_topdown) runs unchanged on machines
 * without a PMU and can be checked against known true fractions.
 *
 * What is emulated (pmu-facts §1.3-§1.5, §5):
 *   - two perf_event_mmap_page in ordinary memory (slots leader, metric
 *     sibling): lock, index (0x40000004 / 0x20000001, 0 when not running),
 *     offset (= the event's count: adding it to raw SLOTS double-counts, as
 *     on the real kernel), pmc_width 48, cap_user_rdpmc, time_enabled/running
 *     and cap_user_time with time_offset/mult/shift over an emulated TSC;
 *   - the counter-read instruction: idx 0x40000004 -> fixed counter 3 (raw
 *     SLOTS, 48 bits), idx 0x20000001 -> PERF_METRICS (8 x 8-bit fields);
 *   - SLOTS advancing with the thread's CPU time x width, split among the
 *     categories by the true fractions of the current profile (region >
 *     thread name > default), PERF_METRICS = round(255 x category/SLOTS)
 *     cumulative since the last reset;
 *   - kernel behaviours: IOC_RESET zeroes SLOTS and PERF_METRICS and
 *     updates the page; a context switch saves and restores them (index 0
 *     while out, lock bumped, values unchanged); a PERF_METRICS overflow
 *     PMI zeroes them without touching the page; a migration to an E-core
 *     makes the group stop (index 0) and a TopDown read there "faults".
 *   - fault injection, every Nth emulated read (spec "sim=" below).
 *
 * Fractions syntax (TDPROBE_EMULATE or [emulate] fractions), entries
 * separated by ';':
 *   default=ret:40,bad:10,fe:20,be:30
 *   thread:<comm>=ret:10,bad:5,fe:15,be:70,mem:50
 *   region:<name>=ret:80,bad:5,fe:5,be:10,heavy:20
 *   sim=bump:7,switch:50,pmi:0,ecore:0
 *   events=instructions:6,cycles:3
 * Values are percent of all slots. ret+bad+fe+be must add up to 100.
 * Level-2 keys heavy (of ret), br (of bad), fetchlat (of fe), mem (of be)
 * must not exceed their parent; an omitted one is half of its parent.
 * Without a default entry: ret:40,bad:10,fe:20,be:30. sim counts emulated
 * counter reads: bump = a page update lands mid-read (seqlock retry),
 * switch = a context switch (save/restore) lands mid-read, pmi = an
 * overflow PMI resets the counters before a read (slots go backwards),
 * ecore = the thread migrates to an E-core mid-read and stays there until
 * the next snapshot; 0 = never. A TopDown snapshot executes two reads.
 * events gives the rate (per ns of CPU time) of emulated ordinary counters
 * for [counters] events of those names (others count 1 per ns).
 *
 * Ordinary counters are emulated as the x86 kernel drives them: armed at
 * -max_period at every sched-in (prev_count = that 64-bit value, raw in
 * the upper half of 48 bits), page offset = count - prev_count; an update
 * (sched-out, our reset) folds the sign-extended raw delta into count and
 * leaves prev_count = the raw 48-bit value, so until the next sched-in
 * offset + sext(raw) is off by exactly 2^48 — the reason event deltas are
 * taken modulo 2^pmc_width. 
 *
 * Threading: a td_emu belongs to its thread; only td_emu_spec is shared
 * (read-only after parsing). The emulated instruction reads the thread's
 * CPU clock (a syscall): emulation, not the production hot path. */
#ifndef TD_EMU_H
#define TD_EMU_H

#include "td_pmu_read.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct td_backend;
struct td_thread_counters;

#define TD_EMU_FIELDS 8
#define TD_EMU_MAX_PROFILES 32
#define TD_EMU_PMC_WIDTH 48

enum td_emu_kind { TD_EMU_DEFAULT, TD_EMU_THREAD, TD_EMU_REGION };

struct td_emu_profile {
	enum td_emu_kind kind;
	char name[64];                 /* thread comm or region name */
	double frac[TD_EMU_FIELDS];    /* true fraction of all slots, per PERF_METRICS byte */
};

struct td_emu_sim {
	uint32_t bump, sw, pmi, ecore; /* every Nth read, 0 = never */
};

#define TD_EMU_MAX_EVENTS 8

struct td_emu_spec {
	int nr;
	int nr_rates;                  /* "events=" entry: name:rate per ns */
	char rate_name[TD_EMU_MAX_EVENTS][48];
	double rate[TD_EMU_MAX_EVENTS];
	struct td_emu_profile prof[TD_EMU_MAX_PROFILES];
	int def;                       /* index of the default profile */
	bool has_thread;               /* some profile is per thread */
	struct td_emu_sim sim;
};

/* Parses text (NULL or "" = built-in default). 0, or -EINVAL with one line
 * "<what>: <why>" in err. */
int td_emu_spec_parse(struct td_emu_spec *spec, const char *text, char *err, size_t errlen);
/* Profile index for a thread or region name, -1 if none. */
int td_emu_spec_find(const struct td_emu_spec *spec, enum td_emu_kind kind, const char *name);

/* One emulated ordinary counter (GP counter i, page index i + 1). */
struct td_emu_event {
	struct perf_event_mmap_page pg;
	double rate, carry;            /* events per ns; fractional part pending */
	uint64_t raw;                  /* the 48-bit hardware counter */
	uint64_t prev;                 /* hw.prev_count */
	int64_t count;                 /* event->count */
	uint64_t truth;                /* events counted, never reset */
};

struct td_emu {
	/* The two user pages the reader sees. */
	struct perf_event_mmap_page leader_pg;
	struct perf_event_mmap_page metric_pg;
	const struct td_emu_spec *spec;
	uint64_t width;                /* slots per ns of CPU time */
	uint64_t (*clock)(void *arg);  /* thread CPU ns */
	void *clock_arg;
	uint64_t last_ns;              /* clock at the last advance */
	int thread_prof, region_prof;  /* -1 when none */
	/* Last emulated read, and a region switch not yet pinned to a read. */
	uint64_t read_ns, read_slots, read_resets;
	struct {
		bool active;
		const double *from, *to;
		uint64_t call_ns, call_slots, call_resets;
	} pend;
	char comm[16];
	/* Emulated hardware. */
	uint64_t hw_slots;             /* fixed counter 3 since its last zeroing */
	double hw_cat[TD_EMU_FIELDS];  /* true slots per field since that zeroing */
	uint64_t hw_metrics;           /* PERF_METRICS */
	bool scheduled;                /* group on the PMU (index valid) */
	bool ecore;                    /* thread is on an E-core */
	/* Emulated kernel state. */
	uint64_t count;                /* leader event->count (accumulated at updates) */
	uint64_t seen_slots;           /* hw_slots at the last update */
	uint64_t enabled_ns, running_ns;
	/* Ground truth, never reset: what a perfect PMU would report. */
	double truth[TD_EMU_FIELDS];
	uint64_t truth_slots;
	/* Ordinary counters ([counters] events). */
	int nr_events;
	struct td_emu_event ev[TD_EMU_MAX_EVENTS];
	/* Statistics. */
	uint64_t reads, faults, refusals, bumps, switches, pmis, migrations, resets;
};

/* Sets up e for one thread: pages filled, group enabled and scheduled.
 * clock NULL = CLOCK_THREAD_CPUTIME_ID. */
void td_emu_init(struct td_emu *e, const struct td_emu_spec *spec, uint64_t width,
		 uint64_t (*clock)(void *arg), void *clock_arg);

/* Brings the emulated counters up to the clock (done by every emulated
 * read and state change). */
void td_emu_advance(struct td_emu *e);

/* The emulated counter-read instruction (td_pmu_reader.read_counter):
 * unguarded, so on an E-core it "faults" (counted in e->faults, returns
 * garbage) as the real RDPMC would. */
uint64_t td_emu_read_counter(void *ctx, uint32_t idx);
/* Guarded form (td_pmu_reader.read_checked): refuses (-EFAULT) on an
 * E-core instead of faulting; check and instruction are atomic, as the
 * rseq section makes them on hardware. */
int td_emu_read_checked(void *ctx, uint32_t idx, uint64_t *val);
/* The emulated time base (td_pmu_reader.read_time): a 2 GHz "TSC" over
 * the thread's CPU clock as of the last emulated instruction; the pages
 * carry cap_user_time with the matching time_mult/shift/offset. */
uint64_t td_emu_read_time(void *ctx);
/* A reader over e: the emulated instruction, guarded. */
struct td_pmu_reader td_emu_reader(struct td_emu *e);

/* Adds an ordinary counter counting rate per ns of CPU time; returns its
 * user page, or NULL when TD_EMU_MAX_EVENTS are in use. Call after
 * td_emu_init, before reading. */
struct perf_event_mmap_page *td_emu_add_event(struct td_emu *e, double rate);
/* Rate for an event name from the spec (1 if not named there). */
double td_emu_spec_rate(const struct td_emu_spec *spec, const char *name);

/* Between two snapshots: ends an injected E-core stay (sim ecore), then
 * advances. The emulate backend calls it before each snapshot. */
void td_emu_tick(struct td_emu *e);

/* Kernel events. */
void td_emu_reset(struct td_emu *e);           /* PERF_EVENT_IOC_RESET, group */
void td_emu_sched_out(struct td_emu *e);       /* save, index 0 */
void td_emu_sched_in(struct td_emu *e);        /* restore, index valid */
void td_emu_context_switch(struct td_emu *e);  /* out and in again */
void td_emu_pmi(struct td_emu *e);             /* overflow PMI: zero, page untouched */
void td_emu_migrate(struct td_emu *e, bool to_ecore);

/* Current profile by region name (NULL: none open). The switch takes
 * effect at the emulated read nearest to the call (decided at the next
 * read): callers announce a region just before its entry snapshot and
 * just after its exit snapshot. */
void td_emu_region(struct td_emu *e, const char *region_name);

/* For the regions code: tells the emulator of the calling thread which
 * region is innermost now (its name, or NULL when no region is open).
 * Call after every region enter and exit. No-op unless be is the emulate
 * backend, so it can be called unconditionally. */
void td_emu_set_region(const struct td_backend *be, struct td_thread_counters *tc,
		       const char *region_name);

#endif
