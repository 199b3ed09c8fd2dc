//! `device: {env: NAME}`: a port's device from an environment variable, for a process whose
//! NIC someone else chose. In Kubernetes the SR-IOV device plugin gives a pod that requests a
//! resource (`intel.com/upfbench_n3`) a VF and names its PCI address in
//! `PCIDEVICE_<RESOURCE>` (`PCIDEVICE_INTEL_COM_UPFBENCH_N3`: the resource's name in capitals,
//! `.` and `/` as `_`); docs/kubernetes.md.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use super::Device;
use super::host::Host;
use crate::issues::Issues;

/// `{env: NAME}`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DeviceFromEnv {
    /// The environment variable that holds the device (a PCI address, or a vdev name) when
    /// upfbench starts: letters, digits and `_`, not starting with a digit. Unset or empty is
    /// an error.
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]*$"))]
    env: String,
}

/// What `{env: NAME}` reads as until it is resolved: a name no device has.
fn unresolved(name: &str) -> Device {
    Device::Vdev(format!("{{env: {name}}}"))
}

impl Device {
    /// The variable a `{env: NAME}` device is to be read from, while it is not resolved.
    fn env_name(&self) -> Option<&str> {
        match self {
            Device::Vdev(n) => n.strip_prefix("{env: ")?.strip_suffix('}'),
            Device::Pci(_) => None,
        }
    }
}

/// Whether `name` can name an environment variable (POSIX's portable form).
fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A device: its name, `~` (left out: one-port mode's N6), or `{env: NAME}`.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Device, D::Error> {
    deserializer.deserialize_any(DeviceVisitor)
}

struct DeviceVisitor;

impl<'de> Visitor<'de> for DeviceVisitor {
    type Value = Device;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a device (net_memif0, 0000:3b:00.0) or {env: VARIABLE}")
    }
    fn visit_str<E: de::Error>(self, text: &str) -> Result<Device, E> {
        text.parse().map_err(E::custom)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Device, E> {
        Ok(Device::unset())
    }
    fn visit_none<E: de::Error>(self) -> Result<Device, E> {
        Ok(Device::unset())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Device, D::Error> {
        deserialize(d)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Device, A::Error> {
        let form = DeviceFromEnv::deserialize(MapAccessDeserializer::new(map))?;
        if !is_variable_name(&form.env) {
            return Err(de::Error::custom(format!(
                "{:?} is not an environment variable's name: letters, digits and `_`, not \
                 starting with a digit",
                form.env
            )));
        }
        Ok(unresolved(&form.env))
    }
}

/// The schema of a port's `device`: [`Device`], `{env: NAME}`, or `~`.
pub(crate) struct DeviceOrEnv;

impl JsonSchema for DeviceOrEnv {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("DeviceOrEnv")
    }
    fn schema_id() -> Cow<'static, str> {
        Cow::Borrowed("upfbench::config::DeviceOrEnv")
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({
            "oneOf": [
                generator.subschema_for::<Device>(),
                generator.subschema_for::<DeviceFromEnv>(),
                {"type": "null"},
            ]
        })
    }
}

/// Resolves `{env: NAME}` in `device` (the field `field`) from `host`'s environment; a problem
/// is reported at the field, naming the variable.
pub(crate) fn resolve_device(
    device: &mut Device,
    field: &str,
    host: &dyn Host,
    issues: &mut Issues,
) {
    let Some(name) = device.env_name() else {
        return;
    };
    let value = host.var(name);
    let text = value.as_deref().map(str::trim).unwrap_or_default();
    let problem = if value.is_none() {
        format!(
            "the environment variable {name} is not set: it names this port's device (in a \
             Kubernetes pod, the SR-IOV device plugin sets it for a pod that requests the \
             resource)"
        )
    } else if text.is_empty() {
        format!("the environment variable {name} is empty: it names this port's device")
    } else if text.contains(',') {
        format!(
            "the environment variable {name} names {} devices ({text}): a port takes one, so \
             request one device of the resource per port",
            text.split(',').count()
        )
    } else {
        match text.parse::<Device>() {
            Ok(resolved) => {
                *device = resolved;
                return;
            }
            Err(e) => format!("the environment variable {name}: {e}"),
        }
    };
    issues.add(field, problem);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::host::fake::FakeHost;
    use crate::{ConfigError, System, reflector_from_str_on, system_from_str_on};

    const N3: &str = "PCIDEVICE_INTEL_COM_UPFBENCH_N3";
    const N6: &str = "PCIDEVICE_INTEL_COM_UPFBENCH_N6";

    fn on(host: &FakeHost) -> Result<System, ConfigError> {
        system_from_str_on(
            &format!(
                "n3:\n  device: {{env: {N3}}}\n  address: 192.168.13.131/24\n  peer: 192.168.13.151\n\
                 n6:\n  device: {{env: {N6}}}\n  address: 192.168.16.152/24\n  peer: 192.168.16.151\n"
            ),
            "s.yaml",
            host,
        )
    }

    fn both(n3: &str, n6: &str) -> FakeHost {
        FakeHost::default().var(N3, n3).var(N6, n6)
    }

    #[test]
    fn each_port_takes_the_device_its_variable_names() {
        let s = on(&both("0000:3b:02.1", " 3b:0a.0\n")).expect("valid");
        assert_eq!(s.pair(0).n3.device, Device::Pci("0000:3b:02.1".to_owned()));
        assert_eq!(
            s.pair(0).n6.device,
            Device::Pci("3b:0a.0".to_owned()),
            "trimmed"
        );
        let s = on(&both("net_af_packet0", "net_af_packet1")).expect("a vdev too");
        assert_eq!(
            s.pair(0).n6.device,
            Device::Vdev("net_af_packet1".to_owned())
        );
    }

    #[test]
    fn an_unset_or_empty_variable_is_an_error_at_its_field() {
        let err = on(&FakeHost::default().var(N6, "")).expect_err("unset and empty");
        assert_eq!(
            err.to_string(),
            "s.yaml:2:11: n3.device: the environment variable PCIDEVICE_INTEL_COM_UPFBENCH_N3 \
             is not set: it names this port's device (in a Kubernetes pod, the SR-IOV device \
             plugin sets it for a pod that requests the resource)\n\
             s.yaml:6:11: n6.device: the environment variable PCIDEVICE_INTEL_COM_UPFBENCH_N6 \
             is empty: it names this port's device"
        );
    }

    #[test]
    fn a_variable_that_names_no_single_device_is_an_error() {
        let err = on(&both("0000:3b:02.1,0000:3b:02.2", "eth1")).expect_err("two, and a name");
        assert_eq!(
            err.to_string(),
            "s.yaml:2:11: n3.device: the environment variable PCIDEVICE_INTEL_COM_UPFBENCH_N3 \
             names 2 devices (0000:3b:02.1,0000:3b:02.2): a port takes one, so request one \
             device of the resource per port\n\
             s.yaml:6:11: n6.device: the environment variable PCIDEVICE_INTEL_COM_UPFBENCH_N6: \
             \"eth1\" is neither a vdev name (net_memif0, net_af_packet0) nor a PCI address \
             (0000:01:00.0); vdev arguments go in `devargs`"
        );
    }

    #[test]
    fn the_resolved_devices_pass_the_other_checks() {
        let err = on(&both("0000:3b:02.1", "0000:3b:02.1")).expect_err("one VF twice");
        assert_eq!(
            err.to_string(),
            "s.yaml:6:11: n6.device: 0000:3b:02.1 is also the n3 port's device: N3 and N6 need \
             ports of their own"
        );
    }

    #[test]
    fn one_port_mode_copies_the_resolved_device() {
        let s = system_from_str_on(
            &format!(
                "n3: {{device: {{env: {N3}}}, address: 192.168.13.131/24, peer: 192.168.13.151, vlan: {{id: 13}}}}\n\
                 n6: {{port: n3, address: 192.168.16.152/24, peer: 192.168.16.151, vlan: {{id: 16}}}}\n"
            ),
            "s.yaml",
            &FakeHost::default().var(N3, "0000:3b:02.1"),
        )
        .expect("valid");
        assert_eq!(s.pair(0).n6.device, Device::Pci("0000:3b:02.1".to_owned()));
    }

    #[test]
    fn the_form_is_checked_as_it_is_read() {
        let host = both("0000:3b:02.1", "0000:3b:02.2");
        for (device, message) in [
            (
                "{env: 1ABC}",
                "\"1ABC\" is not an environment variable's name",
            ),
            (
                "{env: A-B}",
                "\"A-B\" is not an environment variable's name",
            ),
            ("{env: A, index: 1}", "unknown field `index`"),
            ("{name: A}", "unknown field `name`"),
        ] {
            let text = format!(
                "n3: {{device: {device}, address: 192.168.13.131/24, peer: 192.168.13.151}}\n\
                 n6: {{device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}}\n"
            );
            let err = system_from_str_on(&text, "s.yaml", &host).expect_err(device);
            assert!(err.to_string().contains(message), "{device}: {err}");
        }
    }

    #[test]
    fn pci_addresses_read_as_text_not_as_numbers() {
        // YAML 1.1 read `01:00.0` as a sexagesimal number; the device must stay its text.
        let s = system_from_str_on(
            "n3: {device: 01:00.0, address: 192.168.13.131/24, peer: 192.168.13.151}\n\
             n6: {device: 0000:01:00.1, address: 192.168.16.152/24, peer: 192.168.16.151}\n",
            "s.yaml",
            &FakeHost::default(),
        )
        .expect("valid");
        assert_eq!(s.pair(0).n3.device, Device::Pci("01:00.0".to_owned()));
    }

    #[test]
    fn the_reflector_file_takes_it_too() {
        let r = reflector_from_str_on(
            &format!(
                "n3: {{device: {{env: {N3}}}, address: 192.168.13.151/24}}\n\
                 n6: {{device: {{env: {N6}}}, address: 192.168.16.151/24, peer: 192.168.16.152}}\n\
                 pfcp: {{}}\n"
            ),
            "r.yaml",
            &both("0000:af:02.0", "0000:af:0a.0"),
        )
        .expect("valid");
        assert_eq!(r.pair(0).n3.device, Device::Pci("0000:af:02.0".to_owned()));
    }
}
