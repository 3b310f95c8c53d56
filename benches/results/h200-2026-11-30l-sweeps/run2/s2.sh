set -uo pipefail
# Sweep 2: the staged decode kernel with V loaded during steps 1-2 and the next K during step 3 (16
# KB in flight a workgroup at every step, not 32) against the register kernel.
t=/tmp/s2; mkdir -p $t
r="bash .device/on-device.sh"
d="--decode --len 4096,16384,32768,131072"
ks="none decode_stage=1 decode_stage=1,decode_wg=512,decode_cpl=2 decode_stage=1,decode_merge=2"
for k in $ks; do
  WGPU_SDPA_TUNE=$k $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $t/ps-$k.txt 2>&1
done
for i in 1 2; do
  for k in $ks; do WGPU_SDPA_TUNE=$k $r .device/sdpa bench $d > $t/$k-$i.txt 2>&1; done
done
WGPU_SDPA_TUNE=decode_stage=1 $r .device/sdpa check --filter vector > $t/check.txt 2>&1; echo "exit $?" >> $t/check.txt
tar -C /tmp -czf $OUT/s2.tgz s2
tail -2 $t/check.txt
cd $t; for f in ps-*; do echo "$f: $(grep -i -E 'regist|plan' $f | head -4 | tr '\n' ' ' | cut -c1-300)"; done
for f in *-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $18, $19}')"; done
