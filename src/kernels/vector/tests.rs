//! Unit tests of the decode family's host side: which kernel takes a description, its tiles,
//! splits and dispatches, on the capability profiles (no GPU).

use super::coop_teams::{coop_teams_fitting, COOP_TEAM_KEYS};
use super::matrix::MATRIX_BUDGET_BYTES;
use super::splits::{target_workgroups, unit_workgroups, MIN_SPLIT_KEYS};
use super::subgroup::{team_workgroup_bytes, TEAM_OCCUPANCY_BYTES};
use super::*;
use crate::shader::KernelEntry;

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
    for (hq, hkv, q_len, rows) in [(64, 8, 1, 8), (32, 8, 2, 8), (32, 2, 1, 16), (16, 2, 2, 16)] {
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
    // fill it where the keys allow. The same on a GPU whose driver reports 46 SMs, where the
    // target scales to two an SM.
    let smaller = Capabilities {
        compute_units: 46,
        ..Capabilities::nvidia_vulkan()
    };
    assert_eq!(target_workgroups(&Capabilities::nvidia_vulkan()), 264);
    assert_eq!(
        (target_workgroups(&smaller), unit_workgroups(&smaller)),
        (92, 46)
    );
    let shapes = [(32, 8, 1), (32, 8, 2), (32, 8, 4), (32, 32, 1), (16, 2, 1)];
    for caps in [Capabilities::nvidia_vulkan(), smaller] {
        for ((hq, hkv, q_len), kv) in shapes
            .into_iter()
            .flat_map(|s| [16384, 65536, 131072].map(|kv| (s, kv)))
        {
            let desc =
                AttentionDesc::new(1, hq, hkv, q_len, kv, 128).with_dtype(crate::desc::DType::F16);
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
            let units = caps.compute_units;
            assert!(
                workgroups <= target,
                "{units}: {hq}/{hkv} q{q_len} kv{kv}: {t:?}"
            );
            // Full, unless the splits are as short as they go, or splits one grain shorter
            // would not cover the keys in as many as the target allows (16/2 heads at 65536
            // keys on the cooperative-matrix subgroup kernel: 128 splits of 512 keys, where
            // 132 of 496 fall short).
            assert!(
                workgroups + y * z > target
                    || t.kv_splits == kv.div_ceil(MIN_SPLIT_KEYS)
                    || (t.split_len - t.split_grain()) * (target / (y * z)) < kv,
                "{units}: {hq}/{hkv} q{q_len} kv{kv}: {t:?}"
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
    let d =
        |b, hq, hkv, kv, dim, dtype| AttentionDesc::new(b, hq, hkv, 1, kv, dim).with_dtype(dtype);
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
                let t =
                    fit_tiles(&caps, &desc, None).unwrap_or_else(|e| panic!("{name} d{d}: {e}"));
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
