//! The socket files of memif, vhost-user and virtio-user ports: their directory made before EAL
//! probes the port ([`make_socket_dir`]), and a server's socket file left behind by a reflector that did not end
//! cleanly (killed, crashed): DPDK's memif PMD cannot bind over it ("Address already in use"),
//! so a reflector restarted after a crash (`Restart=on-failure` of
//! upfbench-reflector@.service) would fail until someone removed the file by hand.

use std::io::ErrorKind;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use thiserror::Error;
use upfbench_config::Device;
use upfbench_config::devargs::socket_file;

/// What went wrong with a port's socket file.
#[derive(Debug, Error)]
pub enum SocketFileError {
    /// The socket's directory could not be made.
    #[error("creating {dir} for the {protocol} socket: {source}")]
    CreateDir {
        /// The directory.
        dir: PathBuf,
        /// memif, vhost-user or virtio-user.
        protocol: &'static str,
        /// Why.
        source: std::io::Error,
    },
    /// A server still listens on the socket: two reflectors would share one.
    #[error("{0}: a server already listens on this socket (is another reflector running?)")]
    InUse(PathBuf),
    /// A stale socket could not be removed.
    #[error("removing the stale socket {path}: {source}")]
    Remove {
        /// The socket file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Makes the directory of `device`'s socket file, if it has one (DPDK's memif and vhost PMDs do
/// not).
pub fn make_socket_dir(device: &Device, devargs: Option<&str>) -> Result<(), SocketFileError> {
    let Some(socket) = socket_file(device.name(), devargs) else {
        return Ok(());
    };
    if let Some(dir) = socket.path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| SocketFileError::CreateDir {
            dir: dir.to_path_buf(),
            protocol: socket.protocol,
            source,
        })?;
    }
    Ok(())
}

/// Removes `socket` if it is a socket file that no server listens on any more, and says whether
/// it did; anything else there is left alone (DPDK then names the problem). A server still
/// listening on it is an error: two reflectors would share one socket.
pub fn remove_stale_socket(socket: &Path) -> Result<bool, SocketFileError> {
    let Ok(meta) = std::fs::symlink_metadata(socket) else {
        return Ok(false);
    };
    if !meta.file_type().is_socket() {
        return Ok(false);
    }
    match UnixStream::connect(socket) {
        Ok(_) => Err(SocketFileError::InUse(socket.to_path_buf())),
        Err(e) if e.kind() == ErrorKind::ConnectionRefused => {
            std::fs::remove_file(socket).map_err(|source| SocketFileError::Remove {
                path: socket.to_path_buf(),
                source,
            })?;
            Ok(true)
        }
        Err(_) => Ok(false),
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::net::UnixListener;

    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("upfbench-stale-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    #[test]
    fn a_socket_nobody_listens_on_is_removed() {
        let dir = scratch("dead");
        let socket = dir.join("n3.sock");
        // A listener dropped without unlinking leaves the file, as a killed process does.
        drop(UnixListener::bind(&socket).expect("bind"));
        assert!(socket.exists());
        assert!(remove_stale_socket(&socket).expect("removed"));
        assert!(!socket.exists());
        assert!(!remove_stale_socket(&socket).expect("nothing to do"));
        std::fs::remove_dir_all(&dir).expect("scratch removed");
    }

    #[test]
    fn a_live_server_is_an_error_and_other_files_are_left() {
        let dir = scratch("live");
        let socket = dir.join("n3.sock");
        let _listener = UnixListener::bind(&socket).expect("bind");
        let e = remove_stale_socket(&socket).expect_err("a live server");
        assert!(e.to_string().contains("already listens"), "{e}");
        assert!(socket.exists());
        let file = dir.join("n6.sock");
        std::fs::write(&file, "not a socket").expect("file");
        assert!(!remove_stale_socket(&file).expect("left alone"));
        assert!(file.exists());
        std::fs::remove_dir_all(&dir).expect("scratch removed");
    }
}
