set -uo pipefail
# Run 43 (eighteenth session, on ebca953; written in the seventeenth, the last four bench lines
# added when it ran): the in-pass merge's
# tail. Merged in pass (decode_in_pass=1) with 8 splits a thread loads a round
# (decode_merge_parts=8) against 4; the count and fences alone (decode_merge_ablate=1, wrong
# results); nothing at the end (=8, wrong results); the default (the reduce pass). Then the
# subgroup kernel's teams' outputs in two halves (decode_os_parts=2: 20 KB at d256 instead of
# 36) at d256 and d128, registers and times, against the default.
o=/tmp/s43; mkdir -p $o
r="bash .device/on-device.sh"
{ for sh in "--heads 32,8 --q-len 1 --hdim 128 --dtype f16" "--heads 32,8 --q-len 1 --hdim 256 --dtype f16"; do echo "### $sh kv 16384"; WGPU_SDPA_TUNE=decode_in_pass=1,decode_merge_parts=8 $r .device/pipeline_stats --kv-len 16384 $sh; done; } > $o/reg-8.txt 2>&1
k="--kv-len 4096,16384,65536,131072 --fused-only"
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 $k"
d256="--dtype f16 --hdim 256 --heads 32,8 --len 1 $k"
for i in 1 2; do for v in decode_in_pass=1 decode_in_pass=1,decode_merge_parts=8 decode_in_pass=1,decode_merge_ablate=1 decode_in_pass=1,decode_merge_ablate=8 decode_in_pass=0; do
  WGPU_SDPA_TUNE=$v $r .device/sdpa bench $d128 > $o/d128-$v-$i.txt 2>&1
done; done
for v in decode_in_pass=1,decode_merge_parts=8 decode_in_pass=0; do WGPU_SDPA_TUNE=$v $r .device/sdpa bench $d256 > $o/d256-$v.txt 2>&1; done
for v in decode_os_parts=2 decode_os_parts=1; do
  { for sh in "--heads 32,8 --q-len 1 --hdim 256 --dtype f16" "--heads 32,8 --q-len 1 --hdim 128 --dtype f16"; do echo "### $sh kv 16384"; WGPU_SDPA_TUNE=$v $r .device/pipeline_stats --kv-len 16384 $sh; done; } > $o/reg-$v.txt 2>&1
  for i in 1 2; do
    WGPU_SDPA_TUNE=$v $r .device/sdpa bench $d256 > $o/d256-$v-$i.txt 2>&1
    WGPU_SDPA_TUNE=$v $r .device/sdpa bench $d128 > $o/d128-$v-$i.txt 2>&1
  done
done
lens=4096,16384,65536,131072
$r .device/sdpa bench --decode --len $lens > $o/decode-default.txt 2>&1
python3 .device/torch_sdpa_bench.py --decode --dtype float16 --hdim 128 --heads 32 8 --lens 4096 16384 65536 131072 > $o/torch-decode.txt 2>&1
WGPU_SDPA_TUNE=decode_in_pass=1,decode_merge_parts=8 $r .device/sdpa bench --decode --len $lens --fused-only > $o/decode-merged8.txt 2>&1
tar -C /tmp -czf $OUT/s43.tgz s43
cd $o; for f in reg-*.txt; do echo "$f: $(grep 'CS: Register' $f | awk '{print $4}' | tr '\n' ' ')"; done
for f in d*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
grep -E "^ *[0-9]" $o/torch-decode.txt | awk -F, '{print $3, $11}' | tr '\n' ' '; echo
for f in decode-default.txt decode-merged8.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s/%s:%s/%s ", $2, $3, $18, $11}')"; done
