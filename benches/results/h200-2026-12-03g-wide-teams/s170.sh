set -uo pipefail
# Run 170 (thirty-fifth session), 7122cae: d192 on the subgroup kernel with its teams' outputs in
# one part (27.9 KB, merged in pass) against two (the default past 24 KB: the reduce pass from
# 8192 keys).
o=/tmp/s170; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
for rep in 1 2; do
for h in 32,8 32,32; do
  for k in none decode_os_parts=1 decode_in_pass=1; do
    t=$k; [ $k = none ] && t=""
    WGPU_SDPA_TUNE=$t timeout 120 $r .device/sdpa bench --decode --hdim 192 --heads $h --len 1024,4096,16384,65536 --fused-only --kv-copies 4 > $o/d192-h${h/,/-}-$k-$rep.txt 2>&1
  done
done
done
WGPU_SDPA_TUNE=decode_os_parts=1 timeout 60 $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 65536 --hdim 192 --dtype f16 > $o/stats-d192-os1.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s170.tgz s170
cd $o
echo "$(grep -E 'CS: Register|plan:' stats-d192-os1.txt | cut -c1-120 | tr '\n' ' ')"
for f in d*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:p%.1f/c%.1f ", $3+0, b/$22/1e3, b/$18/1e3}')"; done
