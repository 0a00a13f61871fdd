//! What a run asks for: the backend ([`BackendChoice`], the `backend` of a solver section in RON,
//! `--backend` on the command line) and, for the GPU, which devices ([`Devices`]: `devices: All`
//! or a list of ordinals, `--devices all|0,1`). An ordinal may repeat: `[0, 0]` opens two
//! workers on device 0, each with a context of its own (how the multi-GPU worker pool is tested
//! on a one-GPU machine). `backend::select` turns a choice into a backend.

use crate::error::DevicesError;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Where the solver runs (both schemes run on either backend). Without a device, a driver or
/// the `cuda` feature every evaluation fails with a status naming the cause
/// (`CfdEvaluator::check_backend` reports it once, up front).
///
/// RON: `Cpu(threads: None)`, `Gpu(devices: All)`, `Gpu(devices: [0, 1])`, and the one-device
/// form `Gpu(device: 0)` (`Gpu()`: device 0).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "BackendRepr", into = "BackendRepr")]
pub enum BackendChoice {
    /// Rayon backend; `threads: None` = one per core (single evaluations; batches decide their
    /// own split, see `eval::cfd::BatchMode`).
    Cpu { threads: Option<usize> },
    /// CUDA devices: one worker per entry (its own context, streams and share of a batch,
    /// `backend::select::DevicePool`); a single solve runs on the first.
    Gpu { devices: Devices },
    /// The fastest of CPU (one core, all cores) and GPU `device` for the case, by the
    /// performance model (`crate::perf::auto`), resolved before the solve.
    Auto { device: usize },
}

impl BackendChoice {
    /// One CUDA device.
    pub fn gpu(device: usize) -> Self {
        BackendChoice::Gpu { devices: Devices::one(device) }
    }
}

impl Default for BackendChoice {
    fn default() -> Self {
        BackendChoice::Cpu { threads: None }
    }
}

/// `BackendChoice` as written in RON, with `device: N` kept for the one-device form.
#[derive(Serialize, Deserialize)]
#[serde(rename = "BackendChoice")]
enum BackendRepr {
    Cpu { threads: Option<usize> },
    Gpu {
        #[serde(default = "unset_device", skip_serializing_if = "is_unset_device")]
        device: usize,
        #[serde(default = "unset_devices")]
        devices: Devices,
    },
    Auto {
        #[serde(default)]
        device: usize,
    },
}

fn unset_device() -> usize {
    usize::MAX
}

fn is_unset_device(d: &usize) -> bool {
    *d == usize::MAX
}

fn unset_devices() -> Devices {
    Devices::List(Vec::new())
}

impl TryFrom<BackendRepr> for BackendChoice {
    type Error = String;
    fn try_from(r: BackendRepr) -> Result<Self, String> {
        match r {
            BackendRepr::Cpu { threads } => Ok(BackendChoice::Cpu { threads }),
            BackendRepr::Gpu { device, devices } => match (is_unset_device(&device), devices == unset_devices()) {
                (true, true) => Ok(BackendChoice::gpu(0)),
                (false, true) => Ok(BackendChoice::gpu(device)),
                (true, false) => Ok(BackendChoice::Gpu { devices }),
                (false, false) => Err("backend: Gpu takes `device: N` or `devices: [..]`/`All`, not both".into()),
            },
            BackendRepr::Auto { device } => Ok(BackendChoice::Auto { device }),
        }
    }
}

impl From<BackendChoice> for BackendRepr {
    fn from(b: BackendChoice) -> Self {
        match b {
            BackendChoice::Cpu { threads } => BackendRepr::Cpu { threads },
            BackendChoice::Gpu { devices } => BackendRepr::Gpu { device: unset_device(), devices },
            BackendChoice::Auto { device } => BackendRepr::Auto { device },
        }
    }
}

/// The CUDA devices of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Devices {
    /// Every device of the host, one worker each.
    All,
    /// These ordinals, one worker per entry (repeats allowed).
    List(Vec<usize>),
}

impl Devices {
    /// One device.
    pub fn one(ordinal: usize) -> Self {
        Devices::List(vec![ordinal])
    }

    /// The ordinals to open on a host with `found` devices, one worker each, in order.
    pub fn resolve(&self, found: usize) -> Result<Vec<usize>, DevicesError> {
        match self {
            Devices::All if found == 0 => Err(DevicesError::NoDevice),
            Devices::All => Ok((0..found).collect()),
            Devices::List(list) if list.is_empty() => Err(DevicesError::Empty),
            Devices::List(list) => match list.iter().find(|&&d| d >= found) {
                Some(&device) => Err(DevicesError::NoSuchDevice { device, found }),
                None => Ok(list.clone()),
            },
        }
    }

    /// The first device named (`All`: device 0): where a single solve runs.
    pub fn first(&self) -> usize {
        match self {
            Devices::All => 0,
            Devices::List(list) => list.first().copied().unwrap_or(0),
        }
    }

    /// Whether more than one worker may be opened.
    pub fn is_single(&self) -> bool {
        matches!(self, Devices::List(l) if l.len() == 1)
    }
}

impl std::str::FromStr for Devices {
    type Err = DevicesError;
    /// `all`, or comma-separated ordinals (`0,1`, `0,0`).
    fn from_str(s: &str) -> Result<Self, DevicesError> {
        if s.trim().eq_ignore_ascii_case("all") {
            return Ok(Devices::All);
        }
        let list = s.split(',').map(|p| p.trim().parse::<usize>()).collect::<Result<Vec<_>, _>>().map_err(|_| DevicesError::Unparsable(s.into()))?;
        if list.is_empty() {
            return Err(DevicesError::Empty);
        }
        Ok(Devices::List(list))
    }
}

impl fmt::Display for Devices {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Devices::All => write!(f, "all"),
            Devices::List(l) => write!(f, "{}", l.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")),
        }
    }
}

/// RON: `All` or `[0, 1]`.
impl Serialize for Devices {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Devices::All => s.serialize_unit_variant("Devices", 0, "All"),
            Devices::List(l) => l.serialize(s),
        }
    }
}

/// `All` or a list. RON 0.8 hands a bare identifier to `deserialize_any` as a unit value
/// without its name, so the list-or-identifier choice cannot check the identifier's spelling;
/// a unit value therefore reads as `All`.
impl<'de> Deserialize<'de> for Devices {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Devices;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("All or a list of CUDA device ordinals such as [0, 1]")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Devices, E> {
                Ok(Devices::All)
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Devices, E> {
                s.parse().map_err(E::custom)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Devices, A::Error> {
                let mut list = Vec::new();
                while let Some(d) = seq.next_element()? {
                    list.push(d);
                }
                Ok(Devices::List(list))
            }
        }
        d.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_and_lists_resolve_against_the_device_count() {
        assert_eq!(Devices::All.resolve(2), Ok(vec![0, 1]));
        assert_eq!(Devices::All.resolve(0), Err(DevicesError::NoDevice));
        assert_eq!(Devices::List(vec![0, 0]).resolve(1), Ok(vec![0, 0]));
        assert_eq!(Devices::List(vec![0, 3]).resolve(2), Err(DevicesError::NoSuchDevice { device: 3, found: 2 }));
        assert_eq!(Devices::List(vec![]).resolve(2), Err(DevicesError::Empty));
        assert!(DevicesError::NoSuchDevice { device: 3, found: 2 }.to_string().contains("device 3"));
    }

    #[test]
    fn command_line_form_parses() {
        assert_eq!("all".parse(), Ok(Devices::All));
        assert_eq!("0,1".parse(), Ok(Devices::List(vec![0, 1])));
        assert_eq!(" 0, 0 ".parse(), Ok(Devices::List(vec![0, 0])));
        assert!(matches!("0,x".parse::<Devices>(), Err(DevicesError::Unparsable(_))));
        assert!(matches!("".parse::<Devices>(), Err(DevicesError::Unparsable(_))));
    }

    #[test]
    fn ron_form_round_trips() {
        for (text, devices) in [("All", Devices::All), ("[0, 1]", Devices::List(vec![0, 1])), ("[0,0]", Devices::List(vec![0, 0]))] {
            let d: Devices = ron::from_str(text).unwrap();
            assert_eq!(d, devices);
            assert_eq!(ron::from_str::<Devices>(&ron::to_string(&d).unwrap()).unwrap(), devices);
        }
        assert!(ron::from_str::<Devices>("[0, -1]").is_err());
        assert!(ron::from_str::<Devices>("1").is_err());
    }
}
