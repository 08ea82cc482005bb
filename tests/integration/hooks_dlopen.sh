#!/usr/bin/env bash
# A library loaded after startup: dlopen by path (patched before dlopen
# returns) and by bare name through LD_LIBRARY_PATH (patched at the next
# dlsym); dlsym of a hooked name returns the trampoline. dl_entry 300 calls,
# dl_leaf 600 from dl_entry through the library's own PLT + 100 through the
# dlsym pointer. dlerror() answers as without tdprobe.
source "$(dirname "$0")/lib.bash"
source "$HERE/hooks_lib.bash"
PROG=$TARGETS/hooks_dlopen
[ -x "$PROG" ] || { echo "missing $PROG"; exit 1; }
LIBDL=$(cd "$TARGETS" && pwd)/libtddl.so
PROFILE_ENV="TDPROBE_REGIONS=dl_entry,dl_leaf TDPROBE_SUMMARY=no" same_run dlpath "$PROG" "$LIBDL"
R=$(report_of dlpath)
echo "  output: $(tr '\n' ' ' <"$WORK/dlpath.out1")"
expect_calls "$R" hooks_dlopen dl_entry 300
expect_calls "$R" hooks_dlopen dl_leaf 700
PROFILE_ENV="LD_LIBRARY_PATH=$TARGETS TDPROBE_REGIONS=dl_entry,dl_leaf TDPROBE_SUMMARY=no" \
  same_run dlname env LD_LIBRARY_PATH="$TARGETS" "$PROG" libtddl.so
R=$(report_of dlname)
expect_calls "$R" hooks_dlopen dl_entry 300
expect_calls "$R" hooks_dlopen dl_leaf 700
# The names exist in no object at startup: exactly one warning each, at install.
for f in dl_entry dl_leaf; do
  n=$(grep -c "^tdprobe: region '$f': no such symbol in any loaded object$" "$WORK/dlpath.err1")
  [ "$n" = 1 ] && ok "one install-time warning for $f" || fail "$n warnings for $f"
done
finish
