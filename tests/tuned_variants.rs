//! Variants that the default plan does not take on this machine, run through the whole
//! `sdpa check` matrix against the f64 reference: each set of tuning knobs (`WGPU_SDPA_TUNE`,
//! read once per process) runs in a child process of this test binary.
//!
//! - `spirv_all=1`: every kernel's module made by `src/spirv.rs` and passed to wgpu as SPIR-V,
//!   the path the cooperative-matrix kernels take on Vulkan GPUs (which CI has not);
//! - the GPU defaults a CPU adapter skips: the portable kernel's register prefetch, grid fill
//!   and 8 query rows per thread where the blocks allow; the portable decode kernel's V loads at
//!   the start of a tile, and with them (f16, head dim 128) its next tile's K loaded a tile
//!   ahead, with the subgroup and cooperative-matrix decode kernels off (`decode_sg=0`,
//!   `decode_coop=0`) so that the portable one takes the decode cases on any adapter (on the
//!   H200 those two took them all, and no case loaded K ahead);
//! - 8 keys per thread in the portable kernel's S (what its 128-row blocks take on GPUs with 48
//!   KiB, which lavapipe's 32 KiB cannot hold) on every tile that allows it, with 8 rows where
//!   the output allows them;
//! - the decode kernel's output merge in 8 and 4 passes (`decode_merge=1`, `=2`): what adapters
//!   with little workgroup memory run; lavapipe takes fewer passes within the 20 KiB budget;
//!   with the latter, no subgroup decode kernel (`decode_sg=0`): the other decode kernels on the
//!   shapes it takes on lavapipe (what adapters without one fixed subgroup size run);
//! - the subgroup decode kernel's teams' outputs merged in two halves of the columns
//!   (`decode_os_parts=2`), with the splits merged in the split pass, 8 a round (Vulkan);
//! - the subgroup decode kernel's loads a block ahead wherever it runs (`decode_sg_pf=1`; by
//!   default only f16 d128 in long splits, which 8-lane subgroups do not serve).

mod common;

use common::{assert_cases, ctx};
use wgpu_sdpa::check::{default_matrix, CheckCase};
use wgpu_sdpa::kernels::vector::VectorTiles;
use wgpu_sdpa::{plan, AttentionDesc, CausalAlignment, DType, Kernel, Mask, Path};

const CHILD: &str = "WGPU_SDPA_TUNED_CHILD";

const KNOB_SETS: [&str; 7] = [
    "spirv_all=1",
    "portable_prefetch=16,portable_fill=128,decode_vearly=1,decode_sg=0,decode_coop=0",
    "portable_keys=8,portable_rows=8,portable_prefetch=16",
    "decode_merge=1",
    "decode_merge=2,decode_sg=0",
    "decode_os_parts=2,decode_in_pass=1",
    "decode_sg_pf=1",
];

#[test]
fn knob_variants_pass_the_check_matrix() {
    if ctx().is_none() {
        return;
    }
    for knobs in KNOB_SETS {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "child_runs_the_matrix",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("WGPU_SDPA_TUNE", knobs)
            .env(CHILD, "1")
            .output()
            .expect("run the test binary as a child");
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "knobs {knobs}:\n{text}");
        assert!(
            text.contains("CHILD RAN"),
            "knobs {knobs}: the child did not run the matrix:\n{text}"
        );
    }
}

/// The body of each child; on its own (no `WGPU_SDPA_TUNED_CHILD`) it says so and returns.
#[test]
fn child_runs_the_matrix() {
    if std::env::var(CHILD).is_err() {
        eprintln!("SKIPPED: runs only as a child of knob_variants_pass_the_check_matrix");
        return;
    }
    let Some(ctx) = ctx() else { return };
    let mut cases = default_matrix(ctx);
    // 64-row blocks of the portable kernel, where 8 query rows per thread apply (the default
    // matrix's tiles on a 32 KiB adapter are smaller).
    for (d, blocks, mask) in [
        (128, (64, 64), Mask::None),
        (80, (64, 32), Mask::Causal(CausalAlignment::BottomRight)),
        (64, (64, 32), Mask::None),
    ] {
        let desc = AttentionDesc::new(1, 2, 1, 70, 90, d)
            .with_dtype(DType::F32)
            .with_mask(mask);
        let mut case = CheckCase::new(
            format!("fused f32 d{d} blocks {blocks:?}"),
            desc,
            Path::Fused,
        );
        case.fused_blocks = Some(blocks);
        case.cooperative = Some(false);
        cases.push(case);
    }
    assert_cases(ctx, &cases);
    // The kernel each case ran, for the knob sets' checks below.
    let planned: Vec<Kernel> = cases
        .iter()
        .filter_map(|c| {
            plan(
                ctx.capabilities(),
                &c.desc,
                &c.plan_options(ctx.plan_options()),
            )
            .ok()
            .map(|p| p.kernel())
        })
        .collect();
    let count = |f: fn(&VectorTiles) -> bool| {
        planned
            .iter()
            .filter(|k| matches!(k, Kernel::Vector(t) if f(t)))
            .count()
    };
    let knobs = std::env::var("WGPU_SDPA_TUNE").unwrap_or_default();
    let caps = ctx.capabilities();
    // The GPU defaults of the decode kernel: some case must have run its K a tile ahead.
    if knobs.contains("decode_vearly=1") {
        let ahead = count(|t| t.k_ahead);
        assert!(
            ahead > 0,
            "no case ran the decode kernel with K a tile ahead"
        );
        eprintln!("{ahead} cases ran the decode kernel with K a tile ahead");
    }
    // The subgroup kernel's outputs in two halves: some case must have run them (merged in
    // pass too where the adapter allows it).
    if knobs.contains("decode_os_parts=2") {
        let halves = count(|t| t.output_parts == 2);
        let merged = count(|t| t.merged);
        assert!(
            halves > 0,
            "no case ran the subgroup kernel's outputs in halves"
        );
        if caps.backend == wgpu::Backend::Vulkan && caps.coherent_storage {
            assert!(merged > 0, "no case merged its splits in the split pass");
        }
        eprintln!("{halves} cases in halves, {merged} merged in pass");
    }
    // The subgroup kernel's loads a block ahead: some case must have run them where the
    // adapter's subgroups have one fixed size.
    if knobs.contains("decode_sg_pf=1") {
        let ahead = count(|t| t.team > 0 && t.k_ahead);
        if caps.subgroups && caps.subgroup_min_size == caps.subgroup_max_size {
            assert!(
                ahead > 0,
                "no case ran the subgroup kernel with its loads a block ahead"
            );
            eprintln!("{ahead} cases ran the subgroup kernel with its loads a block ahead");
        } else {
            println!("SKIPPED: the subgroup kernel's loads a block ahead (no fixed subgroup size)");
        }
    }
    eprintln!(
        "CHILD RAN {} cases with WGPU_SDPA_TUNE={}",
        cases.len(),
        knobs
    );
}
