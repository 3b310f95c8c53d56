//! wgpu-sdpa's correctness matrix in a browser: [`run_check`] creates the library's context on
//! the page's WebGPU adapter (`navigator.gpu`), runs every case of
//! [`wgpu_sdpa::check::default_matrix`] through [`run_case_async`] against the f64 CPU reference,
//! and prints a pass/fail table to the page (`<pre id="log">`) and to the console. The last line
//! is the marker `scripts/web-test.sh` waits for:
//!
//! ```text
//! SDPA-WEB-DONE passed=P failed=F skipped=S f32_passed=A f32_total=B gpu_errors=E
//! ```
//!
//! or `SDPA-WEB-DONE error <why>` when nothing could run. The f16 cases are listed as skipped,
//! with the reason, on an adapter without `shader-f16`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use wasm_bindgen::prelude::*;
use wgpu_sdpa::check::{default_matrix, matrix_for, run_case_async};
use wgpu_sdpa::{Context, DType};

/// The seed of the generated inputs (`sdpa check`'s default).
const SEED: u64 = 1;

/// Writes a line to the console and appends it to the page's `<pre id="log">`.
fn log(line: &str) {
    web_sys::console::log_1(&line.into());
    let pre = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("log"));
    if let Some(pre) = pre {
        let text = pre.text_content().unwrap_or_default();
        pre.set_text_content(Some(&format!("{text}{line}\n")));
    }
}

/// Milliseconds since the epoch, from the browser's clock (`std::time` has none on the web).
fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Runs the matrix and prints the table and the final marker. Resolves once every case ran;
/// errors are printed, not thrown, so the marker is always written.
#[wasm_bindgen]
pub async fn run_check() {
    console_error_panic_hook::set_once();
    match check().await {
        Ok(line) | Err(line) => log(&line),
    }
}

/// The run; `Ok` and `Err` both carry the marker line.
async fn check() -> Result<String, String> {
    let navigator = web_sys::window()
        .ok_or("SDPA-WEB-DONE error no window")?
        .navigator();
    let gpu = js_sys::Reflect::get(&navigator, &"gpu".into()).unwrap_or(JsValue::UNDEFINED);
    if gpu.is_undefined() {
        return Err(
            "SDPA-WEB-DONE error navigator.gpu is undefined: this browser exposes no \
                    WebGPU (a secure context and WebGPU support are needed)"
                .into(),
        );
    }
    let ctx = Context::headless_async()
        .await
        .map_err(|e| format!("SDPA-WEB-DONE error no context: {e}"))?;

    // In a browser every wgpu error reaches the uncaptured-error handler (the library cannot
    // wait for error scopes there): count them, so a GPU error fails the run even if the output
    // it spoiled happened to compare well. They arrive asynchronously, so one may be reported
    // under the case after the one that caused it.
    let gpu_errors = Arc::new(AtomicUsize::new(0));
    {
        let gpu_errors = gpu_errors.clone();
        ctx.device()
            .on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
                gpu_errors.fetch_add(1, Ordering::SeqCst);
                web_sys::console::error_1(&format!("uncaptured wgpu error: {e}").into());
            }));
    }

    let caps = ctx.capabilities();
    let name = match caps.adapter_name.as_str() {
        "" => "an adapter the browser does not name",
        name => name,
    };
    log(&format!(
        "wgpu-sdpa check on {name} ({:?}, {:?}): shader-f16 {}, subgroups {} (sizes {}..{}), \
         workgroup memory {} bytes, {} invocations per workgroup",
        caps.backend,
        caps.device_type,
        caps.shader_f16,
        caps.subgroups,
        caps.subgroup_min_size,
        caps.subgroup_max_size,
        caps.max_workgroup_storage_bytes,
        caps.max_invocations_per_workgroup,
    ));
    log(&format!(
        "device features (those the library wants that wgpu's WebGPU backend maps): {:?}",
        ctx.device().features()
    ));
    let skip_f16 = (!caps.shader_f16)
        .then_some("the adapter has no shader-f16 (wgpu's SHADER_F16), so f16 kernels cannot run");
    if let Some(reason) = skip_f16 {
        log(&format!("skipped: every f16 case: {reason}"));
    }
    log("criterion: max(|out - ref| - atol*|ref|) <= atol, f32 atol 2e-5, f16 atol 3e-4 (MLX's)");
    log(&format!(
        "{:<40} {:>7} {:>11} {:>11} {:>8}  plan",
        "case", "result", "max|diff|", "excess", "ms"
    ));

    // The matrix as it would be with f16, so the skipped f16 cases are listed by name; the cases
    // that run are exactly `default_matrix(&ctx)`.
    let mut with_f16 = caps.clone();
    with_f16.shader_f16 = true;
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let (mut f32_passed, mut f32_total) = (0, 0);
    let mut ran = Vec::new();
    for case in matrix_for(&with_f16) {
        if case.desc.dtype == DType::F16 && skip_f16.is_some() {
            skipped += 1;
            log(&format!("{:<40} {:>7}  no shader-f16", case.name, "SKIP"));
            continue;
        }
        ran.push(case.name.clone());
        let errors_before = gpu_errors.load(Ordering::SeqCst);
        let start = now_ms();
        let result = run_case_async(&ctx, &case, SEED).await;
        let ms = now_ms() - start;
        let new_errors = gpu_errors.load(Ordering::SeqCst) - errors_before;
        let pass = match &result {
            Ok(o) => {
                let pass = o.comparison.passed() && new_errors == 0;
                log(&format!(
                    "{:<40} {:>7} {:>11.3e} {:>11.3e} {:>8.0}  {}{}",
                    case.name,
                    if pass { "PASS" } else { "FAIL" },
                    o.comparison.max_abs_diff,
                    o.comparison.worst_excess,
                    ms,
                    o.plan,
                    if new_errors > 0 {
                        format!(" ({new_errors} wgpu errors, see the console)")
                    } else {
                        String::new()
                    }
                ));
                pass
            }
            Err(e) => {
                log(&format!("{:<40} {:>7}  {e}", case.name, "ERROR"));
                false
            }
        };
        if pass {
            passed += 1;
        } else {
            failed += 1;
        }
        if case.desc.dtype == DType::F32 {
            f32_total += 1;
            f32_passed += usize::from(pass);
        }
    }
    let expected: Vec<String> = default_matrix(&ctx).into_iter().map(|c| c.name).collect();
    if ran != expected {
        failed += 1;
        log(&format!(
            "FAIL: the cases run differ from default_matrix's: ran {ran:?}, expected {expected:?}"
        ));
    }
    let errors = gpu_errors.load(Ordering::SeqCst);
    log(&format!(
        "{passed} of {} cases passed ({skipped} skipped), {errors} uncaptured wgpu errors",
        passed + failed
    ));
    Ok(format!(
        "SDPA-WEB-DONE passed={passed} failed={failed} skipped={skipped} \
         f32_passed={f32_passed} f32_total={f32_total} gpu_errors={errors}"
    ))
}
