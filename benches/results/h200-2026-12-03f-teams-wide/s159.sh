set -uo pipefail
# Run 159 (thirty-fourth session): the cooperative-matrix subgroup kernel with K's rows two
# blocks ahead (decode_ct_ahead=2) and Q's fragments in registers (decode_ct_qreg=1): registers,
# sdpa check with both and the kernel forced; 64/8 and 32/2 heads beside PyTorch's CUDA graph.
o=/tmp/s159; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
for v in decode_ct_qreg=1,decode_ct_ahead=2 decode_ct_ahead=2; do
  WGPU_SDPA_TUNE=$v timeout 60 $r .device/pipeline_stats --heads 64,8 --q-len 1 --kv-len 131072 --hdim 128 --dtype f16 > $o/stats-$v.txt 2>&1
  echo "$v: $(grep -E 'CS: Register' $o/stats-$v.txt | cut -c1-150 | tr '\n' ' ')"
done
WGPU_SDPA_TUNE=decode_ct=1,decode_ct_qreg=1,decode_ct_ahead=2 timeout 150 $r .device/sdpa check > $o/check-ct.txt 2>&1; echo "exit $?" >> $o/check-ct.txt
echo "check at $SECONDS s"
lens="16384,32768,65536,131072"
for h in 64,8 32,2; do
for v in none decode_ct_qreg=1 decode_ct_qreg=1,decode_ct_ahead=2 decode_ct_ahead=2; do
  WGPU_SDPA_TUNE=$v timeout 120 $r .device/sdpa bench --decode --heads $h --len $lens --fused-only --kv-copies 4 --budget-ms 150 > $o/h${h/,/-}-$v.txt 2>&1
done
done
echo "sweeps at $SECONDS s"
for h in "64 8" "32 2"; do
timeout 200 python3 .device/torch_decode_cold.py --graph --copies 4 --heads $h --lens ${lens//,/ } > $o/torch-graph-${h/ /-}-c4.txt 2>&1
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s159.tgz s159
cd $o
echo "check-ct: $(tail -2 check-ct.txt | tr '\n' ' ')"; grep -E "FAIL|ERROR" check-ct.txt | head -3
for f in h*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:%.1f ", $3+0, b/$22/1e3}')"; done
for f in torch-graph-*.txt; do echo "$f: $(grep -E '^ *[0-9]+, ' $f | awk -F, '{printf "%s:%.1f ", $1+0, $3*1000}')"; done
