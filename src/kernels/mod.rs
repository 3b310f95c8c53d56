//! One module per kernel family. Each says which shader variants it needs for a description,
//! with which grids; [`crate::Attention`] compiles them through the pipeline cache and records them.

pub mod fused;
pub mod fused_coop;
pub mod unfused;
pub mod vector;

use crate::desc::{AttentionDesc, Tensor};
use crate::shader::ShaderVariant;

/// Whether every offset and stride of K and V is a multiple of 16 bytes, so that K and V can be
/// read in 16-byte words (`vec4<u32>`) from any row start: the cooperative kernel's word staging
/// and the decode kernel's vector loads.
pub(crate) fn kv_in_16_byte_words(desc: &AttentionDesc) -> bool {
    layouts_aligned(desc, &[Tensor::K, Tensor::V], 16 / desc.dtype.size_bytes())
}

/// Whether every offset and stride (batch, head, sequence) of each of `tensors` is a multiple of
/// `elements`: then every group of `elements` a kernel reads from a row start, or from a row
/// start plus a multiple of `elements`, is aligned to that many elements (the host's proof behind
/// the kernels' vector loads).
pub(crate) fn layouts_aligned(desc: &AttentionDesc, tensors: &[Tensor], elements: u64) -> bool {
    tensors.iter().all(|&t| {
        let l = desc.layout(t);
        [l.offset, l.batch_stride, l.head_stride, l.seq_stride]
            .iter()
            .all(|x| x % elements == 0)
    })
}

/// `(kv_splits, split_len)` for about `wanted` (at least 1) splits of `kv_len` keys in whole
/// tiles of `block_k`: each split's length is rounded up to whole tiles, so the last split may be
/// shorter and there may be fewer splits than wanted (the decode kernel's and the cooperative
/// kernel's KV splits).
pub(crate) fn key_splits(kv_len: u32, wanted: u32, block_k: u32) -> (u32, u32) {
    let split_len = kv_len.div_ceil(wanted.max(1)).next_multiple_of(block_k);
    (kv_len.div_ceil(split_len), split_len)
}

/// Workgroups the fused kernels' KV splits aim for (two an SM of the H200, as the decode
/// kernel's): for workgroups of [`FUSED_KV_SPLIT_TARGET_THREADS`] threads (see
/// [`kv_split_target`]).
pub(crate) const FUSED_KV_SPLIT_TARGET: u32 = TWO_PER_H200_SM;

/// Two workgroups an SM of the H200 ([`crate::capabilities::H200_COMPUTE_UNITS`]): the decode
/// and fused kernels' split targets where the adapter's compute units are unknown, scaled by
/// them where they are known.
pub(crate) const TWO_PER_H200_SM: u32 = 2 * crate::capabilities::H200_COMPUTE_UNITS;

/// The workgroup size [`FUSED_KV_SPLIT_TARGET`] is for.
const FUSED_KV_SPLIT_TARGET_THREADS: u32 = 128;

/// The workgroups a fused kernel of `threads`-thread workgroups aims its KV splits at against
/// `kv_len` keys: as many threads as [`FUSED_KV_SPLIT_TARGET`] workgroups of 128 below
/// [`KV_SPLIT_LONG_KEYS`] keys (the H200 holds one 256-thread workgroup of the cooperative kernel
/// an SM at d128, 218-255 registers, where 128-thread ones fit two: a second wave of those adds
/// the splits' cost), [`FUSED_KV_SPLIT_TARGET`] from there on (where the second wave paid).
/// H200, 32/8 heads, d128, ms fixed target / scaled (sweep 6 of the seventh session): f16 512
/// rows x 4096 keys 0.337 / 0.270, x 16384 1.088 / 1.107, x 65536 4.088 / 4.328; f32 (split)
/// 512 rows 0.756 / 0.707, 2.740 / 2.810, 10.604 / 11.103; 256 rows 0.453 / 0.417, 1.532 /
/// 1.539, 5.803 / 5.873. Knob `kv_split_threads=0`: always the fixed target (tuning).
pub(crate) fn kv_split_target(threads: u32, kv_len: u32) -> u32 {
    if crate::tune::knob("kv_split_threads") == Some(0) || kv_len >= KV_SPLIT_LONG_KEYS {
        return FUSED_KV_SPLIT_TARGET;
    }
    (FUSED_KV_SPLIT_TARGET * FUSED_KV_SPLIT_TARGET_THREADS / threads.max(1)).max(1)
}

/// Keys from which [`kv_split_target`] no longer scales the target by the workgroup size
/// (between the measured 16384, a tie, and 65536).
const KV_SPLIT_LONG_KEYS: u32 = 32768;

/// The fewest keys a fused kernel's split takes: tiles enough to amortise a workgroup's Q
/// staging and the partial write.
const FUSED_KV_SPLIT_MIN_KEYS: u32 = 512;

/// `(kv_splits, split_len)` of a fused kernel with `block_q` x `block_k` blocks for `desc`:
/// splits (flash-decoding) where its query blocks fill less than half of `target` workgroups
/// ([`FUSED_KV_SPLIT_TARGET`], or [`kv_split_target`]: the H200's, scaled here to the adapter's
/// compute units where its driver says how many, [`Capabilities::scale_workgroups`]) and the
/// keys are long enough, each split at least [`FUSED_KV_SPLIT_MIN_KEYS`] keys; none on CPU
/// adapters (no idle cores to fill). Tuning knob `knob` forces the number (0 or 1: none).
///
/// [`Capabilities::scale_workgroups`]: crate::capabilities::Capabilities::scale_workgroups
pub(crate) fn fused_kv_splits(
    caps: &crate::capabilities::Capabilities,
    desc: &crate::desc::AttentionDesc,
    (block_q, block_k): (u32, u32),
    target: u32,
    knob: &str,
) -> (u32, u32) {
    let none = (1, desc.kv_len);
    let base = desc.q_len.div_ceil(block_q) as u64 * desc.q_heads as u64 * desc.batch as u64;
    let target = caps.scale_workgroups(target) as u64;
    let wanted = match crate::tune::knob(knob) {
        Some(n) => n.max(1),
        None if caps.device_type == wgpu::DeviceType::Cpu => 1,
        None if 2 * base > target => 1,
        // base <= target / 2 here, so the quotient fits a u32.
        None => ((target / base) as u32).min(desc.kv_len / FUSED_KV_SPLIT_MIN_KEYS),
    };
    if wanted <= 1 {
        return none;
    }
    match key_splits(desc.kv_len, wanted, block_k) {
        (1, _) => none,
        splits => splits,
    }
}

/// `(kv_splits, split_len)` for `n` forced KV splits of a fused kernel with `block_k`-key tiles
/// (at most one per tile; 1: none), or an error for `n` = 0 (field `fused_kv_splits`).
pub(crate) fn forced_kv_splits(
    desc: &crate::desc::AttentionDesc,
    n: u32,
    block_k: u32,
) -> crate::error::Result<(u32, u32)> {
    if n == 0 {
        return Err(crate::error::Error::invalid(
            "fused_kv_splits",
            0,
            "must be at least 1",
        ));
    }
    Ok(key_splits(
        desc.kv_len,
        n.min(desc.kv_len.div_ceil(block_k)),
        block_k,
    ))
}

/// A fused kernel's passes with the keys split over workgroups: `variant` (its entry the kernel's
/// split form, `entry`, with `KVS` = 1) on a grid of the query blocks times `kv_splits` along x,
/// then the decode kernel's reduce pass combining the splits; with the scratch bytes of the
/// splits' partial results.
pub(crate) fn kv_split_passes(
    caps: &crate::capabilities::Capabilities,
    desc: &crate::desc::AttentionDesc,
    mut variant: ShaderVariant,
    entry: crate::shader::KernelEntry,
    block_q: u32,
    (kv_splits, split_len): (u32, u32),
) -> crate::error::Result<(Vec<Dispatch>, u64)> {
    variant.entry = entry;
    variant.constants.push(("KVS", 1));
    let mut dispatches = per_query_block(caps, desc, variant, block_q)?;
    let d = &mut dispatches[0];
    d.workgroups[0] = d.workgroups[0].checked_mul(kv_splits).ok_or_else(|| {
        crate::error::Error::limit(
            format!("{} workgroups along x", entry.name()),
            d.workgroups[0] as u64 * kv_splits as u64,
            "u32",
            u32::MAX as u64,
        )
    })?;
    d.splits = Some((kv_splits, split_len));
    crate::planner::check_grid(caps, entry.name(), d.workgroups)?;
    dispatches.push(vector::reduce_dispatch(caps, desc, kv_splits, split_len)?);
    let scratch = vector::check_scratch(
        caps,
        "fused KV split scratch bytes",
        vector::partial_bytes(desc, kv_splits),
    )?;
    Ok((dispatches, scratch))
}

/// The one dispatch of a fused kernel: a workgroup per `block_q` query rows of each (batch,
/// query head), checked against the adapter's grid limit.
pub(crate) fn per_query_block(
    caps: &crate::capabilities::Capabilities,
    desc: &crate::desc::AttentionDesc,
    variant: ShaderVariant,
    block_q: u32,
) -> crate::error::Result<Vec<Dispatch>> {
    let dispatch = Dispatch {
        workgroups: [desc.q_len.div_ceil(block_q), desc.q_heads, desc.batch],
        head_base: 0,
        head_count: desc.batch * desc.q_heads,
        splits: None,
        variant,
    };
    crate::planner::check_grid(caps, dispatch.variant.entry.name(), dispatch.workgroups)?;
    Ok(vec![dispatch])
}

/// One dispatch of a plan: the variant and its grid of workgroups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatch {
    /// The shader variant.
    pub variant: ShaderVariant,
    /// Workgroups along x, y, z.
    pub workgroups: [u32; 3],
    /// The `batch * q_heads + head` indices `head_base..head_base + head_count` the dispatch
    /// covers: the unfused path runs the heads in chunks whose score matrices fit one binding;
    /// other kernels cover all heads.
    pub head_base: u32,
    /// See `head_base`.
    pub head_count: u32,
    /// `(kv_splits, split_len)` of a pass whose keys are split over workgroups (the decode
    /// kernel's and the fused kernels' split passes, and the reduce pass combining them).
    pub splits: Option<(u32, u32)>,
}

/// Test support: asserts that `p` runs `entry` with the keys split into tile-aligned splits that
/// cover `desc`'s keys (none empty), then the reduce pass, on a grid of the query blocks times the
/// splits, with scratch for every split's partial rows.
#[cfg(test)]
pub(crate) fn assert_kv_split_plan(
    p: &crate::planner::Plan,
    desc: &AttentionDesc,
    entry: crate::shader::KernelEntry,
    (block_q, block_k): (u32, u32),
    (kv_splits, split_len): (u32, u32),
) {
    assert!(kv_splits > 1 && split_len.is_multiple_of(block_k), "{p}");
    assert!(kv_splits * split_len >= desc.kv_len, "{p}");
    assert!((kv_splits - 1) * split_len < desc.kv_len, "{p}");
    use crate::shader::KernelEntry;
    // The split f32 variant: its maxima pass first (seeing the splits, which place its maxima
    // after the partial results in the scratch).
    let split_f32 = entry == KernelEntry::FusedCoopSplitKv;
    let names: Vec<_> = p.dispatches().iter().map(|d| d.variant.entry).collect();
    let mut expected = vec![entry, KernelEntry::VectorReduce];
    let mut maxima_bytes = 0;
    if split_f32 {
        expected.insert(0, KernelEntry::SplitScales);
        let scales = &p.dispatches()[0];
        assert_eq!(scales.splits, Some((kv_splits, split_len)), "{p}");
        maxima_bytes = scales.workgroups[0] as u64 * scales.workgroups[1] as u64 * 4;
    }
    assert_eq!(names, expected, "{p}");
    assert_eq!(
        p.dispatches()[split_f32 as usize].workgroups,
        [
            desc.q_len.div_ceil(block_q) * kv_splits,
            desc.q_heads,
            desc.batch
        ],
        "{p}"
    );
    assert_eq!(
        p.scratch_bytes(),
        vector::partial_bytes(desc, kv_splits) + maxima_bytes,
        "{p}"
    );
}
