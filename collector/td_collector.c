#include "td_collector.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Only adding a name takes this lock; lookups of existing names do not. */
static pthread_mutex_t td_region_names_lock = PTHREAD_MUTEX_INITIALIZER;

static int td_collector_find_region(struct td_collector *c, const char *name, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(c->region_names[i], name) == 0)
			return i;
	return -1;
}

int td_collector_region_id(struct td_collector *c, const char *name)
{
	int n = atomic_load_explicit(&c->nr_regions, memory_order_acquire);
	int id = td_collector_find_region(c, name, n);
	if (id >= 0)
		return id;
	pthread_mutex_lock(&td_region_names_lock);
	n = atomic_load(&c->nr_regions);
	id = td_collector_find_region(c, name, n);
	if (id < 0 && n < TD_MAX_REGIONS) {
		char *copy = strdup(name);
		if (copy) {
			c->region_names[n] = copy;
			atomic_store_explicit(&c->nr_regions, n + 1, memory_order_release);
			id = n;
		}
	}
	pthread_mutex_unlock(&td_region_names_lock);
	return id;
}
