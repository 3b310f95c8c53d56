//! Host side of `wgsl/vector_subgroup.wgsl`, the subgroup decode kernel (adapters with one fixed
//! subgroup size; each subgroup streams its own blocks of keys): where it serves and takes, its
//! lane layout, workgroup memory and per-shape choices, tiles and split pass.

use super::matrix::matrix_takes;
use super::splits::{
    key_splits_aiming, query_groups, target_workgroups, unit_workgroups, MERGE_FLAG_BYTES,
};
use super::{word_loads, VectorTiles};
use crate::capabilities::Capabilities;
use crate::desc::AttentionDesc;
use crate::error::Result;
use crate::planner::mask_kind;
use crate::shader::{KernelEntry, ShaderVariant};

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
pub(super) fn team_workgroup_bytes(
    desc: &AttentionDesc,
    teams: u32,
    parts: u32,
    half_queries: bool,
) -> u32 {
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
pub(super) const TEAM_OCCUPANCY_BYTES: u32 = 24 * 1024;

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
/// storage (the splits merged in pass, see [`merges_in_pass`](super::merges_in_pass)), at head dims
/// 128/128, 4 query vectors a workgroup, for caches of [`wide_teams_kv_len`] keys, where the
/// workgroup fits the adapter's limits and the query groups are few enough that [`TEAMS`] teams
/// would take at least 32 splits a group (their merge in pass then takes 5 rounds of a thread's
/// loads where 16 teams with half the splits take 1).
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
pub(super) fn team_tiles(
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
        lanes_per_key,
        vectorized: word_loads(desc),
        k_ahead: loads_ahead(desc, split_len, block_k),
        team,
        scattered,
        whole_lines,
        clamped_v,
        half_queries,
        output_parts,
        ..VectorTiles::base(
            rows,
            block_k,
            teams * team,
            (kv_splits, split_len),
            team_workgroup_bytes(desc, teams, output_parts, half_queries),
        )
    })
}

/// Query vectors a workgroup of the subgroup decode kernel: at most 4 (a KV head with more
/// takes several workgroups).
fn team_rows(desc: &AttentionDesc) -> u32 {
    (desc.group_size() * desc.q_len).min(4)
}

/// The split pass of the subgroup decode kernel, its splits merged in pass where `t.merged`
/// (see [`merges_in_pass`](super::merges_in_pass)). `split_ablate`: the split pass's profiling
/// bits (see [`plan`](super::plan)).
pub(super) fn subgroup_variant(
    desc: &AttentionDesc,
    t: &VectorTiles,
    split_ablate: u32,
) -> ShaderVariant {
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
    let entry = if t.merged {
        if let Some(bits) = crate::tune::knob("decode_merge_ablate") {
            constants.push(("MERGE_ABLATE", bits));
        }
        KernelEntry::VectorSubgroupMerged
    } else {
        KernelEntry::VectorSubgroup
    };
    ShaderVariant::new(entry, desc.dtype, constants)
}
