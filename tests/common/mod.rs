//! Shared by the integration tests: one context per test binary, and the rule for machines
//! without an adapter (skip with a printed reason, unless WGPU_SDPA_REQUIRE_ADAPTER=1 as in CI).

#![allow(dead_code)]

use std::sync::OnceLock;

use wgpu_sdpa::check::{run_case, CheckCase};
use wgpu_sdpa::{Context, Path};

/// The default adapter's context, or `None` (printed) when there is none and none is required.
pub fn ctx() -> Option<&'static Context> {
    static CTX: OnceLock<Option<Context>> = OnceLock::new();
    CTX.get_or_init(|| match Context::headless() {
        Ok(ctx) => Some(ctx),
        Err(e) => {
            if std::env::var("WGPU_SDPA_REQUIRE_ADAPTER").is_ok_and(|v| v == "1") {
                panic!("no adapter, and WGPU_SDPA_REQUIRE_ADAPTER=1: {e}");
            }
            eprintln!("SKIPPED: no wgpu adapter on this machine ({e})");
            None
        }
    })
    .as_ref()
}

/// Runs cases and asserts each passes MLX's tolerance against the f64 reference, reporting every
/// failure (not just the first).
pub fn assert_cases(ctx: &Context, cases: &[CheckCase]) {
    assert_cases_on(ctx, cases, 1000, |_| true);
}

/// [`assert_cases`] with seeds from `seed0`, each case also failing where its plan's kernel is
/// not one `kernel_ok` accepts.
pub fn assert_cases_on(
    ctx: &Context,
    cases: &[CheckCase],
    seed0: u64,
    kernel_ok: impl Fn(&wgpu_sdpa::Kernel) -> bool,
) {
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        match run_case(ctx, case, seed0 + i as u64) {
            Ok(o) if !kernel_ok(&o.kernel) => failures.push(format!(
                "{}: not the expected kernel: {}",
                case.name, o.plan
            )),
            Ok(o) if o.comparison.passed() => {}
            Ok(o) => failures.push(format!("{}: {:?} ({})", case.name, o.comparison, o.plan)),
            Err(e) => failures.push(format!("{}: error {e}", case.name)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// The two kernels every description can run on.
pub const PATHS: [Path; 2] = [Path::Unfused, Path::Fused];

/// Cases of a property-based harness: `PROPTEST_CASES` when set (the long run), else `default`
/// (the short run CI does).
pub fn proptest_cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Cases of a harness that runs on the adapter: `WGPU_SDPA_GPU_CASES` when set, else
/// `PROPTEST_CASES / 50` when that is set, else `default`.
pub fn gpu_cases(default: u32) -> u32 {
    let env = |name: &str| std::env::var(name).ok().and_then(|s| s.parse::<u32>().ok());
    env("WGPU_SDPA_GPU_CASES")
        .or_else(|| env("PROPTEST_CASES").map(|n| (n / 50).max(1)))
        .unwrap_or(default)
}
