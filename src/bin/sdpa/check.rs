//! `sdpa check`.

use std::process::ExitCode;

use wgpu_sdpa::check::{default_matrix, run_case};
use wgpu_sdpa::Result;

#[derive(clap::Args)]
pub struct Args {
    /// Only the cases whose name contains this.
    #[arg(long, default_value = "")]
    filter: String,
    /// Keep wgpu's runtime bounds checks in the shaders.
    #[arg(long)]
    checks: bool,
    /// Seed of the generated inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn main(args: &Args) -> Result<ExitCode> {
    let ctx = crate::context(args.checks)?;
    let caps = ctx.capabilities();
    println!(
        "sdpa check on {} ({:?}), shader runtime checks {}",
        caps.adapter_name,
        caps.backend,
        if ctx.runtime_checks() { "on" } else { "off" }
    );
    if !caps.shader_f16 {
        println!("skipped: f16 cases (the adapter has no SHADER_F16)");
    }
    println!(
        "criterion: max(|out - ref| - atol*|ref|) <= atol, f32 atol 2e-5, f16 atol 3e-4 (MLX's)"
    );
    println!(
        "{:<40} {:>7} {:>11} {:>11}  plan",
        "case", "result", "max|diff|", "excess"
    );
    let mut failed = 0;
    let mut total = 0;
    for case in default_matrix(&ctx)
        .iter()
        .filter(|c| c.name.contains(&args.filter))
    {
        total += 1;
        match run_case(&ctx, case, args.seed) {
            Ok(o) => {
                let pass = o.comparison.passed();
                failed += usize::from(!pass);
                println!(
                    "{:<40} {:>7} {:>11.3e} {:>11.3e}  {}",
                    case.name,
                    if pass { "PASS" } else { "FAIL" },
                    o.comparison.max_abs_diff,
                    o.comparison.worst_excess,
                    o.plan
                );
            }
            Err(e) => {
                failed += 1;
                println!("{:<40} {:>7}  {e}", case.name, "ERROR");
            }
        }
    }
    println!("{} of {total} cases passed", total - failed);
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
