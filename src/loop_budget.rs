//! Mesa llvmpipe's loop budget, which the planner respects.
//!
//! llvmpipe (the driver behind lavapipe, Vulkan on the CPU, used by CI and headless machines)
//! silently ends every loop of a shader invocation once the invocation has run a fixed number of
//! loop iterations in all. A kernel that needs more returns a truncated sum and no error, so the
//! planner bounds each kernel's loop count on that driver: `Path::Auto` falls back to the unfused
//! kernels (whose loops are shorter), a forced path is refused with [`Error::PathUnavailable`].

use crate::desc::AttentionDesc;
use crate::error::{Error, Result};
use crate::planner::{Kernel, Plan};
use crate::Capabilities;

/// Loop iterations Mesa's llvmpipe (lavapipe) lets one shader invocation run: gallivm keeps one
/// counter per invocation, shared by every loop (`LP_MAX_TGSI_LOOP_ITERATIONS`), and once it runs
/// out every loop ends at its next test. A kernel that needs more silently skips the rest of its
/// work: measured on Mesa 22.3, the fused kernel's sum over keys stopped after about 35,900 keys
/// at head dim 64 (f32 or f16), 18,500 at 128 and 10,000 at 256 (f16), and the unfused P·V after
/// 1,048,560 keys (16 per iteration), each giving a wrong output and no error.
const LLVMPIPE_LOOP_BUDGET: u64 = 65_535;

/// An upper bound of the loop iterations one invocation of the plan's longest kernel runs, from
/// the loops of `wgsl/fused.wgsl` (every loop counted, none credited as unrolled, plus a quarter
/// for the few the count misses: the measured limits above are all above this bound) and of
/// `wgsl/unfused_*.wgsl` (whose inner loops have constant trip counts that Mesa unrolls, as the
/// unfused limit of exactly 65,535 x 16 keys shows). `None` for the cooperative kernel, which
/// llvmpipe does not run.
fn loop_iterations(desc: &AttentionDesc, kernel: Kernel) -> Option<u64> {
    let (d, dv, lk) = (
        desc.head_dim as u64,
        desc.v_head_dim as u64,
        desc.kv_len as u64,
    );
    match kernel {
        Kernel::Unfused => {
            let softmax = 2 * lk.div_ceil(128) + 8;
            let pv = lk.div_ceil(16) + 16;
            let scores = d.div_ceil(16) + 16;
            Some(softmax.max(pv).max(scores))
        }
        Kernel::Fused(t) => {
            let (bq, bk, dc, kc, wg) = (
                t.block_q as u64,
                t.block_k as u64,
                t.d_chunk as u64,
                t.k_chunk as u64,
                t.workgroup_size as u64,
            );
            let q_chunk = (bq * dc / 4).div_ceil(wg);
            let streamed_q = if t.q_resident { 0 } else { q_chunk };
            let per_tile = 1
                + (d / dc) * (1 + streamed_q + (bk * dc / 4).div_ceil(wg) + dc)
                + bk / 16
                + (bk / kc) * (1 + (kc * dv / 4).div_ceil(wg) + kc / 4);
            let once = (d / dc) * (1 + q_chunk) + bk / 16 + 16;
            // With KV splits each workgroup streams one split, and the reduce pass (as the
            // decode kernel's below) loops over the splits.
            let keys = (t.split_len as u64).min(lk);
            let reduce = t.kv_splits as u64 * (3 + dv.div_ceil(64));
            let total = (keys.div_ceil(bk) * per_tile + once).max(reduce);
            Some(total + total / 4)
        }
        Kernel::FusedCoop(_) => None,
        Kernel::Vector(t) => {
            // wgsl/vector.wgsl per tile: staging K and V, the scores (one dot product of d/4
            // steps per thread and pass), two softmax loops over the tile's keys and up to four
            // P V loops over them; wgsl/vector_reduce.wgsl: three loops over the splits.
            let (bk, wg, rows) = (t.block_k as u64, t.workgroup_size as u64, t.rows as u64);
            let (d4, dv4) = (d / 4, dv / 4);
            let per_tile = 1
                + (bk * d4).div_ceil(wg)
                + (rows * bk).div_ceil(wg) * (1 + d4)
                + 2 * bk
                + (bk * dv4).div_ceil(wg)
                + 4 * bk;
            let tiles = (t.split_len as u64).div_ceil(bk);
            let split_pass = tiles * per_tile + (rows * d4).div_ceil(wg) + 16;
            let reduce = t.kv_splits as u64 * (3 + dv.div_ceil(64));
            let total = split_pass.max(reduce);
            Some(total + total / 4)
        }
    }
}

fn is_llvmpipe(caps: &Capabilities) -> bool {
    caps.adapter_name.to_lowercase().contains("llvmpipe")
}

/// Whether `kernel` fits the budget for `desc` on this adapter (always, off llvmpipe).
pub(crate) fn fits(caps: &Capabilities, desc: &AttentionDesc, kernel: Kernel) -> bool {
    !is_llvmpipe(caps) || loop_iterations(desc, kernel).is_none_or(|n| n <= LLVMPIPE_LOOP_BUDGET)
}

/// On llvmpipe, refuses a plan whose kernels would run past the loop budget (a typed error
/// instead of a silently truncated result); elsewhere, and within the budget, does nothing.
pub(crate) fn check(caps: &Capabilities, plan: &Plan) -> Result<()> {
    if !is_llvmpipe(caps) {
        return Ok(());
    }
    match loop_iterations(plan.desc(), plan.kernel()) {
        Some(n) if n > LLVMPIPE_LOOP_BUDGET => Err(Error::PathUnavailable {
            path: plan.kernel().name().into(),
            reason: format!(
                "on llvmpipe every loop of a shader invocation ends after {LLVMPIPE_LOOP_BUDGET} \
                 iterations in all (Mesa's LP_MAX_TGSI_LOOP_ITERATIONS), and this kernel may need \
                 {n} for kv_len {}: the result would be silently truncated{}",
                plan.desc().kv_len,
                match plan.kernel() {
                    Kernel::Unfused => "",
                    _ => "; Path::Unfused serves up to about a million keys there",
                }
            ),
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use crate::planner::{plan, Kernel, Path, PlanOptions};
    use crate::{AttentionDesc, Capabilities, DType};

    fn options(path: Path) -> PlanOptions {
        PlanOptions {
            path,
            ..PlanOptions::default()
        }
    }

    #[test]
    fn the_fused_kernel_takes_kv_splits_to_fit_the_budget_and_forced_ones_are_refused() {
        let lavapipe = Capabilities::lavapipe();
        // Prefill at head dim 128, f32: the fused kernel is within the budget for 8,192 keys and
        // past it for 40,000 in one piece (it was measured to truncate from about 18,500).
        let short = AttentionDesc::new(1, 4, 4, 64, 8_192, 128).with_dtype(DType::F32);
        let long = AttentionDesc::new(1, 4, 4, 64, 40_000, 128).with_dtype(DType::F32);
        let p = plan(&lavapipe, &short, &options(Path::Auto)).unwrap();
        assert!(
            matches!(p.kernel(), Kernel::Fused(t) if t.kv_splits == 1),
            "{p:?}"
        );
        // The keys split until each workgroup's loop fits.
        for path in [Path::Auto, Path::Fused] {
            let p = plan(&lavapipe, &long, &options(path)).unwrap();
            assert!(
                matches!(p.kernel(), Kernel::Fused(t) if t.kv_splits > 1),
                "{p:?}"
            );
            assert!(super::fits(&lavapipe, &long, p.kernel()));
        }
        // Forced in one piece: refused when forced, the unfused path under Auto.
        let whole = |path| PlanOptions {
            fused_kv_splits: Some(1),
            ..options(path)
        };
        let p = plan(&lavapipe, &long, &whole(Path::Auto)).unwrap();
        assert_eq!(p.kernel(), Kernel::Unfused, "{p:?}");
        assert!(
            p.reason().contains("LP_MAX_TGSI_LOOP_ITERATIONS"),
            "{}",
            p.reason()
        );
        let e = plan(&lavapipe, &long, &whole(Path::Fused)).unwrap_err();
        assert!(
            matches!(&e, crate::Error::PathUnavailable { path, reason }
                if path == "fused" && reason.contains("llvmpipe")),
            "{e}"
        );
        // Another driver has no such budget: the same problem stays fused, in one piece where
        // the query blocks fill the GPU.
        let p = plan(&Capabilities::nvidia_vulkan(), &long, &options(Path::Auto)).unwrap();
        assert!(
            matches!(p.kernel(), Kernel::Fused(_) | Kernel::FusedCoop(_)),
            "{p:?}"
        );
    }

    #[test]
    fn the_decode_kernel_takes_more_splits_to_fit_the_budget() {
        let lavapipe = Capabilities::lavapipe();
        let desc = AttentionDesc::new(1, 2, 1, 4, 66_048, 64).with_dtype(DType::F32);
        let default = crate::kernels::vector::fit_tiles(&lavapipe, &desc, None).unwrap();
        assert!(!super::fits(&lavapipe, &desc, Kernel::Vector(default)));
        let p = plan(&lavapipe, &desc, &options(Path::Auto)).unwrap();
        let Kernel::Vector(t) = p.kernel() else {
            panic!("{p:?}")
        };
        assert!(t.kv_splits > default.kv_splits, "{t:?} vs {default:?}");
        assert!(super::fits(&lavapipe, &desc, p.kernel()));
        // Forced splits are kept, and refused past the budget.
        let forced = PlanOptions {
            decode_splits: Some(default.kv_splits),
            ..options(Path::Vector)
        };
        assert!(plan(&lavapipe, &desc, &forced).is_err());
    }

    #[test]
    fn cooperative_required_with_a_portable_stage_is_an_error() {
        let desc = AttentionDesc::new(1, 4, 4, 256, 256, 64).with_dtype(DType::F16);
        let options = PlanOptions {
            path: Path::Fused,
            cooperative: Some(true),
            fused_stage: Some(DType::F32),
            ..PlanOptions::default()
        };
        let e = plan(&Capabilities::nvidia_vulkan(), &desc, &options).unwrap_err();
        assert!(e.to_string().contains("fused_stage"), "{e}");
        // Either alone plans.
        for options in [
            PlanOptions {
                fused_stage: None,
                ..options
            },
            PlanOptions {
                cooperative: None,
                ..options
            },
        ] {
            plan(&Capabilities::nvidia_vulkan(), &desc, &options).unwrap();
        }
    }
}
