set -uo pipefail
# Sweep 1 (thirteenth session): V a tile ahead too (PF 2) with step 1 chunk by chunk and step 3 key by key (SEQ).
t=/tmp/s1; mkdir -p $t
r="bash .device/on-device.sh"
for k in "" decode_seq=1 decode_pf=2,decode_seq=1 decode_pf=2; do
  echo "### $k"; WGPU_SDPA_TUNE=$k,decode_coop=0 $r .device/pipeline_stats --heads 32,8 --q-len 1 --dtype f16 --kv-len 16384 --hdim 128 2>&1 | grep -i "register"
done > $t/registers.txt 2>&1
WGPU_SDPA_TUNE=decode_pf=2,decode_seq=1 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
d="--decode --len 8192,16384,32768,131072 --fused-only"
for i in 1 2; do
  for k in base decode_seq=1 decode_pf=2,decode_seq=1 decode_pf=2 decode_pf=2,decode_seq=1,decode_wgs=132 decode_pf=2,decode_seq=1,decode_wgs=396 decode_pf=2,decode_seq=1,decode_wgs=528; do
    WGPU_SDPA_TUNE=$k,decode_coop=0 $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s1.tgz s1
cd $t; tail -1 check.txt; cat registers.txt
for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s:%s ", $3, $11, $18}')"; done
