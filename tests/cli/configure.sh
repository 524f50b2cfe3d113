#!/bin/sh
# cli_configure.sh — configure stops on every missing dependency and names the Debian
# package that provides it.
#
# Each library is hidden in turn from a fresh configure run (pkg-config through a wrapper
# that fails for that module; protoc-c through a PATH without it; libbfd and bfd.h
# through configure's cache variables).  The package expected in the message comes from
# dpkg: the package owning the module's .pc file, protoc-c or bfd.h on this machine.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

if [ ! -x "$SP_SRCDIR/configure" ] || ! command -v dpkg >/dev/null 2>&1; then
	echo "1..0 # SKIP no configure script or no dpkg"
	exit 0
fi
if [ -f "$SP_SRCDIR/config.status" ]; then
	echo "1..0 # SKIP the source tree is configured in place"
	exit 0
fi

# owner FILE: the Debian package that installed FILE, without its architecture.
owner()
{
	dpkg -S "$1" 2>/dev/null | awk -F': ' 'NR == 1 { sub(/:.*/, "", $1); print $1 }'
}

pc=$(command -v pkg-config)
cat >"$tmp/pkg-config" <<EOF
#!/bin/sh
for a in "\$@"; do for w in \$a; do [ "\$w" = "\$SP_HIDE" ] && exit 1; done; done
exec "$pc" "\$@"
EOF
chmod +x "$tmp/pkg-config"

# configure_says WHAT PACKAGE [VAR=VALUE...]: configure, run with the assignments in its
# environment, fails and its last line names PACKAGE.
configure_says()
{
	cs_what=$1
	cs_pkg=$2
	shift 2
	rm -rf "$tmp/b"
	mkdir "$tmp/b"
	(cd "$tmp/b" && env PKG_CONFIG="$tmp/pkg-config" "$@" "$SP_SRCDIR/configure") \
		>"$tmp/out" 2>"$tmp/err"
	cs_rc=$?
	cs_last=$(tail -n 1 "$tmp/err")
	[ "$cs_rc" -ne 0 ] && [ -n "$cs_pkg" ] &&
		printf '%s\n' "$cs_last" | grep -q "^configure: error: .*Debian package $cs_pkg\\b"
	sp_ok $? "$cs_what missing: configure stops and names $cs_pkg" ||
		sp_diag "exit status $cs_rc, last line: $cs_last"
}

for m in libelf libdw libprotobuf-c zlib libgvc libcgraph libdebuginfod; do
	configure_says "$m" "$(owner "$("$pc" --variable=pcfiledir "$m")/$m.pc")" SP_HIDE="$m"
done

# protoc-c: every other program of its directory, through links.
protoc=$(command -v protoc-c)
mkdir "$tmp/bin"
for f in "$(dirname "$protoc")"/*; do
	[ "$f" = "$protoc" ] || ln -s "$f" "$tmp/bin/$(basename "$f")"
done
configure_says protoc-c "$(owner "$protoc")" PATH="$tmp/bin"

configure_says bfd.h "$(owner /usr/include/bfd.h)" ac_cv_header_bfd_h=no
configure_says libbfd "$(owner "$(realpath -s "$(${CC:-gcc} -print-file-name=libbfd.so)")")" ac_cv_lib_bfd_bfd_demangle=no

sp_done
