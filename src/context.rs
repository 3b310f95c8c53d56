//! The device, queue and pipeline cache every [`crate::Attention`] runs on.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::capabilities::Capabilities;
use crate::desc::AttentionDesc;
use crate::error::{Error, Result};
use crate::pipelines::PipelineCache;
use crate::planner::{plan, Plan, PlanOptions, DEFAULT_FUSED_THRESHOLD};

/// The features this crate uses when the adapter has them.
pub const WANTED_FEATURES: wgpu::Features = wgpu::Features::SHADER_F16
    .union(wgpu::Features::SUBGROUP)
    .union(wgpu::Features::SUBGROUP_BARRIER)
    .union(wgpu::Features::TIMESTAMP_QUERY)
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
    .union(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX)
    .union(wgpu::Features::PASSTHROUGH_SHADERS)
    .union(wgpu::Features::MEMORY_DECORATION_COHERENT);

struct Shared {
    device: wgpu::Device,
    queue: wgpu::Queue,
    caps: Capabilities,
    pipelines: PipelineCache,
    /// Whether shader modules keep wgpu's injected bounds and loop checks (see `with_runtime_checks`).
    runtime_checks: bool,
    /// Bound in the mask slot when a problem has no mask buffer.
    empty_mask: wgpu::Buffer,
    /// Why the device was lost, once it was (set by the device-lost callback of
    /// [`Context::headless`], or by [`Context::watch_device_loss`]).
    lost: Arc<Mutex<Option<String>>>,
    /// How long the blocking calls wait for the GPU (see [`Context::set_wait_timeout`]).
    wait_timeout: Mutex<Option<Duration>>,
}

/// A wgpu device and queue with what the crate knows about them. Cheap to clone (shared).
#[derive(Clone)]
pub struct Context {
    shared: Arc<Shared>,
    fused_threshold: u32,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("adapter", &self.shared.caps.adapter_name)
            .field("backend", &self.shared.caps.backend)
            .field("fused_threshold", &self.fused_threshold)
            .field("wait_timeout", &self.wait_timeout())
            .finish()
    }
}

// wgpu's handles are neither `Send` nor `Sync` on the web (one thread), so `Shared` is not
// either there: the `Arc` still serves the clones.
#[cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]
impl Context {
    /// Creates an adapter and device of its own, blocking (for tests, tools, programs without a
    /// window). `WGPU_BACKEND` (e.g. `vulkan`, `metal`) and `WGPU_ADAPTER_NAME` (a case-insensitive
    /// substring of the adapter's name) choose the adapter, as wgpu's own helpers do.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn headless() -> Result<Self> {
        pollster::block_on(Self::headless_async())
    }

    /// [`Context::headless`] as a future (the only form in a browser).
    pub async fn headless_async() -> Result<Self> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = select_adapter(&instance).await?;
        let features = adapter.features() & WANTED_FEATURES;
        let experimental = if features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
            // SAFETY: the cooperative-matrix feature is used only with configurations that
            // `Adapter::cooperative_matrix_properties` lists (see planner and capabilities).
            unsafe { wgpu::ExperimentalFeatures::enabled() }
        } else {
            wgpu::ExperimentalFeatures::disabled()
        };
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("wgpu-sdpa"),
                required_features: features,
                required_limits: adapter.limits(),
                experimental_features: experimental,
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|e| Error::RequestDevice(e.to_string()))?;
        // Errors outside the crate's error scopes must not abort the process.
        // (In a browser every error arrives here: see `gpu_errors`.)
        device.on_uncaptured_error(Arc::new(|e: wgpu::Error| {
            let message = format!("wgpu-sdpa: uncaptured wgpu error: {e}");
            #[cfg(not(target_arch = "wasm32"))]
            eprintln!("{message}");
            #[cfg(target_arch = "wasm32")]
            web_sys::console::error_1(&message.into());
        }));
        let ctx = Self::from_wgpu(device, queue, &adapter);
        ctx.watch_device_loss();
        Ok(ctx)
    }

    /// Installs a device-lost callback that records the loss, after which every call on this
    /// context (and its clones) returns `Error::Gpu` of kind `DeviceLost` with wgpu's reason
    /// instead of working on dead resources. [`Context::headless`] does this for its own device;
    /// a wgpu application that wraps its device with [`Context::from_wgpu`] may call it (it
    /// replaces any device-lost callback the application set) or keep its own. Without it a lost
    /// device still gives typed errors, only less precise ones (a failed map or upload).
    pub fn watch_device_loss(&self) {
        let lost = Arc::clone(&self.shared.lost);
        self.shared
            .device
            .set_device_lost_callback(move |reason, message| {
                let mut slot = locked(&lost);
                slot.get_or_insert(format!("{reason:?}: {message}"));
            });
    }

    /// Why the device was lost, if a watched device was (see [`Context::watch_device_loss`]).
    pub fn device_lost(&self) -> Option<String> {
        locked(&self.shared.lost).clone()
    }

    /// `Err(Error::Gpu { kind: DeviceLost, .. })` once the device is known to be lost.
    pub(crate) fn check_not_lost(&self) -> Result<()> {
        match self.device_lost() {
            Some(reason) => Err(Error::Gpu {
                kind: crate::error::GpuErrorKind::DeviceLost,
                message: reason,
            }),
            None => Ok(()),
        }
    }

    /// Wraps a caller's device and queue (a wgpu application's own), so attention is recorded into
    /// the caller's command encoders on the caller's buffers. `adapter` must be the adapter the
    /// device was created from; features and limits are read from the device.
    pub fn from_wgpu(device: wgpu::Device, queue: wgpu::Queue, adapter: &wgpu::Adapter) -> Self {
        let caps = Capabilities::from_device(adapter, &device);
        Self::from_parts(device, queue, caps)
    }

    /// Wraps a device and queue with capabilities the caller states (they must not claim
    /// features or limits the device lacks). Useful with lowered limits in tests.
    pub fn from_parts(device: wgpu::Device, queue: wgpu::Queue, caps: Capabilities) -> Self {
        let empty_mask = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wgpu-sdpa empty mask"),
            size: 16,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let runtime_checks = std::env::var("WGPU_SDPA_RUNTIME_CHECKS").is_ok_and(|v| v == "1");
        Context {
            shared: Arc::new(Shared {
                device,
                queue,
                caps,
                pipelines: PipelineCache::default(),
                runtime_checks,
                empty_mask,
                lost: Arc::default(),
                wait_timeout: Mutex::new(None),
            }),
            fused_threshold: DEFAULT_FUSED_THRESHOLD,
        }
    }

    /// A context on the same device whose shader modules keep (`true`) or drop (`false`, the
    /// default unless `WGPU_SDPA_RUNTIME_CHECKS=1`) the bounds and loop checks wgpu injects.
    ///
    /// Without them the kernels run about twice as fast on the H200 (BENCHMARKS.md). That is sound
    /// because no index a kernel computes can leave its arrays for any description the planner
    /// accepts: the planner sizes every workgroup array from the same constants the kernel
    /// indexes it with, every device-memory access is guarded by the tensor's extents, and
    /// [`crate::Attention::encode`] checks each buffer against the bytes those extents need
    /// (the tests in `tests/` exercise exactly these checks). Browsers always keep the checks.
    /// The returned context has its own pipeline cache.
    pub fn with_runtime_checks(&self, checks: bool) -> Context {
        let s = &self.shared;
        let empty_mask = s.empty_mask.clone();
        Context {
            shared: Arc::new(Shared {
                device: s.device.clone(),
                queue: s.queue.clone(),
                caps: s.caps.clone(),
                pipelines: PipelineCache::default(),
                runtime_checks: checks,
                empty_mask,
                lost: Arc::clone(&s.lost),
                wait_timeout: Mutex::new(self.wait_timeout()),
            }),
            fused_threshold: self.fused_threshold,
        }
    }

    /// Whether this context's shader modules keep wgpu's runtime checks.
    pub fn runtime_checks(&self) -> bool {
        self.shared.runtime_checks
    }

    /// The device.
    pub fn device(&self) -> &wgpu::Device {
        &self.shared.device
    }

    /// The queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.shared.queue
    }

    /// What the adapter can do.
    pub fn capabilities(&self) -> &Capabilities {
        &self.shared.caps
    }

    /// The query length from which `Path::Auto` picks the fused kernel on this context.
    pub fn fused_threshold(&self) -> u32 {
        self.fused_threshold
    }

    /// Sets the fused threshold of this context (clones made earlier keep theirs).
    pub fn set_fused_threshold(&mut self, q_len: u32) {
        self.fused_threshold = q_len;
    }

    /// How long [`crate::Attention::run`] (and [`crate::Attention::run_async`], natively) waits
    /// for the GPU before it returns `Error::Gpu { kind: GpuErrorKind::Timeout }`; `None` (the
    /// default) waits as long as the work takes. The setting is shared by every clone of this
    /// context (a context from [`Context::with_runtime_checks`] starts with the value of the
    /// moment). A call that times out leaves its work running: the next call on the queue waits
    /// behind it, and its buffers are freed once it finishes. For a GPU that stops responding,
    /// or for work much longer than expected (a dispatch's time grows with `kv_len` times
    /// `q_len`). wgpu's native backends (Vulkan, Metal, DX12) honour it; in a browser nothing
    /// blocks and it has no effect.
    pub fn set_wait_timeout(&self, timeout: Option<Duration>) {
        *locked(&self.shared.wait_timeout) = timeout;
    }

    /// The wait timeout of [`Context::set_wait_timeout`].
    pub fn wait_timeout(&self) -> Option<Duration> {
        *locked(&self.shared.wait_timeout)
    }

    /// Plan options with this context's threshold.
    pub fn plan_options(&self) -> PlanOptions {
        PlanOptions {
            fused_threshold: self.fused_threshold,
            ..PlanOptions::default()
        }
    }

    /// Plans `desc` with default options, without compiling anything.
    pub fn plan(&self, desc: &AttentionDesc) -> Result<Plan> {
        plan(&self.shared.caps, desc, &self.plan_options())
    }

    /// Number of pipelines compiled so far on this context (each variant is compiled once).
    pub fn compiled_pipelines(&self) -> usize {
        self.shared.pipelines.compiled_count()
    }

    /// Compiles (once) and returns the pipeline of a variant.
    pub(crate) fn kernel(
        &self,
        variant: &crate::shader::ShaderVariant,
    ) -> Result<crate::pipelines::CompiledKernel> {
        self.shared.pipelines.get(
            &self.shared.device,
            self.shared.caps.backend,
            variant,
            self.shared.runtime_checks,
        )
    }

    pub(crate) fn empty_mask(&self) -> &wgpu::Buffer {
        &self.shared.empty_mask
    }
}

/// `mutex` locked; a panic elsewhere while it was held is ignored (the values kept behind these
/// locks are whole after any single store).
fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The wgpu instance [`Context::headless`] picks its adapter from: the backends `WGPU_BACKEND`
/// names, or else Vulkan, Metal, DX12 and the browser's WebGPU. wgpu's GL backend is left out
/// unless named (a downlevel compute path, and on a headless Linux box it only prints errors).
pub fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    if wgpu::Backends::from_env().is_none() {
        desc.backends = wgpu::Backends::PRIMARY;
    }
    wgpu::Instance::new(desc)
}

/// The adapter named by `WGPU_ADAPTER_NAME`, or the default (high-performance) one.
async fn select_adapter(instance: &wgpu::Instance) -> Result<wgpu::Adapter> {
    let wanted = std::env::var("WGPU_ADAPTER_NAME")
        .ok()
        .filter(|s| !s.is_empty());
    if let Some(name) = wanted {
        let adapters = instance.enumerate_adapters(wgpu::Backends::all()).await;
        let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        return adapters
            .into_iter()
            .find(|a| {
                a.get_info()
                    .name
                    .to_lowercase()
                    .contains(&name.to_lowercase())
            })
            .ok_or_else(|| {
                Error::NoAdapter(format!(
                    "WGPU_ADAPTER_NAME={name:?} matches none of the adapters {names:?}"
                ))
            });
    }
    instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::from_env()
                .unwrap_or(wgpu::PowerPreference::HighPerformance),
            ..Default::default()
        })
        .await
        .map_err(|e| Error::NoAdapter(e.to_string()))
}
