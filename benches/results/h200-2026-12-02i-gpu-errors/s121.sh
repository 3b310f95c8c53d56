set -uo pipefail
# Run 121 (twenty-eighth session): run 120 caught tests/gpu_errors.rs stopping in 3 of 13
# parallel runs (a deadlock inside NVIDIA's driver: one thread in vkDestroyDevice, another in a
# compile or a thread's exit), 0 of 16 without its out-of-memory test. (A) The fixed test binary
# (the out-of-memory test runs alone: a lock held exclusively while its child exhausts memory,
# shared by every other test) in parallel, 20 times. (B) Is it the memory held by another
# process? The old binary without its out-of-memory test, run while a separate process (its
# out-of-memory child alone) holds nearly all of the GPU's memory, 8 times. A run past its time
# has every thread's stacks written beside its output before it is killed.
o=/tmp/s121; mkdir -p $o
SECONDS=0
mkdir -p /tmp/t121 /tmp/dbg
for b in gpu_errors gpu_errors_old; do gunzip -c .device/t/$b.gz > /tmp/t121/$b && chmod +x /tmp/t121/$b; done
for f in .device/dbg/*.deb; do dpkg -x "$f" /tmp/dbg; done
export LD_LIBRARY_PATH_DBG=/tmp/dbg/usr/lib/x86_64-linux-gnu
stacks() { # where every thread of every gpu_errors process is
  nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv
  for p in $(pgrep -f /tmp/t121/gpu_errors); do
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
  ( WGPU_SDPA_REQUIRE_ADAPTER=1 RUST_BACKTRACE=1 bash .device/on-device.sh /tmp/t121/$bin "$@" > $o/$name.txt 2>&1; echo "exit $?" >> $o/$name.txt ) &
  local w=$! i
  for ((i = 0; i < T; i++)); do sleep 1; kill -0 $w 2>/dev/null || break; done
  if kill -0 $w 2>/dev/null; then
    stacks > $o/$name.stacks.txt 2>&1
    sleep 5; stacks > $o/$name.stacks2.txt 2>&1
    pkill -9 -f /tmp/t121/gpu_errors; wait $w
    echo "killed after $T s" >> $o/$name.txt; hangs=$((hangs + 1))
  fi
  echo "$name: $(grep 'test result' $o/$name.txt | tail -1) $(tail -1 $o/$name.txt) at $SECONDS s"
}
for i in $(seq 20); do ((hangs < 2)) && run 40 fixed-$i gpu_errors --nocapture; done
used() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits; }
for i in $(seq 8); do
  ((hangs < 4)) || break
  WGPU_SDPA_OOM_CHILD=1 bash .device/on-device.sh /tmp/t121/gpu_errors_old oom_child --exact --nocapture > $o/hog-$i.txt 2>&1 &
  h=$!
  for ((j = 0; j < 100; j++)); do (( $(used) > 100000 )) && break; sleep 0.1; done
  echo "hog-$i: $(used) MiB used at $SECONDS s" >> $o/hog-$i.txt
  run 40 hogged-$i gpu_errors_old --nocapture --skip out_of_device_memory
  wait $h; echo "hog-$i: $(grep -E 'held|OOM' $o/hog-$i.txt | tr '\n' ' ')"
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s121.tgz s121
