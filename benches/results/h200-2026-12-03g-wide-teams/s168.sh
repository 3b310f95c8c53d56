set -uo pipefail
# Run 168 (thirty-fifth session), 849d0de: the subgroup kernel's knobs, tuned by the per-call
# clock before the thirty-first session, again in one pass at 32/8 heads, 16384 and 32768 keys.
o=/tmp/s168; mkdir -p $o
r="bash .device/on-device.sh"
SECONDS=0
for rep in 1 2; do
  for k in none decode_sg_pf=1 decode_sg_pf=0 decode_vc=0 decode_vc=1 decode_qh=1 decode_kl=0 decode_scat=0 decode_wide=1 decode_wide=1,decode_sg_pf=1 decode_in_pass=0 decode_grain=0; do
    t=$k; [ $k = none ] && t=""
    WGPU_SDPA_TUNE=$t timeout 60 $r .device/sdpa bench --decode --len 16384,32768 --fused-only --kv-copies 4 > $o/h32-8-$k-$rep.txt 2>&1
  done
done
echo "all at $SECONDS s"
tar -C /tmp -czf $OUT/s168.tgz s168
cd $o
for f in *-1.txt; do g=${f%-1.txt}-2.txt; echo "${f%-1.txt}: $(grep -E '^ *[0-9]+, ' $f $g | awk -F, '{b=4*$1*$6*$3*$4; printf "%s:p%.2f/c%.2f ", $3+0, b/$22/1e3, b/$18/1e3}')"; done
