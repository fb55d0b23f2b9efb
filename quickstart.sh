#!/bin/sh
# quickstart.sh - set up, build and either start the demo or run the tests.
#
#   ./quickstart.sh demo    install what is missing, build, run `kernodeck demo`
#                           (run again: reopen the walkthrough on that demo)
#   ./quickstart.sh test    install what is missing, build, run `make check`
#
# On Debian 12.  As root, missing packages are installed with apt-get; as
# another user, the exact `sudo apt-get install ...` line is printed and the
# script exits 2.  KD_CONFIGURE_FLAGS is passed to configure (CI sets
# --enable-werror); KD_BUILD_DIR (default ./build) is where it builds.
set -eu

cd "$(dirname "$0")"
what=${1:-}
case "$what" in
demo|test) ;;
*)
	echo "usage: ./quickstart.sh demo|test" >&2
	exit 2
	;;
esac

PACKAGES="build-essential autoconf automake libtool pkg-config git tmux \
libncurses-dev libyaml-dev libgit2-dev libssl-dev libcurl4-openssl-dev \
libjansson-dev libcmocka-dev openssl ca-certificates pci.ids groff-base \
python3 python3-venv python3-torch python3-numpy python3-yaml time \
munge slurmd slurmctld slurm-client"

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		echo "quickstart: installing:$missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $missing
	else
		echo "quickstart: these Debian packages are missing; install them with:" >&2
		echo "  sudo apt-get install$missing" >&2
		exit 2
	fi
fi

if [ ! -x configure ] || [ configure.ac -nt configure ]; then
	autoreconf -fi
fi
build=${KD_BUILD_DIR:-build}
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ ../configure -nt Makefile ] || [ -n "${KD_CONFIGURE_FLAGS:-}" ]; then
	# shellcheck disable=SC2086
	../configure ${KD_CONFIGURE_FLAGS:-}
fi
jobs=$(nproc 2>/dev/null || echo 2)
make -j"$jobs"

case "$what" in
demo)
	dir=${2:-../kernodeck-demo}
	if [ -f "$dir/kernodeck/reference.yaml" ]; then
		# run again: the demo made the first time, where it stopped
		echo "quickstart: $dir holds the demo made earlier: reopening it (kernodeck $dir)"
		exec ./kernodeck "$dir"
	fi
	exec ./kernodeck demo "$dir"
	;;
test)
	exec make check
	;;
esac
