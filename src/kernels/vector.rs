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

use crate::capabilities::Capabilities;
use crate::desc::{AttentionDesc, Tensor};
use crate::error::{Error, Result};
use crate::kernels::unfused::grid_2d;
use crate::kernels::{kv_in_16_byte_words, Dispatch};
use crate::planner::{check_grid, mask_kind};
use crate::shader::{CoopHeader, KernelEntry, ShaderVariant};

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

/// The fewest keys worth a split of their own (knob `decode_min_split` overrides it).
const MIN_SPLIT_KEYS: u32 = 256;

/// The fewest keys a decode split takes where the caches are short (see [`key_splits_for`]).
const SHORT_SPLIT_KEYS: u32 = 64;

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

/// The shape of a decode workgroup that sizes its reduction array: what [`red_slots`] needs of
/// [`VectorTiles`] before the splits are chosen.
#[derive(Debug, Clone, Copy)]
struct ReductionShape {
    rows: u32,
    block_k: u32,
    workgroup_size: u32,
    lanes_per_key: u32,
    key_groups: u32,
    merge_vec4s: u32,
}

impl From<&VectorTiles> for ReductionShape {
    fn from(t: &VectorTiles) -> Self {
        ReductionShape {
            rows: t.rows,
            block_k: t.block_k,
            workgroup_size: t.workgroup_size,
            lanes_per_key: t.lanes_per_key,
            key_groups: t.key_groups,
            merge_vec4s: t.merge_vec4s,
        }
    }
}

/// `wgsl/vector.wgsl`'s `RED`: f32 slots of its reduction array (step 1's partial dot products,
/// the key groups' sums, their outputs `merge` vec4s at a time).
fn red_slots(t: ReductionShape) -> u32 {
    (t.lanes_per_key * t.rows * t.block_k)
        .max(4 * t.key_groups * t.rows.div_ceil(4))
        .max(4 * t.workgroup_size * t.merge_vec4s)
}

/// Workgroup memory the decode kernel grows into to merge its outputs in fewer passes (more
/// would cost workgroups per core on GPUs with little of it). H200, 32/8 heads, d128, f16, µs a
/// call at kv 256 / 4096 / 16384 / 32768 / 131072, by vec4s merged per pass: 1 (7.4 KB) 15 / 20 /
/// 40 / 60 / 177; 2 (11.5 KB) 14 / 19 / 40 / 60 / 180; 4 (19.7 KB, taken) 14 / 19 / 38 / 58 /
/// 176; 8 (36 KB, 147 registers instead of 128) 13 / 18 / 47 / 76 / 235.
const MERGE_BUDGET_BYTES: u32 = 20 * 1024;

/// `q_s`, `red_s`, `p_s`, `s_s`, `m_s`, `tmax_s`, `flag_s` and `fin_s` of `wgsl/vector.wgsl`.
fn workgroup_bytes(desc: &AttentionDesc, rows: u32, block_k: u32, red: u32) -> u32 {
    let blocks = rows.div_ceil(4);
    rows * desc.head_dim * 4
        + red * 4
        + 2 * block_k * blocks * 16
        + 2 * blocks * 16
        + 8 * blocks * 4
        + 2 * 4
        + 64 * 4
}

/// Workgroups the splits aim for: enough to keep every compute unit of a GPU busy, few on a CPU.
/// Knob `decode_wgs` overrides it (GPU sweeps).
fn target_workgroups(caps: &Capabilities) -> u32 {
    if let Some(n) = crate::tune::knob("decode_wgs") {
        return n.max(1);
    }
    match caps.device_type {
        wgpu::DeviceType::Cpu => 4,
        wgpu::DeviceType::IntegratedGpu => 128,
        // Two per compute unit of the H200 (132 SMs): measured best of 132..2112 at kv_len >=
        // 16384 (BENCHMARKS.md; 2112 and 1056 left K/V reads in too many short splits).
        _ => 264,
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
    use crate::tune::knob;
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
    let workgroup_size = knob("decode_wg")
        .filter(|w| w.is_power_of_two() && (64..=1024).contains(w))
        .unwrap_or(256)
        .min(caps.max_workgroup_threads());
    let d8 = desc.head_dim / 8;
    let dv8 = desc.v_head_dim / 8;
    if workgroup_size < dv8 {
        return Err(Error::invalid(
            "v_head_dim",
            desc.v_head_dim,
            format!("the decode kernel needs v_head_dim / 8 <= {workgroup_size} threads"),
        ));
    }
    let chunks_per_lane = knob("decode_cpl")
        .filter(|c| [1, 2, 4].contains(c))
        .unwrap_or(4);
    let lanes_per_key = d8.div_ceil(chunks_per_lane).min(workgroup_size);
    let block_k = workgroup_size / lanes_per_key;
    // At most 4 query vectors per thread of a key group (8 output columns each); also at most 4
    // per v_head_dim / 4 threads, the bound the kernel before this one had (tests check it).
    let max_rows = MAX_ROWS.min(4 * (workgroup_size / (dv8 * 2)));
    // The most query vectors per workgroup (each K/V load serves them all) that fit the
    // workgroup memory; fewer where it is small.
    let all_rows = (desc.group_size() * desc.q_len).min(max_rows);
    // The key groups and workgroup bytes of `rows` query vectors merged `merge_vec4s` at a time.
    let shape = |rows: u32, merge_vec4s: u32| {
        let key_groups = workgroup_size / (dv8 * rows.div_ceil(4));
        let red = red_slots(ReductionShape {
            rows,
            block_k,
            workgroup_size,
            lanes_per_key,
            key_groups,
            merge_vec4s,
        });
        (key_groups, workgroup_bytes(desc, rows, block_k, red))
    };
    let rows = std::iter::successors(Some(all_rows), |&r| (r > 1).then_some(r / 2))
        .find(|&rows| shape(rows, 1).1 <= caps.max_workgroup_storage_bytes)
        .ok_or_else(|| {
            Error::limit(
                "decode kernel workgroup memory",
                shape(1, 1).1 as u64,
                "max_compute_workgroup_storage_size",
                caps.max_workgroup_storage_bytes as u64,
            )
        })?;
    // The fewest merge passes within the budget (knob `decode_merge`: 1, 2, 4 or 8 vec4s a pass,
    // within the adapter's limit).
    let budget = match knob("decode_merge") {
        Some(_) => caps.max_workgroup_storage_bytes,
        None => MERGE_BUDGET_BYTES.min(caps.max_workgroup_storage_bytes),
    };
    let merge_vec4s = [8, 4, 2, 1]
        .into_iter()
        .filter(|&mv| knob("decode_merge").is_none_or(|k| mv <= k))
        .find(|&mv| mv == 1 || shape(rows, mv).1 <= budget)
        .unwrap_or(1);
    let (key_groups, bytes) = shape(rows, merge_vec4s);
    let (kv_splits, split_len) = key_splits_for(caps, desc, rows, block_k, splits)?;
    let early_v =
        knob("decode_vearly").map_or(caps.device_type != wgpu::DeviceType::Cpu, |v| v == 1);
    let vectorized = word_loads(desc);
    let k_ahead = knob("decode_pf").map_or(
        desc.dtype == crate::desc::DType::F16
            && vectorized
            && early_v
            && rows <= 4
            && desc.head_dim == 128
            && desc.v_head_dim == 128,
        |v| v == 1,
    );
    Ok(VectorTiles {
        rows,
        block_k,
        workgroup_size,
        kv_splits,
        split_len,
        workgroup_bytes: bytes,
        lanes_per_key,
        key_groups,
        merge_vec4s,
        early_v,
        vectorized,
        matrix: false,
        k_ahead,
        team: 0,
        scattered: false,
        whole_lines: false,
        clamped_v: false,
        half_queries: false,
        merged: false,
        output_parts: 1,
    })
}

/// Whether the decode kernels read K and V chunks as whole 16-byte words
/// ([`VectorTiles::vectorized`]): where the layout allows it, unless knob `decode_vec=0`.
fn word_loads(desc: &AttentionDesc) -> bool {
    kv_in_16_byte_words(desc) && crate::tune::knob("decode_vec") != Some(0)
}

/// Teams (subgroups) per workgroup of the subgroup decode kernel.
pub const TEAMS: u32 = 8;

/// The subgroup decode kernel's shape for `desc` with teams of `team` lanes: (lanes per K row,
/// keys per team block), or `None` where its lane layout does not fit (every lane reads at most
/// 4 chunks of a K row, the lanes of a row a power of two; the team covers the V row's chunks
/// rounded up to a power of two, [`team_v_lanes`], each lane at most 4 keys a block). Head dims
/// whose chunks are no power of two (d80, d96, d112, d192 ...) leave some lanes of a row
/// without chunks: on the H200 (BENCHMARKS.md, thirty-fifth session, run 169; f16, 4 copies of
/// K and V, us a call in one pass at 1024 / 4096 / 16384 / 65536 keys) 1.1-1.8x as fast as the
/// f32-math kernel (`wgsl/vector.wgsl`) that served them before: d96 with 32/32 heads 9.2 /
/// 18.5 / 54.7 / 193.6 against 16.8 / 30.5 / 84.4 / 294.3 (PyTorch's kernels 8.9 / 18.4 / 53.5 /
/// 194.0), d192 with 32/8 heads 8.8 / 18.9 / 43.0 / 140.4 against 13.3 / 31.2 / 65.5 / 216.9
/// (PyTorch's 8.7 / 19.7 / 47.2 / 153.8); the least gain d112 with 32/32 heads (1.10x at 65536).
fn team_shape(desc: &AttentionDesc, team: u32) -> Option<(u32, u32)> {
    let d8 = desc.head_dim / 8;
    let lanes_per_key = d8.div_ceil(4).next_power_of_two();
    let v_lanes = team_v_lanes(desc);
    if team == 0 || !team.is_multiple_of(lanes_per_key) || v_lanes > team {
        return None;
    }
    let keys = team / lanes_per_key;
    (keys <= 4 * (team / v_lanes)).then_some((lanes_per_key, keys))
}

/// Lanes of the subgroup decode kernel that take a V row's chunks of 8 (`VL` in
/// `wgsl/vector_subgroup.wgsl`): the chunks rounded up to a power of two.
fn team_v_lanes(desc: &AttentionDesc) -> u32 {
    (desc.v_head_dim / 8).next_power_of_two()
}

/// Workgroup memory of the subgroup decode kernel: the 4 query vectors (f32, or f16 where
/// `half_queries`, with one unused vec4 of the other array), the teams' outputs (merged in
/// `parts` parts of the columns), maxima and sums. The f32 queries' is the most it takes.
fn team_workgroup_bytes(desc: &AttentionDesc, teams: u32, parts: u32, half_queries: bool) -> u32 {
    let queries = if half_queries {
        desc.head_dim * 8
    } else {
        desc.head_dim * 16
    };
    queries + 16 + teams * desc.v_head_dim * 16 / parts + 2 * teams * 16
}

/// Workgroup memory the subgroup decode kernel keeps within where halving its teams' outputs
/// can: on the H200 its 256-thread workgroups ran two to an SM at 18.7 KB (d128) and one at
/// 37 KB (d256, 136 registers); in two parts of the columns (20.7 KB, 128 registers) d256 read
/// 2292 against 2022 GB/s at 16384 keys and 3059 against 2755 at 131072, while d128 in two
/// parts was 6-11% slower (BENCHMARKS.md, eighteenth session).
const TEAM_OCCUPANCY_BYTES: u32 = 24 * 1024;

/// Parts of the columns the subgroup kernel with `teams` teams merges its teams' outputs in
/// ([`VectorTiles::output_parts`]): 2 where one part would take more than
/// [`TEAM_OCCUPANCY_BYTES`] (37 KB at d256 with 8 teams), else 1. Knob `decode_os_parts` (1 or
/// 2) forces it.
fn team_output_parts(desc: &AttentionDesc, teams: u32) -> u32 {
    match crate::tune::knob("decode_os_parts") {
        Some(n @ (1 | 2)) => n,
        _ if team_workgroup_bytes(desc, teams, 1, false) > TEAM_OCCUPANCY_BYTES => 2,
        _ => 1,
    }
}

/// Whether `teams` teams of `team` lanes make a workgroup within the adapter's invocation,
/// workgroup-size and workgroup-memory limits for `desc` (with its outputs in
/// [`team_output_parts`] parts).
fn teams_fit(caps: &Capabilities, desc: &AttentionDesc, teams: u32, team: u32) -> bool {
    let parts = team_output_parts(desc, teams);
    caps.fits_workgroup(
        teams * team,
        team_workgroup_bytes(desc, teams, parts, false),
    )
}

/// Whether the subgroup decode kernel (`wgsl/vector_subgroup.wgsl`) serves `desc` on an adapter
/// with `caps`: subgroups of one fixed size (8 to 64 lanes) with shuffles (workgroups of at
/// most 4 query vectors: a KV head with more takes several, each reading its K and V), a lane
/// layout that fits (every lane reads at most 4 chunks of a K row; the team covers a V row, each
/// lane at most 4 keys a block), within the workgroup memory and invocation limits.
pub fn team_serves(caps: &Capabilities, desc: &AttentionDesc) -> bool {
    let team = caps.subgroup_min_size;
    caps.subgroups
        && team == caps.subgroup_max_size
        && (8..=64).contains(&team)
        && team_shape(desc, team).is_some()
        && teams_fit(caps, desc, TEAMS, team)
}

/// Whether the decode kernel takes the subgroup kernel for `desc`: wherever it serves (knob
/// `decode_sg=0`: never), but for 5 to 8 query vectors a KV head where the cooperative-matrix
/// decode kernel takes them (it reads K and V once for all 8). On the H200 (BENCHMARKS.md,
/// thirteenth session) it was the fastest decode kernel for 1 to 4 query vectors at every
/// length, 1.2-2.4x faster for 16 and 32, and for 8 against 16384 keys and more 1.16-1.3x faster
/// with 4 query heads a KV head by 8 and 0.96-1.27x as fast as the f32-math kernel with 2 query
/// rows of 4 heads; with the splits within one wave (fifteenth session) 2 query rows of 32/8
/// heads took 266 us at 131072 keys, against the f32-math kernel's 334 (measured with the second
/// wave the splits then left it).
pub fn team_takes(caps: &Capabilities, desc: &AttentionDesc) -> bool {
    let vectors = desc.group_size() * desc.q_len;
    crate::tune::knob("decode_sg") != Some(0)
        && team_serves(caps, desc)
        && !((5..=8).contains(&vectors) && matrix_takes(caps, desc))
}

/// Whether the subgroup kernel's lanes of a key split its 4 scores between them (a
/// reduce-scatter by shuffles, then masking, softmax and the sums of P one value a lane instead
/// of 4), for `rows` query vectors a workgroup and `lanes_per_key` lanes a K row: for 4 query
/// vectors of f16 with at least 4 lanes a key. On the H200 (BENCHMARKS.md, sixteenth session,
/// 16384 / 131072 keys) it was 3.7 / 4.3% faster at d256 for 32/8 heads, 5 / 5.6% for 2 query
/// rows, 3 / 5% for 16/2 heads, 0.5% at d128; but slower with 1 query vector a workgroup (MHA:
/// 8% at d128, 27% at d256: 3 of a key's 4 lanes then hold nothing) and for f32 (7% at d256).
/// Knob `decode_scat=0`: never; `=1`: wherever the lanes allow it (profiling).
pub fn scatters_scores(desc: &AttentionDesc, rows: u32, lanes_per_key: u32) -> bool {
    match crate::tune::knob("decode_scat") {
        Some(0) => false,
        Some(_) => lanes_per_key >= 4,
        None => lanes_per_key >= 4 && rows == 4 && desc.dtype == crate::desc::DType::F16,
    }
}

/// Whether the subgroup kernel reads K's rows 8 lanes a row over each block's two halves of 4
/// keys, so that each of its load instructions reads 4 rows' whole 128-byte lines where 4 lanes
/// a row read 8 rows' halves (`full_lines` in `wgsl/vector_subgroup.wgsl`): with scattered scores
/// (`scattered`), 4 lanes a K row of 32-lane teams (8 keys a block) and head dims of 128 for K
/// and V. On the H200 (BENCHMARKS.md, twenty-third session, run 85; 32/8 heads, f16) 0.5-2%
/// faster from 1024 to 131072 keys, the same at 32768: the shape of a load instruction mattered
/// there (V's rows read in half lines were 5-7% slower). Knob `decode_kl=0`: never.
pub fn reads_whole_lines(
    desc: &AttentionDesc,
    team: u32,
    lanes_per_key: u32,
    scattered: bool,
) -> bool {
    crate::tune::knob("decode_kl") != Some(0)
        && scattered
        && team == 32
        && lanes_per_key == 4
        && desc.head_dim == 128
        && desc.v_head_dim == 128
}

/// Workgroup strides of keys a split takes at most where [`clamps_v_rows`] clamps V's rows.
const CLAMP_V_STRIDES: u32 = 8;

/// Whether the subgroup kernel with splits of `split_len` keys and workgroup strides of
/// `block_k` reads V's rows past the split's end as its last key's (their P is 0) instead of
/// loading zeros under a predicate (`VC` in `wgsl/vector_subgroup.wgsl`; correct for every
/// shape): where K's rows are read in whole lines (see [`reads_whole_lines`]) and a split is at
/// most `CLAMP_V_STRIDES` (8) strides. The loads are the same; the compiled code is not. On the
/// H200 (BENCHMARKS.md, twenty-fourth session, runs 87-94; 32/8 heads, d128, f16, calls
/// interleaved) 0-1.4% faster at 16384 keys (33 splits of 504 keys, 8 strides; run 91
/// 2149-2169 GB/s against 2123-2136, run 94 the same median), 0.6-2% at 1024 and 4096; forced
/// on for longer splits (runs 87 and 90) it was 0.3 / 0.9 / 1% slower at 32768 / 65536 /
/// 131072 keys (16 to 62 strides). Knob `decode_vc` (0 or 1): never, or wherever the subgroup
/// kernel runs.
pub fn clamps_v_rows(whole_lines: bool, split_len: u32, block_k: u32) -> bool {
    match crate::tune::knob("decode_vc") {
        Some(n) => n == 1,
        None => whole_lines && split_len <= CLAMP_V_STRIDES * block_k,
    }
}

/// Workgroup strides of keys a split takes at most where [`stages_half_queries`] stages the
/// queries as f16.
const HALF_Q_STRIDES: u32 = 4;

/// Whether the subgroup kernel with splits of `split_len` keys and workgroup strides of
/// `block_k` stages the queries as f16 rather than f32 (`QH` in `wgsl/vector_subgroup.wgsl`;
/// exact: the queries are f16): for f16 at head dim 128 where a split is at most
/// `HALF_Q_STRIDES` (4) strides. Half the workgroup memory for the queries and a shorter staging
/// before the loop, but a conversion per query element in every block's scores. On the H200
/// (BENCHMARKS.md, twenty-fifth session, runs 102-103; calls interleaved), 32/8 heads at d128:
/// 3% faster at 256 keys (one split), 1.3-1.6% at 1024-4096 and 6.8% at 8192 (splits of 256
/// keys, 4 strides); 32/32 heads with 4 query rows and batch 4 2.6% faster at 256 and 1024 keys,
/// the same at 4096; forced on for longer splits 1.3% slower at 16384 keys (504, 8 strides) and
/// 1.7-2% from 32768; at d64 3-6% slower at every length (256-16384 keys), so not there; d256
/// takes it nowhere measured. Knob `decode_qh` (0 or 1): never, or wherever the subgroup kernel
/// runs f16.
pub fn stages_half_queries(desc: &AttentionDesc, split_len: u32, block_k: u32) -> bool {
    let f16 = desc.dtype.size_bytes() == 2;
    match crate::tune::knob("decode_qh") {
        Some(n) => f16 && n == 1,
        None => f16 && desc.head_dim == 128 && split_len <= HALF_Q_STRIDES * block_k,
    }
}

/// Workgroup strides of keys a split takes at least (more than) where [`loads_ahead`] asks for
/// each block's loads a block ahead.
const AHEAD_STRIDES: u32 = 8;

/// Whether the subgroup kernel with splits of `split_len` keys and workgroup strides of
/// `block_k` asks for each block's K and V loads a block ahead, before the work of the block
/// before (`PF` in `wgsl/vector_subgroup.wgsl`): for f16 at head dims 128/128 where a split is
/// more than `AHEAD_STRIDES` (8) strides. On the H200 (BENCHMARKS.md, thirty-second session,
/// runs 141-143; 4 copies of K and V, calls in one pass) 128 registers against 126, two
/// workgroups an SM still: 32/8 heads 2.4-2.7 / 3.9 / 4.4% faster at 32768 / 65536 / 131072
/// keys (splits of 1000-3976 keys), 64/8 heads 2.5-7.7% from 16384 keys, 32/32 heads 1.2-2.3%
/// from 16384; slower for shorter splits (32/8 heads at 1024-2048 keys 4-6%, and by the
/// per-call clock 5% at 8192-16384: the loads past a team's last block wait at its end), at d64
/// (10-30% from 8192 keys) and d256 (up to 5%), and for f32 (2-18%). Knob `decode_sg_pf` (0 or
/// 1): never, or wherever the subgroup kernel runs.
pub fn loads_ahead(desc: &AttentionDesc, split_len: u32, block_k: u32) -> bool {
    match crate::tune::knob("decode_sg_pf") {
        Some(n) => n == 1,
        None => {
            desc.dtype.size_bytes() == 2
                && desc.head_dim == 128
                && desc.v_head_dim == 128
                && split_len > AHEAD_STRIDES * block_k
        }
    }
}

/// Teams a workgroup of the subgroup decode kernel where [`wide_teams`] takes them.
pub const WIDE_TEAMS: u32 = 16;

/// The caches (keys) for which [`wide_teams`] takes [`WIDE_TEAMS`] teams a workgroup: where the
/// H200 ran them faster in one pass and no slower with a compute pass a call (BENCHMARKS.md,
/// thirty-fifth session, runs 166-167), 4096 to 8192 keys for f16 and 8192 to 32768 for f32.
pub fn wide_teams_kv_len(dtype: crate::desc::DType) -> std::ops::RangeInclusive<u32> {
    match dtype {
        crate::desc::DType::F16 => 4096..=8192,
        crate::desc::DType::F32 => 8192..=32768,
    }
}

/// Whether the subgroup decode kernel runs [`WIDE_TEAMS`] (16) teams a workgroup, its teams'
/// outputs in one part, and its splits aiming for one workgroup a compute unit (half as many,
/// each twice as long, as with [`TEAMS`]): on discrete GPUs through Vulkan with `@coherent`
/// storage (the splits merged in pass, see [`merges_in_pass`]), at head dims 128/128, 4 query
/// vectors a workgroup, for caches of [`wide_teams_kv_len`] keys, where the workgroup fits the
/// adapter's limits and the query groups are few enough that [`TEAMS`] teams would take at least
/// 32 splits a group (their merge in pass then takes 5 rounds of a thread's loads where 16
/// teams with half the splits take 1).
///
/// On the H200 (BENCHMARKS.md, thirty-fifth session, runs 164-166; 4 copies of K and V, both
/// 128 registers, one workgroup an SM with 16 teams and two with 8), 32/8 heads at d128 f16 in
/// one pass took 11.2 / 15.6 / 24.3 / 38.9 us at 4096 / 8192 / 16384 / 32768 keys against 11.7
/// / 15.8 / 24.9 / 39.4 with 8 teams (run 166); but with a compute pass a call (as
/// `Attention::encode` records, timed per call or back to back) 16 teams were 1-2% faster at
/// 4096 and 8192 keys and 1-3% slower at 16384 and 32768 (not understood). f32 was faster by
/// every clock at 8192 to 32768 keys (2-5%), the same at 4096. At 131072 keys 16 splits a group
/// leave 4 of 132 SMs idle (3% slower on one machine), at 2048 slower (8.1 us against 7.4 with
/// 16 splits of 128 keys). Slower with more query groups (64/16 heads, batch 2: 3-5% from 32768
/// keys; batch 4: 2-6%), with one query vector a workgroup (8/8 heads: 5% at 4096 and 8192
/// keys), at d64 at 4096 keys. Knob `decode_wide` (0 or 1): never, or wherever the workgroup
/// fits.
pub fn wide_teams(caps: &Capabilities, desc: &AttentionDesc) -> bool {
    let team = caps.subgroup_min_size;
    // One part of the outputs, and the in-pass merge's flag.
    let bytes = team_workgroup_bytes(desc, WIDE_TEAMS, 1, false) + MERGE_FLAG_BYTES;
    let fits = caps.fits_workgroup(WIDE_TEAMS * team, bytes);
    let rows = team_rows(desc);
    match crate::tune::knob("decode_wide") {
        Some(n) => fits && n == 1,
        None => {
            fits && caps.device_type == wgpu::DeviceType::DiscreteGpu
                && caps.backend == wgpu::Backend::Vulkan
                && caps.coherent_storage
                && desc.head_dim == 128
                && desc.v_head_dim == 128
                && rows == 4
                && wide_teams_kv_len(desc.dtype).contains(&desc.kv_len)
                && target_workgroups(caps) / query_groups(desc, rows).max(1) >= 32
        }
    }
}

/// Tiles and splits of the subgroup decode kernel (see [`team_serves`]): [`TEAMS`] teams a
/// workgroup, or [`WIDE_TEAMS`] where [`wide_teams`] takes them.
fn team_tiles(
    caps: &Capabilities,
    desc: &AttentionDesc,
    splits: Option<u32>,
) -> Result<VectorTiles> {
    let team = caps.subgroup_min_size;
    let (lanes_per_key, keys) = team_shape(desc, team).expect("team_serves checked the shape");
    let rows = team_rows(desc);
    let wide = wide_teams(caps, desc);
    let teams = crate::tune::knob("decode_teams")
        .filter(|&n| [2, 4, 8, 16].contains(&n) && teams_fit(caps, desc, n, team))
        .unwrap_or(if wide { WIDE_TEAMS } else { TEAMS });
    // (Knob `decode_teams` may ask for other teams where the rule takes 16: then as with 8.)
    let wide = wide && teams == WIDE_TEAMS;
    let block_k = teams * keys;
    // Splits of whole team blocks, not whole workgroup strides (a split's last stride may leave
    // some teams a block short): on the H200 33 splits of 504 keys at 16384 filled every slot
    // of two workgroups an SM where 32 of 512 left 8 empty, 2.7% faster (BENCHMARKS.md,
    // fifteenth session). Knob `decode_grain=0`: whole strides.
    let grain = if crate::tune::knob("decode_grain") == Some(0) {
        block_k
    } else {
        keys
    };
    let target = if wide {
        unit_workgroups(caps)
    } else {
        target_workgroups(caps)
    };
    let (kv_splits, split_len) = key_splits_aiming(desc, rows, grain, splits, target)?;
    let scattered = scatters_scores(desc, rows, lanes_per_key);
    let whole_lines = reads_whole_lines(desc, team, lanes_per_key, scattered);
    let clamped_v = clamps_v_rows(whole_lines, split_len, block_k);
    let half_queries = stages_half_queries(desc, split_len, block_k);
    let output_parts = if wide {
        1
    } else {
        team_output_parts(desc, teams)
    };
    Ok(VectorTiles {
        rows,
        block_k,
        workgroup_size: teams * team,
        kv_splits,
        split_len,
        workgroup_bytes: team_workgroup_bytes(desc, teams, output_parts, half_queries),
        lanes_per_key,
        key_groups: 0,
        merge_vec4s: 0,
        early_v: false,
        vectorized: word_loads(desc),
        matrix: false,
        k_ahead: loads_ahead(desc, split_len, block_k),
        team,
        scattered,
        whole_lines,
        clamped_v,
        half_queries,
        merged: false,
        output_parts,
    })
}

/// Workgroup memory `wgsl/split_merge_in_pass.wgsl` adds: a flag (its threads' parts reuse the
/// teams' outputs).
const MERGE_FLAG_BYTES: u32 = 4;

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

/// Query groups a KV head's query vectors (its GQA group times `q_len`) make, `rows` a workgroup.
fn groups_per_head(desc: &AttentionDesc, rows: u32) -> u32 {
    (desc.group_size() * desc.q_len).div_ceil(rows)
}

/// Query groups of the whole call (batch x KV heads x [`groups_per_head`]): the workgroups of
/// one split.
fn query_groups(desc: &AttentionDesc, rows: u32) -> u32 {
    desc.batch * desc.kv_heads * groups_per_head(desc, rows)
}

/// Query vectors a workgroup of the subgroup decode kernel: at most 4 (a KV head with more
/// takes several workgroups).
fn team_rows(desc: &AttentionDesc) -> u32 {
    (desc.group_size() * desc.q_len).min(4)
}

/// The arrival counters (u32, zeros between calls) of a plan whose split pass merges its own
/// splits: one per query group (batch, KV head, group of query vectors); 0 otherwise.
pub fn arrival_counters(desc: &AttentionDesc, t: &VectorTiles) -> u64 {
    if !t.merged {
        return 0;
    }
    desc.batch as u64 * desc.kv_heads as u64 * groups_per_head(desc, t.rows) as u64
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
fn key_splits_for(
    caps: &Capabilities,
    desc: &AttentionDesc,
    rows: u32,
    block_k: u32,
    splits: Option<u32>,
) -> Result<(u32, u32)> {
    key_splits_aiming(desc, rows, block_k, splits, target_workgroups(caps))
}

/// [`key_splits_for`] with the splits aiming for `target` workgroups.
fn key_splits_aiming(
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

/// Fragment size of the cooperative-matrix decode kernel (16x16x16 f16, f32 accumulators).
const MATRIX_FRAG: u32 = 16;
/// Elements of padding per staged row of K and V (16 bytes of f16).
const MATRIX_PAD: u32 = 8;

/// Workgroup memory the cooperative-matrix decode kernel stays within: on the H200 a
/// workgroup of more than 32 KB ran one to an SM (sweep 9 of
/// benches/results/h200-2026-11-30l-sweeps: d64, 16384 keys, 23 us at 15.4 KB, 37 us padded to
/// 33.9 or 46 KB).
const MATRIX_BUDGET_BYTES: u32 = 31 * 1024;

/// The cooperative-matrix decode kernel's shape (`wgsl/vector_coop.wgsl`): one subgroup of 32
/// per O fragment, 16 softmax threads a row with 4 keys each.
#[derive(Debug, Clone, Copy)]
struct MatrixShape {
    subgroups: u32,
    threads: u32,
    /// Keys per tile.
    keys: u32,
}

impl MatrixShape {
    fn new(desc: &AttentionDesc) -> Self {
        let subgroups = desc.v_head_dim / MATRIX_FRAG;
        MatrixShape {
            subgroups,
            threads: 32 * subgroups,
            keys: 8 * subgroups,
        }
    }

    /// `QR`: rows of Q the kernel keeps (8 where it serves at most 8 query vectors, else 16).
    fn q_rows(&self, desc: &AttentionDesc) -> u32 {
        if desc.group_size() * desc.q_len <= 8 {
            8
        } else {
            MATRIX_FRAG
        }
    }

    /// `KVO`: where the K/V tile starts in `kv_s`, after Q's rows.
    fn kv_offset(&self, desc: &AttentionDesc) -> u32 {
        self.q_rows(desc) * (desc.head_dim + MATRIX_PAD)
    }

    /// `KVE`: f16 elements of `kv_s`: Q's rows, then the tile's K or V (they take turns).
    fn kv_elems(&self, desc: &AttentionDesc) -> u32 {
        self.kv_offset(desc) + self.keys * (desc.head_dim.max(desc.v_head_dim) + MATRIX_PAD)
    }

    /// `SB`: floats of the score array (the scores of each half of the head dims, or each
    /// subgroup's O fragment for a rescale or the output).
    fn score_elems(&self) -> u32 {
        (2 * MATRIX_FRAG * (self.keys + 4)).max(self.subgroups * MATRIX_FRAG * MATRIX_FRAG)
            + crate::tune::knob("decode_sb_pad").unwrap_or(0)
    }

    /// Workgroup memory, bytes: Q and the K/V buffer, the scores, P, the rows' factors and
    /// statistics.
    fn workgroup_bytes(&self, desc: &AttentionDesc) -> u32 {
        2 * self.kv_elems(desc)
            + 4 * self.score_elems()
            + 2 * MATRIX_FRAG * (self.keys + MATRIX_PAD)
            + 4 * MATRIX_FRAG
            + 16 * MATRIX_FRAG
    }
}

/// The longest cache `Path::Auto`'s decode kernel takes cooperative matrices for (knob
/// `decode_coop=1` takes them at every length, `=0` never). H200, f16, 32/8 heads, q_len 1
/// (sweep 13 of benches/results/h200-2026-11-30l-sweeps, µs): d128 at 256 / 1024 / 4096 keys
/// 11.4 / 15.0 / 15.9 against the f32 vector kernel's 13.5 / 17.4 / 18.0, at 16384 keys 42.7
/// against 38.3 (131072: 202 against 177); d64 at 4096 14.9 against 15.3, at 16384 23.0 against
/// 21.5. The matrix kernel keeps a tile of K and one of V in flight per workgroup, which long
/// caches need more of than it has (BENCHMARKS.md).
pub const MATRIX_MAX_KV_LEN: u32 = 4096;

/// Whether the decode kernel takes cooperative matrices for `desc`: where they serve it
/// ([`matrix_serves`]) against at most [`MATRIX_MAX_KV_LEN`] keys (knob `decode_coop`).
pub fn matrix_takes(caps: &Capabilities, desc: &AttentionDesc) -> bool {
    match crate::tune::knob("decode_coop") {
        Some(0) => false,
        Some(1) => matrix_serves(caps, desc),
        _ => desc.kv_len <= MATRIX_MAX_KV_LEN && matrix_serves(caps, desc),
    }
}

/// Whether the cooperative-matrix decode kernel serves `desc` on an adapter with `caps`: f16
/// on listed 16x16 f16 fragments with 32-wide subgroups, K and V in 16-byte words, head dims 64,
/// 96 or 128 (the kernel takes any multiple of 32 up to 128: each subgroup takes half of Q's
/// fragments), value head dims 64 or 128 (a subgroup per O fragment) and no larger than the
/// head dim (the pairs run on the H200: d64, d96/dv64, d128, d128/dv64), within the workgroup
/// memory.
pub fn matrix_serves(caps: &Capabilities, desc: &AttentionDesc) -> bool {
    desc.dtype == crate::desc::DType::F16
        && crate::kernels::fused_coop::runnable(caps, desc.dtype) == Some((MATRIX_FRAG, false))
        && caps.subgroup_min_size == 32
        && kv_in_16_byte_words(desc)
        && [64, 96, 128].contains(&desc.head_dim)
        && [64, 128].contains(&desc.v_head_dim)
        && desc.v_head_dim <= desc.head_dim
        && 2 * desc.v_head_dim <= caps.max_workgroup_threads()
        && MatrixShape::new(desc).workgroup_bytes(desc)
            <= MATRIX_BUDGET_BYTES.min(caps.max_workgroup_storage_bytes)
}

/// Tiles and splits of the cooperative-matrix decode kernel (see [`matrix_serves`]).
fn matrix_tiles(
    caps: &Capabilities,
    desc: &AttentionDesc,
    splits: Option<u32>,
) -> Result<VectorTiles> {
    let shape = MatrixShape::new(desc);
    let (threads, keys) = (shape.threads, shape.keys);
    let rows = (desc.group_size() * desc.q_len).min(MATRIX_FRAG);
    let splits = key_splits_for(caps, desc, rows, keys, splits)?;
    Ok(fragment_tiles(
        rows,
        keys,
        threads,
        splits,
        shape.workgroup_bytes(desc),
    ))
}

/// Tiles of the decode kernels on fragments for `rows` query vectors a workgroup, tiles or
/// workgroup strides of `block_k` keys, `(kv_splits, split_len)`, and the workgroup's threads and
/// bytes; `team` 0 (the cooperative-matrix subgroup kernel sets it), none of the other decode
/// kernels' choices.
fn fragment_tiles(
    rows: u32,
    block_k: u32,
    workgroup_size: u32,
    (kv_splits, split_len): (u32, u32),
    workgroup_bytes: u32,
) -> VectorTiles {
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
        vectorized: true,
        matrix: true,
        team: 0,
        scattered: false,
        whole_lines: false,
        clamped_v: false,
        half_queries: false,
        merged: false,
        output_parts: 1,
        k_ahead: false,
    }
}

/// Keys per team block of the cooperative-matrix subgroup kernel (`KB` of
/// `wgsl/vector_coop_teams.wgsl`: one key fragment).
const COOP_TEAM_KEYS: u32 = MATRIX_FRAG;

/// The shortest cache [`coop_teams_take`] takes the cooperative-matrix subgroup kernel for.
pub const COOP_TEAMS_MIN_KV_LEN: u32 = 16384;

/// Whether the decode kernel runs `desc` on cooperative matrices with each subgroup streaming
/// its own keys (`wgsl/vector_coop_teams.wgsl`): where it serves ([`coop_teams_serve`]), for
/// more than 4 query vectors a KV head (the subgroup kernel takes at most 4 a workgroup, and
/// reads K and V again for each 4) at head dims 64/64 and 128/128 against at least
/// [`COOP_TEAMS_MIN_KV_LEN`] keys. On the H200 (BENCHMARKS.md, thirty-fourth session, run 157;
/// f16, 4 copies of K and V, us a call in one pass; 7 teams, one workgroup an SM) at 4096 /
/// 8192 / 16384 / 32768 / 131072 keys: 64/8 heads (8 query vectors a KV head) 16.6 / 20.8 /
/// 29.8 / 45.7 / 140.1 against the subgroup kernel's 14.8 / 21.4 / 34.5 / 59.7 / 212.0; 32/2
/// heads (16) 14.4 / 15.9 / 19.5 / 23.8 / 49.6 against 9.2 / 13.1 / 21.9 / 35.2 / 107.8; with 4
/// query vectors (32/8 heads) slower at every length (139.2 against 128.2 at 131072). At d64
/// (run 161, 8 teams) 64/8 heads 9.7 / 13.8 / 19.5 / 29.2 / 85.8 against 11.3 / 14.0 / 21.5 /
/// 34.9 / 113.6, 32/2 heads 9.0 / 10.0 / 10.5 / 14.6 / 31.0 against 7.5 / 10.2 / 14.1 / 21.1 /
/// 59.1. Other head dims are not measured. Knob `decode_ct` (0 or 1): never, or wherever it
/// serves; without it, where [`coop_teams_rule`] holds.
pub fn coop_teams_take(caps: &Capabilities, desc: &AttentionDesc) -> bool {
    match crate::tune::knob("decode_ct") {
        Some(0) => false,
        Some(_) => coop_teams_serve(caps, desc),
        None => coop_teams_rule(caps, desc),
    }
}

/// The planner's rule for the cooperative-matrix subgroup kernel (see [`coop_teams_take`]):
/// where it serves, more than 4 query vectors a KV head at head dims 64/64 or 128/128 against at
/// least [`COOP_TEAMS_MIN_KV_LEN`] keys.
pub fn coop_teams_rule(caps: &Capabilities, desc: &AttentionDesc) -> bool {
    coop_teams_serve(caps, desc)
        && desc.group_size() * desc.q_len > 4
        && matches!(desc.head_dim, 64 | 128)
        && desc.v_head_dim == desc.head_dim
        && desc.kv_len >= COOP_TEAMS_MIN_KV_LEN
}

/// Whether the cooperative-matrix subgroup kernel serves `desc` on an adapter with `caps`: f16
/// on listed 16x16 f16 fragments with f32 accumulators, subgroups of exactly 32 lanes (a lane
/// takes half a row of a fragment's softmax), K and V in 16-byte words (read 8 bytes at a time),
/// head dims and value head dims multiples of 16 up to 128 (its fragments of Q and O unrolled,
/// O's held in registers), within the workgroup memory.
pub fn coop_teams_serve(caps: &Capabilities, desc: &AttentionDesc) -> bool {
    desc.dtype == crate::desc::DType::F16
        && crate::kernels::fused_coop::runnable(caps, desc.dtype) == Some((MATRIX_FRAG, false))
        && caps.subgroups
        && caps.subgroup_min_size == 32
        && caps.subgroup_max_size == 32
        && kv_in_16_byte_words(desc)
        && desc.head_dim.is_multiple_of(MATRIX_FRAG)
        && desc.v_head_dim.is_multiple_of(MATRIX_FRAG)
        && desc.head_dim <= 8 * MATRIX_FRAG
        && desc.v_head_dim <= 8 * MATRIX_FRAG
        && coop_teams_fitting(caps, desc, None).is_some()
}

/// Workgroup memory of the cooperative-matrix subgroup kernel with `teams` subgroups: Q's 16
/// rows (f16, padded), each team's K/V slot (16 padded rows of f16), score slot (16 x 16
/// floats) and P slot (16 x 24 f16), and its rows' max and sum.
fn coop_team_bytes(desc: &AttentionDesc, teams: u32) -> u32 {
    let kv_row = desc.head_dim.max(desc.v_head_dim) + MATRIX_PAD;
    2 * MATRIX_FRAG * (desc.head_dim + MATRIX_PAD)
        + teams
            * (2 * COOP_TEAM_KEYS * kv_row
                + 4 * MATRIX_FRAG * MATRIX_FRAG
                + 2 * MATRIX_FRAG * 24
                + 8 * MATRIX_FRAG)
}

/// The most subgroups a workgroup of the cooperative-matrix subgroup kernel takes (8 down to 2)
/// within the adapter's limits, `wanted` where it fits. On the H200 (d128: 7 fit in 48 KB;
/// BENCHMARKS.md, thirty-fourth session, runs 155-157) more teams a workgroup were faster even
/// where fewer workgroups then fit an SM: 64/8 heads, 131072 keys, 146.2 us with 7 teams, 154.4
/// with 6 (one workgroup an SM by its 178 registers), 182.7 with 4 (two).
fn coop_teams_fitting(
    caps: &Capabilities,
    desc: &AttentionDesc,
    wanted: Option<u32>,
) -> Option<u32> {
    let fits = |n: u32| caps.fits_workgroup(32 * n, coop_team_bytes(desc, n));
    wanted
        .filter(|&n| (1..=16).contains(&n) && fits(n))
        .or_else(|| (2..=8).rev().find(|&n| fits(n)))
}

/// Workgroups the splits aim for where a workgroup fills a compute unit (the cooperative-matrix
/// subgroup kernel, and the subgroup kernel where [`wide_teams`] takes it): one a compute unit,
/// half of [`target_workgroups`] (knob `decode_wgs` sets it). On the H200 (BENCHMARKS.md,
/// thirty-fourth session, run 156; the cooperative-matrix kernel, 64/8 heads, 6 teams, us a call
/// in one pass) at 16384 / 65536 / 131072 keys: 30.7 / 81.5 / 148.7 with 132 workgroups, 37.5 /
/// 88.3 / 154.4 with 264, 49.8 / 104.0 / 168.5 with 528.
fn unit_workgroups(caps: &Capabilities) -> u32 {
    match crate::tune::knob("decode_wgs") {
        Some(n) => n.max(1),
        None => (target_workgroups(caps) / 2).max(1),
    }
}

/// Tiles and splits of the cooperative-matrix subgroup kernel (see [`coop_teams_serve`]): up to
/// 16 query vectors a workgroup, splits of whole team blocks. Knob `decode_teams` (1 to 16, where
/// they fit) sets its subgroups a workgroup.
fn coop_team_tiles(
    caps: &Capabilities,
    desc: &AttentionDesc,
    splits: Option<u32>,
) -> Result<VectorTiles> {
    // (Served only where 2 teams fit: `coop_teams_serve`.)
    let teams =
        coop_teams_fitting(caps, desc, crate::tune::knob("decode_teams")).ok_or_else(|| {
            Error::limit(
                "cooperative-matrix subgroup decode kernel workgroup memory",
                coop_team_bytes(desc, 2) as u64,
                "max_compute_workgroup_storage_size",
                caps.max_workgroup_storage_bytes as u64,
            )
        })?;
    let rows = (desc.group_size() * desc.q_len).min(MATRIX_FRAG);
    let splits = key_splits_aiming(desc, rows, COOP_TEAM_KEYS, splits, unit_workgroups(caps))?;
    Ok(VectorTiles {
        team: 32,
        ..fragment_tiles(
            rows,
            teams * COOP_TEAM_KEYS,
            32 * teams,
            splits,
            coop_team_bytes(desc, teams),
        )
    })
}

/// A split pass of the decode kernels on fragments (`entry`) for `rows` query vectors a
/// workgroup, with its `constants` after `RQ` and the head dims: 16x16, Q's and O's fragments by
/// the head dims (neither stages in parts or splits f32).
fn coop_decode_variant(
    entry: KernelEntry,
    desc: &AttentionDesc,
    rows: u32,
    more: &[(&'static str, u32)],
) -> ShaderVariant {
    let mut constants = vec![
        ("RQ", rows),
        ("HEAD_DIM", desc.head_dim),
        ("V_HEAD_DIM", desc.v_head_dim),
    ];
    constants.extend_from_slice(more);
    ShaderVariant {
        entry,
        dtype: desc.dtype,
        stage: desc.dtype,
        coop: Some(CoopHeader {
            frag: MATRIX_FRAG,
            q_frags: desc.head_dim / MATRIX_FRAG,
            o_frags: desc.v_head_dim / MATRIX_FRAG,
            q_parts: 1,
            word_staging: false,
            split: false,
        }),
        constants,
    }
}

/// The split pass of the cooperative-matrix subgroup kernel. `ablate`: the split pass's
/// profiling bits (see [`plan`]).
fn coop_team_variant(desc: &AttentionDesc, t: &VectorTiles, ablate: u32) -> ShaderVariant {
    coop_decode_variant(
        KernelEntry::VectorCoopTeams,
        desc,
        t.rows,
        &[
            ("TEAMS", t.workgroup_size / t.team),
            ("KVD", desc.head_dim.max(desc.v_head_dim)),
            // Each block's rows asked for a block ahead (knob `decode_ct_ahead=0`: at its start).
            (
                "AHEAD",
                crate::tune::knob("decode_ct_ahead").unwrap_or(1).min(1),
            ),
            ("MASK_KIND", mask_kind(desc)),
            ("ABLATE", ablate & (128 | 1024 | 2048)),
        ],
    )
}

/// The split pass of the cooperative-matrix decode kernel.
/// `ablate`: the split pass's profiling bits (see [`plan`]).
fn matrix_variant(desc: &AttentionDesc, t: &VectorTiles, ablate: u32) -> ShaderVariant {
    let shape = MatrixShape::new(desc);
    coop_decode_variant(
        KernelEntry::VectorCoop,
        desc,
        t.rows,
        &[
            ("NW", shape.subgroups),
            ("WG", shape.threads),
            ("BK", shape.keys),
            ("NKB", shape.keys / MATRIX_FRAG),
            ("KVE", shape.kv_elems(desc)),
            ("SB", shape.score_elems()),
            ("QR", shape.q_rows(desc)),
            ("KVO", shape.kv_offset(desc)),
            ("MASK_KIND", mask_kind(desc)),
            ("ABLATE", ablate),
        ],
    )
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
    let variant = |entry, constants| ShaderVariant::new(entry, desc.dtype, constants);
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
        let mut constants = vec![
            ("RG", t.rows),
            ("HEAD_DIM", desc.head_dim),
            ("V_HEAD_DIM", desc.v_head_dim),
            ("TEAM", t.team),
            ("TEAMS", t.workgroup_size / t.team),
            ("LPK", t.lanes_per_key),
            ("VL", team_v_lanes(desc)),
            ("VEC", t.vectorized as u32),
            ("ELEM_BYTES", desc.dtype.size_bytes() as u32),
            ("MASK_KIND", mask_kind(desc)),
            ("ABLATE", split_ablate & (32 | 64 | 128 | 256)),
            ("SCAT", t.scattered as u32),
            ("OS_PARTS", t.output_parts),
            ("KL", t.whole_lines as u32),
            ("VC", t.clamped_v as u32),
            ("QH", t.half_queries as u32),
            ("PF", t.k_ahead as u32),
        ];
        if !t.merged {
            variant(KernelEntry::VectorSubgroup, constants)
        } else {
            if let Some(bits) = crate::tune::knob("decode_merge_ablate") {
                constants.push(("MERGE_ABLATE", bits));
            }
            variant(KernelEntry::VectorSubgroupMerged, constants)
        }
    } else {
        variant(
            KernelEntry::Vector,
            vec![
                ("RG", t.rows),
                ("BK", t.block_k),
                ("HEAD_DIM", desc.head_dim),
                ("V_HEAD_DIM", desc.v_head_dim),
                ("WG", t.workgroup_size),
                ("LPK", t.lanes_per_key),
                ("NKG", t.key_groups),
                ("VEC", t.vectorized as u32),
                ("ELEM_BYTES", desc.dtype.size_bytes() as u32),
                ("RED", red_slots(t.into())),
                ("MV", t.merge_vec4s),
                ("VEARLY", t.early_v as u32),
                ("PF", t.k_ahead as u32),
                ("MASK_KIND", mask_kind(desc)),
                ("ABLATE", split_ablate),
            ],
        )
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
mod tests {
    use super::*;

    #[test]
    fn more_than_4_query_vectors_against_long_caches_take_the_cooperative_matrix_teams() {
        use crate::desc::DType;
        let nvidia = Capabilities::nvidia_vulkan();
        let d = |hq: u32, hkv: u32, q_len: u32, kv: u32, dim: u32| {
            AttentionDesc::new(1, hq, hkv, q_len, kv, dim).with_dtype(DType::F16)
        };
        let coop_teams = |caps: &Capabilities, desc: &AttentionDesc| {
            let t = fit_tiles(caps, desc, None).unwrap();
            t.matrix && t.team > 0
        };
        // 8 and 16 query vectors a KV head (GQA 8, 2 query rows of GQA 4 and of GQA 8) from
        // 16384 keys at d128, one workgroup of 7 teams (as many as fit 48 KB) for each KV head's
        // split, one workgroup an SM.
        for (hq, hkv, q_len, rows) in [(64, 8, 1, 8), (32, 8, 2, 8), (32, 2, 1, 16), (16, 2, 2, 16)]
        {
            for kv in [16384, 65536, 131072] {
                let desc = d(hq, hkv, q_len, kv, 128);
                let t = fit_tiles(&nvidia, &desc, None).unwrap();
                assert!(
                    t.matrix && t.team == 32,
                    "{hq}/{hkv} q{q_len} kv{kv}: {t:?}"
                );
                assert_eq!((t.rows, t.workgroup_size), (rows, 7 * 32), "{t:?}");
                assert!(t.kv_splits * hkv <= 132, "{t:?}");
                let (dispatches, _) = plan(&nvidia, &desc, &t).unwrap();
                assert_eq!(dispatches[0].variant.entry, KernelEntry::VectorCoopTeams);
                assert_eq!(dispatches[0].workgroups, [t.kv_splits, hkv, 1], "{t:?}");
                assert!(t.split_len.is_multiple_of(COOP_TEAM_KEYS), "{t:?}");
                // The bytes the planner counts are those naga lays out for the kernel.
                let naga = crate::spirv::variant_workgroup_bytes(&dispatches[0].variant).unwrap();
                assert_eq!(t.workgroup_bytes, naga, "{t:?}");
                assert!(t.workgroup_bytes <= nvidia.max_workgroup_storage_bytes);
            }
            // Shorter caches: the subgroup kernel.
            let t = fit_tiles(&nvidia, &d(hq, hkv, q_len, 8192, 128), None).unwrap();
            assert!(!t.matrix && t.team == 32, "{t:?}");
        }
        // 32 query vectors a KV head: two workgroups of 16 for each split.
        let desc = d(64, 2, 1, 65536, 128);
        let t = fit_tiles(&nvidia, &desc, None).unwrap();
        assert!(t.matrix && t.team == 32 && t.rows == 16, "{t:?}");
        let (dispatches, _) = plan(&nvidia, &desc, &t).unwrap();
        assert_eq!(dispatches[0].workgroups, [t.kv_splits, 2 * 2, 1], "{t:?}");
        // d64 too, 8 teams (36096 bytes).
        let t = fit_tiles(&nvidia, &d(64, 8, 1, 16384, 64), None).unwrap();
        assert!(
            t.matrix && t.team == 32 && t.workgroup_size == 8 * 32,
            "{t:?}"
        );
        // Not for 4 query vectors or fewer, other head dims, f32, nor without 16x16 fragments.
        assert!(!coop_teams(&nvidia, &d(32, 8, 1, 131072, 128)));
        assert!(!coop_teams(&nvidia, &d(32, 32, 1, 131072, 128)));
        assert!(!coop_teams(&nvidia, &d(64, 8, 1, 131072, 96)));
        assert!(!coop_teams(&nvidia, &d(64, 8, 1, 131072, 256)));
        assert!(!coop_teams(
            &nvidia,
            &d(64, 8, 1, 131072, 128).with_v_head_dim(64)
        ));
        let f32_desc = d(64, 8, 1, 131072, 128).with_dtype(DType::F32);
        assert!(!coop_teams(&nvidia, &f32_desc));
        for caps in [Capabilities::apple_m_series(), Capabilities::lavapipe()] {
            assert!(
                !coop_teams_serve(&caps, &d(64, 8, 1, 131072, 128)),
                "{caps:?}"
            );
        }
        // The plan says why.
        let p = crate::planner::plan(
            &nvidia,
            &d(64, 8, 1, 65536, 128),
            &crate::planner::PlanOptions::default(),
        )
        .unwrap();
        assert!(
            p.to_string()
                .contains("8 query vectors a KV head against kv_len 65536 >= 16384"),
            "{p}"
        );
        // Never merged in pass (the kernel writes partial results for the reduce pass only).
        let t = fit_tiles(&nvidia, &d(64, 8, 1, 131072, 128), None).unwrap();
        assert!(t.kv_splits > 1 && !merges_in_pass(&nvidia, &d(64, 8, 1, 131072, 128), &t));
        // d64 fits 8 teams a workgroup; a head dim past 128 is not served.
        assert_eq!(
            coop_teams_fitting(&nvidia, &d(8, 1, 1, 64, 64), None),
            Some(8)
        );
        assert!(!coop_teams_serve(&nvidia, &d(8, 1, 1, 64, 144)));
    }

    #[test]
    fn short_caches_split_for_one_workgroup_a_compute_unit() {
        // The subgroup kernel on the H200, 32/8 heads (8 query groups): below 4096 keys splits
        // of 256 keys left most SMs idle; the splits aim for 132 workgroups there, of at least
        // 64 keys, and are as before from 4096 keys (where 16 teams a workgroup aim for 132
        // workgroups too up to 8192, see `wide_teams`; 33 from 16384 with 8 teams).
        let caps = Capabilities::nvidia_vulkan();
        for (kv, splits) in [
            (64, 1),
            (256, 4),
            (1000, 16),
            (1024, 16),
            (2048, 16),
            (4096, 16),
            (8192, 16),
            (16384, 33),
        ] {
            let desc = AttentionDesc::new(1, 32, 8, 1, kv, 128).with_dtype(crate::desc::DType::F16);
            let t = fit_tiles(&caps, &desc, None).unwrap();
            assert!(t.team > 0, "{kv}: {t:?}");
            assert_eq!(t.kv_splits, splits, "{kv}: {t:?}");
            assert!(t.split_len >= 64.min(kv) || t.kv_splits == 1, "{kv}: {t:?}");
            assert!(t.kv_splits * t.split_len >= kv, "{t:?}");
            assert!((t.kv_splits - 1) * t.split_len < kv, "{t:?}");
        }
        // The portable kernel splits short caches so too (in whole tiles of 64 keys here).
        let desc = AttentionDesc::new(1, 32, 8, 1, 1024, 128);
        let mut caps = Capabilities::nvidia_vulkan();
        caps.subgroups = false;
        let t = fit_tiles(&caps, &desc, None).unwrap();
        assert_eq!((t.team, t.kv_splits), (0, 16), "{t:?}");
        // The subgroup kernel splits so whichever pass merges the splits: without `@coherent`
        // storage (the reduce pass), and at d256 (its teams' outputs in two parts).
        let mut caps = Capabilities::nvidia_vulkan();
        caps.coherent_storage = false;
        let f16 = desc.with_dtype(crate::desc::DType::F16);
        let t = fit_tiles(&caps, &f16, None).unwrap();
        assert_eq!((t.team > 0, t.kv_splits), (true, 16), "{t:?}");
        assert!(!merges_in_pass(&caps, &f16, &t), "{t:?}");
        let caps = Capabilities::nvidia_vulkan();
        let d256 = AttentionDesc::new(1, 32, 8, 1, 1024, 256).with_dtype(crate::desc::DType::F16);
        let t = fit_tiles(&caps, &d256, None).unwrap();
        assert_eq!((t.team > 0, t.kv_splits), (true, 16), "{t:?}");
        // (d256 merges in pass up to 4096 keys, by the reduce pass beyond.)
        assert_eq!(t.output_parts, 2, "{t:?}");
        assert!(merges_in_pass_by_default(&d256, &t), "{t:?}");
        let long = AttentionDesc::new(1, 32, 8, 1, 8192, 256).with_dtype(crate::desc::DType::F16);
        let t = fit_tiles(&caps, &long, None).unwrap();
        assert!(!merges_in_pass_by_default(&long, &t), "{t:?}");
        // And the cooperative-matrix kernel (8 query vectors a KV head).
        let eight = AttentionDesc::new(1, 64, 8, 1, 1024, 128).with_dtype(crate::desc::DType::F16);
        let t = fit_tiles(&caps, &eight, None).unwrap();
        assert_eq!((t.matrix, t.kv_splits), (true, 16), "{t:?}");
    }

    #[test]
    fn splits_fill_at_most_one_wave_of_the_target_workgroups() {
        // The ceiling of 264 / query groups left a second wave of a few workgroups on the H200
        // (16 query groups: 17 splits, 272 workgroups); the splits stay within the target, and
        // fill it where the keys allow.
        let caps = Capabilities::nvidia_vulkan();
        for (hq, hkv, q_len) in [(32, 8, 1), (32, 8, 2), (32, 8, 4), (32, 32, 1), (16, 2, 1)] {
            for kv in [16384, 65536, 131072] {
                let desc = AttentionDesc::new(1, hq, hkv, q_len, kv, 128)
                    .with_dtype(crate::desc::DType::F16);
                let t = fit_tiles(&caps, &desc, None).unwrap();
                // (The cooperative-matrix subgroup kernel, and the subgroup kernel with 16 teams,
                // aim for one workgroup an SM.)
                let wide = t.team > 0 && !t.matrix && t.workgroup_size == WIDE_TEAMS * t.team;
                let target = if (t.matrix && t.team > 0) || wide {
                    unit_workgroups(&caps)
                } else {
                    target_workgroups(&caps)
                };
                let (dispatches, _) = plan(&caps, &desc, &t).unwrap();
                let [x, y, z] = dispatches[0].workgroups;
                let workgroups = x * y * z;
                assert!(workgroups <= target, "{hq}/{hkv} q{q_len} kv{kv}: {t:?}");
                // Full, unless the splits are as short as they go, or splits one grain shorter
                // would not cover the keys in as many as the target allows (16/2 heads at 65536
                // keys on the cooperative-matrix subgroup kernel: 128 splits of 512 keys, where
                // 132 of 496 fall short).
                assert!(
                    workgroups + y * z > target
                        || t.kv_splits == kv.div_ceil(MIN_SPLIT_KEYS)
                        || (t.split_len - t.split_grain()) * (target / (y * z)) < kv,
                    "{hq}/{hkv} q{q_len} kv{kv}: {t:?}"
                );
                // Whole team blocks (the subgroup kernel) or tiles, covering the keys.
                assert!(t.split_len.is_multiple_of(t.split_grain()), "{t:?}");
                assert!(t.kv_splits * t.split_len >= kv, "{t:?}");
                assert!((t.kv_splits - 1) * t.split_len < kv, "{t:?}");
            }
        }
    }

    #[test]
    fn subgroup_outputs_go_in_halves_only_past_the_occupancy_budget() {
        // The H200 ran d256 two workgroups an SM only with its teams' outputs in halves (20.7
        // KB); d64 and d128 fit in one part. Apple's 32 KB: d256 fits only in halves. (131072
        // keys: 8 teams a workgroup, see `wide_teams`.)
        for caps in [
            Capabilities::nvidia_vulkan(),
            Capabilities::apple_m_series(),
        ] {
            for (d, parts) in [(64, 1), (128, 1), (256, 2)] {
                let desc =
                    AttentionDesc::new(1, 32, 8, 1, 131072, d).with_dtype(crate::desc::DType::F16);
                assert!(team_serves(&caps, &desc), "d{d} {caps:?}");
                let t = fit_tiles(&caps, &desc, None).unwrap();
                assert!(t.team > 0, "d{d}: {t:?}");
                assert_eq!(t.output_parts, parts, "d{d}: {t:?}");
                assert_eq!(
                    t.workgroup_bytes,
                    team_workgroup_bytes(&desc, TEAMS, parts, t.half_queries)
                );
                assert!(t.workgroup_bytes <= TEAM_OCCUPANCY_BYTES, "d{d}: {t:?}");
            }
        }
    }

    #[test]
    fn the_planner_merges_in_pass_where_the_outputs_are_in_one_part_on_vulkan() {
        use crate::planner::{plan, Kernel, PlanOptions};
        let ending = |caps: &Capabilities, d: u32, kv: u32, in_pass: Option<bool>| {
            let desc = AttentionDesc::new(1, 32, 8, 1, kv, d).with_dtype(crate::desc::DType::F16);
            let options = PlanOptions {
                decode_merge_in_pass: in_pass,
                ..PlanOptions::default()
            };
            let p = plan(caps, &desc, &options).unwrap();
            let Kernel::Vector(t) = p.kernel() else {
                panic!("not the decode kernel: {p}")
            };
            // One dispatch when merged in pass, the reduce pass after the split pass otherwise.
            assert_eq!(
                p.dispatches().len(),
                1 + (t.kv_splits > 1 && !t.merged) as usize,
                "{p}"
            );
            assert_eq!(p.arrival_bytes() > 0, t.merged, "{p}");
            (t.kv_splits > 1).then_some(t.merged)
        };
        let nvidia = Capabilities::nvidia_vulkan();
        for d in [64, 128] {
            assert_eq!(ending(&nvidia, d, 16384, None), Some(true), "d{d}");
            assert_eq!(ending(&nvidia, d, 16384, Some(false)), Some(false), "d{d}");
        }
        // d256's outputs in halves: the reduce pass unless asked.
        assert_eq!(ending(&nvidia, 256, 16384, None), Some(false));
        assert_eq!(ending(&nvidia, 256, 16384, Some(true)), Some(true));
        // One split (fewer keys than SHORT_SPLIT_KEYS): nothing to merge.
        assert_eq!(ending(&nvidia, 128, 60, None), None);
        // Metal: never (its barriers order device memory within a threadgroup only).
        let apple = Capabilities::apple_m_series();
        assert_eq!(ending(&apple, 128, 16384, None), Some(false));
        assert_eq!(ending(&apple, 128, 16384, Some(true)), Some(false));
    }

    #[test]
    fn long_caches_are_split_and_short_ones_are_not() {
        let caps = Capabilities::nvidia_vulkan();
        let long = AttentionDesc::new(1, 32, 8, 1, 131072, 128);
        let t = fit_tiles(&caps, &long, None).unwrap();
        assert!(
            t.kv_splits > 1 && t.kv_splits * t.split_len >= 131072,
            "{t:?}"
        );
        assert_eq!(t.rows, 4);
        // Fewer keys than a split of the shortest takes (SHORT_SPLIT_KEYS).
        let short = AttentionDesc::new(1, 32, 8, 1, 60, 128);
        assert_eq!(fit_tiles(&caps, &short, None).unwrap().kv_splits, 1);
    }

    #[test]
    fn auto_takes_short_queries_against_long_caches() {
        use crate::desc::{DType, TensorLayout};
        use crate::planner::{plan, Kernel, PlanOptions};
        let caps = Capabilities::nvidia_vulkan();
        let kind = |desc: &AttentionDesc| {
            let p = plan(&caps, desc, &PlanOptions::default()).unwrap();
            match p.kernel() {
                Kernel::Vector(_) => "vector",
                Kernel::Unfused => "unfused",
                Kernel::Fused(_) => "fused",
                Kernel::FusedCoop(_) => "coop",
            }
        };
        let d = |q, kv, dtype| AttentionDesc::new(1, 32, 8, q, kv, 128).with_dtype(dtype);
        // f16 runs on the H200's own fragments: the cooperative kernel (keys split) from q_len 32;
        // below the fused threshold the unfused path.
        assert_eq!(kind(&d(16, 16384, DType::F16)), "coop");
        assert_eq!(kind(&d(16, 511, DType::F16)), "unfused");
        assert_eq!(kind(&d(32, 16384, DType::F16)), "coop");
        let lavapipe = Capabilities::lavapipe();
        assert!(auto_takes(&lavapipe, &d(16, 512, DType::F16)));
        assert!(!auto_takes(&lavapipe, &d(16, 511, DType::F16)));
        assert_eq!(kind(&d(32, 128, DType::F32)), "vector");
        assert_eq!(kind(&d(32, 127, DType::F32)), "fused");
        // Past 32 rows, f32 goes split onto the f16 fragments (its keys split too).
        assert_eq!(kind(&d(33, 16384, DType::F32)), "coop");
        assert_eq!(kind(&d(33, 4096, DType::F32)), "fused");
        // f32 past 16 rows against 4096 keys or more: the portable kernel with the keys split
        // (on a GPU; the CPU adapter's portable kernel does not split them).
        assert_eq!(kind(&d(16, 16384, DType::F32)), "vector");
        assert_eq!(kind(&d(17, 4095, DType::F32)), "vector");
        for q in [17, 24, 32] {
            let desc = d(q, 4096, DType::F32);
            let p = plan(&caps, &desc, &PlanOptions::default()).unwrap();
            let Kernel::Fused(t) = p.kernel() else {
                panic!("{p}")
            };
            assert!(t.kv_splits > 1, "{p}");
            assert!(p.reason().contains("keys split"), "{p}");
        }
        // The CPU adapter's portable kernel does not split them: the decode kernel.
        let p = plan(
            &lavapipe,
            &d(32, 16384, DType::F32),
            &PlanOptions::default(),
        )
        .unwrap();
        assert!(matches!(p.kernel(), Kernel::Vector(_)), "{p}");
        // A K the decode kernel cannot bind (offset 1 f32: its bytes are never a multiple of 16)
        // falls back to the other rules, saying why.
        let k = TensorLayout::bhld(8, 4096, 128).with_offset(1);
        let odd = d(16, 4096, DType::F32).with_layout(Tensor::K, k);
        let p = plan(&caps, &odd, &PlanOptions::default()).unwrap();
        assert!(matches!(p.kernel(), Kernel::Unfused), "{p}");
        assert!(p.reason().contains("decode kernel cannot serve"), "{p}");
    }

    #[test]
    fn cooperative_matrices_take_f16_decode_against_short_caches_where_listed() {
        use crate::desc::DType;
        let nvidia = Capabilities::nvidia_vulkan();
        let d = |q, kv, dim| AttentionDesc::new(1, 32, 8, q, kv, dim).with_dtype(DType::F16);
        // Two query rows: 8 query vectors a KV head, more than the subgroup kernel takes.
        for dim in [64, 128] {
            let t = fit_tiles(&nvidia, &d(2, 4096, dim), None).unwrap();
            assert!(t.matrix, "{t:?}");
            // One 16-row fragment block: its threads one subgroup per O fragment, within the
            // workgroup memory that keeps two workgroups an SM.
            assert_eq!(t.workgroup_size, 2 * dim);
            assert!(t.workgroup_bytes <= MATRIX_BUDGET_BYTES, "{t:?}");
            assert!(t.kv_splits * t.split_len >= 4096 && t.split_len.is_multiple_of(t.block_k));
            // Longer caches and f32: the f32 vector kernel.
            assert!(!fit_tiles(&nvidia, &d(2, 4097, dim), None).unwrap().matrix);
            let f32 = d(2, 4096, dim).with_dtype(DType::F32);
            assert!(!fit_tiles(&nvidia, &f32, None).unwrap().matrix);
            // 16 query vectors a workgroup keep all of Q's 16 rows: within the budget at d64,
            // not at d128 (the subgroup kernel takes them where it serves).
            assert_eq!(matrix_serves(&nvidia, &d(4, 4096, dim)), dim == 64);
            assert!(fit_tiles(&nvidia, &d(4, 4096, dim), None).unwrap().team > 0);
        }
        assert!(
            fit_tiles(&nvidia, &d(2, 1000, 96).with_v_head_dim(64), None)
                .unwrap()
                .matrix
        );
        for dim in [32, 80, 160, 256] {
            assert!(!fit_tiles(&nvidia, &d(2, 4096, dim), None).unwrap().matrix);
        }
        // Value head dims past the head dim were not run on a GPU: the f32 vector kernel.
        assert!(
            !fit_tiles(&nvidia, &d(2, 4096, 64).with_v_head_dim(128), None)
                .unwrap()
                .matrix
        );
        // Apple lists 8x8 fragments only; lavapipe none.
        for caps in [Capabilities::apple_m_series(), Capabilities::lavapipe()] {
            assert!(!fit_tiles(&caps, &d(2, 4096, 128), None).unwrap().matrix);
        }
        // The plan names it.
        let p = crate::planner::plan(
            &nvidia,
            &d(2, 4096, 128),
            &crate::planner::PlanOptions::default(),
        )
        .unwrap();
        assert!(p.to_string().contains(" coop "), "{p}");
        assert_eq!(p.dispatches()[0].variant.entry, KernelEntry::VectorCoop);
    }

    #[test]
    fn scattered_scores_for_four_f16_query_vectors_of_four_or_more_lanes_a_key() {
        use crate::desc::DType;
        let nvidia = Capabilities::nvidia_vulkan();
        let t = |hq, hkv, dim, dtype| {
            let desc = AttentionDesc::new(1, hq, hkv, 1, 16384, dim).with_dtype(dtype);
            fit_tiles(&nvidia, &desc, None).unwrap()
        };
        for dim in [128, 256] {
            let g = t(32, 8, dim, DType::F16);
            assert!(g.team > 0 && g.scattered, "{g:?}");
            // One query vector a workgroup (MHA), f32, and 2 lanes a key (d64): not.
            assert!(!t(32, 32, dim, DType::F16).scattered);
            assert!(!t(32, 8, dim, DType::F32).scattered);
        }
        let d64 = t(32, 8, 64, DType::F16);
        assert!(d64.team > 0 && !d64.scattered, "{d64:?}");
    }

    #[test]
    fn whole_k_lines_for_scattered_scores_at_head_dim_128() {
        use crate::desc::DType;
        let nvidia = Capabilities::nvidia_vulkan();
        let t = |hq, hkv, dim, dv, dtype| {
            let desc = AttentionDesc::new(1, hq, hkv, 1, 16384, dim)
                .with_v_head_dim(dv)
                .with_dtype(dtype);
            fit_tiles(&nvidia, &desc, None).unwrap()
        };
        let g = t(32, 8, 128, 128, DType::F16);
        assert!(g.scattered && g.whole_lines, "{g:?}");
        // Other head dims (8 lanes a K row at d256 read whole lines already), V head dims, f32
        // and MHA (no scattered scores): not.
        for (hq, hkv, dim, dv, dtype) in [
            (32, 8, 256, 256, DType::F16),
            (32, 8, 64, 64, DType::F16),
            (32, 8, 128, 64, DType::F16),
            (32, 8, 128, 128, DType::F32),
            (32, 32, 128, 128, DType::F16),
        ] {
            let x = t(hq, hkv, dim, dv, dtype);
            assert!(!x.whole_lines, "{hq}/{hkv} d{dim} dv{dv} {dtype:?}: {x:?}");
        }
    }

    #[test]
    fn v_rows_clamped_for_whole_k_lines_in_splits_of_at_most_8_strides() {
        use crate::desc::DType;
        let nvidia = Capabilities::nvidia_vulkan();
        let t = |hkv, dim, kv, dtype| {
            let desc = AttentionDesc::new(1, 32, hkv, 1, kv, dim).with_dtype(dtype);
            fit_tiles(&nvidia, &desc, None).unwrap()
        };
        // 32/8 heads at d128 f16: 33 splits of 504 keys at 16384 (7.9 strides of 64 keys),
        // about 1000 at 32768 (over 8 strides).
        for kv in [1, 1000, 4096, 16384, 32768, 131072] {
            let g = t(8, 128, kv, DType::F16);
            assert!(g.whole_lines, "{kv}: {g:?}");
            assert_eq!(g.clamped_v, g.split_len <= 8 * g.block_k, "{kv}: {g:?}");
            assert_eq!(g.clamped_v, kv <= 16384, "{kv}: {g:?}");
        }
        // Not without whole K lines (d64, f32, MHA), however short the splits.
        for (hkv, dim, dtype) in [
            (8, 64, DType::F16),
            (8, 128, DType::F32),
            (32, 128, DType::F16),
        ] {
            let x = t(hkv, dim, 4096, dtype);
            assert!(
                !x.whole_lines && !x.clamped_v,
                "{hkv} d{dim} {dtype:?}: {x:?}"
            );
        }
    }

    #[test]
    fn queries_staged_as_f16_at_d128_for_f16_splits_of_at_most_4_strides() {
        use crate::desc::DType;
        let nvidia = Capabilities::nvidia_vulkan();
        let t = |hkv, dim, kv, dtype| {
            let desc = AttentionDesc::new(1, 32, hkv, 1, kv, dim).with_dtype(dtype);
            fit_tiles(&nvidia, &desc, None).unwrap()
        };
        // 32/8 heads at d128 f16: splits of 256 keys (4 strides of 64) up to 8192 keys, 504 at
        // 16384; one split of 256 keys at 256.
        for kv in [1, 256, 1000, 4096, 8192, 16384, 32768] {
            let g = t(8, 128, kv, DType::F16);
            assert_eq!(g.half_queries, g.split_len <= 4 * g.block_k, "{kv}: {g:?}");
            assert_eq!(g.half_queries, kv <= 8192, "{kv}: {g:?}");
            // Half the workgroup memory for the queries (16 teams from 4096 keys, see
            // `wide_teams`).
            let full = team_workgroup_bytes(
                &AttentionDesc::new(1, 32, 8, 1, kv, 128),
                g.workgroup_size / g.team,
                g.output_parts,
                false,
            );
            assert_eq!(full - g.workgroup_bytes, 128 * 8 * g.half_queries as u32);
        }
        // 32/32 heads alike (one split of 100 keys); never other head dims, however short the
        // splits, nor f32.
        assert!(t(32, 128, 100, DType::F16).half_queries);
        for dim in [64, 256] {
            let g = t(8, dim, 100, DType::F16);
            assert!(
                !g.half_queries && g.split_len <= 4 * g.block_k,
                "d{dim}: {g:?}"
            );
        }
        assert!(!t(8, 128, 100, DType::F32).half_queries);
    }

    #[test]
    fn loads_a_block_ahead_at_d128_for_f16_splits_of_more_than_8_strides() {
        use crate::desc::DType;
        let nvidia = Capabilities::nvidia_vulkan();
        let t = |hq, hkv, dim, kv, dtype| {
            let desc = AttentionDesc::new(1, hq, hkv, 1, kv, dim).with_dtype(dtype);
            fit_tiles(&nvidia, &desc, None).unwrap()
        };
        // 32/8 heads at d128 f16: 33 splits of 504 keys at 16384 (7.9 strides of 64 keys),
        // about 1000 at 32768.
        for kv in [1, 1000, 4096, 8192, 16384, 32768, 65536, 131072] {
            let g = t(32, 8, 128, kv, DType::F16);
            assert_eq!(g.team, 32, "{kv}: {g:?}");
            assert_eq!(g.k_ahead, g.split_len > 8 * g.block_k, "{kv}: {g:?}");
            assert_eq!(g.k_ahead, kv >= 32768, "{kv}: {g:?}");
        }
        // 32/32 heads take it from 8192 keys (fewer splits a query group: 8). (64/8 heads, 16
        // splits a query group, would from 16384: there the cooperative-matrix subgroup kernel
        // takes them.)
        assert!(t(32, 32, 128, 8192, DType::F16).k_ahead);
        assert!(!t(32, 32, 128, 4096, DType::F16).k_ahead);
        // Never other head dims, nor f32, however long the splits.
        for (dim, dtype) in [(64, DType::F16), (256, DType::F16), (128, DType::F32)] {
            let g = t(32, 8, dim, 131072, dtype);
            assert!(
                !g.k_ahead && g.split_len > 8 * g.block_k,
                "d{dim} {dtype:?}: {g:?}"
            );
        }
    }

    #[test]
    fn subgroup_teams_take_decode_of_few_query_vectors_where_the_subgroup_size_is_fixed() {
        use crate::desc::DType;
        let d = |q, kv, dim| AttentionDesc::new(1, 32, 8, q, kv, dim).with_dtype(DType::F16);
        let nvidia = Capabilities::nvidia_vulkan();
        for kv in [1, 256, 4096, 16384, 131072] {
            for dim in [32, 64, 128, 256] {
                let t = fit_tiles(&nvidia, &d(1, kv, dim), None).unwrap();
                assert_eq!(t.team, 32, "{t:?}");
                assert!(!t.matrix, "{t:?}");
                // A lane reads at most 4 chunks of a K row; a block is TEAMS teams of keys (16
                // at d128 from 4096 to 8192 keys, see `wide_teams`).
                let teams = if dim == 128 && (4096..=8192).contains(&kv) {
                    WIDE_TEAMS
                } else {
                    TEAMS
                };
                let lanes_per_key = (dim / 8).div_ceil(4);
                assert_eq!(t.lanes_per_key, lanes_per_key);
                assert_eq!(t.block_k, teams * 32 / lanes_per_key);
                assert_eq!(t.workgroup_size, teams * 32);
                // The teams' outputs in halves at d256 (see `team_output_parts`).
                let parts = if dim == 256 { 2 } else { 1 };
                assert_eq!(t.output_parts, parts, "{t:?}");
                assert_eq!(
                    t.workgroup_bytes,
                    team_workgroup_bytes(&d(1, kv, dim), teams, parts, t.half_queries)
                );
                // Splits of whole team blocks (a split's last stride may leave teams a block
                // short).
                assert!(t.kv_splits * t.split_len >= kv);
                assert!(t.split_len.is_multiple_of(32 / lanes_per_key), "{t:?}");
                assert!((t.kv_splits - 1) * t.split_len < kv, "{t:?}");
                // The reduce pass after it when the keys are split.
                let (dispatches, scratch) = plan(&nvidia, &d(1, kv, dim), &t).unwrap();
                assert_eq!(dispatches.len(), 1 + (t.kv_splits > 1) as usize);
                assert_eq!(dispatches[0].variant.entry, KernelEntry::VectorSubgroup);
                assert_eq!(scratch, scratch_bytes(&d(1, kv, dim), &t));
            }
        }
        // Metal: the same kernel, then the reduce pass.
        let apple = Capabilities::apple_m_series();
        let t = fit_tiles(&apple, &d(1, 16384, 128), None).unwrap();
        assert_eq!(t.team, 32);
        assert!(t.kv_splits > 1, "{t:?}");
        let (dispatches, _) = plan(&apple, &d(1, 16384, 128), &t).unwrap();
        assert_eq!(dispatches[1].variant.entry, KernelEntry::VectorReduce);
        // More than 4 query vectors a KV head: workgroups of 4, several a KV head; 5 to 8 against
        // short caches stay on the cooperative-matrix kernel.
        for (q_len, kv) in [(2, 8192), (4, 4096), (8, 1024)] {
            let t = fit_tiles(&nvidia, &d(q_len, kv, 128), None).unwrap();
            assert_eq!((t.team, t.rows), (32, 4), "{t:?}");
            let (dispatches, _) = plan(&nvidia, &d(q_len, kv, 128), &t).unwrap();
            assert_eq!(dispatches[0].workgroups[1], 8 * q_len, "{t:?}");
        }
        // Rows whose chunks are no power of two, their lanes rounded up to one: d80 (10 chunks:
        // 4 lanes of at most 3 K chunks, 16 V lanes), d96, d112, d192 (24: 8 lanes a K row, 32
        // V lanes), d224; the V lanes in the shader's constants.
        for (dim, lanes_per_key, v_lanes) in [
            (80, 4, 16),
            (96, 4, 16),
            (112, 4, 16),
            (192, 8, 32),
            (224, 8, 32),
        ] {
            let t = fit_tiles(&nvidia, &d(1, 4096, dim), None).unwrap();
            assert_eq!(
                (t.team, t.lanes_per_key),
                (32, lanes_per_key),
                "d{dim}: {t:?}"
            );
            assert_eq!(t.block_k, t.workgroup_size / lanes_per_key, "d{dim}: {t:?}");
            let (dispatches, _) = plan(&nvidia, &d(1, 4096, dim), &t).unwrap();
            let constants = &dispatches[0].variant.constants;
            assert!(
                constants.contains(&("VL", v_lanes)),
                "d{dim}: {constants:?}"
            );
        }
        // Not where the lane layout does not fit, a V row past what the lanes of a block cover
        // (value head dim past the head dim); nor for 8 query vectors against 4096 keys (the
        // matrix kernel).
        for desc in [
            d(2, 4096, 128),
            AttentionDesc::new(1, 32, 4, 1, 4096, 128).with_dtype(DType::F16),
            d(1, 4096, 64).with_v_head_dim(128),
        ] {
            assert_eq!(fit_tiles(&nvidia, &desc, None).unwrap().team, 0, "{desc:?}");
        }
        // Nor where the subgroup size varies or is unknown (AMD's 32..64, a profile without
        // subgroups); lavapipe's 8 lanes cover head dims up to 64.
        let mut varying = nvidia.clone();
        varying.subgroup_max_size = 64;
        let mut none = nvidia.clone();
        none.subgroups = false;
        for caps in [varying, none] {
            assert_eq!(fit_tiles(&caps, &d(1, 4096, 128), None).unwrap().team, 0);
        }
        let lavapipe = Capabilities::lavapipe();
        assert_eq!(fit_tiles(&lavapipe, &d(1, 4096, 64), None).unwrap().team, 8);
        // (d48 and d40 there: 6 and 5 chunks, 8 V lanes.)
        assert_eq!(fit_tiles(&lavapipe, &d(1, 4096, 48), None).unwrap().team, 8);
        assert_eq!(fit_tiles(&lavapipe, &d(1, 4096, 40), None).unwrap().team, 8);
        assert_eq!(
            fit_tiles(&lavapipe, &d(1, 4096, 128), None).unwrap().team,
            0
        );
        // The plan names it, and its teams.
        for (kv, teams) in [(4096, 16), (16384, 8)] {
            let p = crate::planner::plan(
                &nvidia,
                &d(1, kv, 128),
                &crate::planner::PlanOptions::default(),
            )
            .unwrap();
            assert!(
                p.to_string().contains(&format!(" subgroups={teams}x32 ")),
                "{p}"
            );
        }
    }

    #[test]
    fn sixteen_teams_where_few_query_groups_read_mid_length_caches_on_discrete_gpus() {
        use crate::desc::DType;
        let nvidia = Capabilities::nvidia_vulkan();
        let d = |b, hq, hkv, kv, dim, dtype| {
            AttentionDesc::new(b, hq, hkv, 1, kv, dim).with_dtype(dtype)
        };
        // 32/8 heads (8 query groups of 4 query vectors) at d128, f16 from 4096 to 8192 keys,
        // f32 from 8192 to 32768: 16 teams a workgroup, their outputs in one part, splits for
        // one workgroup an SM merged in pass.
        for (dtype, lens) in [
            (DType::F16, [4096, 5000, 8192]),
            (DType::F32, [8192, 16384, 32768]),
        ] {
            for kv in lens {
                let desc = d(1, 32, 8, kv, 128, dtype);
                assert!(wide_teams(&nvidia, &desc), "{kv} {dtype:?}");
                let t = fit_tiles(&nvidia, &desc, None)
                    .unwrap()
                    .with_in_pass_merge(&nvidia, &desc);
                assert_eq!(t.workgroup_size, WIDE_TEAMS * 32, "{kv}: {t:?}");
                assert_eq!(t.output_parts, 1, "{kv}: {t:?}");
                assert!(t.merged, "{kv}: {t:?}");
                assert!(t.workgroup_bytes <= nvidia.max_workgroup_storage_bytes);
                assert_eq!(t.kv_splits, 16, "{kv}: {t:?}");
                assert!(t.kv_splits * 8 <= unit_workgroups(&nvidia), "{kv}: {t:?}");
                // The workgroup memory naga finds in the module is the planner's.
                let (dispatches, _) = plan(&nvidia, &desc, &t).unwrap();
                let naga = crate::spirv::variant_workgroup_bytes(&dispatches[0].variant).unwrap();
                assert_eq!(t.workgroup_bytes, naga, "{kv}: {t:?}");
            }
            // Not outside the range (8 teams).
            let range = wide_teams_kv_len(dtype);
            for kv in [2048, range.start() - 1, range.end() + 1, 131072] {
                let t = fit_tiles(&nvidia, &d(1, 32, 8, kv, 128, dtype), None).unwrap();
                assert_eq!(t.workgroup_size, TEAMS * 32, "{kv}: {t:?}");
            }
        }
        let f16 = |b, hq, hkv, dim| d(b, hq, hkv, 4096, dim, DType::F16);
        // Not with more query groups (batch 2 or 4, 32 KV heads), fewer query vectors a
        // workgroup (8/8 heads: 8 query groups of one), nor other head dims.
        for desc in [
            f16(2, 32, 8, 128),
            f16(4, 32, 8, 128),
            f16(1, 32, 32, 128),
            f16(1, 8, 8, 128),
            f16(1, 32, 8, 64),
            f16(1, 32, 8, 256),
        ] {
            assert!(!wide_teams(&nvidia, &desc), "{desc:?}");
        }
        // 2 query rows of 16/8 heads (4 query vectors a KV head) alike.
        let rows2 = AttentionDesc::new(1, 16, 8, 2, 4096, 128).with_dtype(DType::F16);
        assert!(wide_teams(&nvidia, &rows2));
        // Nowhere the splits are not merged in pass, nor on Apple (35 KB past its 32 KB), nor
        // on CPU adapters.
        let mut reduce = nvidia.clone();
        reduce.coherent_storage = false;
        for caps in [
            reduce,
            Capabilities::apple_m_series(),
            Capabilities::lavapipe(),
        ] {
            assert!(!wide_teams(&caps, &f16(1, 32, 8, 128)), "{caps:?}");
        }
    }

    #[test]
    fn tiles_fit_every_profile() {
        for (name, caps) in Capabilities::profiles() {
            for d in (8..=256).step_by(8) {
                for (hq, hkv, lq) in [(32, 8, 1), (32, 1, 8), (4, 4, 2)] {
                    let desc = AttentionDesc::new(1, hq, hkv, lq, 5000, d);
                    let t = fit_tiles(&caps, &desc, None)
                        .unwrap_or_else(|e| panic!("{name} d{d}: {e}"));
                    assert!(
                        t.workgroup_bytes <= caps.max_workgroup_storage_bytes,
                        "{name} {t:?}"
                    );
                    assert!(
                        t.rows <= 4 * (t.workgroup_size / (d / 4)),
                        "{name} d{d} {t:?}"
                    );
                }
            }
        }
    }
}
