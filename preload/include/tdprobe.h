/* tdprobe.h — region markers for code you can rebuild.
 *
 *   #include <tdprobe.h>
 *   tdprobe_region_begin("parse");
 *   ...
 *   tdprobe_region_end("parse");
 *
 * Under LD_PRELOAD=libtdprobe.so each begin/end pair becomes a region of
 * the report, exactly like a function hooked with [regions] functions: per
 * thread and call site (the return address of the begin call), with calls,
 * inclusive and exclusive TopDown figures. Regions nest; a name already
 * open on the thread counts its call but its slots once (recursion).
 *
 * Without the preload the program runs unchanged: the two functions are
 * declared weak, so when nothing defines them they resolve to NULL and the
 * macros below skip the call (one predictable branch; the header needs no
 * library at link time). This relies on the reference going through the
 * GOT, which is the case for position-independent code: PIE executables
 * (the default of Debian, Ubuntu, Fedora toolchains) and shared libraries.
 * A non-PIE executable (-no-pie) resolves an undefined weak symbol to 0 at
 * link time, so its markers stay silent even under the preload: build it
 * with -fPIE -pie, or put the markers in a shared library.
 *
 * Rules: pass the same string to begin and end (compared by content). An
 * end whose name is not the innermost open region closes the regions left
 * open above that name's innermost activation; an end of a name that is not
 * open is ignored and counted (regions_unmatched_exits in the report).
 * Regions still open when a thread ends are closed then. Thread-safe;
 * names are copied on first use. Define TDPROBE_DISABLE to compile the
 * markers out entirely. C and C++. */
#ifndef TDPROBE_H
#define TDPROBE_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(TDPROBE_DEFINE_API)

/* libtdprobe.so itself: strong definitions, no macros. */
void tdprobe_region_begin(const char *name);
void tdprobe_region_end(const char *name);

#elif (defined(__GNUC__) || defined(__clang__)) && !defined(TDPROBE_DISABLE)

/* The parentheses in the macros' bodies keep them from expanding again. */
void tdprobe_region_begin(const char *name) __attribute__((weak));
void tdprobe_region_end(const char *name) __attribute__((weak));

#define tdprobe_region_begin(name) \
	(tdprobe_region_begin ? (tdprobe_region_begin)(name) : (void)0)
#define tdprobe_region_end(name) (tdprobe_region_end ? (tdprobe_region_end)(name) : (void)0)

#else

#define tdprobe_region_begin(name) ((void)(name))
#define tdprobe_region_end(name) ((void)(name))

#endif

#ifdef __cplusplus
}

/* RAII: { tdprobe::region r("parse"); ... } ends the region on every exit
 * path of the scope, exceptions included. */
namespace tdprobe {
class region {
    public:
	explicit region(const char *name) : name_(name) { tdprobe_region_begin(name_); }
	~region() { tdprobe_region_end(name_); }
	region(const region &) = delete;
	region &operator=(const region &) = delete;

    private:
	const char *name_;
};
} // namespace tdprobe
#endif

#endif
