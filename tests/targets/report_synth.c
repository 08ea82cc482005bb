/* td-synth-report: writes a deterministic synthetic "tdprobe/1" report for
 * tests of the report tool (large reports, level 0/1/2, time series)
 * without needing a PMU. Usage:
 *   td-synth-report [-t THREADS] [-r REGIONS] [-l LEVEL] [-p PID] [-s SEED] [-S] [-b BACKEND]
 * -S adds a time series to every thread. Every figure is exact: fractions
 * are slot_counts / sum of the level-1 counts, process regions are the sum
 * of the threads' entries. */
#include "td_json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const nodes[12] = {
	"retiring", "bad_speculation", "frontend_bound", "backend_bound",
	"heavy_operations", "light_operations", "branch_mispredicts", "machine_clears",
	"fetch_latency", "fetch_bandwidth", "memory_bound", "core_bound",
};

static uint64_t rng_state;

static uint64_t rnd(uint64_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (rng_state >> 33) % n;
}

struct m {
	uint64_t cpu, wall, node[12];
};

static void gen(struct m *m, int level, uint64_t scale, int bias)
{
	m->cpu = scale / 2 + rnd(scale);
	m->wall = m->cpu + rnd(scale / 4 + 1);
	if (!level)
		return;
	uint64_t slots = m->cpu * 4;
	uint64_t w[4], ws = 0;
	for (int k = 0; k < 4; k++) {
		w[k] = 10 + rnd(40) + (k == bias ? 120 : 0);
		ws += w[k];
	}
	uint64_t used = 0;
	for (int k = 0; k < 3; k++) {
		m->node[k] = slots * w[k] / ws;
		used += m->node[k];
	}
	m->node[3] = slots - used;
	for (int k = 0; k < 4; k++) {
		uint64_t a = m->node[k] * (20 + rnd(60)) / 100;
		m->node[4 + 2 * k] = a;
		m->node[5 + 2 * k] = m->node[k] - a;
	}
}

static void add(struct m *a, const struct m *b)
{
	a->cpu += b->cpu;
	a->wall += b->wall;
	for (int k = 0; k < 12; k++)
		a->node[k] += b->node[k];
}

static void metrics(struct td_json *j, const struct m *m, int level)
{
	td_json_object_begin(j);
	td_json_kv_uint(j, "cpu_ns", m->cpu);
	td_json_kv_uint(j, "wall_ns", m->wall);
	if (level) {
		uint64_t sum = m->node[0] + m->node[1] + m->node[2] + m->node[3];
		int n = level == 2 ? 12 : 4;
		td_json_kv_uint(j, "slots", sum);
		for (int k = 0; k < n; k++)
			td_json_kv_double(j, nodes[k], sum ? (double)m->node[k] / (double)sum : 0);
		td_json_key(j, "slot_counts");
		td_json_object_begin(j);
		for (int k = 0; k < n; k++)
			td_json_kv_uint(j, nodes[k], m->node[k]);
		td_json_object_end(j);
		td_json_kv_double(j, "error_pp", 0.4);
	}
	td_json_object_end(j);
}

static void region(struct td_json *j, int r, uint64_t calls, const struct m *m, int level)
{
	char fn[64];
	snprintf(fn, sizeof(fn), "work_%03d", r);
	td_json_object_begin(j);
	td_json_kv_string(j, "function", fn);
	td_json_key(j, "callsite");
	td_json_array_begin(j);
	td_json_object_begin(j);
	td_json_kv_string(j, "module", "/usr/bin/synth");
	td_json_kv_string(j, "symbol", r % 3 ? "dispatch" : "main");
	td_json_kv_uint(j, "offset", 0x10 + (uint64_t)r * 4);
	td_json_kv_uint(j, "address", 0x401000 + (uint64_t)r * 4);
	td_json_object_end(j);
	td_json_array_end(j);
	td_json_kv_uint(j, "calls", calls);
	td_json_key(j, "metrics");
	metrics(j, m, level);
	td_json_object_end(j);
}

int main(int argc, char **argv)
{
	int threads = 3, regions = 4, level = 2, series = 0, c;
	long pid = 4242;
	const char *backend = NULL;

	rng_state = 1;
	while ((c = getopt(argc, argv, "t:r:l:p:s:Sb:")) != -1) {
		switch (c) {
		case 't': threads = atoi(optarg); break;
		case 'r': regions = atoi(optarg); break;
		case 'l': level = atoi(optarg); break;
		case 'p': pid = atol(optarg); break;
		case 's': rng_state = strtoull(optarg, NULL, 0); break;
		case 'S': series = 1; break;
		case 'b': backend = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-t N] [-r N] [-l 0|1|2] [-p PID] [-s SEED] [-S] [-b NAME]\n",
				argv[0]);
			return 2;
		}
	}
	if (threads < 1 || regions < 0 || level < 0 || level > 2)
		return 2;
	struct m *reg = calloc((size_t)regions + 1, sizeof(*reg));
	uint64_t *reg_calls = calloc((size_t)regions + 1, sizeof(uint64_t));
	struct td_json j;
	td_json_init(&j, stdout, 1);
	td_json_object_begin(&j);
	td_json_kv_string(&j, "schema", "tdprobe/1");
	td_json_key(&j, "process");
	td_json_object_begin(&j);
	td_json_kv_int(&j, "pid", pid);
	td_json_kv_int(&j, "ppid", 1);
	td_json_key(&j, "command");
	td_json_array_begin(&j);
	td_json_string(&j, "synth");
	td_json_string(&j, "--threads");
	td_json_array_end(&j);
	td_json_kv_string(&j, "start_time", "2026-11-21T00:00:00Z");
	td_json_kv_string(&j, "end_time", "2026-11-21T00:00:02Z");
	td_json_kv_string(&j, "host", "synthhost");
	td_json_kv_string(&j, "kernel", "6.1.0-synth");
	td_json_kv_string(&j, "cpu_model", "Synthetic CPU @ 3.0GHz");
	td_json_kv_int(&j, "ncpus", 8);
	td_json_object_end(&j);
	td_json_key(&j, "config");
	td_json_object_begin(&j);
	td_json_kv_string(&j, "counters.backend", level ? "emulate" : "software");
	td_json_object_end(&j);
	td_json_key(&j, "backend");
	td_json_object_begin(&j);
	td_json_kv_string(&j, "name", backend ? backend : level ? "emulate" : "software");
	td_json_kv_string(&j, "reason", level ? "asked for in the configuration"
					      : "no hardware PMU: running under a hypervisor without vPMU");
	td_json_kv_int(&j, "topdown_level", level);
	if (level)
		td_json_kv_string(&j, "method", "perf-metrics (emulated rdpmc)");
	td_json_kv_bool(&j, "emulated", level != 0 && !backend);
	td_json_object_end(&j);
	td_json_key(&j, "threads");
	td_json_array_begin(&j);
	for (int t = 0; t < threads; t++) {
		struct m tm = { 0 };
		gen(&tm, level, 40000000, t % 4);
		td_json_object_begin(&j);
		td_json_kv_int(&j, "tid", pid + t);
		char name[16];
		snprintf(name, sizeof(name), t ? "worker-%d" : "synth", t);
		td_json_kv_string(&j, "name", name);
		td_json_kv_int(&j, "parent_tid", t ? pid : 0);
		td_json_kv_string(&j, "state", t % 7 == 6 ? "running at exit" : "exited");
		td_json_key(&j, "metrics");
		metrics(&j, &tm, level);
		td_json_key(&j, "regions");
		td_json_array_begin(&j);
		for (int r = 0; r < regions; r++) {
			if ((r + t) % 3 == 2)
				continue; /* not every thread calls every function */
			struct m rm = { 0 };
			gen(&rm, level, 4000000, (r + 1) % 4);
			uint64_t calls = 1 + rnd(1000);
			region(&j, r, calls, &rm, level);
			add(&reg[r], &rm);
			reg_calls[r] += calls;
		}
		td_json_array_end(&j);
		if (series) {
			int np = 40 + t % 20;
			td_json_key(&j, "series");
			td_json_object_begin(&j);
			td_json_kv_uint(&j, "interval_ms", 10);
			td_json_kv_uint(&j, "dropped", 0);
			td_json_key(&j, "columns");
			td_json_array_begin(&j);
			td_json_string(&j, "t_ns");
			td_json_string(&j, "cpu_ns");
			if (level) {
				td_json_string(&j, "slots");
				for (int k = 0; k < 4; k++)
					td_json_string(&j, nodes[k]);
			}
			td_json_array_end(&j);
			td_json_key(&j, "points");
			td_json_array_begin(&j);
			uint64_t tn = 0, cpu = 0, nd[4] = { 0 };
			for (int p = 0; p < np; p++) {
				td_json_array_begin(&j);
				td_json_uint(&j, tn);
				td_json_uint(&j, cpu);
				if (level) {
					td_json_uint(&j, nd[0] + nd[1] + nd[2] + nd[3]);
					for (int k = 0; k < 4; k++)
						td_json_uint(&j, nd[k]);
				}
				td_json_array_end(&j);
				uint64_t dt = 10000000 + rnd(2000000);
				uint64_t dc = dt * (50 + rnd(50)) / 100;
				tn += dt;
				cpu += dc;
				/* phases: the dominant node changes over time */
				int phase = (p * 4 / np + t) % 4;
				for (int k = 0; k < 4; k++)
					nd[k] += dc * (k == phase ? 10 : 1 + rnd(3)) / 4;
			}
			td_json_array_end(&j);
			td_json_object_end(&j);
		}
		td_json_object_end(&j);
	}
	td_json_array_end(&j);
	td_json_key(&j, "regions");
	td_json_array_begin(&j);
	for (int r = 0; r < regions; r++)
		if (reg_calls[r])
			region(&j, r, reg_calls[r], &reg[r], level);
	td_json_array_end(&j);
	td_json_object_end(&j);
	putchar('\n');
	free(reg);
	free(reg_calls);
	return 0;
}
