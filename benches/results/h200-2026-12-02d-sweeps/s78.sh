set -uo pipefail
# Run 78: the order of the decode kernel's loads (knob decode_vx, VX in wgsl/vector_subgroup.wgsl):
# 1 scores wait for a word of each V chunk (V loads issued with K's), 2 V past key_end clamped,
# 4 V loads first in program order; with 4 teams and 396 workgroups (3 an SM if registers allow).
o=/tmp/s78; mkdir -p $o
r="bash .device/on-device.sh"
shape="--heads 32,8 --q-len 1 --kv-len 16384 --hdim 128 --dtype f16"
declare -A V=( [base]="" [vx1]="decode_vx=1" [vx2]="decode_vx=2" [vx3]="decode_vx=3" [vx4]="decode_vx=4" [vx5]="decode_vx=5" [t4]="decode_teams=4,decode_wgs=396" [t4vx1]="decode_teams=4,decode_wgs=396,decode_vx=1" [t4vx3]="decode_teams=4,decode_wgs=396,decode_vx=3" )
for n in base vx1 vx2 vx3 vx4 vx5 t4 t4vx1 t4vx3; do
  WGPU_SDPA_TUNE="${V[$n]}" $r .device/pipeline_stats $shape > $o/stats-$n.txt 2>&1
  echo "$n: $(grep -m1 'Register Count' $o/stats-$n.txt)"
done
WGPU_SDPA_TUNE=decode_vx=1 bash scripts/sass.sh capture $o/c-vx1 $shape > /dev/null 2>&1
bash scripts/sass.sh capture $o/c-base $shape > /dev/null 2>&1
d128="--dtype f16 --hdim 128 --heads 32,8 --len 1 --kv-len 4096,16384,65536,131072 --fused-only"
for i in 1 2; do
  for n in base vx1 vx2 vx3 vx4 vx5 t4 t4vx1 t4vx3; do
    WGPU_SDPA_TUNE="${V[$n]}" $r .device/sdpa bench $d128 > $o/$n-$i.txt 2>&1
  done
done
tar -C /tmp -czf $OUT/s78.tgz s78
cd $o
for f in base-*.txt vx*.txt t4*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%s/%s ", $3, $11, $18}')"; done
