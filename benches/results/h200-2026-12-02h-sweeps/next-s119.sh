set -uo pipefail
# Prepared for the next session with a GPU (not run): where tests/gpu_errors.rs stops on the
# H200 (run 118: killed after 150 s, four of its six tests never reported done). Carry the
# test binary gzipped as .device/t/gpu_errors.gz (cargo test --release --no-run --test
# gpu_errors; strip; gzip -9), then `bash .device/s119.sh`.
o=/tmp/s119; mkdir -p $o
SECONDS=0
mkdir -p /tmp/t119 && gunzip -c .device/t/gpu_errors.gz > /tmp/t119/gpu_errors && chmod +x /tmp/t119/gpu_errors
run() { WGPU_SDPA_REQUIRE_ADAPTER=1 RUST_BACKTRACE=1 timeout "$1" bash .device/on-device.sh /tmp/t119/gpu_errors "${@:2}"; }
# All six, one thread: does the overlap with the out-of-memory child matter?
run 120 --test-threads=1 --nocapture > $o/serial.txt 2>&1; echo "exit $?" >> $o/serial.txt
echo "serial: $(grep 'test result' $o/serial.txt | tail -1) $(tail -1 $o/serial.txt) at $SECONDS s"
# Each alone.
for t in out_of_device_memory_is_a_typed_error buffers_past_max_buffer_size \
         capabilities_the_device_lacks_give_a_validation_error \
         another_devices_or_a_destroyed_buffer_is_a_typed_error_and_the_encoder_stays_valid \
         a_lost_device_gives_device_lost_errors; do
  run 60 --exact $t --nocapture > $o/$t.txt 2>&1; echo "exit $?" >> $o/$t.txt
  echo "$t: $(grep 'test result' $o/$t.txt | tail -1) $(tail -1 $o/$t.txt) at $SECONDS s"
done
tar -C /tmp -czf $OUT/s119.tgz s119
