set -uo pipefail
# Run 164 (thirty-fifth session) on ea848d2: the subgroup decode kernel at 32/8 heads (issue
# #5's shape) with fewer, wider workgroups: 16 teams a workgroup, splits aiming for one
# workgroup an SM; registers; sdpa check with the widest variant; PyTorch's CUDA graph beside.
o=/tmp/s164; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
lens="2048,4096,8192,16384,32768,65536,131072"
W16="decode_teams=16,decode_wgs=132,decode_os_parts=1"
WGPU_SDPA_TUNE=$W16 timeout 60 $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 131072 --hdim 128 --dtype f16 > $o/stats-w16.txt 2>&1
timeout 60 $r .device/pipeline_stats --heads 32,8 --q-len 1 --kv-len 131072 --hdim 128 --dtype f16 > $o/stats.txt 2>&1
WGPU_SDPA_TUNE=$W16 timeout 150 $r .device/sdpa check > $o/check-w16.txt 2>&1; echo "exit $?" >> $o/check-w16.txt
echo "check at $SECONDS s"
n=0
for k in none decode_wgs=132 $W16 $W16,decode_sg_pf=1 decode_teams=16,decode_wgs=132 $W16,decode_in_pass=0 none; do
  n=$((n+1))
  if [ $k = none ]; then t=""; else t=$k; fi
  WGPU_SDPA_TUNE=$t timeout 120 $r .device/sdpa bench --decode --len $lens --fused-only --kv-copies 4 > $o/h32-8-$n-$k.txt 2>&1
done
echo "sweeps at $SECONDS s"
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --heads 32 8 --lens ${lens//,/ } > $o/torch-graph-32-8-c4.txt 2>&1
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s164.tgz s164
cd $o
for f in stats*.txt; do echo "$f: $(grep -E 'CS: Register|plan:' $f | cut -c1-150 | tr '\n' ' ')"; done
echo "check: $(tail -2 check-w16.txt | tr '\n' ' ')"; grep -E "FAIL|ERROR" check-w16.txt | head -3
for f in h*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f/p%.1f ", $3+0, b/$18/1e3, b/$22/1e3}')"; done
grep -E '^ *[0-9]+, ' h32-8-3-*.txt | head -7 | awk -F, '{print $3, $23}' | cut -c1-200
for f in torch-graph-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"; done
