//! The decode kernels' keys split over workgroups (flash-decoding): how many splits of how many
//! keys, the subgroup kernel's in-pass merge of its splits (`wgsl/split_merge_in_pass.wgsl`), the
//! split scratch, and the reduce pass combining the splits (`wgsl/vector_reduce.wgsl`, also after
//! the fused kernels' KV splits).

use super::VectorTiles;
use crate::capabilities::Capabilities;
use crate::desc::AttentionDesc;
use crate::error::{Error, Result};
use crate::kernels::unfused::grid_2d;
use crate::kernels::{Dispatch, TWO_PER_H200_SM};
use crate::planner::{check_grid, mask_kind};
use crate::shader::{KernelEntry, ShaderVariant};

/// The fewest keys worth a split of their own (knob `decode_min_split` overrides it).
pub(super) const MIN_SPLIT_KEYS: u32 = 256;

/// The fewest keys a decode split takes where the caches are short (see [`key_splits_for`]).
const SHORT_SPLIT_KEYS: u32 = 64;

/// Workgroups the splits aim for: enough to keep every compute unit of a GPU busy, few on a CPU.
/// Two a compute unit where the driver says how many ([`Capabilities::compute_units`]), else
/// by the kind of adapter. Knob `decode_wgs` overrides it (GPU sweeps).
pub(super) fn target_workgroups(caps: &Capabilities) -> u32 {
    if let Some(n) = crate::tune::knob("decode_wgs") {
        return n.max(1);
    }
    match caps.device_type {
        wgpu::DeviceType::Cpu => 4,
        // Two a compute unit: on the H200 (132 SMs, 128 registers a thread: two 256-thread
        // workgroups an SM) measured best of 132..2112 at kv_len >= 16384 (BENCHMARKS.md; 2112
        // and 1056 left K/V reads in too many short splits).
        _ if caps.compute_units > 0 => caps.scale_workgroups(TWO_PER_H200_SM),
        wgpu::DeviceType::IntegratedGpu => 128,
        _ => TWO_PER_H200_SM,
    }
}

/// Workgroups the splits aim for where a workgroup fills a compute unit (the cooperative-matrix
/// subgroup kernel, and the subgroup kernel where [`wide_teams`](super::wide_teams) takes it): one
/// a compute unit, half of [`target_workgroups`] (knob `decode_wgs` sets it). On the H200
/// (BENCHMARKS.md, thirty-fourth session, run 156; the cooperative-matrix kernel, 64/8 heads, 6
/// teams, us a call in one pass) at 16384 / 65536 / 131072 keys: 30.7 / 81.5 / 148.7 with 132
/// workgroups, 37.5 / 88.3 / 154.4 with 264, 49.8 / 104.0 / 168.5 with 528.
pub(super) fn unit_workgroups(caps: &Capabilities) -> u32 {
    match crate::tune::knob("decode_wgs") {
        Some(n) => n.max(1),
        None => (target_workgroups(caps) / 2).max(1),
    }
}

/// Query groups a KV head's query vectors (its GQA group times `q_len`) make, `rows` a workgroup.
pub(super) fn groups_per_head(desc: &AttentionDesc, rows: u32) -> u32 {
    (desc.group_size() * desc.q_len).div_ceil(rows)
}

/// Query groups of the whole call (batch x KV heads x [`groups_per_head`]): the workgroups of
/// one split.
pub(super) fn query_groups(desc: &AttentionDesc, rows: u32) -> u32 {
    desc.batch * desc.kv_heads * groups_per_head(desc, rows)
}

/// `(kv_splits, split_len)` of a decode split pass with `rows` query vectors a workgroup and
/// splits of whole `block_k` keys: `splits` where forced (at most one a block), else as many as
/// fit [`target_workgroups`] (at most) with splits of at least [`MIN_SPLIT_KEYS`] keys.
///
/// Where that leaves fewer splits than the target allows (short caches), the splits aim for
/// half the target instead (one workgroup a compute unit of the H200), each of at least
/// [`SHORT_SPLIT_KEYS`] keys, and never fewer than before (knob `decode_short=0`: not). On the
/// H200 (BENCHMARKS.md, thirtieth session, run 134; 32/8 heads, d128, f16, us a call) at 256 / 1024 /
/// 2048 keys: 1 / 4 / 8 splits (256 keys or fewer) took 10.6 / 12.7 / 12.9, 4 / 16 / 16 took
/// 10.3 / 11.0 / 11.8; 8 / 32 / 32 splits of 32-64 keys (the merge's rounds grow with them)
/// 10.1 / 12.3 / 12.9. From 4096 keys the splits are as before (16 of 256 keys at 4096, where
/// 32 of 128 read within 2% either way). With the splits merged by the reduce pass (run 136, 4
/// copies of K and V): d256 (its default) 13.2 / 13.7 / 17.7 us against 19.3 / 22.5 / 23.5 with
/// the old splits; d128 11.2 / 11.8 / 12.8 against 10.4 / 14.0 / 14.1 (slower at 256 keys only).
/// The portable kernel (d192, run 139): 16.8 / 17.0 / 24.9 us at 256 / 1024 / 2048 keys against
/// 27.2 / 30.4 / 33.4. The cooperative-matrix kernel (8 query vectors a KV head, d128; run
/// 140): 11.7 / 12.9 / 14.1 us at 256 / 1024 / 2048 keys against 12.0 / 15.2 / 15.5. All three
/// the same from 4096 keys. Metal (always the reduce pass) was not measured.
pub(super) fn key_splits_for(
    caps: &Capabilities,
    desc: &AttentionDesc,
    rows: u32,
    block_k: u32,
    splits: Option<u32>,
) -> Result<(u32, u32)> {
    key_splits_aiming(desc, rows, block_k, splits, target_workgroups(caps))
}

/// [`key_splits_for`] with the splits aiming for `target` workgroups.
pub(super) fn key_splits_aiming(
    desc: &AttentionDesc,
    rows: u32,
    block_k: u32,
    splits: Option<u32>,
    target: u32,
) -> Result<(u32, u32)> {
    let short_caches = crate::tune::knob("decode_short") != Some(0);
    let base = query_groups(desc, rows);
    let min_keys = crate::tune::knob("decode_min_split").map_or(MIN_SPLIT_KEYS, |n| n.max(1));
    let max_splits = desc.kv_len.div_ceil(min_keys);
    let wanted = match splits {
        Some(0) => return Err(Error::invalid("decode_splits", 0, "must be at least 1")),
        Some(n) => n.min(desc.kv_len.div_ceil(block_k)),
        // At most the target: rounding up left a second wave of a few workgroups wherever the
        // query groups do not divide it (H200, 16 query groups: 17 splits, 272 workgroups on 264
        // slots, took 1.3-1.4x as long as 16 splits; BENCHMARKS.md, fifteenth session).
        None => {
            let per_query_group = target / base;
            let full = per_query_group.clamp(1, max_splits.max(1));
            if short_caches && full < per_query_group {
                (target / 2 / base)
                    .clamp(1, desc.kv_len.div_ceil(SHORT_SPLIT_KEYS))
                    .max(full)
            } else {
                full
            }
        }
    };
    Ok(crate::kernels::key_splits(desc.kv_len, wanted, block_k))
}

/// Workgroup memory `wgsl/split_merge_in_pass.wgsl` adds: a flag (its threads' parts reuse the
/// teams' outputs).
pub(super) const MERGE_FLAG_BYTES: u32 = 4;

/// Whether the subgroup kernel with tiles `t` can have its last split to finish merge the splits
/// itself (`wgsl/split_merge_in_pass.wgsl`) in place of the reduce pass after it: with several
/// splits, where the teams' outputs hold two vec4s a thread (`2 * team * output_parts <=
/// v_head_dim`), on Vulkan with `@coherent` storage (`Capabilities::coherent_storage`), where
/// naga's `storageBarrier()` is a device-scope acquire-release fence. Elsewhere (Metal, whose
/// threadgroup barriers order device memory only within a threadgroup; D3D12 and GL, untried)
/// the reduce pass stays.
///
/// [`crate::PlanOptions::decode_merge_in_pass`] chooses; by default
/// [`merges_in_pass_by_default`].
pub fn merges_in_pass(caps: &Capabilities, desc: &AttentionDesc, t: &VectorTiles) -> bool {
    t.team > 0
        && !t.matrix
        && t.kv_splits > 1
        && 2 * t.team * t.output_parts <= desc.v_head_dim
        && caps.backend == wgpu::Backend::Vulkan
        && caps.coherent_storage
        && t.workgroup_bytes + MERGE_FLAG_BYTES <= caps.max_workgroup_storage_bytes
}

/// Whether the planner merges the splits in pass where [`merges_in_pass`] allows it, unless
/// [`crate::PlanOptions::decode_merge_in_pass`] says: where the teams' outputs are in one part
/// (d64 and d128), or in two (d256) against short caches (knob `decode_in_pass` 0 or 1 decides
/// instead). On the H200 (BENCHMARKS.md,
/// eighteenth session; f16 unless said), against the reduce pass at 4096 / 16384 / 65536 /
/// 131072 keys: d128 with 32/8 heads +7.8 / +3.5 / +2.5 / +1.9% (run 48, the same at 8192);
/// in run 47, before the groups of 4 splits, 32/32 heads +7.7 / +3.2 / +0.9 / +0.5%, 2 query
/// rows +0.4 / +4.6 / +1.8 / +1.1%, d64 +9 / +4.6 / +3.5 / +2.6%, f32 d128 +7.6 / +1.3 / +0.3 /
/// +0.4%; d256 (two parts) -0.8% at 16384 keys (run 48). The count and its fences cost ~0.2 us;
/// the last split's merge of 33 splits (5 rounds of 6 loads a thread at d128) ~2.9 us (nineteenth
/// session, run 50), against the reduce pass's ~4 with its dispatch. Teams' outputs in two parts
/// (d256) merge in pass against up to [`IN_PASS_PARTS_MAX_KEYS`] keys: with the short caches'
/// splits 12.1 / 13.3 / 17.0 / 24.3 us against 13.2 / 13.7 / 17.7 / 25.3 by the reduce pass at
/// 256 / 1024 / 2048 / 4096 keys, 37.2 against 36.9 at 8192 (thirty-first session, run 136).
pub fn merges_in_pass_by_default(desc: &AttentionDesc, t: &VectorTiles) -> bool {
    match crate::tune::knob("decode_in_pass") {
        Some(n) => n == 1,
        None => t.output_parts == 1 || desc.kv_len <= IN_PASS_PARTS_MAX_KEYS,
    }
}

/// The longest cache whose splits [`merges_in_pass_by_default`] merges in pass where the teams'
/// outputs are in two parts (d256).
pub const IN_PASS_PARTS_MAX_KEYS: u32 = 4096;

/// The arrival counters (u32, zeros between calls) of a plan whose split pass merges its own
/// splits: one per query group (batch, KV head, group of query vectors); 0 otherwise.
pub fn arrival_counters(desc: &AttentionDesc, t: &VectorTiles) -> u64 {
    if !t.merged {
        return 0;
    }
    desc.batch as u64 * desc.kv_heads as u64 * groups_per_head(desc, t.rows) as u64
}

/// Bytes of the split scratch: per split and query vector, `v_head_dim` outputs, a max and a sum
/// (16 bytes with one split, where the kernel writes the output directly).
pub fn scratch_bytes(desc: &AttentionDesc, t: &VectorTiles) -> u64 {
    if t.kv_splits == 1 {
        return 16;
    }
    partial_bytes(desc, t.kv_splits)
}

/// Bytes of `kv_splits` splits' partial results (`wgsl/partial_layout.wgsl`, which
/// `wgsl/vector_reduce.wgsl` reads, also written by the fused kernels' KV splits): per query
/// vector, `kv_splits` rows of `v_head_dim` unnormalised outputs, then `kv_splits` rounded up to
/// even (max, sum) pairs (each vector's pairs on whole 16-byte quads, which the subgroup kernel
/// and the reduce pass load).
pub fn partial_bytes(desc: &AttentionDesc, kv_splits: u32) -> u64 {
    let pairs = kv_splits.next_multiple_of(2) as u64;
    desc.batch as u64
        * desc.q_heads as u64
        * desc.q_len as u64
        * (kv_splits as u64 * desc.v_head_dim as u64 + 2 * pairs)
        * 4
}

/// `bytes` of split scratch (`what`, for the error), checked against the adapter's storage
/// binding limit.
pub(crate) fn check_scratch(caps: &Capabilities, what: &str, bytes: u64) -> Result<u64> {
    if bytes > caps.max_storage_binding_bytes {
        return Err(Error::limit(
            what,
            bytes,
            "max_storage_buffer_binding_size",
            caps.max_storage_binding_bytes,
        ));
    }
    Ok(bytes)
}

/// The reduce pass combining `kv_splits` splits of `split_len` keys: one workgroup per query
/// vector.
pub(crate) fn reduce_dispatch(
    caps: &Capabilities,
    desc: &AttentionDesc,
    kv_splits: u32,
    split_len: u32,
) -> Result<Dispatch> {
    let heads = desc.batch * desc.q_heads;
    let vectors = heads as u64 * desc.q_len as u64;
    let vectors = u32::try_from(vectors)
        .map_err(|_| Error::limit("decode query vectors", vectors, "u32", u32::MAX as u64))?;
    let d = Dispatch {
        variant: ShaderVariant::new(
            KernelEntry::VectorReduce,
            desc.dtype,
            vec![
                ("V_HEAD_DIM", desc.v_head_dim),
                ("MASK_KIND", mask_kind(desc)),
            ],
        ),
        workgroups: grid_2d(vectors, caps.max_workgroups_per_dimension),
        head_base: 0,
        head_count: heads,
        splits: Some((kv_splits, split_len)),
    };
    check_grid(caps, d.variant.entry.name(), d.workgroups)?;
    Ok(d)
}
