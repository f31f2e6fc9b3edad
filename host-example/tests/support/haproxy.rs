//! HAProxy (Debian's package, pinned in `.ci/haproxy.sh`) as the
//! round-robin proxy in front of several `host-example serve` processes:
//! started on a free loopback port with a configuration written for the
//! servers given, killed when dropped.

use std::io::Write as _;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running HAProxy; killed when dropped.
pub struct Proxy {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    _dir: tempfile::TempDir,
}

/// The `haproxy` binary: `HOST_TEST_HAPROXY`, or on the `PATH`, or
/// `/usr/sbin/haproxy`; `None` when there is none.
pub fn haproxy() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("HOST_TEST_HAPROXY") {
        return Some(PathBuf::from(path));
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join("haproxy"))
        .find(|candidate| candidate.is_file())
}

impl Proxy {
    /// HAProxy in HTTP mode balancing each request round-robin over
    /// `servers` (`http://127.0.0.1:PORT` each), or `None` when HAProxy is
    /// not installed (a test skips; in CI, where `.ci/run` installs it,
    /// that is a failure).
    pub fn start(servers: &[&str]) -> Option<Proxy> {
        let Some(binary) = haproxy() else {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set but haproxy is not installed (.ci/haproxy.sh)"
            );
            eprintln!("skipped: haproxy is not installed (.ci/haproxy.sh install)");
            return None;
        };
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let backends: String = servers
            .iter()
            .enumerate()
            .map(|(i, server)| {
                let address = server.strip_prefix("http://").unwrap_or(server);
                format!("    server serve{i} {address}\n")
            })
            .collect();
        // Streams (SSE) stay open for minutes: the timeouts are long, and
        // `timeout tunnel` covers a stream once its answer has begun.
        let config = format!(
            "global\n    maxconn 4096\n\
             defaults\n    mode http\n    timeout connect 5s\n    timeout client 10m\n    \
             timeout server 10m\n    timeout tunnel 10m\n\
             frontend mcp\n    bind 127.0.0.1:{port}\n    default_backend serve\n\
             backend serve\n    balance roundrobin\n{backends}"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("haproxy.cfg");
        std::fs::File::create(&path)
            .unwrap()
            .write_all(config.as_bytes())
            .unwrap();
        let child = Command::new(binary)
            .args(["-db", "-q", "-f"])
            .arg(&path)
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let mut proxy = Proxy {
            child,
            base: format!("http://127.0.0.1:{port}"),
            _dir: dir,
        };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = proxy.child.try_wait().unwrap() {
                panic!("haproxy ended: {status}");
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "haproxy did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(proxy)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
