//! The cooperative-matrix fused family (`wgsl/fused_coop.wgsl`): S = Q·Kᵀ and O += P·V on matrix
//! fragments. The fragment configuration comes only from the adapter's list
//! ([`Capabilities::cooperative_matrix`]): on the H200 an unlisted 8x8 f32 pipeline was created
//! without error and computed garbage, so nothing else is ever tried.
//!
//! Tuning knobs (`WGPU_SDPA_TUNE`, `src/tune.rs`): `coop_words=0` stages K/V element by element
//! even where 16-byte words are possible; `coop_pipe=0|1` forces the one-tile-at-a-time or the
//! pipelined KV loop (default: pipelined for the split f32 variant only); `coop_reverse=0` keeps causal
//! workgroups in grid order; `coop_ablate=BITS` skips parts of the kernel for profiling (wrong
//! results: 1 staging, 2 softmax, 4 Q Kᵀ, 8 P V, 16 barriers, 32 the K/V loads of word
//! staging). `coop_aligned` (in `src/pipelines.rs` and `src/spirv.rs`): 0 lets wgpu translate the
//! WGSL (whose subgroup barriers order no workgroup memory on Vulkan, so the pipelined loop,
//! synchronised by the workgroup, runs unless `coop_pipe` says otherwise), 2 drops the
//! `Aligned` operands from ours. `coop_split=0` keeps f32 off f16 fragments.
//! `coop_kv_splits=N` forces the number of KV splits (1: none). `coop_listed=0` ignores the
//! adapter's list (plans as an adapter without cooperative matrices would). `coop_plain=0|1`
//! forces the one-tile-at-a-time loop's skip of the per-key checks off or on (default: on
//! without a mask, and with a causal one in blocks of 8 subgroups). `split_min_q=N` moves the
//! split f32 variant's shortest query (default [`SPLIT_MIN_Q_LEN`]); `kv_split_threads=0` aims
//! the KV splits at the fixed target (`crate::kernels::kv_split_target`). `coop_spad=N` pads the
//! score rows by N floats (a multiple of 4); `coop_qparts=N` stages Q in N parts where they fit;
//! `coop_bq=N,coop_bk=M` force N x M blocks (as `sdpa bench --blocks`, for `sdpa check`);
//! `coop_rflag=0|1`, `coop_endsg=0|1` and `coop_first=0|1` set the one-tile loop's rescale atomic,
//! its output synchronised per subgroup, and its first tile fetched before Q (the pipelined
//! loop keeps the atomic and its workgroup barriers whatever they say). `coop_zconst=0|1` loads
//! the zero accumulator from workgroup memory or takes a constant (default: the constant for f16
//! at head dim 128).
//!
//! Where the query blocks alone would fill less than half of the GPU (short queries against
//! long caches: chunked prefill), the keys are split over workgroups as well (`kv_splits`): each
//! writes its split's unnormalised rows, max and sum (`wgsl/coop_kv_split.wgsl`) and the decode
//! kernel's reduce pass (`wgsl/vector_reduce.wgsl`) combines them. On the H200, f16, 32/8 heads,
//! 16384 keys: 64 query rows 0.62 -> 0.13 ms at d64 and 1.14 -> 0.32 at d128 (fifth session's
//! sweeps 10-12; 0.26 at d128 since queries of up to 64 rows take 64-row blocks, sixth session's
//! sweeps 7-8). The split f32 variant splits them too (seventh session), its maxima after the
//! partial results in the one scratch buffer (`wgsl/split_maxima.wgsl`).
//!
//! f32 tensors where the adapter lists f16 inputs but no f32 ones (NVIDIA's tensor cores) run
//! "split": a first pass (`wgsl/split_scales.wgsl`) finds each head's largest magnitudes, and the
//! kernel stages every value, times a power of two per head, as an f16 hi part and an f16 lo part
//! and takes three fragment products for each one of the plain kernel (`wgsl/fused_coop.wgsl`'s
//! header has the numerics: 22 of f32's 24 significant bits, f32 accumulation).

use wgpu::CooperativeScalarType;

use crate::capabilities::Capabilities;
use crate::desc::{AttentionDesc, DType};
use crate::error::{Error, Result};
use crate::kernels::{kv_in_16_byte_words, per_query_block, Dispatch};
use crate::planner::mask_kind;
use crate::shader::{CoopHeader, KernelEntry, ShaderVariant};

/// Elements of padding per staged row (`PAD` in the WGSL): 16 bytes of f16, keeping every row
/// 16-byte aligned as fragment loads need.
const PAD: u32 = 8;

/// Workgroups a grid should have for the planner to prefer it. On the H200 (132 compute units)
/// f16 L = 128, head dims 80 and 128, ran 10% slower with 32 workgroups of 128 rows than with 64
/// of 64 rows (BENCHMARKS.md, the runs before and after Q was staged in parts).
const MIN_WORKGROUPS: u64 = 64;

/// Q and O fragments per subgroup the kernel holds in registers (`q0..q7`, `o0..o7`): head dims
/// up to 128 with 16x16 fragments, up to 64 with 8x8 ones.
pub const MAX_COOP_FRAGS: u32 = 8;

/// Tiles of the cooperative-matrix kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CoopTiles {
    /// Fragment size (16 on NVIDIA, 8 on Apple): listed by the adapter as `frag x frag x frag`.
    pub frag: u32,
    /// Query rows per workgroup (`frag` per subgroup).
    pub block_q: u32,
    /// Keys per KV tile.
    pub block_k: u32,
    /// Subgroup size the kernel is compiled for.
    pub subgroup_size: u32,
    /// Parts of the head dims the Q block is staged in, a divisor of `head_dim / frag` (1 unless
    /// the block does not fit next to the tiles at once).
    pub q_parts: u32,
    /// Threads per workgroup.
    pub workgroup_size: u32,
    /// Workgroup memory, bytes.
    pub workgroup_bytes: u32,
    /// f32 elements of padding per row of the scores in workgroup memory (`SPAD`: 8 keeps the
    /// fragment stores and the softmax's reads of a row free of bank conflicts, and is taken
    /// where that was measured to pay: blocks of 8 subgroups of 16x16 fragments and the split
    /// f32 variant; else 4).
    pub s_pad: u32,
    /// KV splits (flash-decoding for the fused kernel: each workgroup takes `split_len` keys
    /// and `wgsl/vector_reduce.wgsl` combines them), 1 for none: where the query blocks alone
    /// would leave most of the GPU idle (short queries against long caches).
    pub kv_splits: u32,
    /// Keys per split (a multiple of `block_k`; `kv_len` with one split).
    pub split_len: u32,
    /// K and V are staged in 16-byte words fetched one tile ahead (every offset and stride of K
    /// and V is a multiple of 16 bytes), else element by element.
    pub word_staging: bool,
    /// f32 tensors on f16 fragments, as hi and lo parts (see the module docs).
    pub split: bool,
}

/// Query x key positions from which the planner takes the split for f32 on its own (a forced
/// cooperative kernel takes it at any length). H200, 32 heads, ms split / portable: L = 256 d64
/// 0.037 / 0.038, d128 0.070 / 0.062; L = 512 d64 0.088 / 0.097, d128 0.118 / 0.181; L = 128
/// d128 0.041 / 0.025.
pub const SPLIT_MIN_POSITIONS: u64 = 512 * 512;

/// The shortest query the planner takes the split for on its own: past the 32 rows the decode
/// kernel and the portable kernel's KV split serve (`crate::kernels::vector`). Since the split
/// splits its keys too (seventh session, sweep 5: H200, 32/8 heads, ms split / portable with
/// its keys split): d64 64 rows x 4096 / 16384 / 65536 keys 0.086 / 0.124, 0.340 / 0.446, 1.224
/// / 1.704; 192 rows 0.206 / 0.362, 0.873 / 1.387, 3.352 / 5.467; d80 64 rows 0.109 / 0.198,
/// 0.457 / 0.752; d128 64 rows 0.247 / 0.243, 0.810 / 0.872, 3.029 / 3.316; 128 rows 0.372 /
/// 0.349, 1.325 / 1.303, 5.061 / 5.112 (the one shape slower); 192 rows 0.440 / 0.660, 1.526 /
/// 2.560. (Before, without its keys split, it took 256 rows: q_len 128 d64 1.506 against 1.112
/// ms at 16384 keys, sixth session.)
pub const SPLIT_MIN_Q_LEN: u32 = 33;

/// Whether `desc` is too short for the split to pay (see [`SPLIT_MIN_POSITIONS`] and
/// [`SPLIT_MIN_Q_LEN`]).
pub fn split_too_short(desc: &AttentionDesc) -> bool {
    desc.q_len < split_min_q_len()
        || (desc.q_len as u64) * (desc.kv_len as u64) < SPLIT_MIN_POSITIONS
}

/// [`SPLIT_MIN_Q_LEN`], or what knob `split_min_q` sets (tuning).
pub fn split_min_q_len() -> u32 {
    crate::tune::knob("split_min_q").unwrap_or(SPLIT_MIN_Q_LEN)
}

/// Partial maxima per (tensor, batch, head) the split's first pass writes (`CHUNKS`).
const SPLIT_CHUNKS: u32 = 16;

/// Threads per workgroup of the split's first pass.
const SPLIT_SCALES_THREADS: u32 = 256;

/// The listed configuration for `dtype` inputs with f32 accumulators: the fragment size, 16
/// preferred over 8 (wgpu 30 expresses square fragments only). Tuning knob `coop_listed=0`
/// ignores the list (what an adapter without cooperative matrices plans, measured on one with
/// them).
pub fn listed_fragment(caps: &Capabilities, dtype: DType) -> Option<u32> {
    if crate::tune::knob("coop_listed") == Some(0) {
        return None;
    }
    let ab = match dtype {
        DType::F16 => CooperativeScalarType::F16,
        DType::F32 => CooperativeScalarType::F32,
    };
    [16, 8].into_iter().find(|&f| {
        caps.cooperative_matrix.iter().any(|c| {
            c.m_size == f
                && c.n_size == f
                && c.k_size == f
                && c.ab_type == ab
                && c.cr_type == CooperativeScalarType::F32
        })
    })
}

/// Whether the adapter runs `dtype` on its own listed fragments (no f32 split onto f16 ones).
pub fn native(caps: &Capabilities, dtype: DType) -> bool {
    runnable(caps, dtype).is_some_and(|(_, split)| !split)
}

/// [`fragment_for`] where the adapter's subgroups serve the kernel too (subgroups and their
/// barriers, [`Capabilities::subgroup_sync`], one known size the fragment size divides):
/// the configuration the cooperative kernel runs `dtype` with, if it runs at all.
pub fn runnable(caps: &Capabilities, dtype: DType) -> Option<(u32, bool)> {
    fragment_for(caps, dtype).filter(|&(frag, _)| subgroups_serve(caps, frag))
}

/// Whether the adapter's subgroups serve the kernel with `frag`-sized fragments: subgroups and
/// their barriers on the device, barriers that order workgroup memory
/// ([`Capabilities::subgroup_sync`]), and one known subgroup size that `frag` divides (each
/// subgroup owns `frag` query rows).
fn subgroups_serve(caps: &Capabilities, frag: u32) -> bool {
    caps.subgroups
        && caps.subgroup_sync
        && caps.subgroup_min_size != 0
        && caps.subgroup_min_size == caps.subgroup_max_size
        && caps.subgroup_min_size.is_multiple_of(frag)
}

/// The fragment configuration for `dtype` tensors, `(fragment size, split)`: the dtype's own
/// listing first; f32 tensors where only f16 inputs are listed go split onto f16 fragments
/// (needs `SHADER_F16`; knob `coop_split=0` turns it off).
pub fn fragment_for(caps: &Capabilities, dtype: DType) -> Option<(u32, bool)> {
    if let Some(frag) = listed_fragment(caps, dtype) {
        return Some((frag, false));
    }
    if dtype == DType::F32 && caps.shader_f16 && crate::tune::knob("coop_split") != Some(0) {
        return listed_fragment(caps, DType::F16).map(|frag| (frag, true));
    }
    None
}

/// Workgroup memory of the kernel's arrays, bytes (must match `wgsl/fused_coop.wgsl`).
fn workgroup_bytes(
    desc: &AttentionDesc,
    (block_q, block_k): (u32, u32),
    q_parts: u32,
    split: bool,
    s_pad: u32,
) -> u32 {
    let stage = if split {
        2
    } else {
        desc.dtype.size_bytes() as u32
    };
    let p_elements = block_q * (block_k + PAD) * (1 + split as u32);
    (kv_elements(desc, block_q, block_k, q_parts, split) + p_elements) * stage
        + block_q * (block_k + s_pad) * 4
        + 32
}

/// f32 elements of padding per row of the scores array `s_s` (`SPAD`), for blocks of `warps`
/// subgroups of `frag`-row fragments. Rows of BK + 8 floats (40 words for BK = 32: 8 mod 32; 24
/// for BK = 16) put the 4 rows a 64-bit fragment store or a 128-bit read of 8 lanes touches in 4
/// different bank octets; BK + 4 (36 words: 4 mod 32, what the kernel had) overlapped
/// neighbouring rows. Measured on the H200
/// (BENCHMARKS.md, L = 4096): 8-subgroup f16 blocks d80 1.788 -> 1.690 ms, d128 2.063 -> 1.995,
/// d64 in 128 x 32 blocks 1.306 -> 1.184; split f32 d64 2.856 -> 2.818, d128 5.120 -> 5.046; but
/// f16 d64 in 64 x 32 blocks 1.227 -> 1.669 (same registers: the NVIDIA compiler's code shape),
/// so 4-subgroup f16 blocks keep 4. Apple's 8x8 fragments keep 4 (not measured). Knob
/// `coop_spad` (a multiple of 4) forces it.
fn scores_pad(frag: u32, warps: u32, split: bool) -> u32 {
    if let Some(pad) = crate::tune::knob("coop_spad").filter(|v| v.is_multiple_of(4)) {
        return pad;
    }
    if frag == 16 && (split || warps >= 8) {
        8
    } else {
        4
    }
}

/// 16-byte words of a K/V tile each of `threads` invocations fetches (`NL` in the WGSL).
fn words_per_thread(desc: &AttentionDesc, block_k: u32, threads: u32) -> u32 {
    let per_word = 16 / desc.dtype.size_bytes() as u32;
    (block_k * (desc.head_dim + desc.v_head_dim) / per_word).div_ceil(threads)
}

/// Elements of one K tile and one V tile staged (split: their hi parts; the lo parts follow).
fn tile_elements(desc: &AttentionDesc, block_k: u32) -> u32 {
    block_k * (desc.head_dim + PAD) + block_k * (desc.v_head_dim + PAD)
}

/// Elements of the K/V staging array, which also stages Q (in `q_parts` parts of its head dims)
/// at the start.
fn kv_elements(desc: &AttentionDesc, block_q: u32, block_k: u32, q_parts: u32, split: bool) -> u32 {
    (tile_elements(desc, block_k) * (1 + split as u32))
        .max(block_q * (desc.head_dim / q_parts + PAD))
}

/// Why the cooperative-matrix kernel cannot serve `desc` on `caps`, or its tiles. `forced` pins
/// `(block_q, block_k)` (tuning); `block_q` must then be a multiple of the fragment size.
pub fn fit_tiles(
    caps: &Capabilities,
    desc: &AttentionDesc,
    forced: Option<(u32, u32)>,
) -> Result<CoopTiles> {
    let unavailable = |reason: String| Error::PathUnavailable {
        path: "fused (cooperative matrix)".into(),
        reason,
    };
    let (frag, split) = fragment_for(caps, desc.dtype).ok_or_else(|| {
        unavailable(format!(
            "the adapter lists no square cooperative-matrix configuration with {} inputs and f32 accumulators",
            desc.dtype
        ))
    })?;
    let words = kv_in_16_byte_words(desc) && crate::tune::knob("coop_words") != Some(0);
    if split && !words {
        return Err(unavailable(
            "f32 on f16 fragments stages K and V in 16-byte words: every offset and stride of K \
             and V must be a multiple of 4 elements"
                .into(),
        ));
    }
    let subgroup = caps.subgroup_min_size;
    if !subgroups_serve(caps, frag) {
        return Err(unavailable(format!(
            "needs subgroups with subgroup barriers that order workgroup memory (adapter: \
             subgroups {}, barriers ordering workgroup memory {}: Metal, or Vulkan with \
             PASSTHROUGH_SHADERS), of one known size that {frag} divides (adapter: {}..{})",
            caps.subgroups, caps.subgroup_sync, caps.subgroup_min_size, caps.subgroup_max_size
        )));
    }
    for (field, d) in [("head_dim", desc.head_dim), ("v_head_dim", desc.v_head_dim)] {
        if !d.is_multiple_of(frag) || d > MAX_COOP_FRAGS * frag {
            return Err(unavailable(format!(
                "{field} {d} must be a multiple of the fragment size {frag} and at most {}",
                MAX_COOP_FRAGS * frag
            )));
        }
    }
    let lanes_per_row = subgroup / frag;
    // Workgroups of the query blocks of `warps` subgroups (KV splits aside).
    let grid = |warps: u32| {
        desc.batch as u64 * desc.q_heads as u64 * desc.q_len.div_ceil(warps * frag) as u64
    };
    // Tuning: knobs `coop_bq` and `coop_bk` force the blocks as `forced` does (`sdpa check`).
    let forced =
        forced.or_else(|| Some((crate::tune::knob("coop_bq")?, crate::tune::knob("coop_bk")?)));
    let candidates = match forced {
        Some((block_q, block_k)) if block_q.is_multiple_of(frag) && block_q > 0 => {
            vec![(block_q / frag, block_k)]
        }
        Some((block_q, _)) => {
            return Err(Error::invalid(
                "fused_blocks",
                block_q,
                format!(
                "block_q of the cooperative kernel must be a multiple of the fragment size {frag}"
            ),
            ))
        }
        // f32 split, H200, L = 4096 (BENCHMARKS.md): d64 64 x 16 2.85 ms (64 x 32 3.32, 128 x 16
        // 3.12), d80 64 x 16 3.97 (128 x 16 4.40), d128 128 x 16 4.60 (64 x 16 7.04; 64 x 32
        // does not fit).
        None if split && desc.head_dim <= 80 && desc.v_head_dim <= 80 => {
            vec![(4, 16), (8, 16), (2, 16), (1, 16)]
        }
        None if split => vec![(8, 16), (4, 16), (2, 16), (1, 16)],
        // Measured on the H200 (BENCHMARKS.md, f16, L = 4096): 8 subgroups x 32 keys where it
        // fits, then 4 x 32; 4 x 64 was the slowest of those that fit. Head dims up to 64: 4 x 32
        // first with 8x8 fragments (not measured otherwise). 16x16 blocks of 8 x 32 skip the
        // per-key checks of plain tiles and, with their scores padded against bank conflicts
        // (`scores_pad`), beat 4 x 32 at d64 without a mask: 1.184 against 1.227 ms (eighth
        // session's sweep 2; before both, 4 x 32 had won, 1.40 against 1.48), and with a causal
        // mask once the loop lost its register copies: d32 0.474 -> 0.426 ms, d48 0.582 ->
        // 0.533, d64 0.622 -> 0.571 (tenth session's sweep 5; in the eighth, 0.67 against 0.77).
        None => {
            let mut list = vec![
                (8, 32),
                (4, 32),
                (8, 16),
                (4, 16),
                (4, 64),
                (2, 32),
                (2, 16),
                (1, 32),
                (1, 16),
            ];
            // ... and where 128-row blocks (with their KV splits) make fewer than twice
            // MIN_WORKGROUPS workgroups: L = 256 0.020 ms in 64-row blocks against 0.023, L =
            // 128 0.014 against 0.015, 256 rows x 512 keys 0.026 against 0.031 (L = 512, 128
            // workgroups: 0.037 against 0.034; final runs of the seventh and eighth sessions).
            let tall_grid = grid(8) * kv_splits(caps, desc, (8 * frag, 32), 8 * subgroup).0 as u64;
            if desc.head_dim <= 64
                && desc.v_head_dim <= 64
                && (frag != 16 || tall_grid < 2 * MIN_WORKGROUPS)
            {
                list.swap(0, 1);
            }
            list
        }
    };
    // Q staged in parts of its head dims (whole fragments each) where the block does not fit at
    // once. Apple keeps one part: its blocks were chosen without parts and are not measured with
    // them (the kernel would take them: they need no fragment arithmetic).
    let max_q_parts = if caps.backend == wgpu::Backend::Metal {
        1
    } else {
        MAX_COOP_FRAGS
    };
    let q_frags = desc.head_dim / frag;
    let configurations: Vec<(u32, u32, u32)> = candidates
        .into_iter()
        .flat_map(|(warps, block_k)| {
            (1..=max_q_parts.min(q_frags))
                .filter(move |&parts| {
                    q_frags.is_multiple_of(parts)
                        && crate::tune::knob("coop_qparts").is_none_or(|q| q == parts)
                })
                .map(move |parts| (warps, block_k, parts))
        })
        .collect();
    let fits = |&(warps, block_k, q_parts): &(u32, u32, u32)| {
        block_k.is_multiple_of(frag)
            // each lane's keys in the softmax: 1 to 8 chunks of 4
            && (block_k / lanes_per_row).is_multiple_of(4)
            && block_k / lanes_per_row <= 32
            && warps * subgroup <= caps.max_workgroup_threads()
            && workgroup_bytes(
                desc,
                (warps * frag, block_k),
                q_parts,
                split,
                scores_pad(frag, warps, split),
            ) <= caps.max_workgroup_storage_bytes
            && (!split || words_per_thread(desc, block_k, warps * subgroup) <= 8)
    };
    // Unless tiles are forced: 8 or 4 subgroups with enough workgroups to spread over a GPU's
    // compute units when the query is long enough for that, else the first that fits (both
    // measured: BENCHMARKS.md).
    // Blocks no taller than the query needs (64 rows at least): a 128-row block for a query of
    // up to 64 rows computes twice the products it keeps (H200, f16 d128, 9-64 rows against
    // 4096-16384 keys, keys split: 64-row blocks 20-25% faster, sweep 7 of the sixth session).
    let needed = |c: &(u32, u32, u32)| c.0 * frag <= desc.q_len.next_power_of_two().max(64);
    type Preference<'a> = &'a dyn Fn(&(u32, u32, u32)) -> bool;
    let preferences: [Preference; 3] = [
        &|c| forced.is_some() || (c.0 >= 4 && grid(c.0) >= MIN_WORKGROUPS && needed(c)),
        &|c| needed(c),
        &|_| true,
    ];
    for prefer in preferences {
        if let Some(&(warps, block_k, q_parts)) = configurations
            .iter()
            .filter(|c| prefer(c))
            .find(|c| fits(c))
        {
            let block_q = warps * frag;
            let s_pad = scores_pad(frag, warps, split);
            let word_staging = words && words_per_thread(desc, block_k, warps * subgroup) <= 8;
            let (kv_splits, split_len) =
                kv_splits(caps, desc, (block_q, block_k), warps * subgroup);
            return Ok(CoopTiles {
                word_staging,
                split,
                frag,
                block_q,
                block_k,
                subgroup_size: subgroup,
                q_parts,
                workgroup_size: warps * subgroup,
                workgroup_bytes: workgroup_bytes(desc, (block_q, block_k), q_parts, split, s_pad),
                s_pad,
                kv_splits,
                split_len,
            });
        }
    }
    Err(unavailable(format!(
        "its smallest tiles need more than {} bytes of workgroup memory",
        caps.max_workgroup_storage_bytes
    )))
}

/// The dispatches of the cooperative-matrix kernel with tiles `t` (split: the maxima pass,
/// then the kernel) and the bytes of scratch they need.
pub fn plan(
    caps: &Capabilities,
    desc: &AttentionDesc,
    t: &CoopTiles,
) -> Result<(Vec<Dispatch>, u64)> {
    // Pipelined tiles for the split f32 variant (H200, L = 4096: d64 2.85 against 3.21
    // ms one tile at a time, d80 3.97 against 4.02, d128 4.60 against 5.42). f16: one
    // tile at a time, whose subgroups sync the softmax among themselves only (d64 1.31
    // ms, d128 2.07 against 2.16 pipelined; before that change the pipelined loop won
    // from d80 on: d128 2.36 against 2.41).
    let mask = mask_kind(desc);
    let pipe = t.block_k / t.frag <= 4
        && crate::tune::knob("coop_pipe").map_or(
            t.split || crate::tune::knob("coop_aligned") == Some(0),
            |v| v == 1,
        );
    let variant = ShaderVariant {
        entry: if t.split {
            KernelEntry::FusedCoopSplit
        } else {
            KernelEntry::FusedCoop
        },
        dtype: desc.dtype,
        stage: if t.split { DType::F16 } else { desc.dtype },
        coop: Some(CoopHeader {
            frag: t.frag,
            q_frags: desc.head_dim / t.frag,
            o_frags: desc.v_head_dim / t.frag,
            q_parts: t.q_parts,
            word_staging: t.word_staging,
            split: t.split,
        }),
        constants: vec![
            ("BQ", t.block_q),
            ("BK", t.block_k),
            ("HEAD_DIM", desc.head_dim),
            ("V_HEAD_DIM", desc.v_head_dim),
            (
                "KV_ELEMS",
                kv_elements(desc, t.block_q, t.block_k, t.q_parts, t.split),
            ),
            ("Q_PARTS", t.q_parts),
            ("SG", t.subgroup_size),
            ("WG", t.workgroup_size),
            ("MASK_KIND", mask),
            ("PAD", PAD),
            ("SPAD", t.s_pad),
            ("NCH", t.block_k / (t.subgroup_size / t.frag) / 4),
            ("PIPE", pipe as u32),
            (
                "REVERSE",
                (crate::tune::knob("coop_reverse") != Some(0)) as u32,
            ),
            ("ABLATE", crate::tune::knob("coop_ablate").unwrap_or(0)),
            // Tuning: the first K/V tile's loads issued before Q is staged (`coop_first=1`: d64
            // 1.5% slower, d128 0.5% faster, eighth session's sweep 14).
            ("FIRST", crate::tune::knob("coop_first").unwrap_or(0)),
            // The output leaves through each subgroup's own rows of s_s, so the one-tile loop
            // synchronises that per subgroup (sweep 14: d64 1.174 / 1.164 -> 1.171 / 1.161 ms,
            // d128 1.989 / 1.975 -> 1.986 / 1.973, two passes; the pipelined loop keeps the
            // workgroup barriers it was measured with). Knob `coop_endsg=0|1`.
            (
                "ENDSG",
                (!pipe && crate::tune::knob("coop_endsg") != Some(0)) as u32,
            ),
            // The rescale flag's atomic is read by the pipelined loop only, but at head dims up
            // to 80 the other loop ran faster with it (H200, f16, L = 4096: d64 1.41 ms without
            // against 1.18, d80 1.71 against 1.68; d128 1.97 against 2.00: eighth session,
            // sweep 10); 8x8 fragments keep it (not measured). Knob `coop_rflag=0|1` (the
            // one-tile loop only: the pipelined one needs it).
            (
                "RFLAG",
                (pipe
                    || crate::tune::knob("coop_rflag")
                        .map_or(t.frag != 16 || desc.v_head_dim < 128, |v| v != 0))
                    as u32,
            ),
            // The zero accumulator a constant (OpConstantNull) rather than loaded: the NVIDIA
            // compiler's S chains then start from nothing instead of copies of it, but the code
            // it made was faster only for f16 at head dim 128 (H200, L = 4096, ms loaded /
            // constant: d128 1.656 / 1.605-1.609, causal 0.918-0.921 / 0.896-0.898, GQA 32/8
            // 1.663 / 1.611-1.615; d32 0.807-0.814 / 0.831, d64 1.019-1.026 / 1.046, d80
            // 1.293-1.297 / 1.390-1.396, d96 1.424-1.435 / 1.465-1.471, d112 1.634-1.637 /
            // 1.671-1.673, d48 1.018-1.026 / 0.994 but causal 0.528 / 0.536-0.555; f32 split
            // d128 4.646 / 4.829; tenth session, sweep 7). Knob `coop_zconst=0|1`.
            (
                "ZCONST",
                crate::tune::knob("coop_zconst").unwrap_or(
                    (t.frag == 16 && !t.split && desc.head_dim == 128 && desc.v_head_dim == 128)
                        as u32,
                ),
            ),
            // The one-tile-at-a-time loop skips the per-key checks of tiles no mask touches
            // where there is no mask (H200, f16, L = 4096: d64 1.33 -> 1.22 ms, d80 1.81 ->
            // 1.78, d128 2.08 -> 2.05), and with a causal mask in blocks of 8 subgroups (d128
            // 1.127 -> 1.094 ms; in d64's blocks of 4, 0.667 -> 0.717: not there; eighth session,
            // sweep 10; causal d64 has had blocks of 8, and so the skip, since the tenth session).
            // Knob `coop_plain=0|1` forces it off or on.
            (
                "PLAIN",
                crate::tune::knob("coop_plain").unwrap_or(
                    (mask == 0 || (mask == 1 && t.workgroup_size / t.subgroup_size >= 8)) as u32,
                ),
            ),
        ],
    };
    let mut variant = variant;
    if t.word_staging {
        variant
            .constants
            .push(("NL", words_per_thread(desc, t.block_k, t.workgroup_size)));
    }
    if !t.split {
        if t.kv_splits > 1 {
            return crate::kernels::kv_split_passes(
                caps,
                desc,
                variant,
                KernelEntry::FusedCoopKv,
                t.block_q,
                (t.kv_splits, t.split_len),
            );
        }
        return Ok((per_query_block(caps, desc, variant, t.block_q)?, 0));
    }
    variant.constants.extend([
        ("KV_LO", tile_elements(desc, t.block_k)),
        ("CHUNKS", SPLIT_CHUNKS),
    ]);
    let slots = desc.batch as u64 * (desc.q_heads as u64 + 2 * desc.kv_heads as u64);
    let slots = u32::try_from(slots)
        .map_err(|_| Error::limit("split maxima slots", slots, "u32", u32::MAX as u64))?;
    let maxima_bytes = slots as u64 * SPLIT_CHUNKS as u64 * 4;
    // The maxima pass, then the kernel (with the keys split: its split pass and the reduce
    // pass, the maxima after the partial results in the scratch, wgsl/split_maxima.wgsl).
    let mut scales = Dispatch {
        variant: ShaderVariant::new(
            KernelEntry::SplitScales,
            desc.dtype,
            vec![("WG", SPLIT_SCALES_THREADS), ("CHUNKS", SPLIT_CHUNKS)],
        ),
        workgroups: [SPLIT_CHUNKS, slots, 1],
        head_base: 0,
        head_count: desc.batch * desc.q_heads,
        splits: None,
    };
    crate::planner::check_grid(caps, scales.variant.entry.name(), scales.workgroups)?;
    let (kernel, partial_bytes) = if t.kv_splits > 1 {
        scales.splits = Some((t.kv_splits, t.split_len));
        crate::kernels::kv_split_passes(
            caps,
            desc,
            variant,
            KernelEntry::FusedCoopSplitKv,
            t.block_q,
            (t.kv_splits, t.split_len),
        )?
    } else {
        (per_query_block(caps, desc, variant, t.block_q)?, 0)
    };
    let scratch = crate::kernels::vector::check_scratch(
        caps,
        "split f32 scratch bytes",
        partial_bytes + maxima_bytes,
    )?;
    let mut dispatches = vec![scales];
    dispatches.extend(kernel);
    Ok((dispatches, scratch))
}

/// `t` with `n` KV splits forced (at most one per tile of keys; 1: none).
pub fn force_kv_splits(desc: &AttentionDesc, t: CoopTiles, n: u32) -> Result<CoopTiles> {
    let (kv_splits, split_len) = crate::kernels::forced_kv_splits(desc, n, t.block_k)?;
    Ok(CoopTiles {
        kv_splits,
        split_len,
        ..t
    })
}

/// `(kv_splits, split_len)` for `desc` with these blocks of `threads` threads
/// (`crate::kernels::fused_kv_splits`, aimed at `crate::kernels::kv_split_target`). Knob
/// `coop_kv_splits` forces the number (0 or 1: none).
fn kv_splits(
    caps: &Capabilities,
    desc: &AttentionDesc,
    (block_q, block_k): (u32, u32),
    threads: u32,
) -> (u32, u32) {
    let target = crate::kernels::kv_split_target(threads, desc.kv_len);
    crate::kernels::fused_kv_splits(caps, desc, (block_q, block_k), target, "coop_kv_splits")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_queries_against_long_caches_split_the_keys() {
        use crate::planner::{plan, Kernel, PlanOptions};
        let nvidia = Capabilities::nvidia_vulkan();
        let desc = AttentionDesc::new(1, 32, 8, 128, 16384, 128).with_dtype(DType::F16);
        let p = plan(&nvidia, &desc, &PlanOptions::default()).unwrap();
        let Kernel::FusedCoop(t) = p.kernel() else {
            panic!("{p}")
        };
        crate::kernels::assert_kv_split_plan(
            &p,
            &desc,
            KernelEntry::FusedCoopKv,
            (t.block_q, t.block_k),
            (t.kv_splits, t.split_len),
        );
        // Enough query blocks: no split.
        let long = AttentionDesc::new(1, 32, 8, 4096, 16384, 128).with_dtype(DType::F16);
        assert_eq!(fit_tiles(&nvidia, &long, None).unwrap().kv_splits, 1);
        // f32 (split onto f16 fragments): the maxima pass, then the split kernel and the reduce
        // pass; forced splits too.
        let f32 = AttentionDesc::new(1, 32, 8, 256, 16384, 128);
        let p = plan(&nvidia, &f32, &PlanOptions::default()).unwrap();
        let Kernel::FusedCoop(t) = p.kernel() else {
            panic!("{p}")
        };
        assert!(t.split, "{p}");
        crate::kernels::assert_kv_split_plan(
            &p,
            &f32,
            KernelEntry::FusedCoopSplitKv,
            (t.block_q, t.block_k),
            (t.kv_splits, t.split_len),
        );
        let forced = force_kv_splits(&f32, t, 3).unwrap();
        assert_eq!(forced.kv_splits, 3);
        let (passes, _) = super::plan(&nvidia, &f32, &forced).unwrap();
        assert_eq!(passes[0].splits, Some((3, forced.split_len)), "{passes:?}");
        // Forced: ragged splits cover the keys, tile-aligned.
        let t = fit_tiles(&nvidia, &desc, None).unwrap();
        let forced = force_kv_splits(&desc, t, 5).unwrap();
        assert_eq!(forced.kv_splits, 5);
        assert!(forced.split_len.is_multiple_of(t.block_k));
    }

    #[test]
    fn without_subgroup_barriers_the_portable_kernel_runs_and_says_why() {
        // An adapter with fragments listed but without `SUBGROUP` + `SUBGROUP_BARRIER` on the
        // device, or whose subgroup barriers would not order workgroup memory (a Vulkan device
        // without `PASSTHROUGH_SHADERS`): the kernel syncs each subgroup's softmax with them.
        for caps in [
            Capabilities {
                subgroups: false,
                ..Capabilities::nvidia_vulkan()
            },
            Capabilities {
                subgroup_sync: false,
                ..Capabilities::nvidia_vulkan()
            },
        ] {
            without(&caps);
        }
    }

    /// The plans on `caps`, whose subgroups do not serve the cooperative kernel.
    fn without(caps: &Capabilities) {
        use crate::planner::{plan, Kernel, PlanOptions};
        assert!(!native(caps, DType::F16) && runnable(caps, DType::F32).is_none());
        let desc = AttentionDesc::new(1, 8, 8, 256, 256, 64).with_dtype(DType::F16);
        let e = fit_tiles(caps, &desc, None).unwrap_err();
        assert!(e.to_string().contains("subgroup barriers"), "{e}");
        let p = plan(caps, &desc, &PlanOptions::default()).unwrap();
        assert!(matches!(p.kernel(), Kernel::Fused(_)), "{p}");
        assert!(p.reason().contains("subgroup barriers"), "{p}");
        // Required: an error naming the reason on the fused path (Auto falls back to unfused,
        // saying why).
        let forced = PlanOptions {
            path: crate::planner::Path::Fused,
            cooperative: Some(true),
            ..PlanOptions::default()
        };
        let e = plan(caps, &desc, &forced).unwrap_err();
        assert!(e.to_string().contains("subgroup barriers"), "{e}");
    }

    #[test]
    fn fragment_comes_from_the_list_only() {
        let nvidia = Capabilities::nvidia_vulkan();
        assert_eq!(listed_fragment(&nvidia, DType::F16), Some(16));
        // The H200 lists no f32 inputs: no cooperative f32 kernel there.
        assert_eq!(listed_fragment(&nvidia, DType::F32), None);
        let apple = Capabilities::apple_m_series();
        assert_eq!(listed_fragment(&apple, DType::F16), Some(8));
        assert_eq!(listed_fragment(&apple, DType::F32), Some(8));
        assert_eq!(listed_fragment(&Capabilities::lavapipe(), DType::F16), None);
    }

    #[test]
    fn q_is_staged_in_parts_of_its_head_dims_where_the_block_needs_it() {
        if tuned() {
            return;
        }
        // d128 in 128 x 32 blocks: the 8704-element K/V tile holds 128 rows of 32 dims (+ 8) of
        // Q, not of 64; d64 rows of 32 dims, as 128 rows of 64 would pass 48 KB by 32 bytes.
        let nvidia = Capabilities::nvidia_vulkan();
        for (d, parts) in [(128, 4), (64, 2)] {
            let desc = AttentionDesc::new(1, 32, 32, 4096, 4096, d).with_dtype(DType::F16);
            let t = fit_tiles(&nvidia, &desc, None).unwrap();
            assert_eq!((t.block_q, t.block_k, t.q_parts), (128, 32, parts), "{t:?}");
        }
        let d64 = AttentionDesc::new(1, 32, 32, 4096, 4096, 64).with_dtype(DType::F16);
        assert_eq!(
            fit_tiles(&Capabilities::apple_m_series(), &d64, None)
                .unwrap()
                .q_parts,
            1
        );
    }

    #[test]
    fn f32_goes_split_onto_f16_fragments_where_only_f16_is_listed() {
        let nvidia = Capabilities::nvidia_vulkan();
        assert_eq!(fragment_for(&nvidia, DType::F32), Some((16, true)));
        assert_eq!(fragment_for(&nvidia, DType::F16), Some((16, false)));
        assert_eq!(
            fragment_for(&Capabilities::apple_m_series(), DType::F32),
            Some((8, false))
        );
        let mut no_f16 = nvidia.clone();
        no_f16.shader_f16 = false;
        assert_eq!(fragment_for(&no_f16, DType::F32), None);
        // The measured tiles (BENCHMARKS.md), each within the H200's 48 KiB.
        for (d, block_q) in [(64, 64), (80, 64), (128, 128)] {
            let desc = AttentionDesc::new(1, 32, 32, 4096, 4096, d);
            let t = fit_tiles(&nvidia, &desc, None).unwrap();
            assert!(t.split && t.word_staging, "{t:?}");
            assert_eq!((t.block_q, t.block_k), (block_q, 16), "d{d}: {t:?}");
            assert!(t.workgroup_bytes <= nvidia.max_workgroup_storage_bytes);
            let (dispatches, scratch) = plan(&nvidia, &desc, &t).unwrap();
            assert_eq!(dispatches.len(), 2);
            assert_eq!(dispatches[0].workgroups, [SPLIT_CHUNKS, 96, 1]);
            assert_eq!(scratch, 96 * SPLIT_CHUNKS as u64 * 4);
        }
        assert!(split_too_short(&AttentionDesc::new(
            1, 32, 32, 256, 256, 64
        )));
        assert!(!split_too_short(&AttentionDesc::new(
            1, 32, 32, 512, 512, 64
        )));
        // Chunked prefill: past the 32 rows the decode and portable kernels take, the split
        // (its keys split too) from 512 x 512 positions.
        assert!(split_too_short(&AttentionDesc::new(
            1, 32, 32, 32, 16384, 64
        )));
        assert!(!split_too_short(&AttentionDesc::new(
            1, 32, 32, 33, 16384, 64
        )));
        assert!(split_too_short(&AttentionDesc::new(
            1, 32, 32, 64, 4095, 64
        )));
    }

    /// `split_part` of wgsl/fused_coop.wgsl: hi keeps f16's 11 leading bits of the f32, lo is
    /// the rest rounded to f16.
    fn split(x: f32) -> (half::f16, half::f16) {
        let hi = f32::from_bits(x.to_bits() & 0xffff_e000);
        (half::f16::from_f32(hi), half::f16::from_f32(x - hi))
    }

    /// `exponent_for` of wgsl/coop_split_f32.wgsl: 2^e takes `m` into [2^14, 2^15).
    fn exponent_for(m: f32) -> i32 {
        if !(m > 0.0 && m.is_finite()) {
            return 0;
        }
        (15 - (m.log2().floor() as i32 + 1)).min(60)
    }

    /// The split's numerics, emulated: per-vector power-of-two factors, hi and lo parts in f16,
    /// the three products a_hi b_hi + a_hi b_lo + a_lo b_hi exact (as tensor cores form them)
    /// and summed in f32, the factors taken out again. Against the exact dot product, over
    /// values spanning 2^-20..2^20 and a wide range of per-head scales: within 2^-19 of the sum
    /// of |a_i b_i| (f32 itself reaches about 2^-24 per step), where hi parts alone miss by
    /// about 2^-12.
    #[test]
    fn split_products_keep_f32_accuracy() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut worst_split = 0f64;
        let mut worst_hi = 0f64;
        for trial in 0..400 {
            let scale = 2f32.powi(rng.gen_range(-40..40));
            let mut draw = || {
                let mag = 2f32.powf(rng.gen_range(-20.0..20.0));
                let sign = if rng.gen_bool(0.5) { -1.0 } else { 1.0 };
                sign * mag * scale
            };
            let a: Vec<f32> = (0..128).map(|_| draw()).collect();
            let b: Vec<f32> = (0..128).map(|_| draw()).collect();
            let max = |v: &[f32]| v.iter().fold(0f32, |m, x| m.max(x.abs()));
            let (ea, eb) = (exponent_for(max(&a)), exponent_for(max(&b)));
            let (fa, fb) = (2f32.powi(ea), 2f32.powi(eb));
            let (mut split_sum, mut hi_sum) = (0f32, 0f32);
            for (&x, &y) in a.iter().zip(&b) {
                let (xh, xl) = split(x * fa);
                let (yh, yl) = split(y * fb);
                let (xh, xl, yh, yl) = (xh.to_f64(), xl.to_f64(), yh.to_f64(), yl.to_f64());
                split_sum += (xl * yh) as f32;
                split_sum += (xh * yl) as f32;
                split_sum += (xh * yh) as f32;
                hi_sum += (xh * yh) as f32;
            }
            let unscale = 2f64.powi(-(ea + eb));
            let exact: f64 = a.iter().zip(&b).map(|(&x, &y)| x as f64 * y as f64).sum();
            let size: f64 = a
                .iter()
                .zip(&b)
                .map(|(&x, &y)| (x as f64 * y as f64).abs())
                .sum();
            let err = |s: f32| (s as f64 * unscale - exact).abs() / size;
            worst_split = worst_split.max(err(split_sum));
            worst_hi = worst_hi.max(err(hi_sum));
            assert!(
                err(split_sum) <= 2f64.powi(-19),
                "trial {trial}: split error {:e} of the sum of |a_i b_i|",
                err(split_sum)
            );
        }
        println!("worst relative error: split {worst_split:e}, hi parts only {worst_hi:e}");
        assert!(worst_hi > 2f64.powi(-14), "hi parts alone: {worst_hi:e}");
    }

    /// Whether tuning knobs are set, which change the plans the tests below check (it says so).
    fn tuned() -> bool {
        let tuned = std::env::var_os("WGPU_SDPA_TUNE").is_some();
        if tuned {
            eprintln!("skipped: WGPU_SDPA_TUNE changes the plans this test checks");
        }
        tuned
    }

    /// The NVIDIA profile's tiles for B = 1, 32 heads, L = 4096, head dim `d`, and the variant of
    /// the kernel's dispatch (the last: these plans split no keys).
    fn nvidia_4096(d: u32, dtype: DType, mask: crate::desc::Mask) -> (CoopTiles, ShaderVariant) {
        let nvidia = Capabilities::nvidia_vulkan();
        let desc = AttentionDesc::new(1, 32, 32, 4096, 4096, d)
            .with_dtype(dtype)
            .with_mask(mask);
        let t = fit_tiles(&nvidia, &desc, None).unwrap();
        let (dispatches, _) = plan(&nvidia, &desc, &t).unwrap();
        (t, dispatches.last().unwrap().variant.clone())
    }

    #[test]
    fn score_rows_are_padded_where_it_was_measured_to_pay() {
        if tuned() {
            return;
        }
        use crate::desc::{CausalAlignment, Mask};
        let nvidia = Capabilities::nvidia_vulkan();
        let tiles = |d: u32, dtype: DType, mask: Mask| {
            let (t, kernel) = nvidia_4096(d, dtype, mask);
            // The bytes the planner counts are those of the WGSL arrays, as naga lays them out
            // for the planned kernel.
            let naga_bytes = crate::spirv::variant_workgroup_bytes(&kernel).unwrap();
            assert_eq!(t.workgroup_bytes, naga_bytes, "{t:?}");
            assert!(t.workgroup_bytes <= nvidia.max_workgroup_storage_bytes);
            (t.block_q, t.s_pad)
        };
        let causal = Mask::Causal(CausalAlignment::BottomRight);
        // 16x16 f16 blocks of 8 subgroups: rows of BK + 8 floats (d128 then needs 48160 of the
        // 49152 bytes), with a causal mask too.
        assert_eq!(tiles(128, DType::F16, Mask::None), (128, 8));
        assert_eq!(tiles(80, DType::F16, Mask::None), (128, 8));
        assert_eq!(tiles(64, DType::F16, Mask::None), (128, 8));
        assert_eq!(tiles(32, DType::F16, Mask::None), (128, 8));
        assert_eq!(tiles(64, DType::F16, causal), (128, 8));
        // ... but short problems whose 128-row blocks would make too few workgroups keep 64.
        let d64 = |heads: (u32, u32), q: u32, k: u32| {
            let desc = AttentionDesc::new(1, heads.0, heads.1, q, k, 64).with_dtype(DType::F16);
            let t = fit_tiles(&nvidia, &desc, None).unwrap();
            (t.block_q, t.kv_splits)
        };
        assert_eq!(d64((32, 32), 256, 256), (64, 1));
        assert_eq!(d64((32, 8), 256, 512), (64, 1));
        assert_eq!(d64((32, 32), 512, 512), (128, 1));
        assert_eq!(d64((32, 8), 256, 4096), (128, 2));
        assert_eq!(tiles(128, DType::F16, causal), (128, 8));
        // f32 split onto f16 fragments: padded at every block.
        assert_eq!(tiles(64, DType::F32, Mask::None), (64, 8));
        assert_eq!(tiles(128, DType::F32, Mask::None), (128, 8));
        // 8x8 fragments (Apple) keep BK + 4, and d64 its 4-subgroup blocks.
        let apple = Capabilities::apple_m_series();
        let desc = AttentionDesc::new(1, 32, 32, 4096, 4096, 64).with_dtype(DType::F16);
        let t = fit_tiles(&apple, &desc, None).unwrap();
        assert_eq!((t.frag, t.s_pad), (8, 4), "{t:?}");
        assert_eq!(t.block_q, 4 * 8, "{t:?}");
    }

    #[test]
    fn loop_options_follow_the_measurements() {
        if tuned() {
            return;
        }
        use crate::desc::{CausalAlignment, Mask};
        let constants = |d: u32, dtype: DType, mask: Mask| {
            let (_, kernel) = nvidia_4096(d, dtype, mask);
            let get = |name: &str| {
                kernel
                    .constants
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|&(_, v)| v)
                    .unwrap()
            };
            assert_eq!(get("ENDSG"), 1 - get("PIPE"), "ENDSG");
            (get("PIPE"), get("RFLAG"), get("PLAIN"), get("ZCONST"))
        };
        let causal = Mask::Causal(CausalAlignment::BottomRight);
        // (PIPE, RFLAG, PLAIN, ZCONST): the rescale atomic stays up to d80 and wherever the
        // pipelined loop reads it; plain tiles skip their checks without a mask, and causal in
        // 128-row blocks; the constant zero accumulator for f16 at d128 only.
        assert_eq!(constants(64, DType::F16, Mask::None), (0, 1, 1, 0));
        assert_eq!(constants(80, DType::F16, Mask::None), (0, 1, 1, 0));
        assert_eq!(constants(112, DType::F16, Mask::None), (0, 1, 1, 0));
        assert_eq!(constants(128, DType::F16, Mask::None), (0, 0, 1, 1));
        assert_eq!(constants(64, DType::F16, causal), (0, 1, 1, 0));
        assert_eq!(constants(128, DType::F16, causal), (0, 0, 1, 1));
        assert_eq!(constants(128, DType::F32, Mask::None), (1, 1, 1, 0));
    }

    #[test]
    fn q_parts_divide_the_head_dims() {
        if tuned() {
            return;
        }
        let nvidia = Capabilities::nvidia_vulkan();
        for d in [48, 64, 80, 96, 112, 128] {
            let desc = AttentionDesc::new(1, 32, 32, 4096, 4096, d).with_dtype(DType::F16);
            for warps in 1..=8 {
                let Ok(t) = fit_tiles(&nvidia, &desc, Some((warps * 16, 32))) else {
                    continue;
                };
                assert!((d / t.frag).is_multiple_of(t.q_parts), "d{d}: {t:?}");
                assert!(t.workgroup_bytes <= nvidia.max_workgroup_storage_bytes);
            }
        }
        // 7 subgroups at d128: 112 rows of 64 dims (+ 8) fit beside the tiles.
        let d128 = AttentionDesc::new(1, 32, 32, 4096, 4096, 128).with_dtype(DType::F16);
        let t = fit_tiles(&nvidia, &d128, Some((112, 32))).unwrap();
        assert_eq!((t.block_q, t.q_parts), (112, 2), "{t:?}");
    }

    #[test]
    fn tiles_fit_the_profiles() {
        for (caps, dtype) in [
            (Capabilities::nvidia_vulkan(), DType::F16),
            (Capabilities::apple_m_series(), DType::F16),
            (Capabilities::apple_m_series(), DType::F32),
        ] {
            for d in [16, 32, 48, 64, 80, 96, 112, 128]
                .into_iter()
                .filter(|d| d % 16 == 0 || caps.backend == wgpu::Backend::Metal)
            {
                let frag = listed_fragment(&caps, dtype).unwrap();
                if d > MAX_COOP_FRAGS * frag {
                    continue;
                }
                let desc = AttentionDesc::new(1, 8, 8, 256, 256, d).with_dtype(dtype);
                let t = fit_tiles(&caps, &desc, None).unwrap();
                assert!(
                    t.workgroup_bytes <= caps.max_workgroup_storage_bytes,
                    "{t:?}"
                );
                assert_eq!(t.block_q, t.frag * t.workgroup_size / t.subgroup_size);
            }
        }
    }
}
