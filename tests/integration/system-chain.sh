# tests/integration/system-chain.sh - stage 2 end to end: `kernodeck check
# --stage system` on fixture machines (KD_SYSROOT trees and fixture programs
# first on PATH), with and without a reference, and on this real machine.
. "$KD_SRCDIR/tests/lib.sh"

FX="$KD_SRCDIR/tests/fixtures"
PY=/usr/bin/python3
export KD_PCI_IDS="$FX/pci.ids"
[ -x "$PY" ] || { skip system-chain "no $PY to read the JSON reports"; exit 0; }
PYVER=$("$PY" -c 'import platform; print(platform.python_version())')
ARCH=$(uname -m)

# sysrun NAME TREE BIN: check the project $KD_TMP/NAME on fixture machine
# TREE with fixture programs BIN (or none) first on PATH.
sysrun() {
	d="$KD_TMP/$1"
	mkdir -p "$d/kernodeck"
	p=/usr/bin:/bin
	[ -n "$3" ] && p="$FX/$3:$p"
	KD_SYSROOT="$FX/sysroot/$2" PATH="$p" "$KD_BIN" check "$d" --stage system \
		--format json >"$d/out.json" 2>"$d/err.txt"
	echo $? >"$d/rc"
}
# ref NAME YAML / reqs NAME TEXT: the reference and the rebuild file.
ref() { mkdir -p "$KD_TMP/$1/kernodeck"; printf '%s\n' "$2" >"$KD_TMP/$1/kernodeck/reference.yaml"; }
reqs() { mkdir -p "$KD_TMP/$1"; printf '%s\n' "$2" >"$KD_TMP/$1/requirements-rebuild.txt"; }
# q NAME EXPR: evaluate a Python expression on the report: r(id) is a row,
# o the observations, s the stage.
q() {
	"$PY" - "$KD_TMP/$1/out.json" "$2" <<'EOF'
import json, sys
try:
    t = json.load(open(sys.argv[1]))
    s = t["stages"][0]
    o = s.get("observations", {})
    def r(i):
        return next(x for x in s["rows"] if x["id"] == i)
    print(eval(sys.argv[2]))
except Exception as e:
    print("error: %s: %s" % (type(e).__name__, e))
EOF
}
# is NAME EXPR WANT TEST: ok when q prints WANT.
is() {
	got=$(q "$1" "$2" 2>&1)
	if [ "$got" = "$3" ]; then ok "$4"; else notok "$4 (got: $got; wanted: $3)"; fi
}
has() {
	got=$(q "$1" "$2" 2>&1)
	case "$got" in *"$3"*) ok "$4" ;; *) notok "$4 (got: $got; wanted it to hold: $3)" ;; esac
}
rc() { cat "$KD_TMP/$1/rc"; }

CPU_REF="schema: 1
python:
  version: \"$PYVER\"
  interpreter: /usr/bin/python3
system:
  os: Debian GNU/Linux 12 (bookworm)
  arch: $ARCH
  gpu_vendor: none
  gpu_model: null
  gpu_count: 0
  driver: null
  cuda: null
  rocm: null
  backend: cpu
not_applicable:
  system.driver: CPU-only project
  system.cuda: CPU-only project
  system.rocm: CPU-only project"

# --- a CPU-only machine and a CPU-only reference: everything passes
ref cpu "$CPU_REF"
reqs cpu "--index-url https://download.pytorch.org/whl/cpu
torch==2.1.0"
sysrun cpu cpu-only ""
is cpu 's["status"]' passed "cpu-only machine, CPU reference: the stage passes"
[ "$(rc cpu)" = 0 ] && ok "cpu-only: exit 0" || notok "cpu-only: exit $(rc cpu)"
is cpu 'o["gpus"]' '[]' "a QEMU VGA (vendor 1234) is not a GPU"
is cpu 'o["container"]["kind"]' host "no container marker: host"
is cpu 'r("system.variant")["status"]' pass "cpu wheel on a CPU machine fits"
is cpu 'o["plan"]["tag"]' cpu "the plan's variant comes from the index URL"
is cpu 'r("system.driver")["expected"]' "not applicable: CPU-only project" "not applicable rows say why"
[ -f "$KD_TMP/cpu/kernodeck/system.yaml" ] && ok "observations saved as system.yaml" || notok "no system.yaml"

# --- a reference that leaves out what its other items settle (as capture
# writes it: no gpu_model or driver without a GPU, no cuda or rocm on cpu)
ref implied "schema: 1
python: {version: \"$PYVER\", interpreter: /usr/bin/python3}
system: {os: Debian GNU/Linux 12 (bookworm), arch: $ARCH, gpu_vendor: none, gpu_count: 0, backend: cpu}"
sysrun implied cpu-only ""
is implied 's["status"]' passed "items implied by gpu_vendor none and backend cpu pass"
is implied 'r("system.gpu_model")["expected"]' "none, the reference has no GPU" "the implied expectation says why"
ref implied2 "schema: 1
system: {gpu_vendor: none, backend: cpu}"
reqs implied2 "torch==2.1.0+cu121"
sysrun implied2 nvidia-prop bin-nvidia-ok
is implied2 'r("system.cuda")["status"]' fail "implied no CUDA, a CUDA plan: fail"
is implied2 'r("system.driver")["status"]' pass "implied no driver: a driver here is no failure"

# --- no reference at all: every observation recorded, rows without an expected value fail
mkdir -p "$KD_TMP/noref"
sysrun noref cpu-only ""
[ "$(rc noref)" = 1 ] && ok "no reference: exit 1" || notok "no reference: exit $(rc noref)"
is noref 'r("system.os")["status"]' fail "no reference: the OS row fails"
has noref 'r("system.os")["hint"]' "system.os in reference.yaml" "the hint names the field to fill"
is noref 'o["os"]["pretty"]' "Debian GNU/Linux 12 (bookworm)" "no reference: the OS is still recorded"
is noref 'r("system.interpreter")["status"]' pass "no reference: the interpreter row passes"

# --- NVIDIA, proprietary module, nvidia-smi answers; the reference had an older driver
NV_REF="schema: 1
python: {version: \"$PYVER\"}
system:
  os: Ubuntu 22.04.3 LTS
  arch: $ARCH
  gpu_vendor: nvidia
  gpu_model: Quadro RTX 4000
  gpu_count: 2
  driver: 535.104.05
  cuda: \"12.1\"
  rocm: null
  backend: cuda"
ref nvok "$NV_REF"
reqs nvok "--extra-index-url https://download.pytorch.org/whl/cu121
torch==2.1.0+cu121"
sysrun nvok nvidia-prop bin-nvidia-ok
is nvok 's["status"]' passed "NVIDIA host matching its reference passes"
is nvok 'r("system.driver")["status"]' warn "a newer driver than the reference's is a warning"
is nvok 'r("system.gpu_model")["status"]' pass "GPU model matched"
is nvok '[g["uuid"] for g in o["gpus"]]' "['GPU-c7b57be0-94ff-d352-a59b-d0ee00aeed43', 'GPU-d6de6afc-bdfe-75c4-5273-0544439153fc']" "nvidia-smi GPUs joined to PCI GPUs by bus id"
is nvok 'o["cuda"]["driver_max"]' 12.2 "the driver's CUDA version from the nvidia-smi table"
is nvok 'o["gpus"][0]["compute_cap"]' 7.5 "compute capability from the query"
is nvok 'o["driver"]["flavor"]' proprietary "proprietary kernel module recognised"
is nvok 'r("system.cuda")["status"]' pass "planned CUDA 12.1 = the reference's"

# --- the same machine, a CPU reference: mismatches fail
ref nvcpu "$CPU_REF"
reqs nvcpu "torch==2.1.0+cpu"
sysrun nvcpu nvidia-prop bin-nvidia-ok
is nvcpu 'r("system.gpu_vendor")["status"]' fail "GPU vendor differs: fail"
is nvcpu 'r("system.variant")["status"]' warn "a CPU wheel on a GPU machine is flagged"
[ "$(rc nvcpu)" = 1 ] && ok "mismatch: exit 1" || notok "mismatch: exit $(rc nvcpu)"

# --- an old driver: compute_cap unknown, the plan cu121 does not fit
ref nv470 "$NV_REF"
reqs nv470 "torch==2.1.0+cu121"
sysrun nv470 nvidia-470 bin-nvidia-oldfield
is nv470 'r("system.variant")["status"]' fail "cu121 on driver 470: the variant fails"
has nv470 'r("system.variant")["first_error"]' "driver 470.63.01 supports CUDA 11.x (11.4 natively, later 11.x through minor-version compatibility); the plan is cu121, which needs 525.60.13 or later; use cu118" "the variant failure says which rule and what fits"
is nv470 'r("system.driver")["status"]' fail "an older driver than the reference's fails"
has nv470 'o["nvidia"]["smi"]["retried"]' "compute_cap" "an invalid field: the query is retried without it"
is nv470 'o["gpus"][0]["name"]' "NVIDIA GeForce RTX 3080 Laptop GPU" "the name comes from the retried query"
is nv470 'o["cuda"]["driver_max"]' 11.4 "CUDA version from the 470 table"

# --- open kernel module, no nvidia-smi: named through pci.ids, matched after normalising
ref nvopen "schema: 1
system: {gpu_vendor: nvidia, gpu_model: NVIDIA GeForce RTX 4090, gpu_count: 1}"
sysrun nvopen nvidia-open ""
is nvopen 'o["driver"]["flavor"]' open "open kernel module recognised"
is nvopen 'o["driver"]["version"]' 565.57.01 "open module driver version"
is nvopen 'o["nvidia"]["smi"]["status"]' missing "nvidia-smi missing is recorded, not fatal"
is nvopen 'r("system.gpu_model")["status"]' pass "pci.ids name matches the nvidia-smi-style name"

# --- driver/library mismatch and a driver that is not loaded
sysrun nvmm nvidia-mismatch bin-nvidia-mismatch
is nvmm 'o["nvidia"]["smi"]["failure"]' mismatch "Driver/library version mismatch recognised"
is nvmm 'o["nvidia"]["library_version"]' 580.178 "NVML library version kept"
is nvmm 'o["driver"]["version"]' 580.173.02 "the driver version comes from the kernel module"
is nvmm 'o["backend"]' cpu "a mismatched driver gives no CUDA backend"
sysrun nvnone nvidia-nodriver bin-nvidia-nodriver
is nvnone 'o["nvidia"]["smi"]["failure"]' no-driver "couldn't communicate with the driver recognised"
has nvnone 'o["backend_reason"]' "no NVIDIA driver is loaded" "GPU without driver: the reason is given"

# --- a container without driver mounts
ref ctr "$NV_REF"
reqs ctr "torch==2.1.0+cu121"
sysrun ctr container-no-driver ""
is ctr 'o["container"]["kind"]' docker "/.dockerenv: a docker container"
has ctr 'o["backend_reason"]' "no /dev/nvidia* nodes" "no device nodes in the container: said so"
is ctr 'r("system.variant")["status"]' fail "a CUDA plan without device nodes fails"
has ctr 'r("system.devices")["hint"]' "--gpus all" "the devices row says how to start the container"
is ctr 'r("system.gpu_model")["status"]' fail "H100 is not the reference's Quadro"

# --- AMD with ROCm
ref amd "schema: 1
python: {version: \"$PYVER\"}
system: {os: Ubuntu 22.04.3 LTS, arch: $ARCH, gpu_vendor: amd, gpu_model: AMD Instinct MI210, gpu_count: 1, driver: 6.8.5, cuda: null, rocm: \"6.2\", backend: rocm}"
reqs amd "--index-url https://download.pytorch.org/whl/rocm6.2
torch==2.5.1"
sysrun amd amd-rocm bin-amd
is amd 's["status"]' passed "AMD ROCm host matching its reference passes"
is amd 'o["rocm"]["gfx_targets"]' "['gfx90a']" "gfx target from rocm_agent_enumerator (gfx000 left out)"
is amd 'o["amd"]["hip_version"]' 6.2.41133 "hipconfig version"
is amd 'o["rocm"]["version"]' 6.2.0 "ROCm version from /opt/rocm/.info/version"
is amd 'o["gpus"][0]["memory_mib"]' 65520 "VRAM from sysfs"
is amd 'len(o["gpus"])' 1 "an ASPEED BMC VGA is no GPU"
ref amdcu "$NV_REF"
reqs amdcu "torch==2.1.0+cu121"
sysrun amdcu amd-rocm bin-amd
is amdcu 'r("system.variant")["status"]' fail "a CUDA plan on an AMD machine fails"

# --- a nvidia-smi that hangs is timed out, never fatal
d0=$(date +%s)
KD_SYS_TIMEOUT=1 sysrun hang nvidia-prop bin-nvidia-hang
d1=$(date +%s)
is hang 'o["nvidia"]["smi"]["status"]' timeout "a hanging nvidia-smi times out"
[ $((d1 - d0)) -lt 15 ] && ok "the timeout bounds the stage ($((d1 - d0)) s)" || notok "took $((d1 - d0)) s"
is hang 'o["driver"]["version"]' 535.129.03 "the driver is still read from the module"

# --- the interpreter: --python, and a bad one
mkdir -p "$KD_TMP/pyo/kernodeck"
KD_SYSROOT="$FX/sysroot/cpu-only" PATH=/usr/bin:/bin "$KD_BIN" check "$KD_TMP/pyo" --stage system \
	--python /usr/bin/python3 --format json >"$KD_TMP/pyo/out.json" 2>/dev/null
is pyo 'o["python"]["chosen"]["reason"]' "given with --python" "--python overrides the choice"
grep -q 'python: /usr/bin/python3' "$KD_TMP/pyo/kernodeck/state.yaml" && ok "the choice is stored in the state" || notok "no system.python in state.yaml"
expect_exit 2 "--python naming nothing: exit 2" "$KD_BIN" check "$KD_TMP/pyo" --stage system --python /nonexistent/python9 >/dev/null 2>&1

# --- environment variables: allow-list, credentials redacted
PIP_INDEX_URL="https://alice:s3cr3tpass@pypi.example.org/simple" HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz123456 \
	CUDA_VISIBLE_DEVICES=1 sysrun env cpu-only ""
is env 'o["env"]["CUDA_VISIBLE_DEVICES"]' 1 "CUDA_VISIBLE_DEVICES recorded"
is env '"s3cr3tpass" in json.dumps(o["env"])' False "the password in PIP_INDEX_URL is redacted"
is env '"HF_TOKEN" in o["env"]' False "secret-named variables are not recorded"
if grep -q s3cr3tpass "$KD_TMP/env/kernodeck/system.yaml"; then notok "system.yaml holds the password"; else ok "system.yaml holds no password"; fi

# --- device nodes this user cannot open (run as nobody)
if command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && nobody_bin; then
	chmod 755 "$KD_TMP"
	cp -r "$FX/sysroot/amd-rocm" "$KD_TMP/amdroot"
	chgrp 105 "$KD_TMP/amdroot/dev/kfd"; chmod 0660 "$KD_TMP/amdroot/dev/kfd"
	mkdir -p "$KD_TMP/perm/kernodeck"; chmod -R 777 "$KD_TMP/perm"
	reqs perm "torch==2.5.1+rocm6.2"
	chmod 666 "$KD_TMP/perm/requirements-rebuild.txt"
	KD_SYSROOT="$KD_TMP/amdroot" PATH="$FX/bin-amd:/usr/bin:/bin" HOME="$KD_TMP/perm" \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$KD_BIN" check "$KD_TMP/perm" --stage system --format json >"$KD_TMP/perm/out.json" 2>"$KD_TMP/perm/err.txt"
	is perm 'r("system.devices")["status"]' fail "a /dev/kfd this user cannot open fails the devices row"
	has perm 'r("system.devices")["hint"]' "not in group 'render'" "the hint names the group"
else
	skip "device permissions" "needs root and setpriv"
fi

# --- this real machine: a sensible report, fast
mkdir -p "$KD_TMP/real/kernodeck"
t0=$(date +%s%N)
"$KD_BIN" check "$KD_TMP/real" --stage system --format json >"$KD_TMP/real/out.json" 2>/dev/null
t1=$(date +%s%N)
has real 'o["os"]["pretty"]' "" "the real machine's OS is read"
is real 'o["arch"]' "$ARCH" "the real machine's architecture"
is real 'r("system.interpreter")["observed"].split()[0]' /usr/bin/python3 "the real machine's interpreter is /usr/bin/python3 without a reference"
ms=$(( (t1 - t0) / 1000000 ))
[ "$ms" -lt 5000 ] && ok "the real machine is observed in $ms ms" || notok "observing took $ms ms"
