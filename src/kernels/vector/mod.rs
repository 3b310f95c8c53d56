//! The decode family (`wgsl/vector.wgsl`, `wgsl/vector_reduce.wgsl`): short queries (q_len <= 32;
//! `Path::Auto` takes it for q_len <= 8, and up to 32 against long enough caches where the
//! cooperative kernel does not run the dtype: chunked prefill, speculative decoding), the query
//! heads of a GQA group sharing every K/V load, the keys split over workgroups (flash-decoding)
//! when one workgroup per KV head would leave the GPU idle, and a second pass combining the
//! splits (which the cooperative kernel's KV splits also use). Where the adapter lists 16x16 f16
//! fragments, f16 queries against caches of up to [`MATRIX_MAX_KV_LEN`] keys run both products on
//! cooperative matrices instead (`wgsl/vector_coop.wgsl`, [`matrix_takes`]), and more than 4 query
//! vectors a KV head against long caches on them with each subgroup streaming its own keys
//! (`wgsl/vector_coop_teams.wgsl`, [`coop_teams_take`]).
//!
//! One file per kernel of the family, each the host side of its shader: `portable.rs`
//! (`wgsl/vector.wgsl`, the f32-math kernel), `subgroup.rs` (`wgsl/vector_subgroup.wgsl`),
//! `matrix.rs` (`wgsl/vector_coop.wgsl`) and `coop_teams.rs` (`wgsl/vector_coop_teams.wgsl`);
//! `splits.rs` what they share of the keys split over workgroups (how many splits, the in-pass
//! merge `wgsl/split_merge_in_pass.wgsl`, the reduce pass `wgsl/vector_reduce.wgsl`). Here:
//! which queries `Path::Auto` gives the family, [`VectorTiles`], [`fit_tiles`] (which kernel
//! takes a description) and [`plan`] (its dispatches).

mod coop_teams;
mod matrix;
mod portable;
mod splits;
mod subgroup;

pub use coop_teams::{coop_teams_rule, coop_teams_serve, coop_teams_take, COOP_TEAMS_MIN_KV_LEN};
pub use matrix::{matrix_serves, matrix_takes, MATRIX_MAX_KV_LEN};
pub use splits::{
    arrival_counters, merges_in_pass, merges_in_pass_by_default, partial_bytes, scratch_bytes,
    IN_PASS_PARTS_MAX_KEYS,
};
pub(crate) use splits::{check_scratch, reduce_dispatch};
pub use subgroup::{
    clamps_v_rows, loads_ahead, reads_whole_lines, scatters_scores, stages_half_queries,
    team_serves, team_takes, wide_teams, wide_teams_kv_len, TEAMS, WIDE_TEAMS,
};

use crate::capabilities::Capabilities;
use crate::desc::{AttentionDesc, Tensor};
use crate::error::{Error, Result};
use crate::kernels::{kv_in_16_byte_words, Dispatch};
use crate::planner::check_grid;
use coop_teams::{coop_team_tiles, coop_team_variant};
use matrix::{matrix_tiles, matrix_variant};
use portable::{portable_tiles, portable_variant};
use splits::{groups_per_head, MERGE_FLAG_BYTES};
use subgroup::{subgroup_variant, team_tiles};

/// The longest query the decode kernel serves (one workgroup holds at most 32 query
/// vectors; longer queries would only add workgroups that each read the whole cache again).
pub const MAX_Q_LEN: u32 = MAX_ROWS;

/// `Path::Auto` takes the decode kernel for every query up to this length.
pub const AUTO_Q_LEN: u32 = 8;

/// Query vectors one workgroup holds at most (registers: 4 query vectors of 8 output columns per
/// thread, in blocks spread over the threads).
const MAX_ROWS: u32 = 32;

/// For queries longer than [`AUTO_Q_LEN`] (up to [`MAX_Q_LEN`]), the shortest cache `Path::Auto`
/// takes the decode kernel for, where the cooperative-matrix kernel does not take the dtype
/// itself: measured on the H200 (BENCHMARKS.md, "Short queries against long caches"), 32/32 and
/// 32/8 heads, d64 and d128, q_len 9, 16 and 32. f32 (the portable kernel there): from 128 keys
/// the decode kernel beat both the portable fused kernel and the unfused path at every row
/// (1.0-6.7x the better of them; 17-18x the fused kernel at q_len 9 against 16384 keys); below,
/// the fused kernel was up to 20% faster. (Those were the portable kernel's plans before it split
/// the keys; since, it takes f32 queries past 16 rows against long caches: see
/// [`portable_split_takes`].) f16 against the cooperative kernel before it split the
/// keys: from 512 keys 0.93-3.3x, below up to 30% slower; with the keys split the cooperative
/// kernel is the faster one (0.127 ms for 64 query rows, d64, 16384 keys, where the decode kernel
/// took 0.238 for 16 rows), so the decode kernel takes f16 past q_len 8 only without it.
pub fn auto_min_kv_len(dtype: crate::desc::DType) -> u32 {
    match dtype {
        crate::desc::DType::F32 => 128,
        crate::desc::DType::F16 => 512,
    }
}

/// Whether `Path::Auto` takes the decode kernel for `desc` on an adapter with `caps`: every query
/// up to [`AUTO_Q_LEN`] rows; up to [`MAX_Q_LEN`] against [`auto_min_kv_len`] keys or more where
/// the cooperative-matrix kernel does not run the dtype on its own fragments (none listed, or f32
/// split onto f16 ones).
pub fn auto_takes(caps: &Capabilities, desc: &AttentionDesc) -> bool {
    desc.q_len <= AUTO_Q_LEN
        || (short_query_long_cache(desc) && !crate::kernels::fused_coop::native(caps, desc.dtype))
}

/// f32 queries longer than this many rows (up to [`MAX_Q_LEN`]) against at least
/// [`PORTABLE_SPLIT_MIN_KV_LEN`] keys go to the portable fused kernel with its keys split, where
/// it splits them (see [`portable_split_takes`]).
pub const PORTABLE_SPLIT_AFTER_Q_LEN: u32 = 16;

/// See [`PORTABLE_SPLIT_AFTER_Q_LEN`].
pub const PORTABLE_SPLIT_MIN_KV_LEN: u32 = 4096;

/// Whether `Path::Auto` tries a short f32 query against a long cache that [`auto_takes`] on the
/// portable fused kernel with its keys split over workgroups before the decode kernel (unless
/// the options pin the fused kernel's variant or staging): more than
/// [`PORTABLE_SPLIT_AFTER_Q_LEN`] rows against [`PORTABLE_SPLIT_MIN_KV_LEN`] keys or more. The
/// planner takes that kernel where its plan splits the keys (GPU adapters whose query blocks
/// leave the GPU idle), else the decode kernel. Measured
/// on the H200, f32, d64 and d128, 32/8 and 32/32 heads (BENCHMARKS.md, "Short queries against
/// long caches"): from 20 rows and 4096 keys the split portable kernel was 1.2-2.1x faster than
/// the decode kernel (q_len 32 against 16384 keys, d128: 0.496 against 1.042 ms); up to 16 rows
/// the decode kernel was 1.3-3.7x faster at every length, and below 4096 keys as fast or faster.
pub fn portable_split_takes(caps: &Capabilities, desc: &AttentionDesc) -> bool {
    desc.dtype == crate::desc::DType::F32
        && desc.q_len > PORTABLE_SPLIT_AFTER_Q_LEN
        && desc.q_len <= MAX_Q_LEN
        && desc.kv_len >= PORTABLE_SPLIT_MIN_KV_LEN
        && !crate::kernels::fused_coop::native(caps, desc.dtype)
}

/// A query of `AUTO_Q_LEN + 1 ..= MAX_Q_LEN` rows against at least [`auto_min_kv_len`] keys:
/// where `Path::Auto` takes the decode kernel, or the cooperative kernel (keys split) where that
/// runs the dtype on its own fragments.
pub fn short_query_long_cache(desc: &AttentionDesc) -> bool {
    desc.q_len > AUTO_Q_LEN && desc.q_len <= MAX_Q_LEN && desc.kv_len >= auto_min_kv_len(desc.dtype)
}

/// Tiles and splits of the decode kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VectorTiles {
    /// Query vectors (GQA heads x query rows) per workgroup.
    pub rows: u32,
    /// Keys per tile (`workgroup_size / lanes_per_key`).
    pub block_k: u32,
    /// Threads per workgroup.
    pub workgroup_size: u32,
    /// KV splits (1: no second pass).
    pub kv_splits: u32,
    /// Keys per split.
    pub split_len: u32,
    /// Workgroup memory, bytes.
    pub workgroup_bytes: u32,
    /// Threads reading one K row in the score step (each reads at most 4 chunks of 8 elements).
    pub lanes_per_key: u32,
    /// Key groups of the P V step: threads owning the same output columns and query vectors,
    /// each adding P V over every `key_groups`-th key of a tile (P against the workgroup's
    /// running max).
    pub key_groups: u32,
    /// Output vec4s each thread merges per pass at the end (1, 2, 4 or 8: 8 / this passes).
    pub merge_vec4s: u32,
    /// The first V rows of a tile loaded at its start, with its K (GPUs), rather than after the
    /// scores (CPU adapters: knob `decode_vearly` sets it).
    pub early_v: bool,
    /// K and V chunks read as whole 16-byte `vec4<u32>` loads (every offset and stride of K and
    /// V a multiple of 16 bytes); otherwise assembled from 32-bit words.
    pub vectorized: bool,
    /// Both products on cooperative matrices (`wgsl/vector_coop.wgsl`): `rows` query vectors
    /// in one 16-row fragment block; `lanes_per_key`, `key_groups`, `merge_vec4s` and `early_v`
    /// do not apply.
    pub matrix: bool,
    /// Loads a tile ahead. The portable kernel (`PF` of `wgsl/vector.wgsl`) loads the next
    /// tile's K chunks during this one: f16 K in 16-byte words on GPUs, head dims 128/128, at
    /// most 4 query vectors a workgroup (H200, BENCHMARKS.md twelfth session: 3-5% faster from
    /// 32768 keys, the same at 16384; d64 and more query vectors a workgroup were not faster, or
    /// took more registers). The subgroup kernel (`PF` of `wgsl/vector_subgroup.wgsl`) asks for
    /// each block's K and V loads a block ahead: see [`loads_ahead`].
    pub k_ahead: bool,
    /// Lanes per team of the subgroup kernel (`wgsl/vector_subgroup.wgsl`: each subgroup takes
    /// its own blocks of keys, no barrier in the loop), the adapter's fixed subgroup size; 0 for
    /// the other kernels. See [`team_serves`].
    pub team: u32,
    /// The subgroup kernel's lanes of a key split its 4 scores (`SCAT`: one a lane through
    /// masking, softmax and the sums of P). See [`scatters_scores`].
    pub scattered: bool,
    /// The subgroup kernel reads K's rows 8 lanes a row, each load instruction whole 128-byte
    /// lines (`KL`, `full_lines` in the shader). See [`reads_whole_lines`].
    pub whole_lines: bool,
    /// The subgroup kernel reads V's rows past the split's end as its last key's (their P is 0)
    /// rather than loading zeros under a predicate (`VC` in the shader). See [`clamps_v_rows`].
    pub clamped_v: bool,
    /// The subgroup kernel stages the queries as f16 rather than f32 (`QH` in the shader). See
    /// [`stages_half_queries`].
    pub half_queries: bool,
    /// The subgroup kernel's last split to finish for a query group merges the splits
    /// (`wgsl/split_merge_in_pass.wgsl`): one dispatch, no reduce pass. See [`merges_in_pass`].
    pub merged: bool,
    /// Parts of the columns the subgroup kernel merges its teams' outputs in (`OS_PARTS`, 1 or
    /// 2: half the workgroup memory for one more barrier; 2 where one would pass 24 KB, see
    /// `team_output_parts`); 1 for the other kernels.
    pub output_parts: u32,
}

impl VectorTiles {
    /// Tiles of `rows` query vectors a workgroup, `block_k` keys a tile, `workgroup_size`
    /// threads, the splits and the workgroup memory given, with every kernel's own choices off
    /// (word-assembled loads, no lanes or key groups, one output part): the base each decode
    /// kernel's planner fills in.
    pub(super) fn base(
        rows: u32,
        block_k: u32,
        workgroup_size: u32,
        (kv_splits, split_len): (u32, u32),
        workgroup_bytes: u32,
    ) -> Self {
        VectorTiles {
            rows,
            block_k,
            workgroup_size,
            kv_splits,
            split_len,
            workgroup_bytes,
            lanes_per_key: 0,
            key_groups: 0,
            merge_vec4s: 0,
            early_v: false,
            vectorized: false,
            matrix: false,
            k_ahead: false,
            team: 0,
            scattered: false,
            whole_lines: false,
            clamped_v: false,
            half_queries: false,
            merged: false,
            output_parts: 1,
        }
    }

    /// These tiles with the splits merged by the split pass's last split to finish, where
    /// [`merges_in_pass`] allows it; otherwise unchanged (the reduce pass merges them).
    pub fn with_in_pass_merge(self, caps: &Capabilities, desc: &AttentionDesc) -> Self {
        if self.merged || !merges_in_pass(caps, desc, &self) {
            return self;
        }
        VectorTiles {
            merged: true,
            workgroup_bytes: self.workgroup_bytes + MERGE_FLAG_BYTES,
            ..self
        }
    }

    /// The keys a split is a whole number of: the subgroup kernel's team block (one team's keys
    /// at a time), the other decode kernels' tile.
    pub fn split_grain(&self) -> u32 {
        self.workgroup_size
            .checked_div(self.team)
            .map_or(self.block_k, |teams| self.block_k / teams)
    }
}

/// Tiles and splits for `desc`, or why the decode kernel cannot serve it. `splits` forces the
/// number of KV splits (at most one per tile of keys).
///
/// Tuning knobs (`WGPU_SDPA_TUNE`, see `crate::tune`): `decode_vec=0` forces the word-assembled
/// loads on aligned layouts, `decode_cpl` (1, 2 or 4) caps the K chunks per thread (more threads
/// per key row, smaller tiles), `decode_wg` (64..=1024, a power of two) sets the threads per
/// workgroup, `decode_wgs` sets the workgroups the splits aim for, `decode_merge` (1, 2, 4 or 8)
/// caps the output vec4s each thread merges per pass at the end, `decode_pf` (0 or 1) sets
/// [`VectorTiles::k_ahead`]; `decode_coop` (see
/// [`MATRIX_MAX_KV_LEN`]) and `decode_sb_pad=N` (N more floats of the matrix kernel's score
/// array: the workgroup-memory sweep) for the cooperative-matrix kernel; `decode_sg=0` (never
/// the subgroup kernel, see [`team_takes`]), `decode_teams` (2, 4, 8 or 16 subgroups a
/// workgroup), `decode_grain=0` (splits of whole workgroup strides, not team blocks) and
/// `decode_scat` (0 or 1, see [`scatters_scores`]), `decode_os_parts` (1 or 2: its teams'
/// outputs merged in one part or two halves of the columns, see `team_output_parts`),
/// `decode_kl=0` (K's rows never read 8 lanes a row in whole lines, see [`reads_whole_lines`]),
/// `decode_vc` (0 or 1: V's rows past a split's end clamped, see [`clamps_v_rows`]),
/// `decode_qh` (0 or 1: the queries staged as f16, see [`stages_half_queries`]), `decode_sg_pf`
/// (0 or 1: each block's loads a block ahead, see [`loads_ahead`]) and `decode_in_pass` (0 or
/// 1: its splits merged by the reduce pass or in pass where
/// [`merges_in_pass`] allows it, see [`merges_in_pass_by_default`]; `decode_merge_ablate` sets
/// the profiling bits of `MERGE_ABLATE` in `wgsl/vector_subgroup.wgsl`) for the subgroup kernel;
/// `decode_ct` (0 or 1, see [`coop_teams_take`]), `decode_teams` (its subgroups a workgroup, 1
/// to 16 where they fit) and `decode_ct_ahead=0` (each block's K and V rows asked for at its
/// start, not a block ahead: on the H200 20% slower at 131072 keys, run 152) for the
/// cooperative-matrix subgroup kernel; for all, `decode_short=0` (short caches split as longer
/// ones: splits of at least 256 keys, not a workgroup a compute unit of at least 64, see
/// `key_splits_for`) and `decode_min_split` (the fewest keys a split takes, 256).
pub fn fit_tiles(
    caps: &Capabilities,
    desc: &AttentionDesc,
    splits: Option<u32>,
) -> Result<VectorTiles> {
    if desc.q_len > MAX_Q_LEN {
        return Err(Error::invalid(
            "q_len",
            desc.q_len,
            format!("the decode kernel serves q_len <= {MAX_Q_LEN}"),
        ));
    }
    // K and V are bound as `array<vec4<u32>>`: every 32-bit word the kernel reads must lie in a
    // whole vec4 of the binding, which holds when the bytes they need, rounded up to words, are
    // a multiple of 16 (always with 16-byte aligned offsets and strides: head dims are multiples
    // of 8).
    for t in [Tensor::K, Tensor::V] {
        let bytes = desc.required_bytes(t).next_multiple_of(4);
        if !bytes.is_multiple_of(16) {
            return Err(Error::invalid(
                t.name(),
                bytes,
                "the decode kernel needs the bytes K and V span (rounded up to 4) to be a \
                 multiple of 16",
            ));
        }
    }
    if coop_teams_take(caps, desc) {
        return coop_team_tiles(caps, desc, splits);
    }
    if team_takes(caps, desc) {
        return team_tiles(caps, desc, splits);
    }
    if matrix_takes(caps, desc) {
        return matrix_tiles(caps, desc, splits);
    }
    portable_tiles(caps, desc, splits)
}

/// Whether the decode kernels read K and V chunks as whole 16-byte words
/// ([`VectorTiles::vectorized`]): where the layout allows it, unless knob `decode_vec=0`.
fn word_loads(desc: &AttentionDesc) -> bool {
    kv_in_16_byte_words(desc) && crate::tune::knob("decode_vec") != Some(0)
}

/// The dispatches (the split pass, and the reduce pass when there are several splits) and the
/// scratch size.
///
/// Knob `decode_ablate` (profiling, wrong results) removes parts to time the rest: 1 the reduce
/// pass, 2 the reduce pass's work (it returns at once), 8 its output stores, 16 its loads, 4 the
/// KV tiles, 32 the K and V loads (zeros instead), 64 the query loads (zeros; not the
/// cooperative-matrix kernel), 128 the K and V loads' misses (every load from the first 2 KiB of
/// K or V: the arithmetic stays; the subgroup and portable kernels), 256 the P V step (the
/// subgroup kernel); the cooperative-matrix subgroup kernel takes 128 (every block reads the
/// first 16 keys), 1024 (no softmax) and 2048 (O never rescaled). On the H200 (32/8 heads, d128,
/// kv 16384, 41 us a call) they showed the fixed costs: 6 us a call with neither (one dispatch
/// staging the queries and writing (max, sum)), 13 us without the tiles, the reduce pass 5 us
/// (benches/results/h200-2026-11-30b-sweeps); 16 us with everything but the loads (twelfth
/// session, sweep 3), against 38-39 with them. The subgroup kernel (thirteenth session,
/// benches/results/h200-2026-12-01-sweeps): 30 us without the reduce pass against 34.4 with it
/// at 16384 keys, 31.1 with the pass returning at once (2), 13 us without the loads; in the
/// twentieth session (run 58) the query loads cost ~0.2 us a call at 16384 keys (64).
pub fn plan(
    caps: &Capabilities,
    desc: &AttentionDesc,
    t: &VectorTiles,
) -> Result<(Vec<Dispatch>, u64)> {
    let scratch = check_scratch(caps, "decode split scratch bytes", scratch_bytes(desc, t))?;
    let heads = desc.batch * desc.q_heads;
    let groups = groups_per_head(desc, t.rows);
    // Profiling only (wrong results): 1 no reduce pass; the split pass's bits, 4 no KV tiles,
    // 32 no K/V loads, 64 no query loads, 128 K/V loads from their first 2 KiB (cache hits) and
    // 256 no P V (the subgroup kernel).
    let ablate = crate::tune::knob("decode_ablate").unwrap_or(0);
    let split_ablate = ablate & (4 | 32 | 64 | 128 | 256);
    // The cooperative-matrix subgroup kernel's own (`wgsl/vector_coop_teams.wgsl`).
    let team_ablate = ablate & (128 | 1024 | 2048);
    let split_pass = if t.matrix && t.team > 0 {
        coop_team_variant(desc, t, team_ablate)
    } else if t.matrix {
        matrix_variant(desc, t, split_ablate)
    } else if t.team > 0 {
        subgroup_variant(desc, t, split_ablate)
    } else {
        portable_variant(desc, t, split_ablate)
    };
    let mut dispatches = vec![Dispatch {
        variant: split_pass,
        workgroups: [t.kv_splits, desc.kv_heads * groups, desc.batch],
        head_base: 0,
        head_count: heads,
        splits: Some((t.kv_splits, t.split_len)),
    }];
    if t.kv_splits > 1 && !t.merged && ablate & 1 == 0 {
        let mut reduce = reduce_dispatch(caps, desc, t.kv_splits, t.split_len)?;
        if ablate & (2 | 8 | 16) != 0 {
            reduce
                .variant
                .constants
                .push(("ABLATE", ablate & (2 | 8 | 16)));
        }
        dispatches.push(reduce);
    }
    for d in &dispatches {
        check_grid(caps, d.variant.entry.name(), d.workgroups)?;
    }
    Ok((dispatches, scratch))
}

#[cfg(test)]
mod tests;
