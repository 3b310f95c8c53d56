use wgpu_sdpa::check::{default_matrix, run_case};
use wgpu_sdpa::Context;
fn main() {
    let ctx = Context::headless().unwrap();
    println!("{:?}", ctx);
    let filter = std::env::args().nth(1).unwrap_or_default();
    for case in default_matrix(&ctx)
        .iter()
        .filter(|c| c.name.contains(&filter))
    {
        let t = std::time::Instant::now();
        match run_case(&ctx, case, 1) {
            Ok(o) => println!(
                "{:40} {} worst {:.3e} maxabs {:.3e} nonfinite {} {:?} | {}",
                case.name,
                if o.comparison.passed() {
                    "PASS"
                } else {
                    "FAIL"
                },
                o.comparison.worst_excess,
                o.comparison.max_abs_diff,
                o.comparison.non_finite,
                t.elapsed(),
                o.plan
            ),
            Err(e) => println!("{:40} ERROR {e}", case.name),
        }
    }
}
