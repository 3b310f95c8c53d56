set -uo pipefail
# Run 119 (twenty-eighth session): where tests/gpu_errors.rs stops on the H200 (run 118: killed
# after 150 s, four of its six tests never reported done). The test binary (unstripped, for
# symbol names) is carried gzipped as .device/t/gpu_errors.gz; elfutils' eu-stack as .debs in
# .device/dbg. A run past its time has every thread's kernel wait channel, syscall, kernel stack
# and user stack (eu-stack) written beside its output before it is killed. Then 4 runs of the
# d128 decode rows on this start of the machine (issue #5).
o=/tmp/s119; mkdir -p $o
SECONDS=0
mkdir -p /tmp/t119 /tmp/dbg && gunzip -c .device/t/gpu_errors.gz > /tmp/t119/gpu_errors && chmod +x /tmp/t119/gpu_errors
for f in .device/dbg/*.deb; do dpkg -x "$f" /tmp/dbg; done
export LD_LIBRARY_PATH_DBG=/tmp/dbg/usr/lib/x86_64-linux-gnu
stacks() { # where every thread of every gpu_errors process is
  nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv
  for p in $(pgrep -f /tmp/t119/gpu_errors); do
    echo "== pid $p: $(tr '\0' ' ' < /proc/$p/cmdline)"
    for t in /proc/$p/task/*; do
      echo "-- tid ${t##*/} $(cat $t/comm) wchan=$(cat $t/wchan) syscall=$(cut -d' ' -f1 $t/syscall)"
      cat $t/stack 2>/dev/null
    done
    LD_LIBRARY_PATH=$LD_LIBRARY_PATH_DBG /tmp/dbg/usr/bin/eu-stack -p $p 2>&1
  done
}
run() { # seconds name test-args...
  local T=$1 name=$2; shift 2
  ( WGPU_SDPA_REQUIRE_ADAPTER=1 RUST_BACKTRACE=1 bash .device/on-device.sh /tmp/t119/gpu_errors "$@" > $o/$name.txt 2>&1; echo "exit $?" >> $o/$name.txt ) &
  local w=$! i
  for ((i = 0; i < T; i++)); do sleep 1; kill -0 $w 2>/dev/null || break; done
  if kill -0 $w 2>/dev/null; then
    stacks > $o/$name.stacks.txt 2>&1
    sleep 5; stacks > $o/$name.stacks2.txt 2>&1
    pkill -9 -f /tmp/t119/gpu_errors; wait $w
    echo "killed after $T s" >> $o/$name.txt
  fi
  echo "$name: $(grep 'test result' $o/$name.txt | tail -1) $(tail -1 $o/$name.txt) at $SECONDS s"
}
# Each alone first (the short ones), then all six on one thread, then as cargo test runs them.
for t in buffers_past_max_buffer_size capabilities_the_device_lacks_give_a_validation_error \
         another_devices_or_a_destroyed_buffer_is_a_typed_error_and_the_encoder_stays_valid \
         a_lost_device_gives_device_lost_errors out_of_device_memory_is_a_typed_error; do
  run 40 $t --exact $t --nocapture
done
run 60 serial --test-threads=1 --nocapture
run 60 parallel --nocapture
r="bash .device/on-device.sh"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,32768,131072 --fused-only"
for i in 1 2 3 4; do timeout 60 $r .device/sdpa bench $d128 > $o/head-$i.txt 2>&1; done
for i in 1 2 3 4; do echo "head-$i: $(grep -E '^ *[0-9]+, ' $o/head-$i.txt | awk -F, '{printf "%s:%s ", $3, $18}')"; done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s119.tgz s119
