set -uo pipefail
# Run 120 (twenty-eighth session): tests/gpu_errors.rs passed every way in run 119 (each test
# alone, one thread, in parallel); run 118's stop is intermittent. The parallel run (as cargo
# test runs it) 16 times, and 16 times without the out-of-memory test, to catch a stop and
# where its threads wait. (At most 3 stops in the first
# loop, 5 in all.) The test binary (unstripped, for symbol names) is carried gzipped as .device/t/gpu_errors.gz; elfutils' eu-stack as .debs in
# .device/dbg. A run past its time has every thread's kernel wait channel, syscall, kernel stack
# and user stack (eu-stack) written beside its output before it is killed.
o=/tmp/s120; mkdir -p $o
SECONDS=0
mkdir -p /tmp/t120 /tmp/dbg && gunzip -c .device/t/gpu_errors.gz > /tmp/t120/gpu_errors && chmod +x /tmp/t120/gpu_errors
for f in .device/dbg/*.deb; do dpkg -x "$f" /tmp/dbg; done
export LD_LIBRARY_PATH_DBG=/tmp/dbg/usr/lib/x86_64-linux-gnu
stacks() { # where every thread of every gpu_errors process is
  nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv
  for p in $(pgrep -f /tmp/t120/gpu_errors); do
    echo "== pid $p: $(tr '\0' ' ' < /proc/$p/cmdline)"
    for t in /proc/$p/task/*; do
      echo "-- tid ${t##*/} $(cat $t/comm) wchan=$(cat $t/wchan) syscall=$(cut -d' ' -f1 $t/syscall)"
      cat $t/stack 2>/dev/null
    done
    LD_LIBRARY_PATH=$LD_LIBRARY_PATH_DBG /tmp/dbg/usr/bin/eu-stack -p $p 2>&1
  done
}
hangs=0
run() { # seconds name test-args...
  local T=$1 name=$2; shift 2
  ( WGPU_SDPA_REQUIRE_ADAPTER=1 RUST_BACKTRACE=1 bash .device/on-device.sh /tmp/t120/gpu_errors "$@" > $o/$name.txt 2>&1; echo "exit $?" >> $o/$name.txt ) &
  local w=$! i
  for ((i = 0; i < T; i++)); do sleep 1; kill -0 $w 2>/dev/null || break; done
  if kill -0 $w 2>/dev/null; then
    stacks > $o/$name.stacks.txt 2>&1
    sleep 5; stacks > $o/$name.stacks2.txt 2>&1
    pkill -9 -f /tmp/t120/gpu_errors; wait $w
    echo "killed after $T s" >> $o/$name.txt; hangs=$((hangs + 1))
  fi
  echo "$name: $(grep 'test result' $o/$name.txt | tail -1) $(tail -1 $o/$name.txt) at $SECONDS s"
}
for i in $(seq 16); do ((hangs < 3)) && run 40 par-$i --nocapture; done
for i in $(seq 16); do ((hangs < 5)) && run 40 nooom-$i --nocapture --skip out_of_device_memory; done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s120.tgz s120
