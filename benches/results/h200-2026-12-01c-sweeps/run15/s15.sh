set -uo pipefail
# Sweep 15: teams a workgroup of the subgroup decode kernel beyond 8 (more than 256 threads a
# workgroup caps the driver's registers below 128: more subgroups an SM in flight), with the
# workgroups the splits aim for (decode_wgs); 32/8 heads, d128, f16, one query row.
t=/tmp/s15; mkdir -p $t
r="bash .device/on-device.sh"
q="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
for tm in 8 12 16 20 24 32; do
  WGPU_SDPA_TUNE=decode_teams=$tm $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16 > $t/ps-$tm.txt 2>&1
done
for i in 1 2; do
for tm in 8 12 16 20 24 32; do
  for w in 264 132; do
    WGPU_SDPA_TUNE=decode_teams=$tm,decode_wgs=$w $r .device/sdpa bench $q > $t/t$tm-w$w-$i.txt 2>&1
  done
done
done
tar -C /tmp -czf $OUT/s15.tgz s15
cd $t; for f in ps-*.txt; do echo "$f: $(grep -iE 'register|local|shared' $f | tr -s ' ' | head -6 | tr '\n' ' ')"; done | cut -c1-400
for f in t*-[12].txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
