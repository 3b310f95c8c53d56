set -uo pipefail
o=/tmp/s6; mkdir -p $o
run="bash .device/on-device.sh .device/sdpa"
sq="--dtype f16 --hdim 64,128 --len 9,16,20,24,32 --kv-len 512,1024,4096,16384"
for h in 32,8 32,32; do
  WGPU_SDPA_TUNE=coop_listed=0 $run bench $sq --heads $h > $o/decode-$h.txt 2>&1
  WGPU_SDPA_TUNE=coop_listed=0 $run bench $sq --heads $h --no-decode --fused-only > $o/fused-$h.txt 2>&1
done
tar -C /tmp -czf $OUT/s6.tgz s6
cd $o; for h in 32,8 32,32; do echo "== $h"; paste -d'|' <(grep -E '^ *1, ' decode-$h.txt | awk -F, '{printf "%s %s d%s %s %s\n", $2,$3,$4,$11,substr($NF,1,14)}') <(grep -E '^ *1, ' fused-$h.txt | awk -F, '{printf "%s %s\n", $11, substr($NF,1,40)}'); done
