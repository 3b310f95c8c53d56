set -uo pipefail
# Run 124 (twenty-eighth session): run 123 caught tests/gpu_errors.rs stopping again (1 of 8
# parallel runs) with its out-of-memory test alone: one test's thread in vkDestroyInstance,
# another's in vkDestroyDevice, a third inside the driver. Now every test runs alone (a mutex)
# and the devices and instances the tests make are kept until the process exits; and the wait
# test tries up to 3 times (in run 123 its 1 us wait once found the work done). The binary in
# parallel 16 times, then on one thread once. A run past its time has every thread's stacks
# written beside its output before it is killed.
o=/tmp/s124; mkdir -p $o
SECONDS=0
mkdir -p /tmp/t124 /tmp/dbg
for b in gpu_errors; do gunzip -c .device/t/$b.gz > /tmp/t124/$b && chmod +x /tmp/t124/$b; done
for f in .device/dbg/*.deb; do dpkg -x "$f" /tmp/dbg; done
export LD_LIBRARY_PATH_DBG=/tmp/dbg/usr/lib/x86_64-linux-gnu
stacks() { # where every thread of every gpu_errors process is
  nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv
  for p in $(pgrep -f /tmp/t124/gpu_errors); do
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
  ( WGPU_SDPA_REQUIRE_ADAPTER=1 RUST_BACKTRACE=1 bash .device/on-device.sh /tmp/t124/$bin "$@" > $o/$name.txt 2>&1; echo "exit $?" >> $o/$name.txt ) &
  local w=$! i
  for ((i = 0; i < T; i++)); do sleep 1; kill -0 $w 2>/dev/null || break; done
  if kill -0 $w 2>/dev/null; then
    stacks > $o/$name.stacks.txt 2>&1
    sleep 5; stacks > $o/$name.stacks2.txt 2>&1
    pkill -9 -f /tmp/t124/gpu_errors; wait $w
    echo "killed after $T s" >> $o/$name.txt; hangs=$((hangs + 1))
  fi
  echo "$name: $(grep 'test result' $o/$name.txt | tail -1) $(tail -1 $o/$name.txt) at $SECONDS s"
}
for i in $(seq 16); do ((hangs < 2)) && run 40 par-$i gpu_errors --nocapture; done
run 60 serial gpu_errors --test-threads=1 --nocapture
grep -h "timeout error\|before the wait" $o/*.txt | cut -c1-90 | sort | uniq -c
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s124.tgz s124
