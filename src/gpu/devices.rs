//! Which CUDA devices a GPU run uses: `devices: All` or a list of ordinals in RON
//! (`backend: Gpu(devices: [0, 1])`), `--devices all|0,1` on the command line. An ordinal may
//! repeat: `[0, 0]` opens two workers on device 0, each with a context of its own (how the
//! multi-GPU worker pool is tested on a one-GPU machine).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The CUDA devices of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Devices {
    /// Every device of the host, one worker each.
    All,
    /// These ordinals, one worker per entry (repeats allowed).
    List(Vec<usize>),
}

/// A device selection that cannot be honoured.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DevicesError {
    #[error("CUDA device {device} requested but this host has {found} device(s) (ordinals 0..{found})")]
    NoSuchDevice { device: usize, found: usize },
    #[error("no CUDA device on this host")]
    NoDevice,
    #[error("the device list is empty: name at least one ordinal, or All")]
    Empty,
    #[error("--devices {0:?}: expected `all` or comma-separated ordinals such as 0,1")]
    Unparsable(String),
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
