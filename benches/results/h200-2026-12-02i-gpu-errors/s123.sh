set -uo pipefail
# Run 123 (twenty-eighth session): tests/gpu_errors.rs of b291438, which adds
# `Context::set_wait_timeout` and its test (a 1 us timeout against an 8 MiB problem gives the
# typed timeout error; without it the next call comes back right), on the H200: the new test
# alone, then the whole binary in parallel 8 times and on one thread once. A run past its time
# has every thread's stacks written beside its output before it is killed.
o=/tmp/s123; mkdir -p $o
SECONDS=0
mkdir -p /tmp/t123 /tmp/dbg
for b in gpu_errors; do gunzip -c .device/t/$b.gz > /tmp/t123/$b && chmod +x /tmp/t123/$b; done
for f in .device/dbg/*.deb; do dpkg -x "$f" /tmp/dbg; done
export LD_LIBRARY_PATH_DBG=/tmp/dbg/usr/lib/x86_64-linux-gnu
stacks() { # where every thread of every gpu_errors process is
  nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv
  for p in $(pgrep -f /tmp/t123/gpu_errors); do
    echo "== pid $p: $(tr '\0' ' ' < /proc/$p/cmdline)"
    for t in /proc/$p/task/*; do
      echo "-- tid ${t##*/} $(cat $t/comm) wchan=$(cat $t/wchan) syscall=$(cut -d' ' -f1 $t/syscall)"
      cat $t/stack 2>/dev/null
    done
    LD_LIBRARY_PATH=$LD_LIBRARY_PATH_DBG /tmp/dbg/usr/bin/eu-stack -p $p 2>&1
  done
}
hangs=0
run() { # seconds name binary test-args...
  local T=$1 name=$2 bin=$3; shift 3
  ( WGPU_SDPA_REQUIRE_ADAPTER=1 RUST_BACKTRACE=1 bash .device/on-device.sh /tmp/t123/$bin "$@" > $o/$name.txt 2>&1; echo "exit $?" >> $o/$name.txt ) &
  local w=$! i
  for ((i = 0; i < T; i++)); do sleep 1; kill -0 $w 2>/dev/null || break; done
  if kill -0 $w 2>/dev/null; then
    stacks > $o/$name.stacks.txt 2>&1
    sleep 5; stacks > $o/$name.stacks2.txt 2>&1
    pkill -9 -f /tmp/t123/gpu_errors; wait $w
    echo "killed after $T s" >> $o/$name.txt; hangs=$((hangs + 1))
  fi
  echo "$name: $(grep 'test result' $o/$name.txt | tail -1) $(tail -1 $o/$name.txt) at $SECONDS s"
}
run 40 wait-alone gpu_errors --exact a_wait_past_the_timeout_is_a_typed_error_and_the_work_completes --nocapture
for i in $(seq 8); do ((hangs < 2)) && run 40 par-$i gpu_errors --nocapture; done
run 60 serial gpu_errors --test-threads=1 --nocapture
grep -h "timeout error" $o/*.txt | sort | uniq -c
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s123.tgz s123
