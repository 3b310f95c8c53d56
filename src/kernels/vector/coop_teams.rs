//! Host side of `wgsl/vector_coop_teams.wgsl`, the cooperative-matrix subgroup decode kernel
//! (each subgroup streams its own blocks of 16 keys; more than 4 query vectors a KV head against
//! long caches): where it serves and takes, its workgroup memory, tiles and split pass.

use super::matrix::{coop_decode_variant, fragment_tiles, MATRIX_FRAG, MATRIX_PAD};
use super::splits::{key_splits_aiming, unit_workgroups};
use super::VectorTiles;
use crate::capabilities::Capabilities;
use crate::desc::AttentionDesc;
use crate::error::{Error, Result};
use crate::kernels::kv_in_16_byte_words;
use crate::planner::mask_kind;
use crate::shader::{KernelEntry, ShaderVariant};

/// Keys per team block of the cooperative-matrix subgroup kernel (`KB` of
/// `wgsl/vector_coop_teams.wgsl`: one key fragment).
pub(super) const COOP_TEAM_KEYS: u32 = MATRIX_FRAG;

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
pub(super) fn coop_teams_fitting(
    caps: &Capabilities,
    desc: &AttentionDesc,
    wanted: Option<u32>,
) -> Option<u32> {
    let fits = |n: u32| caps.fits_workgroup(32 * n, coop_team_bytes(desc, n));
    wanted
        .filter(|&n| (1..=16).contains(&n) && fits(n))
        .or_else(|| (2..=8).rev().find(|&n| fits(n)))
}

/// Tiles and splits of the cooperative-matrix subgroup kernel (see [`coop_teams_serve`]): up to
/// 16 query vectors a workgroup, splits of whole team blocks. Knob `decode_teams` (1 to 16, where
/// they fit) sets its subgroups a workgroup.
pub(super) fn coop_team_tiles(
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

/// The split pass of the cooperative-matrix subgroup kernel. `ablate`: the split pass's
/// profiling bits (see [`plan`](super::plan)).
pub(super) fn coop_team_variant(
    desc: &AttentionDesc,
    t: &VectorTiles,
    ablate: u32,
) -> ShaderVariant {
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
