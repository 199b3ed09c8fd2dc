//! The identifiers GTP-U and PFCP share, as the files write them: plain numbers, read straight
//! into the types the rest of upfbench uses ([`Teid`], [`Seid`], [`Qfi`]), so that a value is
//! checked where it is read and reported at its place.

use serde::de::{self, Deserialize, Deserializer};
use upfbench_net::{Qfi, Teid};
use upfbench_pfcp::Seid;

/// A TEID: any 32-bit number (`1`, `0x10000000`); what may not be 0 is checked with the file.
#[allow(non_camel_case_types)]
pub(crate) struct teid;
impl teid {
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Teid, D::Error> {
        u32::deserialize(d).map(Teid)
    }
}

/// A SEID: any 64-bit number; 0 is checked with the file.
#[allow(non_camel_case_types)]
pub(crate) struct seid;
impl seid {
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Seid, D::Error> {
        u64::deserialize(d).map(Seid)
    }
}

/// The message for a number that is not a QFI.
pub(crate) fn qfi_out_of_range(value: u64) -> String {
    format!("QFI {value} does not fit 6 bits: use 0 to {}", Qfi::MAX)
}

/// A QFI, 0 to 63.
#[allow(non_camel_case_types)]
pub(crate) struct qfi;
impl qfi {
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Qfi, D::Error> {
        let v = u64::deserialize(d)?;
        u8::try_from(v)
            .ok()
            .and_then(|q| Qfi::new(q).ok())
            .ok_or_else(|| de::Error::custom(qfi_out_of_range(v)))
    }
}

/// An optional QFI, 0 to 63; `~` for none.
#[allow(non_camel_case_types)]
pub(crate) struct opt_qfi;
impl opt_qfi {
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Qfi>, D::Error> {
        match Option::<u64>::deserialize(d)? {
            None => Ok(None),
            Some(v) => u8::try_from(v)
                .ok()
                .and_then(|q| Qfi::new(q).ok())
                .map(Some)
                .ok_or_else(|| de::Error::custom(qfi_out_of_range(v))),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize)]
    struct Ids {
        #[serde(default, deserialize_with = "opt_qfi::deserialize")]
        qfi: Option<Qfi>,
        #[serde(default, with = "teid")]
        teid: Teid,
        #[serde(default, with = "seid")]
        seid: Seid,
    }

    fn read(text: &str) -> Result<Ids, String> {
        serde_saphyr::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn a_qfi_is_checked_where_it_is_read() {
        assert_eq!(read("qfi: 63").unwrap().qfi.map(Qfi::get), Some(63));
        assert_eq!(read("qfi: 0").unwrap().qfi.map(Qfi::get), Some(0));
        assert_eq!(read("qfi: ~").unwrap().qfi, None);
        for bad in ["64", "255", "300"] {
            let e = read(&format!("qfi: {bad}")).unwrap_err();
            assert!(
                e.contains(&format!("QFI {bad} does not fit 6 bits: use 0 to 63")),
                "{e}"
            );
        }
    }

    #[test]
    fn teids_and_seids_are_plain_numbers() {
        let ids = read("teid: 0x10000000\nseid: 18446744073709551615").unwrap();
        assert_eq!((ids.teid, ids.seid), (Teid(0x1000_0000), Seid(u64::MAX)));
        assert!(read("teid: 4294967296").is_err());
    }
}
