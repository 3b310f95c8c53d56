set -uo pipefail
# Run 163 (thirty-fourth session): tests/decode.rs's cooperative-matrix teams test with its new
# case of 32 query vectors a KV head (two workgroups of 16 for each split).
o=/tmp/s163; mkdir -p $o /tmp/t163
gunzip -c .device/t/decode.gz > /tmp/t163/decode && chmod +x /tmp/t163/decode
WGPU_SDPA_REQUIRE_ADAPTER=1 timeout 100 bash .device/on-device.sh /tmp/t163/decode cooperative_matrix_teams --test-threads=1 --nocapture > $o/test-decode.txt 2>&1; echo "exit $?" >> $o/test-decode.txt
tar -C /tmp -czf $OUT/s163.tgz s163
echo "decode test: $(grep 'test result' $o/test-decode.txt) $(tail -1 $o/test-decode.txt)"; grep -E "panicked|failed|SKIP|cases" $o/test-decode.txt | head -5
