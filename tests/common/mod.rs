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
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        match run_case(ctx, case, 1000 + i as u64) {
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
