set -uo pipefail
# Run 197 (forty-first session): the tensor-core decode kernel's teams' merge rolled into one
# loop over O's fragments (ROLLED=1, this tree's default) against one copy a fragment
# (decode_ct_rolled=0, the code before): the driver's binary size, tests/decode.rs, and the
# per-call and one-pass times of 64/8 and 32/2 heads, interleaved.
o=/tmp/s197; mkdir -p $o /tmp/t197
r="bash .device/on-device.sh"
SECONDS=0
unx() { xz -dc "$1" > "$2" 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$1" "$2"; chmod +x "$2"; }
unx .device/t/decode.xz /tmp/t197/decode
for v in 1 0; do
  WGPU_SDPA_TUNE=decode_ct_rolled=$v timeout 60 $r .device/pipeline_stats --q-len 1 --heads 64,8 --kv-len 16384 --hdim 128 > $o/stats-d128-rolled$v.txt 2>&1
  WGPU_SDPA_TUNE=decode_ct_rolled=$v timeout 60 $r .device/pipeline_stats --q-len 1 --heads 64,8 --kv-len 16384 --hdim 64 > $o/stats-d64-rolled$v.txt 2>&1
done
grep -H "Binary Size\|Register Count" $o/stats-*.txt | grep -v "^.*CS:" | head -12
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 240 $r /tmp/t197/decode --nocapture > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
echo "decode: $(grep 'test result' $o/test-decode.txt | tail -1) $(tail -1 $o/test-decode.txt) at $SECONDS s"
for i in 1 2 3; do
  for v in 1 0; do
    export WGPU_SDPA_TUNE=decode_ct_rolled=$v
    timeout 60 $r .device/sdpa bench --decode --heads 64,8 --len 16384,65536,131072 > $o/h64-r$v-$i.txt 2>&1
    timeout 60 $r .device/sdpa bench --decode --heads 32,2 --len 16384,131072 > $o/h32x2-r$v-$i.txt 2>&1
    timeout 60 $r .device/sdpa bench --decode --heads 64,8 --hdim 64 --len 16384,65536 > $o/d64-r$v-$i.txt 2>&1
  done
done
unset WGPU_SDPA_TUNE
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s197.tgz s197
cd $o
for f in h64-*.txt h32x2-*.txt d64-*.txt; do echo "$f call/1pass us: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
