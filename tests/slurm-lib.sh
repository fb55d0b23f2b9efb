# tests/slurm-lib.sh - a private Slurm for one test (sourced after lib.sh).
#
#   slurm_start N [TASKPROLOG]   munged, slurmctld and N slurmd (n1..nN) on
#                                this host, on free ports, with their own key,
#                                sockets, slurm.conf (SLURM_CONF), spool and
#                                state folders under $KD_TMP/slurm; waits
#                                until every node is idle.  Returns 1 (with a
#                                line on stderr) when Slurm does not come up.
#   SL_SLOW_NODE=NAME            set before slurm_start: that node's slurmd
#                                starts inside a CPU cgroup of its own with a
#                                fifth of a core (v1 cpu.cfs_quota_us or v2
#                                cpu.max) and a quarter of the default weight
#                                (cpu.shares, cpu.weight); its steps stay there (proctrack/
#                                linuxproc and task/none move nothing).
#                                slurm_throttled says whether it worked.
#   slurm_stop_node NAME         stops that node's slurmd (it stays in the
#                                configuration: the controller still counts it)
#   slurm_stop                   stops every daemon started here (also run
#                                at exit); nothing is left running
#   need_slurm NAME              skip test NAME when Slurm is not installed
#
# Nothing here uses the system's munge or Slurm services, their key, their
# sockets or /etc/slurm: a machine where Debian started them is not touched.
SL="$KD_TMP/slurm"
SL_PIDS=""

need_slurm() {
	for _p in munged slurmctld slurmd srun scontrol; do
		if ! command -v "$_p" >/dev/null 2>&1 && ! [ -x "/usr/sbin/$_p" ]; then
			skip "$1" "Slurm is not installed (apt-get install slurmd slurmctld slurm-client munge)"
			exit 0
		fi
	done
}

# A free TCP port on 127.0.0.1 (the kernel's choice; closed at once).
sl_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

sl_sbin() { command -v "$1" 2>/dev/null || echo "/usr/sbin/$1"; }

slurm_stop() {
	for _pid in $SL_PIDS; do
		kill "$_pid" 2>/dev/null
	done
	for _pid in $SL_PIDS; do
		_i=0
		while kill -0 "$_pid" 2>/dev/null && [ "$_i" -lt 50 ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
		kill -9 "$_pid" 2>/dev/null
	done
	# slurmstepd of a step still running when its slurmd went away
	if [ -d "$SL" ]; then
		for _f in $(grep -lzxs "SLURM_CONF=$SL/slurm.conf" /proc/[0-9]*/environ); do
			_p=${_f#/proc/}; _p=${_p%/environ}
			[ "$_p" != "$$" ] && kill -9 "$_p" 2>/dev/null
		done
	fi
	SL_PIDS=""
	if [ -n "${SL_CG:-}" ] && [ -d "$SL_CG" ]; then
		# every process left it above; a cgroup goes when it is empty
		_i=0
		while ! rmdir "$SL_CG" 2>/dev/null && [ "$_i" -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	fi
}

# A CPU cgroup with a fifth of a core (v1: cpu.cfs_quota_us, v2: cpu.max),
# in $SL_CG; the file a pid is written to in $SL_CG_PROCS.  1 when neither
# can be made here.
sl_cgroup() {
	SL_CG=""
	_name="kd-slurm-$$-$1"
	for _root in /sys/fs/cgroup/cpu /sys/fs/cgroup/cpu,cpuacct; do
		if [ -f "$_root/cpu.cfs_quota_us" ] && mkdir "$_root/$_name" 2>/dev/null; then
			SL_CG="$_root/$_name"
			# a quarter of the weight too: on a machine already loaded,
			# where every task gets less than a fifth of a core, the
			# node still gets less than the others
			echo 256 >"$SL_CG/cpu.shares" 2>/dev/null
			if echo 100000 >"$SL_CG/cpu.cfs_period_us" && echo 20000 >"$SL_CG/cpu.cfs_quota_us"; then
				SL_CG_PROCS="$SL_CG/tasks"
				return 0
			fi
			rmdir "$SL_CG"
			SL_CG=""
		fi
	done
	if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
		echo +cpu >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
		if mkdir "/sys/fs/cgroup/$_name" 2>/dev/null; then
			SL_CG="/sys/fs/cgroup/$_name"
			echo 25 >"$SL_CG/cpu.weight" 2>/dev/null
			if echo "20000 100000" >"$SL_CG/cpu.max"; then
				SL_CG_PROCS="$SL_CG/cgroup.procs"
				return 0
			fi
			rmdir "$SL_CG"
			SL_CG=""
		fi
	fi
	return 1
}

# Is the slow node's slurmd in its cgroup, with the quota?
slurm_throttled() {
	[ -n "${SL_CG:-}" ] || return 1
	eval "_pid=\${SL_PID_$SL_SLOW_NODE:-}"
	[ -n "$_pid" ] && grep -qx "$_pid" "$SL_CG_PROCS" 2>/dev/null
}
trap 'slurm_stop; rm -rf "$KD_TMP"' EXIT
trap 'exit 130' INT TERM

slurm_start() {
	_n=$1
	_prolog=${2:-}
	mkdir -p "$SL/state" "$SL/log" "$SL/munge"
	chmod 700 "$SL/munge"
	head -c 1024 /dev/urandom >"$SL/munge/key"
	chmod 400 "$SL/munge/key"
	"$(sl_sbin munged)" --force --socket="$SL/munge/socket" --key-file="$SL/munge/key" \
		--pid-file="$SL/munge/pid" --log-file="$SL/munge/log" \
		--seed-file="$SL/munge/seed" --foreground >/dev/null 2>&1 &
	SL_PIDS="$SL_PIDS $!"
	_cport=$(sl_port)
	_host=$(hostname -s)
	{
		echo "ClusterName=kdtest"
		echo "SlurmctldHost=$_host(127.0.0.1)"
		echo "SlurmctldPort=$_cport"
		echo "AuthType=auth/munge"
		echo "AuthInfo=socket=$SL/munge/socket"
		echo "CredType=cred/munge"
		echo "SlurmUser=root"
		echo "SlurmdUser=root"
		echo "StateSaveLocation=$SL/state"
		echo "SlurmdSpoolDir=$SL/spool-%n"
		echo "SlurmctldPidFile=$SL/slurmctld.pid"
		echo "SlurmdPidFile=$SL/slurmd-%n.pid"
		echo "SlurmctldLogFile=$SL/log/slurmctld.log"
		echo "SlurmdLogFile=$SL/log/slurmd-%n.log"
		echo "ProctrackType=proctrack/linuxproc"
		echo "TaskPlugin=task/none"
		echo "SelectType=select/linear"
		echo "SchedulerType=sched/builtin"
		echo "MpiDefault=none"
		echo "SwitchType=switch/none"
		echo "JobAcctGatherType=jobacct_gather/none"
		echo "AccountingStorageType=accounting_storage/none"
		echo "JobCompType=jobcomp/none"
		echo "SlurmdParameters=config_overrides"
		echo "ReturnToService=2"
		echo "SlurmdTimeout=300"
		echo "MessageTimeout=5"
		echo "KillWait=2"
		echo "InactiveLimit=0"
		echo "MinJobAge=2"
		[ -n "$_prolog" ] && echo "TaskProlog=$_prolog"
		_i=1
		while [ "$_i" -le "$_n" ]; do
			echo "NodeName=n$_i NodeAddr=127.0.0.1 NodeHostname=$_host Port=$(sl_port) CPUs=1 RealMemory=100 State=UNKNOWN"
			_i=$((_i + 1))
		done
		echo "PartitionName=kd Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
	} >"$SL/slurm.conf"
	export SLURM_CONF="$SL/slurm.conf"
	# nothing of an outer job or of the caller's Slurm settings leaks in
	unset SLURM_JOB_ID SLURM_JOBID SLURM_JOB_NODELIST SLURM_NODELIST SLURM_NTASKS SLURM_PROCID
	_i=0
	while ! [ -S "$SL/munge/socket" ] && [ "$_i" -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	"$(sl_sbin slurmctld)" -D -i >"$SL/log/slurmctld.out" 2>&1 &
	SL_PIDS="$SL_PIDS $!"
	_i=1
	while [ "$_i" -le "$_n" ]; do
		if [ "n$_i" = "${SL_SLOW_NODE:-}" ] && sl_cgroup "n$_i"; then
			# the shell enters the cgroup, then becomes slurmd (the same pid)
			SL_CGP=$SL_CG_PROCS sh -c 'echo $$ >"$SL_CGP" && exec "$@"' sh \
				"$(sl_sbin slurmd)" -D -N "n$_i" >"$SL/log/slurmd-n$_i.out" 2>&1 &
		else
			"$(sl_sbin slurmd)" -D -N "n$_i" >"$SL/log/slurmd-n$_i.out" 2>&1 &
		fi
		eval "SL_PID_n$_i=$!"
		SL_PIDS="$SL_PIDS $!"
		_i=$((_i + 1))
	done
	# every node idle within 30 s
	_i=0
	while [ "$_i" -lt 300 ]; do
		_idle=$(sinfo -h -N -o '%N %t' 2>/dev/null | grep -c ' idle$')
		[ "$_idle" -eq "$_n" ] && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	echo "slurm-lib: Slurm did not come up: $(sinfo -h -N -o '%N %t' 2>&1 | tr '\n' ' ')" >&2
	tail -n 5 "$SL/log/slurmctld.log" "$SL"/log/slurmd-*.log >&2 2>/dev/null
	return 1
}

slurm_stop_node() {
	eval "_pid=\${SL_PID_$1:-}"
	[ -n "$_pid" ] || return 1
	kill "$_pid" 2>/dev/null
	_i=0
	while kill -0 "$_pid" 2>/dev/null && [ "$_i" -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	kill -9 "$_pid" 2>/dev/null
	return 0
}

# fleet_project DIR: a project the fleet tests check on every node: a
# reference for this host's Python (Debian's, with its torch, cpu backend),
# a rebuild file naming torch, the CPU-only fixture system root; and q FILE
# EXPR (a Python expression on a JSON report t) and is FILE EXPR WANT NAME.
fleet_project() {
	PYVER=$(/usr/bin/python3 -c 'import platform; print(platform.python_version())')
	mkdir -p "$1/kernodeck"
	cat >"$1/kernodeck/reference.yaml" <<EOF_FP
schema: 1
python:
  version: "$PYVER"
  interpreter: /usr/bin/python3
  install:
    system_site_packages: true
    without_pip: true
system:
  os: Debian GNU/Linux 12 (bookworm)
  arch: $(uname -m)
  gpu_vendor: none
  gpu_count: 0
  backend: cpu
EOF_FP
	printf 'torch\n' >"$1/requirements-rebuild.txt"
	export KD_SYSROOT="$KD_SRCDIR/tests/fixtures/sysroot/cpu-only"
}
q() { /usr/bin/python3 -c "import json,sys; t = json.load(open(sys.argv[1])); print($2)" "$1" 2>&1; }
is() { got=$(q "$1" "$2"); if [ "$got" = "$3" ]; then ok "$4"; else notok "$4 (got: $got; wanted: $3)"; fi; }
