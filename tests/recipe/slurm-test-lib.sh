# shellcheck shell=bash
# slurm-test-lib.sh: starts and stops a private one-node Slurm cluster for
# tests, entirely inside one temporary directory. Source it from bash.
#
#   . tests/recipe/slurm-test-lib.sh
#   if ! slurm_start; then echo "SKIP: $(slurm_skip_reason)"; exit 77; fi
#   ... sbatch/squeue/slurm.pl see the cluster through the exported SLURM_CONF ...
#   slurm_stop            # also runs from the EXIT trap slurm_start installs
#
# Invariants:
#   - Everything it writes (munge key, sockets, pid files, logs, Slurm state
#     and spool) lives under $SLURM_TEST_DIR, a fresh mktemp directory that
#     slurm_stop removes (unless SLURM_TEST_KEEP=1).
#   - It never touches the system's munge or Slurm daemons or /etc: the
#     daemons get their own socket, ports and config (SLURM_CONF).
#   - slurm_stop kills exactly the daemons slurm_start started (by their
#     recorded pids) and is safe to call twice.
#   - When slurm_start fails it returns 1 and slurm_skip_reason prints one
#     line saying why (a missing program, or which daemon failed with the
#     last lines of its log).
#   - Every wait is bounded (SLURM_TEST_WAIT seconds, default 30).

SLURM_TEST_DIR=
__slurm_reason=
__slurm_pids=()

slurm_skip_reason() { echo "${__slurm_reason:-unknown reason}"; }

# Records why starting failed: $1 is the message, $2 an optional log file
# whose last lines are appended (joined on one line).
__slurm_fail() {
  __slurm_reason=$1
  if [[ -n ${2:-} && -f $2 ]]; then
    __slurm_reason+=": $(tail -n 3 "$2" | tr '\n' ' ' | tr -s ' ' | sed 's/ $//')"
  fi
  return 1
}

# True if TCP port $1 is not listening on this machine.
__slurm_port_free() {
  local hex
  hex=$(printf ':%04X ' "$1")
  ! grep -q "$hex" /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# Picks two free consecutive ports in 20000..59999, starting at a place
# derived from the shell's pid.
__slurm_pick_ports() {
  local base=$((20000 + ($$ * 7) % 40000)) i p
  for ((i = 0; i < 200; i++)); do
    p=$((20000 + (base - 20000 + 2 * i) % 39998))
    if __slurm_port_free "$p" && __slurm_port_free $((p + 1)); then
      echo "$p"
      return 0
    fi
  done
  return 1
}

# Waits up to $1 seconds for command "${@:3}" to succeed; gives up early
# (status 2) once process $2 (if not empty) has died.
__slurm_wait_for() {
  local limit=$1 pid=$2 t
  shift 2
  for ((t = 0; t < limit * 4; t++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then return 2; fi
    sleep 0.25
  done
  return 1
}

__slurm_pid_alive() { [[ -n $1 ]] && kill -0 "$1" 2>/dev/null; }

__slurm_node_idle() {
  local state
  state=$(sinfo -h -n "$__slurm_node" -o %t 2>/dev/null) || return 1
  [[ $state == idle ]]
}

slurm_start() {
  local wait=${SLURM_TEST_WAIT:-30} prog
  for prog in munged slurmctld slurmd sbatch squeue sinfo scontrol; do
    if ! command -v "$prog" >/dev/null 2>&1 &&
       [[ ! -x /usr/sbin/$prog ]]; then
      __slurm_fail "$prog not found (install munge and slurm-wlm)"
      return 1
    fi
  done
  PATH=$PATH:/usr/sbin
  local d
  d=$(mktemp -d "${TMPDIR:-/tmp}/slurm-test.XXXXXX") ||
    { __slurm_fail "mktemp failed"; return 1; }
  SLURM_TEST_DIR=$d
  trap slurm_stop EXIT
  mkdir -p "$d/munge" "$d/state" "$d/spool" "$d/log" "$d/run"
  chmod 700 "$d/munge"

  # munge: its own key and socket.
  if ! dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 2>/dev/null ||
     ! chmod 400 "$d/munge/munge.key"; then
    __slurm_fail "cannot write a munge key"
    return 1
  fi
  local sock=$d/munge/munge.sock
  if ! munged --socket="$sock" --key-file="$d/munge/munge.key" \
      --pid-file="$d/munge/munged.pid" --log-file="$d/log/munged.log" \
      --seed-file="$d/munge/munged.seed" --force >"$d/log/munged.out" 2>&1; then
    __slurm_fail "munged did not start" "$d/log/munged.out"
    return 1
  fi
  __slurm_wait_for 10 "" test -s "$d/munge/munged.pid"
  __slurm_pids+=("$(cat "$d/munge/munged.pid" 2>/dev/null)")
  if ! __slurm_wait_for 10 "" test -S "$sock"; then
    __slurm_fail "munged socket did not appear" "$d/log/munged.log"
    return 1
  fi

  # slurm.conf for one node that is also the controller.
  local port
  port=$(__slurm_pick_ports) || { __slurm_fail "no free TCP ports"; return 1; }
  __slurm_node=$(hostname -s)
  local cpus mem user
  cpus=$(nproc)
  # RealMemory in MB; 90% of MemTotal so that slurmd never finds less memory
  # than configured (which would drain the node).
  mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
  user=$(id -un)
  {
    echo "ClusterName=test$$"
    echo "SlurmctldHost=$__slurm_node"
    echo "SlurmctldPort=$port"
    echo "SlurmdPort=$((port + 1))"
    echo "SlurmUser=$user"
    if [[ $(id -u) == 0 ]]; then echo "SlurmdUser=root"; fi
    echo "AuthType=auth/munge"
    echo "AuthInfo=socket=$sock"
    echo "CredType=cred/munge"
    echo "StateSaveLocation=$d/state"
    echo "SlurmdSpoolDir=$d/spool"
    echo "SlurmctldPidFile=$d/run/slurmctld.pid"
    echo "SlurmdPidFile=$d/run/slurmd.pid"
    echo "SlurmctldLogFile=$d/log/slurmctld.log"
    echo "SlurmdLogFile=$d/log/slurmd.log"
    echo "SlurmctldDebug=info"
    echo "SlurmdDebug=info"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_Core"
    echo "SlurmdParameters=config_overrides"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "JobCompType=jobcomp/none"
    echo "MpiDefault=none"
    echo "ReturnToService=2"
    echo "SchedulerType=sched/backfill"
    echo "SchedulerParameters=batch_sched_delay=0,sched_interval=1"
    echo "MinJobAge=10"
    echo "NodeName=$__slurm_node CPUs=$cpus RealMemory=$mem State=UNKNOWN"
    echo "PartitionName=test Nodes=$__slurm_node Default=YES MaxTime=INFINITE State=UP"
  } >"$d/slurm.conf"
  export SLURM_CONF=$d/slurm.conf

  slurmctld -D -i -f "$SLURM_CONF" >"$d/log/slurmctld.out" 2>&1 &
  __slurm_pids+=("$!")
  local ctld=$!
  if ! __slurm_wait_for "$wait" "$ctld" scontrol ping; then
    local log=$d/log/slurmctld.log
    [[ -s $log ]] || log=$d/log/slurmctld.out
    __slurm_fail "slurmctld did not start" "$log"
    return 1
  fi
  slurmd -D -f "$SLURM_CONF" -N "$__slurm_node" >"$d/log/slurmd.out" 2>&1 &
  __slurm_pids+=("$!")
  if ! __slurm_wait_for "$wait" "$!" __slurm_node_idle; then
    local log=$d/log/slurmd.log
    [[ -s $log ]] || log=$d/log/slurmd.out
    __slurm_fail "slurmd did not bring node $__slurm_node to idle ($(sinfo -h -o '%n %t' 2>&1 | head -1))" "$log"
    return 1
  fi
  return 0
}

slurm_stop() {
  local pid i
  # Cancel leftover jobs first so that no slurmstepd outlives slurmd; only
  # ever against this private cluster.
  if [[ -n $SLURM_TEST_DIR && ${SLURM_CONF:-} == "$SLURM_TEST_DIR/slurm.conf" ]] &&
     scontrol ping >/dev/null 2>&1; then
    scancel --user="$(id -un)" >/dev/null 2>&1 || true
    for ((i = 0; i < 20; i++)); do
      [[ -z $(squeue -h -o %i 2>/dev/null) ]] && break
      sleep 0.25
    done
  fi
  # Stop in reverse order of starting: slurmd, slurmctld, munged.
  for ((i = ${#__slurm_pids[@]} - 1; i >= 0; i--)); do
    pid=${__slurm_pids[i]}
    if __slurm_pid_alive "$pid"; then kill "$pid" 2>/dev/null; fi
  done
  for pid in "${__slurm_pids[@]}"; do
    local t
    for ((t = 0; t < 40; t++)); do
      __slurm_pid_alive "$pid" || break
      sleep 0.25
    done
    if __slurm_pid_alive "$pid"; then kill -9 "$pid" 2>/dev/null; fi
  done
  __slurm_pids=()
  if [[ -n $SLURM_TEST_DIR && -d $SLURM_TEST_DIR && ${SLURM_TEST_KEEP:-0} != 1 ]]; then
    rm -rf "$SLURM_TEST_DIR"
  fi
  SLURM_TEST_DIR=
  return 0
}
