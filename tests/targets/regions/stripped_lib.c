/* Built into a shared library that is stripped after linking: the hidden
 * function has no symbol anywhere, the exported one keeps its dynamic
 * symbol. test_symbolize checks both. */
__attribute__((noinline, visibility("hidden"))) int regions_stripped_hidden(int x)
{
	return x * 3 + 1;
}

void *regions_stripped_get_hidden(void)
{
	return (void *)regions_stripped_hidden;
}
