//! What upfbench reads in a port's device arguments: the Unix socket file that joins a memif or
//! a vhost-user port to its peer and which end makes it, and the queue pairs a virtio-user or
//! vhost port is given. DPDK's defaults apply to what the arguments leave out.

use std::path::PathBuf;

/// The value of `key` in comma-separated `key=value` device arguments (the first, if given
/// twice), trimmed.
pub fn devarg<'a>(devargs: Option<&'a str>, key: &str) -> Option<&'a str> {
    devargs?.split(',').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (k.trim() == key).then(|| v.trim())
    })
}

/// Which end of a socket file a port is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SocketRole {
    /// It makes the file and listens: its peer may come later, and may come again.
    Server,
    /// It connects to the file, which its peer must have made first.
    Client,
}

/// The Unix socket file of a port whose link to its peer is one (memif, vhost-user).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocketFile {
    /// The file.
    pub path: PathBuf,
    /// This port's end.
    pub role: SocketRole,
    /// The protocol spoken over it, for messages: `memif`, `vhost-user`.
    pub protocol: &'static str,
}

/// The socket file of a port, `None` for a port with none (or an abstract memif socket, which
/// is not a file):
/// - `net_memif*`: `socket=` (default `/run/memif.sock`), a server with `role=server`, a client
///   otherwise; abstract unless `socket-abstract=no`;
/// - `net_vhost*`: `iface=`, a server unless `client=1`;
/// - `net_virtio_user*`: `path=`, a client unless `server=1`; a path under `/dev/` is the
///   kernel's vhost (`/dev/vhost-net`), not a socket.
pub fn socket_file(device: &str, devargs: Option<&str>) -> Option<SocketFile> {
    let get = |key| devarg(devargs, key);
    let (path, role, protocol) = if device.starts_with("net_memif") {
        if get("socket-abstract").is_none_or(|v| v != "no") {
            return None;
        }
        let role = match get("role") {
            Some("server") => SocketRole::Server,
            _ => SocketRole::Client,
        };
        (get("socket").unwrap_or("/run/memif.sock"), role, "memif")
    } else if device.starts_with("net_vhost") {
        let role = match get("client") {
            Some("1") => SocketRole::Client,
            _ => SocketRole::Server,
        };
        (get("iface")?, role, "vhost-user")
    } else if device.starts_with("net_virtio_user") {
        let path = get("path")?;
        if path.starts_with("/dev/") {
            return None;
        }
        let role = match get("server") {
            Some("1") => SocketRole::Server,
            _ => SocketRole::Client,
        };
        (path, role, "vhost-user")
    } else {
        return None;
    };
    (!path.is_empty()).then(|| SocketFile {
        path: PathBuf::from(path),
        role,
        protocol,
    })
}

/// The queue pairs a virtio-user or vhost port has (`queues=`, default 1: the PMDs' default),
/// `None` for other ports (whose queues the port's configuration alone sets). A vhost port's
/// count is its most: its virtio peer says how many it uses.
pub fn virtio_queue_pairs(device: &str, devargs: Option<&str>) -> Option<Result<u16, String>> {
    if !(device.starts_with("net_virtio_user") || device.starts_with("net_vhost")) {
        return None;
    }
    Some(match devarg(devargs, "queues") {
        None => Ok(1),
        Some(v) => v
            .parse::<u16>()
            .ok()
            .filter(|&q| q > 0)
            .ok_or_else(|| format!("queues={v} is not a number of queue pairs (1 or more)")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, role: SocketRole, protocol: &'static str) -> Option<SocketFile> {
        Some(SocketFile {
            path: PathBuf::from(path),
            role,
            protocol,
        })
    }

    #[test]
    fn a_devarg_is_found_by_its_key_alone() {
        let args = Some("iface=n3, qpairs=2,queues=4,queues=8");
        assert_eq!(devarg(args, "qpairs"), Some("2"));
        assert_eq!(devarg(args, "queues"), Some("4"));
        assert_eq!(devarg(args, "ues"), None);
        assert_eq!(devarg(None, "iface"), None);
        assert_eq!(devarg(Some("novalue"), "novalue"), None);
    }

    #[test]
    fn memif_ports_have_a_socket_file_unless_abstract() {
        let client = "role=client,id=0,socket=/tmp/upfbench/n3.sock,socket-abstract=no";
        assert_eq!(
            socket_file("net_memif0", Some(client)),
            file("/tmp/upfbench/n3.sock", SocketRole::Client, "memif")
        );
        // The PMD's defaults: a client, on /run/memif.sock when not abstract.
        assert_eq!(
            socket_file("net_memif1", Some("socket-abstract=no")),
            file("/run/memif.sock", SocketRole::Client, "memif")
        );
        let server = "role=server,socket=/tmp/upfbench/n3.sock,socket-abstract=no";
        assert_eq!(
            socket_file("net_memif0", Some(server)),
            file("/tmp/upfbench/n3.sock", SocketRole::Server, "memif")
        );
        assert_eq!(
            socket_file("net_memif0", Some("role=client,socket=/tmp/n3.sock")),
            None
        );
        assert_eq!(socket_file("net_memif0", None), None);
    }

    #[test]
    fn vhost_is_the_server_and_virtio_user_the_client_unless_told_otherwise() {
        assert_eq!(
            socket_file("net_vhost0", Some("iface=/tmp/v/n3.sock,queues=2")),
            file("/tmp/v/n3.sock", SocketRole::Server, "vhost-user")
        );
        assert_eq!(
            socket_file("net_vhost1", Some("iface=/tmp/v/n6.sock,client=1")),
            file("/tmp/v/n6.sock", SocketRole::Client, "vhost-user")
        );
        assert_eq!(
            socket_file("net_virtio_user0", Some("path=/tmp/v/n3.sock,queues=2")),
            file("/tmp/v/n3.sock", SocketRole::Client, "vhost-user")
        );
        assert_eq!(
            socket_file("net_virtio_user1", Some("path=/tmp/v/n6.sock,server=1")),
            file("/tmp/v/n6.sock", SocketRole::Server, "vhost-user")
        );
        // The kernel's vhost-net is a device, not a socket; no path, no file.
        assert_eq!(
            socket_file("net_virtio_user0", Some("path=/dev/vhost-net")),
            None
        );
        assert_eq!(socket_file("net_virtio_user0", Some("queues=1")), None);
        assert_eq!(socket_file("net_vhost0", Some("iface=")), None);
    }

    #[test]
    fn other_ports_have_no_socket_file() {
        let args = Some("iface=n3,socket=/tmp/x.sock,path=/tmp/y.sock,socket-abstract=no");
        assert_eq!(socket_file("net_af_packet0", args), None);
        assert_eq!(socket_file("0000:01:00.0", args), None);
    }

    #[test]
    fn virtio_and_vhost_ports_have_one_queue_pair_unless_given_more() {
        assert_eq!(virtio_queue_pairs("net_virtio_user0", None), Some(Ok(1)));
        assert_eq!(
            virtio_queue_pairs("net_virtio_user0", Some("path=/x,queues=2")),
            Some(Ok(2))
        );
        assert_eq!(
            virtio_queue_pairs("net_vhost1", Some("iface=/x,queues=4")),
            Some(Ok(4))
        );
        assert_eq!(
            virtio_queue_pairs("net_vhost1", Some("queues=0")),
            Some(Err(
                "queues=0 is not a number of queue pairs (1 or more)".into()
            ))
        );
        assert_eq!(
            virtio_queue_pairs("net_memif0", Some("queues=4")),
            None,
            "memif's queues are the port's configuration"
        );
    }
}
