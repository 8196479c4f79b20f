#!/usr/bin/env bash
# The cluster recipe of docs/tournaments.md, run for real: a single-node
# Slurm (munged, slurmctld, slurmd on this machine, started here and
# stopped at the end) runs the documented sbatch script as a 4-task job
# array with `--shard auto`; `sawah elo` merges the shards; the merged
# games must be the unsharded run's, game for game, and so must the table.
# A luck-adjusted tournament is sharded and merged too: the merge keeps
# the luck reference.
#
#   scripts/slurm-test.sh [SAWAH_BINARY]
#
# Installs Debian's slurm-wlm and munge with apt-get when they are missing
# (as root). Everything else lives in a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
sawah="$(realpath "${1:-${SAWAH_BIN:-target/release/sawah}}")"
[ -x "$sawah" ] || { echo "no sawah binary at $sawah" >&2; exit 1; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  if [ "$(id -u)" != 0 ]; then
    echo "needs slurm-wlm and munge (apt-get install slurm-wlm munge)" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi

work="$(mktemp -d /tmp/sawah-slurm.XXXXXX)"
host="$(hostname -s)"
cleanup() {
  [ -f "$work/slurmd.pid" ] && kill "$(cat "$work/slurmd.pid")" 2>/dev/null || true
  [ -f "$work/slurmctld.pid" ] && kill "$(cat "$work/slurmctld.pid")" 2>/dev/null || true
  [ -f "$work/munged.pid" ] && kill "$(cat "$work/munged.pid")" 2>/dev/null || true
  sleep 1
  rm -rf "$work"
}
trap cleanup EXIT

# munge: a key of our own, its socket in the work folder.
mkdir -p "$work/munge" "$work/spool/ctld" "$work/spool/d" "$work/results"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --key-file="$work/munge/munge.key" --socket="$work/munge/socket" \
  --pid-file="$work/munged.pid" --log-file="$work/munge/log" --seed-file="$work/munge/seed" -f

cpus=$(nproc)
memory=$(( $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) / 2 ))
cat > "$work/slurm.conf" <<CONF
ClusterName=sawah-test
SlurmctldHost=$host
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
CredType=cred/munge
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$work/spool/ctld
SlurmdSpoolDir=$work/spool/d
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$work/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 1 60); do
  sinfo -h -o %T 2>/dev/null | grep -Eq '^(idle|mixed)' && break
  sleep 0.5
done
sinfo

# The documented script (docs/tournaments.md), on the tiny ur-2 and with
# this test's folders; one core a task.
cat > "$work/tournament.sbatch" <<SBATCH
#!/bin/bash
#SBATCH --job-name=sawah-test
#SBATCH --array=1-4
#SBATCH --cpus-per-task=1
#SBATCH --output=$work/task-%a.out
export RAYON_NUM_THREADS=\$SLURM_CPUS_PER_TASK
export SAWAH_SHARD_COUNT=4
"$sawah" tournament --rules ur-2 --agents random,heuristic,expectiminimax:depth=1 \\
    --games 40 --seed 2026 --shard auto \$EXTRA \\
    --out $work/results/\$RUN/shard-\${SLURM_ARRAY_TASK_ID}
SBATCH

run() {  # NAME EXTRA_FLAGS: the array, its merge, the unsharded run, compared
  local name=$1 extra=$2
  RUN=$name EXTRA="$extra" timeout 600 sbatch --wait --export=ALL,RUN="$name",EXTRA="$extra" "$work/tournament.sbatch"
  ls -d "$work/results/$name"/shard-* | wc -l | grep -qx 4
  local luck_flag=""
  [ -n "$extra" ] && luck_flag="--luck-adjusted"
  "$sawah" elo "$work/results/$name"/shard-* $luck_flag --out "$work/results/$name/merged" >/dev/null
  "$sawah" tournament --rules ur-2 --agents random,heuristic,expectiminimax:depth=1 \
    --games 40 --seed 2026 $extra --out "$work/results/$name/whole" >/dev/null
  # The same games: every game line of the shards is one of the whole run's.
  diff <(cat "$work/results/$name"/shard-*/results.jsonl | grep -v '"kind"' | sort) \
       <(grep -v '"kind"' "$work/results/$name/whole/results.jsonl" | sort)
  # The same table (the command lines aside).
  diff <(grep -Ev '^(Command|The games were played by|$)' "$work/results/$name/merged/elo.md") \
       <(grep -Ev '^(Command|The games were played by|$)' "$work/results/$name/whole/elo.md")
  # The merged table names the shards' commands, each with its shard.
  grep -q 'The games were played by: .*--shard 1/4.*--shard 2/4' "$work/results/$name/merged/elo.md"
  echo "$name: 4 shards merged into the unsharded run's $(grep -vc '"kind"' "$work/results/$name/whole/results.jsonl") games and table"
}
run plain ""
# A failed task, resubmitted alone as the docs say (`sbatch --array=3`),
# runs shard 3 of 4 again: its folder, cut back to its header and first
# game as a killed task leaves it, is finished with the same games.
shard3="$work/results/plain/shard-3/results.jsonl"
cp "$shard3" "$work/shard-3.whole"
head -n 2 "$work/shard-3.whole" > "$shard3"
timeout 600 sbatch --wait --array=3 --export=ALL,RUN=plain,EXTRA= "$work/tournament.sbatch"
diff <(sort "$shard3") <(sort "$work/shard-3.whole")
echo "plain: shard 3 resubmitted alone went on to the same games"
run luck "--luck-adjusted --reference heuristic"
grep -q '"luck"' "$work/results/luck/merged/elo.json"
echo "PASS: the Slurm job array's shards merge into the unsharded results"

# Training shared among shards (docs/training.md, "Past one machine"): the
# documented shard script as a 2-task array with `--shard auto`, the
# learner beside it (this node's two cores go to the array), on the tiny
# ur-2 in expert-iteration mode. The weights must be the one-machine run's.
train_args=(--rules ur-2 --seed 7 --set games=600 --set minutes=0 --set games_per_round=100
  --set eval_every=0 --set hidden=[8] --set mode=search --set choice_margin=0.001)
mkdir -p "$work/train/shared"
cat > "$work/train-shards.sbatch" <<SBATCH
#!/bin/bash
#SBATCH --job-name=sawah-shards
#SBATCH --array=1-2
#SBATCH --cpus-per-task=1
#SBATCH --output=$work/shard-%a.out
export RAYON_NUM_THREADS=\$SLURM_CPUS_PER_TASK
export SAWAH_SHARD_COUNT=2
"$sawah" train-shard $work/train/shared --shard auto --idle 300
SBATCH
job=$(sbatch --parsable "$work/train-shards.sbatch")
"$sawah" train --out "$work/train/shared" "${train_args[@]}" --shards 2 > "$work/learner.out"
"$sawah" train --out "$work/train/alone" "${train_args[@]}" > /dev/null
for _ in $(seq 1 600); do
  squeue -h -j "$job" 2>/dev/null | grep -q . || break
  sleep 0.5
done
cat "$work"/shard-*.out
grep -q 'shards, 0 here' "$work/learner.out" || { cat "$work/learner.out"; echo "the learner played shares itself" >&2; exit 1; }
grep -q 'shard 1/2: finished' "$work/shard-1.out"
grep -q 'shard 2/2: finished' "$work/shard-2.out"
# The weights (the model file after its header, which records times).
weights() { python3 -c 'import sys,struct; b=open(sys.argv[1],"rb").read(); n=struct.unpack("<Q",b[:8])[0]; sys.stdout.buffer.write(b[8+n:])' "$1" | sha256sum; }
[ "$(weights "$work/train/shared/current.safetensors")" = "$(weights "$work/train/alone/current.safetensors")" ]
echo "PASS: training shared among a Slurm job array's shards trains the one-machine run's weights"
