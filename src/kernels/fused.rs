//! The portable fused family (`wgsl/fused.wgsl`): tiles fitted to the adapter's workgroup
//! memory, one dispatch of `ceil(q_len / block_q) x q_heads x batch` workgroups.
//!
//! Where those query blocks would fill less than half of a GPU and the keys are long (short
//! queries against long caches: chunked prefill), the keys are split over workgroups as well
//! (flash-decoding; `crate::kernels::fused_kv_splits`, the cooperative kernel's rule): each
//! workgroup writes its split's unnormalised rows, max and sum (`wgsl/fused_kv_split.wgsl`) and
//! the decode kernel's reduce pass (`wgsl/vector_reduce.wgsl`) combines them. The blocks are then
//! chosen as for a full grid (`workgroups` counts the splits): tall blocks read each split of K
//! and V for more query rows. On the H200, f32, 32/8 heads, 16384 keys (benches/results/
//! h200-2026-11-30g-sweeps, runs 3-4): 33 rows 5.85 -> 0.45 ms at d64 (0.96 -> 0.84 at d128), 64
//! rows 1.21 -> 0.45 (1.85 -> 0.87), 128 rows 1.12 -> 0.72 (1.85 -> 1.30). Knob
//! `portable_kv_splits=N` forces the number (1: none).

use crate::capabilities::Capabilities;
use crate::desc::{AttentionDesc, DType, Tensor};
use crate::error::{Error, Result};
use crate::kernels::{layouts_aligned, per_query_block, Dispatch, FUSED_KV_SPLIT_TARGET};
use crate::planner::{mask_kind, FusedTiles};
use crate::shader::{KernelEntry, ShaderVariant};

/// `(block_q, block_k)` candidates, most work per workgroup first. `block_k` is a multiple of 16
/// (the row reductions read vec4s of the 4-key columns).
const BLOCKS: [(u32, u32); 13] = [
    (64, 64),
    (64, 32),
    (32, 64),
    (32, 32),
    (16, 64),
    (16, 32),
    (16, 16),
    (8, 64),
    (8, 32),
    (8, 16),
    (4, 64),
    (4, 32),
    (4, 16),
];

/// Blocks tried next (after [`TALL_BLOCKS`]: head dims above 128, or where 128-row blocks do not
/// apply) on GPUs where the largest blocks are chosen (head dims above 64): 128 keys a tile, P
/// alone 34 KB, so K, V and Q pass through in chunks of 4 to 16 dims or keys (needs about 48 KB:
/// NVIDIA, AMD; not Apple's 32). Each thread keeps 4 keys of S per row, so twice the threads of
/// 64 x 64 blocks share one staged chunk. Measured on the H200 when they were the first choice
/// (second session, K and Q then loaded across rows; f32, 32 heads, L = 1024 / 4096 ms; 64 x 64
/// in brackets; unfused after): d80 0.808 / 12.68 (0.858 / 13.36; 0.875 / 13.62), d128 1.038 /
/// 15.95 (1.106 / 16.96; 1.082 / 16.73), d256 2.01 / 32.6 (3.20 / 49.8; 2.01 / 30.8).
pub const WIDE_KEYS: (u32, u32) = (64, 128);

/// Blocks tried first for head dims 64 to 128 on GPUs with 48 KiB: 128 query rows and 64 keys,
/// 4 rows and 8 keys of S per thread (see `keys_per_thread`), so a row group of 8 threads covers
/// the 64 keys and each thread holds up to 4 output vec4 columns; P passes through workgroup
/// memory in halves, which leaves room for chunks of 20-32 head dims and 16-32 keys. Measured on
/// the H200 (f32, 32 heads, L = 4096, with K and Q loaded along their rows; the next best blocks
/// in brackets): d64 5.38 ms (6.86, whole 64 x 32 tiles), d80 8.48 (10.59, 64 x 64 with 8 keys),
/// d96 7.98 (8.97, the same), d128 10.24 (12.70, 64 x 128 tiles of 4 keys: [`WIDE_KEYS`]).
pub const TALL_BLOCKS: (u32, u32) = (128, 64);

/// The smallest chunk (head dims of K and Q, keys of V) of [`TALL_BLOCKS`] tiles: 16, what 48 KiB
/// gives them from head dim 64 to 128 or more (32 KiB would leave chunks of 4-8: many more steps
/// a tile, unmeasured, and SwiftShader in Chromium lost its device running them).
const TALL_MIN_CHUNK: u32 = 16;

/// The smallest chunk of [`WIDE_KEYS`] tiles (d256 f32 runs with 4-key V chunks).
const WIDE_KEYS_MIN_CHUNK: u32 = 4;

/// Output vec4 columns per thread and row the kernel holds in registers (`o0..o3`).
const MAX_OUT_SLOTS: u32 = 4;

/// The most vec4 registers per thread that prefetch the next staging step (`Slots` in
/// `wgsl/fused.wgsl`), the default off CPU adapters; tuning knob `portable_prefetch` sets the cap
/// (0: no prefetch), on any adapter.
const MAX_PREFETCH: u32 = 16;

/// Workgroups that keep a large GPU busy (about one per SM of an H200, which has 132): while a
/// smaller `block_q` gives more workgroups up to this many, [`fit_by_policy`] prefers it (short
/// sequences); not on CPU adapters. Tuning knob `portable_fill` overrides it (0: off). Measured
/// (H200, f32 d64, 32 heads): 128 ran L = 64 / 128 / 256 in 0.014 / 0.019 / 0.041 ms, 256 in
/// 0.014 / 0.033 / 0.055 (it chose 16- and 32-row blocks, twice the K/V loads for the same work).
const DEFAULT_FILL: u32 = 128;

/// The most output vec4 columns per thread and row with 8 rows per thread by default: `o0..o7`
/// at two slots are 64 f32 registers already. Tuning knob `portable_rows8_slots` (1..=4) sets it.
const MAX_OUT_SLOTS_8_ROWS: u32 = 2;

/// Output vec4 columns per thread and row (`NS` of `wgsl/fused.wgsl`): the value dims' vec4s
/// over the `block_k / keys_per_thread` threads of a row group.
fn out_slots(desc: &AttentionDesc, block_k: u32, keys_per_thread: u32) -> u32 {
    desc.v_head_dim
        .div_ceil(4)
        .div_ceil(block_k / keys_per_thread)
}

/// Keys per thread and row in S for `(block_q, block_k)`: 8 (two key quads sharing every Q read:
/// with 4 rows an 8 x 4 register tile, three workgroup-memory reads for 32 FMAs instead of two
/// for 16) for [`TALL_BLOCKS`], or where tuning knob `portable_keys=8` asks for it, if `block_k`
/// is a multiple of 32 (the row reductions read vec4s of the threads' partials) and the output
/// fits [`MAX_OUT_SLOTS`]; else 4 (also with `portable_keys=4`).
fn keys_per_thread(desc: &AttentionDesc, blocks: (u32, u32)) -> u32 {
    let block_k = blocks.1;
    let allowed = block_k.is_multiple_of(32) && out_slots(desc, block_k, 8) <= MAX_OUT_SLOTS;
    let default = if blocks == TALL_BLOCKS { 8 } else { 4 };
    match crate::tune::knob("portable_keys").unwrap_or(default) {
        8 if allowed => 8,
        _ => 4,
    }
}

/// Query rows per thread for `(block_q, block_k)` with `keys` keys per thread: 8 (two row quads
/// sharing every K and V read, half the threads) where `block_q` allows it and the output needs
/// at most [`MAX_OUT_SLOTS_8_ROWS`] slots, else 4. Tuning knob `portable_rows` (4 or 8) picks; by default
/// 8 for head dims of 128 and more off CPU adapters, 4 elsewhere (H200, f32, L = 4096: d128
/// 16.9 ms with 8 against 18.4 with 4; d80 15.3 against 13.4, d64 10.7 against 7.6).
fn rows_per_thread(
    caps: &Capabilities,
    desc: &AttentionDesc,
    (block_q, block_k): (u32, u32),
    keys: u32,
) -> u32 {
    let max_slots = crate::tune::knob("portable_rows8_slots")
        .unwrap_or(MAX_OUT_SLOTS_8_ROWS)
        .min(MAX_OUT_SLOTS);
    // Blocks of 64 rows or more: at 32 rows, 8 rows per thread left 64 threads a workgroup and ran
    // slower than 4 (H200, f32 d128 L = 32: 0.029 against 0.019 ms).
    let allowed =
        block_q >= 64 && block_q.is_multiple_of(8) && out_slots(desc, block_k, keys) <= max_slots;
    let default =
        if caps.device_type != wgpu::DeviceType::Cpu && desc.head_dim.max(desc.v_head_dim) >= 128 {
            8
        } else {
            4
        };
    match crate::tune::knob("portable_rows").unwrap_or(default) {
        8 if allowed => 8,
        _ => 4,
    }
}

/// The smallest chunks (head dims of K, keys of V) worth a barrier each.
const MIN_CHUNK: u32 = 32;

/// Workgroup memory of a configuration, bytes (must match the arrays of `wgsl/fused.wgsl`).
fn workgroup_bytes(desc: &AttentionDesc, t: &FusedTiles) -> u32 {
    let stage = t.stage.size_bytes() as u32;
    let q_rows = if t.q_resident {
        desc.head_dim
    } else {
        t.d_chunk
    };
    let q_t = q_rows * t.block_q * stage;
    let kv = kv_elements(desc, t) * stage;
    let p_s = t.block_q * (t.block_k / (4 * t.p_parts) + 1) * 16;
    let row_red = t.block_q * t.block_k * 4 / t.keys_per_thread;
    q_t + kv + p_s + row_red
}

/// Elements of the K/V staging buffer: a `d_chunk x block_k` slice of K or `k_chunk` rows of V.
fn kv_elements(desc: &AttentionDesc, t: &FusedTiles) -> u32 {
    (t.d_chunk * t.block_k).max(t.k_chunk * desc.v_head_dim)
}

/// The largest `c <= limit` with `c % 4 == 0` and `total % c == 0`.
fn largest_chunk(total: u32, limit: u32) -> Option<u32> {
    (1..=total / 4)
        .rev()
        .map(|n| n * 4)
        .find(|&c| c <= limit && total.is_multiple_of(c))
}

/// The configuration for `(block_q, block_k)`, staging dtype and Q residency that fits the
/// adapter with the largest chunks, if one has chunks of at least `min_chunk`.
fn configure(
    caps: &Capabilities,
    desc: &AttentionDesc,
    (block_q, block_k): (u32, u32),
    stage: DType,
    q_resident: bool,
    min_chunk: u32,
) -> Option<FusedTiles> {
    let (d, dv) = (desc.head_dim, desc.v_head_dim);
    let keys_per_thread = keys_per_thread(desc, (block_q, block_k));
    let rows_per_thread = rows_per_thread(caps, desc, (block_q, block_k), keys_per_thread);
    let workgroup_size = block_q * block_k / (keys_per_thread * rows_per_thread);
    // P in halves wherever a thread's two key quads fall in different halves of the tile (tuning
    // knob `portable_pparts=1` keeps it whole).
    let p_parts = if keys_per_thread == 8 && crate::tune::knob("portable_pparts") != Some(1) {
        2
    } else {
        1
    };
    if out_slots(desc, block_k, keys_per_thread) > MAX_OUT_SLOTS
        || !block_k.is_multiple_of(16)
        || workgroup_size > caps.max_workgroup_threads()
    {
        return None;
    }
    let mut t = FusedTiles {
        block_q,
        block_k,
        d_chunk: 4,
        k_chunk: 4,
        q_resident,
        stage,
        rows_per_thread,
        keys_per_thread,
        p_parts,
        workgroup_size,
        workgroup_bytes: 0,
        kv_splits: 1,
        split_len: desc.kv_len,
    };
    // Largest chunks first: the K slice and the V rows share one buffer, and a streamed Q
    // chunk is as deep as the K slice.
    for d_chunk in (4..=d).rev().filter(|c| c % 4 == 0 && d.is_multiple_of(*c)) {
        t.d_chunk = d_chunk;
        t.k_chunk = 4;
        let base = workgroup_bytes(desc, &t);
        if base > caps.max_workgroup_storage_bytes {
            continue;
        }
        let spare_elements = (caps.max_workgroup_storage_bytes - base) / stage.size_bytes() as u32
            + kv_elements(desc, &t);
        // V chunks lie within one part of P.
        t.k_chunk = largest_chunk(block_k / p_parts, spare_elements / dv)?;
        if t.d_chunk < min_chunk.min(d) {
            return None;
        }
        if t.k_chunk < min_chunk.min(block_k / p_parts) {
            continue;
        }
        t.workgroup_bytes = workgroup_bytes(desc, &t);
        return Some(t);
    }
    None
}

/// How [`fit_tiles`] chooses among configurations that fit (tuning knob `portable_fit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FitPolicy {
    /// `portable_fit=0`: the largest blocks of [`BLOCKS`] first, Q resident if it fits, chunks of
    /// at least [`MIN_CHUNK`].
    Largest,
    /// `portable_fit=1`: whole tiles only (Q resident, `d_chunk = head_dim`, `k_chunk =
    /// block_k`: three barriers per KV tile), the most useful work per workgroup.
    Whole,
    /// `portable_fit=2`: Q resident, chunks allowed, at least 128 threads, the most useful work
    /// per workgroup.
    Resident,
}

impl FitPolicy {
    fn from_knob(desc: &AttentionDesc) -> Self {
        match crate::tune::knob("portable_fit") {
            Some(0) => FitPolicy::Largest,
            Some(2) => FitPolicy::Resident,
            Some(1) => FitPolicy::Whole,
            // Measured on the H200 (f32, L = 4096, BENCHMARKS.md): whole tiles win at head dim
            // 64 (18.1 vs 17.1 TFLOP/s), the largest blocks above it (d80 12.9 vs 12.7, d128
            // 14.9 vs 9.2: whole tiles there leave 32-row blocks of 96 threads).
            _ if desc.head_dim <= 64 && desc.v_head_dim <= 64 => FitPolicy::Whole,
            _ => FitPolicy::Largest,
        }
    }
}

/// The share of the output vec4 columns' slots that do work in O += P V: `dv / 4` columns over
/// the `block_k / keys_per_thread` threads of a row group, in `ceil` rounds.
fn pv_efficiency(desc: &AttentionDesc, t: &FusedTiles) -> f64 {
    let (dv4, nc) = (desc.v_head_dim.div_ceil(4), t.block_k / t.keys_per_thread);
    dv4 as f64 / (dv4.div_ceil(nc) * nc) as f64
}

/// The workgroups a dispatch should reach before larger blocks are preferred ([`DEFAULT_FILL`]
/// scaled to the adapter's compute units where its driver says how many, or knob
/// `portable_fill`); 0 on CPU adapters, which run a few workgroups at a time: there, more
/// of them only cost more loads.
fn grid_fill(caps: &Capabilities) -> u64 {
    let default_fill = if caps.device_type == wgpu::DeviceType::Cpu {
        0
    } else {
        caps.scale_workgroups(DEFAULT_FILL)
    };
    crate::tune::knob("portable_fill").unwrap_or(default_fill) as u64
}

/// Workgroups of a dispatch with `block_q` query rows each: its query blocks, times the KV splits
/// the planner would give them (`crate::kernels::fused_kv_splits`; none on CPU adapters or for
/// short caches), so that short queries against long caches take the blocks a full grid takes
/// and fill the GPU with splits rather than with small blocks (each of which reads the whole
/// cache again).
fn workgroups(caps: &Capabilities, desc: &AttentionDesc, block_q: u32) -> u64 {
    let blocks = desc.q_len.div_ceil(block_q) as u64 * desc.q_heads as u64 * desc.batch as u64;
    let (splits, _) = crate::kernels::fused_kv_splits(
        caps,
        desc,
        (block_q, 16),
        FUSED_KV_SPLIT_TARGET,
        "portable_kv_splits",
    );
    blocks * splits as u64
}

/// What [`fit_by_policy`] maximises, in order: workgroups (up to the fill), useful work per
/// workgroup, PV efficiency, `block_q`, fewer staging steps (negated).
type FitKey = (u64, u64, u64, u32, i64);

/// The configuration [`FitPolicy`] `policy` prefers among `block_q` in 64..4 (no taller than the
/// query length needs) and `block_k` in 16..128 (multiples of 16, no wider than the keys need):
/// enough workgroups to fill the GPU (up to `portable_fill`), then the most useful FMAs per
/// workgroup (`block_q * block_k * pv_efficiency`), then the best PV efficiency, then the
/// taller block (fewer loads of each K/V tile), then the fewer staging steps. `None` for
/// [`FitPolicy::Largest`] or when nothing passes the policy.
fn fit_by_policy(
    caps: &Capabilities,
    desc: &AttentionDesc,
    stage: DType,
    policy: FitPolicy,
) -> Option<FusedTiles> {
    if policy == FitPolicy::Largest {
        return None;
    }
    let useful_q = desc.q_len.next_power_of_two().max(16);
    let useful_k = desc.kv_len.next_multiple_of(16);
    let fill = grid_fill(caps);
    let mut best: Option<(FitKey, FusedTiles)> = None;
    for block_q in [64, 32, 16, 8, 4].into_iter().filter(|&b| b <= useful_q) {
        for block_k in (16..=128).step_by(16).filter(|&b| b <= useful_k) {
            let Some(t) = configure(caps, desc, (block_q, block_k), stage, true, MIN_CHUNK) else {
                continue;
            };
            let whole = t.d_chunk == desc.head_dim && t.k_chunk == block_k / t.p_parts;
            let ok = match policy {
                FitPolicy::Whole => whole && t.workgroup_size >= 64,
                FitPolicy::Resident => t.workgroup_size >= 128,
                FitPolicy::Largest => false,
            };
            if !ok {
                continue;
            }
            let eff = pv_efficiency(desc, &t);
            let steps = (desc.head_dim / t.d_chunk + block_k / t.k_chunk) as i64;
            // Rounded so that equal work compares equal.
            let key = (
                workgroups(caps, desc, block_q).min(fill),
                ((block_q * block_k) as f64 * eff * 1000.0).round() as u64,
                (eff * 1000.0).round() as u64,
                block_q,
                -steps,
            );
            if best.as_ref().is_none_or(|(k, _)| key > *k) {
                best = Some((key, t));
            }
        }
    }
    best.map(|(_, t)| t)
}

/// Fits the tiles to the adapter: for the largest blocks first, Q resident with whole K and V
/// tiles, then Q resident with K and V in chunks, then Q streamed in chunks too. `forced` pins
/// `(block_q, block_k)`; `stage` pins the staging dtype (default: the storage dtype). The keys
/// are split over workgroups where the query blocks alone would leave a GPU idle
/// (`crate::kernels::fused_kv_splits`; knob `portable_kv_splits` forces the number).
pub fn fit_tiles(
    caps: &Capabilities,
    desc: &AttentionDesc,
    forced: Option<(u32, u32)>,
    stage: Option<DType>,
) -> Result<FusedTiles> {
    let t = fit_blocks(caps, desc, forced, stage)?;
    let (kv_splits, split_len) = crate::kernels::fused_kv_splits(
        caps,
        desc,
        (t.block_q, t.block_k),
        FUSED_KV_SPLIT_TARGET,
        "portable_kv_splits",
    );
    Ok(FusedTiles {
        kv_splits,
        split_len,
        ..t
    })
}

/// [`fit_tiles`]' blocks and chunks, the keys whole.
fn fit_blocks(
    caps: &Capabilities,
    desc: &AttentionDesc,
    forced: Option<(u32, u32)>,
    stage: Option<DType>,
) -> Result<FusedTiles> {
    let stage = stage.unwrap_or(desc.dtype);
    if desc.dtype == DType::F32 && stage == DType::F16 {
        return Err(Error::invalid(
            "fused_stage",
            "f16",
            "f32 inputs are staged as f32",
        ));
    }
    let candidates: Vec<(u32, u32)> = match forced {
        Some((block_q, block_k)) => {
            if block_q == 0 || block_q % 4 != 0 || block_k == 0 || block_k % 16 != 0 {
                return Err(Error::invalid(
                    "fused_blocks",
                    format!("({block_q}, {block_k})"),
                    "block_q must be a non-zero multiple of 4 and block_k of 16",
                ));
            }
            vec![(block_q, block_k)]
        }
        None => {
            // Blocks much taller than the query length only add padding rows; 64-row blocks
            // that leave the GPU short of workgroups give way to 32-row ones (H200, f32, 32
            // heads, L = 128: d80 0.027 ms with 32-row blocks against 0.035 with 64, d128 0.031
            // against 0.044; 16-row blocks were slower than either).
            let filled_q = if workgroups(caps, desc, 64) >= grid_fill(caps) {
                64
            } else {
                32
            };
            let useful_q = desc.q_len.next_power_of_two().max(16).min(filled_q);
            BLOCKS
                .iter()
                .copied()
                .filter(|b| b.0 <= useful_q)
                .chain(BLOCKS)
                .collect()
        }
    };
    let min_chunk = if forced.is_some() { 4 } else { MIN_CHUNK };
    if forced.is_none() {
        if let Some(t) = tall_blocks(caps, desc, stage) {
            return Ok(t);
        }
        let policy = FitPolicy::from_knob(desc);
        if let Some(t) = fit_by_policy(caps, desc, stage, policy) {
            return Ok(t);
        }
        if let Some(t) = wide_keys(caps, desc, stage, candidates[0].0) {
            return Ok(t);
        }
    }
    for blocks in candidates.iter().copied() {
        for q_resident in [true, false] {
            if let Some(t) = configure(caps, desc, blocks, stage, q_resident, min_chunk) {
                return Ok(t);
            }
        }
    }
    // Any chunk size, as a last resort.
    for blocks in candidates {
        if let Some(t) = configure(caps, desc, blocks, stage, false, 4) {
            return Ok(t);
        }
    }
    if let Some((block_q, block_k)) = forced {
        return Err(Error::invalid(
            "fused_blocks",
            format!("({block_q}, {block_k})"),
            format!(
                "no tiles with these blocks fit this adapter ({} bytes of workgroup memory, {} \
                 threads) with at most {MAX_OUT_SLOTS} output columns of 4 per thread",
                caps.max_workgroup_storage_bytes, caps.max_invocations_per_workgroup
            ),
        ));
    }
    Err(Error::limit(
        "fused kernel workgroup memory (smallest tiles)",
        (4 * 16 * 16 + 4 * 8 * 16) as u64,
        "max_compute_workgroup_storage_size",
        caps.max_workgroup_storage_bytes as u64,
    ))
}

/// [`WIDE_KEYS`] blocks on GPU adapters with the memory for them, where 64-row blocks are in
/// order (`block_q`, the first candidate, is 64) and the keys fill a 128-key tile; knob
/// `portable_wide=0` turns it off.
fn wide_keys(
    caps: &Capabilities,
    desc: &AttentionDesc,
    stage: DType,
    block_q: u32,
) -> Option<FusedTiles> {
    let on = caps.device_type != wgpu::DeviceType::Cpu
        && crate::tune::knob("portable_wide") != Some(0)
        && block_q == WIDE_KEYS.0
        && desc.kv_len >= WIDE_KEYS.1;
    on.then(|| configure(caps, desc, WIDE_KEYS, stage, false, min_chunk_of(WIDE_KEYS)))
        .flatten()
}

/// [`TALL_BLOCKS`] on GPU adapters with the memory for them, for head dims from 64 (measured
/// there and above) up to 128 (at most 4 output vec4 columns a thread), where 128-row blocks
/// still give the GPU enough workgroups and the keys fill a 64-key tile, ahead of every
/// [`FitPolicy`] unless knob `portable_fit` names one; knob `portable_tall=0` turns it off.
fn tall_blocks(caps: &Capabilities, desc: &AttentionDesc, stage: DType) -> Option<FusedTiles> {
    let on = caps.device_type != wgpu::DeviceType::Cpu
        && crate::tune::knob("portable_tall") != Some(0)
        && crate::tune::knob("portable_fit").is_none()
        && desc.head_dim >= 64
        && desc.head_dim.max(desc.v_head_dim) <= 128
        && desc.q_len >= TALL_BLOCKS.0
        && desc.kv_len >= TALL_BLOCKS.1
        && workgroups(caps, desc, TALL_BLOCKS.0) >= grid_fill(caps);
    on.then(|| {
        configure(
            caps,
            desc,
            TALL_BLOCKS,
            stage,
            false,
            min_chunk_of(TALL_BLOCKS),
        )
    })
    .flatten()
}

/// The smallest chunk the planner gives `blocks` ([`TALL_BLOCKS`] or [`WIDE_KEYS`]).
fn min_chunk_of(blocks: (u32, u32)) -> u32 {
    if blocks == TALL_BLOCKS {
        TALL_MIN_CHUNK
    } else {
        WIDE_KEYS_MIN_CHUNK
    }
}

/// Whether `blocks` ([`TALL_BLOCKS`] or [`WIDE_KEYS`]) fit this adapter with the chunks the
/// planner would give them (what `sdpa check` tests where they apply).
pub fn blocks_fit_as_planned(
    caps: &Capabilities,
    desc: &AttentionDesc,
    blocks: (u32, u32),
) -> bool {
    configure(caps, desc, blocks, desc.dtype, false, min_chunk_of(blocks)).is_some()
}

/// Whether every offset and stride of q, k, v and the output is a multiple of 4 elements, so
/// that every 4-element group the kernel loads or stores starts at a multiple of 4 (its dims
/// offsets are multiples of 4: `d_chunk` is).
fn aligned_to_4(desc: &AttentionDesc) -> bool {
    layouts_aligned(desc, &[Tensor::Q, Tensor::K, Tensor::V, Tensor::Out], 4)
}

/// `t` with `n` KV splits forced (at most one per tile of keys; 1: none).
pub fn force_kv_splits(desc: &AttentionDesc, t: FusedTiles, n: u32) -> Result<FusedTiles> {
    let (kv_splits, split_len) = crate::kernels::forced_kv_splits(desc, n, t.block_k)?;
    Ok(FusedTiles {
        kv_splits,
        split_len,
        ..t
    })
}

/// The dispatches (the kernel, and with KV splits the decode kernel's reduce pass combining them)
/// and the scratch bytes (the splits' partial results).
pub fn plan(
    caps: &Capabilities,
    desc: &AttentionDesc,
    t: &FusedTiles,
) -> Result<(Vec<Dispatch>, u64)> {
    let wg = t.workgroup_size;
    let q_streamed = if t.q_resident {
        0
    } else {
        t.block_q * t.d_chunk / 4
    };
    let step_vec4 = (q_streamed + t.block_k * t.d_chunk / 4).max(t.k_chunk * desc.v_head_dim / 4);
    // A CPU adapter has no load latency to hide and pays for the registers (measured slower on
    // lavapipe), so it prefetches only when the knob asks.
    let default_prefetch = if caps.device_type == wgpu::DeviceType::Cpu {
        0
    } else {
        MAX_PREFETCH
    };
    let prefetch = step_vec4
        .div_ceil(wg)
        .min(crate::tune::knob("portable_prefetch").unwrap_or(default_prefetch))
        .min(MAX_PREFETCH);
    let align4 = crate::tune::knob("portable_align") != Some(0) && aligned_to_4(desc);
    let mut constants = vec![
        ("BQ", t.block_q),
        ("BK", t.block_k),
        ("HEAD_DIM", desc.head_dim),
        ("V_HEAD_DIM", desc.v_head_dim),
        ("DC", t.d_chunk),
        (
            "Q_ROWS",
            if t.q_resident {
                desc.head_dim
            } else {
                t.d_chunk
            },
        ),
        ("KC", t.k_chunk),
        ("NS", out_slots(desc, t.block_k, t.keys_per_thread)),
        ("KV_VEC4", kv_elements(desc, t) / 4),
        ("RM", t.rows_per_thread),
        ("CK", t.keys_per_thread),
        ("PH", t.p_parts),
        ("WG", t.workgroup_size),
        ("PF", prefetch),
        ("ALIGN4", align4 as u32),
        ("MASK_KIND", mask_kind(desc)),
    ];
    // Tuning knob `portable_swizzle=0`: transposed tiles without the XOR swizzle (`SWZ`).
    if let Some(k) = crate::tune::knob("portable_swizzle") {
        constants.push(("SWZ", k.min(1)));
    }
    // Profiling only (wrong results): parts of the kernel left out (`ABLATE` in the shader).
    if let Some(bits) = crate::tune::knob("portable_ablate") {
        constants.push(("ABLATE", bits));
    }
    let variant = ShaderVariant {
        entry: KernelEntry::Fused,
        dtype: desc.dtype,
        stage: t.stage,
        coop: None,
        constants,
    };
    if t.kv_splits == 1 {
        return Ok((per_query_block(caps, desc, variant, t.block_q)?, 0));
    }
    crate::kernels::kv_split_passes(
        caps,
        desc,
        variant,
        KernelEntry::FusedKv,
        t.block_q,
        (t.kv_splits, t.split_len),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_queries_against_long_caches_split_the_keys() {
        use crate::planner::{plan, Kernel, PlanOptions};
        if std::env::var_os("WGPU_SDPA_TUNE").is_some() {
            return; // knobs change the defaults
        }
        let nvidia = Capabilities::nvidia_vulkan();
        // The portable kernel (an adapter without fragments for f32 would take it).
        let desc = AttentionDesc::new(1, 32, 8, 64, 16384, 128);
        let portable = PlanOptions {
            cooperative: Some(false),
            ..PlanOptions::default()
        };
        // The H200's 264 workgroups, and on a GPU whose driver reports 46 SMs 92.
        let smaller = Capabilities {
            compute_units: 46,
            ..nvidia.clone()
        };
        for (caps, target) in [(&nvidia, 264), (&smaller, 92)] {
            let p = plan(caps, &desc, &portable).unwrap();
            let Kernel::Fused(t) = p.kernel() else {
                panic!("{p}")
            };
            crate::kernels::assert_kv_split_plan(
                &p,
                &desc,
                KernelEntry::FusedKv,
                (t.block_q, t.block_k),
                (t.kv_splits, t.split_len),
            );
            let base = desc.q_len.div_ceil(t.block_q) * desc.q_heads;
            assert!(
                t.kv_splits * base <= target && 2 * t.kv_splits * base > target,
                "{p}"
            );
        }
        // Enough query blocks, short caches, or a CPU adapter: no split.
        for (caps, desc) in [
            (&nvidia, AttentionDesc::new(1, 32, 8, 4096, 16384, 128)),
            (&nvidia, AttentionDesc::new(1, 32, 8, 64, 400, 128)),
            (&Capabilities::lavapipe(), desc.clone()),
        ] {
            let t = fit_tiles(caps, &desc, None, None).unwrap();
            assert_eq!((t.kv_splits, t.split_len), (1, desc.kv_len), "{desc} {t:?}");
            let (dispatches, scratch) = super::plan(caps, &desc, &t).unwrap();
            assert_eq!(dispatches.len(), 1);
            assert_eq!(dispatches[0].variant.entry, KernelEntry::Fused);
            assert_eq!(scratch, 0);
        }
        // Forced: ragged splits cover the keys, tile-aligned; zero is an error.
        let t = fit_tiles(&nvidia, &desc, None, None).unwrap();
        let forced = force_kv_splits(&desc, t, 7).unwrap();
        assert_eq!(forced.kv_splits, 7);
        assert!(forced.split_len.is_multiple_of(t.block_k));
        assert!(forced.kv_splits * forced.split_len >= desc.kv_len);
        let e = force_kv_splits(&desc, t, 0).unwrap_err();
        assert_eq!(e.field(), Some("fused_kv_splits"), "{e}");
        // At most one split per tile.
        let short = AttentionDesc::new(1, 2, 2, 64, 100, 64);
        let t = fit_tiles(&nvidia, &short, None, None).unwrap();
        let forced = force_kv_splits(&short, t, 50).unwrap();
        assert_eq!(
            forced.kv_splits,
            short.kv_len.div_ceil(t.block_k),
            "{forced:?}"
        );
    }

    #[test]
    fn tiles_fit_every_profile_and_head_dim() {
        for (name, caps) in Capabilities::profiles() {
            for dtype in [DType::F32, DType::F16] {
                for d in (8..=256).step_by(8) {
                    let desc = AttentionDesc::new(1, 1, 1, 128, 128, d).with_dtype(dtype);
                    let t = fit_tiles(&caps, &desc, None, None)
                        .unwrap_or_else(|e| panic!("{name} {dtype} d={d}: {e}"));
                    assert!(
                        t.workgroup_bytes <= caps.max_workgroup_storage_bytes,
                        "{name} {d} {t:?}"
                    );
                    assert_eq!(d % t.d_chunk, 0);
                    assert_eq!(t.block_k % t.k_chunk, 0);
                    assert!(out_slots(&desc, t.block_k, t.keys_per_thread) <= MAX_OUT_SLOTS);
                    assert!(matches!(t.rows_per_thread, 4 | 8), "{name} {d} {t:?}");
                    assert!(matches!(t.keys_per_thread, 4 | 8), "{name} {d} {t:?}");
                    assert_eq!(t.block_q % t.rows_per_thread, 0);
                    assert_eq!(t.block_k % (4 * t.keys_per_thread), 0);
                    assert_eq!((t.block_k / t.p_parts) % t.k_chunk, 0);
                    assert!(t.p_parts == 1 || t.keys_per_thread == 8, "{name} {d} {t:?}");
                    assert_eq!(
                        t.workgroup_size * t.keys_per_thread * t.rows_per_thread,
                        t.block_q * t.block_k
                    );
                }
            }
        }
    }

    #[test]
    fn eight_rows_per_thread_from_head_dim_128_on_gpus() {
        if std::env::var_os("WGPU_SDPA_TUNE").is_some() {
            return; // knobs change the defaults
        }
        let gpu = Capabilities::nvidia_vulkan();
        // (64 x 32 whole tiles at d64; 64 x 128 tiles for d80 and d128 when forced: the planner
        // prefers 128 x 64 blocks of 4 rows and 8 keys per thread for those.)
        for (d, rows, blocks) in [
            (64, 4, None),
            (80, 4, Some(WIDE_KEYS)),
            (128, 8, Some(WIDE_KEYS)),
        ] {
            let desc = AttentionDesc::new(1, 32, 32, 4096, 4096, d);
            let t = fit_tiles(&gpu, &desc, blocks, None).unwrap();
            assert_eq!(t.rows_per_thread, rows, "d={d} {t:?}");
        }
        let desc = AttentionDesc::new(1, 32, 32, 4096, 4096, 128);
        let t = fit_tiles(&Capabilities::lavapipe(), &desc, None, None).unwrap();
        assert_eq!(t.rows_per_thread, 4);
    }

    #[test]
    fn short_sequences_take_blocks_that_fill_the_gpu() {
        if std::env::var_os("WGPU_SDPA_TUNE").is_some() {
            return; // knobs change the defaults
        }
        let gpu = Capabilities::nvidia_vulkan();
        for d in [64, 80, 128] {
            for (len, most_rows) in [(128, 32), (4096, 128)] {
                let desc = AttentionDesc::new(1, 32, 32, len, len, d).with_dtype(DType::F32);
                let t = fit_tiles(&gpu, &desc, None, None).unwrap();
                assert!(t.block_q <= most_rows, "d={d} L={len} {t:?}");
                let groups = len.div_ceil(t.block_q) * 32;
                assert!(groups >= DEFAULT_FILL, "d={d} L={len} {t:?}");
            }
        }
        // CPU adapters: no fill, the largest useful blocks.
        let desc = AttentionDesc::new(1, 32, 32, 128, 128, 80).with_dtype(DType::F32);
        let t = fit_tiles(&Capabilities::lavapipe(), &desc, None, None).unwrap();
        assert_eq!(t.block_q, 64, "{t:?}");
    }

    #[test]
    fn tall_and_wide_key_tiles_where_48_kib_allow_them() {
        if std::env::var_os("WGPU_SDPA_TUNE").is_some() {
            return; // knobs change the defaults
        }
        for (d, blocks, keys) in [
            (64, TALL_BLOCKS, 8),
            (80, TALL_BLOCKS, 8),
            (96, TALL_BLOCKS, 8),
            (112, TALL_BLOCKS, 8),
            (128, TALL_BLOCKS, 8),
            (256, WIDE_KEYS, 4),
        ] {
            let desc = AttentionDesc::new(1, 32, 32, 4096, 4096, d).with_dtype(DType::F32);
            let t = fit_tiles(&Capabilities::nvidia_vulkan(), &desc, None, None).unwrap();
            assert_eq!((t.block_q, t.block_k), blocks, "d={d} {t:?}");
            assert_eq!(t.keys_per_thread, keys, "d={d} {t:?}");
            assert!(t.workgroup_bytes <= 48 * 1024, "d={d} {t:?}");
            // Forcing the blocks gives the same tiles.
            let forced = fit_tiles(&Capabilities::nvidia_vulkan(), &desc, Some(blocks), None);
            assert_eq!(forced.unwrap(), t, "d={d}");
            // Apple's 32 KiB cannot hold them (the 128-row blocks only with tiny chunks).
            let apple = Capabilities::apple_m_series();
            let t = fit_tiles(&apple, &desc, None, None).unwrap();
            assert_ne!((t.block_q, t.block_k), WIDE_KEYS, "d={d} {t:?}");
            assert_ne!((t.block_q, t.block_k), TALL_BLOCKS, "d={d} {t:?}");
            assert!(!blocks_fit_as_planned(&apple, &desc, blocks), "d={d}");
            assert!(blocks_fit_as_planned(
                &Capabilities::nvidia_vulkan(),
                &desc,
                blocks
            ));
        }
        // Not for head dims below 64 (whole tiles there), nor short key lengths; no 128-row
        // blocks that would leave the GPU short of workgroups (keys too few to split).
        let desc = AttentionDesc::new(1, 32, 32, 4096, 4096, 32).with_dtype(DType::F32);
        let t = fit_tiles(&Capabilities::nvidia_vulkan(), &desc, None, None).unwrap();
        assert_ne!((t.block_q, t.block_k), WIDE_KEYS, "{t:?}");
        assert_ne!((t.block_q, t.block_k), TALL_BLOCKS, "{t:?}");
        let desc = AttentionDesc::new(1, 32, 32, 256, 512, 128).with_dtype(DType::F32);
        let t = fit_tiles(&Capabilities::nvidia_vulkan(), &desc, None, None).unwrap();
        assert_ne!((t.block_q, t.block_k), TALL_BLOCKS, "{t:?}");
        // Where the keys can be split the splits fill the GPU, and the 128-row blocks come back.
        if std::env::var_os("WGPU_SDPA_TUNE").is_none() {
            let desc = AttentionDesc::new(1, 32, 32, 256, 4096, 128).with_dtype(DType::F32);
            let t = fit_tiles(&Capabilities::nvidia_vulkan(), &desc, None, None).unwrap();
            assert_eq!((t.block_q, t.block_k, t.kv_splits), (128, 64, 4), "{t:?}");
        }
        let desc = AttentionDesc::new(1, 32, 32, 4096, 64, 128).with_dtype(DType::F32);
        let t = fit_tiles(&Capabilities::nvidia_vulkan(), &desc, None, None).unwrap();
        assert_ne!((t.block_q, t.block_k), WIDE_KEYS, "{t:?}");
    }

    #[test]
    fn more_memory_gives_larger_tiles() {
        let desc = AttentionDesc::new(1, 32, 32, 4096, 4096, 128).with_dtype(DType::F16);
        let browser = fit_tiles(&Capabilities::browser_webgpu(), &desc, None, None).unwrap();
        let nvidia = fit_tiles(&Capabilities::nvidia_vulkan(), &desc, None, None).unwrap();
        assert!(nvidia.block_q * nvidia.block_k > browser.block_q * browser.block_k);
    }
}
