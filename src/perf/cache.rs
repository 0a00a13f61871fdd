//! The on-disk cache of the model: measured once per case, mesh and machine.
//!
//! Two files per case key (blade file contents, operating point, density, mesh size, the base
//! solver settings, the turbopt version):
//! - `<key>-counts.json`: the iteration counts of the full runs, which do not depend on the
//!   machine (GPU and CPU solves take identical iterations: the parity tests), kept across
//!   machines;
//! - `<key>-<machine>.json`: the unit costs measured on a machine (CPU model, core count, GPU name
//!   and driver, turbopt version); a file of another machine is never read, so a changed
//!   machine is measured again.
//!
//! The directory: `TURBOPT_CACHE_DIR`, else `$XDG_CACHE_HOME/turbopt/perf`, else
//! `$HOME/.cache/turbopt/perf`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::measure::HardwareMeasurement;
use super::model::IterationCount;
use crate::{Error, Result};

/// What a measurement was taken on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    pub cpu_model: String,
    pub cores: usize,
    /// GPU name and driver, or None when no GPU could be opened.
    pub gpu: Option<String>,
    pub turbopt_version: String,
}

impl Machine {
    /// This machine; `gpu`: the opened device's name (with the driver read here), if any.
    pub fn this(gpu_name: Option<String>) -> Self {
        Machine {
            cpu_model: cpu_model(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            gpu: gpu_name.map(|name| match nvidia_driver() {
                Some(driver) => format!("{name}, driver {driver}"),
                None => name,
            }),
            turbopt_version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }

    /// A short stable tag of the machine for file names.
    pub fn tag(&self) -> String {
        format!("{:016x}", fnv1a(&serde_json::to_string(self).unwrap_or_default()))
    }
}

/// "model name" of /proc/cpuinfo, or "unknown CPU".
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| t.lines().find(|l| l.starts_with("model name")).and_then(|l| l.split(':').nth(1)).map(|s| s.trim().to_string()))
        .unwrap_or_else(|| "unknown CPU".into())
}

/// The NVIDIA kernel driver's version (/proc/driver/nvidia/version), if present.
fn nvidia_driver() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    let line = text.lines().next()?;
    line.split_whitespace().find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()) && w.contains('.')).map(str::to_string)
}

/// FNV-1a, 64 bits: a hash stable across Rust releases (std's is not promised to be).
pub fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The iteration counts of one case key, by count key ("explicit-single-grid",
/// "explicit-multigrid", "implicit-ilu", ...).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StoredCounts {
    pub case_key: String,
    pub counts: BTreeMap<String, IterationCount>,
}

/// The unit costs of one case key on one machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredMeasurement {
    pub case_key: String,
    pub machine: Machine,
    pub hardware: Vec<HardwareMeasurement>,
    /// Why the GPU columns are absent, when they are.
    pub gpu_absent: Option<String>,
}

/// The cache directory (module notes).
pub fn directory() -> PathBuf {
    match std::env::var_os("TURBOPT_CACHE_DIR") {
        Some(d) => PathBuf::from(d),
        None => crate::files::cache_directory("perf").unwrap_or_else(|| PathBuf::from("out").join("perf-cache")),
    }
}

/// A cache in `dir`.
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Cache { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn counts_path(&self, case_key: &str) -> PathBuf {
        self.dir.join(format!("{case_key}-counts.json"))
    }

    pub fn measurement_path(&self, case_key: &str, machine: &Machine) -> PathBuf {
        self.dir.join(format!("{case_key}-{}.json", machine.tag()))
    }

    /// The counts of `case_key` (empty when none are stored).
    pub fn counts(&self, case_key: &str) -> Result<StoredCounts> {
        let stored: Option<StoredCounts> = read(&self.counts_path(case_key))?;
        Ok(stored.filter(|s| s.case_key == case_key).unwrap_or(StoredCounts { case_key: case_key.into(), counts: BTreeMap::new() }))
    }

    pub fn store_counts(&self, counts: &StoredCounts) -> Result<()> {
        write(&self.dir, &self.counts_path(&counts.case_key), counts)
    }

    /// The measurement of `case_key` on `machine`, if one was stored on this very machine.
    pub fn measurement(&self, case_key: &str, machine: &Machine) -> Result<Option<StoredMeasurement>> {
        let stored: Option<StoredMeasurement> = read(&self.measurement_path(case_key, machine))?;
        Ok(stored.filter(|s| s.case_key == case_key && &s.machine == machine))
    }

    pub fn store_measurement(&self, m: &StoredMeasurement) -> Result<()> {
        write(&self.dir, &self.measurement_path(&m.case_key, &m.machine), m)
    }
}

/// A JSON file, or None when it does not exist; a damaged one is an error naming it.
fn read<T: DeserializeOwned>(path: &Path) -> Result<Option<T>> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| Error::Input { path: path.display().to_string(), reason: format!("damaged perf-model cache file ({e}); delete it to remeasure") }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

fn write<T: Serialize>(dir: &Path, path: &Path, value: &T) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let text = serde_json::to_string_pretty(value).map_err(|e| Error::Other(e.to_string()))?;
    std::fs::write(path, text).map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(cores: usize, gpu: Option<&str>) -> Machine {
        Machine { cpu_model: "Test CPU".into(), cores, gpu: gpu.map(str::to_string), turbopt_version: "0.1.0".into() }
    }

    fn stored(machine: Machine) -> StoredMeasurement {
        StoredMeasurement { case_key: "ls89-mur47-coarse-0123".into(), machine, hardware: vec![], gpu_absent: Some("no GPU".into()) }
    }

    #[test]
    fn a_measurement_is_found_only_on_the_machine_it_was_taken_on() {
        let dir = std::env::temp_dir().join(format!("turbopt-perf-cache-{}", std::process::id()));
        let cache = Cache::new(&dir);
        let here = machine(16, Some("NVIDIA H100, driver 580.1"));
        cache.store_measurement(&stored(here.clone())).unwrap();
        assert_eq!(cache.measurement("ls89-mur47-coarse-0123", &here).unwrap(), Some(stored(here.clone())));
        // Another core count, another GPU or driver, another version: remeasured.
        for other in [machine(8, Some("NVIDIA H100, driver 580.1")), machine(16, Some("NVIDIA H200, driver 580.1")), machine(16, Some("NVIDIA H100, driver 590.0")), machine(16, None), Machine { turbopt_version: "0.2.0".into(), ..here.clone() }] {
            assert_eq!(cache.measurement("ls89-mur47-coarse-0123", &other).unwrap(), None, "{other:?}");
        }
        // Another case key: nothing.
        assert_eq!(cache.measurement("ls89-mur47-medium-0123", &here).unwrap(), None);
        // Counts survive a machine change.
        let mut counts = cache.counts("ls89-mur47-coarse-0123").unwrap();
        assert!(counts.counts.is_empty());
        counts.counts.insert("implicit-ilu".into(), IterationCount { iterations: 530, converged: true, linear_iterations: 7000, factorizations: 30 });
        cache.store_counts(&counts).unwrap();
        assert_eq!(cache.counts("ls89-mur47-coarse-0123").unwrap(), counts);
        // A damaged file is an error naming it, not a panic.
        std::fs::write(cache.measurement_path("ls89-mur47-coarse-0123", &here), "{ not json").unwrap();
        assert!(matches!(cache.measurement("ls89-mur47-coarse-0123", &here), Err(Error::Input { .. })));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_hash_is_fnv1a() {
        assert_eq!(fnv1a(""), 0xcbf29ce484222325);
        assert_eq!(fnv1a("a"), 0xaf63dc4c8601ec8c);
    }
}
